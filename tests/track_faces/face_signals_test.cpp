// Face signals from landmarks: a synthetic symmetric face turned by known angles, at a known
// distance, with known eye and mouth openings, must give those numbers back (the real-frame checks,
// mirror and in-plane rotation, are in tests/cli/face_signals.sh).
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <vector>

#include "track_faces/face_signals.hpp"

using gp::track::face_signals;
using gp::track::FaceSignals;

namespace {

struct P {
  double x, y, z;  // face frame: x to the subject's left, y up, z out of the face; millimetres
};

constexpr double kPi = 3.14159265358979323846;

// A symmetric face: every landmark the signals use at a plausible place (x mirrored for pairs),
// the eye centres 63 mm apart; eyes open to aspect ratio `eye`, mouth to ratio `mouth`.
std::vector<P> face(double eye, double mouth) {
  std::vector<P> p(468, P{0, 0, 0});
  auto pair = [&](int right, int left, double x, double y, double z) {
    p[std::size_t(right)] = {-x, y, z};
    p[std::size_t(left)] = {x, y, z};
  };
  pair(234, 454, 70, 0, -40), pair(127, 356, 68, 20, -45), pair(93, 323, 66, -15, -42), pair(132, 361, 60, -35, -40);
  pair(58, 288, 50, -55, -35), pair(61, 291, 25, -45, 5), pair(50, 280, 40, -15, 5), pair(205, 425, 35, -30, 5);
  pair(70, 300, 50, 45, 5), pair(105, 334, 30, 50, 10);
  // Eyes: centres at x = +-31.5, 26 mm from corner to corner, lids +-13 * eye from the centre line
  // 10 mm apart: aspect (4 * 13 * eye) / (2 * 26) = eye.
  const double half_width = 13, lid = eye * 26 / 2;
  auto eye_points = [&](int outer, int upper_out, int upper_in, int inner, int lower_in, int lower_out, double side) {
    const double cx = side * 31.5;
    p[std::size_t(outer)] = {cx + side * half_width, 30, 0};
    p[std::size_t(inner)] = {cx - side * half_width, 30, 0};
    p[std::size_t(upper_out)] = {cx + side * 5, 30 + lid, 0};
    p[std::size_t(upper_in)] = {cx - side * 5, 30 + lid, 0};
    p[std::size_t(lower_in)] = {cx - side * 5, 30 - lid, 0};
    p[std::size_t(lower_out)] = {cx + side * 5, 30 - lid, 0};
  };
  eye_points(33, 160, 158, 133, 153, 144, -1);
  eye_points(263, 387, 385, 362, 380, 373, +1);
  // The eye rings' other points on the eye's centre line, so the ring means are the centres.
  for (int i : {246, 161, 159, 157, 173, 155, 154, 145, 163, 7}) p[std::size_t(i)] = {-31.5, 30, 0};
  for (int i : {466, 388, 386, 384, 398, 382, 381, 374, 390, 249}) p[std::size_t(i)] = {31.5, 30, 0};
  for (int i : {10, 151, 9, 8}) p[std::size_t(i)] = {0, 60.0 + i % 7, 8};
  for (int i : {152, 175, 199, 200}) p[std::size_t(i)] = {0, -70.0 + i % 5, 8};
  p[78] = {-20, -45, 3}, p[308] = {20, -45, 3};
  p[13] = {0, -45 + mouth * 20, 6}, p[14] = {0, -45 - mouth * 20, 6};
  return p;
}

// Face points turned by Rz(roll) Rx(-pitch) Ry(yaw) (degrees), placed `distance` mm in front of a
// pinhole camera of focal length `focal` px centred in a w x h frame: landmarks in pixels as the
// face mesh gives them (x right, y down, z in the scale of x, larger away).
std::vector<float> landmarks(const std::vector<P>& face, double yaw, double pitch, double roll, double distance,
                             double focal, int w, int h) {
  const double c = yaw * kPi / 180, b = -pitch * kPi / 180, a = roll * kPi / 180;
  std::vector<float> out;
  for (const P& q : face) {
    // Ry(c)
    P r{std::cos(c) * q.x + std::sin(c) * q.z, q.y, -std::sin(c) * q.x + std::cos(c) * q.z};
    // Rx(b)
    r = {r.x, std::cos(b) * r.y - std::sin(b) * r.z, std::sin(b) * r.y + std::cos(b) * r.z};
    // Rz(a)
    r = {std::cos(a) * r.x - std::sin(a) * r.y, std::sin(a) * r.x + std::cos(a) * r.y, r.z};
    // Camera frame (y up, z towards the viewer) -> image: weak perspective at the face's distance.
    const double scale = focal / distance;
    out.push_back(float(w / 2.0 + r.x * scale));
    out.push_back(float(h / 2.0 - r.y * scale));
    out.push_back(float(-r.z * scale));
  }
  return out;
}

}  // namespace

TEST_CASE("face signals: a synthetic face gives back its angles, distance and openings", "[track_faces]") {
  const int w = 1280, h = 720;
  const double fov = 60, focal = 0.5 * w / std::tan(fov / 2 * kPi / 180);
  const auto f = face(0.3, 0.4);
  for (const auto& [yaw, pitch, roll] : std::vector<std::array<double, 3>>{
           {0, 0, 0}, {30, 0, 0}, {-45, 0, 0}, {0, 20, 0}, {0, -25, 0}, {0, 0, 15}, {0, 0, -90}, {25, -15, 10}, {-40, 30, -35}}) {
    const FaceSignals s = face_signals(landmarks(f, yaw, pitch, roll, 600, focal, w, h), w, h, float(fov));
    INFO("yaw " << yaw << " pitch " << pitch << " roll " << roll << " -> " << s.yaw << " " << s.pitch << " " << s.roll);
    CHECK(s.yaw == Approx(yaw).margin(1e-3));
    CHECK(s.pitch == Approx(pitch).margin(1e-3));
    CHECK(s.roll == Approx(roll).margin(1e-3));
    // The eyes' centre is 30 mm above the face's origin, which sits at the frame's centre 600 mm away.
    CHECK(s.translation_mm[2] == Approx(600).epsilon(1e-3));
    if (yaw == 0 && pitch == 0 && roll == 0) {
      CHECK(s.translation_mm[0] == Approx(0).margin(1e-3));
      CHECK(s.translation_mm[1] == Approx(-30).epsilon(1e-3));  // above the centre: y down is negative
      CHECK(s.right_eye == Approx(0.3).epsilon(1e-4));
      CHECK(s.left_eye == Approx(0.3).epsilon(1e-4));
    }
    // Openings are ratios of 3-D distances: the same at any pose.
    CHECK(s.right_eye == Approx(0.3).epsilon(1e-3));
    CHECK(s.left_eye == Approx(0.3).epsilon(1e-3));
    CHECK(s.mouth == Approx(0.4).epsilon(1e-3));
  }
}

TEST_CASE("face signals: closed eyes, open mouth, wrong sizes", "[track_faces]") {
  const FaceSignals closed = face_signals(landmarks(face(0.02, 0.9), 0, 0, 0, 500, 800, 640, 480), 640, 480, 60);
  CHECK(closed.right_eye == Approx(0.02).epsilon(1e-3));
  CHECK(closed.left_eye == Approx(0.02).epsilon(1e-3));
  CHECK(closed.mouth == Approx(0.9).epsilon(1e-3));
  CHECK_THROWS(face_signals(std::vector<float>(300), 640, 480, 60));
}
