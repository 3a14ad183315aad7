// CPU references of segment-body compositing, the Gaussian blur and RGB -> YUV 4:2:0 on hand-made
// cases with known answers.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "cuda/segment_body/composite.hpp"
#include "cuda/frames/frame_math.hpp"
#include "cuda/frames/preprocess.hpp"
#include "support/test_frames.hpp"

using namespace gp::segbody;
using gp::PixelType;
using gp::test::HostImage;
using gp::test::HostPackedFrame;
using gp::test::HostYuvFrame;

TEST_CASE("composite: RGBA, colour and image backgrounds blended by the alpha", "[segment_body]") {
  HostPackedFrame f(FrameFormat::bgra, 3, 2);
  f.set(0, 0, 200, 100, 50);
  f.set(1, 0, 200, 100, 50);
  f.set(2, 0, 200, 100, 50);
  f.set(0, 1, 10, 20, 30);
  HostImage<std::uint8_t> alpha(3, 2, 1, PixelType::u8);
  alpha.at(0, 0) = 255;
  alpha.at(1, 0) = 0;
  alpha.at(2, 0) = 128;
  alpha.at(0, 1) = 51;

  HostImage<std::uint8_t> rgba(3, 2, 4, PixelType::u8);
  composite_cpu(f.frame(), alpha.view, Background{}, rgba.view);
  CHECK(int(rgba.at(0, 0, 0)) == 200);
  CHECK(int(rgba.at(0, 0, 2)) == 50);
  CHECK(int(rgba.at(2, 0, 3)) == 128);
  CHECK(int(rgba.at(0, 1, 1)) == 20);
  CHECK(int(rgba.at(0, 1, 3)) == 51);

  Background colour;
  colour.kind = Background::Kind::colour;
  colour.colour[0] = 0;
  colour.colour[1] = 255;
  colour.colour[2] = 0;
  HostImage<std::uint8_t> rgb(3, 2, 3, PixelType::u8, 7);
  composite_cpu(f.frame(), alpha.view, colour, rgb.view);
  CHECK(int(rgb.at(0, 0, 0)) == 200);  // alpha 255: the frame
  CHECK(int(rgb.at(0, 0, 1)) == 100);
  CHECK(int(rgb.at(1, 0, 0)) == 0);    // alpha 0: the colour
  CHECK(int(rgb.at(1, 0, 1)) == 255);
  CHECK(int(rgb.at(2, 0, 0)) == 100);  // 200 * 128 / 255 = 100.39
  CHECK(int(rgb.at(2, 0, 1)) == 177);  // (100 * 128 + 255 * 127) / 255 = 177.2
  CHECK(int(rgb.at(0, 1, 1)) == 208);  // (20 * 51 + 255 * 204) / 255 = 208

  HostImage<std::uint8_t> picture(3, 2, 4, PixelType::u8);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x)
      for (int c = 0; c < 4; ++c) picture.at(x, y, c) = std::uint8_t(40 * x + 10 * c);
  Background image;
  image.kind = Background::Kind::image;
  image.image = picture.view;
  HostImage<std::uint8_t> out(3, 2, 4, PixelType::u8);
  composite_cpu(f.frame(), alpha.view, image, out.view);
  CHECK(int(out.at(1, 0, 0)) == 40);
  CHECK(int(out.at(1, 0, 2)) == 60);
  CHECK(int(out.at(1, 0, 3)) == 255);
  CHECK(int(out.at(0, 0, 0)) == 200);
  CHECK(int(out.at(2, 0, 2)) == 75);  // (50 * 128 + 100 * 127) / 255 = 74.9

  // A background of another size is resampled: a 1x1 picture is a colour; a 6x4 one is averaged
  // over 2x2 blocks (bilinear at exactly 2x).
  HostImage<std::uint8_t> dot(1, 1, 3, PixelType::u8), from_dot(3, 2, 3, PixelType::u8);
  dot.at(0, 0, 0) = 0;
  dot.at(0, 0, 1) = 255;
  dot.at(0, 0, 2) = 0;
  image.image = dot.view;
  composite_cpu(f.frame(), alpha.view, image, from_dot.view);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x)
      for (int c = 0; c < 3; ++c) CHECK(from_dot.at(x, y, c) == rgb.at(x, y, c));
  HostImage<std::uint8_t> big(6, 4, 3, PixelType::u8), from_big(3, 2, 3, PixelType::u8);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 6; ++x) big.at(x, y, 0) = std::uint8_t((x + y) % 2 ? 100 : 0);
  image.image = big.view;
  composite_cpu(f.frame(), alpha.view, image, from_big.view);
  CHECK(int(from_big.at(1, 0, 0)) == 50);  // alpha 0: the 2x2 mean
  CHECK(int(from_big.at(1, 0, 1)) == 0);
}

TEST_CASE("gaussian blur: identity at sigma 0, constant stays, an impulse spreads symmetrically", "[segment_body]") {
  HostPackedFrame f(FrameFormat::rgb, 21, 15);
  gp::test::fill_realistic(f, 9);
  HostImage<std::uint8_t> out(21, 15, 3, PixelType::u8);
  std::vector<float4> scratch(gaussian_blur_scratch_bytes(21, 15) / sizeof(float4));
  const std::size_t bytes = scratch.size() * sizeof(float4);
  gaussian_blur_cpu(f.frame(), 0.0f, out.view, scratch.data(), bytes);
  for (int y = 0; y < 15; ++y)
    for (int x = 0; x < 21; ++x)
      for (int c = 0; c < 3; ++c) CHECK(out.at(x, y, c) == f.px(x, y)[c]);

  HostPackedFrame flat(FrameFormat::rgb, 21, 15);
  for (int y = 0; y < 15; ++y)
    for (int x = 0; x < 21; ++x) flat.set(x, y, 77, 150, 3);
  gaussian_blur_cpu(flat.frame(), 4.0f, out.view, scratch.data(), bytes);
  for (int y = 0; y < 15; ++y)
    for (int x = 0; x < 21; ++x) {
      CHECK(int(out.at(x, y, 0)) == 77);
      CHECK(int(out.at(x, y, 1)) == 150);
      CHECK(int(out.at(x, y, 2)) == 3);
    }

  HostPackedFrame dot(FrameFormat::rgb, 21, 15);
  dot.set(10, 7, 255, 255, 255);
  gaussian_blur_cpu(dot.frame(), 1.0f, out.view, scratch.data(), bytes);
  // Taps w0 = 1 / sum_{|k|<=3} e^{-k^2/2} = 0.39905, w1 = 0.24203: centre 255 w0^2 = 40.6.
  CHECK(int(out.at(10, 7, 0)) == 41);
  CHECK(out.at(9, 7, 1) == out.at(11, 7, 1));
  CHECK(out.at(10, 6, 1) == out.at(10, 8, 1));
  CHECK(out.at(9, 7, 1) == out.at(10, 6, 1));
  CHECK(int(out.at(9, 7, 1)) == 25);  // 255 w0 w1 = 24.6
  CHECK(int(out.at(14, 7, 1)) == 0);  // beyond 3 sigma
}

TEST_CASE("rgb_to_yuv420: known colours and a round trip", "[segment_body]") {
  HostImage<std::uint8_t> rgb(5, 3, 3, PixelType::u8);  // odd sizes: partial chroma blocks
  const std::uint8_t colours[5][3] = {{255, 255, 255}, {0, 0, 0}, {255, 0, 0}, {0, 255, 0}, {0, 0, 255}};
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x)
      for (int c = 0; c < 3; ++c) rgb.at(x, y, c) = colours[x][c];
  HostYuvFrame yuv(5, 3, 2);
  Yuv420Planes planes;
  for (int i = 0; i < 3; ++i) {
    planes.planes[i] = yuv.planes[i].data();
    planes.pitches[i] = yuv.pitch[i];
  }
  planes.width = 5;
  planes.height = 3;
  rgb_to_yuv420_cpu(rgb.view, planes, YuvMatrix::bt601, false);
  CHECK(int(yuv.y(0, 0)) == 235);
  CHECK(int(yuv.y(1, 2)) == 16);
  CHECK(int(yuv.y(2, 1)) == 81);   // BT.601 red
  CHECK(int(yuv.y(3, 1)) == 145);  // green
  CHECK(int(yuv.y(4, 1)) == 41);   // blue
  CHECK(int(yuv.u(0, 0)) == 128);  // white + black: grey
  CHECK(int(yuv.v(0, 0)) == 128);
  CHECK(int(yuv.u(2, 1)) == 240);  // the corner block holds one pixel: blue
  CHECK(int(yuv.v(2, 1)) == 110);
  CHECK(int(yuv.v(1, 0)) == 137);  // red + green mean (127.5, 127.5, 0): 128 + 9.1

  rgb_to_yuv420_cpu(rgb.view, planes, YuvMatrix::bt709, true);
  CHECK(int(yuv.y(0, 0)) == 255);
  CHECK(int(yuv.y(2, 0)) == 54);  // 0.2126 * 255

  // Smooth content through YUV 4:2:0 and back: within a few levels (chroma is subsampled).
  HostPackedFrame big(FrameFormat::rgb, 64, 32);
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 64; ++x) big.set(x, y, std::uint8_t(4 * x), std::uint8_t(100 + 3 * y), std::uint8_t(200 - 2 * x));
  HostYuvFrame round(64, 32);
  Yuv420Planes rp;
  for (int i = 0; i < 3; ++i) {
    rp.planes[i] = round.planes[i].data();
    rp.pitches[i] = round.pitch[i];
  }
  rp.width = 64;
  rp.height = 32;
  const gp::ImageView big_view = gp::packed_view(big.data.data(), 64, 32, 3, PixelType::u8);
  rgb_to_yuv420_cpu(big_view, rp, YuvMatrix::bt709, false);
  round.matrix = YuvMatrix::bt709;
  HostImage<std::uint8_t> back(64, 32, 3, PixelType::u8);
  resize_frame_cpu(round.frame(), back.view);
  int worst = 0;
  for (int y = 1; y < 31; ++y)
    for (int x = 1; x < 63; ++x)
      for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(int(back.at(x, y, c)) - int(big.px(x, y)[c])));
  CHECK(worst <= 3);
}

TEST_CASE("composite_yuv420 gives the bytes of composite then rgb_to_yuv420", "[segment_body]") {
  const int w = 37, h = 23;  // odd: partial chroma blocks
  HostYuvFrame frame(w, h, 4);
  gp::test::fill_realistic(frame, 77);
  HostImage<std::uint8_t> alpha(w, h, 1, PixelType::u8);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) alpha.at(x, y) = std::uint8_t((x * 7 + y * 13) % 256);
  HostImage<std::uint8_t> picture(10, 6, 3, PixelType::u8);
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 10; ++x)
      for (int c = 0; c < 3; ++c) picture.at(x, y, c) = std::uint8_t(25 * x + 40 * y + 60 * c);
  for (int kind = 1; kind <= 2; ++kind) {
    Background bg;
    bg.kind = Background::Kind(kind);
    bg.colour[0] = 10;
    bg.colour[1] = 200;
    bg.colour[2] = 90;
    bg.image = picture.view;
    HostImage<std::uint8_t> rgb(w, h, 3, PixelType::u8);
    composite_cpu(frame.frame(), alpha.view, bg, rgb.view);
    HostYuvFrame two_pass(w, h), one_pass(w, h, 3);
    auto planes_of = [](HostYuvFrame& f) {
      Yuv420Planes p;
      for (int i = 0; i < 3; ++i) {
        p.planes[i] = f.planes[i].data();
        p.pitches[i] = f.pitch[i];
      }
      p.width = f.width;
      p.height = f.height;
      return p;
    };
    rgb_to_yuv420_cpu(rgb.view, planes_of(two_pass), YuvMatrix::bt709, false);
    composite_yuv420_cpu(frame.frame(), alpha.view, bg, planes_of(one_pass), YuvMatrix::bt709, false);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) CHECK(one_pass.y(x, y) == two_pass.y(x, y));
    for (int y = 0; y < chroma_size(h); ++y)
      for (int x = 0; x < chroma_size(w); ++x) {
        CHECK(one_pass.u(x, y) == two_pass.u(x, y));
        CHECK(one_pass.v(x, y) == two_pass.v(x, y));
      }
    if (kind == 2) {
      Background transparent;
      CHECK_THROWS_WITH(composite_yuv420_cpu(frame.frame(), alpha.view, transparent, planes_of(one_pass),
                                             YuvMatrix::bt709, false),
                        Catch::Contains("background"));
    }
  }
}
