// EDT, peaks and watershed: the GPU gives bit-identical results to the CPU reference.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "cuda/pnm/edt.hpp"
#include "cuda/pnm/peaks.hpp"
#include "cuda/pnm/watershed.hpp"
#include "pnm/markers.hpp"
#include "pnm/pnm_gpu_fixture.hpp"
#include "pnm/segment_volumes.hpp"

using namespace gp::pnm;

namespace {

struct Case {
  int nx, ny, nz, balls;
  Spacing spacing;
};

void compare_paths(const Case& c, std::uint64_t seed) {
  INFO(c.nx << "x" << c.ny << "x" << c.nz);
  const auto mask = gp::test::porous_mask(c.nx, c.ny, c.nz, c.balls, 3.0, 9.0, seed);
  const auto m = whole_volume<const std::uint8_t>(mask.data(), c.nx, c.ny, c.nz);
  std::vector<float> cpu_distance(mask.size());
  distance_transform_cpu(m, whole_volume(cpu_distance.data(), c.nx, c.ny, c.nz), c.spacing);

  gp::test::PnmGpu gpu;
  auto d_mask = gpu.upload(mask, c.nx, c.ny, c.nz);
  auto d_distance = gpu.zeros<float>(c.nx, c.ny, c.nz);
  auto d_work = gpu.zeros<float>(c.nx, c.ny, c.nz);
  distance_transform_gpu(d_mask.as<const std::uint8_t>(), d_distance, d_work, c.spacing, gpu.scratch(), gpu.stream());
  const auto gpu_distance = gpu.download(d_distance);
  REQUIRE(std::memcmp(gpu_distance.data(), cpu_distance.data(), mask.size() * sizeof(float)) == 0);

  const auto d = whole_volume<const float>(cpu_distance.data(), c.nx, c.ny, c.nz);
  const auto cpu_peaks = find_peaks_cpu(m, d, c.spacing, 4);
  const auto gpu_peaks =
      find_peaks_gpu(d_mask.as<const std::uint8_t>(), d_distance.as<const float>(), c.spacing, 4, gpu.scratch(), gpu.stream());
  REQUIRE(gpu_peaks == cpu_peaks);

  const Markers markers = select_markers(cpu_peaks, d, c.spacing, {});
  REQUIRE(markers.count > 0);
  std::vector<std::uint32_t> cpu_markers(mask.size()), cpu_labels(mask.size());
  place_markers_cpu(markers.voxels, markers.labels, whole_volume(cpu_markers.data(), c.nx, c.ny, c.nz));
  watershed_cpu(m, d, whole_volume<const std::uint32_t>(cpu_markers.data(), c.nx, c.ny, c.nz),
                whole_volume(cpu_labels.data(), c.nx, c.ny, c.nz));

  auto d_markers = gpu.zeros<std::uint32_t>(c.nx, c.ny, c.nz);
  auto d_labels = gpu.zeros<std::uint32_t>(c.nx, c.ny, c.nz);
  place_markers_gpu(markers.voxels, markers.labels, d_markers, gpu.scratch(), gpu.stream());
  REQUIRE(gpu.download(d_markers) == cpu_markers);
  const int passes = watershed_gpu(d_mask.as<const std::uint8_t>(), d_distance.as<const float>(),
                                   d_markers.as<const std::uint32_t>(), d_labels, gpu.scratch(), gpu.stream());
  INFO("GPU watershed passes: " << passes);
  REQUIRE(gpu.download(d_labels) == cpu_labels);
}

}  // namespace

TEST_CASE("GPU distance transform, peaks and watershed equal the CPU reference", "[pnm][gpu]") {
  compare_paths({33, 29, 27, 20, {1, 1, 1}}, 11);
  compare_paths({64, 48, 40, 60, {0.02f, 0.02f, 0.025f}}, 12);
  compare_paths({97, 71, 13, 80, {1.0f, 1.3f, 0.8f}}, 13);
  compare_paths({128, 128, 128, 400, {1, 1, 1}}, 14);
}
