#pragma once
// What the GPU marker selection and its CPU reference (markers.hpp) share, so both decide alike
// bit for bit: voxel coordinates of 64-bit linear indices, the nearest-peak search of
// trim_nearby_peaks over a uniform grid of cells, and the nearness test. nvcc-safe.
//
// The nearest other peak of a cluster centre is the one at the smallest squared physical distance,
// computed as ((0 + dx^2) + dy^2) + dz^2 in double without fused multiply-adds; among equally near
// ones, the one with the smallest cluster number (a k-d tree would return whichever it met first).
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "cuda/pnm/volume_view.hpp"

namespace gp::pnm::markers_detail {

constexpr std::uint64_t no_voxel = ~std::uint64_t(0);
constexpr std::uint32_t no_point = 0xffffffffu;

struct Voxel {
  int x, y, z;
};

GP_VIEW_HD inline Voxel voxel_of(std::uint64_t i, int nx, int ny) {
  const std::uint64_t row = i / std::uint64_t(nx);
  return {int(i % std::uint64_t(nx)), int(row % std::uint64_t(ny)), int(row / std::uint64_t(ny))};
}

GP_VIEW_HD inline std::uint64_t index_of(int x, int y, int z, int nx, int ny) {
  return (std::uint64_t(z) * std::uint64_t(ny) + std::uint64_t(y)) * std::uint64_t(nx) + std::uint64_t(x);
}

// Rounded double arithmetic, never contracted into fused multiply-adds on either side.
GP_VIEW_HD inline double mul(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
GP_VIEW_HD inline double add(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
GP_VIEW_HD inline double sub(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}

// trim_nearby_peaks' test: the neighbour is nearer than f times the centre's distance to solid.
GP_VIEW_HD inline bool too_near(double squared_gap, float factor, float to_solid) {
#ifdef __CUDA_ARCH__
  const float reach = __fmul_rn(factor, to_solid);
#else
  const float reach = factor * to_solid;
#endif
#ifdef __CUDA_ARCH__
  return sqrt(squared_gap) < double(reach);
#else
  return std::sqrt(squared_gap) < double(reach);
#endif
}

// Cluster centres hashed into cells of cell[a] voxels along axis a; cell index x fastest.
struct Grid {
  int cell[3];   // voxels per cell along x, y, z
  int dims[3];   // cells along x, y, z
  double spacing[3];
  GP_VIEW_HD std::size_t cells() const { return std::size_t(dims[0]) * std::size_t(dims[1]) * std::size_t(dims[2]); }
  GP_VIEW_HD std::size_t cell_of(const int* c) const {
    return (std::size_t(c[2] / cell[2]) * std::size_t(dims[1]) + std::size_t(c[1] / cell[1])) * std::size_t(dims[0]) +
           std::size_t(c[0] / cell[0]);
  }
  // Physical coordinate of voxel coordinate v along axis a.
  GP_VIEW_HD double position(int v, int a) const { return mul(double(v), spacing[a]); }
  // Squared physical distance of two centres (voxel coordinates).
  GP_VIEW_HD double squared_gap(const int* p, const int* q) const {
    double r = 0;
    for (int a = 0; a < 3; ++a) {
      const double d = sub(position(p[a], a), position(q[a], a));
      r = add(r, mul(d, d));
    }
    return r;
  }
};

// About one centre per cell, cells about cubic in physical space.
inline Grid make_grid(int nx, int ny, int nz, Spacing s, std::size_t points) {
  const int n[3] = {nx, ny, nz};
  const double sp[3] = {double(s.x), double(s.y), double(s.z)};
  const double extent = double(nx) * sp[0] * double(ny) * sp[1] * double(nz) * sp[2];
  double edge = std::cbrt(extent / double(points > 0 ? points : 1));
  Grid g{};
  for (;; edge *= 2) {
    for (int a = 0; a < 3; ++a) {
      const double c = std::floor(edge / sp[a]);
      g.cell[a] = c < 1 ? 1 : (c > double(n[a]) ? n[a] : int(c));
      g.dims[a] = (n[a] + g.cell[a] - 1) / g.cell[a];
      g.spacing[a] = sp[a];
    }
    if (g.cells() <= 2 * points + 64 && g.cells() < 0xffffffffu) return g;  // cell indices stay 32-bit
  }
}

struct Nearest {
  std::uint32_t index = no_point;
  double squared = 0;
};

// The nearest centre to centre i other than i itself. centres: x, y, z voxel coordinates per point;
// cell_start[c] .. cell_start[c + 1]: the positions in cell_points of the points in cell c.
GP_VIEW_HD inline Nearest nearest_other(std::uint32_t i, const int* centres, const std::uint32_t* cell_start,
                                        const std::uint32_t* cell_points, const Grid& g) {
  const int* p = centres + 3 * std::size_t(i);
  const int home[3] = {p[0] / g.cell[0], p[1] / g.cell[1], p[2] / g.cell[2]};
  int rings = g.dims[0];
  if (g.dims[1] > rings) rings = g.dims[1];
  if (g.dims[2] > rings) rings = g.dims[2];
  Nearest best;
  best.squared = INFINITY;
  for (int r = 0; r < rings; ++r) {
    if (r >= 1 && best.index != no_point) {
      // A point in a cell r or more cells away along some axis a is at least (r-1) cells plus one
      // voxel away along it; the margin covers the rounding of both sides.
      double bound = INFINITY;
      for (int a = 0; a < 3; ++a) {
        const double gap = mul(double((r - 1) * g.cell[a] + 1), g.spacing[a]);
        if (gap < bound) bound = gap;
      }
      if (mul(mul(bound, bound), 1 - 1e-9) > best.squared) break;
    }
    for (int dz = -r; dz <= r; ++dz) {
      const int cz = home[2] + dz;
      if (cz < 0 || cz >= g.dims[2]) continue;
      for (int dy = -r; dy <= r; ++dy) {
        const int cy = home[1] + dy;
        if (cy < 0 || cy >= g.dims[1]) continue;
        const bool shell = dz == -r || dz == r || dy == -r || dy == r;
        const int step = shell || r == 0 ? 1 : 2 * r;  // inside the shell: only its two x faces
        for (int dx = -r; dx <= r; dx += step) {
          const int cx = home[0] + dx;
          if (cx < 0 || cx >= g.dims[0]) continue;
          const std::size_t cell = (std::size_t(cz) * std::size_t(g.dims[1]) + std::size_t(cy)) * std::size_t(g.dims[0]) +
                                   std::size_t(cx);
          for (std::uint32_t k = cell_start[cell]; k < cell_start[cell + 1]; ++k) {
            const std::uint32_t j = cell_points[k];
            if (j == i) continue;
            const double d = g.squared_gap(p, centres + 3 * std::size_t(j));
            if (d < best.squared || (d == best.squared && j < best.index)) {
              best.squared = d;
              best.index = j;
            }
          }
        }
      }
    }
  }
  return best;
}

}  // namespace gp::pnm::markers_detail
