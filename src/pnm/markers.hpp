#pragma once
// Watershed markers from the peaks of the smoothed distance map, as PoreSpy's snow2 selects them
// (porespy/filters/_snows.py): trim_saddle_points, then trim_nearby_peaks, then label. Host code
// shared by the GPU and CPU paths, so both get the same markers from the same peaks.
//
// Deliberate differences from PoreSpy: distances and the nearest-peak search are in physical
// units (identical for isotropic voxels); trim_nearby_peaks drops a peak cluster's own voxels,
// where PoreSpy clears its whole bounding box (which can clip other clusters' peaks).
#include <cstdint>
#include <vector>

#include "cuda/pnm/volume_view.hpp"

namespace gp::pnm {

struct MarkerParams {
  int saddle_max_iterations = 20;  // trim_saddle_points' maxiter
  float nearby_factor = 1.0f;      // trim_nearby_peaks' f: peaks nearer than f * distance-to-solid
};

struct Markers {
  std::vector<std::uint32_t> voxels;  // linear indices, ascending
  std::vector<std::uint32_t> labels;  // 1..count, per voxel; numbered in order of first voxel
  std::uint32_t count = 0;
  std::size_t peaks = 0, saddles_removed = 0, nearby_removed = 0;  // for the report
};

// peaks: linear indices of the peak voxels, ascending (find_peaks_*); distance: the smoothed
// distance map of the whole volume in host memory.
Markers select_markers(const std::vector<std::uint32_t>& peaks, VolumeView<const float> distance, Spacing spacing,
                       const MarkerParams& params);

}  // namespace gp::pnm
