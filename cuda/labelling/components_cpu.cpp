// CPU references of the components kernels (also the CPU path). Union-find with the same rule as
// the GPU (the larger root hangs under the smaller, so roots are minima): Z-chunks of the view are
// joined in parallel, the planes between chunks sequentially, then one raster pass flattens the
// trees (a voxel's parent precedes it, so it is final by then) and, for labels, numbers the roots.
#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "core/parallel_for.hpp"
#include "cuda/common/volume_checks.hpp"
#include "cuda/labelling/components.hpp"
#include "cuda/labelling/components_math.hpp"

namespace gp::labelling {
namespace {

namespace checks = gp::volume_checks;

std::uint32_t find_root(std::uint32_t* parent, std::uint32_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];  // path halving: still an ancestor, still smaller
    i = parent[i];
  }
  return i;
}

void unite(std::uint32_t* parent, std::uint32_t a, std::uint32_t b) {
  a = find_root(parent, a);
  b = find_root(parent, b);
  if (a < b)
    parent[b] = a;
  else if (b < a)
    parent[a] = b;
}

// Joins each foreground voxel of slices [z_begin, z_end) with its backward neighbours in slices
// [z_join_from, z_end). All views here are view-local (z from 0).
template <bool C26>
void join_slices(const std::uint8_t* mask, std::uint8_t value, int nx, int ny, int z_begin, int z_end, int z_join_from,
                 bool init, std::uint32_t* parent) {
  using N = math::BackwardNeighbours<C26>;
  for (int z = z_begin; z < z_end; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const std::uint32_t i = std::uint32_t((std::size_t(z) * ny + y) * nx + x);
        if (mask[i] != value) {
          if (init) parent[i] = no_root;
          continue;
        }
        if (init) parent[i] = i;
        for (int k = 0; k < N::count; ++k) {
          int dx, dy, dz;
          N::offset(k, dx, dy, dz);
          const int xn = x + dx, yn = y + dy, zn = z + dz;
          if (xn < 0 || xn >= nx || yn < 0 || yn >= ny || zn < z_join_from) continue;
          const std::uint32_t j = std::uint32_t((std::size_t(zn) * ny + yn) * nx + xn);
          if (mask[j] == value) unite(parent, i, j);
        }
      }
}

template <bool C26>
void roots_cpu(const std::uint8_t* mask, std::uint8_t value, int nx, int ny, int nz, std::uint32_t* parent) {
  std::vector<int> chunk_starts;
  std::mutex starts;
  parallel_for(nz, [&](long begin, long end) {
    join_slices<C26>(mask, value, nx, ny, int(begin), int(end), int(begin), true, parent);
    std::lock_guard<std::mutex> lock(starts);
    chunk_starts.push_back(int(begin));
  }, 1);
  for (int z : chunk_starts)  // the first slice of each chunk with the slice before it
    if (z > 0) join_slices<C26>(mask, value, nx, ny, z, z + 1, z - 1, false, parent);
  const std::size_t n = std::size_t(nx) * ny * nz;
  for (std::size_t i = 0; i < n; ++i)
    if (parent[i] != no_root) parent[i] = parent[parent[i]];
}

void check_roots_args(const char* op, VolumeView<const std::uint8_t> mask, VolumeView<std::uint32_t> out) {
  checks::require_view(mask, op, "mask");
  checks::require_view(out, op, "output");
  checks::require_same_slices(mask, out, op);
  checks::require(mask.held_voxels() < std::size_t(no_root), op,
                  "views of 2^32 - 1 voxels or more are not supported: " + checks::describe(mask));
}

void roots(VolumeView<const std::uint8_t> mask, std::uint8_t value, Connectivity connectivity, std::uint32_t* out) {
  if (connectivity == Connectivity::c26)
    roots_cpu<true>(mask.data, value, mask.nx, mask.ny, mask.z_count, out);
  else
    roots_cpu<false>(mask.data, value, mask.nx, mask.ny, mask.z_count, out);
}

}  // namespace

void component_roots_cpu(VolumeView<const std::uint8_t> mask, std::uint8_t value, Connectivity connectivity,
                         VolumeView<std::uint32_t> out) {
  check_roots_args("component_roots_cpu", mask, out);
  roots(mask, value, connectivity, out.data);
}

std::uint32_t label_components_cpu(VolumeView<const std::uint8_t> mask, std::uint8_t value, Connectivity connectivity,
                                   VolumeView<std::uint32_t> labels) {
  check_roots_args("label_components_cpu", mask, labels);
  std::uint32_t* l = labels.data;
  roots(mask, value, connectivity, l);
  // Roots come first in raster order, so numbering them as met gives the canonical labels; a
  // non-root's root precedes it and is relabelled already.
  std::uint32_t k = 0;
  const std::size_t n = labels.held_voxels();
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t r = l[i];
    l[i] = r == no_root ? 0 : r == i ? ++k : l[r];
  }
  return k;
}

}  // namespace gp::labelling
