// stitch-360 projection kernels against their CPU references (checked on their own in
// projection_test.cpp): every kernel, every interpolation, 1/3/4 channels, antialiasing on and
// off, masks, pitched and oddly sized device images. The per-pixel code is shared and compiled
// without fused multiply-adds on both sides, so results should be bit-identical; the bound is
// exact for nearest and 1 LSB otherwise, and the test prints how many values differ at all.
// The [.perf] case times 8 views of 1920x1920 from a 7680x3840 RGB panorama (run it explicitly:
// gpuproc_gpu_tests "[.perf][stitch]").
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "core/parallel_for.hpp"
#include "cuda/stitch/project.hpp"
#include "stitch/ffmpeg_v360.hpp"
#include "stitch/projection_images.hpp"

using namespace gp::stitch;
using gp::stitch::test::HostImage;

namespace {

struct DeviceImage {
  gp::DeviceBuffer buffer;
  gp::ImageView view;
};

class Gpu {
 public:
  Gpu() : rt_(gp::RuntimeOptions{}), stream_(rt_.make_stream()) {}
  cudaStream_t stream() const { return stream_.get(); }
  void sync() { stream_.synchronize("stitch test"); }
  const gp::Runtime& runtime() const { return rt_; }

  // Device copy with a pitch rounded up past the row (padding) and an odd byte offset when asked.
  DeviceImage upload(const HostImage& h, std::size_t padding = 0, std::size_t offset = 0) {
    DeviceImage d = empty_like(h.view, padding, offset);
    stream_.copy_2d(d.view.data, d.view.pitch, h.view.data, h.view.pitch, h.view.row_bytes(), std::size_t(h.view.height));
    return d;
  }
  DeviceImage empty_like(const gp::ImageView& v, std::size_t padding = 0, std::size_t offset = 0) {
    DeviceImage d;
    d.view = v;
    d.view.pitch = v.row_bytes() + padding;
    d.buffer = rt_.device_alloc(d.view.pitch * std::size_t(v.height) + offset, stream_, "stitch test");
    d.view.data = d.buffer.as<char>() + offset;
    stream_.memset(d.buffer.get(), 0x5a, d.buffer.size());
    return d;
  }
  gp::DeviceBuffer alloc(std::size_t bytes) { return rt_.device_alloc(bytes, stream_, "stitch test"); }
  void fill(const DeviceImage& d) { stream_.memset(d.buffer.get(), 0x5a, d.buffer.size()); }
  HostImage download(const gp::ImageView& d) {
    HostImage h(d.width, d.height, d.channels);
    stream_.copy_2d(h.view.data, h.view.pitch, d.data, d.pitch, d.row_bytes(), std::size_t(d.height));
    sync();
    return h;
  }

 private:
  gp::Runtime rt_;
  gp::Stream stream_;
};

SampleOptions options(Interp interp, int max_subsamples) {
  SampleOptions o;
  o.interp = interp;
  o.max_subsamples = max_subsamples;
  return o;
}

const char* interp_name(Interp m) {
  switch (m) {
    case Interp::nearest: return "nearest";
    case Interp::bilinear: return "bilinear";
    case Interp::bicubic: return "bicubic";
    default: return "lanczos3";
  }
}

void require_match(const HostImage& gpu, const HostImage& cpu, Interp m, const char* what) {
  long differing = 0;
  const int worst = gp::stitch::test::max_difference(gpu, cpu, &differing);
  INFO(what << ", " << interp_name(m) << ": " << differing << " values differ, by up to " << worst);
  if (differing) std::printf("%s, %s: %ld values differ (max %d)\n", what, interp_name(m), differing, worst);
  if (m == Interp::nearest) CHECK(worst == 0);
  else CHECK(worst <= 1);
}

// Dual-fisheye frame with some detail: the textured panorama seen through two 195 deg lenses
// (nearest lookup of the lens direction; the exact content does not matter here).
HostImage dual_fisheye_frame(const DualFisheye& rig, const HostImage& pano, int w, int h) {
  HostImage frame(w, h, pano.view.channels);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const FisheyeLens& lens = x >= w / 2 ? rig.lens[0] : rig.lens[1];
      const double dx = x - lens.cx, dy = y - lens.cy, r = std::hypot(dx, dy), theta = r / lens.px_per_rad;
      const double s = r > 0 ? std::sin(theta) / r : 0, l[3] = {dx * s, dy * s, std::cos(theta)};
      double d[3];
      for (int i = 0; i < 3; ++i)
        d[i] = lens.rotation.m[3 * i] * l[0] + lens.rotation.m[3 * i + 1] * l[1] + lens.rotation.m[3 * i + 2] * l[2];
      const double u = (std::atan2(d[0], d[2]) / (2 * 3.14159265358979) + 0.5) * (pano.view.width - 1);
      const double v = (std::asin(std::max(-1.0, std::min(1.0, d[1]))) / 3.14159265358979 + 0.5) * (pano.view.height - 1);
      std::copy_n(pano.px(int(u), int(v)), pano.view.channels, frame.px(x, y));
    }
  return frame;
}

}  // namespace

TEST_CASE("projection kernels equal the CPU references", "[stitch][gpu]") {
  Gpu gpu;
  for (int channels : {1, 3, 4}) {
    const HostImage pano = gp::stitch::test::textured_equirect(1283, 641, channels, 3.0);
    const DeviceImage dpano = gpu.upload(pano, 37, 3);
    const DualFisheye rig = dual_fisheye_v360(1024, 512, 195);
    const HostImage frame = dual_fisheye_frame(rig, pano, 1024, 512);
    const DeviceImage dframe = gpu.upload(frame, 11);
    for (Interp m : {Interp::nearest, Interp::bilinear, Interp::bicubic, Interp::lanczos3})
      for (int max_sub : {1, 8}) {
        const SampleOptions o = options(m, max_sub);
        INFO(channels << " channels, " << interp_name(m) << ", max_subsamples " << max_sub);

        // Perspective views, batched, with a mask on one; a zenith view (antialiasing at work).
        const Camera cams[] = {make_camera(0, 0, 0, 90, 301, 203), make_camera(45, 10, 5, 70, 256, 256),
                               make_camera(-120, 90, 0, 100, 199, 199), make_camera(170, -75, -30, 120, 64, 48)};
        HostImage mask(301, 203, 1);
        for (int y = 0; y < 203; ++y)
          for (int x = 0; x < 301; ++x) mask.px(x, y)[0] = (x * 7 + y * 3) % 11 ? 255 : 0;
        const DeviceImage dmask = gpu.upload(mask, 5);
        std::vector<DeviceImage> dviews;
        std::vector<PerspectiveTarget> targets;
        for (const Camera& c : cams) {
          dviews.push_back(gpu.empty_like(HostImage(c.width, c.height, channels).view, 19, 1));
          targets.push_back(PerspectiveTarget{c, dviews.back().view, gp::ImageView{}});
        }
        targets[0].mask = dmask.view;
        equirect_to_perspective_batch_gpu(dpano.view, targets.data(), int(targets.size()), o, gpu.stream());
        std::vector<HostImage> cpu_perspective;
        for (std::size_t i = 0; i < targets.size(); ++i) {
          cpu_perspective.emplace_back(cams[i].width, cams[i].height, channels);
          equirect_to_perspective_cpu(pano.view, cams[i], cpu_perspective[i].view, i == 0 ? mask.view : gp::ImageView{}, o);
          require_match(gpu.download(dviews[i].view), cpu_perspective[i], m, "equirect_to_perspective");
        }
        // The same views through a remap table made on the GPU.
        const gp::DeviceBuffer table = gpu.alloc(perspective_remap_bytes(targets.data(), int(targets.size())));
        build_perspective_remap_gpu(dpano.view, targets.data(), int(targets.size()), o, table.get(), gpu.stream());
        for (DeviceImage& d : dviews) gpu.fill(d);
        equirect_to_perspective_remap_gpu(dpano.view, targets.data(), int(targets.size()), o, table.get(), gpu.stream());
        for (std::size_t i = 0; i < targets.size(); ++i)
          require_match(gpu.download(dviews[i].view), cpu_perspective[i], m, "equirect_to_perspective_remap");

        // Cube faces, then back to an equirect.
        const int n = 161;
        std::vector<HostImage> cpu_faces;
        cpu_faces.reserve(cube_face_count);  // the views below point into these images
        std::vector<DeviceImage> dfaces;
        CubeFaces cpu_views, gpu_views;
        for (int f = 0; f < cube_face_count; ++f) {
          cpu_faces.emplace_back(n, n, channels);
          dfaces.push_back(gpu.empty_like(cpu_faces.back().view, 3 * f));
          cpu_views[f] = cpu_faces.back().view;
          gpu_views[f] = dfaces.back().view;
        }
        const Mat3 turn = rotation_from_ypr(10, 20, 30);
        equirect_to_cubemap_gpu(dpano.view, gpu_views, o, gpu.stream(), turn);
        equirect_to_cubemap_cpu(pano.view, cpu_views, o, turn);
        for (int f = 0; f < cube_face_count; ++f)
          require_match(gpu.download(gpu_views[f]), cpu_faces[f], m, "equirect_to_cubemap");
        const DeviceImage dface = gpu.empty_like(cpu_faces[0].view);
        equirect_to_cubemap_face_gpu(dpano.view, CubeFace::down, dface.view, o, gpu.stream());
        HostImage cpu_face(n, n, channels);
        equirect_to_cubemap_face_cpu(pano.view, CubeFace::down, cpu_face.view, o);
        require_match(gpu.download(dface.view), cpu_face, m, "equirect_to_cubemap_face");

        const DeviceImage dback = gpu.empty_like(HostImage(643, 321, channels).view, 7);
        cubemap_to_equirect_gpu(gpu_views, dback.view, gp::ImageView{}, o, gpu.stream(), turn);
        HostImage cpu_back(643, 321, channels);
        cubemap_to_equirect_cpu(cpu_views, cpu_back.view, gp::ImageView{}, o, turn);
        require_match(gpu.download(dback.view), cpu_back, m, "cubemap_to_equirect");

        // Dual fisheye with overlap (feathered seam).
        const DeviceImage dpano_out = gpu.empty_like(HostImage(1001, 500, channels).view, 3);
        dual_fisheye_to_equirect_gpu(dframe.view, rig, dpano_out.view, gp::ImageView{}, o, gpu.stream());
        HostImage cpu_pano(1001, 500, channels);
        dual_fisheye_to_equirect_cpu(frame.view, rig, cpu_pano.view, gp::ImageView{}, o);
        require_match(gpu.download(dpano_out.view), cpu_pano, m, "dual_fisheye_to_equirect");
      }
  }
}

TEST_CASE("GPU views against ffmpeg's v360: PSNR >= 40 dB bilinear", "[stitch][gpu][ffmpeg]") {
  if (!gp::stitch::test::have_ffmpeg()) {
    WARN("ffmpeg not installed: comparison with v360 skipped");
    return;
  }
  Gpu gpu;
  struct Case {
    int pano_w;
    double yaw, pitch, roll, h_fov;
    int w, h;
  };
  // The benchmark's geometry (7680x3840 -> 1920x1920, 90 degrees) and some turned views.
  for (const Case& c : {Case{7680, 45, 0, 0, 90, 1920, 1920}, Case{1024, 30, 20, 10, 90, 256, 256},
                        Case{1024, -135, -50, 25, 75, 320, 200}, Case{1024, 170, 80, -40, 100, 200, 200}}) {
    const HostImage pano = gp::stitch::test::textured_equirect(c.pano_w, c.pano_w / 2, 3, 2.0 * c.pano_w / 1024);
    const DeviceImage dpano = gpu.upload(pano);
    const Camera cam = make_camera(c.yaw, c.pitch, c.roll, c.h_fov, c.w, c.h);
    char filter[256];
    std::snprintf(filter, sizeof filter, "v360=e:flat:yaw=%g:pitch=%g:roll=%g:h_fov=%g:v_fov=%.6f:w=%d:h=%d:interp=linear",
                  c.yaw, c.pitch, c.roll, c.h_fov, camera_v_fov_deg(cam), c.w, c.h);
    const HostImage expected = gp::stitch::test::ffmpeg_v360(pano, filter, c.w, c.h);
    const DeviceImage dview = gpu.empty_like(HostImage(c.w, c.h, 3).view);
    PerspectiveTarget target{cam, dview.view, gp::ImageView{}};
    equirect_to_perspective_batch_gpu(dpano.view, &target, 1, options(Interp::bilinear, 1), gpu.stream());
    const double db = gp::stitch::test::psnr(gpu.download(dview.view), expected);
    std::printf("GPU vs %s (panorama %dx%d): PSNR %.1f dB\n", filter, c.pano_w, c.pano_w / 2, db);
    CHECK(db >= 40.0);
  }
}

TEST_CASE("projection timings: 8 views of 1920x1920 from a 7680x3840 RGB panorama", "[.perf][stitch][gpu]") {
  Gpu gpu;
  const int w = 7680, h = 3840;
  HostImage pano(w, h, 3);
  gp::parallel_for(h, [&](long begin, long end) {
    for (long y = begin; y < end; ++y)
      for (int x = 0; x < w; ++x) {
        double d[3];
        gp::stitch::test::equirect_pixel_direction(x, int(y), w, h, d);
        for (int c = 0; c < 3; ++c) pano.px(x, int(y))[c] = gp::stitch::test::to_byte(gp::stitch::test::sphere_texture(d, c, 20.0));
      }
  });
  const DeviceImage dpano = gpu.upload(pano);
  std::vector<DeviceImage> dviews;
  std::vector<PerspectiveTarget> targets;
  for (int i = 0; i < 8; ++i) {  // ring8
    const Camera cam = make_camera(45.0 * i, 0, 0, 90, 1920, 1920);
    dviews.push_back(gpu.empty_like(HostImage(1920, 1920, 3).view));
    targets.push_back(PerspectiveTarget{cam, dviews.back().view, gp::ImageView{}});
  }
  auto time_ms = [&](const SampleOptions& o, const std::vector<PerspectiveTarget>& t) {
    equirect_to_perspective_batch_gpu(dpano.view, t.data(), int(t.size()), o, gpu.stream());  // warm-up
    gpu.sync();
    double best = 1e30;
    for (int i = 0; i < 5; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      equirect_to_perspective_batch_gpu(dpano.view, t.data(), int(t.size()), o, gpu.stream());
      gpu.sync();
      best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
  };
  // Through a remap table (made once, as a stitch-360 GPU worker does).
  const gp::DeviceBuffer table = gpu.alloc(perspective_remap_bytes(targets.data(), 8));
  auto time_remap_ms = [&](const SampleOptions& o) {
    build_perspective_remap_gpu(dpano.view, targets.data(), 8, o, table.get(), gpu.stream());
    equirect_to_perspective_remap_gpu(dpano.view, targets.data(), 8, o, table.get(), gpu.stream());  // warm-up
    gpu.sync();
    double best = 1e30;
    for (int i = 0; i < 5; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      equirect_to_perspective_remap_gpu(dpano.view, targets.data(), 8, o, table.get(), gpu.stream());
      gpu.sync();
      best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
  };
  for (Interp m : {Interp::nearest, Interp::bilinear, Interp::bicubic, Interp::lanczos3})
    for (int max_sub : {1, 8}) {
      const double ms = time_ms(options(m, max_sub), targets), remap_ms = time_remap_ms(options(m, max_sub));
      std::printf("ring8 1920x1920 from 7680x3840 RGB on %s, %s, antialiasing %s: %.2f ms per panorama (%.0f panoramas/s); "
                  "remap table %.2f ms (%.0f panoramas/s)\n",
                  gpu.runtime().device_name().c_str(), interp_name(m), max_sub > 1 ? "on" : "off", ms, 1000.0 / ms,
                  remap_ms, 1000.0 / remap_ms);
    }
  // Zenith and nadir views: the panorama's rows shrink towards the poles, antialiasing works hard.
  std::vector<PerspectiveTarget> poles = {
      PerspectiveTarget{make_camera(0, 90, 0, 90, 1920, 1920), dviews[0].view, gp::ImageView{}},
      PerspectiveTarget{make_camera(0, -90, 0, 90, 1920, 1920), dviews[1].view, gp::ImageView{}}};
  std::printf("zenith + nadir 1920x1920, bilinear: %.2f ms without antialiasing, %.2f ms with\n",
              time_ms(options(Interp::bilinear, 1), poles), time_ms(options(Interp::bilinear, 8), poles));
  // One view checked against the CPU reference at full size.
  HostImage cpu(1920, 1920, 3);
  equirect_to_perspective_cpu(pano.view, targets[3].camera, cpu.view, gp::ImageView{}, options(Interp::bilinear, 8));
  equirect_to_perspective_batch_gpu(dpano.view, targets.data(), 8, options(Interp::bilinear, 8), gpu.stream());
  require_match(gpu.download(dviews[3].view), cpu, Interp::bilinear, "ring8 view 3");
}
