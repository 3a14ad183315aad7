#pragma once
// segment-pnm's fill of enclosed components (closed pores, floating solid) over the shared
// component labelling (cuda/labelling/components.hpp), in one piece or over Z-slabs.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/pnm/volume_view.hpp"

namespace gp::pnm {

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
