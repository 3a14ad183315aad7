// Region and throat statistics, CPU reference: hand-built label volumes with hand-counted values,
// a brute-force recount on random partitions, slab split + merge, thread-count independence, errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "cuda/pnm/region_stats.hpp"
#include "pnm/label_volumes.hpp"

using gp::Connectivity;
using gp::pnm::InterfaceStat;
using gp::pnm::RegionStat;
using gp::pnm::RegionStats;
using gp::test::LabelVolume;

namespace {

RegionStats whole(const LabelVolume& v, Connectivity c) {
  return gp::pnm::region_stats_cpu(v.label_view(), v.distance_view(), v.regions, 0, v.nz, c);
}

// Straightforward recount with sets, voxel by voxel in index order.
RegionStats brute_force(const LabelVolume& v, Connectivity c) {
  RegionStats out;
  out.regions.assign(v.regions, RegionStat{});
  std::map<std::pair<std::uint32_t, std::uint32_t>, gp::pnm::ThroatStat> throats;
  auto inside = [&](int x, int y, int z) { return x >= 0 && y >= 0 && z >= 0 && x < v.nx && y < v.ny && z < v.nz; };
  auto label = [&](int x, int y, int z) { return inside(x, y, z) ? v.labels[v.index(x, y, z)] : 0xFFFFFFFFu; };
  auto solid = [&](int x, int y, int z) {
    return inside(x, y, z) && v.labels[v.index(x, y, z)] == 0 && v.distance[v.index(x, y, z)] == 0.0f;
  };
  for (int z = 0; z < v.nz; ++z)
    for (int y = 0; y < v.ny; ++y)
      for (int x = 0; x < v.nx; ++x) {
        const std::uint32_t L = label(x, y, z);
        if (L == 0) continue;
        const std::uint64_t index = v.index(x, y, z);
        const float d = v.distance[index];
        RegionStat& r = out.regions[L - 1];
        ++r.voxels;
        r.sum_x += x, r.sum_y += y, r.sum_z += z;
        r.solid_faces[0] += solid(x - 1, y, z) + solid(x + 1, y, z);
        r.solid_faces[1] += solid(x, y - 1, z) + solid(x, y + 1, z);
        r.solid_faces[2] += solid(x, y, z - 1) + solid(x, y, z + 1);
        r.border_voxels[0] += x == 0, r.border_voxels[1] += x == v.nx - 1;
        r.border_voxels[2] += y == 0, r.border_voxels[3] += y == v.ny - 1;
        r.border_voxels[4] += z == 0, r.border_voxels[5] += z == v.nz - 1;
        if (d > r.max_distance || r.max_index == gp::pnm::kNoVoxel) r.max_distance = d, r.max_index = index;
        std::set<std::uint32_t> touching;
        bool rim = false;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int manhattan = std::abs(dx) + std::abs(dy) + std::abs(dz);
              if (manhattan == 0) continue;
              rim = rim || solid(x + dx, y + dy, z + dz);
              if (c == Connectivity::c6 && manhattan != 1) continue;
              const std::uint32_t m = label(x + dx, y + dy, z + dz);
              if (m != 0 && m != L && m != 0xFFFFFFFFu) touching.insert(m);
            }
        for (std::uint32_t m : touching) {
          gp::pnm::ThroatStat& t = throats[{std::min(L, m), std::max(L, m)}];
          t.a = std::min(L, m), t.b = std::max(L, m);
          InterfaceStat& s = L == t.b ? t.on_b : t.on_a;
          ++s.voxels;
          s.sum_x += x, s.sum_y += y, s.sum_z += z;
          s.faces[0] += (label(x - 1, y, z) == m) + (label(x + 1, y, z) == m);
          s.faces[1] += (label(x, y - 1, z) == m) + (label(x, y + 1, z) == m);
          s.faces[2] += (label(x, y, z - 1) == m) + (label(x, y, z + 1) == m);
          s.rim_voxels += rim;
          if (d > s.max_distance || s.max_index == gp::pnm::kNoVoxel) s.max_distance = d, s.max_index = index;
        }
      }
  for (const auto& [key, t] : throats) out.throats.push_back(t);
  return out;
}

// Two 4x4x4 boxes side by side along x inside a one-voxel solid margin: region 1 at x 1..4,
// region 2 at x 5..8.
LabelVolume two_boxes() {
  LabelVolume v(10, 6, 6);
  v.box(1, 4, 1, 4, 1, 4, 1, 1.0f);
  v.box(5, 8, 1, 4, 1, 4, 2, 1.0f);
  return v;
}

}  // namespace

TEST_CASE("region stats: two boxes touching on a face make one throat", "[pnm][region_stats]") {
  LabelVolume v = two_boxes();
  v.distance[v.index(2, 2, 3)] = 2.0f;  // region 1's peak
  v.distance[v.index(5, 3, 2)] = 1.5f;  // region 2's peak, on the interface
  for (Connectivity c : {Connectivity::c6, Connectivity::c26}) {
    const RegionStats s = whole(v, c);
    REQUIRE(s.regions.size() == 2);
    const RegionStat& r1 = s.regions[0];
    CHECK(r1.voxels == 64);
    CHECK(r1.sum_x == 16 * (1 + 2 + 3 + 4));
    CHECK(r1.sum_y == 16 * (1 + 2 + 3 + 4));
    CHECK(r1.sum_z == 16 * (1 + 2 + 3 + 4));
    // Walls: the x = 1 face (x = 4 touches region 2), both y faces and both z faces.
    CHECK(r1.solid_faces[0] == 16);
    CHECK(r1.solid_faces[1] == 32);
    CHECK(r1.solid_faces[2] == 32);
    for (int f = 0; f < 6; ++f) CHECK(r1.border_voxels[f] == 0);
    CHECK(r1.max_distance == 2.0f);
    CHECK(r1.max_index == v.index(2, 2, 3));
    CHECK(s.regions[1].max_index == v.index(5, 3, 2));

    REQUIRE(s.throats.size() == 1);
    const gp::pnm::ThroatStat& t = s.throats[0];
    CHECK(t.a == 1);
    CHECK(t.b == 2);
    // PoreSpy's throat voxels: region 2's x = 5 layer, 16 voxels, one face each towards region 1.
    CHECK(t.on_b.voxels == 16);
    CHECK(t.on_b.sum_x == 16 * 5);
    CHECK(t.on_b.sum_y == 40);
    CHECK(t.on_b.faces[0] == 16);
    CHECK(t.on_b.faces[1] == 0);
    CHECK(t.on_b.faces[2] == 0);
    CHECK(t.on_b.rim_voxels == 12);  // all but the 2x2 centre touch the solid margin
    CHECK(t.on_b.max_distance == 1.5f);
    CHECK(t.on_b.max_index == v.index(5, 3, 2));
    CHECK(t.on_a.voxels == 16);
    CHECK(t.on_a.sum_x == 16 * 4);
    CHECK(t.on_a.max_distance == 1.0f);
    CHECK(t.on_a.max_index == v.index(4, 1, 1));  // all tie at 1: the lowest index
  }
}

TEST_CASE("region stats: regions on the volume border and corner contacts", "[pnm][region_stats]") {
  SECTION("a region filling the volume has border voxels and no walls") {
    LabelVolume v(5, 4, 3);
    v.box(0, 4, 0, 3, 0, 2, 1, 0.5f);
    const RegionStats s = whole(v, Connectivity::c6);
    const RegionStat& r = s.regions[0];
    CHECK(r.voxels == 60);
    CHECK(r.solid_faces[0] + r.solid_faces[1] + r.solid_faces[2] == 0);  // the volume's edge is no wall
    CHECK(r.border_voxels[0] == 12);
    CHECK(r.border_voxels[1] == 12);
    CHECK(r.border_voxels[2] == 15);
    CHECK(r.border_voxels[3] == 15);
    CHECK(r.border_voxels[4] == 20);
    CHECK(r.border_voxels[5] == 20);
    CHECK(r.max_index == 0);  // all tie: the first voxel
    CHECK(s.throats.empty());
  }
  SECTION("regions meeting at one corner: a throat under c26 only") {
    LabelVolume v(4, 4, 4);
    v.box(0, 1, 0, 1, 0, 1, 1, 1.0f);
    v.box(2, 3, 2, 3, 2, 3, 2, 1.0f);
    CHECK(whole(v, Connectivity::c6).throats.empty());
    const RegionStats s = whole(v, Connectivity::c26);
    REQUIRE(s.throats.size() == 1);
    CHECK(s.throats[0].on_b.voxels == 1);
    CHECK(s.throats[0].on_b.max_index == v.index(2, 2, 2));
    CHECK(s.throats[0].on_b.faces[0] + s.throats[0].on_b.faces[1] + s.throats[0].on_b.faces[2] == 0);
    CHECK(s.throats[0].on_a.max_index == v.index(1, 1, 1));
  }
  SECTION("unassigned pore voxels are neither walls nor regions") {
    LabelVolume v(3, 1, 1);
    v.box(0, 0, 0, 0, 0, 0, 1, 1.0f);
    v.distance[v.index(1, 0, 0)] = 1.0f;  // label 0 with a distance: unassigned
    v.box(2, 2, 0, 0, 0, 0, 2, 1.0f);
    const RegionStats s = whole(v, Connectivity::c26);
    CHECK(s.regions[0].solid_faces[0] == 0);
    CHECK(s.throats.empty());
  }
}

TEST_CASE("region stats: empty regions and distances that need canonical zeros", "[pnm][region_stats]") {
  LabelVolume v(3, 3, 1);
  v.box(0, 2, 0, 2, 0, 0, 1, -1.0f);  // negative distances count as 0
  v.regions = 3;                      // regions 2 and 3 have no voxel
  const RegionStats s = whole(v, Connectivity::c6);
  CHECK(s.regions[0].max_distance == 0.0f);
  CHECK(s.regions[0].max_index == 0);
  CHECK(s.regions[1] == RegionStat{});
  CHECK(s.regions[2].max_index == gp::pnm::kNoVoxel);
}

TEST_CASE("region stats: random partitions match a brute-force recount", "[pnm][region_stats]") {
  for (unsigned seed : {1u, 2u, 3u}) {
    const LabelVolume v = gp::test::random_partition(17, 13, 11, 25, 0.3, seed);
    for (Connectivity c : {Connectivity::c6, Connectivity::c26}) {
      INFO("seed " << seed << ", connectivity " << int(c));
      const RegionStats s = whole(v, c);
      REQUIRE(!s.throats.empty());
      gp::test::require_equal(s, brute_force(v, c));
    }
  }
}

TEST_CASE("region stats: slabs merged equal the whole volume", "[pnm][region_stats]") {
  const LabelVolume v = gp::test::random_partition(19, 14, 23, 40, 0.25, 7);
  for (Connectivity c : {Connectivity::c6, Connectivity::c26}) {
    const RegionStats all = whole(v, c);
    for (const std::vector<int>& cuts : {std::vector<int>{0, 23}, {0, 1, 23}, {0, 7, 8, 15, 23}, {0, 5, 11, 17, 22, 23}}) {
      RegionStats merged;
      merged.regions.assign(v.regions, RegionStat{});
      std::vector<RegionStats> parts;
      for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
        const int b = cuts[k], e = cuts[k + 1];
        const RegionStats part = gp::pnm::region_stats_cpu(gp::test::slab_view(v.label_view(), b, e),
                                                           gp::test::slab_view(v.distance_view(), b, e), v.regions, b, e, c);
        gp::pnm::merge_region_stats(merged, part);
        parts.push_back(part);
      }
      gp::test::require_equal(merged, all);
      // All at once, in any order: the same.
      std::reverse(parts.begin(), parts.end());
      gp::test::require_equal(gp::pnm::merge_region_stats(std::move(parts)), all);
    }
  }
}

TEST_CASE("region stats: one thread or many give the same result", "[pnm][region_stats]") {
  const LabelVolume v = gp::test::random_partition(31, 29, 7, 60, 0.2, 11);
  const RegionStats many = whole(v, Connectivity::c26);
  const unsigned saved = gp::cpu_threads_setting();
  gp::cpu_threads_setting() = 1;
  const RegionStats one = whole(v, Connectivity::c26);
  gp::cpu_threads_setting() = saved;
  gp::test::require_equal(one, many);
}

TEST_CASE("region stats: bad arguments", "[pnm][region_stats]") {
  LabelVolume v = two_boxes();
  SECTION("labels above the region count") {
    CHECK_THROWS_AS(gp::pnm::region_stats_cpu(v.label_view(), v.distance_view(), 1, 0, v.nz, Connectivity::c6), gp::Error);
  }
  SECTION("a view without the halo slice") {
    auto labels = v.label_view();
    labels.data += labels.slice_voxels() * 2;
    labels.z_first = 2;
    labels.z_count = 2;  // holds z 2..3; the range [2, 4) also needs z 1 and 4
    auto dist = gp::test::slab_view(v.distance_view(), 2, 4);
    CHECK_THROWS_AS(gp::pnm::region_stats_cpu(labels, dist, v.regions, 2, 4, Connectivity::c6), gp::Error);
  }
  SECTION("a z range outside the volume") {
    CHECK_THROWS_AS(gp::pnm::region_stats_cpu(v.label_view(), v.distance_view(), v.regions, 0, v.nz + 1, Connectivity::c6),
                    gp::Error);
  }
  SECTION("merging different region counts") {
    RegionStats a = whole(v, Connectivity::c6), b;
    b.regions.resize(5);
    CHECK_THROWS_AS(gp::pnm::merge_region_stats(a, b), gp::Error);
    std::vector<RegionStats> both{a, b};
    CHECK_THROWS_AS(gp::pnm::merge_region_stats(std::move(both)), gp::Error);
  }
}
