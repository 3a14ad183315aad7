// CpuEngine on the real MediaPipe models: shapes at batch 1 and 3, batch items equal to their
// batch-1 runs, outputs in range, the memory planner (no live tensors share bytes, same results
// with and without reuse), unsupported operators, and face detection on a real photograph.
#include <catch2/catch.hpp>

#include <OpenImageIO/imagebuf.h>
#include <OpenImageIO/imagebufalgo.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "infer/cpu_engine.hpp"
#include "infer/model_files.hpp"

using namespace gp::infer;
using Catch::Matchers::Contains;

namespace {

// One deterministic image (the shape's batch dimension is ignored) in [-1, 1] (MediaPipe's
// input range), different for each `seed`.
std::vector<float> synthetic_image(const Shape& shape, int seed) {
  const Nhwc s = Nhwc::of(shape);
  std::vector<float> out(static_cast<std::size_t>(s.h) * s.w * s.c);
  std::size_t i = 0;
  for (int y = 0; y < s.h; ++y)
    for (int x = 0; x < s.w; ++x)
      for (int c = 0; c < s.c; ++c) {
        const double u = double(x) / s.w, v = double(y) / s.h;
        out[i++] = static_cast<float>(std::sin(6.0 * u * (c + 1) + 4.0 * v + seed) *
                                      std::cos(5.0 * v - 3.0 * u * seed + 0.5 * c));
      }
  return out;
}

Shape with_batch(Shape shape, int batch) {
  shape[0] = batch;
  return shape;
}

struct ModelCase {
  const char* file;
  float low, high;  // every output value in [low, high]; +-inf: only finite
};

const std::vector<ModelCase>& model_cases() {
  static const std::vector<ModelCase> cases{
      {"selfie_segmentation.tflite", 0.0f, 1.0f},
      {"selfie_segmentation_landscape.tflite", 0.0f, 1.0f},
      {"face_detection_short_range.tflite", -INFINITY, INFINITY},
      {"face_detection_full_range.tflite", -INFINITY, INFINITY},
      {"face_landmark.tflite", -INFINITY, INFINITY},
  };
  return cases;
}

}  // namespace

TEST_CASE("CpuEngine runs the MediaPipe models at batch 1 and 3; batch items match batch 1", "[infer]") {
  for (const ModelCase& m : model_cases()) {
    const auto path = gp::test::find_model(m.file);
    if (!path) continue;
    INFO(m.file);
    const Model model = Model::load(*path);
    CpuEngine one(model, 1);
    CpuEngine three(model, 3);
    REQUIRE(one.input_shapes().size() == 1);
    REQUIRE(one.input_shapes()[0] == model.tensor(model.inputs()[0]).shape);
    REQUIRE(three.input_shapes()[0] == with_batch(model.tensor(model.inputs()[0]).shape, 3));
    for (std::size_t o = 0; o < model.outputs().size(); ++o) {
      CHECK(one.output_shapes()[o] == model.tensor(model.outputs()[o]).shape);
      CHECK(three.output_shapes()[o] == with_batch(model.tensor(model.outputs()[o]).shape, 3));
    }

    const Shape image_shape = one.input_shapes()[0];
    const std::size_t image_size = static_cast<std::size_t>(element_count(image_shape));
    std::vector<float> batch_input;
    std::vector<std::vector<std::vector<float>>> singles;
    for (int item = 0; item < 3; ++item) {
      const auto image = synthetic_image(image_shape, item);
      batch_input.insert(batch_input.end(), image.begin(), image.end());
      singles.push_back(one.run({image}));
    }
    REQUIRE(batch_input.size() == 3 * image_size);
    const auto batched = three.run({batch_input});
    for (std::size_t o = 0; o < singles[0].size(); ++o) {
      INFO("output " << o);
      const std::size_t per_item = singles[0][o].size();
      REQUIRE(batched[o].size() == 3 * per_item);
      for (int item = 0; item < 3; ++item) {
        INFO("item " << item);
        const auto& single = singles[static_cast<std::size_t>(item)][o];
        // Same operators, same order per element: bit-identical.
        CHECK(std::equal(single.begin(), single.end(), batched[o].begin() + static_cast<long>(item * per_item)));
        for (const float v : single) {
          REQUIRE(std::isfinite(v));
          REQUIRE(v >= m.low);
          REQUIRE(v <= m.high);
        }
      }
      // Different images give different outputs (the input reaches the output).
      CHECK(singles[0][o] != singles[1][o]);
    }
  }
}

TEST_CASE("CpuEngine memory plan: live tensors never share bytes; reuse changes no result", "[infer]") {
  for (const char* file : {"selfie_segmentation.tflite", "face_detection_full_range.tflite", "face_landmark.tflite"}) {
    const auto path = gp::test::find_model(file);
    if (!path) continue;
    INFO(file);
    const Model model = Model::load(*path);
    for (const int batch : {1, 2}) {
      INFO("batch " << batch);
      CpuEngine planned(model, batch, true);
      CpuEngine separate(model, batch, false);
      const MemoryPlan& plan = planned.memory_plan();
      CHECK(separate.memory_plan().arena_bytes == separate.memory_plan().naive_bytes);
      CHECK(plan.naive_bytes == separate.memory_plan().naive_bytes);
      CHECK(plan.arena_bytes < plan.naive_bytes / 3);

      // Lifetimes [first step, last step] from the graph, independent of the planner.
      const GraphShapes graph = infer_shapes(model, batch);
      const int steps = static_cast<int>(graph.run_operators.size());
      std::vector<int> first(model.tensors().size(), -2), last(model.tensors().size(), -2);
      for (const int t : model.inputs()) first[static_cast<std::size_t>(t)] = last[static_cast<std::size_t>(t)] = -1;
      for (int s = 0; s < steps; ++s) {
        const Operator& op = model.operators()[static_cast<std::size_t>(graph.run_operators[s])];
        for (const int t : op.inputs)
          if (t >= 0) last[static_cast<std::size_t>(t)] = s;
        for (const int t : op.outputs) first[static_cast<std::size_t>(t)] = last[static_cast<std::size_t>(t)] = s;
      }
      for (const int t : model.outputs()) last[static_cast<std::size_t>(t)] = steps;
      std::vector<int> placed;
      for (std::size_t t = 0; t < model.tensors().size(); ++t) {
        if (plan.offsets[t] >= 0) {
          placed.push_back(static_cast<int>(t));
          REQUIRE(plan.offsets[t] % static_cast<std::int64_t>(MemoryPlan::kAlignment) == 0);
          REQUIRE(plan.offsets[t] + static_cast<std::int64_t>(plan.bytes[t]) <= static_cast<std::int64_t>(plan.arena_bytes));
          REQUIRE(plan.bytes[t] == element_count(planned.shape(static_cast<int>(t))) * sizeof(float));
        } else {
          REQUIRE((graph.constant[t] || first[t] == -2));  // constants and tensors nothing computes
        }
      }
      for (const int t : model.inputs()) REQUIRE(plan.offsets[static_cast<std::size_t>(t)] >= 0);
      for (std::size_t i = 0; i < placed.size(); ++i) {
        for (std::size_t j = i + 1; j < placed.size(); ++j) {
          const auto a = static_cast<std::size_t>(placed[i]), b = static_cast<std::size_t>(placed[j]);
          const bool live_together = first[a] <= last[b] && first[b] <= last[a];
          const bool share_bytes = plan.offsets[a] < plan.offsets[b] + static_cast<std::int64_t>(plan.bytes[b]) &&
                                   plan.offsets[b] < plan.offsets[a] + static_cast<std::int64_t>(plan.bytes[a]);
          if (live_together && share_bytes) FAIL("tensors " << a << " and " << b << " are live together and overlap");
        }
      }

      std::vector<float> input;
      for (int item = 0; item < batch; ++item) {
        const auto image = synthetic_image(planned.input_shapes()[0], item + 5);
        input.insert(input.end(), image.begin(), image.end());
      }
      const auto a = planned.run({input});
      const auto b = separate.run({input});
      CHECK(a == b);
      CHECK(planned.run({input}) == a);  // a second run over the reused arena gives the same
    }
  }
}

TEST_CASE("CpuEngine errors: unsupported operators, batch range, input sizes", "[infer]") {
  const auto path = gp::test::find_model("face_detection_short_range.tflite");
  if (!path) return;
  const Model model = Model::load(*path);
  CHECK_THROWS_WITH(CpuEngine(model, 0), Contains("batch 0 is outside 1..64"));
  CHECK_THROWS_WITH(CpuEngine(model, 65), Contains("batch 65"));
  CpuEngine engine(model, 64);
  CHECK(engine.input_shapes()[0] == Shape{64, 128, 128, 3});
  CpuEngine one(model, 1);
  CHECK(one.operator_count() < model.operators().size());  // the DEQUANTIZEs were folded
  CHECK_THROWS_WITH(one.run({std::vector<float>(10)}), Contains("input 0 has 10 values, expected 49152"));
  CHECK_THROWS_WITH(one.run({}), Contains("0 inputs given"));
}

namespace {

// MediaPipe's face detector input: RGB scaled to [-1, 1], NHWC.
std::vector<float> face_input(const OIIO::ImageBuf& image, OIIO::ROI square, int size = 128) {
  const OIIO::ImageBuf crop = OIIO::ImageBufAlgo::cut(image, square);
  const OIIO::ROI target(0, size, 0, size, 0, 1, 0, 3);
  const OIIO::ImageBuf small = OIIO::ImageBufAlgo::resize(crop, "", 0, target);
  std::vector<float> pixels(std::size_t(size) * size * 3);
  REQUIRE(small.get_pixels(target, OIIO::TypeDesc::FLOAT, pixels.data()));
  for (float& v : pixels) v = v * 2 - 1;
  return pixels;
}

struct BestAnchor {
  int index = 0;
  float score = 0;  // sigmoid of the classificator
};

BestAnchor best_anchor(const std::vector<float>& classificators) {
  const auto it = std::max_element(classificators.begin(), classificators.end());
  return {static_cast<int>(it - classificators.begin()), 1 / (1 + std::exp(-*it))};
}

}  // namespace

TEST_CASE("face_detection_short_range finds the face in OpenCV's messi5.jpg, not in blank images", "[infer]") {
  const auto path = gp::test::find_model("face_detection_short_range.tflite");
  if (!path) return;
  // Debian's opencv-doc (scripts/debian-packages.txt).
  const std::filesystem::path photo = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg";
  if (!std::filesystem::is_regular_file(photo)) {
    WARN("skipped: " << photo.string() << " not found (install opencv-doc)");
    return;
  }
  CpuEngine engine(Model::load(*path), 1);
  REQUIRE(engine.output_shapes()[1] == Shape{1, 896, 1});
  const OIIO::ImageBuf image(photo.string());
  REQUIRE(image.spec().width == 548);

  // A 160x160 square around the player's head (x 155..315, y 25..185).
  const auto outputs = engine.run({face_input(image, OIIO::ROI(155, 315, 25, 185))});
  const BestAnchor best = best_anchor(outputs[1]);
  CHECK(best.score > 0.5f);
  // The anchor grid: 16x16 cells of 2 anchors, then 8x8 cells of 6 anchors, on 128x128 pixels;
  // the box centre is the anchor centre plus the first two regressors (pixels).
  REQUIRE(best.index < 512);  // a face of ~40 pixels is found on the finer grid
  const int cell = best.index / 2;
  const float cx = (cell % 16 + 0.5f) * 8 + outputs[0][static_cast<std::size_t>(best.index) * 16];
  const float cy = (cell / 16 + 0.5f) * 8 + outputs[0][static_cast<std::size_t>(best.index) * 16 + 1];
  const float size = outputs[0][static_cast<std::size_t>(best.index) * 16 + 2];
  INFO("score " << best.score << " centre " << cx << "," << cy << " size " << size);
  CHECK(std::abs(cx - 64) < 24);
  CHECK(std::abs(cy - 64) < 24);
  CHECK(size > 15);
  CHECK(size < 80);

  for (const float level : {-1.0f, 0.0f, 1.0f}) {
    INFO("blank image at " << level);
    const auto blank = engine.run({std::vector<float>(128 * 128 * 3, level)});
    CHECK(best_anchor(blank[1]).score < 0.2f);
  }
}

TEST_CASE("the sparse full-range face detector (DENSIFY, DEPTH_TO_SPACE) finds the face the dense one finds",
          "[infer]") {
  const auto sparse_path = gp::test::find_model("face_detection_full_range_sparse.tflite");
  const auto dense_path = gp::test::find_model("face_detection_full_range.tflite");
  const std::filesystem::path photo = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg";
  if (!sparse_path || !dense_path) return;
  if (!std::filesystem::is_regular_file(photo)) {
    WARN("skipped: " << photo.string() << " not found (install opencv-doc)");
    return;
  }
  const Model sparse_model = Model::load(*sparse_path);
  int densified = 0;
  for (const Operator& op : sparse_model.operators()) densified += op.is(BuiltinOp::densify);
  REQUIRE(densified > 0);
  CpuEngine sparse(sparse_model, 1), dense(Model::load(*dense_path), 1);
  REQUIRE(sparse.output_shapes() == dense.output_shapes());
  REQUIRE(sparse.operator_count() < sparse_model.operators().size() - std::size_t(densified));  // folded at load
  // The whole photo squeezed into 192x192 (the full-range model sees far and small faces).
  const OIIO::ImageBuf image(photo.string());
  const auto input = face_input(image, OIIO::ROI(0, 548, 0, 342), 192);
  const auto s = sparse.run({input}), d = dense.run({input});
  const BestAnchor bs = best_anchor(s[1]), bd = best_anchor(d[1]);
  auto centre = [](const std::vector<float>& boxes, int anchor) {
    // 48x48 cells of one anchor each on 192x192 pixels (the full-range model's single grid).
    const float cx = (anchor % 48 + 0.5f) * 4 + boxes[std::size_t(anchor) * 16];
    const float cy = (anchor / 48 + 0.5f) * 4 + boxes[std::size_t(anchor) * 16 + 1];
    return std::pair<float, float>{cx, cy};
  };
  const auto [sx, sy] = centre(s[0], bs.index);
  const auto [dx, dy] = centre(d[0], bd.index);
  INFO("sparse score " << bs.score << " at " << sx << "," << sy << "; dense score " << bd.score << " at " << dx << ","
                       << dy);
  CHECK(bd.score > 0.5f);
  CHECK(bs.score > 0.5f);
  CHECK(std::abs(sx - dx) < 4);
  CHECK(std::abs(sy - dy) < 4);
  // Every weight of the sparse model was expanded: a blank image finds no face.
  CHECK(best_anchor(sparse.run({std::vector<float>(input.size(), 0.0f)})[1]).score < 0.2f);
}

namespace {

// The whole image letterboxed into size x size (MediaPipe's pose detector input: aspect kept,
// zero border), values mapped from [0, 1] to [low, high]. Returns the pixels and the scale and
// offsets that map input pixels back to the image.
struct Letterboxed {
  std::vector<float> pixels;
  float scale = 1, x0 = 0, y0 = 0;  // image = (input - offset) / scale
};
Letterboxed letterbox_input(const OIIO::ImageBuf& image, int size, float low, float high) {
  const int w = image.spec().width, h = image.spec().height;
  Letterboxed out;
  out.scale = float(size) / float(std::max(w, h));
  const int fw = int(std::lround(w * out.scale)), fh = int(std::lround(h * out.scale));
  out.x0 = float(size - fw) / 2, out.y0 = float(size - fh) / 2;
  const OIIO::ImageBuf fitted = OIIO::ImageBufAlgo::resize(image, "", 0, OIIO::ROI(0, fw, 0, fh, 0, 1, 0, 3));
  std::vector<float> rgb(std::size_t(fw) * fh * 3);
  REQUIRE(fitted.get_pixels(OIIO::ROI(0, fw, 0, fh, 0, 1, 0, 3), OIIO::TypeDesc::FLOAT, rgb.data()));
  out.pixels.assign(std::size_t(size) * size * 3, low);  // the border is black
  const int ox = int(out.x0), oy = int(out.y0);
  for (int y = 0; y < fh; ++y)
    for (int x = 0; x < fw; ++x)
      for (int c = 0; c < 3; ++c)
        out.pixels[(std::size_t(y + oy) * size + std::size_t(x + ox)) * 3 + std::size_t(c)] =
            low + (high - low) * rgb[(std::size_t(y) * fw + std::size_t(x)) * 3 + std::size_t(c)];
  out.x0 = float(ox), out.y0 = float(oy);
  return out;
}

// The centre of BlazePose detector anchor `a` (SSD anchors on 224x224: 28x28 cells of 2, 14x14 of
// 2, 7x7 of 6), in input pixels.
std::pair<float, float> pose_anchor_centre(int a) {
  if (a < 1568) return {(a / 2 % 28 + 0.5f) * 8, (a / 2 / 28 + 0.5f) * 8};
  a -= 1568;
  if (a < 392) return {(a / 2 % 14 + 0.5f) * 16, (a / 2 / 14 + 0.5f) * 16};
  a -= 392;
  return {(a / 6 % 7 + 0.5f) * 32, (a / 6 / 7 + 0.5f) * 32};
}

}  // namespace

TEST_CASE("BlazePose: the person detector and the landmark model on a real photo", "[infer]") {
  const auto detector_path = gp::test::find_model("pose_detection.tflite");
  const auto landmark_path = gp::test::find_model("pose_landmark_lite.tflite");
  const std::filesystem::path photo = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg";
  if (!detector_path || !landmark_path) return;
  if (!std::filesystem::is_regular_file(photo)) {
    WARN("skipped: " << photo.string() << " not found (install opencv-doc)");
    return;
  }
  const OIIO::ImageBuf image(photo.string());
  // The person detector (DENSIFY and DEPTH_TO_SPACE among its operators): the photo letterboxed to
  // 224x224 in [-1, 1]; 2254 anchors of 12 values (box centre, size, four keypoints) and a score.
  const Model detector_model = Model::load(*detector_path);
  std::set<std::string> ops;
  for (const Operator& op : detector_model.operators()) ops.insert(op.name());
  CHECK(ops.count("DENSIFY") == 1);
  CHECK(ops.count("DEPTH_TO_SPACE") == 1);
  CpuEngine detector(detector_model, 1);
  REQUIRE(detector.input_shapes()[0] == Shape{1, 224, 224, 3});
  const Letterboxed in = letterbox_input(image, 224, -1, 1);
  const auto out = detector.run({in.pixels});
  REQUIRE(out.size() == 2);
  REQUIRE(out[0].size() == 2254 * 12);
  REQUIRE(out[1].size() == 2254);
  const auto& boxes = out[0];
  const int best = int(std::max_element(out[1].begin(), out[1].end()) - out[1].begin());
  const float score = 1 / (1 + std::exp(-out[1][std::size_t(best)]));
  const auto [ax, ay] = pose_anchor_centre(best);
  auto image_x = [&](float input_x) { return (input_x - in.x0) / in.scale; };
  auto image_y = [&](float input_y) { return (input_y - in.y0) / in.scale; };
  const float* v = &boxes[std::size_t(best) * 12];
  const float cx = image_x(ax + v[0]), cy = image_y(ay + v[1]), box = v[2] / in.scale;
  const float hip_x = image_x(ax + v[4]), hip_y = image_y(ay + v[5]);  // keypoint 0: mid-hip centre
  const float reach_x = image_x(ax + v[6]), reach_y = image_y(ay + v[7]);  // keypoint 1: body size and rotation
  INFO("score " << score << " box centre " << cx << "," << cy << " size " << box << " hips " << hip_x << "," << hip_y
                << " reach " << reach_x << "," << reach_y);
  CHECK(score > 0.9f);
  // The detector's box is the face's (Messi's head, x 155..315, y 25..185 in the face test).
  CHECK(std::abs(cx - 235) < 40);
  CHECK(std::abs(cy - 110) < 40);
  CHECK(box > 50);
  CHECK(box < 200);
  // The hips below the head.
  CHECK(hip_y > cy + 50);

  // The landmark model on MediaPipe's ROI: a square around the hips of 2.5 times the hip-to-reach
  // distance (upright here, so unrotated), 256x256 in [0, 1].
  const float side = 2.5f * std::hypot(reach_x - hip_x, reach_y - hip_y);
  INFO("roi side " << side);
  REQUIRE(side > 100);
  const int x0 = int(std::lround(hip_x - side / 2)), y0 = int(std::lround(hip_y - side / 2)), s = int(std::lround(side));
  const OIIO::ImageBuf roi = OIIO::ImageBufAlgo::cut(image, OIIO::ROI(x0, x0 + s, y0, y0 + s, 0, 1, 0, 3));
  const OIIO::ImageBuf crop = OIIO::ImageBufAlgo::resize(roi, "", 0, OIIO::ROI(0, 256, 0, 256, 0, 1, 0, 3));
  std::vector<float> pixels(256 * 256 * 3);
  REQUIRE(crop.get_pixels(OIIO::ROI(0, 256, 0, 256, 0, 1, 0, 3), OIIO::TypeDesc::FLOAT, pixels.data()));
  CpuEngine landmarks(Model::load(*landmark_path), 1);
  const auto lm = landmarks.run({pixels});
  REQUIRE(lm[0].size() == 195);  // 39 landmarks (33 and 6 auxiliary) x (x, y, z, visibility, presence)
  REQUIRE(lm[1].size() == 1);
  REQUIRE(lm[2].size() == 256 * 256);
  const float pose_flag = lm[1][0];
  auto landmark = [&](int i) {  // in image pixels
    return std::pair<float, float>{x0 + lm[0][std::size_t(i) * 5] * side / 256, y0 + lm[0][std::size_t(i) * 5 + 1] * side / 256};
  };
  const auto [nose_x, nose_y] = landmark(0);
  const auto [left_hip_x, left_hip_y] = landmark(23);
  const auto [right_hip_x, right_hip_y] = landmark(24);
  INFO("pose flag " << pose_flag << " nose " << nose_x << "," << nose_y << " hips " << left_hip_x << ","
                    << left_hip_y << " / " << right_hip_x << "," << right_hip_y);
  CHECK(pose_flag > 0.5f);
  // The nose inside the detector's face box, the hips near its hip keypoint.
  CHECK(std::abs(nose_x - cx) < box / 2);
  CHECK(std::abs(nose_y - cy) < box / 2);
  CHECK(std::abs((left_hip_x + right_hip_x) / 2 - hip_x) < side / 8);
  CHECK(std::abs((left_hip_y + right_hip_y) / 2 - hip_y) < side / 8);
  // The segmentation mask (logits) covers the person at the hips and not the ROI's corner.
  auto mask_at = [&](float x, float y) {
    const int mx = std::clamp(int((x - x0) * 256 / side), 0, 255), my = std::clamp(int((y - y0) * 256 / side), 0, 255);
    return lm[2][std::size_t(my) * 256 + std::size_t(mx)];
  };
  CHECK(mask_at(hip_x, hip_y) > 0);
}
