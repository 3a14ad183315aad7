#pragma once
// Peaks of the (smoothed) distance map, as PoreSpy's find_peaks: pore voxels whose value is the
// maximum of value' over a ball of radius r_max around them, where value' is the distance on pore
// voxels and the distance plus 2 voxels on solid ones (so thin pores next to the solid are no
// peaks), and neighbours past the volume's edge are mirrored (scipy's 'reflect' mode). With
// anisotropic spacing the ball is round in physical space: offsets (dx sx, dy sy, dz sz) within
// r_max voxels of the finest spacing.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "cuda/pnm/volume_view.hpp"

namespace gp::pnm {

// Linear indices of the peak voxels, ascending. GPU: whole-volume views; synchronises.
std::vector<std::uint32_t> find_peaks_gpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                                          Spacing spacing, float r_max, const ScratchAllocator& scratch,
                                          cudaStream_t stream);
std::vector<std::uint32_t> find_peaks_cpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                                          Spacing spacing, float r_max);

}  // namespace gp::pnm
