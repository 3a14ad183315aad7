// Region and throat statistics: GPU against the CPU reference (itself checked against hand counts
// and a brute-force recount in region_stats_test.cpp), exactly, on pseudo-random partitions of
// sizes that are not multiples of the 32 x 8 blocks, few and many regions, both connectivities,
// and on the GPU in slabs merged on the host.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "cuda/pnm/region_stats.hpp"
#include "pnm/label_volumes.hpp"
#include "pnm/pnm_gpu_fixture.hpp"

using gp::Connectivity;
using gp::pnm::RegionStats;
using gp::test::LabelVolume;

namespace {

struct Case {
  int nx, ny, nz, seeds;
  double solid;
};

}  // namespace

TEST_CASE("region stats GPU: equals the CPU reference", "[pnm][region_stats][gpu]") {
  gp::test::PnmGpu gpu;
  const Case cases[] = {{1, 1, 1, 1, 0.0},     {5, 3, 2, 3, 0.3},      {33, 9, 5, 12, 0.3},
                        {70, 41, 23, 2, 0.2},  {70, 41, 23, 400, 0.3}, {129, 67, 40, 3000, 0.35},
                        {200, 150, 31, 50, 0.1}};
  unsigned seed = 100;
  for (const Case& c : cases) {
    const LabelVolume v = gp::test::random_partition(c.nx, c.ny, c.nz, c.seeds, c.solid, seed++);
    const auto labels = gpu.upload(v.labels, v.nx, v.ny, v.nz);
    const auto distance = gpu.upload(v.distance, v.nx, v.ny, v.nz);
    for (Connectivity conn : {Connectivity::c6, Connectivity::c26}) {
      INFO(c.nx << "x" << c.ny << "x" << c.nz << ", " << c.seeds << " regions, connectivity " << int(conn));
      const RegionStats cpu = gp::pnm::region_stats_cpu(v.label_view(), v.distance_view(), v.regions, 0, v.nz, conn);
      const RegionStats gpu_stats =
          gp::pnm::region_stats_gpu(labels, distance, v.regions, 0, v.nz, conn, gpu.scratch(), gpu.stream());
      gpu.release_scratch();
      gp::test::require_equal(gpu_stats, cpu);
      if (c.seeds > 1 && c.solid < 0.5) CHECK(!cpu.throats.empty());
    }
  }
}

TEST_CASE("region stats GPU: slabs merged equal the whole volume", "[pnm][region_stats][gpu]") {
  gp::test::PnmGpu gpu;
  const LabelVolume v = gp::test::random_partition(97, 45, 37, 500, 0.3, 21);
  const auto labels = gpu.upload(v.labels, v.nx, v.ny, v.nz);
  const auto distance = gpu.upload(v.distance, v.nx, v.ny, v.nz);
  for (Connectivity conn : {Connectivity::c6, Connectivity::c26}) {
    const RegionStats whole = gp::pnm::region_stats_cpu(v.label_view(), v.distance_view(), v.regions, 0, v.nz, conn);
    for (const std::vector<int>& cuts : {std::vector<int>{0, 1, 37}, {0, 10, 11, 25, 37}, {0, 8, 16, 24, 32, 36, 37}}) {
      RegionStats merged;
      merged.regions.resize(v.regions);
      for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
        const int b = cuts[k], e = cuts[k + 1];
        const RegionStats part =
            gp::pnm::region_stats_gpu(gp::test::slab_view(labels, b, e), gp::test::slab_view(distance, b, e), v.regions,
                                      b, e, conn, gpu.scratch(), gpu.stream());
        gpu.release_scratch();
        gp::pnm::merge_region_stats(merged, part);
      }
      gp::test::require_equal(merged, whole);
    }
  }
}

TEST_CASE("region stats GPU: labels above the region count", "[pnm][region_stats][gpu]") {
  gp::test::PnmGpu gpu;
  LabelVolume v(40, 9, 3);
  v.box(0, 39, 0, 8, 0, 2, 1, 1.0f);
  v.box(20, 21, 4, 4, 1, 1, 7, 1.0f);
  const auto labels = gpu.upload(v.labels, v.nx, v.ny, v.nz);
  const auto distance = gpu.upload(v.distance, v.nx, v.ny, v.nz);
  CHECK_THROWS_AS(gp::pnm::region_stats_gpu(labels, distance, 6, 0, v.nz, Connectivity::c6, gpu.scratch(), gpu.stream()),
                  gp::Error);
}
