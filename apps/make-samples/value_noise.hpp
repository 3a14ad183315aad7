#pragma once
// Deterministic 2-D value noise for the generated samples (the video sample's moving texture, the
// rig scene's surfaces): a splitmix64 hash per integer lattice point, smoothstep-interpolated.
#include <cmath>
#include <cstdint>

#include "core/splitmix64.hpp"

namespace gp::samples {

// Uniform in [0, 1) at an integer lattice point.
inline double lattice(std::int64_t x, std::int64_t y, std::uint64_t seed) {
  return double(splitmix64(seed ^ splitmix64(std::uint64_t(x) * 0x9E3779B97F4A7C15ull ^ std::uint64_t(y))) >> 11) * 0x1p-53;
}

inline double smooth(double t) { return t * t * (3 - 2 * t); }

// In [0, 1): the lattice values around (x, y), interpolated with smoothstep weights.
inline double value_noise(double x, double y, std::uint64_t seed) {
  const double fx = std::floor(x), fy = std::floor(y);
  const auto ix = std::int64_t(fx), iy = std::int64_t(fy);
  const double tx = smooth(x - fx), ty = smooth(y - fy);
  const double top = lattice(ix, iy, seed) + (lattice(ix + 1, iy, seed) - lattice(ix, iy, seed)) * tx;
  const double bottom = lattice(ix, iy + 1, seed) + (lattice(ix + 1, iy + 1, seed) - lattice(ix, iy + 1, seed)) * tx;
  return top + (bottom - top) * ty;
}

}  // namespace gp::samples
