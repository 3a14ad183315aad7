#pragma once
// The segment-pnm pipeline, written once (segment_pipeline.cpp): the order of its stages, which
// of them the settings ask for, and what each adds to the Segmentation. A backend does the work of
// each stage on its own data: the CPU (segment_cpu.cpp), the GPU in one piece (segment_gpu.cpp,
// the volume on the device from upload to statistics) or the GPU in Z-slabs (segment_slabs.cpp,
// whole volumes in VolumeStores). The backends give identical results.
#include <cstdint>
#include <functional>

#include "pnm/segmentation.hpp"

namespace gp::pnm {

class SegmentBackend {
 public:
  virtual ~SegmentBackend() = default;

  // Runs one stage's work: the GPU in one piece waits for its stream at the end, so a stage's time
  // is its own; the slabs run it again in thinner slabs when the GPU runs out anyway (a body must
  // start from its inputs each time).
  virtual void run(const char* stage, const std::function<void()>& body) { body(); }
  // Backends that move the volume onto a device and the labels back time these as stages.
  virtual bool moves_volumes() const { return false; }
  virtual void upload() {}
  // The slabs report the process's peak RSS at the end of each stage.
  virtual bool tracks_rss() const { return false; }

  virtual void denoise() = 0;  // the values filtered as Settings::denoise says (not "none")
  virtual float otsu_threshold() = 0;
  // The pore mask (1 = pore); returns its pore voxels. The values are not needed after this.
  virtual std::uint64_t binarize(float threshold) = 0;
  // Sets the components of `phase` that touch no face of the volume to the other phase, adding
  // the voxels changed to `changed` as they are (a stage run again counts each voxel once).
  virtual void fill_enclosed(std::uint8_t phase, std::uint64_t& changed) = 0;
  virtual void distance() = 0;
  // Smoothing of the distance map, peaks and their selection.
  virtual Markers markers() = 0;
  virtual void watershed(const Markers& markers) = 0;
  virtual RegionStats network(std::uint32_t regions) = 0;
  // The labels, the intermediates asked for and the backend's own figures into `out`.
  virtual void finish(Segmentation& out) = 0;
};

Segmentation run_segmentation(const Settings& settings, SegmentBackend& backend, std::uint64_t voxels);

}  // namespace gp::pnm
