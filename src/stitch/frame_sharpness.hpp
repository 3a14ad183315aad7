#pragma once
// The sharpness score of video frames (cuda/stitch/sharpness.hpp: variance of the Laplacian of
// the luma) for input.video's select sharpest: on the GPU when the job runs on one, every
// decoded frame of the interval; else the CPU reference. One frame is in flight at a time: the
// caller submits a frame's luma, decodes the next frame while the GPU scores it, then collects
// the score, so decoding and scoring overlap.
#include <optional>

#include "core/gpu_runtime.hpp"
#include "core/views.hpp"
#include "cuda/stitch/sharpness.hpp"

namespace gp::stitch {

class FrameSharpness {
 public:
  // `runtime`: the GPU to score on; null, or a runtime on the CPU path: the CPU reference.
  explicit FrameSharpness(Runtime* runtime);
  // Waits for a score still in flight (a video that failed between submit and collect): its copy
  // must not land in a pinned buffer the pool has lent again.
  ~FrameSharpness();
  FrameSharpness(const FrameSharpness&) = delete;
  FrameSharpness& operator=(const FrameSharpness&) = delete;

  bool on_gpu() const { return gpu_ != nullptr; }

  // Starts scoring `luma` (host, u8, 1 channel, any pitch). Its pixels are read before this
  // returns (the GPU path copies them to the device), so the caller may reuse the frame at once.
  // A score submitted before must have been collected.
  void submit(const ImageView& luma);
  // The score of the frame submitted last (waits for the GPU).
  double collect();

 private:
  Runtime* gpu_ = nullptr;
  Stream stream_;
  DeviceBuffer luma_, sums_;
  PinnedBuffer host_sums_;
  std::optional<LaplacianSums> cpu_sums_;
  int width_ = 0, height_ = 0;
  bool pending_ = false;
};

}  // namespace gp::stitch
