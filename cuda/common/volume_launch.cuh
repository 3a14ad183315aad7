#pragma once
// Launch geometry of the volume kernels (segment-pnm's, the shared component labelling): flat
// launches over a view's voxels, and per-voxel launches in 32x8 blocks per slice with one grid
// layer per held slice (each warp reads 32 neighbouring voxels of one row).
#include <cuda_runtime_api.h>

#include <cstddef>

#include "cuda/common/volume_view.hpp"

namespace gp::launch {

inline unsigned flat_blocks(std::size_t n, int threads) { return unsigned((n + threads - 1) / threads); }

inline dim3 voxel_block() { return dim3(32, 8); }
template <class T>
dim3 voxel_grid(const VolumeView<T>& v) {
  return dim3(unsigned(v.nx + 31) / 32, unsigned(v.ny + 7) / 8, unsigned(v.z_count));
}

}  // namespace gp::launch
