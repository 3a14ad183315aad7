// Auto exposure on the GPU without a host round trip: log2 luminance per pixel, a CUB histogram,
// percentile bounds from one small kernel, a CUB sum of the clamped log-luminances, and a final
// kernel that writes the exposure scale where the tone-mapping kernel reads it.
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/transform_iterator.h>

#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/tonemap/tonemap_math.hpp"

namespace gp::tonemap {
namespace {

using math::log_lum_bins;
using math::log_lum_max;
using math::log_lum_min;

__global__ void log_luminance_kernel(ImageView rgba, float* out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= rgba.width || y >= rgba.height) return;
  const float4 p = rgba.row<const float4>(y)[x];
  out[std::size_t(y) * rgba.width + x] = math::log2_luminance({p.x, p.y, p.z});
}

// One thread: scans the histogram for the percentile bins. bounds = {low, high} in log2 units.
__global__ void percentile_bounds_kernel(const int* histogram, long long n, float p_low, float p_high, float* bounds) {
  const float bin_width = (log_lum_max - log_lum_min) / log_lum_bins;
  bounds[0] = -1e30f;
  bounds[1] = 1e30f;
  const double low_count = double(p_low) / 100.0 * double(n), high_count = double(p_high) / 100.0 * double(n);
  long long cumulative = 0;
  bool low_found = p_low <= 0.0f, high_found = p_high >= 100.0f;
  for (int b = 0; b < log_lum_bins && !(low_found && high_found); ++b) {
    cumulative += histogram[b];
    if (!low_found && double(cumulative) >= low_count) {
      bounds[0] = log_lum_min + b * bin_width;
      low_found = true;
    }
    if (!high_found && double(cumulative) >= high_count) {
      bounds[1] = log_lum_min + (b + 1) * bin_width;
      high_found = true;
    }
  }
}

struct ClampToBounds {
  const float* bounds;
  __device__ double operator()(float v) const { return double(fminf(fmaxf(v, bounds[0]), bounds[1])); }
};

__global__ void exposure_scale_kernel(const double* log_sum, long long n, AutoExposureParams p, float base,
                                      float* out_scale) {
  const float log_average = exp2f(float(*log_sum / double(n)));
  out_scale[0] = fminf(fmaxf(base * p.key / log_average, p.min_scale), p.max_scale);
  out_scale[1] = log_average;
}

// Scratch layout, each part 256-byte aligned.
struct Layout {
  std::size_t log_lum, histogram, bounds, sum, cub_temp, total;
};
std::size_t align(std::size_t v) { return (v + 255) & ~std::size_t(255); }

std::size_t cub_temp_bytes(int n) {
  std::size_t hist_bytes = 0, sum_bytes = 0;
  GP_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, hist_bytes, static_cast<const float*>(nullptr),
                                                    static_cast<int*>(nullptr), log_lum_bins + 1, log_lum_min,
                                                    log_lum_max, n),
                "size CUB histogram");
  auto it = thrust::make_transform_iterator(static_cast<const float*>(nullptr), ClampToBounds{nullptr});
  GP_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, sum_bytes, it, static_cast<double*>(nullptr), n), "size CUB sum");
  return std::max(hist_bytes, sum_bytes);
}

Layout layout_for(int width, int height) {
  const int n = width * height;
  Layout l{};
  l.log_lum = 0;
  l.histogram = align(std::size_t(n) * sizeof(float));
  l.bounds = l.histogram + align(log_lum_bins * sizeof(int));
  l.sum = l.bounds + align(2 * sizeof(float));
  l.cub_temp = l.sum + align(sizeof(double));
  l.total = l.cub_temp + align(cub_temp_bytes(n));
  return l;
}

}  // namespace

std::size_t auto_exposure_scratch_bytes(int width, int height) { return layout_for(width, height).total; }

void auto_exposure_gpu(const ImageView& rgba, const AutoExposureParams& p, float base_scale, float* out_scale,
                       void* scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  const Layout l = layout_for(rgba.width, rgba.height);
  if (scratch_bytes < l.total) throw GpuError("auto_exposure_gpu: scratch too small");
  const int n = rgba.width * rgba.height;
  auto* base = static_cast<char*>(scratch);
  auto* log_lum = reinterpret_cast<float*>(base + l.log_lum);
  auto* histogram = reinterpret_cast<int*>(base + l.histogram);
  auto* bounds = reinterpret_cast<float*>(base + l.bounds);
  auto* sum = reinterpret_cast<double*>(base + l.sum);
  void* temp = base + l.cub_temp;
  std::size_t temp_bytes = l.total - l.cub_temp;
  const std::string sz = std::to_string(rgba.width) + "x" + std::to_string(rgba.height);

  log_luminance_kernel<<<dim3((rgba.width + 31) / 32, (rgba.height + 7) / 8), dim3(32, 8), 0, stream>>>(rgba, log_lum);
  GP_CUDA_CHECK_LAUNCH("log_luminance_kernel " + sz);
  GP_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, log_lum, histogram, log_lum_bins + 1,
                                                    log_lum_min, log_lum_max, n, stream),
                "auto-exposure histogram " + sz);
  percentile_bounds_kernel<<<1, 1, 0, stream>>>(histogram, n, p.percentile_low, p.percentile_high, bounds);
  GP_CUDA_CHECK_LAUNCH("percentile_bounds_kernel");
  temp_bytes = l.total - l.cub_temp;
  auto clamped = thrust::make_transform_iterator(static_cast<const float*>(log_lum), ClampToBounds{bounds});
  GP_CUDA_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, clamped, sum, n, stream), "auto-exposure sum " + sz);
  exposure_scale_kernel<<<1, 1, 0, stream>>>(sum, n, p, base_scale, out_scale);
  GP_CUDA_CHECK_LAUNCH("exposure_scale_kernel");
}

}  // namespace gp::tonemap
