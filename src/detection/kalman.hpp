#pragma once
// Constant-velocity Kalman filter on image boxes, as SORT/ByteTrack: state (cx, cy, a, h) and
// their velocities, a = width / height. Noise scales with the box height, so near and far faces
// get the same relative uncertainty (ByteTrack's weights: 1/20 position, 1/160 velocity).
#include <array>

namespace gp::detect {

// Box as (center x, center y, aspect width/height, height).
struct BoxXyah {
  double cx = 0, cy = 0, a = 0, h = 0;
};

// Standard deviations per unit of box height.
struct KalmanNoiseWeights {
  double position = 1.0 / 20;
  double velocity = 1.0 / 160;
};

class BoxKalmanFilter {
 public:
  static constexpr int kDim = 8;
  using State = std::array<double, kDim>;
  using Covariance = std::array<std::array<double, kDim>, kDim>;

  BoxKalmanFilter() = default;
  explicit BoxKalmanFilter(const BoxXyah& first, KalmanNoiseWeights weights = {});

  void predict();                          // one frame ahead
  void update(const BoxXyah& measurement);  // fuse one detection

  BoxXyah box() const { return {mean_[0], mean_[1], mean_[2], mean_[3]}; }
  const State& mean() const { return mean_; }
  const Covariance& covariance() const { return cov_; }

 private:
  KalmanNoiseWeights weights_;
  State mean_{};
  Covariance cov_{};
};

}  // namespace gp::detect
