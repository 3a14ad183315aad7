// FaceProcessor on the GPU against the CPU path on real frames: every 10th frame of Megamind.avi
// (opencv-doc), 8 frames per step. Detections (one batched detector run on the GPU) must pair up
// with the CPU's with box IoU >= 0.95; landmarks of the same ROIs (the CPU's detections) must agree
// within 1 px on average per face (the figure), at FP32; FP16 figures are printed (WARN)
// and held to a looser bound. The time of a step is printed too.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "infer/model_files.hpp"
#include "io/video_reader.hpp"
#include "frames/video_frame_source.hpp"
#include "track_faces/face_processor.hpp"

using namespace gp::track;

namespace {

const char* const megamind = "/usr/share/doc/opencv-doc/examples/data/Megamind.avi";

float iou(const PixelBox& a, const PixelBox& b) { return gp::track::box_iou(a, b); }

double mean_landmark_error(const FaceLandmarks& a, const FaceLandmarks& b) {
  double sum = 0;
  for (int i = 0; i < kFaceLandmarks; ++i)
    sum += std::hypot(a.xyz[std::size_t(3 * i)] - b.xyz[std::size_t(3 * i)],
                      a.xyz[std::size_t(3 * i + 1)] - b.xyz[std::size_t(3 * i + 1)]);
  return sum / kFaceLandmarks;
}

struct Agreement {
  int faces = 0, landmark_faces = 0;
  float min_iou = 1;
  double worst_landmark_error = 0, landmark_error_sum = 0;
};

Agreement compare(FaceProcessor& gpu, FaceProcessor& cpu, const std::vector<gp::frames::FrameSource>& frames) {
  Agreement a;
  gpu.set_frames(frames);
  cpu.set_frames(frames);
  const std::vector<bool> all(frames.size(), true);
  const auto g = gpu.detect(all), c = cpu.detect(all);
  std::vector<std::vector<Roi>> rois(frames.size());
  for (std::size_t f = 0; f < frames.size(); ++f) {
    INFO("frame " << f);
    REQUIRE(g[f].size() == c[f].size());
    for (std::size_t k = 0; k < c[f].size(); ++k) {
      float best = 0;
      for (const FrameFace& x : g[f]) best = std::max(best, iou(x.box, c[f][k].box));
      a.min_iou = std::min(a.min_iou, best);
      ++a.faces;
      rois[f].push_back(roi_from_face(c[f][k]));
    }
  }
  const auto gl = gpu.landmarks(rois), cl = cpu.landmarks(rois);
  for (std::size_t f = 0; f < frames.size(); ++f) {
    REQUIRE(gl[f].size() == rois[f].size());
    REQUIRE(cl[f].size() == rois[f].size());
    for (std::size_t k = 0; k < rois[f].size(); ++k) {
      CHECK(std::fabs(gl[f][k].score - cl[f][k].score) < 0.02f);
      const double e = mean_landmark_error(gl[f][k], cl[f][k]);
      a.worst_landmark_error = std::max(a.worst_landmark_error, e);
      a.landmark_error_sum += e;
      ++a.landmark_faces;
    }
  }
  return a;
}

}  // namespace

TEST_CASE("FaceProcessor: GPU detections and landmarks equal the CPU's on Megamind frames", "[track_faces][gpu]") {
  const auto det = gp::test::find_model("face_detection_short_range.tflite");
  const auto mesh = gp::test::find_model("face_landmark.tflite");
  if (!det || !mesh || !std::filesystem::exists(megamind)) {
    WARN("skipped: needs the models (scripts/fetch-models.sh) and " << megamind);
    return;
  }
  gp::io::VideoReader reader(megamind);
  std::vector<gp::io::VideoFrame> decoded;
  gp::io::VideoFrame frame;
  while (reader.read(frame))
    if (frame.index() % 10 == 0) decoded.push_back(std::move(frame));
  REQUIRE(decoded.size() == 27);

  gp::Runtime gpu_rt{gp::RuntimeOptions{}};
  gp::Runtime cpu_rt{gp::RuntimeOptions{gp::DeviceChoice::parse("cpu")}};
  REQUIRE(gpu_rt.gpu());
  FaceProcessorOptions o;
  o.detector_path = det->string();
  o.landmark_path = mesh->string();
  o.max_frames = 8;
  o.landmark_batch = 4;  // several landmark runs per step
  FaceProcessor cpu(cpu_rt, o);
  for (bool fp16 : {false, true}) {
    o.fp16 = fp16;
    FaceProcessor gpu(gpu_rt, o);
    gpu.warm_up();
    Agreement total;
    double step_ms = 0;
    for (std::size_t first = 0; first < decoded.size(); first += 8) {
      std::vector<gp::frames::FrameSource> frames;
      for (std::size_t i = first; i < std::min(decoded.size(), first + 8); ++i)
        frames.push_back(gp::frames::video_frame_source(decoded[i]));
      const Agreement a = compare(gpu, cpu, frames);
      total.faces += a.faces;
      total.landmark_faces += a.landmark_faces;
      total.min_iou = std::min(total.min_iou, a.min_iou);
      total.worst_landmark_error = std::max(total.worst_landmark_error, a.worst_landmark_error);
      total.landmark_error_sum += a.landmark_error_sum;
      // A GPU step alone: upload, detector, landmarks of the faces found.
      const auto t0 = std::chrono::steady_clock::now();
      gpu.set_frames(frames);
      const auto faces = gpu.detect(std::vector<bool>(frames.size(), true));
      std::vector<std::vector<Roi>> rois(frames.size());
      for (std::size_t f = 0; f < frames.size(); ++f)
        for (const FrameFace& x : faces[f]) rois[f].push_back(roi_from_face(x));
      gpu.landmarks(rois);
      step_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    const double mean_error = total.landmark_error_sum / std::max(1, total.landmark_faces);
    WARN((fp16 ? "FP16" : "FP32") << ": " << total.faces << " faces, min box IoU " << total.min_iou
                                  << ", landmark error mean " << mean_error << " px, worst face "
                                  << total.worst_landmark_error << " px; steps of 8 frames " << step_ms / 4 << " ms each");
    CHECK(total.faces >= 26);
    CHECK(total.min_iou >= (fp16 ? 0.9f : 0.95f));
    CHECK(mean_error < (fp16 ? 2.0 : 1.0));
  }
}
