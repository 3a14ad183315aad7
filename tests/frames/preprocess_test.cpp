// CPU references of the shared frame preprocess (cuda/frames/preprocess.hpp) on hand-made
// frames with known answers: letterbox geometry and padding, YUV -> RGB of known colours, exact
// pixels at scale 1, area averaging against aliasing, normalisation, FP16 and batch placement.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "cuda/frames/frame_math.hpp"
#include "cuda/frames/preprocess.hpp"
#include "cuda/common/half.hpp"
#include "support/test_frames.hpp"

using namespace gp::frames;
using gp::test::HostImage;
using gp::test::HostPackedFrame;
using gp::test::HostYuvFrame;

namespace {

PreprocessParams params(int w, int h, ResizeMode mode) {
  PreprocessParams p;
  p.width = w;
  p.height = h;
  p.mode = mode;
  return p;
}

// Model pixel (x, y) channel c of item b in an f32 NHWC tensor.
float at(const std::vector<float>& t, const PreprocessParams& p, int b, int x, int y, int c) {
  return t[((std::size_t(b) * p.height + y) * p.width + x) * 3 + c];
}

}  // namespace

TEST_CASE("content_rect: stretch fills the input, letterbox keeps the aspect centred", "[segment_body]") {
  CHECK(content_rect(1920, 1080, params(256, 256, ResizeMode::stretch)) == Rect{0, 0, 256, 256});
  CHECK(content_rect(1920, 1080, params(256, 256, ResizeMode::letterbox)) == Rect{0, 56, 256, 144});
  CHECK(content_rect(1080, 1920, params(256, 256, ResizeMode::letterbox)) == Rect{56, 0, 144, 256});
  CHECK(content_rect(1920, 1080, params(256, 144, ResizeMode::letterbox)) == Rect{0, 0, 256, 144});
  CHECK(content_rect(640, 480, params(256, 144, ResizeMode::letterbox)) == Rect{32, 0, 192, 144});
  // Odd margin: the extra pixel goes below.
  CHECK(content_rect(100, 51, params(10, 10, ResizeMode::letterbox)) == Rect{0, 2, 10, 5});
  CHECK(content_rect(10000, 1, params(16, 16, ResizeMode::letterbox)) == Rect{0, 7, 16, 1});
}

TEST_CASE("YUV -> RGB of known colours, BT.601/BT.709, limited and full range", "[segment_body]") {
  using math::yuv_to_rgb;
  auto near = [](math::Rgb c, float r, float g, float b, float tol) {
    return std::fabs(c.r - r) <= tol && std::fabs(c.g - g) <= tol && std::fabs(c.b - b) <= tol;
  };
  CHECK(near(yuv_to_rgb(16, 128, 128, YuvMatrix::bt601, false), 0, 0, 0, 1e-4f));
  CHECK(near(yuv_to_rgb(235, 128, 128, YuvMatrix::bt601, false), 255, 255, 255, 1e-3f));
  CHECK(near(yuv_to_rgb(0, 128, 128, YuvMatrix::bt601, false), 0, 0, 0, 0));  // below black clamps
  CHECK(near(yuv_to_rgb(128, 128, 128, YuvMatrix::bt709, true), 128, 128, 128, 1e-4f));
  // Exact code values of the primaries (unrounded): the conversion inverts rgb_to_yuv.
  for (YuvMatrix m : {YuvMatrix::bt601, YuvMatrix::bt709})
    for (bool full : {false, true}) {
      const math::Rgb red = math::rgb_to_yuv({255, 0, 0}, m, full), green = math::rgb_to_yuv({0, 255, 0}, m, full);
      CHECK(near(yuv_to_rgb(red.r, red.g, red.b, m, full), 255, 0, 0, 2e-3f));
      CHECK(near(yuv_to_rgb(green.r, green.g, green.b, m, full), 0, 255, 0, 2e-3f));
    }
  // Published 8-bit codes of red: BT.601 limited (81, 90, 240), BT.709 limited (63, 102, 240),
  // BT.601 full (76, 85, 255); rounding the codes moves the colour by a level or two.
  CHECK(near(yuv_to_rgb(81, 90, 240, YuvMatrix::bt601, false), 255, 0, 0, 2.0f));
  CHECK(near(yuv_to_rgb(63, 102, 240, YuvMatrix::bt709, false), 255, 0, 0, 2.0f));
  CHECK(near(yuv_to_rgb(76, 85, 255, YuvMatrix::bt601, true), 255, 0, 0, 2.0f));
  const math::Rgb red601 = math::rgb_to_yuv({255, 0, 0}, YuvMatrix::bt601, false);
  CHECK(std::lround(red601.r) == 81);
  CHECK(std::lround(red601.g) == 90);
  CHECK(std::lround(red601.b) == 240);
}

TEST_CASE("preprocess: a uniform YUV frame gives its colour everywhere, luma beside it", "[segment_body]") {
  HostYuvFrame f(37, 21, 3);  // odd sizes, padded rows
  f.fill(81, 90, 240);        // BT.601 limited red
  const PreprocessParams p = params(16, 16, ResizeMode::stretch);
  std::vector<float> tensor(16 * 16 * 3, -1.0f);
  HostImage<float> luma(16, 16, 1, gp::PixelType::f32);
  const Rect r = preprocess_cpu(f.frame(), p, tensor.data(), 0, &luma.view);
  CHECK(r == Rect{0, 0, 16, 16});
  const math::Rgb expected = math::yuv_to_rgb(81, 90, 240, YuvMatrix::bt601, false);
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x) {
      CHECK(at(tensor, p, 0, x, y, 0) == Approx(expected.r / 255.0f).margin(1e-6));
      CHECK(at(tensor, p, 0, x, y, 1) == Approx(expected.g / 255.0f).margin(1e-6));
      CHECK(at(tensor, p, 0, x, y, 2) == Approx(expected.b / 255.0f).margin(1e-6));
      CHECK(luma.at(x, y) == Approx(math::rgb_luma(expected, YuvMatrix::bt601) / 255.0f).margin(1e-6));
    }
  CHECK(at(tensor, p, 0, 3, 3, 0) > 0.99f);
}

TEST_CASE("preprocess letterbox: content pixels exact at scale 1, padding gets the pad value", "[segment_body]") {
  for (FrameFormat format : {FrameFormat::rgb, FrameFormat::rgba, FrameFormat::bgr, FrameFormat::bgra}) {
    HostPackedFrame f(format, 8, 4, 5);
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 8; ++x) f.set(x, y, std::uint8_t(10 * x), std::uint8_t(20 * y), std::uint8_t(x + y));
    PreprocessParams p = params(8, 8, ResizeMode::letterbox);
    p.pad[0] = 0.25f;
    p.pad[1] = -1.0f;
    p.pad[2] = 0.5f;
    std::vector<float> tensor(8 * 8 * 3, -7.0f);
    HostImage<float> luma(8, 8, 1, gp::PixelType::f32);
    const Rect r = preprocess_cpu(f.frame(), p, tensor.data(), 0, &luma.view);
    REQUIRE(r == Rect{0, 2, 8, 4});
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 8; ++x) {
        if (y < 2 || y >= 6) {
          CHECK(at(tensor, p, 0, x, y, 0) == 0.25f);
          CHECK(at(tensor, p, 0, x, y, 1) == -1.0f);
          CHECK(at(tensor, p, 0, x, y, 2) == 0.5f);
          CHECK(luma.at(x, y) == 0.0f);
        } else {
          const int fy = y - 2;
          CHECK(at(tensor, p, 0, x, y, 0) == Approx(10 * x / 255.0f).margin(1e-7));
          CHECK(at(tensor, p, 0, x, y, 1) == Approx(20 * fy / 255.0f).margin(1e-7));
          CHECK(at(tensor, p, 0, x, y, 2) == Approx((x + fy) / 255.0f).margin(1e-7));
        }
      }
  }
}

TEST_CASE("preprocess: the area filter averages a 1-pixel checkerboard shrunk 8x instead of aliasing", "[segment_body]") {
  HostPackedFrame f(FrameFormat::rgb, 64, 48);
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x) {
      const std::uint8_t v = (x + y) % 2 ? 255 : 0;
      f.set(x, y, v, v, v);
    }
  for (int size : {8, 6, 5}) {  // 8x and 10.7x (whole) / 12.8x (fractional footprints)
    PreprocessParams p = params(size, size, ResizeMode::stretch);
    p.filter = gp::frames::ResizeFilter::area;
    std::vector<float> tensor(std::size_t(size) * size * 3);
    preprocess_cpu(f.frame(), p, tensor.data(), 0, nullptr);
    for (float v : tensor) CHECK(v == Approx(0.5f).margin(size == 8 ? 1e-6 : 0.02));
  }
  // At exactly 2x the bilinear tap falls between two pixels: their mean, also 0.5.
  const PreprocessParams half = params(32, 24, ResizeMode::stretch);
  std::vector<float> tensor(32 * 24 * 3);
  preprocess_cpu(f.frame(), half, tensor.data(), 0, nullptr);
  for (float v : tensor) CHECK(v == Approx(0.5f).margin(1e-6));
}

TEST_CASE("preprocess: scale/offset, FP16 storage and batch items", "[segment_body]") {
  HostPackedFrame f(FrameFormat::rgb, 20, 10);
  gp::test::fill_realistic(f, 3);
  PreprocessParams p = params(12, 6, ResizeMode::letterbox);
  p.scale[0] = p.scale[1] = p.scale[2] = 2.0f / 255.0f;
  p.offset[0] = p.offset[1] = p.offset[2] = -1.0f;
  std::vector<float> f32(3 * 12 * 6 * 3, 9.0f);
  preprocess_cpu(f.frame(), p, f32.data(), 1, nullptr);
  for (std::size_t i = 0; i < 12 * 6 * 3; ++i) {
    CHECK(f32[i] == 9.0f);                 // item 0 untouched
    CHECK(f32[2 * 12 * 6 * 3 + i] == 9.0f);  // item 2 untouched
    CHECK(f32[12 * 6 * 3 + i] >= -1.0f);
    CHECK(f32[12 * 6 * 3 + i] <= 1.0f);
  }
  p.type = TensorType::f16;
  std::vector<std::uint16_t> f16(3 * 12 * 6 * 3, 0x7777);
  preprocess_cpu(f.frame(), p, f16.data(), 1, nullptr);
  for (std::size_t i = 0; i < 12 * 6 * 3; ++i) {
    CHECK(f16[i] == 0x7777);
    CHECK(f16[12 * 6 * 3 + i] == gp::float_to_half(f32[12 * 6 * 3 + i]));
  }
}

TEST_CASE("preprocess: YUV chroma is sited at the 2x2 block centre", "[segment_body]") {
  // Chroma columns alternate 168 / 88; at scale 1 a luma pixel's chroma tap is 3/4 its own block
  // and 1/4 the neighbour across the nearer edge (bilinear): x = 2 (left half of block 1) gets
  // 0.75 * 88 + 0.25 * 168.
  HostYuvFrame f(8, 2);
  f.full_range = true;
  f.fill(100, 128, 128);
  for (int i = 0; i < 4; ++i) f.u(i, 0) = i % 2 ? 88 : 168;
  const PreprocessParams p = params(8, 2, ResizeMode::stretch);
  std::vector<float> tensor(8 * 2 * 3);
  preprocess_cpu(f.frame(), p, tensor.data(), 0, nullptr);
  const float u = 0.75f * 88 + 0.25f * 168;
  const math::Rgb expected = math::yuv_to_rgb(100, u, 128, YuvMatrix::bt601, true);
  CHECK(at(tensor, p, 0, 2, 0, 2) == Approx(expected.b / 255.0f).margin(1e-6));
  // x = 0: the left tap is past the edge and reads the edge block itself.
  CHECK(at(tensor, p, 0, 0, 0, 2) == Approx(math::yuv_to_rgb(100, 168, 128, YuvMatrix::bt601, true).b / 255.0f).margin(1e-6));
}

TEST_CASE("frame_luma and resize_frame on the CPU", "[segment_body]") {
  HostYuvFrame yuv(9, 5);
  gp::test::fill_realistic(yuv, 5);
  HostImage<std::uint8_t> luma(9, 5, 1, gp::PixelType::u8, 3);
  frame_luma_cpu(yuv.frame(), luma.view);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 9; ++x) CHECK(luma.at(x, y) == yuv.y(x, y));

  HostPackedFrame rgb(FrameFormat::bgr, 4, 2);
  rgb.set(0, 0, 255, 0, 0);
  rgb.set(1, 0, 0, 255, 0);
  rgb.set(2, 0, 0, 0, 255);
  rgb.set(3, 0, 255, 255, 255);
  HostImage<std::uint8_t> l(4, 2, 1, gp::PixelType::u8);
  frame_luma_cpu(rgb.frame(), l.view);
  CHECK(int(l.at(0, 0)) == 76);   // 0.299 * 255
  CHECK(int(l.at(1, 0)) == 150);  // 0.587 * 255
  CHECK(int(l.at(2, 0)) == 29);   // 0.114 * 255
  CHECK(int(l.at(3, 0)) == 255);
  CHECK(int(l.at(0, 1)) == 0);

  // resize to the same size is the frame itself (RGB order, alpha 255).
  HostImage<std::uint8_t> same(4, 2, 4, gp::PixelType::u8);
  resize_frame_cpu(rgb.frame(), same.view);
  CHECK(int(same.at(0, 0, 0)) == 255);
  CHECK(int(same.at(0, 0, 2)) == 0);
  CHECK(int(same.at(2, 0, 2)) == 255);
  CHECK(int(same.at(1, 0, 3)) == 255);
  // 4x2 -> 1x1 (4x: area average of all 8 pixels).
  HostImage<std::uint8_t> one(1, 1, 3, gp::PixelType::u8);
  resize_frame_cpu(rgb.frame(), one.view);
  CHECK(int(one.at(0, 0, 0)) == 64);  // (255 + 255) / 8 = 63.75
  CHECK(int(one.at(0, 0, 1)) == 64);
}

TEST_CASE("preprocess: bad arguments are errors naming the function", "[segment_body]") {
  HostPackedFrame f(FrameFormat::rgb, 4, 4);
  std::vector<float> tensor(16 * 3);
  gp::frames::FrameSource bad = f.frame();
  bad.pitches[0] = 5;
  CHECK_THROWS_WITH(preprocess_cpu(bad, params(4, 4, ResizeMode::stretch), tensor.data(), 0, nullptr),
                    Catch::Contains("preprocess_cpu") && Catch::Contains("pitch"));
  HostImage<float> luma(3, 4, 1, gp::PixelType::f32);
  CHECK_THROWS_WITH(preprocess_cpu(f.frame(), params(4, 4, ResizeMode::stretch), tensor.data(), 0, &luma.view),
                    Catch::Contains("luma"));
}

TEST_CASE("preprocess: the bilinear filter (MediaPipe's) samples at each input pixel's centre, also shrinking 32x",
          "[segment_body]") {
  // Columns 15 and 16 of every 32 are white: an 8-wide input's pixel o centres on frame x = 32 o + 15.5,
  // between two white columns (ImageToTensorCalculator's warpAffine INTER_LINEAR sees 255 there);
  // the area filter averages the 32 columns it covers (2 of them white).
  HostPackedFrame f(FrameFormat::rgb, 256, 64);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 256; ++x) {
      const std::uint8_t v = (x % 32 == 15 || x % 32 == 16) ? 255 : 0;
      f.set(x, y, v, v, v);
    }
  PreprocessParams p = params(8, 2, ResizeMode::stretch);
  REQUIRE(p.filter == gp::frames::ResizeFilter::bilinear);  // the default
  std::vector<float> tensor(8 * 2 * 3);
  preprocess_cpu(f.frame(), p, tensor.data(), 0, nullptr);
  for (float v : tensor) CHECK(v == Approx(1.0f));
  p.filter = gp::frames::ResizeFilter::area;
  preprocess_cpu(f.frame(), p, tensor.data(), 0, nullptr);
  for (float v : tensor) CHECK(v == Approx(2.0f / 32).margin(1e-6));
}
