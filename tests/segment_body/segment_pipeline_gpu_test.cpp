// segment-body's GPU path (MaskProcessor on the GPU: upload, fused preprocess, CudaEngine,
// postprocess with temporal state, composites, download) against its CPU path on the same frames.
// Bounds (u8 masks): FP32 mean |GPU - CPU| <= 1 and <= 0.2% of pixels on the other side of 128;
// FP16 mean <= 3 and <= 1% (the engine tests allow 1% flipped model pixels for FP16). The guided
// filter and composites are bit-identical GPU vs CPU (kernel tests), so differences come from
// the model's arithmetic.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "infer/model_files.hpp"
#include "io/video_reader.hpp"
#include "segment_body/mask_processor.hpp"
#include "frames/rgb_image.hpp"
#include "segment_body/segment_settings.hpp"
#include "support/test_data.hpp"

namespace {

using namespace gp::segbody;

Settings settings_for(const std::string& precision) {
  gp::config::json c = gp::config::json::object();
  c["inputs"] = gp::config::json::array({"x.mp4"});
  gp::config::apply_override(c, "model.precision=" + precision);
  gp::config::apply_override(c, "output.background.enabled=true");
  return read_settings(schema().validate(c, "test"));
}

struct Diff {
  double mean_abs = 0, flipped = 0;
};

Diff compare(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  REQUIRE(a.size() == b.size());
  double sum = 0;
  std::size_t flipped = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sum += std::abs(int(a[i]) - int(b[i]));
    flipped += (a[i] >= 128) != (b[i] >= 128);
  }
  return {sum / double(a.size()), double(flipped) / double(a.size())};
}

// The first `count` frames of the sample video, yuv420p, as host copies (Y, U, V packed).
struct HostFrame {
  std::vector<std::uint8_t> bytes;
  int width = 0, height = 0;
  FrameSource source() const {
    const int cw = chroma_size(width), ch = chroma_size(height);
    const std::uint8_t* y = bytes.data();
    const std::uint8_t* u = y + std::size_t(width) * height;
    const std::uint8_t* v = u + std::size_t(cw) * ch;
    return yuv420_frame(y, width, u, cw, v, cw, width, height);
  }
};

std::vector<HostFrame> sample_frames(int count) {
  gp::io::VideoReader reader(gp::test::source_path("data-samples/video/moving_shapes.mp4"));
  std::vector<HostFrame> frames;
  gp::io::VideoFrame f;
  while (int(frames.size()) < count && reader.read(f)) {
    HostFrame h;
    h.width = f.width();
    h.height = f.height();
    for (int p = 0; p < 3; ++p)
      for (int y = 0; y < f.plane_height(p); ++y)
        h.bytes.insert(h.bytes.end(), f.plane(p) + std::size_t(y) * f.pitch(p),
                       f.plane(p) + std::size_t(y) * f.pitch(p) + f.plane_width(p));
    frames.push_back(std::move(h));
  }
  return frames;
}

void check_bounds(const Diff& d, bool fp16, const std::string& what) {
  INFO(what << ": mean |GPU - CPU| " << d.mean_abs << ", flipped " << d.flipped * 100 << "%");
  WARN(what << ": mean |GPU - CPU| " << d.mean_abs << ", flipped " << d.flipped * 100 << "%");
  CHECK(d.mean_abs <= (fp16 ? 3.0 : 1.0));
  CHECK(d.flipped <= (fp16 ? 0.01 : 0.002));
}

}  // namespace

TEST_CASE("segment-body GPU path vs CPU path: video with temporal state (batches of 8) and a person photo",
          "[segment_body][gpu]") {
  if (!gp::test::find_model("selfie_segmentation.tflite")) return;
  gp::Runtime cpu_rt(gp::RuntimeOptions{gp::DeviceChoice::parse("cpu")});
  gp::RuntimeOptions gpu_options;
  gpu_options.device = gp::DeviceChoice::parse("cuda:0");
  gp::Runtime gpu_rt(gpu_options);
  const std::vector<HostFrame> video = sample_frames(24);
  REQUIRE(video.size() == 24);
  const char* messi = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg";

  for (const char* precision : {"fp32", "fp16"}) {
    const bool fp16 = std::string(precision) == "fp16";
    const Settings s = settings_for(precision);
    MaskProcessor cpu(cpu_rt, s, 1), gpu(gpu_rt, s, 8);
    REQUIRE_FALSE(cpu.gpu());
    REQUIRE(gpu.gpu());
    FrameWants wants;
    wants.rgba = true;
    wants.background_yuv = true;
    auto cpu_stream = cpu.new_stream(), gpu_stream = gpu.new_stream();
    std::vector<std::uint8_t> cpu_masks, gpu_masks, cpu_bg, gpu_bg;
    for (std::size_t start = 0; start < video.size(); start += 8) {
      std::vector<FrameSource> frames;
      std::vector<double> times;
      for (std::size_t i = start; i < start + 8; ++i) {
        frames.push_back(video[i].source());
        times.push_back(double(i) / 30);
      }
      std::vector<FrameResult> a, b;
      cpu.run(frames, cpu_stream.get(), wants, a, times);
      gpu.run(frames, gpu_stream.get(), wants, b, times);
      for (std::size_t i = 0; i < frames.size(); ++i) {
        cpu_masks.insert(cpu_masks.end(), a[i].mask.begin(), a[i].mask.end());
        gpu_masks.insert(gpu_masks.end(), b[i].mask.begin(), b[i].mask.end());
        cpu_bg.insert(cpu_bg.end(), a[i].background.begin(), a[i].background.end());
        gpu_bg.insert(gpu_bg.end(), b[i].background.begin(), b[i].background.end());
      }
    }
    check_bounds(compare(cpu_masks, gpu_masks), fp16, std::string(precision) + " moving_shapes masks, 24 frames");
    CHECK(compare(cpu_bg, gpu_bg).mean_abs <= (fp16 ? 3.0 : 1.0));

    if (!std::filesystem::is_regular_file(messi)) {
      WARN("skipped the photo: " << messi << " not found (opencv-doc)");
      continue;
    }
    gp::frames::RgbImage photo = gp::frames::load_rgb_image(messi);
    const std::vector<FrameSource> one{
        packed_frame(FrameFormat::rgb, photo.pixels.data(), std::size_t(photo.width) * 3, photo.width, photo.height)};
    FrameWants image_wants;
    image_wants.background_rgb = true;
    std::vector<FrameResult> a, b;
    cpu.run(one, nullptr, image_wants, a);
    gpu.run(one, nullptr, image_wants, b);
    check_bounds(compare(a[0].mask, b[0].mask), fp16, std::string(precision) + " messi5.jpg mask");
    CHECK(compare(a[0].background, b[0].background).mean_abs <= (fp16 ? 3.0 : 1.0));
  }
}

TEST_CASE("segment-body pose_full GPU path vs CPU path: people, landmarks and masks on real photos",
          "[segment_body][gpu][pose]") {
  if (!gp::test::find_model("pose_detection.tflite") || !gp::test::find_model("pose_landmark_full.tflite")) return;
  const char* photos[] = {"/usr/share/doc/opencv-doc/examples/data/messi5.jpg",
                          "/usr/share/doc/opencv-doc/examples/data/basketball1.png"};
  for (const char* p : photos)
    if (!std::filesystem::is_regular_file(p)) {
      WARN("skipped: " << p << " not found (opencv-doc)");
      return;
    }
  gp::Runtime cpu_rt(gp::RuntimeOptions{gp::DeviceChoice::parse("cpu")});
  gp::RuntimeOptions gpu_options;
  gpu_options.device = gp::DeviceChoice::parse("cuda:0");
  gp::Runtime gpu_rt(gpu_options);
  std::vector<gp::frames::RgbImage> images;
  std::vector<FrameSource> frames;
  for (const char* p : photos) images.push_back(gp::frames::load_rgb_image(p));
  for (const auto& im : images)
    frames.push_back(packed_frame(FrameFormat::rgb, im.pixels.data(), std::size_t(im.width) * 3, im.width, im.height));

  for (const char* precision : {"fp32", "fp16"}) {
    const bool fp16 = std::string(precision) == "fp16";
    Settings s = settings_for(precision);
    gp::config::json c = gp::config::json::object();
    c["inputs"] = gp::config::json::array({"x.jpg"});
    gp::config::apply_override(c, "model.variant=pose_full");
    gp::config::apply_override(c, "model.precision=" + std::string(precision));
    s = read_settings(schema().validate(c, "test"));
    MaskProcessor cpu(cpu_rt, s, 1), gpu(gpu_rt, s, 4);
    gpu.warm_up();
    std::vector<FrameResult> a, b;
    for (const FrameSource& f : frames) {  // the CPU path takes one frame a run
      std::vector<FrameResult> one;
      cpu.run({f}, nullptr, FrameWants{}, one);
      a.push_back(std::move(one[0]));
    }
    gpu.run(frames, nullptr, FrameWants{}, b);  // both photos in one GPU batch
    REQUIRE(b.size() == frames.size());
    for (std::size_t i = 0; i < frames.size(); ++i) {
      INFO(precision << " " << photos[i]);
      REQUIRE(a[i].people.size() >= 1);
      REQUIRE(b[i].people.size() == a[i].people.size());
      // FP32 equals the CPU. FP16 moves a landmark by a fraction of a model pixel, except where a heatmap window's
      // confidence sits at MediaPipe's refinement threshold (0.5): refined on one side and not on
      // the other, it jumps by up to a few heatmap cells (a cell is 4 of the 256 input pixels).
      double worst = 0, total = 0, side = 0;
      int count = 0;
      for (std::size_t k = 0; k < a[i].people.size(); ++k) {
        side = std::max(side, double(a[i].people[k].roi.size));
        for (int l = 0; l < kPoseLandmarks; ++l) {
          const double e = std::hypot(a[i].people[k].landmarks[std::size_t(l)].x - b[i].people[k].landmarks[std::size_t(l)].x,
                                      a[i].people[k].landmarks[std::size_t(l)].y - b[i].people[k].landmarks[std::size_t(l)].y);
          worst = std::max(worst, e);
          total += e;
          ++count;
        }
      }
      const double mean = total / std::max(1, count);
      WARN(precision << " " << photos[i] << ": " << a[i].people.size() << " people, landmark |GPU - CPU| mean " << mean
                     << " px, worst " << worst << " px (ROI " << side << " px)");
      // Bounds relative to the ROI (the landmark model sees it at 256 px): FP16 measured a mean of
      // 0.3% of it on basketball1.png's 1098 px ROI (3.2 px), worst 1.2% (12.7 px).
      CHECK(mean < (fp16 ? 0.005 * side : 0.01));
      CHECK(worst < (fp16 ? 0.05 * side : 0.5));
      check_bounds(compare(a[i].mask, b[i].mask), fp16, std::string(precision) + " " + photos[i] + " pose mask");
    }
  }
}
