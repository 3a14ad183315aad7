// CPU side of binarize: the references of the range, histogram and threshold kernels, and the
// host-only pieces both paths share (histogram edges, Otsu's threshold).
#include <algorithm>
#include <cmath>
#include <mutex>
#include <string>

#include "core/parallel_for.hpp"
#include "cuda/pnm/binarize.hpp"
#include "cuda/pnm/binarize_math.hpp"
#include "cuda/pnm/slab_checks.hpp"

namespace gp::pnm {

void ValueRange::include(const ValueRange& other) {
  if (other.empty()) return;
  if (empty()) {
    *this = other;
    return;
  }
  if (math::ordered_key(other.lo) < math::ordered_key(lo)) lo = other.lo;
  if (math::ordered_key(other.hi) > math::ordered_key(hi)) hi = other.hi;
}

ValueRange value_range_cpu(VolumeView<const float> view) {
  checks::require_view(view, "value_range_cpu", "input");
  std::uint32_t lo_key = math::min_key_start, hi_key = math::max_key_start;
  std::mutex merge;
  parallel_for(long(view.held_voxels()), [&](long begin, long end) {
    std::uint32_t lo = math::min_key_start, hi = math::max_key_start;
    for (long i = begin; i < end; ++i) {
      const float v = view.data[i];
      if (!math::finite_value(v)) continue;
      const std::uint32_t k = math::ordered_key(v);
      lo = std::min(lo, k);
      hi = std::max(hi, k);
    }
    std::lock_guard<std::mutex> lock(merge);
    lo_key = std::min(lo_key, lo);
    hi_key = std::max(hi_key, hi);
  }, 1 << 16);
  ValueRange r;
  if (lo_key != math::min_key_start) r = {math::key_value(lo_key), math::key_value(hi_key)};
  return r;
}

std::array<float, histogram_bins + 1> histogram_edges(float lo, float hi) {
  if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi))
    throw Error("histogram: invalid range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  // numpy.histogram: range of one value widened by 0.5 each side; edges = linspace(first, last,
  // bins + 1) in double (i * step + first, the last edge exactly `last`), cast to the data's float32.
  double first = lo, last = hi;
  if (first == last) {
    first -= 0.5;
    last += 0.5;
  }
  const double delta = last - first;
  const double step = delta / histogram_bins;
  std::array<float, histogram_bins + 1> edges{};
  for (int i = 0; i < histogram_bins; ++i) {
    const double y = step == 0 ? double(i) / histogram_bins * delta : double(i) * step;
    edges[i] = float(y + first);
  }
  edges[histogram_bins] = float(last);
  return edges;
}

void histogram_cpu(VolumeView<const float> view, float lo, float hi, HistogramCounts& counts) {
  checks::require_view(view, "histogram_cpu", "input");
  std::array<float, histogram_bins + 1> levels = histogram_edges(lo, hi);
  // The last bin includes its right edge: search with the next float above it as the last level.
  levels[histogram_bins] = std::nextafter(levels[histogram_bins], std::numeric_limits<float>::infinity());
  std::mutex merge;
  parallel_for(long(view.held_voxels()), [&](long begin, long end) {
    HistogramCounts local{};
    for (long i = begin; i < end; ++i) {
      const int bin = math::bin_of(view.data[i], levels.data(), histogram_bins);
      if (bin >= 0) ++local[bin];
    }
    std::lock_guard<std::mutex> lock(merge);
    for (int b = 0; b < histogram_bins; ++b) counts[b] += local[b];
  }, 1 << 16);
}

float otsu_threshold(const HistogramCounts& counts, float lo, float hi) {
  if (lo == hi) return lo;  // skimage: an image of one value is its own threshold
  const std::array<float, histogram_bins + 1> edges = histogram_edges(lo, hi);
  constexpr int n = histogram_bins;
  // skimage, with numpy's types: bin centres in float32, counts int64, products and means float64.
  std::array<float, n> centre{};
  for (int i = 0; i < n; ++i) centre[i] = (edges[i] + edges[i + 1]) / 2.0f;
  std::array<std::int64_t, n> weight1{}, weight2{};
  std::array<double, n> mean1{}, mean2{};
  std::int64_t w = 0;
  double s = 0;
  for (int i = 0; i < n; ++i) {  // cumsum from the left
    w += std::int64_t(counts[i]);
    s += double(counts[i]) * double(centre[i]);
    weight1[i] = w;
    mean1[i] = s / double(w);  // 0/0 = NaN before the first count, as numpy
  }
  w = 0;
  s = 0;
  for (int i = n - 1; i >= 0; --i) {  // cumsum from the right
    w += std::int64_t(counts[i]);
    s += double(counts[i]) * double(centre[i]);
    weight2[i] = w;
    mean2[i] = s / double(w);
  }
  // variance12 = weight1[:-1] * weight2[1:] * (mean1[:-1] - mean2[1:]) ** 2; np.argmax: the first
  // maximum. Splits with an empty class give NaN, which np.argmax would pick; they are skipped here
  // instead. A histogram of the data over its own range never has one (its first and last bins hold
  // the minimum and the maximum), so this only differs for hand-made histograms.
  // numpy multiplies the two weights in int64, which wraps past about 6e9 voxels (a 2048^3 scan
  // got a threshold above its solid phase); the product in double is the same correctly rounded
  // number wherever int64 does not wrap, and right where it does.
  int best = 0;
  double best_value = -1;
  for (int i = 0; i < n - 1; ++i) {
    const double weights = double(weight1[i]) * double(weight2[i + 1]);
    const double d = mean1[i] - mean2[i + 1];
    const double v = weights * (d * d);
    if (v > best_value) {  // false for NaN
      best = i;
      best_value = v;
    }
  }
  return centre[best];
}

void threshold_cpu(VolumeView<const float> in, VolumeView<std::uint8_t> out, float threshold, bool pore_is_dark) {
  const char* op = "threshold_cpu";
  checks::require_view(in, op, "input");
  checks::require_view(out, op, "output");
  checks::require_halo(in, out, 0, op);
  const float* src = out.z_count > 0 ? &in.at(0, 0, out.z_first) : nullptr;
  parallel_for(long(out.held_voxels()), [&](long begin, long end) {
    for (long i = begin; i < end; ++i) out.data[i] = math::pore_of(src[i], threshold, pore_is_dark);
  }, 1 << 16);
}

}  // namespace gp::pnm
