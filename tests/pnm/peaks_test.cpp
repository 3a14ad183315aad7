// find_peaks on Z-slabs (views holding a slab and its halo) finds exactly the whole volume's peaks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "cuda/pnm/edt.hpp"
#include "cuda/pnm/peaks.hpp"
#include "segment_volumes.hpp"

using namespace gp;
using namespace gp::pnm;

namespace {

// Slices [first, last) of a whole-volume host array, as a view of the slab.
template <class T>
VolumeView<const T> slab_of(const std::vector<T>& whole, int nx, int ny, int nz, int first, int last) {
  return {whole.data() + std::size_t(first) * nx * ny, nx, ny, nz, first, last - first};
}

}  // namespace

TEST_CASE("find_peaks_cpu over slabs with halos equals the whole volume", "[pnm][peaks]") {
  const int nx = 30, ny = 26, nz = 34;
  const auto mask = test::porous_mask(nx, ny, nz, 40, 2.0, 6.0, 5);
  std::vector<float> distance(mask.size());
  const Spacing spacing{1.0f, 1.0f, 0.8f};
  distance_transform_cpu(whole_volume(mask.data(), nx, ny, nz), whole_volume(distance.data(), nx, ny, nz), spacing);
  const float r_max = 3;
  const auto whole = find_peaks_cpu(whole_volume(mask.data(), nx, ny, nz), whole_volume(distance.data(), nx, ny, nz),
                                    spacing, r_max);
  REQUIRE(whole.size() > 5);
  const int halo = peak_halo(spacing, r_max);
  CHECK(halo == 3);  // r_max 3 voxels of the finest spacing (0.8) = 2.4 / 0.8 slices
  for (const int depth : {1, 4, 11}) {
    INFO("slab depth " << depth);
    std::vector<std::uint64_t> joined;
    for (int z = 0; z < nz; z += depth) {
      const int end = std::min(nz, z + depth), first = std::max(0, z - halo), last = std::min(nz, end + halo);
      const auto found = find_peaks_cpu(slab_of(mask, nx, ny, nz, first, last), slab_of(distance, nx, ny, nz, first, last),
                                        spacing, r_max, z, end);
      joined.insert(joined.end(), found.begin(), found.end());
    }
    CHECK(joined == whole);
  }
  // A slab without its halo is the caller's bug.
  CHECK_THROWS_AS(find_peaks_cpu(slab_of(mask, nx, ny, nz, 10, 20), slab_of(distance, nx, ny, nz, 10, 20), spacing,
                                 r_max, 10, 20),
                  Error);
}
