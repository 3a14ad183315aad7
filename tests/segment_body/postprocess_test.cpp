// CPU reference of the whole postprocess chain (cuda/segment_body/postprocess.hpp): the steps are
// the kernels tested in mask_test.cpp; here, how they compose: islands on a soft alpha edit only
// the pixels whose side changed, the temporal state is used, scratch sizes are enforced.
#include <catch2/catch.hpp>

#include <vector>

#include "cuda/segment_body/postprocess.hpp"
#include "segment_body/test_frames.hpp"

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
