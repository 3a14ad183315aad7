#include "core/stream_ops.hpp"
#include "cuda/pnm/peaks.hpp"

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/pnm/peak_test.hpp"

namespace gp::pnm {
namespace {

constexpr int block_x = 32, block_y = 8;

// flags[k] for voxel k of slices [z_begin, ...), from slice z_begin + z_offset on; each block adds
// its peaks to *count.
__global__ void peak_flags_kernel(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                                  peak_detail::Ball ball, int z_begin, int z_offset, std::uint8_t* flags,
                                  unsigned long long* count) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  const int dz = z_offset + int(blockIdx.z);
  const bool inside = x < mask.nx && y < mask.ny;
  const bool peak = inside && peak_detail::is_peak(mask, distance, x, y, z_begin + dz, ball);
  if (inside) {
    const std::size_t k = (std::size_t(dz) * std::size_t(mask.ny) + std::size_t(y)) * std::size_t(mask.nx) + std::size_t(x);
    flags[k] = peak ? 1 : 0;
  }
  const int block_peaks = __syncthreads_count(peak);
  if (threadIdx.x == 0 && threadIdx.y == 0 && block_peaks > 0) atomicAdd(count, static_cast<unsigned long long>(block_peaks));
}

}  // namespace

DevicePeaks find_peaks_device(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance, Spacing spacing,
                              float r_max, int z_begin, int z_end, const ScratchAllocator& scratch, cudaStream_t stream) {
  peak_detail::check_peak_args(mask, distance, spacing, r_max, z_begin, z_end, "find_peaks_gpu");
  const std::size_t voxels = mask.slice_voxels() * std::size_t(z_end - z_begin);
  if (voxels == 0) return {};
  const std::string what = "find peaks " + std::to_string(mask.nx) + "x" + std::to_string(mask.ny) + "x" +
                           std::to_string(mask.nz) + " slices [" + std::to_string(z_begin) + ", " +
                           std::to_string(z_end) + ")";
  auto* flags = static_cast<std::uint8_t*>(scratch(voxels));
  auto* counts = static_cast<unsigned long long*>(scratch(2 * sizeof(unsigned long long)));  // found, selected
  stream_ops::fill(counts, 0, 2, stream, what);
  const auto ball = peak_detail::make_ball(spacing, r_max);
  const int slices = z_end - z_begin, max_grid_z = 65535;
  for (int first = 0; first < slices; first += max_grid_z) {
    const dim3 block(block_x, block_y),
        grid((mask.nx + block_x - 1) / block_x, (mask.ny + block_y - 1) / block_y, unsigned(std::min(max_grid_z, slices - first)));
    peak_flags_kernel<<<grid, block, 0, stream>>>(mask, distance, ball, z_begin, first, flags, counts);
    GP_CUDA_CHECK_LAUNCH(what);
  }
  const unsigned long long found = stream_ops::read_back(counts, stream, what);
  if (found == 0) return {};

  // Global indices: the slab's first voxel plus the position in it.
  thrust::counting_iterator<std::uint64_t> indices(std::uint64_t(z_begin) * std::uint64_t(mask.slice_voxels()));
  auto* selected = static_cast<std::uint64_t*>(scratch(std::size_t(found) * sizeof(std::uint64_t)));
  std::size_t temp_bytes = 0;
  GP_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, temp_bytes, indices, flags, selected, counts + 1,
                                           std::int64_t(voxels), stream), what);
  void* temp = scratch(temp_bytes);
  GP_CUDA_CHECK(cub::DeviceSelect::Flagged(temp, temp_bytes, indices, flags, selected, counts + 1,
                                           std::int64_t(voxels), stream), what);
  return {selected, std::size_t(found)};
}

std::vector<std::uint64_t> find_peaks_gpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                                          Spacing spacing, float r_max, int z_begin, int z_end,
                                          const ScratchAllocator& scratch, cudaStream_t stream) {
  const DevicePeaks found = find_peaks_device(mask, distance, spacing, r_max, z_begin, z_end, scratch, stream);
  std::vector<std::uint64_t> peaks(found.count);
  if (found.count > 0)
    stream_ops::read_back(peaks.data(), found.voxels, peaks.size(), stream, "download " + std::to_string(found.count) + " peaks");
  return peaks;
}

std::vector<std::uint64_t> find_peaks_gpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                                          Spacing spacing, float r_max, const ScratchAllocator& scratch,
                                          cudaStream_t stream) {
  return find_peaks_gpu(mask, distance, spacing, r_max, 0, mask.nz, scratch, stream);
}

}  // namespace gp::pnm
