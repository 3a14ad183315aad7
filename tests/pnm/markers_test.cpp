// The host marker selection (cuda/pnm/markers.hpp), the reference of the GPU one: saddles, ridges,
// the nearest-peak rule with ties, the grid search against brute force, 64-bit voxel indices.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "cuda/pnm/edt.hpp"
#include "cuda/pnm/markers.hpp"
#include "cuda/pnm/markers_math.hpp"
#include "cuda/pnm/peaks.hpp"
#include "support/random_volumes.hpp"

using namespace gp::pnm;

namespace {

struct Spikes {
  int nx, ny, nz;
  std::vector<float> distance;
  std::vector<std::uint64_t> peaks;
  Spikes(int x, int y, int z) : nx(x), ny(y), nz(z), distance(std::size_t(x) * y * z, 0.f) {}
  std::uint64_t index(int x, int y, int z) const { return (std::uint64_t(z) * ny + y) * nx + x; }
  void set(int x, int y, int z, float v, bool peak) {
    distance[index(x, y, z)] = v;
    if (peak) peaks.push_back(index(x, y, z));
  }
  Markers select(Spacing spacing = {}, MarkerParams params = {}) {
    std::sort(peaks.begin(), peaks.end());
    return select_markers_cpu(peaks, whole_volume<const float>(distance.data(), nx, ny, nz), spacing, params);
  }
};

}  // namespace

TEST_CASE("markers: a peak whose rim falls apart is a saddle, a ridge stays", "[pnm][markers]") {
  SECTION("saddle") {
    Spikes s(21, 21, 21);
    s.set(10, 10, 10, 3, true);
    s.set(9, 10, 10, 3, false);  // two rim voxels as high, not touching each other
    s.set(11, 10, 10, 3, false);
    const Markers m = s.select();
    CHECK(m.peaks == 1);
    CHECK(m.saddles_removed == 1);
    CHECK(m.count == 0);
    CHECK(m.voxels.empty());
  }
  SECTION("ridge") {
    Spikes s(21, 21, 21);
    s.set(10, 10, 10, 3, true);
    s.set(9, 10, 10, 3, false);  // one rim part: the plateau grows to two voxels, then stops
    const Markers m = s.select();
    CHECK(m.saddles_removed == 0);
    CHECK(m.count == 1);
    CHECK(m.voxels == std::vector<std::uint64_t>{s.index(10, 10, 10)});
  }
  SECTION("a higher neighbour in one part does not make a saddle") {
    Spikes s(21, 21, 21);
    s.set(10, 10, 10, 3, true);
    s.set(11, 11, 10, 4, false);
    s.set(11, 10, 10, 2, false);
    const Markers m = s.select();
    CHECK(m.saddles_removed == 0);
    CHECK(m.count == 1);
  }
  SECTION("no iterations: every cluster stays") {
    Spikes s(21, 21, 21);
    s.set(10, 10, 10, 3, true);
    s.set(9, 10, 10, 3, false);
    s.set(11, 10, 10, 3, false);
    const Markers m = s.select({}, {0, 1.0f});
    CHECK(m.saddles_removed == 0);
    CHECK(m.count == 1);
  }
}

TEST_CASE("markers: equally near neighbours are told apart by cluster number", "[pnm][markers]") {
  // A (index 0) is 3 from both B (1) and C (2); B-C is 4.24. A's neighbour is B (the smaller
  // number): A drops B (2 < 5). C's neighbour is A: C drops A (5 < 6). B reaches nobody (3 > 2).
  // Had A taken C, only A would go.
  Spikes s(24, 24, 24);
  s.set(10, 10, 10, 5, true);
  s.set(13, 10, 10, 2, true);
  s.set(10, 13, 10, 6, true);
  const Markers m = s.select();
  CHECK(m.peaks == 3);
  CHECK(m.saddles_removed == 0);
  CHECK(m.nearby_removed == 2);
  REQUIRE(m.count == 1);
  CHECK(m.voxels == std::vector<std::uint64_t>{s.index(10, 13, 10)});
  CHECK(m.labels == std::vector<std::uint32_t>{1});
}

TEST_CASE("markers: labels number the 6-connected marker clusters by first voxel", "[pnm][markers]") {
  Spikes s(40, 30, 20);
  s.set(30, 5, 2, 4, true);  // a two-voxel plateau: one cluster, one label
  s.set(31, 5, 2, 4, true);
  s.set(2, 20, 2, 4, true);
  s.set(5, 5, 15, 4, true);
  const Markers m = s.select();
  CHECK(m.peaks == 3);
  REQUIRE(m.count == 3);
  CHECK(m.voxels == std::vector<std::uint64_t>{s.index(30, 5, 2), s.index(31, 5, 2), s.index(2, 20, 2),
                                              s.index(5, 5, 15)});
  CHECK(m.labels == std::vector<std::uint32_t>{1, 1, 2, 3});
}

TEST_CASE("markers: the grid's nearest centre equals brute force, ties to the smaller number", "[pnm][markers]") {
  using namespace markers_detail;
  std::mt19937 rng(5);
  for (const Spacing spacing : {Spacing{1, 1, 1}, Spacing{0.02f, 0.02f, 0.025f}, Spacing{1.0f, 1.3f, 0.8f}}) {
    for (const int points : {2, 3, 17, 400}) {
      const int nx = 61, ny = 47, nz = 33;
      // Centres on a coarse lattice, so many are equally far apart.
      std::uniform_int_distribution<int> ux(0, 12), uy(0, 9), uz(0, 6);
      std::vector<int> centres;
      for (int i = 0; i < points; ++i) centres.insert(centres.end(), {ux(rng) * 5, uy(rng) * 5, uz(rng) * 5});
      const Grid grid = make_grid(nx, ny, nz, spacing, std::size_t(points));
      std::vector<std::uint32_t> start(grid.cells() + 1, 0), order(static_cast<std::size_t>(points));
      for (int i = 0; i < points; ++i) ++start[grid.cell_of(&centres[3 * std::size_t(i)]) + 1];
      for (std::size_t c = 0; c < grid.cells(); ++c) start[c + 1] += start[c];
      std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
      for (int i = 0; i < points; ++i) order[fill[grid.cell_of(&centres[3 * std::size_t(i)])]++] = std::uint32_t(i);
      for (int i = 0; i < points; ++i) {
        Nearest want;
        want.squared = INFINITY;
        for (int j = 0; j < points; ++j) {
          if (j == i) continue;
          const double d = grid.squared_gap(&centres[3 * std::size_t(i)], &centres[3 * std::size_t(j)]);
          if (d < want.squared) want = {std::uint32_t(j), d};
        }
        const Nearest got = nearest_other(std::uint32_t(i), centres.data(), start.data(), order.data(), grid);
        INFO("points " << points << ", point " << i);
        CHECK(got.index == want.index);
        CHECK(got.squared == want.squared);
      }
    }
  }
}

TEST_CASE("markers: voxel coordinates of 64-bit indices", "[pnm][markers]") {
  using namespace markers_detail;
  const int nx = 2048, ny = 2048;
  for (const auto& c : {Voxel{0, 0, 0}, Voxel{2047, 2047, 1023}, Voxel{5, 7, 1024}, Voxel{2047, 2047, 4095}}) {
    const std::uint64_t i = index_of(c.x, c.y, c.z, nx, ny);
    const Voxel back = voxel_of(i, nx, ny);
    CHECK(back.x == c.x);
    CHECK(back.y == c.y);
    CHECK(back.z == c.z);
  }
  CHECK(index_of(0, 0, 1024, nx, ny) == (std::uint64_t(1) << 32));
}

TEST_CASE("markers: quantised distance maps give saddles and nearby peaks to trim", "[pnm][markers]") {
  // The volumes of the GPU comparison (markers_gpu_test.cpp): make sure they reach every branch.
  const int nx = 64, ny = 56, nz = 48;
  const auto mask = gp::test::blobby_mask({nx, ny, nz}, 0.45, 31);
  std::vector<float> distance(mask.size());
  const auto m = whole_volume<const std::uint8_t>(mask.data(), nx, ny, nz);
  distance_transform_cpu(m, whole_volume(distance.data(), nx, ny, nz), {1, 1, 1});
  for (float& v : distance) v = std::floor(v);
  const auto d = whole_volume<const float>(distance.data(), nx, ny, nz);
  const auto peaks = find_peaks_cpu(m, d, {1, 1, 1}, 4);
  const Markers markers = select_markers_cpu(peaks, d, {1, 1, 1}, {});
  INFO("peak voxels " << peaks.size() << ", clusters " << markers.peaks << ", saddles " << markers.saddles_removed
                      << ", nearby " << markers.nearby_removed << ", markers " << markers.count);
  CHECK(markers.saddles_removed > 0);
  CHECK(markers.nearby_removed > 0);
  CHECK(markers.count > 0);
  CHECK(peaks.size() > markers.peaks);  // plateaus: clusters of several voxels
}

