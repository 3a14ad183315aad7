#include "detection/kalman.hpp"

#include <cmath>
#include <stdexcept>

namespace gp::detect {

namespace {

constexpr int kMeas = 4;
using Mat4 = std::array<std::array<double, kMeas>, kMeas>;

// Inverse of the SPD innovation covariance by Gauss-Jordan with partial pivoting.
Mat4 invert(Mat4 m) {
  Mat4 inv{};
  for (int i = 0; i < kMeas; ++i) inv[i][i] = 1.0;
  for (int c = 0; c < kMeas; ++c) {
    int pivot = c;
    for (int r = c + 1; r < kMeas; ++r)
      if (std::fabs(m[r][c]) > std::fabs(m[pivot][c])) pivot = r;
    if (std::fabs(m[pivot][c]) < 1e-300) throw std::runtime_error("Kalman: singular innovation covariance");
    std::swap(m[c], m[pivot]);
    std::swap(inv[c], inv[pivot]);
    const double d = m[c][c];
    for (int k = 0; k < kMeas; ++k) {
      m[c][k] /= d;
      inv[c][k] /= d;
    }
    for (int r = 0; r < kMeas; ++r) {
      if (r == c) continue;
      const double f = m[r][c];
      for (int k = 0; k < kMeas; ++k) {
        m[r][k] -= f * m[c][k];
        inv[r][k] -= f * inv[c][k];
      }
    }
  }
  return inv;
}

}  // namespace

BoxKalmanFilter::BoxKalmanFilter(const BoxXyah& first, KalmanNoiseWeights weights) : weights_(weights) {
  mean_ = {first.cx, first.cy, first.a, first.h, 0, 0, 0, 0};
  const double h = first.h, wp = weights_.position, wv = weights_.velocity;
  const State sd = {2 * wp * h, 2 * wp * h, 1e-2, 2 * wp * h, 10 * wv * h, 10 * wv * h, 1e-5, 10 * wv * h};
  for (int i = 0; i < kDim; ++i) cov_[i][i] = sd[i] * sd[i];
}

void BoxKalmanFilter::predict() {
  const double h = mean_[3], wp = weights_.position, wv = weights_.velocity;
  const State sd = {wp * h, wp * h, 1e-2, wp * h, wv * h, wv * h, 1e-5, wv * h};
  // x' = F x with F = [I I; 0 I]; P' = F P F^T + Q.
  for (int i = 0; i < kMeas; ++i) mean_[i] += mean_[i + kMeas];
  Covariance fp{};
  for (int r = 0; r < kDim; ++r)
    for (int c = 0; c < kDim; ++c) fp[r][c] = cov_[r][c] + (r < kMeas ? cov_[r + kMeas][c] : 0.0);
  for (int r = 0; r < kDim; ++r)
    for (int c = 0; c < kDim; ++c) cov_[r][c] = fp[r][c] + (c < kMeas ? fp[r][c + kMeas] : 0.0);
  for (int i = 0; i < kDim; ++i) cov_[i][i] += sd[i] * sd[i];
}

void BoxKalmanFilter::update(const BoxXyah& z) {
  const double h = mean_[3], wp = weights_.position;
  const std::array<double, kMeas> r = {wp * h, wp * h, 1e-1, wp * h};
  // H = [I 0]: projected covariance S = P[0:4, 0:4] + R.
  Mat4 s{};
  for (int i = 0; i < kMeas; ++i)
    for (int j = 0; j < kMeas; ++j) s[i][j] = cov_[i][j] + (i == j ? r[i] * r[i] : 0.0);
  const Mat4 s_inv = invert(s);
  // K = P H^T S^-1 (8x4).
  std::array<std::array<double, kMeas>, kDim> gain{};
  for (int i = 0; i < kDim; ++i)
    for (int j = 0; j < kMeas; ++j)
      for (int k = 0; k < kMeas; ++k) gain[i][j] += cov_[i][k] * s_inv[k][j];
  const std::array<double, kMeas> innovation = {z.cx - mean_[0], z.cy - mean_[1], z.a - mean_[2], z.h - mean_[3]};
  for (int i = 0; i < kDim; ++i)
    for (int j = 0; j < kMeas; ++j) mean_[i] += gain[i][j] * innovation[j];
  // P -= K H P (= K S K^T): rows of H P are the first four rows of P.
  Covariance next = cov_;
  for (int i = 0; i < kDim; ++i)
    for (int c = 0; c < kDim; ++c)
      for (int j = 0; j < kMeas; ++j) next[i][c] -= gain[i][j] * cov_[j][c];
  cov_ = next;
}

}  // namespace gp::detect
