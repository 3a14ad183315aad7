// The CPU selection of markers.hpp: the reference of the GPU version (markers.cu) and the CPU
// path's selection.
#include <algorithm>
#include <numeric>
#include <string>

#include "core/parallel_for.hpp"
#include "cuda/pnm/markers.hpp"
#include "cuda/pnm/markers_math.hpp"
#include "cuda/pnm/slab_checks.hpp"

namespace gp::pnm {
namespace {

using namespace markers_detail;

// Connected clusters of a sorted voxel list under 6- or 26-connectivity: cluster id per voxel,
// numbered in order of each cluster's first voxel.
std::vector<std::uint32_t> cluster_voxels(const std::vector<std::uint64_t>& voxels, int nx, int ny, int nz,
                                          Connectivity connectivity, std::uint32_t& clusters) {
  std::vector<std::uint32_t> parent(voxels.size());
  std::iota(parent.begin(), parent.end(), 0u);
  auto find = [&](std::uint32_t a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
  };
  for (std::size_t k = 0; k < voxels.size(); ++k) {
    const Voxel c = voxel_of(voxels[k], nx, ny);
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int manhattan = std::abs(dx) + std::abs(dy) + std::abs(dz);
          if (manhattan == 0 || (connectivity == Connectivity::c6 && manhattan > 1)) continue;
          const int x = c.x + dx, y = c.y + dy, z = c.z + dz;
          if (x < 0 || y < 0 || z < 0 || x >= nx || y >= ny || z >= nz) continue;
          const std::uint64_t j = index_of(x, y, z, nx, ny);
          if (j >= voxels[k]) continue;  // each pair once, from its later voxel
          const auto it = std::lower_bound(voxels.begin(), voxels.begin() + std::ptrdiff_t(k), j);
          if (*it != j) continue;  // it < voxels[k]'s position: j < voxels[k]
          const std::uint32_t a = find(std::uint32_t(k)), b = find(std::uint32_t(it - voxels.begin()));
          if (a != b) parent[std::max(a, b)] = std::min(a, b);  // roots stay the first voxel
        }
  }
  std::vector<std::uint32_t> id(voxels.size());
  std::vector<std::uint32_t> root_id(voxels.size(), ~0u);
  clusters = 0;
  for (std::size_t k = 0; k < voxels.size(); ++k) {
    const std::uint32_t r = find(std::uint32_t(k));
    if (root_id[r] == ~0u) root_id[r] = clusters++;
    id[k] = root_id[r];
  }
  return id;
}

std::vector<std::vector<std::uint64_t>> members_of(const std::vector<std::uint64_t>& voxels,
                                                   const std::vector<std::uint32_t>& id, std::uint32_t clusters) {
  std::vector<std::vector<std::uint64_t>> members(clusters);
  for (std::size_t k = 0; k < voxels.size(); ++k) members[id[k]].push_back(voxels[k]);
  return members;
}

// PoreSpy's trim_saddle_points for one cluster (markers.hpp, step 2). True when the cluster stays.
bool survives_saddle_test(const std::vector<std::uint64_t>& cluster, VolumeView<const float> d, int max_iterations) {
  const int nx = d.nx, ny = d.ny, nz = d.nz;
  Voxel lo{nx, ny, nz}, hi{-1, -1, -1};
  float R = 0;
  for (std::uint64_t i : cluster) {
    const Voxel c = voxel_of(i, nx, ny);
    lo = {std::min(lo.x, c.x), std::min(lo.y, c.y), std::min(lo.z, c.z)};
    hi = {std::max(hi.x, c.x), std::max(hi.y, c.y), std::max(hi.z, c.z)};
    R = std::max(R, d.data[i]);
  }
  const int pad = std::max(10, int(R));
  lo = {std::max(0, lo.x - pad), std::max(0, lo.y - pad), std::max(0, lo.z - pad)};
  hi = {std::min(nx - 1, hi.x + pad), std::min(ny - 1, hi.y + pad), std::min(nz - 1, hi.z + pad)};
  auto in_box = [&](int x, int y, int z) {
    return x >= lo.x && y >= lo.y && z >= lo.z && x <= hi.x && y <= hi.y && z <= hi.z;
  };
  auto dilate = [&](const std::vector<std::uint64_t>& set) {  // sorted in, sorted out; clipped to the box
    std::vector<std::uint64_t> out;
    out.reserve(set.size() * 27);
    for (std::uint64_t i : set) {
      const Voxel c = voxel_of(i, nx, ny);
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx)
            if (in_box(c.x + dx, c.y + dy, c.z + dz)) out.push_back(index_of(c.x + dx, c.y + dy, c.z + dz, nx, ny));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  };
  std::vector<std::uint64_t> plateau = cluster;  // sorted: clusters come from a sorted list
  for (int iteration = 0; iteration < max_iterations; ++iteration) {
    const std::vector<std::uint64_t> grown = dilate(plateau);
    std::vector<std::uint64_t> rim;  // newly reached voxels at least R high
    for (std::uint64_t i : grown)
      if (d.data[i] >= R && !std::binary_search(plateau.begin(), plateau.end(), i)) rim.push_back(i);
    if (rim.empty()) return true;  // a true peak
    std::uint32_t parts = 0;
    cluster_voxels(rim, nx, ny, nz, Connectivity::c26, parts);
    if (parts >= 2) return false;  // a saddle
    std::vector<std::uint64_t> level;
    for (std::uint64_t i : grown)
      if (d.data[i] == R) level.push_back(i);
    if (level.size() == plateau.size()) return true;  // a ridge: kept, as PoreSpy does
    plateau = std::move(level);
  }
  return true;
}

}  // namespace

Markers select_markers_cpu(const std::vector<std::uint64_t>& peaks, VolumeView<const float> distance, Spacing spacing,
                           const MarkerParams& params) {
  const char* op = "select_markers_cpu";
  checks::require_view(distance, op, "distance");
  checks::require(distance.z_first == 0 && distance.z_count == distance.nz, op, "the distance view must hold the whole volume");
  checks::require(peaks.size() < std::size_t(0xffffffffu), op,
                  std::to_string(peaks.size()) + " peak voxels: at most 2^32 - 2 (marker labels are 32-bit)");
  const int nx = distance.nx, ny = distance.ny, nz = distance.nz;
  Markers out;
  std::uint32_t clusters = 0;
  auto id = cluster_voxels(peaks, nx, ny, nz, Connectivity::c6, clusters);
  out.peaks = clusters;

  // trim_saddle_points (6-connected clusters, as scipy.ndimage.label's default structure).
  const auto members = members_of(peaks, id, clusters);
  std::vector<std::uint8_t> keep(clusters, 1);
  parallel_for(long(clusters), [&](long c0, long c1) {
    for (long c = c0; c < c1; ++c)
      keep[std::size_t(c)] = survives_saddle_test(members[std::size_t(c)], distance, params.saddle_max_iterations);
  }, 8);
  std::vector<std::uint64_t> kept;
  for (std::size_t k = 0; k < peaks.size(); ++k)
    if (keep[id[k]]) kept.push_back(peaks[k]);
  out.saddles_removed = std::size_t(std::count(keep.begin(), keep.end(), 0));

  // trim_nearby_peaks (26-connected clusters): of two peaks nearer to each other than f times
  // their distance to the solid, the one nearer the solid goes.
  id = cluster_voxels(kept, nx, ny, nz, Connectivity::c26, clusters);
  std::vector<std::uint64_t> sums(std::size_t(clusters) * 4, 0);  // x, y, z, voxels
  for (std::size_t k = 0; k < kept.size(); ++k) {
    const Voxel p = voxel_of(kept[k], nx, ny);
    std::uint64_t* s = &sums[std::size_t(id[k]) * 4];
    s[0] += std::uint64_t(p.x), s[1] += std::uint64_t(p.y), s[2] += std::uint64_t(p.z), s[3] += 1;
  }
  std::vector<int> centres(std::size_t(clusters) * 3);
  std::vector<float> to_solid(clusters);
  for (std::uint32_t c = 0; c < clusters; ++c) {
    const std::uint64_t* s = &sums[std::size_t(c) * 4];
    int* centre = &centres[std::size_t(c) * 3];
    for (int a = 0; a < 3; ++a) centre[a] = int(double(s[a]) / double(s[3]));  // truncated, as astype(int)
    to_solid[c] = distance.at(centre[0], centre[1], centre[2]);
  }
  std::vector<std::uint8_t> dropped(clusters, 0);
  if (clusters >= 2) {
    const Grid grid = make_grid(nx, ny, nz, spacing, clusters);
    std::vector<std::uint32_t> cell_start(grid.cells() + 1, 0), cell_points(clusters);
    for (std::uint32_t c = 0; c < clusters; ++c) ++cell_start[grid.cell_of(&centres[std::size_t(c) * 3]) + 1];
    std::partial_sum(cell_start.begin(), cell_start.end(), cell_start.begin());
    std::vector<std::uint32_t> fill(cell_start.begin(), cell_start.end() - 1);
    for (std::uint32_t c = 0; c < clusters; ++c) cell_points[fill[grid.cell_of(&centres[std::size_t(c) * 3])]++] = c;
    std::vector<Nearest> nearest(clusters);
    parallel_for(long(clusters), [&](long c0, long c1) {
      for (long c = c0; c < c1; ++c)
        nearest[std::size_t(c)] =
            nearest_other(std::uint32_t(c), centres.data(), cell_start.data(), cell_points.data(), grid);
    }, 256);
    for (std::uint32_t c = 0; c < clusters; ++c) {
      const std::uint32_t neighbour = nearest[c].index;
      if (too_near(nearest[c].squared, params.nearby_factor, to_solid[c]))
        dropped[to_solid[c] < to_solid[neighbour] ? c : neighbour] = 1;
    }
  }
  std::vector<std::uint64_t> final_voxels;
  for (std::size_t k = 0; k < kept.size(); ++k)
    if (!dropped[id[k]]) final_voxels.push_back(kept[k]);
  out.nearby_removed = std::size_t(std::count(dropped.begin(), dropped.end(), 1));

  // Markers: 6-connected components of what is left (scipy.ndimage.label's default).
  auto marker_id = cluster_voxels(final_voxels, nx, ny, nz, Connectivity::c6, out.count);
  out.voxels = std::move(final_voxels);
  out.labels.resize(marker_id.size());
  for (std::size_t k = 0; k < marker_id.size(); ++k) out.labels[k] = marker_id[k] + 1;
  return out;
}

}  // namespace gp::pnm
