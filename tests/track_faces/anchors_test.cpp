// BlazeFace SSD anchors: counts and known first/last/interleaved values for both face models.
#include <catch2/catch.hpp>

#include <cmath>

#include "track_faces/anchors.hpp"

using namespace gp::track;

TEST_CASE("anchors: short-range model, 896 anchors in MediaPipe's order", "[track_faces]") {
  const auto anchors = generate_ssd_anchors(short_range_anchor_options());
  REQUIRE(anchors.size() == 896);
  // 16x16 map, 2 anchors a cell (aspect 1 + interpolated), then one 8x8 map for the three
  // stride-16 layers, 6 anchors a cell.
  CHECK(anchors.front().x_center == Approx(0.5f / 16));
  CHECK(anchors.front().y_center == Approx(0.5f / 16));
  CHECK(anchors.front().w == 1.0f);
  CHECK(anchors.front().h == 1.0f);
  CHECK(anchors[1].x_center == anchors[0].x_center);
  CHECK(anchors[2].x_center == Approx(1.5f / 16));
  CHECK(anchors[511].x_center == Approx(15.5f / 16));
  CHECK(anchors[511].y_center == Approx(15.5f / 16));
  for (int i = 512; i < 518; ++i) CHECK(anchors[i].x_center == Approx(0.5f / 8));
  CHECK(anchors[518].x_center == Approx(1.5f / 8));
  CHECK(anchors.back().x_center == Approx(7.5f / 8));
  CHECK(anchors.back().y_center == Approx(7.5f / 8));
  CHECK(anchors.back().w == 1.0f);
  CHECK(anchors.back().h == 1.0f);
}

TEST_CASE("anchors: full-range model, 2304 anchors on a 48x48 map", "[track_faces]") {
  const auto anchors = generate_ssd_anchors(full_range_anchor_options());
  REQUIRE(anchors.size() == 2304);
  CHECK(anchors.front().x_center == Approx(0.5f / 48));
  CHECK(anchors.front().y_center == Approx(0.5f / 48));
  CHECK(anchors[1].x_center == Approx(1.5f / 48));
  CHECK(anchors[48].y_center == Approx(1.5f / 48));
  CHECK(anchors.back().x_center == Approx(47.5f / 48));
  CHECK(anchors.back().y_center == Approx(47.5f / 48));
  CHECK(anchors.back().w == 1.0f);
  CHECK(anchors.back().h == 1.0f);
}

TEST_CASE("anchors: scales per layer when the anchor size is not fixed", "[track_faces]") {
  auto options = short_range_anchor_options();
  options.fixed_anchor_size = false;
  const auto anchors = generate_ssd_anchors(options);
  REQUIRE(anchors.size() == 896);
  const float step = (0.75f - 0.1484375f) / 3;
  CHECK(anchors[0].w == Approx(0.1484375f));
  CHECK(anchors[1].w == Approx(std::sqrt(0.1484375f * (0.1484375f + step))));
  // Stride-16 cell: layers 1, 2, 3 each give (scale, interpolated); the last layer's next scale is 1.
  CHECK(anchors[512].w == Approx(0.1484375f + step));
  CHECK(anchors[514].w == Approx(0.1484375f + 2 * step));
  CHECK(anchors[516].w == Approx(0.75f));
  CHECK(anchors[517].w == Approx(std::sqrt(0.75f)));
  CHECK(anchors[517].h == anchors[517].w);

  auto full = full_range_anchor_options();
  full.fixed_anchor_size = false;
  CHECK(generate_ssd_anchors(full)[0].w == Approx((0.1484375f + 0.75f) / 2));  // one stride: mean
}

TEST_CASE("anchors: inconsistent options are refused", "[track_faces]") {
  auto options = short_range_anchor_options();
  options.strides.pop_back();
  CHECK_THROWS_AS(generate_ssd_anchors(options), std::invalid_argument);
}
