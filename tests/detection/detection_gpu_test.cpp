// Face decoding + weighted NMS on the GPU against the CPU reference (decode_detections_cpu: the code
// behind decode_detections / weighted_non_max_suppression, checked bit for bit against them
// in detection_records_test.cpp). Scenes (detection_scene.hpp): faces seen by clusters of
// overlapping boxes with exactly tied scores, many low scores around the threshold, negative- and
// zero-size boxes, a frame with nothing above the threshold, one with every box above it; short-
// and full-range anchors, batches of 1 and 64, output limits. Counts and scores must be equal,
// boxes and keypoints within 1e-5; the output starts as NaN, so a record the kernel skips fails.
// The time of a 64-frame short-range batch is printed (WARN), not checked.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "cuda/detection/detection_gpu.hpp"
#include "support/device_frames.hpp"
#include "detection/detection_scene.hpp"

using namespace gp::detect;
using gp::test::FaceModel;
using gp::test::FrameKind;

namespace {

class DetectionGpu : public gp::test::DeviceFrameBench {
 public:
  DetectionGpu() : DeviceFrameBench("track_faces detection test") {}
  void fill_nan(void* d, std::size_t bytes) { raw_stream().memset(d, 0xff, bytes); }
};

const char* model_name(FaceModel m) { return m == FaceModel::short_range ? "short range" : "full range"; }

std::vector<float4> to_float4(const std::vector<Anchor>& anchors) {
  std::vector<float4> out;
  for (const Anchor& a : anchors) out.push_back(float4{a.x_center, a.y_center, a.w, a.h});
  return out;
}

std::vector<FrameKind> batch_frames(int batch) {
  std::vector<FrameKind> frames(std::size_t(batch), FrameKind::faces);
  if (batch >= 8) {
    frames[3] = FrameKind::none_above;
    frames[5] = FrameKind::all_above;
  }
  return frames;
}

struct Case {
  FaceModel model;
  std::vector<FrameKind> frames;
  int max_out;
  int max_num_detections;
  unsigned seed;
};

// Runs GPU and CPU on one batch; returns the total number of detections compared.
int compare(DetectionGpu& gpu, const Case& c) {
  const int batch = int(c.frames.size());
  const gp::test::RawBatch raw = gp::test::make_raw_batch(c.model, c.frames, c.seed);
  const std::vector<Anchor> anchors = gp::test::face_anchors(c.model);
  const DecodeOptions o = gp::test::face_decode_options(c.model);
  NmsOptions nms;
  nms.max_num_detections = c.max_num_detections;
  const std::size_t record_floats = std::size_t(batch) * c.max_out * kDetectionFloats;

  std::vector<float> cpu(record_floats, 0.0f);
  std::vector<int> cpu_counts(std::size_t(batch), -1);
  decode_detections_cpu(raw.boxes.data(), raw.scores.data(), anchors, batch, o, nms, c.max_out, cpu.data(),
                   cpu_counts.data());

  const float* d_boxes = gpu.upload_vector(raw.boxes);
  const float* d_scores = gpu.upload_vector(raw.scores);
  const float4* d_anchors = gpu.upload_vector(to_float4(anchors));
  const std::size_t scratch_bytes = detection_scratch_bytes(batch, o.num_boxes);
  void* scratch = gpu.alloc(scratch_bytes);
  gpu.fill_nan(scratch, scratch_bytes);  // scratch content must not matter
  auto* d_records = static_cast<float*>(gpu.alloc(record_floats * sizeof(float)));
  auto* d_counts = static_cast<int*>(gpu.alloc(std::size_t(batch) * sizeof(int)));
  gpu.fill_nan(d_records, record_floats * sizeof(float));
  gpu.fill_nan(d_counts, std::size_t(batch) * sizeof(int));
  decode_detections_gpu(d_boxes, d_scores, d_anchors, batch, o, nms, c.max_out, scratch, scratch_bytes, d_records,
                   d_counts, gpu.stream());
  const std::vector<float> out = gpu.download_vector<float>(d_records, record_floats);
  const std::vector<int> counts = gpu.download_vector<int>(d_counts, std::size_t(batch));

  int compared = 0;
  double worst = 0;
  for (int f = 0; f < batch; ++f) {
    INFO(model_name(c.model) << ", batch " << batch << ", frame " << f << ", max_out " << c.max_out
                             << ", max_num_detections " << c.max_num_detections);
    REQUIRE(counts[std::size_t(f)] == cpu_counts[std::size_t(f)]);
    for (int i = 0; i < counts[std::size_t(f)]; ++i) {
      const std::size_t at = (std::size_t(f) * c.max_out + std::size_t(i)) * kDetectionFloats;
      INFO("detection " << i);
      CHECK(out[at + 4] == cpu[at + 4]);  // score: exact
      for (int v = 0; v < kDetectionFloats; ++v) {
        const double d = std::fabs(double(out[at + v]) - double(cpu[at + v]));
        CHECK(d <= 1e-5);  // NaN fails
        if (d > worst) worst = d;
      }
      ++compared;
    }
  }
  INFO("worst box/keypoint difference " << worst);
  CHECK(worst <= 1e-5);
  return compared;
}

}  // namespace

TEST_CASE("detect_faces GPU = CPU: short and full range, batches of 1 and 64, special frames",
          "[detection][gpu]") {
  DetectionGpu gpu;
  for (FaceModel model : {FaceModel::short_range, FaceModel::full_range}) {
    int compared = 0;
    compared += compare(gpu, {model, batch_frames(1), 100, -1, 11});
    compared += compare(gpu, {model, batch_frames(64), 100, -1, 12});
    // The all-above frame alone: every anchor a candidate, the largest sort and NMS.
    compared += compare(gpu, {model, {FrameKind::all_above}, 3000, -1, 13});
    INFO(model_name(model));
    CHECK(compared > 64);
  }
}

TEST_CASE("detect_faces GPU: output limits (max_out, max_num_detections) keep the CPU's first detections",
          "[detection][gpu]") {
  DetectionGpu gpu;
  compare(gpu, {FaceModel::short_range, batch_frames(16), 2, -1, 21});
  compare(gpu, {FaceModel::full_range, batch_frames(16), 50, 3, 22});
  compare(gpu, {FaceModel::short_range, batch_frames(16), 50, 0, 23});  // nothing asked for
}

TEST_CASE("detect_faces GPU: argument checks, empty batch, 64 short-range frames timed", "[detection][gpu]") {
  DetectionGpu gpu;
  const DecodeOptions o = gp::test::face_decode_options(FaceModel::short_range);
  const NmsOptions nms;
  CHECK_NOTHROW(decode_detections_gpu(nullptr, nullptr, nullptr, 0, o, nms, 10, nullptr, 0, nullptr, nullptr, gpu.stream()));

  const int batch = 64, max_out = 100;
  std::vector<FrameKind> frames(batch, FrameKind::faces);
  const gp::test::RawBatch raw = gp::test::make_raw_batch(FaceModel::short_range, frames, 31);
  const float* d_boxes = gpu.upload_vector(raw.boxes);
  const float* d_scores = gpu.upload_vector(raw.scores);
  const float4* d_anchors = gpu.upload_vector(to_float4(gp::test::face_anchors(FaceModel::short_range)));
  const std::size_t scratch_bytes = detection_scratch_bytes(batch, o.num_boxes);
  void* scratch = gpu.alloc(scratch_bytes);
  auto* d_records = static_cast<float*>(gpu.alloc(std::size_t(batch) * max_out * kDetectionFloats * sizeof(float)));
  auto* d_counts = static_cast<int*>(gpu.alloc(batch * sizeof(int)));

  CHECK_THROWS(decode_detections_gpu(d_boxes, d_scores, d_anchors, batch, o, nms, max_out, scratch, scratch_bytes - 1,
                                d_records, d_counts, gpu.stream()));
  DecodeOptions too_many = o;
  too_many.num_boxes = kMaxDetectionBoxes + 1;
  CHECK_THROWS(decode_detections_gpu(d_boxes, d_scores, d_anchors, batch, too_many, nms, max_out, scratch, scratch_bytes,
                                d_records, d_counts, gpu.stream()));
  CHECK_THROWS(decode_detections_gpu(d_boxes, d_scores, d_anchors, batch, o, nms, 0, scratch, scratch_bytes, d_records,
                                d_counts, gpu.stream()));

  const double ms = gpu.best_ms([&] {
    decode_detections_gpu(d_boxes, d_scores, d_anchors, batch, o, nms, max_out, scratch, scratch_bytes, d_records, d_counts,
                     gpu.stream());
  });
  const std::vector<int> counts = gpu.download_vector<int>(d_counts, batch);
  int total = 0;
  for (int n : counts) total += n;
  CHECK(total >= batch);  // every frame has at least one face
  // The CPU path on the same batch, for scale.
  const std::vector<Anchor> anchors = gp::test::face_anchors(FaceModel::short_range);
  std::vector<float> cpu(std::size_t(batch) * max_out * kDetectionFloats);
  std::vector<int> cpu_counts(batch);
  double cpu_ms = 1e30;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    decode_detections_cpu(raw.boxes.data(), raw.scores.data(), anchors, batch, o, nms, max_out, cpu.data(), cpu_counts.data());
    cpu_ms = std::min(cpu_ms, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  CHECK(counts == cpu_counts);
  WARN("decode_detections_gpu: 64 short-range frames (896 boxes), " << total << " detections, best of 5: " << ms
                                                               << " ms (wall incl. launch); CPU reference " << cpu_ms
                                                               << " ms");
}
