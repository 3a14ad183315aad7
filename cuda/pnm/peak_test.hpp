#pragma once
// The per-voxel peak test of peaks.hpp, shared by the GPU kernel and the CPU reference.
#include <cstdint>

#include "cuda/pnm/volume_view.hpp"

namespace gp::pnm::peak_detail {

struct Ball {
  int rx, ry, rz;        // half extent along each axis, in voxels
  float sx, sy, sz, r2;  // spacing and squared physical radius
  float solid_bonus;     // added to solid voxels' values: 2 voxels of the finest spacing
};

inline Ball make_ball(Spacing s, float r_max) {
  const float finest = s.x < s.y ? (s.x < s.z ? s.x : s.z) : (s.y < s.z ? s.y : s.z);
  const float r = r_max * finest;
  return {int(r / s.x), int(r / s.y), int(r / s.z), s.x, s.y, s.z, r * r, 2.f * finest};
}

// scipy.ndimage 'reflect' (d c b a | a b c d | d c b a), clamped for offsets beyond one mirror.
GP_VIEW_HD inline int reflect(int i, int n) {
  if (i < 0) i = -i - 1;
  if (i >= n) i = 2 * n - i - 1;
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

GP_VIEW_HD inline bool is_peak(const std::uint8_t* mask, const float* distance, int nx, int ny, int nz, int x, int y,
                               int z, const Ball& b) {
  const std::size_t row = std::size_t(nx), plane = std::size_t(nx) * std::size_t(ny);
  const std::size_t self = std::size_t(z) * plane + std::size_t(y) * row + std::size_t(x);
  if (!mask[self]) return false;
  const float value = distance[self];
  for (int dz = -b.rz; dz <= b.rz; ++dz) {
    const float pz = float(dz) * b.sz;
    const std::size_t oz = std::size_t(reflect(z + dz, nz)) * plane;
    for (int dy = -b.ry; dy <= b.ry; ++dy) {
      const float py = float(dy) * b.sy;
      const std::size_t oy = oz + std::size_t(reflect(y + dy, ny)) * row;
      for (int dx = -b.rx; dx <= b.rx; ++dx) {
        const float px = float(dx) * b.sx;
        if (px * px + py * py + pz * pz > b.r2) continue;
        const std::size_t j = oy + std::size_t(reflect(x + dx, nx));
        const float other = mask[j] ? distance[j] : distance[j] + b.solid_bonus;
        if (other > value) return false;
      }
    }
  }
  return true;
}

}  // namespace gp::pnm::peak_detail
