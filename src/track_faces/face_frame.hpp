#pragma once
// What track-faces reports for one camera frame: the confirmed tracks seen in it, each with its
// box, detector keypoints and (when the landmark model ran) the 468 face-mesh landmarks, all in
// the frame's pixels. The writers (JSON lines, CSV, summary) and the preview read these.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "detection/detection_decode.hpp"  // Keypoint, kMaxKeypoints
#include "detection/tracker.hpp"           // PixelBox
#include "track_faces/face_signals.hpp"

namespace gp::track {

using namespace gp::detect;  // the shared detection module

constexpr int kFaceLandmarks = 468;

struct TrackedFace {
  int track_id = 0;                                  // stable per camera, from 1
  PixelBox box;                                      // corners, frame pixels
  float score = 0;                                   // detection score, or landmark face score between detections
  std::array<Keypoint, kMaxKeypoints> keypoints{};  // 0 right eye, 1 left eye, 2 nose tip, 3 mouth, 4 right ear, 5 left ear
  std::vector<float> landmarks;                      // kFaceLandmarks x (x, y, z) in pixels, empty without landmarks
  float landmark_score = -1;                         // face-mesh "face present" probability, -1 without landmarks
  bool detected = false;                             // true: a detection this frame; false: followed by landmarks
  std::optional<FaceSignals> signals;                // head pose, eye and mouth openness, from the landmarks
};

struct CameraFrame {
  std::string camera;     // the config's camera id
  std::int64_t frame = 0; // index in the camera's video (0-based)
  double time_s = 0;      // the frame's timestamp plus the camera's time offset
  int width = 0, height = 0;  // the frame's size
  double stream_time_s = -1;  // live cameras: the frame's own timestamp in its stream; -1 otherwise
  std::vector<TrackedFace> faces;
};

}  // namespace gp::track
