#pragma once
// Watershed markers from the peaks of the smoothed distance map (cuda/pnm/markers.hpp says how):
// the host selection, which the CPU and out-of-core paths use; the GPU path runs
// select_markers_gpu on the device's distance map.
#include "cuda/pnm/markers.hpp"

namespace gp::pnm {

// peaks: linear indices of the peak voxels, ascending (find_peaks_*); distance: the smoothed
// distance map of the whole volume in host memory.
inline Markers select_markers(const std::vector<std::uint64_t>& peaks, VolumeView<const float> distance, Spacing spacing,
                              const MarkerParams& params) {
  return select_markers_cpu(peaks, distance, spacing, params);
}

}  // namespace gp::pnm
