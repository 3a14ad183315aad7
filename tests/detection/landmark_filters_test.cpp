// MediaPipe's landmark filters against values computed by hand from its one_euro_filter.cc and
// low_pass_filter.cc.
#include <catch2/catch.hpp>

#include <cmath>

#include "detection/landmark_filters.hpp"

using namespace gp::detect;

TEST_CASE("low-pass filter: the first value passes, then alpha-weighted", "[detection]") {
  LowPassFilter f(0.1f);
  CHECK_FALSE(f.has_last_raw());
  CHECK(f.apply(1.0f) == 1.0f);
  CHECK(f.apply(0.0f) == Approx(0.9f));
  CHECK(f.apply(0.0f) == Approx(0.81f));
  CHECK(f.last_raw() == 0.0f);
}

TEST_CASE("1-euro filter: MediaPipe's arithmetic", "[detection]") {
  constexpr std::int64_t s = 1000000000;
  SECTION("beta 0: a plain low-pass at min_cutoff, the rate from the timestamps") {
    OneEuroFilter f({30, 1, 0, 1});
    CHECK(f.apply(s, 1, 10) == 10);  // first value
    // 0.1 s later: te = 0.1, tau = 1 / (2 pi), alpha = 1 / (1 + tau / te) = 0.385870
    CHECK(f.apply(s + s / 10, 1, 20) == Approx(0.385870 * 20 + 0.614130 * 10).epsilon(1e-5));
  }
  SECTION("beta raises the cutoff with the (scaled) speed") {
    OneEuroFilter f({30, 1, 0.1, 1});
    f.apply(s, 2, 10);
    // speed (20 - 10) * scale 2 * 10/s = 200, low-passed at 1 Hz: 77.174; cutoff 1 + 7.7174;
    // tau = 1 / (2 pi 8.7174) = 0.018257, alpha = 1 / (1 + 0.18257) = 0.845616
    CHECK(f.apply(s + s / 10, 2, 20) == Approx(0.845616 * 20 + 0.154384 * 10).epsilon(1e-5));
  }
  SECTION("a timestamp not after the last one passes the value unfiltered") {
    OneEuroFilter f({30, 1, 0, 1});
    CHECK(f.apply(0, 1, 5) == 5);  // MediaPipe's last time starts at 0: time 0 is not filtered...
    CHECK(f.apply(s, 1, 7) == 7);  // ...nor stored: this is the first value
    CHECK(f.apply(s, 1, 100) == 100);
    CHECK(f.apply(s + s / 30, 1, 7) == Approx(7));
  }
}
