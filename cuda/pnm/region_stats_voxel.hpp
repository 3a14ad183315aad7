#pragma once
// What region_stats.cu and region_stats_cpu.cpp share voxel by voxel: the neighbour tests, the
// throat records (key and payload) and the exact combination of partial results. nvcc-safe.
//
// A throat record is one interface voxel of one throat side: a voxel of region L with a
// neighbour in region M makes the record (key(L, M), payload(voxel)). Records sorted by key and
// combined give every throat side's InterfaceStat.
#include <cstddef>
#include <cstdint>

#include "core/views.hpp"
#include "cuda/pnm/region_stats.hpp"
#include "cuda/pnm/volume_view.hpp"

namespace gp::pnm::stats {

constexpr std::uint32_t kOutside = 0xFFFFFFFFu;  // label read for a neighbour outside the volume
constexpr int kIndexBits = 44;                   // voxel index bits in a record payload
constexpr std::uint64_t kIndexMask = (std::uint64_t(1) << kIndexBits) - 1;

// Distances as the maxima see them: negative values, -0 and NaN become +0, so float order and
// the order of the bit patterns agree (the GPU takes maxima with integer atomics on the bits).
GP_VIEW_HD inline float canonical_distance(float d) { return d > 0.0f ? d : 0.0f; }

// Whether the peak (d, index) replaces the current one: larger value, or equal value and lower index.
GP_VIEW_HD inline bool beats(float d, std::uint64_t index, float cur_d, std::uint64_t cur_index) {
  return d > cur_d || (d == cur_d && index < cur_index);
}

GP_VIEW_HD inline std::uint64_t voxel_index(int x, int y, int z, int nx, int ny) {
  return (std::uint64_t(z) * std::uint64_t(ny) + std::uint64_t(y)) * std::uint64_t(nx) + std::uint64_t(x);
}

GP_VIEW_HD inline void combine(InterfaceStat& into, const InterfaceStat& p) {
  into.voxels += p.voxels;
  into.sum_x += p.sum_x;
  into.sum_y += p.sum_y;
  into.sum_z += p.sum_z;
  for (int a = 0; a < 3; ++a) into.faces[a] += p.faces[a];
  into.rim_voxels += p.rim_voxels;
  if (beats(p.max_distance, p.max_index, into.max_distance, into.max_index)) {
    into.max_distance = p.max_distance;
    into.max_index = p.max_index;
  }
}

GP_VIEW_HD inline void combine(RegionStat& into, const RegionStat& p) {
  into.voxels += p.voxels;
  into.sum_x += p.sum_x;
  into.sum_y += p.sum_y;
  into.sum_z += p.sum_z;
  for (int a = 0; a < 3; ++a) into.solid_faces[a] += p.solid_faces[a];
  for (int f = 0; f < 6; ++f) into.border_voxels[f] += p.border_voxels[f];
  if (beats(p.max_distance, p.max_index, into.max_distance, into.max_index)) {
    into.max_distance = p.max_distance;
    into.max_index = p.max_index;
  }
}

// The reduction operator of the throat sides (CUB ReduceByKey on the GPU, a loop on the CPU).
struct CombineSides {
  GP_VIEW_HD InterfaceStat operator()(const InterfaceStat& l, const InterfaceStat& r) const {
    InterfaceStat out = l;
    combine(out, r);
    return out;
  }
};

// Labels and distances around a voxel; reads outside the volume give kOutside / not solid.
struct Neighbourhood {
  VolumeView<const std::uint32_t> labels;
  VolumeView<const float> distance;

  GP_VIEW_HD bool inside(int x, int y, int z) const {
    return x >= 0 && y >= 0 && z >= 0 && x < labels.nx && y < labels.ny && z < labels.nz;
  }
  GP_VIEW_HD std::uint32_t label(int x, int y, int z) const { return inside(x, y, z) ? labels.at(x, y, z) : kOutside; }
  // Solid: unlabelled with distance 0 (unassigned pore voxels are unlabelled too, but not at 0).
  GP_VIEW_HD bool solid(int x, int y, int z) const {
    return inside(x, y, z) && labels.at(x, y, z) == 0 && canonical_distance(distance.at(x, y, z)) == 0.0f;
  }
  // Faces of (x, y, z) shared with solid voxels, per axis (0..2 each).
  GP_VIEW_HD void solid_faces(int x, int y, int z, unsigned faces[3]) const {
    faces[0] = unsigned(solid(x - 1, y, z)) + unsigned(solid(x + 1, y, z));
    faces[1] = unsigned(solid(x, y - 1, z)) + unsigned(solid(x, y + 1, z));
    faces[2] = unsigned(solid(x, y, z - 1)) + unsigned(solid(x, y, z + 1));
  }
  GP_VIEW_HD bool touches_solid_26(int x, int y, int z) const {
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          if ((dx | dy | dz) != 0 && solid(x + dx, y + dy, z + dz)) return true;
    return false;
  }
};

// Neighbour p in 0..26 of the 3x3x3 cube (13 is the voxel itself), and whether connectivity
// counts it: c6 only the 6 face neighbours.
GP_VIEW_HD inline void cube_offset(int p, int& dx, int& dy, int& dz) {
  dx = p % 3 - 1;
  dy = (p / 3) % 3 - 1;
  dz = p / 9 - 1;
}
GP_VIEW_HD inline bool counted_neighbour(int p, bool c26) {
  if (p == 13) return false;
  if (c26) return true;
  return p == 4 || p == 10 || p == 12 || p == 14 || p == 16 || p == 22;
}

// Calls emit(M, fx, fy, fz, rim) once for each region M != L that neighbours voxel (x, y, z) of
// region L, in the cube order of M's first appearance; fx, fy, fz are the faces shared with M per
// axis, rim whether the voxel has a solid voxel among its 26 neighbours. Returns the call count.
#ifdef __CUDACC__
#pragma nv_exec_check_disable
#endif
template <class Emit>
GP_VIEW_HD unsigned for_each_contact(const Neighbourhood& nb, int x, int y, int z, std::uint32_t L, bool c26, Emit&& emit) {
  // Most voxels touch no other region: away from the volume's edges, check that with plain loads.
  const VolumeView<const std::uint32_t>& lv = nb.labels;
  if (x > 0 && y > 0 && z > 0 && x + 1 < lv.nx && y + 1 < lv.ny && z + 1 < lv.nz) {
    const std::uint32_t* centre = &lv.at(x, y, z);
    const std::ptrdiff_t row = lv.nx, slice = std::ptrdiff_t(lv.nx) * lv.ny;
    bool other = false;
    for (int p = 0; p < 27; ++p) {
      if (!counted_neighbour(p, c26)) continue;
      int dx, dy, dz;
      cube_offset(p, dx, dy, dz);
      const std::uint32_t m = centre[dx + dy * row + dz * slice];
      other = other || (m != 0 && m != L);
    }
    if (!other) return 0;
  }
  unsigned count = 0;
  int rim = -1;  // computed on the first contact
  for (int p = 0; p < 27; ++p) {
    if (!counted_neighbour(p, c26)) continue;
    int dx, dy, dz;
    cube_offset(p, dx, dy, dz);
    const std::uint32_t m = nb.label(x + dx, y + dy, z + dz);
    if (m == 0 || m == L || m == kOutside) continue;
    bool seen = false;
    for (int q = 0; q < p && !seen; ++q) {
      if (!counted_neighbour(q, c26)) continue;
      int ex, ey, ez;
      cube_offset(q, ex, ey, ez);
      seen = nb.label(x + ex, y + ey, z + ez) == m;
    }
    if (seen) continue;
    if (rim < 0) rim = nb.touches_solid_26(x, y, z) ? 1 : 0;
    const unsigned fx = unsigned(nb.label(x - 1, y, z) == m) + unsigned(nb.label(x + 1, y, z) == m);
    const unsigned fy = unsigned(nb.label(x, y - 1, z) == m) + unsigned(nb.label(x, y + 1, z) == m);
    const unsigned fz = unsigned(nb.label(x, y, z - 1) == m) + unsigned(nb.label(x, y, z + 1) == m);
    emit(m, fx, fy, fz, rim == 1);
    ++count;
  }
  return count;
}

// Key of the record of a voxel of region L touching region M (regions <= region_count < 2^31):
// the pair (lo, hi) in lexicographic order, then the side (0: the voxel is in lo, 1: in hi).
GP_VIEW_HD inline std::uint64_t throat_key(std::uint32_t L, std::uint32_t M, std::uint32_t region_count) {
  const std::uint32_t lo = L < M ? L : M, hi = L < M ? M : L;
  const std::uint64_t pair = std::uint64_t(lo) * (std::uint64_t(region_count) + 1) + hi;
  return pair * 2 + (L == hi ? 1 : 0);
}
inline void decode_throat_key(std::uint64_t key, std::uint32_t region_count, std::uint32_t& lo, std::uint32_t& hi, int& side) {
  side = int(key & 1);
  const std::uint64_t pair = key >> 1;
  lo = std::uint32_t(pair / (std::uint64_t(region_count) + 1));
  hi = std::uint32_t(pair % (std::uint64_t(region_count) + 1));
}
// Bits the keys use (radix sort range).
inline int throat_key_bits(std::uint32_t region_count) {
  const std::uint64_t max_key = throat_key(region_count, region_count > 0 ? region_count - 1 : 0, region_count);
  int bits = 1;
  while (bits < 64 && (max_key >> bits) != 0) ++bits;
  return bits;
}

GP_VIEW_HD inline std::uint64_t record_payload(std::uint64_t index, bool rim, unsigned fx, unsigned fy, unsigned fz) {
  return index | (std::uint64_t(rim) << kIndexBits) | (std::uint64_t(fx) << (kIndexBits + 1)) |
         (std::uint64_t(fy) << (kIndexBits + 3)) | (std::uint64_t(fz) << (kIndexBits + 5));
}

// One record as a throat-side statistic (reads the voxel's distance).
struct RecordToSide {
  VolumeView<const float> distance;
  GP_VIEW_HD InterfaceStat operator()(std::uint64_t payload) const {
    const std::uint64_t index = payload & kIndexMask;
    const std::uint64_t nx = std::uint64_t(distance.nx), ny = std::uint64_t(distance.ny);
    const std::uint64_t x = index % nx, row = index / nx, y = row % ny, z = row / ny;
    InterfaceStat s;
    s.voxels = 1;
    s.sum_x = x;
    s.sum_y = y;
    s.sum_z = z;
    s.rim_voxels = (payload >> kIndexBits) & 1;
    s.faces[0] = (payload >> (kIndexBits + 1)) & 3;
    s.faces[1] = (payload >> (kIndexBits + 3)) & 3;
    s.faces[2] = (payload >> (kIndexBits + 5)) & 3;
    s.max_distance = canonical_distance(distance.at(int(x), int(y), int(z)));
    s.max_index = index;
    return s;
  }
};

}  // namespace gp::pnm::stats
