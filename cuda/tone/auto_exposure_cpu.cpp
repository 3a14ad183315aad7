// CPU reference of auto_exposure_gpu: the same bins, percentile rule and clamped log-average
// (exposure_math.hpp), so both paths agree to float rounding.
#include <algorithm>
#include <mutex>
#include <vector>

#include "core/parallel_for.hpp"
#include "cuda/tone/exposure_math.hpp"
#include "cuda/tone/view_checks.hpp"

namespace gp::tone {
namespace {

float log2_luminance_at(const ImageView& rgba, int x, int y) {
  const float4 p = rgba.row<const float4>(y)[x];
  return math::log2_luminance({p.x, p.y, p.z});
}

std::vector<long long> log_luminance_histogram(const ImageView& rgba) {
  std::vector<long long> histogram(math::log_lum_bins, 0);
  std::mutex merge;
  const long min_rows = std::max(1L, 16384L / std::max(rgba.width, 1));
  parallel_for(rgba.height, [&](long begin, long end) {
    std::vector<long long> local(math::log_lum_bins, 0);
    for (long y = begin; y < end; ++y)
      for (int x = 0; x < rgba.width; ++x) ++local[std::size_t(math::log_lum_bin(log2_luminance_at(rgba, x, int(y))))];
    std::lock_guard<std::mutex> lock(merge);
    for (int b = 0; b < math::log_lum_bins; ++b) histogram[std::size_t(b)] += local[std::size_t(b)];
  }, min_rows);
  return histogram;
}

// The GPU's block scan, done serially: the bins holding the two percentile targets.
math::LogBounds percentile_bounds(const std::vector<long long>& histogram, long long n, const AutoExposureParams& p) {
  const double low_target = math::percentile_target(p.percentile_low, n);
  const double high_target = math::percentile_target(p.percentile_high, n);
  math::LogBounds bounds{math::log_lum_min, math::log_lum_max};
  long long through = 0;
  for (int b = 0; b < math::log_lum_bins; ++b) {
    const long long before = through;
    through += histogram[std::size_t(b)];
    if (math::bin_holds(before, through, low_target)) bounds.low = math::log_lum_bin_start(b);
    if (math::bin_holds(before, through, high_target)) bounds.high = math::log_lum_bin_start(b + 1);
  }
  return bounds;
}

}  // namespace

void auto_exposure_cpu(const ImageView& rgba, const AutoExposureParams& p, float base_scale, float* out_scale) {
  checks::require_rgba_f32(rgba, "auto_exposure_cpu", "rgba");
  const long long n = (long long)rgba.width * rgba.height;
  const math::LogBounds bounds = percentile_bounds(log_luminance_histogram(rgba), n, p);
  // Per-row sums added in row order: the same result whatever the thread count.
  std::vector<double> row_sums(std::size_t(std::max(rgba.height, 0)), 0.0);
  for_each_row(rgba.width, rgba.height, [&](int y) {
    double sum = 0;
    for (int x = 0; x < rgba.width; ++x) sum += math::clamp_to_bounds(log2_luminance_at(rgba, x, y), bounds);
    row_sums[std::size_t(y)] = sum;
  });
  double log_sum = 0;
  for (double s : row_sums) log_sum += s;
  math::exposure_result(log_sum, n, p, base_scale, out_scale);
}

}  // namespace gp::tone
