#pragma once
// Number of voxels of a mask equal to a value (porosity, filled voxels). GPU synchronises.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/pnm/volume_view.hpp"

namespace gp::pnm {

std::uint64_t count_equal_gpu(VolumeView<const std::uint8_t> mask, std::uint8_t value, const ScratchAllocator& scratch,
                              cudaStream_t stream);
std::uint64_t count_equal_cpu(VolumeView<const std::uint8_t> mask, std::uint8_t value);

}  // namespace gp::pnm
