// CPU reference of the whole postprocess chain (cuda/segment_body/postprocess.hpp): the steps are
// the kernels tested in mask_test.cpp; here, how they compose: islands on a soft alpha edit only
// the pixels whose side changed, the temporal state is used, scratch sizes are enforced.
#include <catch2/catch.hpp>

#include <vector>

#include "cuda/segment_body/postprocess.hpp"
#include "cuda/frames/preprocess.hpp"
#include "support/test_frames.hpp"

using namespace gp::segbody;
using gp::PixelType;
using gp::test::HostImage;

namespace {

struct Chain {
  HostImage<float> model{16, 16, 1, PixelType::f32}, luma{16, 16, 1, PixelType::f32};
  HostImage<float> state{16, 16, 1, PixelType::f32}, prev{16, 16, 1, PixelType::f32};
  HostImage<std::uint8_t> guide{32, 32, 1, PixelType::u8}, out{32, 32, 1, PixelType::u8};
  std::vector<float4> scratch;
  void run(const PostprocessParams& p, bool first_frame) {
    scratch.assign(postprocess_scratch_bytes(32, 32, p) / sizeof(float4) + 1, float4{0, 0, 0, 0});
    postprocess_cpu(model.view, luma.view, TemporalState{state.view, prev.view}, first_frame, Rect{0, 0, 16, 16},
                    guide.view, p, out.view, scratch.data(), scratch.size() * sizeof(float4));
  }
};

}  // namespace

TEST_CASE("postprocess: islands on a soft alpha remove the speck and keep soft edges", "[segment_body]") {
  Chain c;
  for (int y = 4; y < 12; ++y)
    for (int x = 4; x < 12; ++x) c.model.at(x, y) = 1.0f;
  c.model.at(1, 1) = 1.0f;  // a speck: 4 frame pixels above 0.5 after upsampling
  PostprocessParams p;
  p.temporal = false;
  p.refine = false;
  p.islands.min_foreground_area = 20;
  c.run(p, true);
  HostImage<std::uint8_t> plain(32, 32, 1, PixelType::u8);
  upsample_mask_cpu(c.model.view, Rect{0, 0, 16, 16}, plain.view, p.output);
  int soft_edges = 0;
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      if (x < 6 && y < 6) {
        CHECK(int(c.out.at(x, y)) < 128);  // the speck's foreground side is gone
      } else {
        CHECK(c.out.at(x, y) == plain.at(x, y));  // everything else as upsampled
      }
      soft_edges += c.out.at(x, y) > 0 && c.out.at(x, y) < 255;
    }
  CHECK(int(plain.at(2, 2)) >= 128);
  CHECK(int(c.out.at(2, 2)) == 0);
  CHECK(soft_edges > 20);

  p.output.kind = MaskOutput::Kind::binary;
  c.run(p, true);
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) CHECK(int(c.out.at(x, y)) == ((x < 6 && y < 6) ? 0 : plain.at(x, y) >= 128 ? 255 : 0));
}

TEST_CASE("postprocess: the temporal state feeds the upsampling; refinement runs on the guide", "[segment_body]") {
  Chain c;
  PostprocessParams p;
  p.refine = false;
  p.temporal_params.alpha = 0.5f;
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x) c.model.at(x, y) = 1.0f;
  c.run(p, true);
  CHECK(int(c.out.at(10, 10)) == 255);
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x) c.model.at(x, y) = 0.0f;
  c.run(p, false);  // still frame: half way
  CHECK(int(c.out.at(10, 10)) == 128);
  CHECK(c.state.at(3, 3) == 0.5f);

  // Refinement: a flat guide makes the guided filter a smoother (a = 0): the soft mask of a
  // half-covered frame stays 0 and 255 far from the boundary and is monotone across it.
  p.temporal = false;
  p.refine = true;
  p.guided.radius = 2;
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x) c.model.at(x, y) = x < 8 ? 0.0f : 1.0f;
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) c.guide.at(x, y) = 90;
  c.run(p, true);
  CHECK(int(c.out.at(2, 5)) == 0);
  CHECK(int(c.out.at(29, 5)) == 255);
  for (int x = 1; x < 32; ++x) CHECK(c.out.at(x, 7) >= c.out.at(x - 1, 7));

  std::vector<float4> small(4);
  CHECK_THROWS_WITH(postprocess_cpu(c.model.view, c.luma.view, TemporalState{c.state.view, c.prev.view}, true,
                                    Rect{0, 0, 16, 16}, c.guide.view, p, c.out.view, small.data(), 64),
                    Catch::Contains("postprocess_cpu") && Catch::Contains("scratch"));
}

TEST_CASE("preprocess then upsample_mask: the letterbox round trip keeps edges in place", "[segment_body]") {
  // A frame with a vertical edge at x = 700 and a horizontal one at y = 300 goes to the model
  // input (letterbox, so the rows are offset) and its luma comes back to frame size as if it were
  // the mask: each edge's 0.5 crossing must land where it was (model pixels are 5 frame pixels).
  const int w = 1280, h = 720, edge_x = 700, edge_y = 300;
  gp::test::HostPackedFrame f(FrameFormat::rgb, w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const std::uint8_t v = (x >= edge_x) != (y >= edge_y) ? 255 : 0;
      f.set(x, y, v, v, v);
    }
  for (ResizeMode mode : {ResizeMode::letterbox, ResizeMode::stretch}) {
    PreprocessParams p;
    p.mode = mode;
    std::vector<float> tensor(256 * 256 * 3);
    HostImage<float> luma(256, 256, 1, PixelType::f32);
    const Rect content = preprocess_cpu(f.frame(), p, tensor.data(), 0, &luma.view);
    HostImage<float> back(w, h, 1, PixelType::f32);
    upsample_mask_cpu(luma.view, content, back.view, MaskOutput{});
    // Along row 100 (above the horizontal edge) the value rises through 0.5 near edge_x.
    int crossing_x = -1;
    for (int x = 1; x < w; ++x)
      if (back.at(x - 1, 100) < 0.5f && back.at(x, 100) >= 0.5f) crossing_x = x;
    CHECK(std::abs(crossing_x - edge_x) <= 1);  // a half model pixel off would be 2.5
    int crossing_y = -1;  // down column 100 (left of the vertical edge): 0 above edge_y, 1 below
    for (int y = 1; y < h; ++y)
      if (back.at(100, y - 1) < 0.5f && back.at(100, y) >= 0.5f) crossing_y = y;
    CHECK(std::abs(crossing_y - edge_y) <= 1);
    // Far from the edges the values come back exactly.
    CHECK(back.at(100, 100) == 0.0f);
    CHECK(back.at(1000, 100) == Approx(1.0f).margin(1e-6));
  }
}
