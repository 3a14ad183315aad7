// Binarize on the GPU. The value range reduces order-preserving integer keys (block reduction, then
// one atomicMin/atomicMax per block), so its result does not depend on scheduling; the histogram is
// CUB's DeviceHistogram::HistogramRange over numpy's edges, whose binary search over the levels is
// what the CPU side does (math::bin_of).
#include "core/stream_ops.hpp"
#include "cuda/pnm/binarize.hpp"

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_histogram.cuh>

#include <algorithm>
#include <cmath>
#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/pnm/binarize_math.hpp"
#include "cuda/pnm/slab_checks.hpp"

namespace gp::pnm {
namespace {

constexpr int range_threads = 256;

__global__ void __launch_bounds__(range_threads)
    value_range_kernel(const float* values, std::size_t n, std::uint32_t* keys /* [min, max] */) {
  std::uint32_t lo = math::min_key_start, hi = math::max_key_start;
  const std::size_t stride = std::size_t(gridDim.x) * range_threads;
  for (std::size_t i = std::size_t(blockIdx.x) * range_threads + threadIdx.x; i < n; i += stride) {
    const float v = values[i];
    if (!math::finite_value(v)) continue;
    const std::uint32_t k = math::ordered_key(v);
    lo = min(lo, k);
    hi = max(hi, k);
  }
  using Reduce = cub::BlockReduce<std::uint32_t, range_threads>;
  __shared__ typename Reduce::TempStorage storage;
  const std::uint32_t block_lo = Reduce(storage).Reduce(lo, [](std::uint32_t a, std::uint32_t b) { return min(a, b); });
  __syncthreads();
  const std::uint32_t block_hi = Reduce(storage).Reduce(hi, [](std::uint32_t a, std::uint32_t b) { return max(a, b); });
  if (threadIdx.x == 0) {
    atomicMin(&keys[0], block_lo);
    atomicMax(&keys[1], block_hi);
  }
}

__global__ void threshold_kernel(const float* in, std::uint8_t* out, std::size_t n, float threshold,
                                 bool pore_is_dark) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = math::pore_of(in[i], threshold, pore_is_dark);
}

}  // namespace

ValueRange value_range_gpu(VolumeView<const float> view, const ScratchAllocator& scratch, cudaStream_t stream) {
  checks::require_view(view, "value_range_gpu", "input");
  const std::size_t n = view.held_voxels();
  ValueRange r;
  if (n == 0) return r;
  auto* keys = static_cast<std::uint32_t*>(scratch(2 * sizeof(std::uint32_t)));
  const std::string size = checks::describe(view);
  stream_ops::fill(keys, 0xff, 1, stream, "value range init " + size);
  stream_ops::fill(keys + 1, 0, 1, stream, "value range init " + size);
  const std::size_t blocks = std::min<std::size_t>((n + range_threads * 16 - 1) / (range_threads * 16), 8192);
  value_range_kernel<<<unsigned(blocks), range_threads, 0, stream>>>(view.data, n, keys);
  GP_CUDA_CHECK_LAUNCH("value_range_kernel " + size);
  std::uint32_t host[2];
  stream_ops::read_back(host, keys, 2, stream, "value range " + size);
  if (host[0] != math::min_key_start) r = {math::key_value(host[0]), math::key_value(host[1])};
  return r;
}

void histogram_gpu(VolumeView<const float> view, float lo, float hi, HistogramCounts& counts,
                   const ScratchAllocator& scratch, cudaStream_t stream) {
  checks::require_view(view, "histogram_gpu", "input");
  std::array<float, histogram_bins + 1> levels = histogram_edges(lo, hi);
  // The last bin includes its right edge (numpy): the next float above it ends the search.
  levels[histogram_bins] = std::nextafter(levels[histogram_bins], std::numeric_limits<float>::infinity());
  const std::size_t n = view.held_voxels();
  if (n == 0) return;
  const std::string size = checks::describe(view);
  checks::require(n <= 0xffffffffu, "histogram_gpu", "more than 2^32 - 1 voxels in one call (32-bit bins): " + size);
  const float* samples = view.data;
  std::uint32_t* bins = nullptr;
  const float* d_levels = nullptr;
  std::size_t temp_bytes = 0;
  GP_CUDA_CHECK(cub::DeviceHistogram::HistogramRange(nullptr, temp_bytes, samples, bins, histogram_bins + 1, d_levels,
                                                     std::uint64_t(n), stream),
                "size the histogram " + size);
  const std::size_t bins_at = scratch_aligned(sizeof levels), temp_at = bins_at + scratch_aligned(histogram_bins * sizeof(std::uint32_t));
  auto* base = static_cast<char*>(scratch(temp_at + temp_bytes));
  d_levels = reinterpret_cast<const float*>(base);
  bins = reinterpret_cast<std::uint32_t*>(base + bins_at);
  // From pageable memory: the copy is staged before this call returns, so `levels` may go.
  stream_ops::copy(reinterpret_cast<float*>(base), levels.data(), levels.size(), stream, "histogram levels " + size);
  GP_CUDA_CHECK(cub::DeviceHistogram::HistogramRange(base + temp_at, temp_bytes, samples, bins, histogram_bins + 1,
                                                     d_levels, std::uint64_t(n), stream),
                "histogram " + size);
  std::array<std::uint32_t, histogram_bins> host{};
  stream_ops::read_back(host.data(), bins, host.size(), stream, "histogram " + size);
  for (int b = 0; b < histogram_bins; ++b) counts[b] += host[b];
}

void threshold_gpu(VolumeView<const float> in, VolumeView<std::uint8_t> out, float threshold, bool pore_is_dark,
                   cudaStream_t stream) {
  const char* op = "threshold_gpu";
  checks::require_view(in, op, "input");
  checks::require_view(out, op, "output");
  checks::require_halo(in, out, 0, op);
  const std::size_t n = out.held_voxels();
  if (n == 0) return;
  threshold_kernel<<<unsigned((n + 255) / 256), 256, 0, stream>>>(&in.at(0, 0, out.z_first), out.data, n, threshold,
                                                                 pore_is_dark);
  GP_CUDA_CHECK_LAUNCH("threshold_kernel " + checks::describe(out));
}

}  // namespace gp::pnm
