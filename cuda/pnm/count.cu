#include "core/stream_ops.hpp"
#include "cuda/pnm/count.hpp"

#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/transform_iterator.h>

#include <string>

#include "cuda/common/cuda_check.hpp"

namespace gp::pnm {
namespace {

struct Equals {
  std::uint8_t value;
  __host__ __device__ std::uint64_t operator()(std::uint8_t v) const { return v == value ? 1u : 0u; }
};

}  // namespace

std::uint64_t count_equal_gpu(VolumeView<const std::uint8_t> mask, std::uint8_t value, const ScratchAllocator& scratch,
                              cudaStream_t stream) {
  const std::size_t n = mask.held_voxels();
  if (n == 0) return 0;
  const std::string what = "count voxels of " + std::to_string(n);
  thrust::transform_iterator<Equals, const std::uint8_t*> ones(mask.data, Equals{value});
  auto* sum = static_cast<std::uint64_t*>(scratch(sizeof(std::uint64_t)));
  std::size_t temp_bytes = 0;
  GP_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, ones, sum, n, stream), what);
  GP_CUDA_CHECK(cub::DeviceReduce::Sum(scratch(temp_bytes), temp_bytes, ones, sum, n, stream), what);
  return stream_ops::read_back(sum, stream, what);
}

}  // namespace gp::pnm
