// SSD anchors: counts and known first/last/interleaved values for both face models and BlazePose's detector.
#include <catch2/catch.hpp>

#include <cmath>
#include <utility>

#include "detection/anchors.hpp"

using namespace gp::detect;

TEST_CASE("anchors: short-range model, 896 anchors in MediaPipe's order", "[detection]") {
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

TEST_CASE("anchors: full-range model, 2304 anchors on a 48x48 map", "[detection]") {
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

TEST_CASE("anchors: BlazePose's detector, 2254 anchors on 28x28, 14x14 and 7x7 maps", "[detection]") {
  const auto anchors = generate_ssd_anchors(pose_anchor_options());
  REQUIRE(anchors.size() == 2254);  // the model's box count
  // 28x28 cells of 2 (stride 8), 14x14 of 2 (stride 16), then the three stride-32 layers share a
  // 7x7 map of 6 a cell.
  auto centre_of = [](int a) {
    if (a < 1568) return std::pair<float, float>{(a / 2 % 28 + 0.5f) / 28, (a / 2 / 28 + 0.5f) / 28};
    a -= 1568;
    if (a < 392) return std::pair<float, float>{(a / 2 % 14 + 0.5f) / 14, (a / 2 / 14 + 0.5f) / 14};
    a -= 392;
    return std::pair<float, float>{(a / 6 % 7 + 0.5f) / 7, (a / 6 / 7 + 0.5f) / 7};
  };
  for (int a : {0, 1, 2, 57, 1567, 1568, 1569, 1959, 1960, 1965, 1966, 2253}) {
    INFO("anchor " << a);
    CHECK(anchors[std::size_t(a)].x_center == Approx(centre_of(a).first));
    CHECK(anchors[std::size_t(a)].y_center == Approx(centre_of(a).second));
    CHECK(anchors[std::size_t(a)].w == 1.0f);
    CHECK(anchors[std::size_t(a)].h == 1.0f);
  }
}

TEST_CASE("anchors: scales per layer when the anchor size is not fixed", "[detection]") {
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

TEST_CASE("anchors: inconsistent options are refused", "[detection]") {
  auto options = short_range_anchor_options();
  options.strides.pop_back();
  CHECK_THROWS_AS(generate_ssd_anchors(options), std::invalid_argument);
}
