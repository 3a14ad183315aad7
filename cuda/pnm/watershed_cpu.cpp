// CPU reference of the watershed: Dijkstra on the keys of watershed.hpp, then labels in the order
// the keys became final (every voxel's best neighbours have strictly smaller keys).
#include <algorithm>
#include <functional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "core/parallel_for.hpp"
#include "cuda/pnm/slab_checks.hpp"
#include "cuda/pnm/watershed.hpp"
#include "cuda/pnm/watershed_key.hpp"

namespace gp::pnm {

void watershed_cpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                   VolumeView<const std::uint32_t> markers, VolumeView<std::uint32_t> labels) {
  using namespace watershed_detail;
  const std::size_t voxels = mask.held_voxels();
  const long nx = mask.nx, ny = mask.ny, nz = mask.nz;
  const std::size_t row = std::size_t(nx), plane = std::size_t(nx) * std::size_t(ny);
  std::vector<std::uint64_t> key(voxels, unreached);
  std::vector<std::uint32_t> settled;  // voxels in the order their keys became final
  settled.reserve(voxels / 2);
  using Entry = std::pair<std::uint64_t, std::uint32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  for (std::size_t i = 0; i < voxels; ++i) {
    labels.data[i] = 0;
    if (mask.data[i] && markers.data[i]) {
      key[i] = marker_key(level_of(distance.data[i]));
      queue.emplace(key[i], std::uint32_t(i));
    }
  }
  // Calls visit(j) for the 6 neighbours j of voxel i inside the volume.
  auto for_neighbours = [&](std::size_t i, auto&& visit) {
    const long x = long(i % row), y = long((i / row) % std::size_t(ny)), z = long(i / plane);
    if (x > 0) visit(i - 1);
    if (x + 1 < nx) visit(i + 1);
    if (y > 0) visit(i - row);
    if (y + 1 < ny) visit(i + row);
    if (z > 0) visit(i - plane);
    if (z + 1 < nz) visit(i + plane);
  };
  while (!queue.empty()) {
    const auto [k, i] = queue.top();
    queue.pop();
    if (k != key[i]) continue;  // a stale entry
    settled.push_back(i);
    for_neighbours(i, [&](std::size_t j) {
      if (!mask.data[j] || markers.data[j]) return;
      const std::uint64_t candidate = step(k, level_of(distance.data[j]));
      if (candidate < key[j]) {
        key[j] = candidate;
        queue.emplace(candidate, std::uint32_t(j));
      }
    });
  }
  for (const std::uint32_t i : settled) {
    if (markers.data[i]) {
      labels.data[i] = markers.data[i];
      continue;
    }
    const std::uint32_t level = level_of(distance.data[i]);
    std::uint64_t best_key = unreached, best_from = unreached;
    std::uint32_t best = 0;
    for_neighbours(i, [&](std::size_t j) {
      if (key[j] == unreached) return;
      const std::uint64_t k = step(key[j], level);
      if (k == key[i] && is_better(k, key[j], labels.data[j], best_key, best_from, best)) {
        best_key = k;
        best_from = key[j];
        best = labels.data[j];
      }
    });
    labels.data[i] = best;
  }
}

void watershed_init_cpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                        VolumeView<const std::uint32_t> markers, VolumeView<std::uint64_t> key,
                        VolumeView<std::uint32_t> labels) {
  checks::require_same_slices(mask, distance, "watershed_init_cpu");
  checks::require_same_slices(mask, markers, "watershed_init_cpu");
  checks::require_same_slices(mask, key, "watershed_init_cpu");
  checks::require_same_slices(mask, labels, "watershed_init_cpu");
  parallel_for(long(mask.held_voxels()), [&](long first, long last) {
    for (long i = first; i < last; ++i)
      watershed_detail::initial_state(mask.data[i], distance.data[i], markers.data[i], key.data[i], labels.data[i]);
  }, 1 << 16);
}

namespace detail {

void check_relax_args(const VolumeView<const std::uint8_t>& mask, const VolumeView<const float>& distance,
                      const VolumeView<const std::uint32_t>& markers, const VolumeView<std::uint64_t>& key,
                      const VolumeView<std::uint32_t>& labels, int z_begin, int z_end, const char* op) {
  checks::require_view(mask, op, "mask");
  checks::require_same_slices(mask, distance, op);
  checks::require_same_slices(mask, markers, op);
  checks::require_same_slices(mask, key, op);
  checks::require_same_slices(mask, labels, op);
  checks::require(z_begin >= 0 && z_begin <= z_end && z_end <= mask.nz, op,
                  "slices [" + std::to_string(z_begin) + ", " + std::to_string(z_end) + ") outside the volume");
  const VolumeView<const std::uint8_t> wanted{nullptr, mask.nx, mask.ny, mask.nz, z_begin, z_end - z_begin};
  checks::require_halo(mask, wanted, 1, op);
}

}  // namespace detail

void place_markers_cpu(const std::vector<std::uint64_t>& voxels, const std::vector<std::uint32_t>& labels,
                       VolumeView<std::uint32_t> markers) {
  std::fill(markers.data, markers.data + markers.held_voxels(), 0u);
  for (std::size_t k = 0; k < voxels.size(); ++k) markers.data[voxels[k]] = labels[k];
}

}  // namespace gp::pnm
