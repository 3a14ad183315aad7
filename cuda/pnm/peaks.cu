#include "cuda/pnm/peaks.hpp"

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/pnm/peak_test.hpp"

namespace gp::pnm {
namespace {

__global__ void peak_flags_kernel(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                                  peak_detail::Ball ball, std::uint8_t* flags) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z = blockIdx.z;
  if (x >= mask.nx || y >= mask.ny) return;
  flags[mask.offset(x, y, z)] =
      peak_detail::is_peak(mask.data, distance.data, mask.nx, mask.ny, mask.nz, x, y, z, ball) ? 1 : 0;
}

}  // namespace

std::vector<std::uint32_t> find_peaks_gpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                                          Spacing spacing, float r_max, const ScratchAllocator& scratch,
                                          cudaStream_t stream) {
  const std::size_t voxels = mask.held_voxels();
  if (voxels == 0) return {};
  const std::string what = "find peaks " + std::to_string(mask.nx) + "x" + std::to_string(mask.ny) + "x" +
                           std::to_string(mask.nz);
  auto* flags = static_cast<std::uint8_t*>(scratch(voxels));
  const dim3 block(32, 8), grid((mask.nx + 31) / 32, (mask.ny + 7) / 8, mask.nz);
  peak_flags_kernel<<<grid, block, 0, stream>>>(mask, distance, peak_detail::make_ball(spacing, r_max), flags);
  GP_CUDA_CHECK_LAUNCH(what);

  thrust::counting_iterator<std::uint32_t> indices(0);
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

}  // namespace gp::pnm
