#pragma once
// Binarisation of segment-pnm: value range and 256-bin histogram of the volume (summable over
// Z-slabs), Otsu's threshold as scikit-image computes it, and the threshold itself. Range and
// counts are exact, so GPU and CPU agree bit for bit.
//
// Otsu on a volume in slabs: range = include() of value_range_*() over the slabs; counts = sum of
// histogram_*() over the slabs with that range; t = otsu_threshold(counts, range.lo, range.hi).
// This is skimage.filters.threshold_otsu(volume) (nbins 256) for float32 volumes.
#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <limits>

#include "cuda/pnm/volume_view.hpp"

namespace gp::pnm {

// Smallest and largest finite value (NaN and +-inf are skipped); empty() before any was seen.
struct ValueRange {
  float lo = std::numeric_limits<float>::infinity();
  float hi = -std::numeric_limits<float>::infinity();
  bool empty() const { return !(lo <= hi); }
  void include(const ValueRange& other);
};

ValueRange value_range_cpu(VolumeView<const float> view);
// Synchronises `stream`; one small scratch request.
ValueRange value_range_gpu(VolumeView<const float> view, const ScratchAllocator& scratch, cudaStream_t stream);

constexpr int histogram_bins = 256;
using HistogramCounts = std::array<std::uint64_t, histogram_bins>;

// numpy.histogram(values, bins=256, range=(lo, hi)) edges for float32 data: linspace in double,
// rounded to float (lo - 0.5 .. hi + 0.5 when lo == hi). Bin i holds edges[i] <= v < edges[i + 1],
// the last bin also v == hi.
std::array<float, histogram_bins + 1> histogram_edges(float lo, float hi);

// Adds the view's finite values in [lo, hi] to `counts` (values outside are not counted).
void histogram_cpu(VolumeView<const float> view, float lo, float hi, HistogramCounts& counts);
// Synchronises `stream`; scratch for CUB's histogram.
void histogram_gpu(VolumeView<const float> view, float lo, float hi, HistogramCounts& counts,
                   const ScratchAllocator& scratch, cudaStream_t stream);

// skimage.filters.threshold_otsu from the histogram of values in [lo, hi]: the centre of the bin
// that maximises the between-class variance (first one on ties); lo when lo == hi (one value).
// Splits that leave a class empty are skipped (cannot happen when lo and hi are the data's range).
float otsu_threshold(const HistogramCounts& counts, float lo, float hi);

// Mask of the slices `out` holds, from `in` (holding at least those): 1 = pore, 0 = solid.
// pore_is_dark (air in CT): pore = value <= threshold; else pore = value > threshold. NaN: solid.
void threshold_gpu(VolumeView<const float> in, VolumeView<std::uint8_t> out, float threshold, bool pore_is_dark,
                   cudaStream_t stream);
void threshold_cpu(VolumeView<const float> in, VolumeView<std::uint8_t> out, float threshold, bool pore_is_dark);

}  // namespace gp::pnm
