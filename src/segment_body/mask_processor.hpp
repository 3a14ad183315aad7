#pragma once
// The compute stage of segment-body, on the GPU or the CPU (same kernels, same outputs): a batch
// of decoded frames -> model tensor (fused preprocess) -> engine -> per-frame postprocess (with a
// video's temporal state) -> composites -> 8-bit results on the host. With a BlazePose variant the
// pose stage (pose_stage.hpp) takes the place of preprocess and engine: its people's masks, pasted
// into a canvas the size of the frame's model mask, go through the same postprocess.
//
// GPU: frames are copied into pinned staging and uploaded, everything runs on one stream, results
// come back through pinned memory; one synchronisation per batch. CPU: CpuEngine (batch 1, its
// operators multithreaded) and the *_cpu references on the frames in place.
// Not thread-safe: one processor per compute thread.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "cuda/frames/frame.hpp"
#include "segment_body/pose_model.hpp"
#include "segment_body/segment_settings.hpp"

namespace gp::segbody {

// What a frame should come back with besides its mask.
struct FrameWants {
  bool rgba = false;            // frame + mask as alpha, packed RGBA
  bool background_rgb = false;  // background replaced, packed RGB (images)
  bool background_yuv = false;  // background replaced, YUV 4:2:0 planes Y|U|V packed (videos)
};

struct FrameResult {
  int width = 0, height = 0;
  std::vector<std::uint8_t> mask;        // width x height
  std::vector<std::uint8_t> rgba;        // width x height x 4
  std::vector<std::uint8_t> background;  // RGB width x height x 3, or Y + U + V planes
  std::vector<PersonPose> people;        // BlazePose variants: the frame's people
};

// A video's temporal state (model size), made by the processor that runs its frames.
class TemporalStream {
 public:
  virtual ~TemporalStream() = default;
};

class MaskProcessor {
 public:
  // GPU when runtime.gpu(). `batch` frames per engine run on the GPU. Throws GpuOutOfMemory when
  // the engine does not fit (the caller retries with a smaller batch), UsageError for an
  // unreadable model or background image.
  MaskProcessor(Runtime& runtime, const Settings& settings, int batch);
  ~MaskProcessor();

  bool gpu() const;
  int batch() const;
  int model_width() const;
  int model_height() const;

  // Allocates every buffer for `batch` frames of this size now, so that out-of-memory shows before
  // a video starts (GpuOutOfMemory) rather than in its middle.
  void reserve(int width, int height, const FrameWants& wants);
  // GPU: runs the engine twice on zeros (kernel loading, CUDA graph capture) so the first batch
  // does not pay for it; once per processor. CPU: nothing.
  void warm_up();

  std::unique_ptr<TemporalStream> new_stream();

  // frames: host memory, at most batch() of them, any sizes. temporal: the video's state (its
  // frames in order), null for independent images; then times_s gives each frame's time in the
  // video (seconds, increasing: the landmark smoothing's clock). results: resized to frames.size().
  void run(const std::vector<FrameSource>& frames, TemporalStream* temporal, const FrameWants& wants,
           std::vector<FrameResult>& results, const std::vector<double>& times_s = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gp::segbody
