// Face ROIs (MediaPipe face_mesh semantics in frame pixels) and the CPU ROI warp: hand-computed
// ROIs, the rotation sign, landmark ROIs, the tensor <-> frame maps, and crops of a synthetic face
// rolled by 30 degrees that must come out upright.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "cuda/track_faces/face_roi.hpp"
#include "cuda/detection/roi_warp.hpp"
#include "cuda/common/half.hpp"
#include "support/test_frames.hpp"
#include "detection/roi_test_scene.hpp"

using namespace gp::track;
using gp::frames::FrameFormat;
using gp::frames::TensorType;
using gp::test::FaceScene;
using gp::test::HostPackedFrame;
using gp::test::HostYuvFrame;

namespace {

constexpr float kPi = 3.14159265358979f;

std::vector<float> warp(const gp::frames::FrameSource& frame, const std::vector<Roi>& rois, int S = 192) {
  RoiWarpParams p;
  p.size = S;
  std::vector<float> out(rois.size() * S * S * 3, -1.0f);
  warp_rois_cpu(frame, rois.data(), int(rois.size()), p, out.data());
  return out;
}

double mean_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += std::fabs(double(a[i]) - b[i]);
  return sum / double(a.size());
}

float at(const std::vector<float>& t, int S, int item, int u, int v, int c) {
  return t[((std::size_t(item) * S + v) * S + u) * 3 + c];
}

}  // namespace

TEST_CASE("roi_from_detection: upright face, square_long x 1.5 in pixels", "[track_faces]") {
  Detection d;
  d.xmin = 0.4f;
  d.ymin = 0.3f;
  d.width = 0.2f;   // 128 px of 640
  d.height = 0.25f;  // 120 px of 480
  d.keypoints[0] = {0.45f, 0.4f};
  d.keypoints[1] = {0.55f, 0.4f};
  const Roi r = roi_from_detection(d, 640, 480);
  CHECK(r.cx == Approx(320.0f));
  CHECK(r.cy == Approx(204.0f));
  CHECK(r.size == Approx(192.0f));  // max(128, 120) * 1.5
  CHECK(r.rotation == Approx(0.0f).margin(1e-7));
  CHECK(roi_from_detection(d, 640, 480, 2.0f).size == Approx(256.0f));
  CHECK_THROWS(roi_from_detection(d, 0, 480));
}

TEST_CASE("roi_from_detection: rotation sign (counter-clockwise roll on screen = negative) in pixels",
          "[track_faces]") {
  // 640x480: with normalized keypoints the eye line's angle would come out wrong (not 30 degrees).
  const FaceScene ccw{320, 240, kPi / 6}, cw{320, 240, -kPi / 6};
  const Roi a = roi_from_detection(ccw.detection(640, 480), 640, 480);
  CHECK(a.rotation == Approx(-kPi / 6).margin(1e-5));
  CHECK(a.cx == Approx(320.0f));
  CHECK(a.cy == Approx(240.0f));
  CHECK(a.size == Approx(150.0f));
  CHECK(roi_from_detection(cw.detection(640, 480), 640, 480).rotation == Approx(kPi / 6).margin(1e-5));
  // Upside down: +-pi, normalized into [-pi, pi).
  const FaceScene flipped{320, 240, kPi};
  CHECK(std::fabs(roi_from_detection(flipped.detection(640, 480), 640, 480).rotation) == Approx(kPi).margin(1e-5));
  CHECK(normalize_radians(3 * kPi / 2) == Approx(-kPi / 2));
}

TEST_CASE("roi_from_landmarks: bounding box, landmarks 33 -> 263, square_long x 1.5", "[track_faces]") {
  std::vector<float> xy(468 * 2);
  for (int i = 0; i < 468; ++i) {  // an ellipse: box [320, 480] x [190, 410]
    const float t = 2 * kPi * float(i) / 468;
    xy[2 * i] = 400 + 80 * std::cos(t);
    xy[2 * i + 1] = 300 + 110 * std::sin(t);
  }
  xy[2 * 33] = 350;
  xy[2 * 33 + 1] = 280;
  xy[2 * 263] = 450;
  xy[2 * 263 + 1] = 280;
  const Roi r = roi_from_landmarks(xy.data(), 468);
  CHECK(r.cx == Approx(400.0f));
  CHECK(r.cy == Approx(300.0f));
  CHECK(r.size == Approx(330.0f).epsilon(1e-5));  // 220 * 1.5
  CHECK(r.rotation == Approx(0.0f).margin(1e-7));

  // The whole face rolled 20 degrees counter-clockwise on screen about its centre.
  const float c = std::cos(kPi / 9), s = std::sin(kPi / 9);
  for (int i = 0; i < 468; ++i) {
    const float dx = xy[2 * i] - 400, dy = xy[2 * i + 1] - 300;
    xy[2 * i] = 400 + c * dx + s * dy;
    xy[2 * i + 1] = 300 - s * dx + c * dy;
  }
  CHECK(roi_from_landmarks(xy.data(), 468).rotation == Approx(-kPi / 9).margin(1e-5));
  CHECK_THROWS(roi_from_landmarks(xy.data(), 263));
}

TEST_CASE("tensor <-> frame maps: known points, round trip, landmark projection", "[track_faces]") {
  for (float a = -12.0f; a <= 12.0f; a += 0.037f) {
    const RoiSinCos sc = roi_sincos(a);
    REQUIRE(sc.s == Approx(std::sin(a)).margin(3e-7));
    REQUIRE(sc.c == Approx(std::cos(a)).margin(3e-7));
  }
  const int S = 192;
  const Roi upright{300.5f, 211.25f, 173.0f, 0.0f};
  RoiPoint p = tensor_to_frame(upright, S, 0, 0);
  CHECK(p.x == Approx(300.5f - 86.5f));
  CHECK(p.y == Approx(211.25f - 86.5f));
  p = tensor_to_frame(upright, S, 96, 96);
  CHECK(p.x == Approx(300.5f));
  CHECK(p.y == Approx(211.25f));

  // Rolled 30 degrees counter-clockwise: the crop's x axis runs right and UP in the frame.
  const Roi rolled{300.5f, 211.25f, 173.0f, -kPi / 6};
  p = tensor_to_frame(rolled, S, S, S / 2);
  CHECK(p.x == Approx(300.5f + 86.5f * std::cos(kPi / 6)));
  CHECK(p.y == Approx(211.25f - 86.5f * std::sin(kPi / 6)));

  double worst = 0;
  for (float y = -50; y < 600; y += 13.7f)
    for (float x = -50; x < 800; x += 11.3f) {
      const RoiPoint t = frame_to_tensor(rolled, S, x, y);
      const RoiPoint back = tensor_to_frame(rolled, S, t.x, t.y);
      worst = std::max(worst, double(std::hypot(back.x - x, back.y - y)));
    }
  CHECK(worst < 1e-3);

  const float in[6] = {0, 0, 10, float(S), float(S) / 2, -4};
  float out[6];
  project_landmarks(rolled, S, in, 2, out);
  const RoiPoint corner = tensor_to_frame(rolled, S, 0, 0);
  CHECK(out[0] == corner.x);
  CHECK(out[1] == corner.y);
  CHECK(out[2] == Approx(10 * 173.0f / S));
  CHECK(out[3] == Approx(p.x));
  CHECK(out[4] == Approx(p.y));
  CHECK(out[5] == Approx(-4 * 173.0f / S));
}

TEST_CASE("warp_rois_cpu: a face rolled 30 degrees comes out upright (RGB and YUV 4:2:0)", "[track_faces]") {
  const int W = 640, H = 480, S = 192;
  const FaceScene upright{330, 230, 0}, rolled{330, 230, kPi / 6};
  HostPackedFrame frame_up(FrameFormat::rgb, W, H), frame_rolled(FrameFormat::bgra, W, H, 12);
  upright.draw(frame_up);
  rolled.draw(frame_rolled);
  const Roi roi_up = roi_from_detection(upright.detection(W, H), W, H);
  const Roi roi_rolled = roi_from_detection(rolled.detection(W, H), W, H);
  REQUIRE(roi_rolled.rotation == Approx(-kPi / 6).margin(1e-5));

  const std::vector<float> crop_up = warp(frame_up.frame(), {roi_up}, S);
  // Upright crop shows the pattern upright: the blue blob is up and to the right (pattern (30, -25)
  // at tensor ((30 / 150 + 0.5) S, (-25 / 150 + 0.5) S)), red grows to the right, green downwards.
  CHECK(at(crop_up, S, 0, 134, 64, 2) > 0.75f);
  CHECK(at(crop_up, S, 0, 58, 64, 2) < 0.3f);
  CHECK(at(crop_up, S, 0, 170, 96, 0) > 0.8f);
  CHECK(at(crop_up, S, 0, 20, 96, 0) < 0.25f);
  CHECK(at(crop_up, S, 0, 96, 170, 1) > 0.8f);

  const std::vector<float> crop_rolled = warp(frame_rolled.frame(), {roi_rolled}, S);
  CHECK(mean_abs_diff(crop_up, crop_rolled) < 0.01);
  // The opposite sign, or no rotation, do not straighten it (the test can fail).
  Roi wrong = roi_rolled;
  wrong.rotation = -wrong.rotation;
  CHECK(mean_abs_diff(crop_up, warp(frame_rolled.frame(), {wrong}, S)) > 0.05);
  wrong.rotation = 0;
  CHECK(mean_abs_diff(crop_up, warp(frame_rolled.frame(), {wrong}, S)) > 0.03);

  // The same from a YUV 4:2:0 frame of odd size (limited range, chroma subsampled).
  HostYuvFrame yuv(W + 1, H + 1, 5);
  rolled.draw(yuv);
  CHECK(mean_abs_diff(crop_up, warp(yuv.frame(), {roi_rolled}, S)) < 0.02);
}

TEST_CASE("warp_rois_cpu: several ROIs in one call, replicate border, f16, scale/offset, checks",
          "[track_faces]") {
  const int W = 200, H = 100, S = 40;
  HostPackedFrame f(FrameFormat::rgb, W, H);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) f.set(x, y, std::uint8_t(10 + x), 50, std::uint8_t(y));

  // Centre (2, 50), side 40 = S: tensor (u, v) samples frame (u - 17.5, v + 30.5), i.e. pixel
  // centres u - 18 and v + 30 exactly. Left of column 0 the edge column repeats.
  const std::vector<Roi> rois = {{120.3f, 40.7f, 57.0f, 0.4f}, {2.0f, 50.0f, 40.0f, 0.0f},
                                     {1e6f, -1e6f, 30.0f, 1.0f}};
  const std::vector<float> all = warp(f.frame(), rois, S);
  for (int v = 0; v < S; ++v) {
    for (int u = 0; u <= 17; ++u) REQUIRE(at(all, S, 1, u, v, 0) == 10.0f / 255.0f);
    for (int u = 18; u < S; ++u) REQUIRE(at(all, S, 1, u, v, 0) == Approx((10.0f + float(u - 18)) / 255.0f));
    REQUIRE(at(all, S, 1, 5, v, 2) == Approx(float(v + 30) / 255.0f));
  }
  // Far outside: the nearest corner, pixel (W - 1, 0).
  for (int v = 0; v < S; ++v)
    for (int u = 0; u < S; ++u) {
      REQUIRE(at(all, S, 2, u, v, 0) == Approx(float(10 + W - 1) / 255.0f));
      REQUIRE(at(all, S, 2, u, v, 2) == 0.0f);
    }
  // Item i of a batch is the ROI's crop alone.
  const std::vector<float> first = warp(f.frame(), {rois[0]}, S);
  CHECK(std::equal(first.begin(), first.end(), all.begin()));

  // f16 and scale/offset.
  RoiWarpParams p;
  p.size = S;
  p.type = TensorType::f16;
  p.scale = 2.0f;
  p.offset = -1.0f;
  std::vector<std::uint16_t> half(all.size());
  warp_rois_cpu(f.frame(), rois.data(), 3, p, half.data());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const float expect = all[i] * 2.0f - 1.0f;
    REQUIRE(gp::half_to_float(half[i]) == Approx(expect).margin(std::fabs(expect) / 2048 + 1e-6));
  }

  // Checks: bad ROI, bad size, missing tensor; zero ROIs is fine.
  std::vector<float> out(S * S * 3);
  RoiWarpParams q;
  q.size = S;
  Roi bad{std::nanf(""), 0, 10, 0};
  CHECK_THROWS(warp_rois_cpu(f.frame(), &bad, 1, q, out.data()));
  bad = {10, 10, 0, 0};
  CHECK_THROWS(warp_rois_cpu(f.frame(), &bad, 1, q, out.data()));
  CHECK_THROWS(warp_rois_cpu(f.frame(), rois.data(), 1, q, nullptr));
  q.size = 0;
  CHECK_THROWS(warp_rois_cpu(f.frame(), rois.data(), 1, q, out.data()));
  q.size = S;
  CHECK_NOTHROW(warp_rois_cpu(f.frame(), nullptr, 0, q, nullptr));
}
