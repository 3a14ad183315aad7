#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "cuda/pnm/edt.hpp"
#include "pnm/segment_volumes.hpp"

using namespace gp::pnm;

namespace {

// Exact reference: the distance from every pore voxel to every solid voxel, in double.
std::vector<double> brute_force(const std::vector<std::uint8_t>& mask, int nx, int ny, int nz, Spacing s) {
  std::vector<double> out(mask.size(), std::numeric_limits<double>::infinity());
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const std::size_t i = (std::size_t(z) * ny + y) * nx + x;
        if (!mask[i]) {
          out[i] = 0;
          continue;
        }
        for (int zz = 0; zz < nz; ++zz)
          for (int yy = 0; yy < ny; ++yy)
            for (int xx = 0; xx < nx; ++xx) {
              if (mask[(std::size_t(zz) * ny + yy) * nx + xx]) continue;
              const double dx = (x - xx) * double(s.x), dy = (y - yy) * double(s.y), dz = (z - zz) * double(s.z);
              out[i] = std::min(out[i], std::sqrt(dx * dx + dy * dy + dz * dz));
            }
      }
  return out;
}

void check_against_brute_force(int nx, int ny, int nz, Spacing s, std::uint64_t seed) {
  const auto mask = gp::test::porous_mask(nx, ny, nz, 6, 2.0, 6.0, seed);
  std::vector<float> distance(mask.size());
  distance_transform_cpu(whole_volume(mask.data(), nx, ny, nz), whole_volume(distance.data(), nx, ny, nz), s);
  const auto exact = brute_force(mask, nx, ny, nz, s);
  for (std::size_t i = 0; i < mask.size(); ++i) {
    INFO("voxel " << i << " of " << nx << "x" << ny << "x" << nz);
    if (std::isinf(exact[i])) {
      REQUIRE(std::isinf(distance[i]));
    } else {
      REQUIRE(distance[i] == Approx(exact[i]).epsilon(1e-6).margin(1e-6));
    }
  }
}

}  // namespace

TEST_CASE("distance transform equals brute force, isotropic", "[pnm][edt]") {
  check_against_brute_force(17, 13, 11, {1, 1, 1}, 1);
  check_against_brute_force(9, 20, 7, {1, 1, 1}, 2);
}

TEST_CASE("distance transform equals brute force, anisotropic spacing", "[pnm][edt]") {
  check_against_brute_force(15, 12, 10, {0.02f, 0.02f, 0.035f}, 3);
  check_against_brute_force(11, 16, 13, {1.5f, 0.7f, 1.0f}, 4);
}

TEST_CASE("distance transform: no solid gives infinity, all solid gives zero", "[pnm][edt]") {
  std::vector<std::uint8_t> pore(4 * 5 * 6, 1), solid(4 * 5 * 6, 0);
  std::vector<float> d(pore.size());
  distance_transform_cpu(whole_volume(pore.data(), 4, 5, 6), whole_volume(d.data(), 4, 5, 6), {1, 1, 1});
  for (float v : d) REQUIRE(std::isinf(v));
  distance_transform_cpu(whole_volume(solid.data(), 4, 5, 6), whole_volume(d.data(), 4, 5, 6), {1, 1, 1});
  for (float v : d) REQUIRE(v == 0.f);
}

TEST_CASE("distance transform: a single solid voxel", "[pnm][edt]") {
  const int n = 9;
  std::vector<std::uint8_t> mask(n * n * n, 1);
  mask[(4 * n + 4) * n + 4] = 0;
  std::vector<float> d(mask.size());
  distance_transform_cpu(whole_volume(mask.data(), n, n, n), whole_volume(d.data(), n, n, n), {1, 2, 3});
  REQUIRE(d[(4 * n + 4) * n + 5] == 1.f);          // one step in x
  REQUIRE(d[(4 * n + 5) * n + 4] == 2.f);          // one step in y
  REQUIRE(d[(5 * n + 4) * n + 4] == 3.f);          // one step in z
  REQUIRE(d[0] == Approx(std::sqrt(16.0 + 64.0 + 144.0)));  // the corner
}
