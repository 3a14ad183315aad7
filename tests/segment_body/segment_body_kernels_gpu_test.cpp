// Every segment-body kernel against its CPU reference (itself checked on known answers in
// preprocess_test.cpp, mask_test.cpp and composite_test.cpp), on realistic 1080p and odd-sized
// frames with pitched rows. Both sides run the same float operations in the same order
// (--fmad=false / -ffp-contract=off), so results are expected bit-identical; the tolerances are
// the brief's: f32 within 1e-5, f16 within 1 ulp, 8-bit within 1 level (a value on a rounding
// midpoint), binary masks and island removal exact. Timings of the 1080p chain are printed (WARN),
// not checked.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "cuda/segment_body/composite.hpp"
#include "cuda/segment_body/guided_filter.hpp"
#include "cuda/segment_body/islands.hpp"
#include "cuda/segment_body/mask.hpp"
#include "cuda/segment_body/person_masks.hpp"
#include "cuda/segment_body/postprocess.hpp"
#include "cuda/frames/preprocess.hpp"
#include "support/device_frames.hpp"
#include "support/test_frames.hpp"

using namespace gp::segbody;
using gp::ImageView;
using gp::PixelType;
using gp::test::HostImage;
using gp::test::HostPackedFrame;
using gp::test::HostYuvFrame;

namespace {

// The frame bench plus the images the mask and composite kernels read and write.
class SegGpu : public gp::test::DeviceFrameBench {
 public:
  SegGpu() : DeviceFrameBench("segment_body test") {}
  using DeviceFrameBench::upload;

  // A device image shaped like `host` with its own padded pitch, uninitialised.
  ImageView like(const ImageView& host) {
    ImageView d = host;
    d.pitch = gp::test::padded_pitch(host.row_bytes());
    d.data = alloc(d.pitch * std::size_t(host.height));
    return d;
  }
  ImageView packed_like(const ImageView& host) {
    ImageView d = host;
    d.pitch = host.row_bytes();
    d.data = alloc(d.pitch * std::size_t(host.height));
    return d;
  }
  void upload(const ImageView& host, const ImageView& d) {
    raw_stream().copy_2d(d.data, d.pitch, host.data, host.pitch, host.row_bytes(), std::size_t(host.height));
  }
  ImageView upload(const ImageView& host) {
    ImageView d = like(host);
    upload(host, d);
    return d;
  }
  void* upload_bytes(const void* host, std::size_t bytes) {
    void* d = alloc(bytes);
    raw_stream().copy_2d(d, bytes, host, bytes, bytes, 1);
    return d;
  }
  void download(const ImageView& d, const ImageView& host) {
    raw_stream().copy_2d(host.data, host.pitch, d.data, d.pitch, d.row_bytes(), std::size_t(d.height));
    sync();
  }
};

// Largest |a - b| over two float images of one channel.
double max_float_diff(const HostImage<float>& a, const HostImage<float>& b) {
  double worst = 0;
  for (int y = 0; y < a.view.height; ++y)
    for (int x = 0; x < a.view.width; ++x) worst = std::max(worst, double(std::fabs(a.at(x, y) - b.at(x, y))));
  return worst;
}

// Largest level difference over two u8 images.
int max_byte_diff(const HostImage<std::uint8_t>& a, const HostImage<std::uint8_t>& b) {
  int worst = 0;
  for (int y = 0; y < a.view.height; ++y)
    for (int x = 0; x < a.view.width * a.view.channels; ++x)
      worst = std::max(worst, std::abs(int(a.view.row<std::uint8_t>(y)[x]) - int(b.view.row<std::uint8_t>(y)[x])));
  return worst;
}

// A model-like mask: smooth blobs in [0, 1] (a sigmoid of a sum of Gaussians) with a little noise.
HostImage<float> blob_mask(int w, int h, unsigned seed) {
  HostImage<float> m(w, h, 1, PixelType::f32);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(0.0f, 1.0f), noise(-0.05f, 0.05f);
  float cx[6], cy[6], r[6];
  for (int i = 0; i < 6; ++i) {
    cx[i] = pos(rng) * w;
    cy[i] = pos(rng) * h;
    r[i] = (0.03f + 0.15f * pos(rng)) * w;
  }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float s = -1.0f;
      for (int i = 0; i < 6; ++i) {
        const float dx = (x - cx[i]) / r[i], dy = (y - cy[i]) / r[i];
        s += 2.0f * std::exp(-(dx * dx + dy * dy));
      }
      m.at(x, y) = std::clamp(1.0f / (1.0f + std::exp(-6.0f * s)) + noise(rng), 0.0f, 1.0f);
    }
  return m;
}

}  // namespace

TEST_CASE("preprocess GPU = CPU: 1080p YUV letterbox f32 + luma, stretch f16, BGRA odd size", "[segment_body][gpu]") {
  SegGpu gpu;
  HostYuvFrame yuv(1920, 1080, 32);
  gp::test::fill_realistic(yuv, 11);
  HostPackedFrame bgra(FrameFormat::bgra, 1237, 531, 9);
  gp::test::fill_realistic(bgra, 12);
  const FrameSource d_yuv = gpu.upload(yuv), d_bgra = gpu.upload(bgra);

  struct Case {
    const char* name;
    bool use_yuv;
    PreprocessParams p;
    int batch_index;
  };
  std::vector<Case> cases;
  PreprocessParams p;
  p.mode = ResizeMode::letterbox;
  cases.push_back({"yuv 1080p -> 256x256 letterbox f32", true, p, 2});
  p.width = 256;
  p.height = 144;
  p.mode = ResizeMode::stretch;
  p.type = TensorType::f16;
  cases.push_back({"yuv 1080p -> 256x144 stretch f16", true, p, 0});
  p.width = p.height = 256;
  p.mode = ResizeMode::letterbox;
  p.type = TensorType::f32;
  p.scale[0] = p.scale[1] = p.scale[2] = 2.0f / 255.0f;
  p.offset[0] = p.offset[1] = p.offset[2] = -1.0f;
  p.pad[0] = p.pad[1] = p.pad[2] = -1.0f;
  cases.push_back({"bgra 1237x531 -> 256x256 letterbox [-1, 1]", false, p, 1});
  p.width = 1000;  // enlarging (bilinear) and mild shrinking along the other axis
  p.height = 300;
  p.mode = ResizeMode::stretch;
  cases.push_back({"bgra 1237x531 -> 1000x300 stretch", false, p, 0});

  for (const Case& c : cases) {
    INFO(c.name);
    const int batch = 3;
    const std::size_t elements = std::size_t(batch) * c.p.width * c.p.height * 3;
    const std::size_t element_bytes = c.p.type == TensorType::f32 ? 4 : 2;
    std::vector<std::uint8_t> cpu_tensor(elements * element_bytes, 0);
    HostImage<float> cpu_luma(c.p.width, c.p.height, 1, PixelType::f32), gpu_luma(c.p.width, c.p.height, 1, PixelType::f32);
    const FrameSource host_frame = c.use_yuv ? yuv.frame() : bgra.frame();
    const Rect cpu_rect = preprocess_cpu(host_frame, c.p, cpu_tensor.data(), c.batch_index, &cpu_luma.view);

    void* d_tensor = gpu.alloc(elements * element_bytes);
    const ImageView d_luma = gpu.like(cpu_luma.view);
    const Rect gpu_rect = preprocess_gpu(c.use_yuv ? d_yuv : d_bgra, c.p, d_tensor, c.batch_index, &d_luma, gpu.stream());
    CHECK(gpu_rect == cpu_rect);
    const auto gpu_tensor = gpu.download_vector<std::uint8_t>(d_tensor, elements * element_bytes);
    gpu.download(d_luma, gpu_luma.view);
    const std::size_t item = std::size_t(c.p.width) * c.p.height * 3, first = item * c.batch_index;
    if (c.p.type == TensorType::f32) {
      const auto* a = reinterpret_cast<const float*>(cpu_tensor.data());
      const auto* b = reinterpret_cast<const float*>(gpu_tensor.data());
      double worst = 0;
      for (std::size_t i = first; i < first + item; ++i) worst = std::max(worst, double(std::fabs(a[i] - b[i])));
      CHECK(worst <= 1e-5);
    } else {
      const auto* a = reinterpret_cast<const std::uint16_t*>(cpu_tensor.data());
      const auto* b = reinterpret_cast<const std::uint16_t*>(gpu_tensor.data());
      int worst = 0;  // same sign (values here are >= 0): ulps = bit-pattern distance
      for (std::size_t i = first; i < first + item; ++i) worst = std::max(worst, std::abs(int(a[i]) - int(b[i])));
      CHECK(worst <= 1);
    }
    CHECK(max_float_diff(cpu_luma, gpu_luma) <= 1e-5);
  }
}

TEST_CASE("resize_frame and frame_luma GPU = CPU", "[segment_body][gpu]") {
  SegGpu gpu;
  HostYuvFrame yuv(1921, 1081, 3);  // odd: partial chroma blocks
  yuv.matrix = YuvMatrix::bt709;
  gp::test::fill_realistic(yuv, 21);
  HostPackedFrame rgb(FrameFormat::rgb, 800, 450);
  gp::test::fill_realistic(rgb, 22);
  const FrameSource d_yuv = gpu.upload(yuv), d_rgb = gpu.upload(rgb);
  for (int shape = 0; shape < 3; ++shape) {
    const int w = shape == 0 ? 1921 : shape == 1 ? 640 : 2000, h = shape == 0 ? 1081 : shape == 1 ? 360 : 900;
    HostImage<std::uint8_t> cpu(w, h, 3 + shape % 2, PixelType::u8), got(w, h, 3 + shape % 2, PixelType::u8);
    resize_frame_cpu(shape == 2 ? rgb.frame() : yuv.frame(), cpu.view);
    const ImageView d = gpu.like(cpu.view);
    resize_frame_gpu(shape == 2 ? d_rgb : d_yuv, d, gpu.stream());
    gpu.download(d, got.view);
    CHECK(max_byte_diff(cpu, got) <= 1);
  }
  for (int which = 0; which < 2; ++which) {
    const FrameSource host = which ? rgb.frame() : yuv.frame();
    HostImage<std::uint8_t> cpu(host.width, host.height, 1, PixelType::u8), got(host.width, host.height, 1, PixelType::u8);
    frame_luma_cpu(host, cpu.view);
    const ImageView d = gpu.like(cpu.view);
    frame_luma_gpu(which ? d_rgb : d_yuv, d, gpu.stream());
    gpu.download(d, got.view);
    CHECK(max_byte_diff(cpu, got) <= 1);
  }
}

TEST_CASE("temporal smoothing and mask upsampling GPU = CPU", "[segment_body][gpu]") {
  SegGpu gpu;
  const int w = 256, h = 256;
  HostImage<float> state(w, h, 1, PixelType::f32), prev(w, h, 1, PixelType::f32);
  const ImageView d_state = gpu.like(state.view), d_prev = gpu.like(prev.view);
  TemporalParams tp;
  tp.alpha = 0.3f;
  tp.motion_threshold = 0.05f;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> jitter(-0.08f, 0.08f);
  for (int frame = 0; frame < 4; ++frame) {
    const HostImage<float> mask = blob_mask(w, h, 100 + frame);
    HostImage<float> luma(w, h, 1, PixelType::f32);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) luma.at(x, y) = std::clamp(float(x) / w + jitter(rng), 0.0f, 1.0f);
    temporal_smooth_cpu(mask.view, luma.view, state.view, prev.view, tp, frame == 0);
    temporal_smooth_gpu(gpu.upload(mask.view), gpu.upload(luma.view), d_state, d_prev, tp, frame == 0, gpu.stream());
  }
  HostImage<float> got_state(w, h, 1, PixelType::f32), got_prev(w, h, 1, PixelType::f32);
  gpu.download(d_state, got_state.view);
  gpu.download(d_prev, got_prev.view);
  CHECK(max_float_diff(state, got_state) <= 1e-6);
  CHECK(max_float_diff(prev, got_prev) == 0.0);

  const Rect content{0, 56, 256, 144};
  const ImageView d_mask = gpu.upload(state.view);
  for (int kind = 0; kind < 3; ++kind) {
    const MaskOutput mode{kind == 2 ? MaskOutput::Kind::binary : MaskOutput::Kind::soft, 0.5f};
    if (kind == 0) {
      HostImage<float> cpu(1920, 1080, 1, PixelType::f32), got(1920, 1080, 1, PixelType::f32);
      upsample_mask_cpu(state.view, content, cpu.view, mode);
      const ImageView d = gpu.like(cpu.view);
      upsample_mask_gpu(d_mask, content, d, mode, gpu.stream());
      gpu.download(d, got.view);
      CHECK(max_float_diff(cpu, got) <= 1e-6);
    } else {
      HostImage<std::uint8_t> cpu(1920, 1080, 1, PixelType::u8), got(1920, 1080, 1, PixelType::u8);
      upsample_mask_cpu(state.view, content, cpu.view, mode);
      const ImageView d = gpu.like(cpu.view);
      upsample_mask_gpu(d_mask, content, d, mode, gpu.stream());
      gpu.download(d, got.view);
      CHECK(max_byte_diff(cpu, got) <= (kind == 1 ? 1 : 0));
    }
  }
}

TEST_CASE("guided filter GPU = CPU on a 1080p frame", "[segment_body][gpu]") {
  SegGpu gpu;
  const int w = 1920, h = 1080;
  HostYuvFrame yuv(w, h);
  gp::test::fill_realistic(yuv, 31);
  HostImage<std::uint8_t> guide(w, h, 1, PixelType::u8);
  frame_luma_cpu(yuv.frame(), guide.view);
  const HostImage<float> low = blob_mask(256, 144, 32);
  HostImage<float> mask(w, h, 1, PixelType::f32);
  upsample_mask_cpu(low.view, Rect{0, 0, 256, 144}, mask.view, MaskOutput{});
  const ImageView d_guide = gpu.upload(guide.view), d_mask = gpu.upload(mask.view);
  const std::size_t scratch_bytes = guided_filter_scratch_bytes(w, h, GuidedParams{});
  std::vector<float4> host_scratch(scratch_bytes / sizeof(float4) + 1);
  void* d_scratch = gpu.alloc(scratch_bytes);
  for (const GuidedParams gp_params : {GuidedParams{1, 1e-3f, 1}, GuidedParams{8, 1e-3f, 1}, GuidedParams{20, 1e-3f, 1},
                                      GuidedParams{8, 1e-3f, 4}, GuidedParams{16, 1e-3f, 3}}) {
    INFO("radius " << gp_params.radius << " subsample " << gp_params.subsample);
    HostImage<float> cpu(w, h, 1, PixelType::f32), got(w, h, 1, PixelType::f32);
    guided_filter_cpu(guide.view, mask.view, gp_params, cpu.view, MaskOutput{}, host_scratch.data(), scratch_bytes);
    const ImageView d_out = gpu.like(cpu.view);
    guided_filter_gpu(d_guide, d_mask, gp_params, d_out, MaskOutput{}, d_scratch, scratch_bytes, gpu.stream());
    gpu.download(d_out, got.view);
    CHECK(max_float_diff(cpu, got) <= 1e-5);

    HostImage<std::uint8_t> cpu8(w, h, 1, PixelType::u8), got8(w, h, 1, PixelType::u8);
    guided_filter_cpu(guide.view, mask.view, gp_params, cpu8.view, MaskOutput{}, host_scratch.data(), scratch_bytes);
    const ImageView d_out8 = gpu.like(cpu8.view);
    guided_filter_gpu(d_guide, d_mask, gp_params, d_out8, MaskOutput{}, d_scratch, scratch_bytes, gpu.stream());
    gpu.download(d_out8, got8.view);
    CHECK(max_byte_diff(cpu8, got8) <= 1);
  }
}

TEST_CASE("island removal GPU = CPU on a 1080p mask (exact)", "[segment_body][gpu]") {
  SegGpu gpu;
  const int w = 1920, h = 1080;
  // A binary mask with blobs of every size: big people-like regions, specks and holes.
  const HostImage<float> low = blob_mask(480, 270, 41);
  HostImage<float> up(w, h, 1, PixelType::f32);
  upsample_mask_cpu(low.view, Rect{0, 0, 480, 270}, up.view, MaskOutput{});
  HostImage<std::uint8_t> mask(w, h, 1, PixelType::u8);
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> speck(0, 999);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) mask.at(x, y) = (up.at(x, y) >= 0.5f) != (speck(rng) == 0) ? 255 : 0;
  const std::size_t scratch_bytes = island_scratch_bytes(w, h);
  std::vector<float4> host_scratch(scratch_bytes / sizeof(float4) + 1);
  void* d_scratch = gpu.alloc(scratch_bytes);
  for (const IslandParams p : {IslandParams{50, 0}, IslandParams{0, 200}, IslandParams{400, 400}}) {
    HostImage<std::uint8_t> cpu = mask, got(w, h, 1, PixelType::u8);
    cpu.view.data = cpu.storage.data();
    const ImageView d = gpu.packed_like(mask.view);
    gpu.upload(mask.view, d);
    remove_islands_cpu(cpu.view, p, host_scratch.data(), scratch_bytes);
    remove_islands_gpu(d, p, d_scratch, scratch_bytes, gpu.stream());
    gpu.download(d, got.view);
    CHECK(max_byte_diff(cpu, got) == 0);
    CHECK(max_byte_diff(cpu, mask) == 255);  // something was removed
  }
}

TEST_CASE("composite, Gaussian blur and RGB -> YUV 4:2:0 GPU = CPU", "[segment_body][gpu]") {
  SegGpu gpu;
  const int w = 1237, h = 531;
  HostYuvFrame yuv(w, h, 5);
  gp::test::fill_realistic(yuv, 51);
  const FrameSource d_yuv = gpu.upload(yuv);
  const HostImage<float> low = blob_mask(256, 144, 52);
  HostImage<std::uint8_t> alpha(w, h, 1, PixelType::u8);
  upsample_mask_cpu(low.view, Rect{0, 0, 256, 144}, alpha.view, MaskOutput{});
  const ImageView d_alpha = gpu.upload(alpha.view);

  // Blurred background (sigma 6), then each background kind.
  HostImage<std::uint8_t> blur_cpu(w, h, 3, PixelType::u8), blur_got(w, h, 3, PixelType::u8);
  const std::size_t blur_bytes = gaussian_blur_scratch_bytes(w, h);
  std::vector<float4> host_scratch(blur_bytes / sizeof(float4) + 1);
  gaussian_blur_cpu(yuv.frame(), 6.0f, blur_cpu.view, host_scratch.data(), blur_bytes);
  const ImageView d_blur = gpu.like(blur_cpu.view);
  gaussian_blur_gpu(d_yuv, 6.0f, d_blur, gpu.alloc(blur_bytes), blur_bytes, gpu.stream());
  gpu.download(d_blur, blur_got.view);
  CHECK(max_byte_diff(blur_cpu, blur_got) <= 1);

  // A strong blur the cheap way: a quarter-size copy blurred with sigma 20 / 4, enlarged by composite.
  HostImage<std::uint8_t> small(w / 4, h / 4, 3, PixelType::u8), small_blur_cpu(w / 4, h / 4, 3, PixelType::u8),
      small_blur_got(w / 4, h / 4, 3, PixelType::u8);
  resize_frame_cpu(yuv.frame(), small.view);
  const ImageView d_small = gpu.like(small.view), d_small_blur = gpu.like(small.view);
  resize_frame_gpu(d_yuv, d_small, gpu.stream());
  const FrameSource small_frame = packed_frame(FrameFormat::rgb, static_cast<const std::uint8_t*>(small.view.data),
                                               small.view.pitch, small.view.width, small.view.height);
  FrameSource d_small_frame = small_frame;
  d_small_frame.planes[0] = static_cast<const std::uint8_t*>(d_small.data);
  d_small_frame.pitches[0] = d_small.pitch;
  gaussian_blur_cpu(small_frame, 5.0f, small_blur_cpu.view, host_scratch.data(), blur_bytes);
  gaussian_blur_gpu(d_small_frame, 5.0f, d_small_blur, gpu.alloc(blur_bytes), blur_bytes, gpu.stream());
  gpu.download(d_small_blur, small_blur_got.view);
  CHECK(max_byte_diff(small_blur_cpu, small_blur_got) <= 1);

  for (int kind = 0; kind < 4; ++kind) {
    Background host_bg, dev_bg;
    host_bg.kind = dev_bg.kind = Background::Kind(std::min(kind, 2));
    host_bg.colour[1] = dev_bg.colour[1] = 200;
    host_bg.image = kind == 3 ? small_blur_cpu.view : blur_cpu.view;
    dev_bg.image = kind == 3 ? d_small_blur : d_blur;
    const int channels = kind == 0 ? 4 : 3;
    HostImage<std::uint8_t> cpu(w, h, channels, PixelType::u8), got(w, h, channels, PixelType::u8);
    composite_cpu(yuv.frame(), alpha.view, host_bg, cpu.view);
    const ImageView d_out = gpu.like(cpu.view);
    composite_gpu(d_yuv, d_alpha, dev_bg, d_out, gpu.stream());
    gpu.download(d_out, got.view);
    CHECK(max_byte_diff(cpu, got) <= 1);

    // The composite as YUV 4:2:0 for an encoder: RGBA through rgb_to_yuv420, the others in one pass.
    HostYuvFrame cpu_yuv(w, h), got_yuv(w, h);
    Yuv420Planes host_planes, dev_planes;
    host_planes.width = dev_planes.width = w;
    host_planes.height = dev_planes.height = h;
    for (int i = 0; i < 3; ++i) {
      host_planes.planes[i] = cpu_yuv.planes[i].data();
      host_planes.pitches[i] = cpu_yuv.pitch[i];
      dev_planes.pitches[i] = gp::test::padded_pitch(cpu_yuv.pitch[i]);
      dev_planes.planes[i] = static_cast<std::uint8_t*>(gpu.alloc(dev_planes.pitches[i] * (i ? chroma_size(h) : h)));
    }
    rgb_to_yuv420_cpu(cpu.view, host_planes, YuvMatrix::bt709, false);
    if (kind == 0)
      rgb_to_yuv420_gpu(d_out, dev_planes, YuvMatrix::bt709, false, gpu.stream());
    else  // the one-pass composite into YUV gives the same bytes
      composite_yuv420_gpu(d_yuv, d_alpha, dev_bg, dev_planes, YuvMatrix::bt709, false, gpu.stream());
    int worst = 0;
    for (int i = 0; i < 3; ++i) {
      const int rows = i ? chroma_size(h) : h, cols = i ? chroma_size(w) : w;
      ImageView host_view = gp::packed_view(got_yuv.planes[i].data(), cols, rows, 1, PixelType::u8);
      host_view.pitch = got_yuv.pitch[i];
      ImageView dev_view = host_view;
      dev_view.data = dev_planes.planes[i];
      dev_view.pitch = dev_planes.pitches[i];
      gpu.download(dev_view, host_view);
      for (int y = 0; y < rows; ++y)
        for (int x = 0; x < cols; ++x)
          worst = std::max(worst, std::abs(int(got_yuv.planes[i][got_yuv.pitch[i] * y + x]) -
                                           int(cpu_yuv.planes[i][cpu_yuv.pitch[i] * y + x])));
    }
    CHECK(worst <= 1);
  }
}

TEST_CASE("postprocess chain GPU = CPU over 3 frames of 1080p", "[segment_body][gpu]") {
  SegGpu gpu;
  const int w = 1920, h = 1080;
  HostYuvFrame yuv(w, h);
  gp::test::fill_realistic(yuv, 71);
  HostImage<std::uint8_t> guide(w, h, 1, PixelType::u8);
  frame_luma_cpu(yuv.frame(), guide.view);
  const ImageView d_guide = gpu.upload(guide.view);
  const Rect content{0, 56, 256, 144};
  for (int variant = 0; variant < 2; ++variant) {
    PostprocessParams p;
    p.output.kind = variant == 0 ? MaskOutput::Kind::soft : MaskOutput::Kind::binary;
    p.islands = IslandParams{300, 300};
    INFO("output " << (variant == 0 ? "soft" : "binary"));
    HostImage<float> state(256, 256, 1, PixelType::f32), prev(256, 256, 1, PixelType::f32);
    const ImageView d_state = gpu.like(state.view), d_prev = gpu.like(prev.view);
    const std::size_t bytes = postprocess_scratch_bytes(w, h, p);
    std::vector<float4> host_scratch(bytes / sizeof(float4) + 1);
    void* d_scratch = gpu.alloc(bytes);
    for (int frame = 0; frame < 3; ++frame) {
      const HostImage<float> model = blob_mask(256, 256, 80 + frame);
      HostImage<float> luma(256, 256, 1, PixelType::f32);
      for (int y = 0; y < 256; ++y)
        for (int x = 0; x < 256; ++x) luma.at(x, y) = (x < 128 || frame == 0) ? 0.5f : 0.1f * frame;
      HostImage<std::uint8_t> cpu(w, h, 1, PixelType::u8), got(w, h, 1, PixelType::u8);
      postprocess_cpu(model.view, luma.view, TemporalState{state.view, prev.view}, frame == 0, content, guide.view, p,
                      cpu.view, host_scratch.data(), bytes);
      const ImageView d_out = gpu.packed_like(cpu.view);
      postprocess_gpu(gpu.upload(model.view), gpu.upload(luma.view), TemporalState{d_state, d_prev}, frame == 0,
                      content, d_guide, p, d_out, d_scratch, bytes, gpu.stream());
      gpu.download(d_out, got.view);
      // Both sides compute the same floats; a soft value one level off at the threshold would move
      // an island's side, so this asks for identity.
      CHECK(max_byte_diff(cpu, got) == 0);
    }
  }
}

TEST_CASE("segment-body 1080p kernel timings (printed)", "[segment_body][gpu]") {
  SegGpu gpu;
  const int w = 1920, h = 1080;
  HostYuvFrame yuv(w, h);
  gp::test::fill_realistic(yuv, 61);
  const FrameSource d_yuv = gpu.upload(yuv);
  PreprocessParams p;
  p.mode = ResizeMode::letterbox;
  p.type = TensorType::f16;
  void* d_tensor = gpu.alloc(std::size_t(64) * 256 * 256 * 3 * 2);
  HostImage<float> model_mask = blob_mask(256, 256, 62);
  const ImageView d_model = gpu.upload(model_mask.view);
  const ImageView d_luma = gpu.like(model_mask.view), d_state = gpu.like(model_mask.view),
                  d_prev = gpu.like(model_mask.view);
  HostImage<float> full(w, h, 1, PixelType::f32);
  HostImage<std::uint8_t> full8(w, h, 1, PixelType::u8), rgb(w, h, 3, PixelType::u8);
  const ImageView d_full = gpu.like(full.view), d_guide = gpu.like(full8.view), d_bin = gpu.packed_like(full8.view),
                  d_rgb = gpu.like(rgb.view), d_blur = gpu.like(rgb.view);
  void* d_guided = gpu.alloc(guided_filter_scratch_bytes(w, h, GuidedParams{}));
  void* d_islands = gpu.alloc(island_scratch_bytes(w, h));
  void* d_blur_scratch = gpu.alloc(gaussian_blur_scratch_bytes(w, h));
  Rect content;
  const double t_pre = gpu.best_ms([&] { content = preprocess_gpu(d_yuv, p, d_tensor, 5, &d_luma, gpu.stream()); });
  temporal_smooth_gpu(d_model, d_luma, d_state, d_prev, TemporalParams{}, true, gpu.stream());  // defined state
  const double t_temporal = gpu.best_ms(
      [&] { temporal_smooth_gpu(d_model, d_luma, d_state, d_prev, TemporalParams{}, false, gpu.stream()); });
  const double t_up = gpu.best_ms([&] { upsample_mask_gpu(d_state, content, d_full, MaskOutput{}, gpu.stream()); });
  const double t_luma = gpu.best_ms([&] { frame_luma_gpu(d_yuv, d_guide, gpu.stream()); });
  const double t_guided = gpu.best_ms([&] {
    guided_filter_gpu(d_guide, d_full, GuidedParams{}, d_bin, MaskOutput{MaskOutput::Kind::binary, 0.5f}, d_guided,
                      guided_filter_scratch_bytes(w, h, GuidedParams{}), gpu.stream());
  });
  const double t_fast_guided = gpu.best_ms([&] {
    guided_filter_gpu(d_guide, d_full, GuidedParams{8, 1e-3f, 4}, d_bin, MaskOutput{MaskOutput::Kind::binary, 0.5f},
                      d_guided, guided_filter_scratch_bytes(w, h, GuidedParams{}), gpu.stream());
  });
  const double t_islands = gpu.best_ms([&] {
    remove_islands_gpu(d_bin, IslandParams{2000, 2000}, d_islands, island_scratch_bytes(w, h), gpu.stream());
  });
  const double t_blur = gpu.best_ms(
      [&] { gaussian_blur_gpu(d_yuv, 8.0f, d_blur, d_blur_scratch, gaussian_blur_scratch_bytes(w, h), gpu.stream()); });
  HostImage<std::uint8_t> quarter(w / 4, h / 4, 3, PixelType::u8);
  const ImageView d_quarter = gpu.like(quarter.view), d_quarter_blur = gpu.like(quarter.view);
  FrameSource quarter_frame = packed_frame(FrameFormat::rgb, static_cast<const std::uint8_t*>(d_quarter.data),
                                           d_quarter.pitch, d_quarter.width, d_quarter.height);
  const double t_quarter_blur = gpu.best_ms([&] {
    resize_frame_gpu(d_yuv, d_quarter, gpu.stream());
    gaussian_blur_gpu(quarter_frame, 5.0f, d_quarter_blur, d_blur_scratch, gaussian_blur_scratch_bytes(w, h),
                      gpu.stream());
  });
  Background bg;
  bg.kind = Background::Kind::image;
  bg.image = d_blur;
  const double t_comp = gpu.best_ms([&] { composite_gpu(d_yuv, d_bin, bg, d_rgb, gpu.stream()); });
  bg.image = d_quarter_blur;
  const double t_comp_quarter = gpu.best_ms([&] { composite_gpu(d_yuv, d_bin, bg, d_rgb, gpu.stream()); });
  Yuv420Planes yuv_out;
  yuv_out.width = w;
  yuv_out.height = h;
  for (int i = 0; i < 3; ++i) {
    yuv_out.pitches[i] = gp::test::padded_pitch(std::size_t(i ? chroma_size(w) : w));
    yuv_out.planes[i] = static_cast<std::uint8_t*>(gpu.alloc(yuv_out.pitches[i] * (i ? chroma_size(h) : h)));
  }
  const double t_comp_yuv = gpu.best_ms(
      [&] { composite_yuv420_gpu(d_yuv, d_bin, bg, yuv_out, YuvMatrix::bt709, false, gpu.stream()); });
  PostprocessParams pp;
  pp.islands = IslandParams{2000, 2000};
  void* d_post = gpu.alloc(postprocess_scratch_bytes(w, h, pp));
  const double t_post = gpu.best_ms([&] {
    postprocess_gpu(d_model, d_luma, TemporalState{d_state, d_prev}, false, content, d_guide, pp, d_bin, d_post,
                    postprocess_scratch_bytes(w, h, pp), gpu.stream());
  });
  WARN("1080p segment-body kernels, best of 5 (ms, wall incl. launch): preprocess->256 letterbox f16 "
       << t_pre << ", temporal 256^2 " << t_temporal << ", upsample " << t_up << ", luma " << t_luma
       << ", guided r8 -> binary " << t_guided << " (subsample 4: " << t_fast_guided
       << "), islands fg+holes " << t_islands << ", blur sigma 8 " << t_blur
       << ", 1/4 resize + blur sigma 5 " << t_quarter_blur << ", composite " << t_comp << " (over the 1/4 blur "
       << t_comp_quarter << ", straight to YUV 4:2:0 " << t_comp_yuv << "), postprocess chain soft + islands " << t_post);
  CHECK(t_pre > 0);
}

TEST_CASE("person masks paste GPU = CPU: rotated ROIs of several people, some skipped", "[segment_body][gpu]") {
  SegGpu gpu;
  const int S = 256, people = 5;
  std::vector<float> logits;
  for (int k = 0; k < people; ++k) {
    const HostImage<float> m = blob_mask(S, S, 300 + unsigned(k));
    for (int y = 0; y < S; ++y)
      for (int x = 0; x < S; ++x) logits.push_back(12.0f * (m.at(x, y) - 0.5f));  // logits around 0
  }
  // 1920 x 1080 frame: ROIs of several sizes and turns, one partly outside, one skipped (size 0).
  const gp::detect::Roi rois[people] = {{500, 500, 600, 0.3f},   {1200, 400, 350, -1.2f}, {1850, 1000, 500, 2.5f},
                                        {900, 600, 0, 0.0f},     {960, 540, 1400, 0.05f}};
  const void* d_logits = gpu.upload_bytes(logits.data(), logits.size() * sizeof(float));
  const void* d_rois = gpu.upload_bytes(rois, sizeof(rois));
  PersonMasks host_people{logits.data(), rois, people, S, 1920, 1080};
  PersonMasks device_people{static_cast<const float*>(d_logits), static_cast<const gp::detect::Roi*>(d_rois), people, S,
                            1920, 1080};
  for (int side : {512, 300}) {
    HostImage<float> cpu(side, side, 1, PixelType::f32), got(side, side, 1, PixelType::f32);
    paste_person_masks_cpu(host_people, cpu.view);
    const ImageView d = gpu.like(cpu.view);
    paste_person_masks_gpu(device_people, d, gpu.stream());
    gpu.download(d, got.view);
    INFO("canvas " << side);
    CHECK(max_float_diff(cpu, got) <= 1e-6);
    // Not trivially zero: the people cover part of the canvas and leave the rest.
    double covered = 0;
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x) covered += cpu.at(x, y) > 0.5f;
    CHECK(covered > 0.05 * side * side);
    CHECK(covered < 0.95 * side * side);
  }
}
