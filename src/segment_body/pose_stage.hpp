#pragma once
// segment-body's BlazePose stage (model.variant pose_lite | pose_full | pose_heavy), for a batch
// of frames already where the backend works (device memory on the GPU, host memory on the CPU):
//   detect people (pose_detection.tflite, all frames in one engine run) -> decode, weighted NMS,
//   letterbox removal (host: a few KB a frame) -> one ROI per person (up to max_people) -> warp
//   every ROI of every frame into the landmark model's batch (cuda/detection/roi_warp) -> landmark
//   runs -> poses decoded on the host (pose_model.hpp), people whose pose flag is under
//   min_presence dropped -> each frame's people's masks pasted into its canvas (max).
// The canvas then goes through segment-body's postprocess like a selfie model's mask.
// Not thread-safe: one per MaskProcessor.
#include <memory>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "core/views.hpp"
#include "cuda/frames/frame.hpp"
#include "segment_body/pose_model.hpp"
#include "segment_body/segment_settings.hpp"

namespace gp::segbody {

// A person followed from the previous frame of a video (streaming mode): the ROI of their
// auxiliary landmarks (pose_roi_from_landmarks) and their detection score.
struct FollowedPerson {
  detect::Roi roi;
  float score = 0;
};

class PoseStage {
 public:
  // GPU when `stream` is not null (the processor's stream; everything is enqueued on it).
  // `frames` frames at most per run. UsageError for a model that is not the expected one.
  PoseStage(Runtime& runtime, const Stream* stream, const Settings& settings, int frames);
  ~PoseStage();

  void warm_up();  // GPU: both engines' first runs (kernel loading, graph capture) on zeros

  // canvases[i]: f32 1-channel views (device or host as the frames) the size of the postprocess's
  // model mask. people[i]: frame i's people, in decreasing detection score. Synchronises the
  // stream once (for the detections) and again (for the landmarks) on the GPU.
  // followed (one frame only): MediaPipe's video mode, for every person: the people of the
  // previous frame are looked for in the ROIs of their landmarks, and the detector adds only people
  // whose ROI is not mostly one of those.
  void run(const std::vector<frames::FrameSource>& frames, const std::vector<ImageView>& canvases,
           std::vector<std::vector<PersonPose>>& people, const std::vector<FollowedPerson>* followed = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gp::segbody
