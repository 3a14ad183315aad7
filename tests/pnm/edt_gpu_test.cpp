// The GPU distance transform against the CPU reference (itself checked against brute force in
// edt_test), bit for bit: odd sizes, lines on one or many lanes of a warp, lines longer than the
// 32 x 32 samples a warp splits evenly, lines too long for shared memory, no solid, all solid,
// anisotropic spacing, and the Y-slab / Z-slab views the out-of-core driver uses. The [.perf] case
// times the transform on porous 512^3 and 1024^3 volumes (run it explicitly:
// gpuproc_gpu_tests "[.perf][edt]").
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "core/parallel_for.hpp"
#include "cuda/pnm/edt.hpp"
#include "pnm/pnm_gpu_fixture.hpp"
#include "pnm/segment_volumes.hpp"

using namespace gp::pnm;
using gp::test::PnmGpu;

namespace {

struct Dims {
  int nx, ny, nz;
  std::size_t voxels() const { return std::size_t(nx) * ny * nz; }
  std::size_t slice() const { return std::size_t(nx) * ny; }
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Solid (0) with probability `solid`, else pore (1).
std::vector<std::uint8_t> random_mask(const Dims& d, double solid, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::bernoulli_distribution is_solid(solid);
  std::vector<std::uint8_t> m(d.voxels());
  for (auto& v : m) v = is_solid(rng) ? 0 : 1;
  return m;
}

std::vector<float> cpu_distance(const std::vector<std::uint8_t>& mask, const Dims& d, Spacing s) {
  std::vector<float> out(mask.size());
  distance_transform_cpu(whole_volume(mask.data(), d.nx, d.ny, d.nz), whole_volume(out.data(), d.nx, d.ny, d.nz), s);
  return out;
}

std::vector<float> gpu_distance(PnmGpu& gpu, const std::vector<std::uint8_t>& mask, const Dims& d, Spacing s) {
  const auto dmask = gpu.upload(mask, d.nx, d.ny, d.nz);
  const auto ddistance = gpu.zeros<float>(d.nx, d.ny, d.nz);
  const auto dwork = gpu.zeros<float>(d.nx, d.ny, d.nz);
  distance_transform_gpu(dmask.as<const std::uint8_t>(), ddistance, dwork, s, gpu.scratch(), gpu.stream());
  auto out = gpu.download(ddistance);
  gpu.release_scratch();
  return out;
}

// Overlapping balls of pore (radii r_min .. r_max voxels) in solid, as many as leave about half of
// an n^3 cube pore: 1 - exp(-balls * mean ball volume / n^3) = 1/2.
std::vector<std::uint8_t> ball_phantom(int n, double r_min, double r_max, std::uint64_t seed) {
  const double mean_r3 = (std::pow(r_max, 4) - std::pow(r_min, 4)) / (4 * (r_max - r_min));
  const double ball_volume = 4.0 / 3.0 * 3.141592653589793 * mean_r3;
  const long count = long(std::log(2.0) * double(n) * n * n / ball_volume);
  struct Ball {
    double x, y, z, r;
  };
  std::vector<Ball> balls(count);
  for (long b = 0; b < count; ++b)
    balls[b] = {gp::test::unit_random(seed, 4 * b) * n, gp::test::unit_random(seed, 4 * b + 1) * n,
                gp::test::unit_random(seed, 4 * b + 2) * n,
                r_min + gp::test::unit_random(seed, 4 * b + 3) * (r_max - r_min)};
  std::vector<std::uint8_t> mask(std::size_t(n) * n * n, 0);
  gp::parallel_for(n, [&](long z0, long z1) {
    for (const Ball& b : balls)
      for (long z = std::max<long>(z0, long(std::ceil(b.z - b.r))); z < std::min<long>(z1, long(b.z + b.r) + 1); ++z) {
        const double rz = b.r * b.r - (z - b.z) * (z - b.z);
        if (rz < 0) continue;
        for (int y = std::max(0, int(std::ceil(b.y - std::sqrt(rz)))); y <= std::min(n - 1, int(b.y + std::sqrt(rz))); ++y) {
          const double ry = rz - (y - b.y) * (y - b.y);
          if (ry < 0) continue;
          const int x0 = std::max(0, int(std::ceil(b.x - std::sqrt(ry)))), x1 = std::min(n - 1, int(b.x + std::sqrt(ry)));
          if (x0 <= x1) std::memset(mask.data() + (std::size_t(z) * n + y) * n + x0, 1, std::size_t(x1 - x0 + 1));
        }
      }
  }, 1);
  return mask;
}

}  // namespace

TEST_CASE("GPU distance transform equals the CPU reference bit for bit", "[pnm][edt][gpu]") {
  PnmGpu gpu;
  struct Case {
    const char* what;
    Dims d;
    Spacing s;
    std::vector<std::uint8_t> mask;
  };
  const auto porous = [](const Dims& d, int balls, std::uint64_t seed) {
    return gp::test::porous_mask(d.nx, d.ny, d.nz, balls, 2.0, 9.0, seed);
  };
  const Case cases[] = {
      {"a z column", {1, 1, 50}, {1, 1, 1}, porous({1, 1, 50}, 4, 1)},
      {"an x row", {50, 1, 1}, {0.3f, 1, 1}, porous({50, 1, 1}, 4, 2)},
      {"a y column", {1, 50, 1}, {1, 1.7f, 1}, porous({1, 50, 1}, 4, 3)},
      {"one voxel, solid", {1, 1, 1}, {1, 1, 1}, {0}},
      {"one voxel, pore", {1, 1, 1}, {1, 1, 1}, {1}},
      {"odd sizes", {37, 19, 23}, {1, 1, 1}, porous({37, 19, 23}, 12, 4)},
      {"odd sizes, anisotropic", {37, 19, 23}, {0.7f, 1.3f, 0.45f}, porous({37, 19, 23}, 12, 5)},
      {"micro-CT spacing", {64, 48, 40}, {0.02f, 0.02f, 0.035f}, random_mask({64, 48, 40}, 0.5, 6)},
      {"no solid", {13, 7, 5}, {1, 1, 1}, std::vector<std::uint8_t>(13 * 7 * 5, 1)},
      {"all solid", {13, 7, 5}, {1, 1, 1}, std::vector<std::uint8_t>(13 * 7 * 5, 0)},
      {"sparse solid: long segments", {70, 60, 50}, {1, 0.9f, 1.1f}, random_mask({70, 60, 50}, 0.002, 7)},
      {"x lines over 1024 voxels", {1500, 3, 2}, {0.5f, 1, 1}, random_mask({1500, 3, 2}, 0.01, 8)},
      {"y lines over 1024 voxels", {3, 1500, 2}, {1, 0.5f, 1}, random_mask({3, 1500, 2}, 0.01, 9)},
      {"z columns over 1024 voxels", {3, 2, 1500}, {1, 1, 0.5f}, random_mask({3, 2, 1500}, 0.003, 10)},
      {"porous 256 x 256 x 64", {256, 256, 64}, {1, 1, 1}, porous({256, 256, 64}, 300, 11)},
      {"porous 200 x 150 x 30, anisotropic", {200, 150, 30}, {0.9f, 1.1f, 2.5f}, porous({200, 150, 30}, 120, 12)},
  };
  for (const Case& c : cases) {
    INFO(c.what << ": " << c.d.nx << "x" << c.d.ny << "x" << c.d.nz);
    CHECK(same_bits(gpu_distance(gpu, c.mask, c.d, c.s), cpu_distance(c.mask, c.d, c.s)));
  }
}

TEST_CASE("GPU distance transform of lines too long for shared memory", "[pnm][edt][gpu]") {
  PnmGpu gpu;
  for (const Dims& d : {Dims{70000, 2, 1}, Dims{2, 70000, 1}}) {
    INFO(d.nx << "x" << d.ny << "x" << d.nz);
    const auto mask = random_mask(d, 0.0005, 13);
    CHECK(same_bits(gpu_distance(gpu, mask, d, {1.1f, 0.9f, 1}), cpu_distance(mask, d, {1.1f, 0.9f, 1})));
  }
}

TEST_CASE("GPU distance transform steps on slab views equal the CPU", "[pnm][edt][gpu]") {
  PnmGpu gpu;
  const Dims d{45, 38, 30};
  const Spacing s{0.7f, 1.2f, 0.9f};
  const auto mask = gp::test::porous_mask(d.nx, d.ny, d.nz, 30, 2.0, 8.0, 14);

  // Step 1 on Y-slabs: all slices of rows [y0, y0 + rows), seen as a volume nx x rows x nz.
  for (const auto& [y0, rows] : {std::pair{0, 38}, std::pair{5, 11}, std::pair{37, 1}}) {
    INFO("Y-slab " << y0 << "+" << rows);
    std::vector<std::uint8_t> part(std::size_t(d.nx) * rows * d.nz);
    for (int z = 0; z < d.nz; ++z)
      std::memcpy(part.data() + std::size_t(z) * d.nx * rows, mask.data() + (std::size_t(z) * d.ny + y0) * d.nx,
                  std::size_t(d.nx) * rows);
    std::vector<float> expected(part.size());
    edt_columns_cpu(whole_volume<const std::uint8_t>(part.data(), d.nx, rows, d.nz),
                    whole_volume(expected.data(), d.nx, rows, d.nz), s.z);
    const auto dpart = gpu.upload(part, d.nx, rows, d.nz);
    const auto dsquared = gpu.zeros<float>(d.nx, rows, d.nz);
    edt_columns_gpu(dpart.as<const std::uint8_t>(), dsquared, s.z, gpu.stream());
    CHECK(same_bits(gpu.download(dsquared), expected));
  }

  // Steps 2-3 on Z-slabs of the squared column distances, with and without the square root.
  std::vector<float> squared(d.voxels());
  edt_columns_cpu(whole_volume(mask.data(), d.nx, d.ny, d.nz), whole_volume(squared.data(), d.nx, d.ny, d.nz), s.z);
  for (const auto& [first, count] : {std::pair{0, 30}, std::pair{7, 9}, std::pair{29, 1}})
    for (bool take_sqrt : {false, true}) {
      INFO("Z-slab " << first << "+" << count << " sqrt " << take_sqrt);
      std::vector<float> part(squared.begin() + std::ptrdiff_t(d.slice() * first),
                              squared.begin() + std::ptrdiff_t(d.slice() * (first + count)));
      VolumeView<float> host{part.data(), d.nx, d.ny, d.nz, first, count};
      VolumeView<float> field = gpu.upload(part, d.nx, d.ny, count), work = gpu.zeros<float>(d.nx, d.ny, count);
      field.nz = work.nz = d.nz;
      field.z_first = work.z_first = first;
      edt_planes_gpu(field, work, s, take_sqrt, gpu.scratch(), gpu.stream());
      edt_planes_cpu(host, s, take_sqrt);
      CHECK(same_bits(gpu.download(field), part));
      gpu.release_scratch();
    }
}

TEST_CASE("distance transform timings on porous 512^3 and 1024^3", "[.perf][pnm][edt][gpu]") {
  PnmGpu gpu;
  for (int n : {512, 1024}) {
    const double r_min = 4.0 * n / 512, r_max = 12.0 * n / 512;
    const auto mask = ball_phantom(n, r_min, r_max, 15);
    std::size_t pore = 0;
    for (auto v : mask) pore += v;
    const auto dmask = gpu.upload(mask, n, n, n);
    const auto ddistance = gpu.zeros<float>(n, n, n);
    const auto dwork = gpu.zeros<float>(n, n, n);
    const auto m = dmask.as<const std::uint8_t>();
    const Spacing iso{1, 1, 1}, aniso{0.8f, 1.0f, 1.25f};
    const double columns_ms = gpu.best_ms([&] { edt_columns_gpu(m, ddistance, iso.z, gpu.stream()); });
    const double total_ms =
        gpu.best_ms([&] { distance_transform_gpu(m, ddistance, dwork, iso, gpu.scratch(), gpu.stream()); });
    const double aniso_ms =
        gpu.best_ms([&] { distance_transform_gpu(m, ddistance, dwork, aniso, gpu.scratch(), gpu.stream()); });
    const auto gpu_result = gpu.download(ddistance);  // the anisotropic transform, last run
    const auto t0 = std::chrono::steady_clock::now();
    const auto expected = cpu_distance(mask, {n, n, n}, aniso);
    const double cpu_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("EDT %d^3 on %s, %.1f%% pore (balls r %.0f-%.0f): %.2f ms (columns %.2f ms, planes %.2f ms); "
                "anisotropic %.2f ms; CPU reference %.0f ms on %u threads\n",
                n, gpu.runtime().device_name().c_str(), 100.0 * double(pore) / double(mask.size()), r_min, r_max,
                total_ms, columns_ms, total_ms - columns_ms, aniso_ms, cpu_ms, gp::cpu_thread_count());
    CHECK(same_bits(gpu_result, expected));
  }
}
