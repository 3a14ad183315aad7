#include "cuda/pnm/peaks.hpp"

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/pnm/peak_test.hpp"

namespace gp::pnm {
namespace {

// flags[k] for voxel k of slices [z_begin, ...).
__global__ void peak_flags_kernel(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                                  peak_detail::Ball ball, int z_begin, std::uint8_t* flags) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = z_begin + int(blockIdx.z);
  if (x >= mask.nx || y >= mask.ny) return;
  const std::size_t k = (std::size_t(blockIdx.z) * std::size_t(mask.ny) + std::size_t(y)) * std::size_t(mask.nx) + x;
  flags[k] = peak_detail::is_peak(mask, distance, x, y, z, ball) ? 1 : 0;
}

}  // namespace

std::vector<std::uint32_t> find_peaks_gpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                                          Spacing spacing, float r_max, int z_begin, int z_end,
                                          const ScratchAllocator& scratch, cudaStream_t stream) {
  peak_detail::check_peak_args(mask, distance, spacing, r_max, z_begin, z_end, "find_peaks_gpu");
  const std::size_t voxels = mask.slice_voxels() * std::size_t(z_end - z_begin);
  if (voxels == 0) return {};
  const std::string what = "find peaks " + std::to_string(mask.nx) + "x" + std::to_string(mask.ny) + "x" +
                           std::to_string(mask.nz) + " slices [" + std::to_string(z_begin) + ", " +
                           std::to_string(z_end) + ")";
  auto* flags = static_cast<std::uint8_t*>(scratch(voxels));
  const dim3 block(32, 8), grid((mask.nx + 31) / 32, (mask.ny + 7) / 8, unsigned(z_end - z_begin));
  peak_flags_kernel<<<grid, block, 0, stream>>>(mask, distance, peak_detail::make_ball(spacing, r_max), z_begin, flags);
  GP_CUDA_CHECK_LAUNCH(what);

  // Global indices: the slab's first voxel plus the position in it (the volume has < 2^32 voxels).
  thrust::counting_iterator<std::uint32_t> indices(std::uint32_t(std::size_t(z_begin) * mask.slice_voxels()));
  auto* selected = static_cast<std::uint32_t*>(scratch(voxels * sizeof(std::uint32_t)));
  auto* count = static_cast<int*>(scratch(sizeof(int)));
  std::size_t temp_bytes = 0;
  GP_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, temp_bytes, indices, flags, selected, count, int(voxels), stream),
                what);
  void* temp = scratch(temp_bytes);
  GP_CUDA_CHECK(cub::DeviceSelect::Flagged(temp, temp_bytes, indices, flags, selected, count, int(voxels), stream),
                what);
  int host_count = 0;
  GP_CUDA_CHECK(cudaMemcpyAsync(&host_count, count, sizeof(int), cudaMemcpyDeviceToHost, stream), what);
  GP_CUDA_CHECK(cudaStreamSynchronize(stream), what);
  std::vector<std::uint32_t> peaks(static_cast<std::size_t>(host_count));
  if (host_count > 0) {
    GP_CUDA_CHECK(cudaMemcpyAsync(peaks.data(), selected, peaks.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                                  stream), what);
    GP_CUDA_CHECK(cudaStreamSynchronize(stream), what);
  }
  return peaks;
}

std::vector<std::uint32_t> find_peaks_gpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                                          Spacing spacing, float r_max, const ScratchAllocator& scratch,
                                          cudaStream_t stream) {
  return find_peaks_gpu(mask, distance, spacing, r_max, 0, mask.nz, scratch, stream);
}

}  // namespace gp::pnm
