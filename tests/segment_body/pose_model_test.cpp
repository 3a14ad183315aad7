// BlazePose's host side (pose_model.hpp) against hand-computed values from MediaPipe's graph
// definitions, the person-mask paste's CPU reference, and the whole pose stage (MaskProcessor with
// a pose variant, CPU path) on real photos from opencv-doc.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <utility>
#include <filesystem>
#include <vector>

#include "core/error.hpp"
#include "core/gpu_runtime.hpp"
#include "cuda/segment_body/person_masks.hpp"
#include "frames/rgb_image.hpp"
#include "frames/video_frame_source.hpp"
#include "io/video_reader.hpp"
#include "infer/model_files.hpp"
#include "segment_body/mask_processor.hpp"
#include "segment_body/pose_json.hpp"
#include "segment_body/pose_preview.hpp"
#include "frames/annotate.hpp"
#include "segment_body/pose_model.hpp"
#include "segment_body/segment_settings.hpp"
#include "support/test_data.hpp"

using namespace gp::segbody;

namespace {

constexpr float kPi = 3.14159265358979f;

gp::detect::Detection detection_with(float hip_x, float hip_y, float reach_x, float reach_y) {
  gp::detect::Detection d;
  d.keypoints[0] = {hip_x, hip_y};
  d.keypoints[1] = {reach_x, reach_y};
  return d;
}

// Raw landmark-model outputs: landmark i at tensor point (x, y), z 0, visibility/presence logits.
struct RawPose {
  std::vector<float> landmarks = std::vector<float>(kPoseModelLandmarks * 5, 0.0f);
  std::vector<float> heatmap = std::vector<float>(std::size_t(kPoseHeatmap) * kPoseHeatmap * kPoseModelLandmarks, -30.0f);
  std::vector<float> world = std::vector<float>(kPoseModelLandmarks * 3, 0.0f);
  void set(int i, float x, float y) {
    landmarks[std::size_t(i) * 5] = x;
    landmarks[std::size_t(i) * 5 + 1] = y;
  }
};

}  // namespace

TEST_CASE("pose ROI: MediaPipe's alignment rule from the detector's keypoints", "[segment_body]") {
  // 640 x 480 frame; hips at (320, 300), the full-body point 100 px straight above: upright.
  const auto up = pose_roi_from_detection(detection_with(0.5f, 300.0f / 480, 0.5f, 200.0f / 480), 640, 480);
  CHECK(up.cx == Approx(320));
  CHECK(up.cy == Approx(300));
  CHECK(up.size == Approx(2 * 100 * 1.25f));  // twice the distance, then x1.25 (square_long)
  CHECK(up.rotation == Approx(0).margin(1e-6));
  // The point to the right of the hips: the body lies along +x, the crop turns 90 degrees
  // (clockwise on screen) so that it comes out upright.
  const auto right = pose_roi_from_detection(detection_with(0.5f, 0.5f, 0.6f, 0.5f), 640, 480);
  CHECK(right.size == Approx(2 * 64 * 1.25f));
  CHECK(right.rotation == Approx(kPi / 2));
  // The ROI comes from pixel distances: on a non-square frame a normalised offset of 0.1 in y is
  // 48 px, not 64.
  const auto tall = pose_roi_from_detection(detection_with(0.5f, 0.5f, 0.5f, 0.4f), 640, 480);
  CHECK(tall.size == Approx(2 * 48 * 1.25f));
}

TEST_CASE("pose decode: projection, visibility, heatmap refinement and world rotation", "[segment_body]") {
  const gp::detect::Roi roi{400, 300, 200, 0};  // unrotated 200 px square centred at (400, 300)
  RawPose raw;
  raw.set(0, 128, 128);  // the ROI's centre
  raw.set(11, 64, 192);
  raw.landmarks[11 * 5 + 2] = 25.6f;  // z: 0.1 of the input
  raw.landmarks[11 * 5 + 3] = 0.0f;   // visibility logit 0 -> 0.5
  raw.landmarks[11 * 5 + 4] = 50.0f;  // presence -> 1
  raw.set(33, 128, 160);  // auxiliary
  raw.set(34, 128, 64);
  raw.world[3 * 11] = 0.2f;
  raw.world[3 * 11 + 1] = -0.1f;
  raw.world[3 * 11 + 2] = 0.3f;
  // Heatmap too weak everywhere (max sigmoid < 0.5): no landmark moves.
  PersonPose p = decode_pose(raw.landmarks.data(), raw.heatmap.data(), raw.world.data(), 0.9f, roi);
  CHECK(p.presence == 0.9f);
  CHECK(p.landmarks[0].x == Approx(400));
  CHECK(p.landmarks[0].y == Approx(300));
  CHECK(p.landmarks[11].x == Approx(300 + 200 * 0.25f));
  CHECK(p.landmarks[11].y == Approx(200 + 200 * 0.75f));
  CHECK(p.landmarks[11].z == Approx(0.1f * 200));
  CHECK(p.landmarks[11].visibility == Approx(0.5f));
  CHECK(p.landmarks[11].presence == Approx(1.0f));
  CHECK(p.auxiliary[0].y == Approx(300 + 25));
  CHECK(p.auxiliary[1].y == Approx(300 - 50));
  CHECK(p.world[11].x == Approx(0.2f));
  CHECK(p.world[11].z == Approx(0.3f));
  // The next frame's ROI from the auxiliary landmarks: centred on the first, 2 x 75 x 1.25.
  const auto next = pose_roi_from_landmarks(p);
  CHECK(next.cx == Approx(400));
  CHECK(next.cy == Approx(325));
  CHECK(next.size == Approx(2 * 75 * 1.25f));
  CHECK(next.rotation == Approx(0).margin(1e-6));
  // Bounding box of the 33 landmarks (the others at the tensor's origin: the ROI's corner).
  CHECK(p.box[0] == Approx(300));
  CHECK(p.box[3] == Approx(350));

  // A confident heatmap cell (col 20, row 40) next to landmark 0's cell (32, 32) is outside the
  // 7 x 7 window: nothing moves; one at (34, 30) inside it: landmark 0 moves to 34/64, 30/64 of
  // the ROI (MediaPipe's weighted mean of cell indices, no half-cell offset), the other cells
  // weighing almost nothing.
  RawPose peaked = raw;
  peaked.heatmap[(40 * kPoseHeatmap + 20) * kPoseModelLandmarks + 0] = 30.0f;
  p = decode_pose(peaked.landmarks.data(), peaked.heatmap.data(), peaked.world.data(), 0.9f, roi);
  CHECK(p.landmarks[0].x == Approx(400));
  peaked.heatmap[(30 * kPoseHeatmap + 34) * kPoseModelLandmarks + 0] = 30.0f;
  p = decode_pose(peaked.landmarks.data(), peaked.heatmap.data(), peaked.world.data(), 0.9f, roi);
  CHECK(p.landmarks[0].x == Approx(300 + 200 * 34.0f / 64).epsilon(1e-4));
  CHECK(p.landmarks[0].y == Approx(200 + 200 * 30.0f / 64).epsilon(1e-4));
  CHECK(p.landmarks[11].x == Approx(350));  // its own heatmap channel is flat

  // A ROI turned 90 degrees: the world landmarks turn with it (x, y) -> (-y, x).
  const gp::detect::Roi turned{400, 300, 200, kPi / 2};
  p = decode_pose(raw.landmarks.data(), raw.heatmap.data(), raw.world.data(), 0.9f, turned);
  CHECK(p.world[11].x == Approx(0.1f));
  CHECK(p.world[11].y == Approx(0.2f));
  CHECK(p.landmarks[11].x == Approx(400 - 200 * 0.25f));  // tensor (-0.25, +0.25) rotated
  CHECK(p.landmarks[11].y == Approx(300 - 200 * 0.25f));
}

TEST_CASE("pose outputs: the landmark model's five outputs found by size, others refused", "[segment_body]") {
  const PoseOutputs o = pose_outputs({195, 1, 65536, 159744, 117}, "m.tflite");
  CHECK(o.landmarks == 0);
  CHECK(o.flag == 1);
  CHECK(o.segmentation == 2);
  CHECK(o.heatmap == 3);
  CHECK(o.world == 4);
  CHECK(pose_outputs({117, 159744, 65536, 1, 195}, "m").landmarks == 4);
  CHECK_THROWS_AS(pose_outputs({65536, 1}, "selfie.tflite"), gp::UsageError);
}

TEST_CASE("person masks: sigmoid, bilinear, zero outside the ROI, max over people", "[segment_body]") {
  const int S = 4;
  // Person 0: logits +20 (1 after the sigmoid) over its whole 4x4 mask, ROI the frame's left half.
  // Person 1: logits 0 (0.5) over its mask, ROI overlapping person 0's right edge.
  std::vector<float> logits(2 * S * S);
  for (int i = 0; i < S * S; ++i) logits[std::size_t(i)] = 20.0f, logits[std::size_t(S * S + i)] = 0.0f;
  const gp::detect::Roi rois[2] = {{40, 40, 80, 0}, {100, 40, 40, 0}};
  PersonMasks people;
  people.logits = logits.data();
  people.rois = rois;
  people.count = 2;
  people.size = S;
  people.frame_width = 160;
  people.frame_height = 80;
  std::vector<float> canvas(16 * 8, -1.0f);
  const gp::ImageView view{canvas.data(), 16, 8, 1, gp::PixelType::f32, 16 * sizeof(float)};
  paste_person_masks_cpu(people, view);
  auto at = [&](int x, int y) { return canvas[std::size_t(y) * 16 + std::size_t(x)]; };
  // Canvas pixel (x, y) is frame point ((x + 0.5) * 10, (y + 0.5) * 10).
  CHECK(at(3, 4) == Approx(1.0f));     // (35, 45): inside person 0
  CHECK(at(9, 4) == Approx(0.5f));     // (95, 45): inside person 1 only
  CHECK(at(14, 4) == Approx(0.0f));    // (145, 45): nobody
  CHECK(at(0, 0) > 0.2f);              // (5, 5): near person 0's corner texel centre (15, 15):
  CHECK(at(0, 0) < 0.6f);              //   fades to 0 outside (BORDER_ZERO), not replicated
  // A person the landmark model did not confirm has a zero-size ROI: skipped.
  const gp::detect::Roi skipped[2] = {{40, 40, 0, 0}, {100, 40, 40, 0}};
  people.rois = skipped;
  paste_person_masks_cpu(people, view);
  CHECK(at(3, 4) == Approx(0.0f));
  CHECK(at(9, 4) == Approx(0.5f));
  people.count = 0;
  paste_person_masks_cpu(people, view);
  CHECK(at(9, 4) == 0.0f);
}

TEST_CASE("segment-body pose_full on real photos (CPU path): people, landmarks and masks", "[segment_body][pose]") {
  const auto detector = gp::test::find_model("pose_detection.tflite");
  const auto landmarks = gp::test::find_model("pose_landmark_full.tflite");
  const std::filesystem::path messi = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg";
  if (!detector || !landmarks) return;
  if (!std::filesystem::is_regular_file(messi)) {
    WARN("skipped: " << messi.string() << " not found (install opencv-doc)");
    return;
  }
  gp::config::json c = gp::config::json::object();
  c["inputs"] = gp::config::json::array({"x.jpg"});
  gp::config::apply_override(c, "model.variant=pose_full");
  const Settings s = read_settings(schema().validate(c, "test"));
  REQUIRE(s.is_pose());
  CHECK(std::filesystem::path(s.pose.detector_path).filename() == "pose_detection.tflite");
  gp::Runtime rt(gp::RuntimeOptions{gp::DeviceChoice::parse("cpu")});
  MaskProcessor processor(rt, s, 1);
  CHECK(processor.model_width() == s.pose.canvas);

  gp::frames::RgbImage photo = gp::frames::load_rgb_image(messi.string());
  const std::vector<FrameSource> one{
      packed_frame(FrameFormat::rgb, photo.pixels.data(), std::size_t(photo.width) * 3, photo.width, photo.height)};
  std::vector<FrameResult> out;
  processor.run(one, nullptr, FrameWants{}, out);
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].people.size() == 1);  // Messi, alone
  const PersonPose& p = out[0].people[0];
  INFO("score " << p.detection_score << " presence " << p.presence << " nose " << p.landmarks[0].x << ","
                << p.landmarks[0].y << " hips " << p.landmarks[23].x << "," << p.landmarks[23].y << " ankles "
                << p.landmarks[27].y << "," << p.landmarks[28].y);
  CHECK(p.detection_score > 0.5f);
  CHECK(p.presence > 0.9f);
  // Messi's head is at x 155..315, y 25..185 (the face tests); his hips below it, ankles lowest.
  CHECK(p.landmarks[0].x > 155);
  CHECK(p.landmarks[0].x < 315);
  CHECK(p.landmarks[0].y > 25);
  CHECK(p.landmarks[0].y < 185);
  CHECK(p.landmarks[23].y > 185);
  CHECK(p.landmarks[27].y > p.landmarks[23].y);
  // The mask: on the body at the hips and the nose, off in the photo's far corners.
  auto mask_at = [&](float x, float y) {
    return out[0].mask[std::size_t(std::lround(y)) * std::size_t(out[0].width) + std::size_t(std::lround(x))];
  };
  const float hips_x = (p.landmarks[23].x + p.landmarks[24].x) / 2, hips_y = (p.landmarks[23].y + p.landmarks[24].y) / 2;
  CHECK(mask_at(hips_x, hips_y) > 200);
  CHECK(mask_at(p.landmarks[0].x, p.landmarks[0].y) > 200);
  CHECK(mask_at(5, 5) < 20);
  CHECK(mask_at(float(out[0].width - 5), float(out[0].height - 5)) < 20);
  // World landmarks in metres, the hips at the origin.
  CHECK(std::abs(p.world[23].x + p.world[24].x) < 0.1f);
  CHECK(std::abs(p.world[0].y) > 0.3f);  // the nose well above the hips
}

TEST_CASE("pose detector views: the whole frame, then overlapping tiles of half its short side", "[segment_body]") {
  using gp::frames::Rect;
  const auto whole_only = detector_views(768, 576, 0);
  REQUIRE(whole_only.size() == 1);
  CHECK(whole_only[0] == (Rect{0, 0, 768, 576}));
  for (auto [w, h] : {std::pair<int, int>{768, 576}, {1920, 1080}, {1081, 721}, {300, 2000}}) {
    const auto views = detector_views(w, h, 1);
    INFO(w << "x" << h << ": " << views.size() << " views");
    REQUIRE(views.size() > 1);
    CHECK(views[0] == (Rect{0, 0, w, h}));
    const int side = std::max(224, std::min(w, h) / 2) & ~1;
    std::vector<int> covered(std::size_t(w) * h, 0);
    for (std::size_t i = 1; i < views.size(); ++i) {
      const Rect& v = views[i];
      CHECK(v.x % 2 == 0);
      CHECK(v.y % 2 == 0);
      CHECK(v.width >= side);  // the last of a row takes the odd pixel left by even starts
      CHECK(v.width <= side + 1);
      CHECK(v.height >= side);
      CHECK(v.height <= side + 1);
      CHECK(v.x + v.width <= w);
      CHECK(v.y + v.height <= h);
      for (int y = v.y; y < v.y + v.height; ++y)
        for (int x = v.x; x < v.x + v.width; ++x) covered[std::size_t(y) * w + std::size_t(x)] = 1;
    }
    CHECK(std::count(covered.begin(), covered.end(), 0) == 0);  // the tiles cover the frame
  }
  // 768x576: tiles of 288, 4 across and 3 down.
  CHECK(detector_views(768, 576, 1).size() == 1 + 12);
  // Level 2 adds tiles of 144 px: 7 across, 5 down (the last of each reaching the edge).
  const auto two = detector_views(768, 576, 2);
  CHECK(two.size() == 1 + 12 + 7 * 5);
  CHECK(two.back().x + two.back().width == 768);
  CHECK(two.back().y + two.back().height == 576);
  CHECK(two[13].width == 144);
  // A frame whose tiles would not be smaller than the detector's input: the whole frame only.
  CHECK(detector_views(400, 224, 1).size() == 1);
  CHECK(detector_views(400, 300, 1).size() > 1);
}

TEST_CASE("segment-body pose_full finds vtest.avi's three pedestrians and keeps their IDs (CPU path, detector tiles)",
          "[segment_body][pose]") {
  const auto detector = gp::test::find_model("pose_detection.tflite");
  const auto landmarks = gp::test::find_model("pose_landmark_full.tflite");
  const std::filesystem::path video = "/usr/share/doc/opencv-doc/examples/data/vtest.avi";
  if (!detector || !landmarks) return;
  if (!std::filesystem::is_regular_file(video)) {
    WARN("skipped: " << video.string() << " not found (install opencv-doc)");
    return;
  }
  gp::io::VideoReader reader(video.string());
  std::vector<gp::io::VideoFrame> frames(3);
  for (auto& f : frames) REQUIRE(reader.read(f));
  const FrameSource source = gp::frames::video_frame_source(frames[0]);
  gp::config::json c = gp::config::json::object();
  c["inputs"] = gp::config::json::array({"x.avi"});
  gp::config::apply_override(c, "model.variant=pose_full");
  gp::Runtime rt(gp::RuntimeOptions{gp::DeviceChoice::parse("cpu")});
  // The first frame: three people 70-90 px tall in 768x576 (by hand: centres near (270, 265),
  // (515, 195) and (660, 285)).
  const float truth[3][2] = {{270, 265}, {515, 195}, {660, 285}};
  for (bool tiles : {false, true}) {
    gp::config::apply_override(c, std::string("pose.detector_tiles=") + (tiles ? "1" : "0"));
    MaskProcessor processor(rt, read_settings(schema().validate(c, "test")), 1);
    std::vector<FrameResult> out;
    processor.run({source}, nullptr, FrameWants{}, out);
    int found = 0;
    for (const auto& t : truth)
      for (const PersonPose& p : out[0].people)
        if (t[0] >= p.box[0] && t[0] <= p.box[2] && t[1] >= p.box[1] && t[1] <= p.box[3]) {
          ++found;
          break;
        }
    INFO("tiles " << tiles << ": " << out[0].people.size() << " people, " << found << " of the three");
    if (tiles) {
      CHECK(found == 3);
      // Their masks: on each person's hips, not on the grass between them.
      for (const PersonPose& p : out[0].people) {
        const float x = (p.landmarks[23].x + p.landmarks[24].x) / 2, y = (p.landmarks[23].y + p.landmarks[24].y) / 2;
        if (p.presence > 0.9f) CHECK(out[0].mask[std::size_t(std::lround(y)) * 768 + std::size_t(std::lround(x))] > 128);
      }
      CHECK(out[0].mask[std::size_t(450) * 768 + 300] < 20);
      // Three frames as a video: each pedestrian gets an ID once confirmed (the second frame) and
      // keeps it; the three IDs differ.
      auto stream = processor.new_stream();
      std::vector<std::vector<int>> ids(3);
      for (std::size_t f = 0; f < frames.size(); ++f) {
        processor.run({gp::frames::video_frame_source(frames[f])}, stream.get(), FrameWants{}, out, {0.1 * double(f)});
        for (const auto& t : truth) {
          int id = -1;
          for (const PersonPose& p : out[0].people)
            if (t[0] >= p.box[0] - 10 && t[0] <= p.box[2] + 10 && t[1] >= p.box[1] - 10 && t[1] <= p.box[3] + 10) id = p.id;
          ids[f].push_back(id);
        }
      }
      INFO("IDs frame 1: " << ids[1][0] << " " << ids[1][1] << " " << ids[1][2] << "; frame 2: " << ids[2][0] << " "
                           << ids[2][1] << " " << ids[2][2]);
      CHECK(ids[0] == std::vector<int>{0, 0, 0});
      for (int k = 0; k < 3; ++k) {
        CHECK(ids[1][std::size_t(k)] > 0);
        CHECK(ids[2][std::size_t(k)] == ids[1][std::size_t(k)]);
      }
      CHECK(ids[1][0] != ids[1][1]);
      CHECK(ids[1][1] != ids[1][2]);
      CHECK(ids[1][0] != ids[1][2]);
    } else {
      CHECK(found == 0);  // too small for the detector in the whole frame: what the tiles are for
    }
  }
}

TEST_CASE("pose JSON: one object per frame with every person's numbers, rounded", "[segment_body]") {
  PersonPose p;
  p.id = 7;
  p.detection_score = 0.912345f;
  p.presence = 0.99999f;
  p.box[0] = 10.0004f, p.box[1] = 20, p.box[2] = 110.5f, p.box[3] = 220.25f;
  p.roi = {60, 120, 250, 0.1f};
  for (int i = 0; i < kPoseLandmarks; ++i) {
    p.landmarks[std::size_t(i)] = {float(i), 2.0f * i, -0.5f * i, 0.25f, 0.75f};
    p.world[std::size_t(i)] = {0.01f * i, -0.02f * i, 0.123456f};
  }
  const auto j = gp::config::json::parse(pose_frame_json(12, 0.48, {p, PersonPose{}}));
  CHECK(j["frame"] == 12);
  CHECK(j["time_s"].get<double>() == Approx(0.48));
  REQUIRE(j["people"].size() == 2);
  const auto& person = j["people"][0];
  CHECK(person["id"] == 7);
  CHECK(person["detection_score"].get<double>() == 0.9123);
  CHECK(person["box"][0].get<double>() == 10.0);
  CHECK(person["box"][3].get<double>() == 220.25);
  REQUIRE(person["landmarks"].size() == 33);
  REQUIRE(person["landmarks"][32].size() == 5);
  CHECK(person["landmarks"][32][1].get<double>() == 64.0);
  CHECK(person["landmarks"][32][2].get<double>() == -16.0);
  CHECK(person["landmarks"][32][4].get<double>() == 0.75);
  REQUIRE(person["world_landmarks"].size() == 33);
  CHECK(person["world_landmarks"][5][2].get<double>() == 0.1235);  // a tenth of a millimetre
  CHECK(person["roi"]["size"].get<double>() == 250.0);
  // Images: no time.
  CHECK_FALSE(gp::config::json::parse(pose_frame_json(0, -1.0, {})).contains("time_s"));
}

TEST_CASE("pose preview: background dimmed by the mask, visible limbs drawn in the track's colour", "[segment_body]") {
  const int w = 120, h = 100;
  std::vector<std::uint8_t> rgba(std::size_t(w) * h * 4), rgb(std::size_t(w) * h * 3, 0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      std::uint8_t* p = &rgba[(std::size_t(y) * w + std::size_t(x)) * 4];
      p[0] = p[1] = p[2] = 200;
      p[3] = x < 60 ? 255 : 0;  // the "person" on the left half
    }
  PersonPose p;
  p.id = 2;
  for (auto& l : p.landmarks) l = {0, 0, 0, 0.0f, 1.0f};  // hidden
  p.landmarks[11] = {20, 20, 0, 0.9f, 0.9f};  // left shoulder -> left elbow (11-13), visible
  p.landmarks[13] = {20, 80, 0, 0.9f, 0.9f};
  p.landmarks[12] = {100, 20, 0, 0.9f, 0.9f};  // right shoulder visible, right elbow hidden: no line
  p.landmarks[14] = {100, 80, 0, 0.2f, 0.9f};
  p.box[0] = 20, p.box[1] = 20, p.box[2] = 100, p.box[3] = 80;
  pose_preview(gp::ImageView{rgba.data(), w, h, 4, gp::PixelType::u8, std::size_t(w) * 4}, {p},
               gp::ImageView{rgb.data(), w, h, 3, gp::PixelType::u8, std::size_t(w) * 3});
  auto at = [&](int x, int y) {
    const std::uint8_t* q = &rgb[(std::size_t(y) * w + std::size_t(x)) * 3];
    return gp::frames::Rgb{q[0], q[1], q[2]};
  };
  const gp::frames::Rgb colour = gp::frames::track_colour(2);
  CHECK(at(20, 50) == colour);                             // on the 11-13 limb
  CHECK(at(100, 50) == (gp::frames::Rgb{80, 80, 80}));     // no 12-14 limb: dimmed background (200 x 0.4)
  CHECK(at(40, 50) == (gp::frames::Rgb{200, 200, 200}));  // the person's pixels at full brightness
  CHECK(at(100, 20) == gp::frames::tint(colour));          // the visible right shoulder's joint
  CHECK(at(100, 80) == (gp::frames::Rgb{80, 80, 80}));     // the hidden elbow: nothing
}

TEST_CASE("segment-body pose streaming mode follows people with the ROIs of their landmarks (MediaPipe's video mode)",
          "[segment_body][pose]") {
  const auto detector = gp::test::find_model("pose_detection.tflite");
  const auto landmarks = gp::test::find_model("pose_landmark_full.tflite");
  const std::filesystem::path video = "/usr/share/doc/opencv-doc/examples/data/vtest.avi";
  if (!detector || !landmarks || !std::filesystem::is_regular_file(video)) return;
  gp::io::VideoReader reader(video.string());
  std::vector<gp::io::VideoFrame> frames(2);
  for (auto& f : frames) REQUIRE(reader.read(f));
  gp::config::json c = gp::config::json::object();
  c["inputs"] = gp::config::json::array({"x.avi"});
  gp::config::apply_override(c, "model.variant=pose_full");
  gp::config::apply_override(c, "run.mode=streaming");
  gp::Runtime rt(gp::RuntimeOptions{gp::DeviceChoice::parse("cpu")});
  MaskProcessor processor(rt, read_settings(schema().validate(c, "test")), 1);
  auto stream = processor.new_stream();
  std::vector<FrameResult> first, second;
  processor.run({gp::frames::video_frame_source(frames[0])}, stream.get(), FrameWants{}, first, {0.0});
  processor.run({gp::frames::video_frame_source(frames[1])}, stream.get(), FrameWants{}, second, {0.1});
  REQUIRE(first[0].people.size() >= 3);
  // Each of the first frame's people is looked for in the next frame in the ROI of their auxiliary
  // landmarks, keeping their detection score.
  int followed = 0;
  for (const PersonPose& p : first[0].people) {
    const gp::detect::Roi expected = pose_roi_from_landmarks(p);
    for (const PersonPose& q : second[0].people)
      if (q.roi.cx == expected.cx && q.roi.cy == expected.cy && q.roi.size == expected.size &&
          q.detection_score == p.detection_score)
        ++followed;
  }
  INFO(first[0].people.size() << " people in frame 0, " << second[0].people.size() << " in frame 1");
  CHECK(followed >= 3);
}
