#include "track_faces/face_signals.hpp"

#include <cmath>

#include "core/error.hpp"

namespace gp::track {
namespace {

struct V3 {
  double x = 0, y = 0, z = 0;
};
V3 operator-(V3 a, V3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
V3 operator+(V3 a, V3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
V3 operator*(V3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }
double dot(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
double norm(V3 a) { return std::sqrt(dot(a, a)); }
V3 unit(V3 a) { return a * (1.0 / std::max(norm(a), 1e-12)); }
V3 cross(V3 a, V3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }

constexpr double kDeg = 180.0 / M_PI;
constexpr double kEyeDistanceMm = 63.0;

// Symmetric landmark pairs (the subject's right, left) of the face mesh: eye corners, brows,
// cheeks, face oval, mouth corners.
constexpr int kPairs[][2] = {{33, 263}, {133, 362}, {70, 300}, {105, 334}, {234, 454}, {127, 356},
                             {93, 323}, {132, 361}, {58, 288}, {61, 291}, {50, 280}, {205, 425}};
// Midline landmarks, upper (forehead, between the brows) and lower (chin).
constexpr int kUpper[] = {10, 151, 9, 8};
constexpr int kLower[] = {152, 175, 199, 200};
// Eye contours p1..p6 (outer corner, upper lid x2, inner corner, lower lid x2).
constexpr int kRightEye[6] = {33, 160, 158, 133, 153, 144};
constexpr int kLeftEye[6] = {263, 387, 385, 362, 380, 373};
constexpr int kRightEyeRing[] = {33, 246, 161, 160, 159, 158, 157, 173, 133, 155, 154, 153, 145, 144, 163, 7};
constexpr int kLeftEyeRing[] = {263, 466, 388, 387, 386, 385, 384, 398, 362, 382, 381, 380, 374, 373, 390, 249};

}  // namespace

FaceSignals face_signals(const std::vector<float>& lm, int frame_width, int frame_height, float fov_deg) {
  if (lm.size() != 3 * 468) throw Error("face_signals: " + std::to_string(lm.size()) + " landmark values, expected 1404");
  // Points in a right-handed camera frame with y up and z towards the viewer, where a frontal
  // face's axes are the identity.
  auto up = [&](int i) { return V3{lm[3 * i], -double(lm[3 * i + 1]), -double(lm[3 * i + 2])}; };
  auto px = [&](int i) { return V3{lm[3 * i], lm[3 * i + 1], lm[3 * i + 2]}; };  // image frame
  V3 across;
  for (const auto& p : kPairs) across = across + unit(up(p[1]) - up(p[0]));
  V3 vertical;
  for (int k = 0; k < 4; ++k) vertical = vertical + up(kUpper[k]) - up(kLower[k]);
  const V3 x = unit(across);
  const V3 y = unit(vertical - x * dot(vertical, x));
  const V3 z = cross(x, y);
  // R = [x y z] = Rz(a) Rx(b) Ry(c): its last row is (-cos b sin c, sin b, cos b cos c); the middle
  // column's first two entries are (-sin a cos b, cos a cos b).
  FaceSignals s;
  const double b = std::asin(std::max(-1.0, std::min(1.0, y.z)));
  s.yaw = float(std::atan2(-x.z, z.z) * kDeg);
  s.pitch = float(-b * kDeg);
  s.roll = float(std::atan2(-y.x, y.y) * kDeg);

  auto mean_of = [&](const int* idx, int n) {
    V3 m;
    for (int k = 0; k < n; ++k) m = m + px(idx[k]);
    return m * (1.0 / n);
  };
  const V3 right_eye = mean_of(kRightEyeRing, 16), left_eye = mean_of(kLeftEyeRing, 16);
  const double eye_px = norm(left_eye - right_eye);  // 3-D: the same at any yaw
  const double focal_px = 0.5 * frame_width / std::tan(0.5 * double(fov_deg) / kDeg);
  const V3 between = (right_eye + left_eye) * 0.5;
  const double depth_mm = eye_px > 0 ? focal_px * kEyeDistanceMm / eye_px : 0;
  s.translation_mm = {float((between.x - 0.5 * frame_width) * depth_mm / focal_px),
                      float((between.y - 0.5 * frame_height) * depth_mm / focal_px), float(depth_mm)};

  auto aspect = [&](const int* p) {
    const double width = norm(px(p[0]) - px(p[3]));
    return width > 0 ? float((norm(px(p[1]) - px(p[5])) + norm(px(p[2]) - px(p[4]))) / (2 * width)) : 0.0f;
  };
  s.right_eye = aspect(kRightEye);
  s.left_eye = aspect(kLeftEye);
  const double mouth_width = norm(px(78) - px(308));
  s.mouth = mouth_width > 0 ? float(norm(px(13) - px(14)) / mouth_width) : 0.0f;
  return s;
}

}  // namespace gp::track
