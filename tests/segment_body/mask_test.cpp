// CPU references of the segment-body mask postprocessing on hand-made cases with known answers:
// temporal EMA and its motion reset, letterbox-undoing upsampling, the guided filter on step edges,
// and small-island removal.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "cuda/segment_body/guided_filter.hpp"
#include "cuda/segment_body/islands.hpp"
#include "cuda/segment_body/mask.hpp"
#include "support/test_frames.hpp"

using namespace gp::segbody;
using gp::PixelType;
using gp::test::HostImage;

TEST_CASE("temporal smoothing: EMA where still, the new mask where the frame moved", "[segment_body]") {
  HostImage<float> mask(4, 2, 1, PixelType::f32), luma(4, 2, 1, PixelType::f32), state(4, 2, 1, PixelType::f32, 8),
      prev(4, 2, 1, PixelType::f32);
  TemporalParams p;
  p.alpha = 0.25f;
  p.motion_threshold = 0.1f;
  for (int x = 0; x < 4; ++x)
    for (int y = 0; y < 2; ++y) {
      mask.at(x, y) = 1.0f;
      luma.at(x, y) = 0.5f;
      state.at(x, y) = 123.0f;  // garbage: the first frame ignores it
      prev.at(x, y) = 7.0f;
    }
  temporal_smooth_cpu(mask.view, luma.view, state.view, prev.view, p, true);
  for (int x = 0; x < 4; ++x) {
    CHECK(state.at(x, 0) == 1.0f);
    CHECK(prev.at(x, 0) == 0.5f);
  }
  // Frame 2: mask 0 everywhere; pixel (1, 0) moved by 0.3, pixel (2, 0) by 0.05 (below the threshold).
  for (int x = 0; x < 4; ++x)
    for (int y = 0; y < 2; ++y) mask.at(x, y) = 0.0f;
  luma.at(1, 0) = 0.8f;
  luma.at(2, 0) = 0.55f;
  temporal_smooth_cpu(mask.view, luma.view, state.view, prev.view, p, false);
  CHECK(state.at(0, 0) == 0.75f);  // 0.25 * 0 + 0.75 * 1
  CHECK(state.at(1, 0) == 0.0f);   // reset
  CHECK(state.at(2, 0) == 0.75f);  // small change: still smoothed
  CHECK(state.at(3, 1) == 0.75f);
  CHECK(prev.at(1, 0) == 0.8f);
  // Frame 3: still again: the EMA goes on from the reset value.
  temporal_smooth_cpu(mask.view, luma.view, state.view, prev.view, p, false);
  CHECK(state.at(0, 0) == Approx(0.5625f));
  CHECK(state.at(1, 0) == 0.0f);
}

TEST_CASE("upsample_mask: bilinear inside the letterbox content, padding never bleeds in", "[segment_body]") {
  // 4x4 model mask; content = rows 1..2 (a 4x2 letterbox); padding rows hold 1.
  HostImage<float> mask(4, 4, 1, PixelType::f32);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) mask.at(x, y) = (y == 1 || y == 2) ? float(x) / 3.0f : 1.0f;
  const Rect content{0, 1, 4, 2};
  HostImage<float> out(8, 4, 1, PixelType::f32, 4);
  upsample_mask_cpu(mask.view, content, out.view, MaskOutput{});
  // x: centre (x + 0.5) / 2 - 0.5: -0.25 (clamped: mask column 0), 0.25, 0.75, ..., 3.25 (clamped: 3).
  const float expected[8] = {0.0f, 0.25f / 3, 0.75f / 3, 1.25f / 3, 1.75f / 3, 2.25f / 3, 2.75f / 3, 1.0f};
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 8; ++x) CHECK(out.at(x, y) == Approx(expected[x]).margin(1e-6));
  // Straight to 8 bits: soft alpha and binary.
  HostImage<std::uint8_t> soft(8, 4, 1, PixelType::u8), binary(8, 4, 1, PixelType::u8);
  upsample_mask_cpu(mask.view, content, soft.view, MaskOutput{MaskOutput::Kind::soft, 0.5f});
  upsample_mask_cpu(mask.view, content, binary.view, MaskOutput{MaskOutput::Kind::binary, 0.5f});
  for (int x = 0; x < 8; ++x) {
    CHECK(int(soft.at(x, 2)) == int(std::floor(expected[x] * 255.0f + 0.5f)));
    CHECK(int(binary.at(x, 2)) == (expected[x] >= 0.5f ? 255 : 0));
  }
  CHECK(int(soft.at(7, 0)) == 255);
  CHECK(int(binary.at(3, 0)) == 0);
  CHECK(int(binary.at(4, 0)) == 255);
}

namespace {

struct GuidedCase {
  HostImage<std::uint8_t> guide;
  HostImage<float> mask, out;
  std::vector<float4> scratch;
  GuidedCase(int w, int h) : guide(w, h, 1, PixelType::u8), mask(w, h, 1, PixelType::f32), out(w, h, 1, PixelType::f32),
                             scratch(guided_filter_scratch_bytes(w, h, GuidedParams{}) / sizeof(float4) + 1) {}  // s = 1: the most
  void run(const GuidedParams& p) {
    guided_filter_cpu(guide.view, mask.view, p, out.view, MaskOutput{}, scratch.data(), scratch.size() * sizeof(float4));
  }
};

}  // namespace

TEST_CASE("guided filter: a blurred mask snaps to the frame's step edge", "[segment_body]") {
  const int w = 40, h = 12, edge = 20;
  GuidedCase c(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      c.guide.at(x, y) = x < edge ? 30 : 220;
      // The model's blurry mask: a ramp over 12 pixels centred on the edge.
      c.mask.at(x, y) = std::fmin(1.0f, std::fmax(0.0f, (float(x) - (edge - 6)) / 12.0f));
    }
  GuidedParams p;
  p.radius = 4;
  p.eps = 1e-4f;
  c.run(p);
  for (int y = 0; y < h; ++y) {
    CHECK(c.mask.at(edge - 1, y) > 0.4f);  // the input is undecided at the edge
    CHECK(c.mask.at(edge, y) < 0.6f);
    CHECK(c.out.at(edge - 1, y) < 0.35f);  // the output takes a side, as the frame does
    CHECK(c.out.at(edge, y) > 0.65f);
    CHECK(c.out.at(edge - 1, y) < c.out.at(edge, y) - 0.3f);
    CHECK(c.out.at(2, y) < 0.02f);  // far from the edge the mask's own values stay
    CHECK(c.out.at(w - 3, y) > 0.98f);
  }
}

TEST_CASE("fast guided filter (subsample 2, 4): the step edge stays sharp at full resolution", "[segment_body]") {
  const int w = 64, h = 16, edge = 30;  // the edge inside a 4x4 block: the output must not snap to blocks
  GuidedCase c(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      c.guide.at(x, y) = x < edge ? 30 : 220;
      c.mask.at(x, y) = std::fmin(1.0f, std::fmax(0.0f, (float(x) - (edge - 8)) / 16.0f));
    }
  for (int s : {2, 4}) {
    INFO("subsample " << s);
    c.run(GuidedParams{8, 1e-4f, s});
    for (int y = 0; y < h; ++y) {
      CHECK(c.out.at(edge - 1, y) < 0.35f);
      CHECK(c.out.at(edge, y) > 0.65f);
      CHECK(c.out.at(3, y) < 0.02f);
      CHECK(c.out.at(w - 4, y) > 0.98f);
    }
  }
  // Subsampling a constant mask keeps it; s = 1 through the same call is the exact filter.
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) c.mask.at(x, y) = 0.375f;
  c.run(GuidedParams{5, 1e-3f, 3});
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) CHECK(c.out.at(x, y) == Approx(0.375f).margin(1e-5));
}

TEST_CASE("guided filter: constant mask stays; flat frame only smooths; bounds", "[segment_body]") {
  const int w = 17, h = 9;
  GuidedCase c(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      c.guide.at(x, y) = std::uint8_t((x * 37 + y * 91) % 256);
      c.mask.at(x, y) = 0.625f;
    }
  GuidedParams p;
  p.radius = 3;
  p.eps = 1e-3f;
  c.run(p);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) CHECK(c.out.at(x, y) == Approx(0.625f).margin(1e-5));

  // Flat guide: a = 0, so q = the box mean of the box mean of p. A single 1 at the centre of a
  // radius-1 filter spreads to the 5x5 around it with weights (3 - |dx|)(3 - |dy|) / 81.
  GuidedCase d(9, 9);
  for (int y = 0; y < 9; ++y)
    for (int x = 0; x < 9; ++x) {
      d.guide.at(x, y) = 100;
      d.mask.at(x, y) = (x == 4 && y == 4) ? 1.0f : 0.0f;
    }
  p.radius = 1;
  d.run(p);
  for (int y = 0; y < 9; ++y)
    for (int x = 0; x < 9; ++x) {
      const int dx = std::abs(x - 4), dy = std::abs(y - 4);
      const float expected = dx <= 2 && dy <= 2 ? float((3 - dx) * (3 - dy)) / 81.0f : 0.0f;
      CHECK(d.out.at(x, y) == Approx(expected).margin(1e-6));
    }
  // Radius 0: each window is one pixel, var = 0, a = 0, q = p.
  p.radius = 0;
  d.run(p);
  CHECK(d.out.at(4, 4) == Approx(1.0f).margin(1e-6));
  CHECK(d.out.at(3, 4) == 0.0f);
}

TEST_CASE("guided filter: u8 output, in place, scratch too small is an error", "[segment_body]") {
  GuidedCase c(6, 6);
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 6; ++x) {
      c.guide.at(x, y) = x < 3 ? 0 : 255;
      c.mask.at(x, y) = x < 3 ? 0.1f : 0.9f;
    }
  HostImage<std::uint8_t> out(6, 6, 1, PixelType::u8);
  GuidedParams p;
  p.radius = 2;
  guided_filter_cpu(c.guide.view, c.mask.view, p, out.view, MaskOutput{MaskOutput::Kind::binary, 0.5f}, c.scratch.data(),
                    c.scratch.size() * sizeof(float4));
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 6; ++x) CHECK(int(out.at(x, y)) == (x < 3 ? 0 : 255));
  guided_filter_cpu(c.guide.view, c.mask.view, p, c.mask.view, MaskOutput{}, c.scratch.data(),
                    c.scratch.size() * sizeof(float4));  // out = mask
  CHECK(c.mask.at(0, 0) == Approx(0.1f).margin(1e-3));
  CHECK(c.mask.at(5, 5) == Approx(0.9f).margin(1e-3));
  CHECK_THROWS_WITH(guided_filter_cpu(c.guide.view, c.mask.view, p, out.view, MaskOutput{}, c.scratch.data(), 64),
                    Catch::Contains("guided_filter_cpu") && Catch::Contains("scratch"));
}

TEST_CASE("island removal: small islands and holes go, big ones and diagonal joins stay", "[segment_body]") {
  const int w = 20, h = 16;
  HostImage<std::uint8_t> mask(w, h, 1, PixelType::u8);
  auto fill = [&](int x0, int y0, int x1, int y1, std::uint8_t v) {
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) mask.at(x, y) = v;
  };
  fill(2, 2, 10, 10, 255);   // 64-pixel body
  mask.at(5, 5) = 0;         // 1-pixel hole
  fill(6, 7, 8, 9, 0);       // 4-pixel hole
  mask.at(10, 10) = 255;     // joined diagonally to the body: kept
  fill(14, 3, 16, 5, 255);   // 4-pixel island: removed
  fill(13, 10, 18, 14, 255); // 20-pixel island: kept
  fill(15, 11, 16, 13, 0);   // 2-pixel hole in it
  mask.at(19, 0) = 255;      // 1-pixel island in the corner
  const std::vector<float4> scratch(island_scratch_bytes(w, h) / sizeof(float4) + 1);
  std::vector<std::uint8_t> before(mask.view.bytes());
  std::copy_n(static_cast<std::uint8_t*>(mask.view.data), before.size(), before.begin());

  remove_islands_cpu(mask.view, IslandParams{0, 0}, (void*)scratch.data(), scratch.size() * sizeof(float4));
  CHECK(std::equal(before.begin(), before.end(), static_cast<std::uint8_t*>(mask.view.data)));

  remove_islands_cpu(mask.view, IslandParams{10, 3}, (void*)scratch.data(), scratch.size() * sizeof(float4));
  CHECK(int(mask.at(14, 3)) == 0);    // small island gone
  CHECK(int(mask.at(19, 0)) == 0);
  CHECK(int(mask.at(13, 10)) == 255); // big island kept
  CHECK(int(mask.at(10, 10)) == 255); // diagonal pixel kept (8-connected to the body)
  CHECK(int(mask.at(5, 5)) == 255);   // 1-pixel hole filled
  CHECK(int(mask.at(15, 11)) == 255); // 2-pixel hole filled
  CHECK(int(mask.at(6, 7)) == 0);     // 4-pixel hole kept (min_hole_area 3)
  CHECK(int(mask.at(0, 0)) == 0);     // the background stays
  int foreground = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) foreground += mask.at(x, y) == 255;
  CHECK(foreground == 64 - 4 + 1 + 20);

  HostImage<std::uint8_t> pitched(w, h, 1, PixelType::u8, 4);
  CHECK_THROWS_WITH(remove_islands_cpu(pitched.view, IslandParams{1, 1}, (void*)scratch.data(),
                                       scratch.size() * sizeof(float4)),
                    Catch::Contains("packed"));
}
