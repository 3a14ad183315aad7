// The GPU detection test's CPU side: decode_detections_cpu (17-float records, a batch) is exactly
// weighted_non_max_suppression(decode_detections(...)) frame by frame, and the test scenes
// (anchors, options, frames) are what they claim to be.
#include <catch2/catch.hpp>

#include <cstring>
#include <set>
#include <vector>

#include "cuda/detection/detection_gpu.hpp"
#include "detection/anchors.hpp"
#include "detection/detection_decode.hpp"
#include "detection/detection_scene.hpp"

using namespace gp::detect;
using gp::test::FaceModel;
using gp::test::FrameKind;

namespace {

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void check_layout_matches_cpu_functions(FaceModel model, int max_out, int max_num_detections) {
  const std::vector<FrameKind> frames = {FrameKind::faces, FrameKind::faces,      FrameKind::none_above,
                                         FrameKind::faces, FrameKind::all_above, FrameKind::faces};
  const gp::test::RawBatch raw = gp::test::make_raw_batch(model, frames, 1234);
  const std::vector<Anchor> anchors = gp::test::face_anchors(model);
  const DecodeOptions o = gp::test::face_decode_options(model);
  NmsOptions nms;
  nms.max_num_detections = max_num_detections;
  std::vector<float> records(frames.size() * std::size_t(max_out) * kDetectionFloats, -1.0f);
  std::vector<int> counts(frames.size(), -1);
  decode_detections_cpu(raw.boxes.data(), raw.scores.data(), anchors, int(frames.size()), o, nms, max_out, records.data(),
                   counts.data());
  for (std::size_t f = 0; f < frames.size(); ++f) {
    INFO("frame " << f);
    const std::size_t first = f * std::size_t(o.num_boxes);
    const auto decoded =
        decode_detections(raw.boxes.data() + first * o.num_coords, raw.scores.data() + first, anchors, o);
    NmsOptions limited = nms;
    if (limited.max_num_detections < 0 || limited.max_num_detections > max_out) limited.max_num_detections = max_out;
    const auto expected = weighted_non_max_suppression(decoded, limited);
    REQUIRE(counts[f] == int(expected.size()));
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const float* r = records.data() + (f * max_out + i) * kDetectionFloats;
      const Detection& e = expected[i];
      const float want[kDetectionFloats] = {e.xmin, e.ymin, e.width, e.height, e.score,
                                            e.keypoints[0].x, e.keypoints[0].y, e.keypoints[1].x, e.keypoints[1].y,
                                            e.keypoints[2].x, e.keypoints[2].y, e.keypoints[3].x, e.keypoints[3].y,
                                            e.keypoints[4].x, e.keypoints[4].y, e.keypoints[5].x, e.keypoints[5].y};
      for (int v = 0; v < kDetectionFloats; ++v) CHECK(same_bits(r[v], want[v]));
    }
    // The scenes: nothing decodes in a none_above frame, everything in an all_above one; face
    // frames have exactly tied scores among their candidates and more candidates than outputs.
    std::set<float> distinct;
    for (const Detection& d : decoded) distinct.insert(d.score);
    if (frames[f] == FrameKind::none_above) CHECK(decoded.empty());
    if (frames[f] == FrameKind::all_above) CHECK(int(decoded.size()) == o.num_boxes);
    if (frames[f] == FrameKind::faces) {
      CHECK(distinct.size() < decoded.size());
      CHECK(expected.size() >= 2);
      CHECK(expected.size() < decoded.size());
    }
  }
}

}  // namespace

TEST_CASE("detection scenes: anchors and options are the BlazeFace ones", "[detection]") {
  const std::vector<Anchor> short_range = generate_ssd_anchors(short_range_anchor_options());
  const std::vector<Anchor> full_range = generate_ssd_anchors(full_range_anchor_options());
  for (const auto& [model, want] : {std::pair{FaceModel::short_range, short_range}, std::pair{FaceModel::full_range, full_range}}) {
    const std::vector<Anchor> got = gp::test::face_anchors(model);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      CHECK(same_bits(got[i].x_center, want[i].x_center));
      CHECK(same_bits(got[i].y_center, want[i].y_center));
      CHECK(same_bits(got[i].w, want[i].w));
      CHECK(same_bits(got[i].h, want[i].h));
    }
  }
  for (const auto& [model, want] : {std::pair{FaceModel::short_range, short_range_decode_options()},
                                    std::pair{FaceModel::full_range, full_range_decode_options()}}) {
    const DecodeOptions got = gp::test::face_decode_options(model);
    CHECK(got.num_boxes == want.num_boxes);
    CHECK(got.x_scale == want.x_scale);
    CHECK(got.h_scale == want.h_scale);
    CHECK(got.min_score_thresh == want.min_score_thresh);
    CHECK(got.reverse_output_order == want.reverse_output_order);
    CHECK(got.sigmoid_score == want.sigmoid_score);
  }
}

TEST_CASE("decode_detections_cpu = weighted_non_max_suppression(decode_detections()) per frame, bit for bit",
          "[detection]") {
  check_layout_matches_cpu_functions(FaceModel::short_range, 64, -1);
  check_layout_matches_cpu_functions(FaceModel::full_range, 64, -1);
  check_layout_matches_cpu_functions(FaceModel::short_range, 3, -1);  // output capacity limits
  check_layout_matches_cpu_functions(FaceModel::full_range, 64, 2);   // NMS option limits
}
