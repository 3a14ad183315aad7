#include <catch2/catch.hpp>

#include <vector>

#include "cuda/pnm/edt.hpp"
#include "cuda/pnm/peaks.hpp"
#include "cuda/pnm/watershed.hpp"
#include "pnm/markers.hpp"
#include "pnm/segment_volumes.hpp"

using namespace gp::pnm;

TEST_CASE("watershed splits two touching balls at their neck", "[pnm][watershed]") {
  // Two balls of radius 6 along x, centres 10 apart: the neck is at x = 15.
  const int nx = 31, ny = 17, nz = 17;
  std::vector<std::uint8_t> mask(std::size_t(nx) * ny * nz, 0);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const int dy = y - 8, dz = z - 8;
        const int d1 = (x - 10) * (x - 10) + dy * dy + dz * dz, d2 = (x - 20) * (x - 20) + dy * dy + dz * dz;
        if (d1 <= 36 || d2 <= 36) mask[(std::size_t(z) * ny + y) * nx + x] = 1;
      }
  auto m = whole_volume<const std::uint8_t>(mask.data(), nx, ny, nz);
  std::vector<float> distance(mask.size());
  distance_transform_cpu(m, whole_volume(distance.data(), nx, ny, nz), {1, 1, 1});
  const auto d = whole_volume<const float>(distance.data(), nx, ny, nz);
  const auto peaks = find_peaks_cpu(m, d, {1, 1, 1}, 4);
  const Markers markers = select_markers(peaks, d, {1, 1, 1}, {});
  REQUIRE(markers.count == 2);

  std::vector<std::uint32_t> marker_volume(mask.size()), labels(mask.size());
  place_markers_cpu(markers.voxels, markers.labels, whole_volume(marker_volume.data(), nx, ny, nz));
  watershed_cpu(m, d, whole_volume<const std::uint32_t>(marker_volume.data(), nx, ny, nz),
                whole_volume(labels.data(), nx, ny, nz));
  auto at = [&](int x, int y, int z) { return labels[(std::size_t(z) * ny + y) * nx + x]; };
  REQUIRE(at(10, 8, 8) != at(20, 8, 8));
  REQUIRE(at(5, 8, 8) == at(10, 8, 8));
  REQUIRE(at(14, 8, 8) == at(10, 8, 8));
  REQUIRE(at(16, 8, 8) == at(20, 8, 8));
  REQUIRE(at(0, 0, 0) == 0);  // solid
  for (std::size_t i = 0; i < mask.size(); ++i) REQUIRE((labels[i] != 0) == (mask[i] != 0));
}

TEST_CASE("watershed leaves pore voxels no marker reaches unlabelled", "[pnm][watershed]") {
  const int n = 8;
  std::vector<std::uint8_t> mask(n * n * n, 0);
  std::vector<float> distance(mask.size(), 0);
  std::vector<std::uint32_t> markers(mask.size(), 0), labels(mask.size(), 7);
  for (int x = 1; x < 3; ++x) mask[x] = 1, distance[x] = 1;  // component with a marker
  markers[1] = 5;
  mask[6] = 1, distance[6] = 1;  // separate component, no marker
  watershed_cpu(whole_volume<const std::uint8_t>(mask.data(), n, n, n),
                whole_volume<const float>(distance.data(), n, n, n),
                whole_volume<const std::uint32_t>(markers.data(), n, n, n), whole_volume(labels.data(), n, n, n));
  REQUIRE(labels[1] == 5);
  REQUIRE(labels[2] == 5);
  REQUIRE(labels[6] == 0);
  REQUIRE(labels[0] == 0);
}

TEST_CASE("markers: nearby peaks merge, saddles go", "[pnm][markers]") {
  // A long flat-topped tube: its ridge of equal maxima yields peaks near each other; trimming
  // must leave far fewer markers than peak clusters.
  const int nx = 40, ny = 11, nz = 11;
  std::vector<std::uint8_t> mask(std::size_t(nx) * ny * nz, 0);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 2; x < nx - 2; ++x)
        if ((y - 5) * (y - 5) + (z - 5) * (z - 5) <= 16) mask[(std::size_t(z) * ny + y) * nx + x] = 1;
  auto m = whole_volume<const std::uint8_t>(mask.data(), nx, ny, nz);
  std::vector<float> distance(mask.size());
  distance_transform_cpu(m, whole_volume(distance.data(), nx, ny, nz), {1, 1, 1});
  const auto d = whole_volume<const float>(distance.data(), nx, ny, nz);
  const auto peaks = find_peaks_cpu(m, d, {1, 1, 1}, 4);
  REQUIRE(!peaks.empty());
  const Markers markers = select_markers(peaks, d, {1, 1, 1}, {});
  REQUIRE(markers.count >= 1);
  REQUIRE(markers.count <= 4);
  for (std::size_t k = 1; k < markers.voxels.size(); ++k) REQUIRE(markers.voxels[k - 1] < markers.voxels[k]);
}
