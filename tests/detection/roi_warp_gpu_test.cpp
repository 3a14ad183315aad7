// The ROI warp kernel against its CPU reference (itself checked on known answers in
// face_roi_test.cpp): YUV 4:2:0 (odd size, pitched rows), RGB and BGRA frames, a batch of ROIs of
// every kind (upright, rolled both ways, upside down, partly or wholly outside the frame, smaller
// and much larger than the crop). Both sides run the same float operations in the same order
// (--fmad=false / -ffp-contract=off, sin/cos by the same polynomial), so results are expected
// bit-identical; the tolerances are f32 within 1e-5 and f16 within 1 ulp. Every tensor element
// starts as NaN on the GPU, so an element the kernel skips fails the comparison. The time of a
// 64-face batch from a 1080p frame is printed (WARN), not checked.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/detection/roi_warp.hpp"
#include "cuda/common/half.hpp"
#include "support/device_frames.hpp"
#include "support/test_frames.hpp"
#include "detection/roi_test_scene.hpp"

using namespace gp::detect;
using gp::frames::FrameFormat;
using gp::frames::FrameSource;
using gp::frames::TensorType;
using gp::test::HostPackedFrame;
using gp::test::HostYuvFrame;

namespace {

class WarpGpu : public gp::test::DeviceFrameBench {
 public:
  WarpGpu() : DeviceFrameBench("track_faces ROI warp test") {}
  void fill_nan(void* d, std::size_t bytes) { raw_stream().memset(d, 0xff, bytes); }
};

constexpr float kPi = 3.14159265358979f;

// ROIs of every kind on a w x h frame.
std::vector<Roi> test_rois(int w, int h) {
  return {
      {0.5f * w, 0.5f * h, 0.3f * h, 0.0f},                // centred, upright
      {0.3f * w + 0.37f, 0.4f * h, 0.25f * h, -kPi / 6},   // rolled counter-clockwise
      {0.7f * w, 0.6f * h - 0.21f, 0.2f * h, 0.7f},        // rolled clockwise
      {0.6f * w, 0.3f * h, 0.15f * h, 3.0f},               // nearly upside down
      {10.0f, 12.0f, 0.35f * h, 0.3f},                     // partly outside, top-left
      {w - 5.0f, h - 20.0f, 0.4f * h, -1.2f},              // partly outside, bottom-right
      {0.5f * w, -30.0f, 120.0f, 0.0f},                    // mostly above the frame
      {-5000.0f, 0.5f * h, 100.0f, 2.0f},                  // wholly outside: the edge
      {0.45f * w, 0.55f * h, 37.0f, 0.2f},                 // smaller than the crop: enlarged
      {0.5f * w, 0.5f * h, 1.4f * h, -0.4f},               // far larger: shrunk
  };
}

// Compares every element; returns how many differ by more than the type's tolerance (NaN counts).
std::size_t count_mismatches(const std::vector<std::uint8_t>& cpu, const std::vector<std::uint8_t>& gpu, TensorType type,
                             double& worst) {
  std::size_t bad = 0;
  worst = 0;
  if (type == TensorType::f32) {
    const auto* a = reinterpret_cast<const float*>(cpu.data());
    const auto* b = reinterpret_cast<const float*>(gpu.data());
    for (std::size_t i = 0; i < cpu.size() / 4; ++i) {
      const double d = std::fabs(double(a[i]) - double(b[i]));
      if (!(d <= 1e-5)) ++bad;
      if (d > worst) worst = d;
    }
  } else {
    const auto* a = reinterpret_cast<const std::uint16_t*>(cpu.data());
    const auto* b = reinterpret_cast<const std::uint16_t*>(gpu.data());
    for (std::size_t i = 0; i < cpu.size() / 2; ++i) {
      const float fa = gp::half_to_float(a[i]), fb = gp::half_to_float(b[i]);
      const double ulp = std::max(std::fabs(double(fa)), std::fabs(double(fb))) / 1024.0 + 6e-8;  // 1 ulp
      const double d = std::fabs(double(fa) - double(fb));
      if (!(d <= ulp)) ++bad;
      if (d / ulp > worst) worst = d / ulp;
    }
  }
  return bad;
}

}  // namespace

TEST_CASE("warp_rois GPU = CPU: YUV 4:2:0 odd size, RGB, BGRA; f32 and f16; ROIs inside and outside",
          "[detection][gpu]") {
  WarpGpu gpu;
  HostYuvFrame yuv(1281, 721, 7);
  gp::test::fill_realistic(yuv, 31);
  HostPackedFrame rgb(FrameFormat::rgb, 1920, 1080, 5);
  gp::test::fill_realistic(rgb, 32);
  HostPackedFrame bgra(FrameFormat::bgra, 853, 479);
  gp::test::FaceScene{400, 250, kPi / 7}.draw(bgra);  // a rolled face: smooth gradients and a blob

  struct Source {
    const char* name;
    FrameSource host, device;
  };
  const Source sources[] = {{"yuv420 1281x721", yuv.frame(), gpu.upload(yuv)},
                            {"rgb 1920x1080", rgb.frame(), gpu.upload(rgb)},
                            {"bgra 853x479", bgra.frame(), gpu.upload(bgra)}};
  for (const Source& s : sources) {
    const std::vector<Roi> rois = test_rois(s.host.width, s.host.height);
    const Roi* d_rois = gpu.upload_vector(rois);
    for (int variant = 0; variant < 3; ++variant) {
      RoiWarpParams p;
      if (variant == 1) p.type = TensorType::f16;
      if (variant == 2) {  // another size and range: 128 px crops in [-1, 1], f16
        p.size = 128;
        p.scale = 2.0f;
        p.offset = -1.0f;
        p.type = TensorType::f16;
      }
      INFO(s.name << ", " << (p.type == TensorType::f32 ? "f32" : "f16") << ", S = " << p.size);
      const std::size_t bytes =
          rois.size() * std::size_t(p.size) * p.size * 3 * (p.type == TensorType::f32 ? 4 : 2);
      std::vector<std::uint8_t> cpu(bytes);
      warp_rois_cpu(s.host, rois.data(), int(rois.size()), p, cpu.data());
      void* d_tensor = gpu.alloc(bytes);
      gpu.fill_nan(d_tensor, bytes);
      warp_rois_gpu(s.device, d_rois, int(rois.size()), p, d_tensor, gpu.stream());
      const std::vector<std::uint8_t> out = gpu.download_vector<std::uint8_t>(d_tensor, bytes);
      double worst = 0;
      CHECK(count_mismatches(cpu, out, p.type, worst) == 0);
      INFO("worst difference " << worst << (p.type == TensorType::f32 ? "" : " ulp"));
      CHECK(worst <= (p.type == TensorType::f32 ? 1e-5 : 1.0));
    }
  }
}

TEST_CASE("warp_rois GPU: zero ROIs, argument checks, 64 faces from 1080p timed", "[detection][gpu]") {
  WarpGpu gpu;
  HostYuvFrame yuv(1920, 1080);
  gp::test::fill_realistic(yuv, 41);
  const FrameSource d_yuv = gpu.upload(yuv);
  RoiWarpParams p;
  CHECK_NOTHROW(warp_rois_gpu(d_yuv, nullptr, 0, p, nullptr, gpu.stream()));
  CHECK_THROWS(warp_rois_gpu(d_yuv, nullptr, 1, p, nullptr, gpu.stream()));

  std::vector<Roi> rois;
  for (int i = 0; i < 64; ++i)
    rois.push_back({100.0f + 27.0f * i, 200.0f + 11.0f * (i % 40), 80.0f + 3.0f * i, 0.05f * (i - 32)});
  const Roi* d_rois = gpu.upload_vector(rois);
  p.type = TensorType::f16;
  const std::size_t bytes = rois.size() * std::size_t(p.size) * p.size * 3 * 2;
  void* d_tensor = gpu.alloc(bytes);
  auto run = [&] { warp_rois_gpu(d_yuv, d_rois, int(rois.size()), p, d_tensor, gpu.stream()); };
  run();
  gpu.sync();
  double best = 1e30;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    gpu.sync();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::vector<std::uint8_t> cpu(bytes);
  warp_rois_cpu(yuv.frame(), rois.data(), int(rois.size()), p, cpu.data());
  double worst = 0;
  CHECK(count_mismatches(cpu, gpu.download_vector<std::uint8_t>(d_tensor, bytes), p.type, worst) == 0);
  WARN("warp_rois_gpu: 64 faces 192x192 f16 from 1080p YUV, best of 5: " << best << " ms (wall incl. launch)");
}
