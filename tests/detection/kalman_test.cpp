// Box Kalman filter against values computed by hand from ByteTrack's noise model.
#include <catch2/catch.hpp>

#include "detection/kalman.hpp"

using namespace gp::detect;

TEST_CASE("kalman: initial covariance, predict and update by hand", "[detection]") {
  // h = 40: position sd 2*40/20 = 4 (var 16), velocity sd 10*40/160 = 2.5 (var 6.25).
  BoxKalmanFilter kf({100, 50, 0.5, 40});
  CHECK(kf.covariance()[0][0] == Approx(16));
  CHECK(kf.covariance()[4][4] == Approx(6.25));
  CHECK(kf.covariance()[2][2] == Approx(1e-4));

  kf.predict();  // zero velocity: mean stays; P_xx = 16 + 6.25 + (40/20)^2, P_xv = 6.25,
                 // P_vv = 6.25 + (40/160)^2
  CHECK(kf.box().cx == Approx(100));
  CHECK(kf.covariance()[0][0] == Approx(26.25));
  CHECK(kf.covariance()[0][4] == Approx(6.25));
  CHECK(kf.covariance()[4][0] == Approx(6.25));
  CHECK(kf.covariance()[4][4] == Approx(6.3125));

  kf.update({110, 50, 0.5, 40});  // S = 26.25 + 4 = 30.25 on x
  CHECK(kf.box().cx == Approx(100 + 10 * 26.25 / 30.25));
  CHECK(kf.mean()[4] == Approx(10 * 6.25 / 30.25));
  CHECK(kf.box().cy == Approx(50));
  CHECK(kf.mean()[5] == Approx(0).margin(1e-12));
  CHECK(kf.covariance()[0][0] == Approx(26.25 - 26.25 * 26.25 / 30.25));
  CHECK(kf.covariance()[0][4] == Approx(6.25 - 26.25 * 6.25 / 30.25));
  CHECK(kf.covariance()[4][4] == Approx(6.3125 - 6.25 * 6.25 / 30.25));
  CHECK(kf.covariance()[0][1] == Approx(0).margin(1e-12));  // axes stay independent
}

TEST_CASE("kalman: learns a constant velocity and extrapolates it", "[detection]") {
  BoxKalmanFilter kf({0, 0, 1, 50});
  for (int t = 1; t <= 30; ++t) {
    kf.predict();
    kf.update({3.0 * t, -2.0 * t, 1, 50});
  }
  CHECK(kf.mean()[4] == Approx(3.0).margin(0.05));
  CHECK(kf.mean()[5] == Approx(-2.0).margin(0.05));
  kf.predict();
  kf.predict();
  CHECK(kf.box().cx == Approx(96).margin(0.5));
  CHECK(kf.box().cy == Approx(-64).margin(0.5));
  CHECK(kf.box().h == Approx(50).margin(1e-6));
}
