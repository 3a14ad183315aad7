#pragma once
// Connected components of a uint8 mask (foreground = voxels equal to `value`), 6- or
// 26-connected, with one canonical result on GPU and CPU:
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

#include "cuda/pnm/volume_view.hpp"

namespace gp::pnm {

constexpr std::uint32_t no_root = 0xffffffffu;

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

// Sets the components of `phase` (0 or 1) that touch no face of the volume to the other phase:
// phase 1 (pore) fills closed pores, phase 0 (solid) removes floating solid islands. `mask` holds
// the whole volume. Returns the number of voxels changed. GPU: one scratch request (5 bytes per
// voxel); synchronises the stream once, at the end.
std::uint64_t fill_enclosed_gpu(VolumeView<std::uint8_t> mask, std::uint8_t phase, Connectivity connectivity,
                                const ScratchAllocator& scratch, cudaStream_t stream);
std::uint64_t fill_enclosed_cpu(VolumeView<std::uint8_t> mask, std::uint8_t phase, Connectivity connectivity);

// fill_enclosed over Z-slabs (src/pnm/slab_fill.cpp), from a slab's labels 1..count:
// flags[l] = 1 for each label l of a voxel on a face of the volume (x or y at their ends, or the
// volume's first or last slice where the view holds it); `flags` holds count + 1 bytes (device
// memory for the GPU), set here. GPU: queued on `stream`, no synchronisation.
void mark_face_labels_gpu(VolumeView<const std::uint32_t> labels, std::uint32_t count, std::uint8_t* flags,
                          cudaStream_t stream);
void mark_face_labels_cpu(VolumeView<const std::uint32_t> labels, std::uint32_t count, std::uint8_t* flags);
// Sets the mask voxels whose label l is not 0 and whose keep[l] is 0 to `value`; returns how many.
// GPU: one scratch request (8 bytes); synchronises the stream once, at the end.
std::uint64_t change_unkept_labels_gpu(VolumeView<std::uint8_t> mask, VolumeView<const std::uint32_t> labels,
                                       const std::uint8_t* keep, std::uint8_t value, const ScratchAllocator& scratch,
                                       cudaStream_t stream);
std::uint64_t change_unkept_labels_cpu(VolumeView<std::uint8_t> mask, VolumeView<const std::uint32_t> labels,
                                       const std::uint8_t* keep, std::uint8_t value);

}  // namespace gp::pnm
