#pragma once
// Face regions of interest for the face-landmark model (MediaPipe face_mesh semantics, in frame
// PIXELS so that rotation is geometrically right on non-square frames, as MediaPipe's
// projection-matrix path is):
//   - roi_from_detection: DetectionsToRectsCalculator (rotation from keypoint 0, right eye, to
//     keypoint 1, left eye, target angle 0) then RectTransformationCalculator (square_long, x1.5);
//   - roi_from_landmarks: the same from the bounding box of the 468 landmarks, rotation from
//     landmark 33 to 263 (face_landmark_landmarks_to_roi);
//   - the affine map tensor -> frame of the S x S crop and its inverse; landmark projection.
//
// Rotation convention (MediaPipe's NormalizedRect.rotation): radians, the rotation that takes the
// crop's axes onto the frame's, measured in the frame's (x right, y DOWN) coordinates. On screen a
// positive value is CLOCKWISE: a face rolled 30 degrees counter-clockwise on screen (the eye line
// rising to the right) has rotation -pi/6, and its crop comes out upright.
//
// The GP_HD functions run in the warp kernel and its CPU reference with the same float operations
// (sin/cos by a fixed polynomial, not the libraries', which differ by an ulp between host and
// device), so both sides map every tensor pixel to the same frame point.
#include <cmath>
#include <stdexcept>
#include <string>

#include "cuda/common/host_device.hpp"  // GP_HD
#include "cuda/track_faces/detection_types.hpp"

namespace gp::track {

struct FaceRoi {
  float cx = 0, cy = 0;  // centre, frame pixels (pixel i spans [i, i + 1))
  float size = 0;        // side of the square, pixels
  float rotation = 0;    // radians, see above
};

struct RoiPoint {
  float x, y;
};

struct RoiSinCos {
  float s, c;
};

// sin and cos of `angle` (|angle| up to ~1e5): Cody-Waite reduction to [-pi/4, pi/4] and Taylor
// polynomials (error < 1e-7 there). Same floats on host and device.
GP_HD RoiSinCos roi_sincos(float angle) {
  const float k = rintf(angle * 0.636619772f);  // nearest multiple of pi/2
  // pi/2 in three parts; the first two have few enough bits that k * part is exact.
  const float r = ((angle - k * 1.5703125f) - k * 4.837512969970703125e-4f) - k * 7.54978995489188216e-8f;
  const float r2 = r * r;
  const float s = r + r * r2 * (-1.0f / 6.0f + r2 * (1.0f / 120.0f + r2 * (-1.0f / 5040.0f + r2 * (1.0f / 362880.0f))));
  const float c =
      1.0f + r2 * (-0.5f + r2 * (1.0f / 24.0f + r2 * (-1.0f / 720.0f + r2 * (1.0f / 40320.0f + r2 * (-1.0f / 3628800.0f)))));
  const int q = int(k - 4.0f * floorf(k * 0.25f));  // quadrant 0..3
  if (q == 0) return RoiSinCos{s, c};
  if (q == 1) return RoiSinCos{c, -s};
  if (q == 2) return RoiSinCos{-s, -c};
  return RoiSinCos{-c, s};
}

// Tensor point (tx, ty) of an S x S crop -> frame pixels. Tensor pixel u spans [u, u + 1), so its
// centre is u + 0.5 (landmark outputs use the same 0..S coordinates):
//   p = centre + R(rotation) * (t / S - 0.5) * size,  R = [cos -sin; sin cos].
GP_HD RoiPoint tensor_to_frame(const FaceRoi& roi, int S, float tx, float ty) {
  const RoiSinCos sc = roi_sincos(roi.rotation);
  const float lx = (tx / float(S) - 0.5f) * roi.size;
  const float ly = (ty / float(S) - 0.5f) * roi.size;
  return RoiPoint{roi.cx + (sc.c * lx - sc.s * ly), roi.cy + (sc.s * lx + sc.c * ly)};
}

// The inverse: frame pixels -> tensor coordinates.
GP_HD RoiPoint frame_to_tensor(const FaceRoi& roi, int S, float px, float py) {
  const RoiSinCos sc = roi_sincos(roi.rotation);
  const float dx = px - roi.cx, dy = py - roi.cy;
  const float lx = sc.c * dx + sc.s * dy, ly = -sc.s * dx + sc.c * dy;
  return RoiPoint{(lx / roi.size + 0.5f) * float(S), (ly / roi.size + 0.5f) * float(S)};
}

// MediaPipe's NormalizeRadians: into [-pi, pi).
inline float normalize_radians(float angle) {
  const float two_pi = 6.28318530718f;
  return angle - two_pi * std::floor((angle + 3.14159265359f) / two_pi);
}

// Rotation that turns the vector start -> end (frame pixels) to the target angle 0.
inline float rotation_from_points(float x0, float y0, float x1, float y1) {
  return normalize_radians(0.0f - std::atan2(-(y1 - y0), x1 - x0));
}

// Square ROI around a box (pixels): side = max(width, height) * scale, same centre.
inline FaceRoi square_roi(float cx, float cy, float width, float height, float rotation, float scale) {
  return FaceRoi{cx, cy, std::fmax(width, height) * scale, rotation};
}

// A detection normalized to the FRAME (the caller undoes any letterbox first).
inline FaceRoi roi_from_detection(const FaceDetection& d, int frame_w, int frame_h, float scale = 1.5f) {
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
inline FaceRoi roi_from_landmarks(const float* xy, int count, float scale = 1.5f) {
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

// Model landmarks (x, y in 0..S tensor coordinates, z in the same units) -> frame pixels; z is
// scaled like x (size / S), as MediaPipe scales z by the rect's width. xyz in and out: count
// triples (may be the same array).
inline void project_landmarks(const FaceRoi& roi, int S, const float* tensor_xyz, int count, float* frame_xyz) {
  const float z_scale = roi.size / float(S);
  for (int i = 0; i < count; ++i) {
    const RoiPoint p = tensor_to_frame(roi, S, tensor_xyz[3 * i], tensor_xyz[3 * i + 1]);
    const float z = tensor_xyz[3 * i + 2] * z_scale;
    frame_xyz[3 * i] = p.x;
    frame_xyz[3 * i + 1] = p.y;
    frame_xyz[3 * i + 2] = z;
  }
}

}  // namespace gp::track
