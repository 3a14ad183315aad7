#pragma once
// Pseudo-random host volumes (fixed seeds) and Z-slab views of them, for the volume kernels' tests
// (segment-pnm's denoise, binarize, fill; the shared component labelling).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "cuda/common/volume_view.hpp"

namespace gp::test {

struct Dims {
  int nx, ny, nz;
  std::size_t voxels() const { return std::size_t(nx) * ny * nz; }
  std::size_t slice() const { return std::size_t(nx) * ny; }
};

// Uniform values in [lo, hi).
inline std::vector<float> random_floats(const Dims& d, std::uint32_t seed, float lo = 0.f, float hi = 1.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(d.voxels());
  for (float& x : v) x = u(rng);
  return v;
}

// Few distinct values, -0.0 and +0.0 among them: ties everywhere (the median must pick the same bits).
inline std::vector<float> tied_floats(const Dims& d, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> u(-3, 4);
  std::vector<float> v(d.voxels());
  for (float& x : v) {
    const int k = u(rng);
    x = k == 4 ? -0.0f : float(k) * 0.25f;
  }
  return v;
}

// NaN (padding, as the DICOM reader gives it) outside the circle inscribed in each slice, as around
// a CT scan, and at a few scattered voxels (0.5%) inside.
inline void pad_outside_circle(std::vector<float>& v, const Dims& d, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::bernoulli_distribution stray(0.005);
  const double cx = (d.nx - 1) / 2.0, cy = (d.ny - 1) / 2.0, r = std::min(d.nx, d.ny) / 2.0;
  for (int z = 0; z < d.nz; ++z)
    for (int y = 0; y < d.ny; ++y)
      for (int x = 0; x < d.nx; ++x)
        if ((x - cx) * (x - cx) + (y - cy) * (y - cy) > r * r || stray(rng))
          v[(std::size_t(z) * d.ny + y) * d.nx + x] = std::numeric_limits<float>::quiet_NaN();
}

// Voxels equal to 1 with probability `density`, else 0.
inline std::vector<std::uint8_t> random_mask(const Dims& d, double density, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::bernoulli_distribution b(density);
  std::vector<std::uint8_t> m(d.voxels());
  for (auto& x : m) x = b(rng) ? 1 : 0;
  return m;
}

// A mask with larger structures: a box-smoothed random field thresholded at its median-ish level.
inline std::vector<std::uint8_t> blobby_mask(const Dims& d, double level, std::uint32_t seed) {
  const std::vector<float> noise = random_floats(d, seed);
  std::vector<std::uint8_t> m(d.voxels());
  for (int z = 0; z < d.nz; ++z)
    for (int y = 0; y < d.ny; ++y)
      for (int x = 0; x < d.nx; ++x) {
        float sum = 0;
        int count = 0;
        for (int dz = -2; dz <= 2; ++dz)
          for (int dy = -2; dy <= 2; ++dy)
            for (int dx = -2; dx <= 2; ++dx) {
              const int xx = x + dx, yy = y + dy, zz = z + dz;
              if (xx < 0 || yy < 0 || zz < 0 || xx >= d.nx || yy >= d.ny || zz >= d.nz) continue;
              sum += noise[(std::size_t(zz) * d.ny + yy) * d.nx + xx];
              ++count;
            }
        m[(std::size_t(z) * d.ny + y) * d.nx + x] = sum / float(count) > float(level) ? 1 : 0;
      }
  return m;
}

// A view of slices [first, first + count) of a whole host volume, without copying.
template <class T>
VolumeView<T> slab_of(std::vector<T>& whole, const Dims& d, int first, int count) {
  return {whole.data() + d.slice() * std::size_t(first), d.nx, d.ny, d.nz, first, count};
}
template <class T>
VolumeView<const T> slab_of(const std::vector<T>& whole, const Dims& d, int first, int count) {
  return {whole.data() + d.slice() * std::size_t(first), d.nx, d.ny, d.nz, first, count};
}

// Slices [first, first + count) widened by `halo` each side, clamped to the volume.
struct SlabRange {
  int first, count;
};
inline SlabRange with_halo(const Dims& d, int first, int count, int halo) {
  const int a = std::max(0, first - halo), b = std::min(d.nz, first + count + halo);
  return {a, b - a};
}

}  // namespace gp::test
