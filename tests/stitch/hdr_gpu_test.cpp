// stitch-360's float (HDR) projections and previews on the GPU against their CPU references: every
// mode on an HDR panorama with a sun far above 1 (the same per-pixel code compiled without fused
// multiply-adds on both sides: the floats should match to the last bits), and the tone-mapped
// 8-bit previews (the tone operators' kernels, cuda/tone) within 1 LSB.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "core/gpu_runtime.hpp"
#include "cuda/stitch/project.hpp"
#include "stitch/hdr_images.hpp"
#include "stitch/hdr_preview.hpp"

using namespace gp::stitch;
using gp::stitch::test::FloatImage;

namespace {

class Gpu {
 public:
  Gpu() : rt_(gp::RuntimeOptions{}), stream_(rt_.make_stream()) {}
  const gp::Stream& stream() const { return stream_; }
  gp::ImageView upload(const gp::ImageView& host) {
    buffers_.push_back(rt_.device_alloc(host.bytes(), stream_, "stitch hdr test"));
    gp::ImageView d = host;
    d.data = buffers_.back().get();
    stream_.copy_to_device(d.data, host.data, host.bytes());
    return d;
  }
  gp::ImageView empty_like(const gp::ImageView& host) {
    buffers_.push_back(rt_.device_alloc(host.bytes(), stream_, "stitch hdr test"));
    gp::ImageView d = host;
    d.data = buffers_.back().get();
    stream_.memset(d.data, 0x7f, host.bytes());  // NaN-like garbage where a kernel writes nothing
    return d;
  }
  void* scratch(std::size_t bytes) {
    buffers_.push_back(rt_.device_alloc(bytes, stream_, "stitch hdr test scratch"));
    return buffers_.back().get();
  }
  void download(const gp::ImageView& d, const gp::ImageView& host) {
    stream_.copy_to_host(host.data, d.data, host.bytes());
    stream_.synchronize("stitch hdr test");
  }

 private:
  gp::Runtime rt_;
  gp::Stream stream_;
  std::vector<gp::DeviceBuffer> buffers_;
};

void require_same_floats(const FloatImage& gpu, const FloatImage& cpu, const char* what) {
  long differing = 0;
  double worst = 0;
  for (std::size_t i = 0; i < cpu.pixels.size(); ++i) {
    const double a = gpu.pixels[i], b = cpu.pixels[i];
    if (a != b) ++differing;
    worst = std::fmax(worst, std::fabs(a - b) / std::fmax(1e-3, std::fabs(b)));
  }
  INFO(what << ": " << differing << " values differ, relative error up to " << worst);
  if (differing) std::printf("%s: %ld float values differ (relative %.3g)\n", what, differing, worst);
  CHECK(worst <= 1e-5);
}

}  // namespace

TEST_CASE("float projections: GPU equals CPU in every mode", "[stitch][hdr][gpu]") {
  Gpu gpu;
  const FloatImage pano = gp::stitch::test::hdr_equirect(1024, 512);
  const gp::ImageView d_pano = gpu.upload(pano.view);
  for (const Interp interp : {Interp::nearest, Interp::bilinear, Interp::bicubic, Interp::lanczos3}) {
    SampleOptions o;
    o.interp = interp;
    // Views: the direct kernel and the remap table.
    PerspectiveTarget targets[2] = {{make_camera(20, 15, 0, 60, 200, 150), {}, {}},
                                    {make_camera(-90, -30, 10, 100, 160, 160), {}, {}}};
    std::vector<FloatImage> cpu_views, gpu_views, remap_views;
    std::vector<gp::ImageView> d_views;
    for (auto& t : targets) {
      cpu_views.emplace_back(t.camera.width, t.camera.height, 3);
      t.dst = cpu_views.back().view;
    }
    equirect_to_perspective_batch_cpu(pano.view, targets, 2, o);
    PerspectiveTarget d_targets[2] = {targets[0], targets[1]};
    for (int i = 0; i < 2; ++i) d_targets[i].dst = gpu.empty_like(cpu_views[std::size_t(i)].view);
    equirect_to_perspective_batch_gpu(d_pano, d_targets, 2, o, gpu.stream().get());
    const std::size_t table_bytes = perspective_remap_bytes(d_targets, 2);
    void* table = gpu.scratch(table_bytes);
    build_perspective_remap_gpu(d_pano, d_targets, 2, o, table, gpu.stream().get());
    PerspectiveTarget r_targets[2] = {targets[0], targets[1]};
    for (int i = 0; i < 2; ++i) r_targets[i].dst = gpu.empty_like(cpu_views[std::size_t(i)].view);
    equirect_to_perspective_remap_gpu(d_pano, r_targets, 2, o, table, gpu.stream().get());
    for (int i = 0; i < 2; ++i) {
      FloatImage direct(targets[i].camera.width, targets[i].camera.height, 3), remapped = direct;
      gpu.download(d_targets[i].dst, direct.view);
      gpu.download(r_targets[i].dst, remapped.view);
      require_same_floats(direct, cpu_views[std::size_t(i)], "view");
      require_same_floats(remapped, cpu_views[std::size_t(i)], "view from the remap table");
    }
    // Cube faces and back.
    std::vector<FloatImage> faces, gpu_faces;
    CubeFaces cpu_cube, d_cube;
    for (int f = 0; f < cube_face_count; ++f) faces.emplace_back(256, 256, 3), gpu_faces.emplace_back(256, 256, 3);
    for (int f = 0; f < cube_face_count; ++f) cpu_cube[f] = faces[std::size_t(f)].view;
    for (int f = 0; f < cube_face_count; ++f) d_cube[f] = gpu.empty_like(faces[std::size_t(f)].view);
    equirect_to_cubemap_cpu(pano.view, cpu_cube, o);
    equirect_to_cubemap_gpu(d_pano, d_cube, o, gpu.stream().get());
    for (int f = 0; f < cube_face_count; ++f) {
      gpu.download(d_cube[f], gpu_faces[std::size_t(f)].view);
      require_same_floats(gpu_faces[std::size_t(f)], faces[std::size_t(f)], "cube face");
    }
    FloatImage back(1024, 512, 3), gpu_back(1024, 512, 3);
    cubemap_to_equirect_cpu(cpu_cube, back.view, {}, o);
    const gp::ImageView d_back = gpu.empty_like(back.view);
    CubeFaces d_cpu_faces;  // the CPU's faces on the device, so only this step is compared
    for (int f = 0; f < cube_face_count; ++f) d_cpu_faces[f] = gpu.upload(faces[std::size_t(f)].view);
    cubemap_to_equirect_gpu(d_cpu_faces, d_back, {}, o, gpu.stream().get());
    gpu.download(d_back, gpu_back.view);
    require_same_floats(gpu_back, back, "cubemap to equirect");
    // Dual fisheye (the panorama's pixels as the frame: the content does not matter here).
    const DualFisheye rig = dual_fisheye_v360(1024, 512, 195);
    FloatImage eq(1024, 512, 3), gpu_eq(1024, 512, 3);
    dual_fisheye_to_equirect_cpu(pano.view, rig, eq.view, {}, o);
    const gp::ImageView d_eq = gpu.empty_like(eq.view);
    dual_fisheye_to_equirect_gpu(d_pano, rig, d_eq, {}, o, gpu.stream().get());
    gpu.download(d_eq, gpu_eq.view);
    require_same_floats(gpu_eq, eq, "dual fisheye to equirect");
  }
}

TEST_CASE("previews of float outputs: GPU within 1 LSB of CPU", "[stitch][hdr][gpu]") {
  Gpu gpu;
  const FloatImage pano = gp::stitch::test::hdr_equirect(512, 256);
  for (const bool auto_exposure : {false, true}) {
    HdrOutputConfig config;
    config.preview = true;
    config.preview_ev = -1.5;
    config.preview_auto_exposure = auto_exposure;
    const HdrPreviewer previewer(config);
    std::vector<std::uint8_t> cpu(std::size_t(512) * 256 * 3), out(cpu.size());
    const gp::ImageView cpu_view = gp::packed_view(cpu.data(), 512, 256, 3, gp::PixelType::u8);
    previewer.run_cpu(pano.view, cpu_view);
    const gp::ImageView d_pano = gpu.upload(pano.view);
    const gp::ImageView d_preview = gpu.empty_like(cpu_view);
    const float scale = previewer.exposure_scale();
    const gp::ImageView scale_view = gp::packed_view(const_cast<float*>(&scale), 1, 1, 1, gp::PixelType::f32);
    const gp::ImageView d_scale = gpu.upload(scale_view);
    const std::size_t bytes = previewer.scratch_bytes(512, 256);
    previewer.run_gpu(d_pano, d_preview, static_cast<const float*>(d_scale.data), gpu.scratch(bytes), bytes, gpu.stream());
    gpu.download(d_preview, gp::packed_view(out.data(), 512, 256, 3, gp::PixelType::u8));
    int worst = 0;
    for (std::size_t i = 0; i < cpu.size(); ++i) worst = std::max(worst, std::abs(int(cpu[i]) - int(out[i])));
    INFO("auto exposure " << auto_exposure << ": largest difference " << worst);
    CHECK(worst <= 1);
  }
}
