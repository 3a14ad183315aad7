#pragma once
// Small deterministic porous volumes for the segment-pnm kernel tests: overlapping balls of pore
// (mask 1) in solid (0), placed by a fixed hash so every run and both paths see the same volume.
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/splitmix64.hpp"

namespace gp::test {

inline double unit_random(std::uint64_t seed, std::uint64_t k) {
  return double(gp::splitmix64(seed * 1000003u + k) >> 11) * 0x1p-53;
}

// `balls` pores with radii in [r_min, r_max] voxels inside an nx x ny x nz box.
inline std::vector<std::uint8_t> porous_mask(int nx, int ny, int nz, int balls, double r_min, double r_max,
                                             std::uint64_t seed) {
  std::vector<std::uint8_t> mask(std::size_t(nx) * ny * nz, 0);
  for (int b = 0; b < balls; ++b) {
    const double cx = unit_random(seed, 4 * b) * nx, cy = unit_random(seed, 4 * b + 1) * ny,
                 cz = unit_random(seed, 4 * b + 2) * nz;
    const double r = r_min + unit_random(seed, 4 * b + 3) * (r_max - r_min);
    for (int z = 0; z < nz; ++z)
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
          const double dx = x - cx, dy = y - cy, dz = z - cz;
          if (dx * dx + dy * dy + dz * dz <= r * r) mask[(std::size_t(z) * ny + y) * nx + x] = 1;
        }
  }
  return mask;
}

}  // namespace gp::test
