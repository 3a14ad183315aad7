#pragma once
// Face regions of interest for the face-landmark model (MediaPipe face_mesh semantics, in frame
// PIXELS so that rotation is geometrically right on non-square frames, as MediaPipe's
// projection-matrix path is):
//   - roi_from_detection: DetectionsToRectsCalculator (rotation from keypoint 0, right eye, to
//     keypoint 1, left eye, target angle 0) then RectTransformationCalculator (square_long, x1.5);
//   - roi_from_landmarks: the same from the bounding box of the 468 landmarks, rotation from
//     landmark 33 to 263 (face_landmark_landmarks_to_roi);
// The rotated-square geometry itself is the shared cuda/detection/roi.hpp.
#include <cmath>
#include <stdexcept>
#include <string>

#include "cuda/detection/roi.hpp"
#include "cuda/detection/detection_types.hpp"

namespace gp::track {

// track-faces builds on the shared detection module (anchors, decoding, ROIs, warp, tracker).
using namespace gp::detect;

// A detection normalized to the FRAME (the caller undoes any letterbox first).
inline Roi roi_from_detection(const Detection& d, int frame_w, int frame_h, float scale = 1.5f) {
  if (frame_w <= 0 || frame_h <= 0) throw std::invalid_argument("roi_from_detection: empty frame");
  const float w = float(frame_w), h = float(frame_h);
  const Keypoint& right_eye = d.keypoints[0];
  const Keypoint& left_eye = d.keypoints[1];
  const float rotation = rotation_from_points(right_eye.x * w, right_eye.y * h, left_eye.x * w, left_eye.y * h);
  return square_roi((d.xmin + 0.5f * d.width) * w, (d.ymin + 0.5f * d.height) * h, d.width * w, d.height * h,
                    rotation, scale);
}

constexpr int kRoiStartLandmark = 33;   // right eye's outer corner
constexpr int kRoiEndLandmark = 263;    // left eye's outer corner

// xy: `count` (x, y) pairs in frame pixels (face mesh: 468). Bounding box of all of them, rotation
// from landmark 33 to 263, then square_long x scale.
inline Roi roi_from_landmarks(const float* xy, int count, float scale = 1.5f) {
  if (!xy || count <= kRoiEndLandmark)
    throw std::invalid_argument("roi_from_landmarks: needs at least " + std::to_string(kRoiEndLandmark + 1) +
                                " landmarks, got " + std::to_string(count));
  float x_min = xy[0], x_max = xy[0], y_min = xy[1], y_max = xy[1];
  for (int i = 1; i < count; ++i) {
    x_min = std::fmin(x_min, xy[2 * i]);
    x_max = std::fmax(x_max, xy[2 * i]);
    y_min = std::fmin(y_min, xy[2 * i + 1]);
    y_max = std::fmax(y_max, xy[2 * i + 1]);
  }
  const float rotation = rotation_from_points(xy[2 * kRoiStartLandmark], xy[2 * kRoiStartLandmark + 1],
                                              xy[2 * kRoiEndLandmark], xy[2 * kRoiEndLandmark + 1]);
  return square_roi(0.5f * (x_min + x_max), 0.5f * (y_min + y_max), x_max - x_min, y_max - y_min, rotation, scale);
}

}  // namespace gp::track
