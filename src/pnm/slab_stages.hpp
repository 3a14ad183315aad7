#pragma once
// The stages of the out-of-core GPU path that need more than one slab at a time (segment_slabs.cpp
// runs the others inline). Each gives exactly what the in-core stage gives.
#include <cstdint>

#include "cuda/pnm/denoise.hpp"
#include "cuda/pnm/volume_view.hpp"
#include "pnm/segmentation.hpp"
#include "pnm/slab_device.hpp"

namespace gp::pnm {

// What the watershed floods and the markers are selected from: the distance map smoothed by a
// Gaussian, or the map itself (sigma 0). No smoothed volume is kept: each slab's part is smoothed
// again from the distance store where it is needed (a few ms of GPU work a slab, where a stored
// copy would cost 4 bytes a voxel of host memory or scratch disk).
class FloodedMap {
 public:
  FloodedMap(const VolumeStore<float>& distance, GaussianSigma sigma, bool smooth);
  // Slices out.z_first .. of the map into `out`, on the lane's device (queued on its stream).
  void fill(SlabLane& lane, VolumeView<float> out) const;
  // Slices `held` of the map in a new slab of the lane.
  VolumeView<float> upload(SlabLane& lane, SlabRange held, const char* what) const;
  // Device memory beside the map's own slab: the distance slab (with halo() more slices) and
  // the Gaussian's scratch, per voxel.
  double working_bytes_per_voxel() const { return smooth_ ? 8 : 0; }
  int halo() const { return halo_; }
  const io::Dims3& dims() const { return distance_.dims(); }

 private:
  const VolumeStore<float>& distance_;
  GaussianSigma sigma_;
  bool smooth_;
  int halo_;
};

// fill_enclosed (cuda/pnm/fill_enclosed.hpp) of the mask: each slab's components are labelled on the GPU and
// joined across slab boundaries and to the volume's faces on the host (union-find over the slabs'
// labels, from their boundary slices and face flags only); a second pass labels each slab again
// and changes the enclosed components on the GPU. Adds the voxels changed to `changed` as their
// slabs are written back, so a stage run again after running out of GPU memory (from the mask as
// the first run left it: filling again fills what is left) counts each voxel once.
void fill_enclosed_slabs(SlabDevice& device, VolumeStore<std::uint8_t>& mask, std::uint8_t phase,
                         Connectivity connectivity, std::uint64_t& changed);

// The exact EDT (edt.hpp): on the first GPU in one piece when the mask and the map fit its budget
// (the volume's kernels in Z-slabs of it), else columns along z in slabs along y (whole columns,
// the GPUs taking a share of the rows each), then the planes in Z-slabs. `distance` receives the
// result.
void distance_transform_slabs(SlabDevice& device, const VolumeStore<std::uint8_t>& mask, VolumeStore<float>& distance,
                              Spacing spacing);

// The watershed (watershed.hpp) by relaxing Z-slabs until none changes; returns the slab runs.
// Only the first and last slice of each slab's flooding state are kept between runs: a slab
// runs again from its initial state with its neighbours' latest boundary slices as its halo,
// which reaches the same fixed point as going on from its previous state (relaxation only
// lowers keys towards the fixed point its halo allows). A slab's last run saw its neighbours'
// final boundaries, so its labels then are the final ones: a run writes its labels when no
// neighbour waits to run, and the slabs whose last run did not are run once more at the end.
int watershed_slabs(SlabDevice& device, const VolumeStore<std::uint8_t>& mask, const FloodedMap& flooded,
                    const Markers& markers, VolumeStore<std::uint32_t>& labels);

}  // namespace gp::pnm
