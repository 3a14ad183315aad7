#pragma once
// The stages of the out-of-core GPU path that need more than one slab at a time (segment_slabs.cpp
// runs the others inline). Each gives exactly what the in-core stage gives.
#include <cstdint>

#include "cuda/pnm/volume_view.hpp"
#include "pnm/segmentation.hpp"
#include "pnm/slab_device.hpp"

namespace gp::pnm {

// fill_enclosed (components.hpp) of the host mask: each slab's components are labelled on the
// GPU, components are joined across slab boundaries and to the volume's faces on the host
// (union-find over the slabs' labels), then the enclosed ones are flipped. Returns the voxels
// changed.
std::uint64_t fill_enclosed_slabs(SlabDevice& device, VolumeView<std::uint8_t> mask, std::uint8_t phase,
                                  Connectivity connectivity);

// The exact EDT (edt.hpp): columns along z in slabs along y (whole columns), then the planes in
// Z-slabs. `distance` receives the result.
void distance_transform_slabs(SlabDevice& device, VolumeView<const std::uint8_t> mask, VolumeView<float> distance,
                              Spacing spacing);

// The watershed (watershed.hpp) by relaxing Z-slabs until none changes; returns the slab runs.
int watershed_slabs(SlabDevice& device, VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                    VolumeView<const std::uint32_t> markers, VolumeView<std::uint32_t> labels);

}  // namespace gp::pnm
