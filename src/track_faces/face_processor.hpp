#pragma once
// The compute stage of track-faces, on the GPU or the CPU (same kernels, same models): one step
// takes a frame from each camera, uploads them once, detects faces on the frames that ask for it
// (all in one batched engine run), and then runs the face-mesh landmark model on every face ROI
// of every frame (crops by the fused warp kernel, all faces in as few engine runs as the batch
// allows). Frames stay on the GPU from upload to the last crop; only detections and landmarks
// come back. Tracking (which ROIs to follow) is the caller's, between detect() and landmarks().
// Not thread-safe: one processor per compute thread.
#include <memory>
#include <string>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "cuda/frames/frame.hpp"
#include "cuda/track_faces/face_roi.hpp"
#include "track_faces/face_detector.hpp"
#include "track_faces/face_frame.hpp"  // kFaceLandmarks

namespace gp::track {

struct FaceProcessorOptions {
  std::string detector_path, landmark_path;  // .tflite files; landmark_path empty: no landmarks
  DetectorOptions detector;
  bool fp16 = true;         // GPU arithmetic (the CPU path is fp32)
  int max_frames = 1;       // frames per step (cameras); the detector's batch on the GPU
  int landmark_batch = 32;  // faces per landmark engine run on the GPU
};

// The face-mesh model's answer for one ROI.
struct FaceLandmarks {
  Roi roi;
  float score = 0;             // face present (sigmoid of the model's flag)
  std::vector<float> xyz;      // kFaceLandmarks x (x, y, z), frame pixels
};

// The ROI MediaPipe crops around a detection: its box squared (long side x scale), rotated so the
// eyes (keypoints 0 -> 1) are level.
Roi roi_from_face(const FrameFace& face, float scale = 1.5f);

class FaceProcessor {
 public:
  // Throws UsageError for unreadable or unexpected models, GpuOutOfMemory when the engines do not fit.
  FaceProcessor(Runtime& runtime, const FaceProcessorOptions& options);
  ~FaceProcessor();

  bool gpu() const;
  bool has_landmarks() const;
  // GPU: loads kernels and captures the engines' graphs on zeros; once. CPU: nothing.
  void warm_up();

  // The step's frames (host memory, at most max_frames, any sizes): uploaded (GPU) or kept (CPU).
  // They must stay valid until the step's landmarks() returns, and (packed_pinned) until
  // wait_uploads(). packed_pinned: each frame's planes lie packed (frames::frame_at's layout) in
  // pinned memory, so they go up as they are, without the staging copy.
  void set_frames(const std::vector<frames::FrameSource>& frames, bool packed_pinned = false);
  // Returns once the step's uploads are done (the GPU no longer reads the host frames).
  void wait_uploads();
  // Faces (frame pixels) of the frames whose `detect` flag is set; others get none.
  std::vector<std::vector<FrameFace>> detect(const std::vector<bool>& detect);
  // Landmarks of rois[f] on frame f, in the same order.
  std::vector<std::vector<FaceLandmarks>> landmarks(const std::vector<std::vector<Roi>>& rois);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gp::track
