#pragma once
// Watershed markers from the peaks of the smoothed distance map, as PoreSpy's snow2 selects them
// (porespy/filters/_snows.py): trim_saddle_points, then trim_nearby_peaks, then label. The GPU
// version works on the device's distance map and peak list; the CPU version is its reference and
// the CPU path's selection. Both give the same voxels, labels and counts.
//
//   1. Peak clusters: 6-connected components of the peak voxels (scipy.ndimage.label's default).
//   2. trim_saddle_points, per cluster (independently of the others): grow the plateau at the
//      cluster's height R (its highest value) one 26-neighbourhood at a time inside the cluster's
//      bounding box padded by max(10, int(R)) voxels; the newly reached voxels at least R high (the
//      rim) falling into two or more 26-connected parts mean a saddle and the cluster goes; no rim
//      means a true peak; a plateau that stops growing (a ridge), or max_iterations steps, keeps it.
//   3. trim_nearby_peaks on the 26-connected clusters of what is left: each cluster's centre (the
//      mean of its voxel coordinates, truncated) and the nearest other centre (markers_math.hpp);
//      when they are nearer than f times the distance map at the centre, the one of the two with
//      the smaller value there goes (the neighbour on a tie). Every cluster decides from all the
//      clusters, removed ones included, so the order does not matter.
//   4. Markers: the 6-connected components of the voxels left, numbered 1.. in the order of their
//      first voxel (raster order, x fastest).
//
// Deliberate differences from PoreSpy: distances and the nearest-peak search are in physical
// units (identical for isotropic voxels); trim_nearby_peaks drops a peak cluster's own voxels,
// where PoreSpy clears its whole bounding box (which can clip other clusters' peaks); equally near
// neighbours are told apart by cluster number.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda/pnm/marker_params.hpp"
#include "cuda/pnm/volume_view.hpp"

namespace gp::pnm {

struct Markers {
  std::vector<std::uint64_t> voxels;  // linear indices, ascending
  std::vector<std::uint32_t> labels;  // 1..count, per voxel; numbered in order of first voxel
  std::uint32_t count = 0;
  std::size_t peaks = 0, saddles_removed = 0, nearby_removed = 0;  // for the report: peak clusters, removed ones
};

// peaks: linear indices of the peak voxels, ascending, fewer than 2^32 (find_peaks_*); distance:
// the smoothed distance map of the whole volume in host memory.
Markers select_markers_cpu(const std::vector<std::uint64_t>& peaks, VolumeView<const float> distance, Spacing spacing,
                           const MarkerParams& params);

// The GPU selection's result: the counts, and the marker voxels and labels in device scratch.
struct DeviceMarkers {
  Markers summary;                         // counts only (voxels and labels empty)
  const std::uint64_t* voxels = nullptr;   // summary.count > 0: voxel_count linear indices, ascending
  const std::uint32_t* labels = nullptr;   // per voxel
  std::size_t voxel_count = 0;
};

// peaks: device array of peak_count linear indices, ascending (find_peaks_device); distance: the
// whole volume on the device. Every array of the result lives in `scratch`. Synchronises (it reads
// back counts to size its work; never the distance map). chunk_neighbours: how many plateau
// neighbours a round of the saddle test lists at once (0: the default, 2^24; tests pass small ones).
DeviceMarkers select_markers_gpu(const std::uint64_t* peaks, std::size_t peak_count, VolumeView<const float> distance,
                                 Spacing spacing, const MarkerParams& params, const ScratchAllocator& scratch,
                                 cudaStream_t stream, std::size_t chunk_neighbours = 0);

// The marker voxels and labels of `markers` copied into its summary's vectors (tests, intermediates).
Markers download_markers(const DeviceMarkers& markers, cudaStream_t stream);

}  // namespace gp::pnm
