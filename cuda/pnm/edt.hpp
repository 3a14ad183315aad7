#pragma once
// Exact Euclidean distance transform of the pore phase: for every pore voxel (mask 1) the
// distance to the centre of the nearest solid voxel (mask 0), in physical units with anisotropic
// spacing; 0 on solid; +inf where the volume holds no solid at all. Voxels outside the volume do
// not count as solid (scipy.ndimage.distance_transform_edt's convention).
//
// Separable (Felzenszwalb & Huttenlocher 2012, "Distance transforms of sampled functions"):
//   1. columns along z: squared 1-D distance to the nearest solid voxel of the column;
//   2. lines along y, then 3. along x: lower envelope of parabolas f(j) + ((i - j) s)^2, each line
//      cut at its solid voxels into segments that do not depend on each other (edt_line.hpp).
// Step 1 needs whole columns, steps 2-3 whole slices, so an out-of-core run does step 1 in
// Y-slabs and steps 2-3 in Z-slabs. GPU and CPU share the per-line code (edt_line.hpp) and give
// bit-identical results.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/pnm/volume_view.hpp"

namespace gp::pnm {

// Step 1. Both views hold every slice (z_first 0, z_count nz) of the same volume, which may be a
// Y-slab of the real one: columns do not depend on each other. Writes squared distances.
void edt_columns_gpu(VolumeView<const std::uint8_t> mask, VolumeView<float> squared, float spacing_z, cudaStream_t stream);
void edt_columns_cpu(VolumeView<const std::uint8_t> mask, VolumeView<float> squared, float spacing_z);

// Steps 2 and 3 on the slices `field` holds, in place: squared z-distances in, distances out (the
// square root taken when `take_sqrt`, else squared distances). The GPU works on lines staged in
// shared memory and needs neither `work` (not used; kept so callers stay unchanged) nor scratch,
// except for lines too long for shared memory (tens of thousands of voxels), whose buffers (up to
// 256 MB) come from `scratch`.
void edt_planes_gpu(VolumeView<float> field, VolumeView<float> work, Spacing spacing, bool take_sqrt,
                    const ScratchAllocator& scratch, cudaStream_t stream);
void edt_planes_cpu(VolumeView<float> field, Spacing spacing, bool take_sqrt);

// The whole transform of an in-core volume: `distance` holds all of it (`work` is not used).
void distance_transform_gpu(VolumeView<const std::uint8_t> mask, VolumeView<float> distance, VolumeView<float> work,
                            Spacing spacing, const ScratchAllocator& scratch, cudaStream_t stream);
void distance_transform_cpu(VolumeView<const std::uint8_t> mask, VolumeView<float> distance, Spacing spacing);

}  // namespace gp::pnm
