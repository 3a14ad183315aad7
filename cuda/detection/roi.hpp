#pragma once
// Rotated square regions of interest for landmark models (MediaPipe's NormalizedRect semantics,
// in frame PIXELS so that rotation is geometrically right on non-square frames, as MediaPipe's
// projection-matrix path is): the affine map tensor -> frame of an S x S crop and its inverse,
// the rotation rule of DetectionsToRectsCalculator / AlignmentPointsRectsCalculator, the square_long
// scaling of RectTransformationCalculator and the landmark projection. Faces (track_faces/face_roi.hpp)
// and bodies (segment_body) build their ROIs from these.
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

#include "cuda/common/host_device.hpp"  // GP_HD

namespace gp::detect {

struct Roi {
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
GP_HD RoiPoint tensor_to_frame(const Roi& roi, int S, float tx, float ty) {
  const RoiSinCos sc = roi_sincos(roi.rotation);
  const float lx = (tx / float(S) - 0.5f) * roi.size;
  const float ly = (ty / float(S) - 0.5f) * roi.size;
  return RoiPoint{roi.cx + (sc.c * lx - sc.s * ly), roi.cy + (sc.s * lx + sc.c * ly)};
}

// The inverse: frame pixels -> tensor coordinates.
GP_HD RoiPoint frame_to_tensor(const Roi& roi, int S, float px, float py) {
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

// Rotation that turns the vector start -> end (frame pixels) to `target_angle` (radians; faces use
// 0, the eye line horizontal; BlazePose 90 degrees, the hips-to-shoulders line upright).
inline float rotation_from_points(float x0, float y0, float x1, float y1, float target_angle = 0.0f) {
  return normalize_radians(target_angle - std::atan2(-(y1 - y0), x1 - x0));
}

// Square ROI around a box (pixels): side = max(width, height) * scale, same centre.
inline Roi square_roi(float cx, float cy, float width, float height, float rotation, float scale) {
  return Roi{cx, cy, std::fmax(width, height) * scale, rotation};
}

// MediaPipe's AlignmentPointsRectsCalculator then RectTransformationCalculator (square_long): a
// square centred on the start point (frame pixels), side 2 x |end - start| x scale, rotated so that
// start -> end points at `target_angle` (BlazePose: hips -> full-body point at 90 degrees, x1.25).
inline Roi alignment_roi(float x0, float y0, float x1, float y1, float target_angle, float scale) {
  const float side = 2.0f * std::sqrt((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0));
  return Roi{x0, y0, side * scale, rotation_from_points(x0, y0, x1, y1, target_angle)};
}

// Model landmarks (x, y in 0..S tensor coordinates, z in the same units) -> frame pixels; z is
// scaled like x (size / S), as MediaPipe scales z by the rect's width. xyz in and out: count
// triples (may be the same array).
inline void project_landmarks(const Roi& roi, int S, const float* tensor_xyz, int count, float* frame_xyz) {
  const float z_scale = roi.size / float(S);
  for (int i = 0; i < count; ++i) {
    const RoiPoint p = tensor_to_frame(roi, S, tensor_xyz[3 * i], tensor_xyz[3 * i + 1]);
    const float z = tensor_xyz[3 * i + 2] * z_scale;
    frame_xyz[3 * i] = p.x;
    frame_xyz[3 * i + 1] = p.y;
    frame_xyz[3 * i + 2] = z;
  }
}

}  // namespace gp::detect
