#pragma once
// Label volumes and distance maps for the region-statistics tests: hand-built boxes and
// pseudo-random Voronoi partitions with solid, unassigned voxels and tied distances.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "cuda/pnm/region_stats.hpp"
#include "cuda/pnm/volume_view.hpp"

namespace gp::test {

struct LabelVolume {
  int nx = 0, ny = 0, nz = 0;
  std::uint32_t regions = 0;
  std::vector<std::uint32_t> labels;  // 0 = solid (distance 0) or unassigned (distance > 0)
  std::vector<float> distance;

  LabelVolume(int x, int y, int z) : nx(x), ny(y), nz(z), labels(std::size_t(x) * y * z, 0), distance(labels.size(), 0.0f) {}
  std::size_t index(int x, int y, int z) const { return (std::size_t(z) * ny + y) * nx + x; }
  // Labels the box [x0, x1] x [y0, y1] x [z0, z1] (inclusive) with `label` at distance `d`.
  void box(int x0, int x1, int y0, int y1, int z0, int z1, std::uint32_t label, float d) {
    for (int z = z0; z <= z1; ++z)
      for (int y = y0; y <= y1; ++y)
        for (int x = x0; x <= x1; ++x) {
          labels[index(x, y, z)] = label;
          distance[index(x, y, z)] = d;
        }
    if (label > regions) regions = label;
  }
  gp::VolumeView<const std::uint32_t> label_view() const { return gp::whole_volume(labels.data(), nx, ny, nz); }
  gp::VolumeView<const float> distance_view() const { return gp::whole_volume(distance.data(), nx, ny, nz); }
};

// Views of slices [z_begin - 1, z_end + 1) (clipped to the volume) of a whole-volume view: what a
// slab run hands over.
template <class T>
pnm::VolumeView<T> slab_view(const gp::VolumeView<T>& whole, int z_begin, int z_end) {
  const int first = z_begin > 0 ? z_begin - 1 : 0;
  const int end = z_end < whole.nz ? z_end + 1 : whole.nz;
  return {whole.data + std::size_t(first) * whole.slice_voxels(), whole.nx, whole.ny, whole.nz, first, end - first};
}

// Voronoi cells of `seeds` random points (labels 1..seeds, nearest seed, lowest seed on ties),
// then about `solid_fraction` of the voxels made solid and a few left unassigned. Distances of
// pore voxels are multiples of 0.25 in [0.25, 2], so maxima tie often.
inline LabelVolume random_partition(int nx, int ny, int nz, int seeds, double solid_fraction, unsigned rng_seed) {
  std::mt19937 rng(rng_seed);
  LabelVolume v(nx, ny, nz);
  std::vector<int> sx(seeds), sy(seeds), sz(seeds);
  for (int s = 0; s < seeds; ++s) {
    sx[s] = int(rng() % unsigned(nx));
    sy[s] = int(rng() % unsigned(ny));
    sz[s] = int(rng() % unsigned(nz));
  }
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        int best = 0;
        long best_d = -1;
        for (int s = 0; s < seeds; ++s) {
          const long d = long(x - sx[s]) * (x - sx[s]) + long(y - sy[s]) * (y - sy[s]) + long(z - sz[s]) * (z - sz[s]);
          if (best_d < 0 || d < best_d) best_d = d, best = s;
        }
        const std::size_t i = v.index(x, y, z);
        const double r = unit(rng);
        if (r < solid_fraction) continue;  // solid: label 0, distance 0
        v.distance[i] = 0.25f * float(1 + rng() % 8);
        if (r < solid_fraction + 0.02) continue;  // unassigned pore voxel
        v.labels[i] = std::uint32_t(best + 1);
      }
  v.regions = std::uint32_t(seeds);
  return v;
}

// Every region and throat equal, naming the first that differs.
inline void require_equal(const pnm::RegionStats& got, const pnm::RegionStats& want) {
  REQUIRE(got.regions.size() == want.regions.size());
  for (std::size_t r = 0; r < want.regions.size(); ++r) {
    INFO("region " << r + 1);
    REQUIRE(got.regions[r] == want.regions[r]);
  }
  REQUIRE(got.throats.size() == want.throats.size());
  for (std::size_t t = 0; t < want.throats.size(); ++t) {
    INFO("throat " << want.throats[t].a << "-" << want.throats[t].b);
    REQUIRE(got.throats[t] == want.throats[t]);
  }
}

}  // namespace gp::test
