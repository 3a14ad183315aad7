// Every tone operator kernel (cuda/tone: tonemap-exr and stitch-360's previews use them) against
// its CPU reference (itself checked against hand-computed values in kernels_test.cpp), on
// realistic images: gradients plus noise over 1e-3..1e3, odd sizes, pitched and unaligned device
// buffers. Tolerances:
//   to_rgba_f32: exact (f16 -> f32 and f32 copies are exact on both sides);
//   auto exposure: scale and log-average within 1e-4 relative (the bins are bit-identical by design,
//     only the double sum's order and exp2f's last bits differ);
//   tone curves and resampling: 1e-5 relative (+1e-6 absolute near 0): CUDA's powf/log2f/sinf and
//     fused multiply-adds differ from glibc's in the last bits;
//   encode: within 1 LSB (a value at a rounding midpoint may round either way), alpha exact.
#include <catch2/catch.hpp>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "cuda/tone/tone_kernels.hpp"

using namespace gp::tone;
using gp::ImageView;
using gp::PixelType;

namespace {

constexpr int test_width = 1237, test_height = 531;  // odd sizes: partial blocks in x and y

// Host image, packed unless padding is asked for; 16-byte aligned storage.
struct HostImage {
  std::vector<float4> storage;
  ImageView view;
  HostImage(int width, int height, int channels, PixelType type, std::size_t row_padding = 0) {
    view = gp::packed_view(nullptr, width, height, channels, type);
    view.pitch = view.row_bytes() + row_padding;
    storage.resize(view.pitch * std::size_t(height) / 16 + 1);
    view.data = storage.data();
  }
  template <class T>
  T& at(int x, int y, int c = 0) const {
    return view.row<T>(y)[std::size_t(x) * view.channels + c];
  }
  float4& px(int x, int y) const { return view.row<float4>(y)[x]; }
};

// Device copy of an image with its own pitch (and optionally a byte offset from the allocation's
// start, for unaligned outputs).
struct DeviceImage {
  gp::DeviceBuffer buffer;
  ImageView view;
};

class Gpu {
 public:
  Gpu() : rt_(gp::RuntimeOptions{}), stream_(rt_.make_stream()) {}
  cudaStream_t stream() const { return stream_.get(); }
  void sync() { stream_.synchronize("test"); }

  gp::DeviceBuffer alloc(std::size_t bytes) { return rt_.device_alloc(std::max<std::size_t>(bytes, 1), stream_, "test"); }

  DeviceImage empty_like(const ImageView& v, std::size_t pitch, std::size_t offset = 0) {
    DeviceImage d;
    d.buffer = alloc(pitch * std::size_t(v.height) + offset);
    d.view = v;
    d.view.pitch = pitch;
    d.view.data = d.buffer.as<char>() + offset;
    return d;
  }
  DeviceImage upload(const HostImage& h, std::size_t pitch, std::size_t offset = 0) {
    DeviceImage d = empty_like(h.view, pitch, offset);
    stream_.copy_2d(d.view.data, pitch, h.view.data, h.view.pitch, h.view.row_bytes(), std::size_t(h.view.height));
    return d;
  }
  HostImage download(const ImageView& d) {
    HostImage h(d.width, d.height, d.channels, d.type);
    stream_.copy_2d(h.view.data, h.view.pitch, d.data, d.pitch, d.row_bytes(), std::size_t(d.height));
    sync();
    return h;
  }
  std::vector<float> download_floats(const void* d, std::size_t count) {
    std::vector<float> out(count);
    stream_.copy_to_host(out.data(), d, count * sizeof(float));
    sync();
    return out;
  }
  void upload_floats(void* d, const std::vector<float>& values) {
    stream_.copy_to_device(d, values.data(), values.size() * sizeof(float));
    sync();
  }

 private:
  gp::Runtime rt_;
  gp::Stream stream_;
};

std::size_t padded_pitch(const ImageView& v, std::size_t padding) { return (v.row_bytes() + padding + 255) / 256 * 256; }

// Scene-linear test image over about 1e-3..1e3: a diagonal log-space gradient, per-channel tints,
// 5% multiplicative noise, a dark corner block, a few hot pixels, and alpha as a horizontal ramp.
HostImage hdr_image(int w, int h, unsigned seed = 1) {
  HostImage img(w, h, 4, PixelType::f32);
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(1.0f, 0.05f);
  std::uniform_int_distribution<int> hot(0, 999);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float t = (float(x) / float(w) + float(y) / float(h)) * 0.5f;
      float base = std::exp2(-10.0f + 20.0f * t);  // 2^-10 .. 2^10
      if (x < w / 8 && y < h / 8) base *= 1e-3f;
      if (hot(rng) == 0) base = 1e3f;
      img.px(x, y) = float4{base * 1.2f * noise(rng), base * noise(rng), base * 0.7f * noise(rng),
                            float(x) / float(w - 1)};
    }
  return img;
}

// Display-range image in [0, 1] (what resample and encode see in the pipeline).
HostImage display_image(int w, int h, unsigned seed = 2) {
  HostImage img = hdr_image(w, h, seed);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float4& p = img.px(x, y);
      p = float4{p.x / (1 + p.x), p.y / (1 + p.y), p.z / (1 + p.z), p.w};
    }
  return img;
}

// Counts values of two RGBA float images differing by more than rel * |ref| + abs.
int count_float_mismatches(const HostImage& got, const HostImage& ref, double rel, double abs) {
  REQUIRE(got.view.width == ref.view.width);
  REQUIRE(got.view.height == ref.view.height);
  int bad = 0;
  double worst = 0;  // largest error as a fraction of its tolerance
  for (int y = 0; y < ref.view.height; ++y)
    for (int x = 0; x < ref.view.width; ++x) {
      const float g[4] = {got.px(x, y).x, got.px(x, y).y, got.px(x, y).z, got.px(x, y).w};
      const float r[4] = {ref.px(x, y).x, ref.px(x, y).y, ref.px(x, y).z, ref.px(x, y).w};
      for (int c = 0; c < 4; ++c) {
        const double err = std::fabs(double(g[c]) - r[c]), tolerance = rel * std::fabs(r[c]) + abs;
        if (tolerance > 0) worst = std::max(worst, err / tolerance);
        if (!(err <= tolerance)) {
          if (bad < 5) UNSCOPED_INFO("(" << x << ", " << y << ") channel " << c << ": gpu " << g[c] << " cpu " << r[c]);
          ++bad;
        }
      }
    }
  UNSCOPED_INFO("worst error / tolerance: " << worst);
  return bad;
}

}  // namespace

TEST_CASE("to_rgba_f32_gpu matches the CPU exactly", "[tonemap][gpu]") {
  Gpu gpu;
  const HostImage hdr = hdr_image(test_width, test_height);
  struct Case {
    PixelType type;
    int channels;
    ChannelMap map;
    std::size_t pitch_padding;
  };
  ChannelMap rgba, bgr, mono, ya;
  rgba.index[3] = 3;
  bgr.index[0] = 2;
  bgr.index[2] = 0;
  mono.index[1] = mono.index[2] = 0;
  ya.index[1] = ya.index[2] = 0;
  ya.index[3] = 1;
  const Case cases[] = {{PixelType::f16, 4, rgba, 0},  {PixelType::f16, 4, rgba, 6},  // vector / scalar loads
                        {PixelType::f16, 3, bgr, 10},  {PixelType::f32, 4, rgba, 0},
                        {PixelType::f32, 4, bgr, 12},  {PixelType::f32, 1, mono, 4},
                        {PixelType::f16, 2, ya, 0}};
  for (const Case& k : cases) {
    INFO("type " << int(k.type) << ", " << k.channels << " channels, padding " << k.pitch_padding);
    HostImage src(test_width, test_height, k.channels, k.type);
    for (int y = 0; y < test_height; ++y)
      for (int x = 0; x < test_width; ++x) {
        const float4 p = hdr.px(x, y);
        const float v[4] = {p.x, p.y, p.z, p.w};
        for (int c = 0; c < k.channels; ++c) {
          if (k.type == PixelType::f16)
            src.at<__half>(x, y, c) = __float2half(v[c]);
          else
            src.at<float>(x, y, c) = v[c];
        }
      }
    HostImage expected(test_width, test_height, 4, PixelType::f32);
    to_rgba_f32_cpu(src.view, k.map, expected.view);

    // A padding that is not a multiple of the pixel size leaves rows unaligned for vector loads.
    const std::size_t pitch = src.view.row_bytes() + k.pitch_padding;
    DeviceImage d_src = gpu.upload(src, pitch);
    DeviceImage d_dst = gpu.empty_like(expected.view, padded_pitch(expected.view, 64));
    to_rgba_f32_gpu(d_src.view, k.map, d_dst.view, gpu.stream());
    const HostImage got = gpu.download(d_dst.view);
    CHECK(count_float_mismatches(got, expected, 0.0, 0.0) == 0);
  }
}

TEST_CASE("auto_exposure_gpu matches the CPU", "[tonemap][gpu]") {
  Gpu gpu;
  const HostImage img = hdr_image(test_width, test_height, 3);
  DeviceImage d_img = gpu.upload(img, padded_pitch(img.view, 48));
  const std::size_t scratch_bytes = auto_exposure_scratch_bytes(test_width, test_height);
  gp::DeviceBuffer scratch = gpu.alloc(scratch_bytes);
  gp::DeviceBuffer d_out = gpu.alloc(2 * sizeof(float));

  struct Case {
    float low, high, key, base;
  };
  for (const Case& k : {Case{0, 100, 0.18f, 1}, Case{5, 95, 0.18f, 1}, Case{50, 99.5f, 0.25f, 2}, Case{0, 10, 0.18f, 0.5f},
                        Case{90, 100, 0.18f, 1}}) {
    INFO("percentiles " << k.low << ".." << k.high << ", key " << k.key << ", base " << k.base);
    AutoExposureParams p;
    p.percentile_low = k.low;
    p.percentile_high = k.high;
    p.key = k.key;
    float expected[2];
    auto_exposure_cpu(img.view, p, k.base, expected);
    auto_exposure_gpu(d_img.view, p, k.base, d_out.as<float>(), scratch.get(), scratch_bytes, gpu.stream());
    const std::vector<float> got = gpu.download_floats(d_out.get(), 2);
    CHECK(got[0] == Approx(expected[0]).epsilon(1e-4));
    CHECK(got[1] == Approx(expected[1]).epsilon(1e-4));
  }

  SECTION("an empty image gives base * key on both paths") {
    HostImage empty(0, 0, 4, PixelType::f32);
    float expected[2];
    auto_exposure_cpu(empty.view, AutoExposureParams{}, 1.0f, expected);
    DeviceImage d_empty = gpu.empty_like(empty.view, 256);
    const std::size_t bytes = auto_exposure_scratch_bytes(0, 0);
    gp::DeviceBuffer s = gpu.alloc(bytes);
    auto_exposure_gpu(d_empty.view, AutoExposureParams{}, 1.0f, d_out.as<float>(), s.get(), bytes, gpu.stream());
    const std::vector<float> got = gpu.download_floats(d_out.get(), 2);
    CHECK(got[0] == expected[0]);
    CHECK(got[1] == expected[1]);
  }
}

TEST_CASE("tonemap_gpu matches the CPU for every operator", "[tonemap][gpu]") {
  Gpu gpu;
  const HostImage img = hdr_image(test_width, test_height, 4);
  gp::DeviceBuffer d_scale = gpu.alloc(sizeof(float));
  const float scale = 0.7f;
  gpu.upload_floats(d_scale.get(), {scale});
  const Operator operators[] = {Operator::linear, Operator::reinhard,       Operator::reinhard_extended,
                                Operator::hable,  Operator::aces_narkowicz, Operator::aces_hill,
                                Operator::agx,    Operator::pbr_neutral};
  for (Operator op : operators)
    for (bool premultiplied : {true, false}) {  // the test image's alpha ramps from 0 to 1
      INFO("operator " << int(op) << (premultiplied ? ", premultiplied" : ", straight"));
      ToneParams p;
      p.op = op;
      p.premultiplied = premultiplied;
      p.white = op == Operator::reinhard_extended ? 16.0f : 11.2f;
      HostImage expected(test_width, test_height, 4, PixelType::f32);
      tonemap_cpu(img.view, expected.view, p, &scale);
      DeviceImage d_img = gpu.upload(img, padded_pitch(img.view, 16));
      tonemap_gpu(d_img.view, d_img.view, p, d_scale.as<const float>(), gpu.stream());  // in place
      CHECK(count_float_mismatches(gpu.download(d_img.view), expected, 1e-5, 1e-6) == 0);
    }
}

TEST_CASE("resample_gpu matches the CPU", "[tonemap][gpu]") {
  Gpu gpu;
  const HostImage display = display_image(test_width, test_height);
  const HostImage hdr = hdr_image(test_width, test_height, 5);
  struct Size {
    int w, h;
  };
  const Size sizes[] = {{619, 266}, {256, 110}, {1500, 700}, {test_width, test_height}, {3, 2}, {1, 1}, {2000, 97}};
  for (Filter f : {Filter::box, Filter::triangle, Filter::lanczos3})
    for (const Size& s : sizes)
      for (bool use_hdr : {false, true}) {
        if (use_hdr && f == Filter::lanczos3) continue;  // negative lobes over 1e6 contrast: no relative bound
        INFO("filter " << int(f) << " -> " << s.w << "x" << s.h << (use_hdr ? " HDR" : " display"));
        const HostImage& src = use_hdr ? hdr : display;
        HostImage expected(s.w, s.h, 4, PixelType::f32);
        resample_cpu(src.view, expected.view, f);
        DeviceImage d_src = gpu.upload(src, padded_pitch(src.view, 32));
        DeviceImage d_dst = gpu.empty_like(expected.view, padded_pitch(expected.view, 16));
        const std::size_t bytes = resample_scratch_bytes(src.view.width, src.view.height, s.w, s.h);
        gp::DeviceBuffer scratch = gpu.alloc(bytes);
        resample_gpu(d_src.view, d_dst.view, f, scratch.get(), gpu.stream());
        CHECK(count_float_mismatches(gpu.download(d_dst.view), expected, 1e-5, use_hdr ? 1e-9 : 1e-6) == 0);
      }
}

TEST_CASE("encode_gpu matches the CPU within 1 LSB", "[tonemap][gpu]") {
  Gpu gpu;
  const HostImage src = display_image(test_width, test_height, 6);
  DeviceImage d_src = gpu.upload(src, padded_pitch(src.view, 0));
  for (PixelType type : {PixelType::u8, PixelType::u16})
    for (int channels : {3, 4})
      for (Transfer transfer : {Transfer::srgb, Transfer::gamma, Transfer::linear})
        for (bool dither : {false, true})
          for (std::size_t offset : {std::size_t(0), std::size_t(2)}) {  // 2: unaligned start, scalar stores
            INFO("type " << int(type) << ", " << channels << " channels, transfer " << int(transfer) << ", dither "
                         << dither << ", offset " << offset);
            EncodeParams p;
            p.transfer = transfer;
            p.gamma = 2.4f;
            p.dither = dither;
            p.seed = 1234;
            p.unpremultiply = offset == 0;  // the alpha ramp exercises both
            HostImage expected(test_width, test_height, channels, type);
            encode_cpu(src.view, expected.view, p);
            DeviceImage d_dst = gpu.empty_like(expected.view, expected.view.row_bytes(), offset);  // packed
            encode_gpu(d_src.view, d_dst.view, p, gpu.stream());
            const HostImage got = gpu.download(d_dst.view);
            int off_by_one = 0, worse = 0;
            for (int y = 0; y < test_height; ++y)
              for (int x = 0; x < test_width; ++x)
                for (int c = 0; c < channels; ++c) {
                  const long g = type == PixelType::u8 ? long(got.at<std::uint8_t>(x, y, c)) : long(got.at<std::uint16_t>(x, y, c));
                  const long e = type == PixelType::u8 ? long(expected.at<std::uint8_t>(x, y, c))
                                                       : long(expected.at<std::uint16_t>(x, y, c));
                  const long diff = std::labs(g - e);
                  if (c == 3 ? diff != 0 : diff > 1) ++worse;
                  off_by_one += diff == 1;
                }
            CHECK(worse == 0);
            CHECK(off_by_one < test_width * test_height / 100);  // rounding-midpoint cases only
          }
}

TEST_CASE("the whole chain on the GPU matches the CPU chain", "[tonemap][gpu]") {
  // f16 RGBA source -> RGBA float -> auto exposure (scale stays on the device) -> AgX -> 2x lanczos
  // MIP -> 8-bit sRGB with dither.
  Gpu gpu;
  const HostImage hdr = hdr_image(test_width, test_height, 7);
  HostImage src(test_width, test_height, 4, PixelType::f16);
  for (int y = 0; y < test_height; ++y)
    for (int x = 0; x < test_width; ++x) {
      const float4 p = hdr.px(x, y);
      src.at<__half>(x, y, 0) = __float2half(p.x);
      src.at<__half>(x, y, 1) = __float2half(p.y);
      src.at<__half>(x, y, 2) = __float2half(p.z);
      src.at<__half>(x, y, 3) = __float2half(p.w);
    }
  ChannelMap map;
  map.index[3] = 3;
  AutoExposureParams exposure;
  exposure.percentile_low = 2;
  exposure.percentile_high = 98;
  ToneParams tone;
  tone.op = Operator::agx;
  EncodeParams encode;
  encode.dither = true;
  encode.seed = 99;
  const int mip_w = (test_width + 1) / 2, mip_h = (test_height + 1) / 2;

  HostImage rgba(test_width, test_height, 4, PixelType::f32), mip(mip_w, mip_h, 4, PixelType::f32);
  HostImage expected(mip_w, mip_h, 4, PixelType::u8);
  float scale[2];
  to_rgba_f32_cpu(src.view, map, rgba.view);
  auto_exposure_cpu(rgba.view, exposure, 1.0f, scale);
  tonemap_cpu(rgba.view, rgba.view, tone, scale);
  resample_cpu(rgba.view, mip.view, Filter::lanczos3);
  encode_cpu(mip.view, expected.view, encode);

  DeviceImage d_src = gpu.upload(src, src.view.row_bytes());
  DeviceImage d_rgba = gpu.empty_like(rgba.view, rgba.view.row_bytes());
  DeviceImage d_mip = gpu.empty_like(mip.view, mip.view.row_bytes());
  DeviceImage d_out = gpu.empty_like(expected.view, expected.view.row_bytes());
  gp::DeviceBuffer d_scale = gpu.alloc(2 * sizeof(float));
  const std::size_t exposure_bytes = auto_exposure_scratch_bytes(test_width, test_height);
  gp::DeviceBuffer exposure_scratch = gpu.alloc(exposure_bytes);
  gp::DeviceBuffer resample_scratch = gpu.alloc(resample_scratch_bytes(test_width, test_height, mip_w, mip_h));
  to_rgba_f32_gpu(d_src.view, map, d_rgba.view, gpu.stream());
  auto_exposure_gpu(d_rgba.view, exposure, 1.0f, d_scale.as<float>(), exposure_scratch.get(), exposure_bytes,
                    gpu.stream());
  tonemap_gpu(d_rgba.view, d_rgba.view, tone, d_scale.as<const float>(), gpu.stream());
  resample_gpu(d_rgba.view, d_mip.view, Filter::lanczos3, resample_scratch.get(), gpu.stream());
  encode_gpu(d_mip.view, d_out.view, encode, gpu.stream());
  const HostImage got = gpu.download(d_out.view);
  CHECK(gpu.download_floats(d_scale.get(), 1)[0] == Approx(scale[0]).epsilon(1e-4));

  int worse = 0, off_by_one = 0;
  for (int y = 0; y < mip_h; ++y)
    for (int x = 0; x < mip_w; ++x)
      for (int c = 0; c < 4; ++c) {
        const int diff = std::abs(int(got.at<std::uint8_t>(x, y, c)) - int(expected.at<std::uint8_t>(x, y, c)));
        worse += diff > 1;
        off_by_one += diff == 1;
      }
  CHECK(worse == 0);
  CHECK(off_by_one < mip_w * mip_h / 100);
}

TEST_CASE("the kernels accept empty images and refuse bad views", "[tonemap][gpu]") {
  Gpu gpu;
  HostImage empty(0, 0, 4, PixelType::f32);
  DeviceImage d_empty = gpu.empty_like(empty.view, 256);
  gp::DeviceBuffer d_scale = gpu.alloc(sizeof(float));
  CHECK_NOTHROW(tonemap_gpu(d_empty.view, d_empty.view, ToneParams{}, d_scale.as<const float>(), gpu.stream()));
  HostImage empty_u8(0, 0, 4, PixelType::u8);
  DeviceImage d_empty_u8 = gpu.empty_like(empty_u8.view, 256);
  CHECK_NOTHROW(encode_gpu(d_empty.view, d_empty_u8.view, EncodeParams{}, gpu.stream()));
  gpu.sync();

  HostImage rgb(8, 8, 3, PixelType::f32);
  DeviceImage d_rgb = gpu.empty_like(rgb.view, 256);
  HostImage rgba(8, 8, 4, PixelType::f32);
  DeviceImage d_rgba = gpu.empty_like(rgba.view, 256);
  CHECK_THROWS_AS(tonemap_gpu(d_rgb.view, d_rgba.view, ToneParams{}, d_scale.as<const float>(), gpu.stream()), gp::Error);
  ImageView misaligned = d_rgba.view;
  misaligned.pitch = 8 * 16 + 4;
  CHECK_THROWS_AS(tonemap_gpu(misaligned, d_rgba.view, ToneParams{}, d_scale.as<const float>(), gpu.stream()), gp::Error);
  gp::DeviceBuffer small = gpu.alloc(64);
  CHECK_THROWS_AS(auto_exposure_gpu(d_rgba.view, AutoExposureParams{}, 1.0f, d_scale.as<float>(), small.get(), 64,
                                    gpu.stream()),
                  gp::Error);
}
