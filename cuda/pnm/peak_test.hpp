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

// Voxel (x, y, z) (z global) of views that hold the ball's slices around it (mirrored at the
// volume's faces).
GP_VIEW_HD inline bool is_peak(const VolumeView<const std::uint8_t>& mask, const VolumeView<const float>& distance, int x,
                               int y, int z, const Ball& b) {
  const int nx = mask.nx, ny = mask.ny, nz = mask.nz;
  if (!mask.at(x, y, z)) return false;
  const float value = distance.at(x, y, z);
  for (int dz = -b.rz; dz <= b.rz; ++dz) {
    const float pz = float(dz) * b.sz;
    const int zz = reflect(z + dz, nz);
    for (int dy = -b.ry; dy <= b.ry; ++dy) {
      const float py = float(dy) * b.sy;
      const int yy = reflect(y + dy, ny);
      const std::size_t mask_row = mask.offset(0, yy, zz), distance_row = distance.offset(0, yy, zz);
      for (int dx = -b.rx; dx <= b.rx; ++dx) {
        const float px = float(dx) * b.sx;
        if (px * px + py * py + pz * pz > b.r2) continue;
        const int xx = reflect(x + dx, nx);
        const float d = distance.data[distance_row + std::size_t(xx)];
        const float other = mask.data[mask_row + std::size_t(xx)] ? d : d + b.solid_bonus;
        if (other > value) return false;
      }
    }
  }
  return true;
}

}  // namespace gp::pnm::peak_detail
