#pragma once
// Connected components of a uint8 mask (foreground = voxels equal to `value`), 6- or 26-connected, with one canonical result on GPU and CPU:
//   roots:  per voxel, the linear index (within the view: (z - z_first) * nx * ny + y * nx + x) of
//           the smallest voxel of its component, no_root for background;
//   labels: components numbered 1..K in the order of their first voxel in raster order (x fastest),
//           0 for background.
// A view that holds a Z-slab is labelled on its own (neighbours outside it do not exist), so a
// caller can label slabs and merge them across slab boundaries on the host. Views hold at most
// 2^32 - 1 voxels.
//
// GPU: union-find (Playne & Hawick 2018; Allegretti et al. 2020): each 32x8x8 tile is labelled in
// shared memory, tiles are joined along their faces with atomicMin linking (so every root is the
// smallest voxel of its set), paths are then compressed; labels follow from a CUB exclusive scan
// of the root flags.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/common/volume_checks.hpp"
#include "cuda/common/volume_view.hpp"

namespace gp::labelling {

constexpr std::uint32_t no_root = 0xffffffffu;

// A view the union-find kernels, and kernels that index by their roots or labels, can take: fewer
// than 2^32 - 1 voxels (no_root) and at most 65535 slices (a launch grid's z).
template <class T>
void require_indexable(VolumeView<const T> view, const char* op, const char* what) {
  volume_checks::require_view(view, op, what);
  volume_checks::require(view.held_voxels() < std::size_t(no_root), op,
                         "views of 2^32 - 1 voxels or more are not supported: " + volume_checks::describe(view));
  volume_checks::require(view.z_count <= 65535, op, "more than 65535 slices in one view: " + volume_checks::describe(view));
}

// `roots` holds the same slices as `mask`.
void component_roots_gpu(VolumeView<const std::uint8_t> mask, std::uint8_t value, Connectivity connectivity,
                         VolumeView<std::uint32_t> roots, cudaStream_t stream);
void component_roots_cpu(VolumeView<const std::uint8_t> mask, std::uint8_t value, Connectivity connectivity,
                         VolumeView<std::uint32_t> roots);

// `labels` holds the same slices as `mask`; returns K. GPU: one scratch request (4 bytes per voxel
// plus CUB's scan storage); synchronises the stream once, at the end.
std::uint32_t label_components_gpu(VolumeView<const std::uint8_t> mask, std::uint8_t value, Connectivity connectivity,
                                   VolumeView<std::uint32_t> labels, const ScratchAllocator& scratch,
                                   cudaStream_t stream);
std::uint32_t label_components_cpu(VolumeView<const std::uint8_t> mask, std::uint8_t value, Connectivity connectivity,
                                   VolumeView<std::uint32_t> labels);

}  // namespace gp::labelling
