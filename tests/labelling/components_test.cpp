// CPU reference of the shared component labelling: hand-made cases with known answers, a flood-fill
// labelling as independent reference, and slab roots merged on the host into the whole volume's
// labels (what an out-of-core caller does).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <deque>
#include <numeric>
#include <vector>

#include "cuda/labelling/components.hpp"
#include "support/random_volumes.hpp"

using namespace gp;
using namespace gp::labelling;
using gp::test::Dims;

namespace {

std::size_t index(const Dims& d, int x, int y, int z) { return (std::size_t(z) * d.ny + y) * d.nx + x; }

bool adjacent(int dx, int dy, int dz, Connectivity c) {
  const int manhattan = std::abs(dx) + std::abs(dy) + std::abs(dz);
  return manhattan > 0 && (c == Connectivity::c26 || manhattan == 1);
}

// Breadth-first flood fill from each unlabelled foreground voxel met in raster order.
std::vector<std::uint32_t> flood_labels(const std::vector<std::uint8_t>& m, const Dims& d, std::uint8_t value,
                                        Connectivity c, std::uint32_t& k) {
  std::vector<std::uint32_t> labels(m.size(), 0);
  k = 0;
  for (int z = 0; z < d.nz; ++z)
    for (int y = 0; y < d.ny; ++y)
      for (int x = 0; x < d.nx; ++x) {
        if (m[index(d, x, y, z)] != value || labels[index(d, x, y, z)]) continue;
        labels[index(d, x, y, z)] = ++k;
        std::deque<std::array<int, 3>> queue{{x, y, z}};
        while (!queue.empty()) {
          const auto p = queue.front();
          queue.pop_front();
          for (int dz = -1; dz <= 1; ++dz)
            for (int dy = -1; dy <= 1; ++dy)
              for (int dx = -1; dx <= 1; ++dx) {
                const int xx = p[0] + dx, yy = p[1] + dy, zz = p[2] + dz;
                if (!adjacent(dx, dy, dz, c) || xx < 0 || yy < 0 || zz < 0 || xx >= d.nx || yy >= d.ny || zz >= d.nz)
                  continue;
                const std::size_t j = index(d, xx, yy, zz);
                if (m[j] != value || labels[j]) continue;
                labels[j] = k;
                queue.push_back({xx, yy, zz});
              }
        }
      }
  return labels;
}

std::uint32_t label(std::vector<std::uint8_t>& m, const Dims& d, Connectivity c, std::vector<std::uint32_t>& out,
                    std::uint8_t value = 1) {
  out.assign(m.size(), 12345);
  return label_components_cpu(whole_volume<const std::uint8_t>(m.data(), d.nx, d.ny, d.nz), value, c,
                              whole_volume(out.data(), d.nx, d.ny, d.nz));
}

// Out-of-core labelling: roots of each slab, joined across slab boundaries with a host union-find
// over volume indices, then numbered in raster order.
std::vector<std::uint32_t> labels_from_slabs(const std::vector<std::uint8_t>& m, const Dims& d, Connectivity c,
                                             const std::vector<int>& slab_starts) {
  std::vector<std::uint32_t> parent(m.size());
  for (std::size_t s = 0; s < slab_starts.size(); ++s) {
    const int first = slab_starts[s];
    const int count = (s + 1 < slab_starts.size() ? slab_starts[s + 1] : d.nz) - first;
    std::vector<std::uint32_t> roots(d.slice() * count);
    component_roots_cpu(gp::test::slab_of(m, d, first, count), 1, c,
                        VolumeView<std::uint32_t>{roots.data(), d.nx, d.ny, d.nz, first, count});
    const std::size_t offset = d.slice() * first;
    for (std::size_t i = 0; i < roots.size(); ++i)
      parent[offset + i] = roots[i] == no_root ? no_root : std::uint32_t(roots[i] + offset);
  }
  auto find = [&](std::uint32_t i) {
    while (parent[i] != i) i = parent[i];
    return i;
  };
  for (std::size_t s = 1; s < slab_starts.size(); ++s) {
    const int z = slab_starts[s];
    for (int y = 0; y < d.ny; ++y)
      for (int x = 0; x < d.nx; ++x) {
        if (!m[index(d, x, y, z)]) continue;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int xx = x + dx, yy = y + dy;
            if (!adjacent(dx, dy, -1, c) || xx < 0 || yy < 0 || xx >= d.nx || yy >= d.ny) continue;
            if (!m[index(d, xx, yy, z - 1)]) continue;
            const std::uint32_t a = find(std::uint32_t(index(d, x, y, z))), b = find(std::uint32_t(index(d, xx, yy, z - 1)));
            if (a != b) parent[std::max(a, b)] = std::min(a, b);
          }
      }
  }
  std::vector<std::uint32_t> labels(m.size(), 0), label_of_root(m.size(), 0);
  std::uint32_t k = 0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (parent[i] == no_root) continue;
    const std::uint32_t r = find(std::uint32_t(i));
    if (!label_of_root[r]) label_of_root[r] = ++k;
    labels[i] = label_of_root[r];
  }
  return labels;
}

}  // namespace

TEST_CASE("components: diagonal contacts split under 6- and join under 26-connectivity", "[labelling][components]") {
  const Dims d{3, 3, 3};
  std::vector<std::uint8_t> m(d.voxels(), 0);
  m[index(d, 0, 0, 0)] = 1;
  m[index(d, 1, 1, 1)] = 1;  // corner contact with (0,0,0)
  m[index(d, 2, 2, 1)] = 1;  // edge contact with (1,1,1)
  std::vector<std::uint32_t> l;
  CHECK(label(m, d, Connectivity::c6, l) == 3);
  CHECK(l[index(d, 0, 0, 0)] == 1);
  CHECK(l[index(d, 1, 1, 1)] == 2);
  CHECK(l[index(d, 2, 2, 1)] == 3);
  CHECK(label(m, d, Connectivity::c26, l) == 1);
  CHECK(l[index(d, 2, 2, 1)] == 1);
  CHECK(l[index(d, 1, 0, 0)] == 0);

  // The background (value 0) is one component either way, its first voxel (1,0,0).
  std::vector<std::uint32_t> roots(d.voxels());
  component_roots_cpu(whole_volume<const std::uint8_t>(m.data(), 3, 3, 3), 0, Connectivity::c6,
                      whole_volume(roots.data(), 3, 3, 3));
  CHECK(roots[index(d, 0, 0, 0)] == no_root);
  CHECK(roots[index(d, 2, 2, 2)] == 1);
  CHECK(label(m, d, Connectivity::c6, l, 0) == 1);
}

TEST_CASE("components are numbered by their first voxel in raster order; roots are minima", "[labelling][components]") {
  // Slice z = 0 (y down, x across):   A is a U opening upwards whose left arm starts the volume;
  //   A . A . B                       B starts at (4,0), before A's bottom row but after A's start;
  //   A . A . B                       C is a single voxel at (3,2) after A's bottom started.
  //   A A A C .
  const Dims d{5, 3, 1};
  const char* rows[3] = {"A.A.B", "A.A.B", "AAAC."};
  std::vector<std::uint8_t> m(d.voxels(), 0);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x) m[index(d, x, y, 0)] = rows[y][x] != '.';
  std::vector<std::uint32_t> l;
  // 6-connected: C touches A's bottom row: A, B. 26-connected: C also touches B diagonally: one.
  CHECK(label(m, d, Connectivity::c6, l) == 2);
  CHECK(l[index(d, 2, 0, 0)] == 1);  // A's right arm, met before B's first voxel, is still A
  CHECK(l[index(d, 4, 0, 0)] == 2);
  CHECK(l[index(d, 3, 2, 0)] == 1);
  CHECK(label(m, d, Connectivity::c26, l) == 1);

  std::vector<std::uint32_t> roots(d.voxels());
  component_roots_cpu(whole_volume<const std::uint8_t>(m.data(), 5, 3, 1), 1, Connectivity::c6,
                      whole_volume(roots.data(), 5, 3, 1));
  CHECK(roots[index(d, 2, 0, 0)] == 0);
  CHECK(roots[index(d, 3, 2, 0)] == 0);
  CHECK(roots[index(d, 4, 1, 0)] == 4);
  CHECK(roots[index(d, 1, 0, 0)] == no_root);
}

TEST_CASE("components match a flood fill on random masks", "[labelling][components]") {
  const Dims d{23, 17, 19};
  for (double density : {0.2, 0.5, 0.75}) {
    auto m = gp::test::random_mask(d, density, 100 + unsigned(density * 100));
    for (Connectivity c : {Connectivity::c6, Connectivity::c26}) {
      std::uint32_t k_expected = 0;
      const auto expected = flood_labels(m, d, 1, c, k_expected);
      std::vector<std::uint32_t> l;
      INFO("density " << density << ", connectivity " << int(c));
      CHECK(label(m, d, c, l) == k_expected);
      CHECK(l == expected);
    }
  }
}

TEST_CASE("slab roots merged across slab boundaries give the whole volume's labels", "[labelling][components]") {
  const Dims d{19, 13, 17};
  auto m = gp::test::blobby_mask(d, 0.5, 8);
  for (Connectivity c : {Connectivity::c6, Connectivity::c26}) {
    std::vector<std::uint32_t> whole;
    label(m, d, c, whole);
    CHECK(labels_from_slabs(m, d, c, {0, 5, 6, 12}) == whole);
    CHECK(labels_from_slabs(m, d, c, {0}) == whole);
  }
}
