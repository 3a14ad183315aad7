// SSD decoding (BlazeFace, BlazePose's detector) and MediaPipe's weighted NMS on constructed model outputs with known answers.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "detection/detection_decode.hpp"

using namespace gp::detect;

namespace {

struct RawOutputs {
  std::vector<float> boxes, scores;
  explicit RawOutputs(const DecodeOptions& o)
      : boxes(static_cast<std::size_t>(o.num_boxes) * o.num_coords, 0.0f), scores(o.num_boxes, -50.0f) {}
  float* box(int i, int coords) { return boxes.data() + static_cast<std::size_t>(i) * coords; }
};

Detection box_at(float xmin, float ymin, float size, float score) {
  Detection d;
  d.xmin = xmin;
  d.ymin = ymin;
  d.width = d.height = size;
  d.score = score;
  for (int k = 0; k < kMaxKeypoints; ++k) d.keypoints[k] = {xmin + 0.1f * k, ymin + 0.05f * k};
  return d;
}

}  // namespace

TEST_CASE("decode: short-range box, keypoints, sigmoid and threshold", "[detection]") {
  const auto options = short_range_decode_options();
  const auto anchors = generate_ssd_anchors(short_range_anchor_options());
  RawOutputs raw(options);
  // Anchor 0 (center 1/32, 1/32), x/y/w/h order: offsets in input pixels, scale 128.
  float* b = raw.box(0, options.num_coords);
  b[0] = 12.8f;   // x +0.1
  b[1] = -6.4f;   // y -0.05
  b[2] = 25.6f;   // w 0.2
  b[3] = 38.4f;   // h 0.3
  for (int k = 0; k < kMaxKeypoints; ++k) {
    b[4 + 2 * k] = 1.28f * k;
    b[5 + 2 * k] = -2.56f * k;
  }
  raw.scores[0] = 0.0f;      // sigmoid 0.5: kept (>= 0.5)
  raw.scores[1] = -0.01f;    // just under
  raw.scores[895] = 1000.f;  // clipped to 100 -> 1
  raw.box(895, options.num_coords)[2] = 12.8f;
  raw.box(895, options.num_coords)[3] = 12.8f;
  raw.scores[600] = 5.0f;  // confident, but decodes to a negative width: dropped as MediaPipe does
  raw.box(600, options.num_coords)[2] = -10.0f;
  raw.box(600, options.num_coords)[3] = 10.0f;
  const auto dets = decode_detections(raw.boxes.data(), raw.scores.data(), anchors, options);
  REQUIRE(dets.size() == 2);
  const Detection& d = dets[0];
  CHECK(d.score == Approx(0.5f));
  CHECK(d.xmin == Approx(1.0f / 32 + 0.1f - 0.1f));
  CHECK(d.ymin == Approx(1.0f / 32 - 0.05f - 0.15f));
  CHECK(d.width == Approx(0.2f));
  CHECK(d.height == Approx(0.3f));
  for (int k = 0; k < kMaxKeypoints; ++k) {
    CHECK(d.keypoints[k].x == Approx(1.0f / 32 + 0.01f * k));
    CHECK(d.keypoints[k].y == Approx(1.0f / 32 - 0.02f * k));
  }
  CHECK(dets[1].score == Approx(1.0f));
  CHECK(dets[1].xmin == Approx(7.5f / 8 - 0.05f));
  CHECK(dets[1].width == Approx(0.1f));
}

TEST_CASE("decode: full-range scale 192 and y-first order", "[detection]") {
  auto options = full_range_decode_options();
  const auto anchors = generate_ssd_anchors(full_range_anchor_options());
  RawOutputs raw(options);
  raw.scores[49] = 2.0f;  // anchor (1, 1): center 1.5/48
  float* b = raw.box(49, options.num_coords);
  b[0] = 19.2f;  // reversed: x +0.1; y-first: y +0.1
  b[1] = 0.0f;
  b[2] = 38.4f;  // reversed: w 0.2; y-first: h 0.2
  b[3] = 19.2f;
  b[4] = 9.6f;   // keypoint 0 first value 0.05
  auto dets = decode_detections(raw.boxes.data(), raw.scores.data(), anchors, options);
  REQUIRE(dets.size() == 1);
  CHECK(dets[0].score == Approx(1.0f / (1.0f + std::exp(-2.0f))));
  CHECK(dets[0].xmin == Approx(1.5f / 48 + 0.1f - 0.1f));
  CHECK(dets[0].width == Approx(0.2f));
  CHECK(dets[0].height == Approx(0.1f));
  CHECK(dets[0].keypoints[0].x == Approx(1.5f / 48 + 0.05f));
  options.reverse_output_order = false;
  dets = decode_detections(raw.boxes.data(), raw.scores.data(), anchors, options);
  REQUIRE(dets.size() == 1);
  CHECK(dets[0].ymin == Approx(1.5f / 48 + 0.1f - 0.1f));
  CHECK(dets[0].height == Approx(0.2f));
  CHECK(dets[0].width == Approx(0.1f));
  CHECK(dets[0].keypoints[0].y == Approx(1.5f / 48 + 0.05f));
  CHECK(dets[0].keypoints[0].x == Approx(1.5f / 48));
  CHECK_THROWS_AS(decode_detections(raw.boxes.data(), raw.scores.data(),
                                         generate_ssd_anchors(short_range_anchor_options()), options),
                  std::invalid_argument);
}

TEST_CASE("decode: BlazePose's detector, 12 values a box with 4 keypoints", "[detection]") {
  const auto options = pose_decode_options();
  const auto anchors = generate_ssd_anchors(pose_anchor_options());
  REQUIRE(options.num_boxes == int(anchors.size()));
  RawOutputs raw(options);
  // Anchor 2 (centre 1.5/28, 0.5/28): box and the 4 keypoints in input pixels, scale 224.
  float* b = raw.box(2, options.num_coords);
  b[0] = 22.4f;  // x +0.1
  b[1] = 11.2f;  // y +0.05
  b[2] = 44.8f;  // w 0.2
  b[3] = 67.2f;  // h 0.3
  for (int k = 0; k < 4; ++k) {
    b[4 + 2 * k] = 2.24f * (k + 1);
    b[5 + 2 * k] = 4.48f * (k + 1);
  }
  raw.scores[2] = 2.0f;
  raw.scores[3] = -0.01f;  // sigmoid just under 0.5: dropped
  const auto dets = decode_detections(raw.boxes.data(), raw.scores.data(), anchors, options);
  REQUIRE(dets.size() == 1);
  const Detection& d = dets[0];
  const float ax = 1.5f / 28, ay = 0.5f / 28;
  CHECK(d.score == Approx(1 / (1 + std::exp(-2.0))));
  CHECK(d.xmin == Approx(ax + 0.1f - 0.1f));
  CHECK(d.ymin == Approx(ay + 0.05f - 0.15f));
  CHECK(d.width == Approx(0.2f));
  CHECK(d.height == Approx(0.3f));
  for (int k = 0; k < 4; ++k) {
    CHECK(d.keypoints[k].x == Approx(ax + 0.01f * (k + 1)));
    CHECK(d.keypoints[k].y == Approx(ay + 0.02f * (k + 1)));
  }
  // The model has no values for keypoints 4 and 5: they stay 0, nothing read past a box's 12.
  for (int k = 4; k < kMaxKeypoints; ++k) {
    CHECK(d.keypoints[k].x == 0.0f);
    CHECK(d.keypoints[k].y == 0.0f);
  }
  // Options asking for more keypoints than the values hold are refused.
  DecodeOptions too_many = options;
  too_many.num_keypoints = 5;
  CHECK_THROWS_AS(decode_detections(raw.boxes.data(), raw.scores.data(), anchors, too_many), std::invalid_argument);
  too_many.num_keypoints = kMaxKeypoints + 1;
  too_many.num_coords = 4 + 2 * too_many.num_keypoints;
  CHECK_THROWS_AS(decode_detections(raw.boxes.data(), raw.scores.data(), anchors, too_many), std::invalid_argument);
}

TEST_CASE("weighted NMS: overlapping boxes averaged by score, others kept", "[detection]") {
  const Detection a = box_at(0.0f, 0.0f, 1.0f, 0.9f);
  const Detection b = box_at(0.1f, 0.0f, 1.0f, 0.6f);   // IoU with a 0.9/1.1 > 0.3
  const Detection c = box_at(5.0f, 5.0f, 1.0f, 0.8f);   // far away
  const Detection d = box_at(0.6f, 0.0f, 1.0f, 0.7f);   // IoU with a 0.4/1.6 = 0.25
  const auto out = weighted_non_max_suppression({b, c, a, d});
  REQUIRE(out.size() == 3);
  // a + b, weights 0.9 and 0.6; the best one's score stays.
  CHECK(out[0].score == Approx(0.9f));
  CHECK(out[0].xmin == Approx(0.06f / 1.5f));
  CHECK(out[0].width == Approx(1.0f));
  CHECK(out[0].ymin == Approx(0.0f));
  CHECK(out[0].keypoints[2].x == Approx((0.9f * 0.2f + 0.6f * 0.3f) / 1.5f));
  CHECK(out[0].keypoints[2].y == Approx(0.1f));
  // c alone. d overlapped b (IoU 0.5/1.5) but b was taken by a's cluster, so d stands alone.
  CHECK(out[1].score == Approx(0.8f));
  CHECK(out[1].xmin == Approx(5.0f));
  CHECK(out[2].score == Approx(0.7f));
  CHECK(out[2].xmin == Approx(0.6f));

  NmsOptions one;
  one.max_num_detections = 1;
  CHECK(weighted_non_max_suppression({b, c, a, d}, one).size() == 1);
  CHECK(weighted_non_max_suppression({}).empty());
}

TEST_CASE("weighted NMS: a cluster of three with different sizes", "[detection]") {
  Detection a = box_at(0.2f, 0.2f, 0.4f, 0.5f);
  Detection b = box_at(0.2f, 0.2f, 0.5f, 0.25f);  // IoU 0.16/0.25 = 0.64
  Detection c = box_at(0.25f, 0.2f, 0.4f, 0.25f); // IoU 0.14/0.18 ~ 0.78
  const auto out = weighted_non_max_suppression({a, b, c});
  REQUIRE(out.size() == 1);
  CHECK(out[0].xmin == Approx((0.5f * 0.2f + 0.25f * 0.2f + 0.25f * 0.25f) / 1.0f));
  const float xmax = (0.5f * 0.6f + 0.25f * 0.7f + 0.25f * 0.65f) / 1.0f;
  CHECK(out[0].width == Approx(xmax - out[0].xmin));
  const float ymax = (0.5f * 0.6f + 0.25f * 0.7f + 0.25f * 0.6f) / 1.0f;
  CHECK(out[0].height == Approx(ymax - 0.2f));
  CHECK(out[0].score == Approx(0.5f));
}
