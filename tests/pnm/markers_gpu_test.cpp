// The markers stage on the GPU (find_peaks_device, select_markers_gpu, place_markers_gpu from
// device arrays) gives exactly the CPU reference's peaks, marker voxels, labels and counts; the
// GPU pipeline gives the CPU pipeline's markers and labels on the sample; indices past 2^32 work.
#include <catch2/catch.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "cuda/pnm/denoise.hpp"
#include "cuda/pnm/edt.hpp"
#include "cuda/pnm/markers.hpp"
#include "cuda/pnm/peaks.hpp"
#include "cuda/pnm/watershed.hpp"
#include "io/volume_reader.hpp"
#include "pnm/pnm_gpu_fixture.hpp"
#include "support/random_volumes.hpp"
#include "pnm/segment_volumes.hpp"
#include "pnm/segmentation.hpp"

using namespace gp::pnm;

namespace {

// A smoothed, optionally quantised distance map of a pore mask (what the markers stage sees).
struct Field {
  int nx, ny, nz;
  Spacing spacing;
  std::vector<std::uint8_t> mask;
  std::vector<float> distance;
};

Field make_field(std::vector<std::uint8_t> mask, int nx, int ny, int nz, Spacing spacing, float sigma, float quantum) {
  Field f{nx, ny, nz, spacing, std::move(mask), {}};
  f.distance.resize(f.mask.size());
  distance_transform_cpu(whole_volume<const std::uint8_t>(f.mask.data(), nx, ny, nz),
                         whole_volume(f.distance.data(), nx, ny, nz), spacing);
  if (sigma > 0) {
    std::vector<float> smooth(f.distance.size());
    gaussian_filter_cpu(whole_volume<const float>(f.distance.data(), nx, ny, nz), whole_volume(smooth.data(), nx, ny, nz),
                        smoothing_sigma(spacing, sigma));
    f.distance = std::move(smooth);
  }
  if (quantum > 0)  // plateaus: many peak clusters of several voxels, saddles between them
    for (float& v : f.distance) v = std::floor(v / quantum) * quantum;
  return f;
}

struct Totals {
  std::size_t clusters = 0, saddles = 0, nearby = 0, markers = 0;
};

// GPU peaks and markers against the CPU's; returns the CPU's counts.
Markers compare_markers(const Field& f, float r_max, const MarkerParams& params, std::size_t chunk = 0) {
  INFO(f.nx << "x" << f.ny << "x" << f.nz << ", spacing " << f.spacing.x << " " << f.spacing.y << " " << f.spacing.z
            << ", r_max " << r_max << ", saddle iterations " << params.saddle_max_iterations << ", f "
            << params.nearby_factor << ", chunk " << chunk);
  const auto m = whole_volume<const std::uint8_t>(f.mask.data(), f.nx, f.ny, f.nz);
  const auto d = whole_volume<const float>(f.distance.data(), f.nx, f.ny, f.nz);
  const auto cpu_peaks = find_peaks_cpu(m, d, f.spacing, r_max);
  const Markers cpu = select_markers_cpu(cpu_peaks, d, f.spacing, params);

  gp::test::PnmGpu gpu;
  const auto d_mask = gpu.upload(f.mask, f.nx, f.ny, f.nz);
  const auto d_distance = gpu.upload(f.distance, f.nx, f.ny, f.nz);
  const DevicePeaks peaks = find_peaks_device(d_mask, d_distance, f.spacing, r_max, 0, f.nz, gpu.scratch(), gpu.stream());
  REQUIRE(peaks.count == cpu_peaks.size());
  std::vector<std::uint64_t> gpu_peaks(peaks.count);
  gpu.sync();  // the selection is queued on the fixture's stream; cudaMemcpy does not wait for it
  if (peaks.count > 0)
    REQUIRE(cudaMemcpy(gpu_peaks.data(), peaks.voxels, peaks.count * sizeof(std::uint64_t), cudaMemcpyDeviceToHost) ==
            cudaSuccess);
  REQUIRE(gpu_peaks == cpu_peaks);

  const DeviceMarkers selected =
      select_markers_gpu(peaks.voxels, peaks.count, d_distance, f.spacing, params, gpu.scratch(), gpu.stream(), chunk);
  const Markers got = download_markers(selected, gpu.stream());
  INFO("CPU: " << cpu.peaks << " clusters, " << cpu.saddles_removed << " saddles, " << cpu.nearby_removed
               << " nearby, " << cpu.count << " markers of " << cpu.voxels.size() << " voxels");
  CHECK(got.peaks == cpu.peaks);
  CHECK(got.saddles_removed == cpu.saddles_removed);
  CHECK(got.nearby_removed == cpu.nearby_removed);
  CHECK(got.count == cpu.count);
  REQUIRE(got.voxels == cpu.voxels);
  REQUIRE(got.labels == cpu.labels);

  auto d_markers = gpu.zeros<std::uint32_t>(f.nx, f.ny, f.nz);
  place_markers_gpu(selected.voxels, selected.labels, selected.voxel_count, d_markers, gpu.stream());
  std::vector<std::uint32_t> cpu_markers(f.mask.size());
  place_markers_cpu(cpu.voxels, cpu.labels, whole_volume(cpu_markers.data(), f.nx, f.ny, f.nz));
  REQUIRE(gpu.download(d_markers) == cpu_markers);
  return cpu;
}

void add(Totals& t, const Markers& m) {
  t.clusters += m.peaks, t.saddles += m.saddles_removed, t.nearby += m.nearby_removed, t.markers += m.count;
}

}  // namespace

TEST_CASE("GPU markers equal the CPU selection on porous volumes", "[pnm][markers][gpu]") {
  Totals totals;
  const Spacing iso{1, 1, 1}, aniso{1.0f, 1.3f, 0.8f}, fine{0.02f, 0.02f, 0.025f};
  for (const float sigma : {0.0f, 0.4f, 1.0f}) {
    add(totals, compare_markers(make_field(gp::test::porous_mask(64, 56, 48, 90, 2.0, 7.0, 21), 64, 56, 48, iso, sigma, 0),
                                4, {}));
    add(totals, compare_markers(make_field(gp::test::porous_mask(72, 56, 40, 80, 2.0, 8.0, 22), 72, 56, 40, aniso, sigma, 0),
                                4, {}));
    add(totals, compare_markers(make_field(gp::test::porous_mask(48, 40, 56, 60, 1.5, 6.0, 23), 48, 40, 56, fine, sigma, 0),
                                4, {}));
  }
  // Plateaus: quantised maps, isotropic and not, smoothed and not.
  for (const float quantum : {1.0f, 0.5f}) {
    add(totals, compare_markers(make_field(gp::test::porous_mask(64, 56, 48, 90, 2.0, 7.0, 21), 64, 56, 48, iso, 0, quantum),
                                4, {}));
    add(totals, compare_markers(make_field(gp::test::porous_mask(72, 56, 40, 80, 2.0, 8.0, 22), 72, 56, 40, aniso, 0.4f,
                                           quantum),
                                4, {}));
  }
  // Irregular pores (a thresholded random field), quantised.
  {
    const gp::test::Dims dims{80, 64, 48};
    add(totals, compare_markers(make_field(gp::test::blobby_mask(dims, 0.5, 31), 80, 64, 48, iso, 0, 1.0f), 4, {}));
    add(totals, compare_markers(make_field(gp::test::blobby_mask(dims, 0.45, 32), 80, 64, 48, aniso, 0.4f, 0.25f), 3, {}));
  }
  INFO(totals.clusters << " clusters, " << totals.saddles << " saddles, " << totals.nearby << " nearby, "
                       << totals.markers << " markers");
  CHECK(totals.saddles > 0);
  CHECK(totals.nearby > 0);
  CHECK(totals.markers > 100);
}

TEST_CASE("GPU markers equal the CPU selection for other parameters and in small chunks", "[pnm][markers][gpu]") {
  // Quantised irregular pores: hundreds of saddles (markers_test.cpp); quantised balls, anisotropic.
  const Field plateaus = make_field(gp::test::blobby_mask({64, 56, 48}, 0.45, 31), 64, 56, 48, {1, 1, 1}, 0, 1.0f);
  const Field smooth =
      make_field(gp::test::porous_mask(72, 56, 40, 80, 2.0, 8.0, 22), 72, 56, 40, {1.0f, 1.3f, 0.8f}, 0.4f, 0.5f);
  const std::vector<const Field*> fields{&plateaus, &smooth};
  SECTION("one to three saddle iterations") {
    for (const Field* f : fields)
      for (const int iterations : {1, 2, 3}) compare_markers(*f, 4, {iterations, 1.0f});
  }
  SECTION("no saddle test, no or wide nearby trimming") {
    for (const Field* f : fields) {
      compare_markers(*f, 4, {0, 1.0f});
      compare_markers(*f, 4, {20, 0.0f});
      compare_markers(*f, 4, {20, 2.5f});
    }
  }
  SECTION("peak radius 2 and 6") {
    for (const Field* f : fields) {
      compare_markers(*f, 2, {});
      compare_markers(*f, 6, {});
    }
  }
  SECTION("saddle rounds in chunks of a few plateaus (down to one per chunk)") {
    for (const Field* f : fields)
      for (const std::size_t chunk : {std::size_t(1), std::size_t(27 * 3), std::size_t(27 * 64), std::size_t(5000)})
        compare_markers(*f, 4, {}, chunk);
  }
}

TEST_CASE("GPU markers: no peaks, one peak, equally near neighbours", "[pnm][markers][gpu]") {
  SECTION("all solid: no peaks, no markers") {
    Field f{24, 20, 16, {1, 1, 1}, std::vector<std::uint8_t>(24 * 20 * 16, 0), std::vector<float>(24 * 20 * 16, 0.f)};
    const Markers m = compare_markers(f, 4, {});
    CHECK(m.count == 0);
  }
  SECTION("one ball: one marker") {
    const Field f = make_field(gp::test::porous_mask(31, 31, 31, 1, 9.0, 9.0, 1), 31, 31, 31, {1, 1, 1}, 0.4f, 0);
    compare_markers(f, 4, {});
  }
  SECTION("spikes: the tie of cluster numbers (markers_test.cpp)") {
    // Pore only at the spikes; A is 3 from both B and C, r_max 2 keeps all three peaks.
    const int n = 24;
    Field f{n, n, n, {1, 1, 1}, std::vector<std::uint8_t>(n * n * n, 0), std::vector<float>(n * n * n, 0.f)};
    auto set = [&](int x, int y, int z, float v) {
      const std::size_t i = (std::size_t(z) * n + y) * n + x;
      f.mask[i] = 1;
      f.distance[i] = v;
    };
    set(10, 10, 10, 5);
    set(13, 10, 10, 2);
    set(10, 13, 10, 6);
    const Markers m = compare_markers(f, 2, {});
    CHECK(m.peaks == 3);
    CHECK(m.nearby_removed == 2);
    CHECK(m.count == 1);
  }
}

namespace {

gp::io::Volume foam_sample() {
  gp::io::VolumeReadOptions options;
  options.format = "dicom";
  return gp::io::read_volume({std::string(GPUPROC_SOURCE_DIR) + "/data-samples/pnm/foam"}, options);
}

void require_same_markers(const Segmentation& gpu, const Segmentation& cpu) {
  CHECK(gpu.markers.peaks == cpu.markers.peaks);
  CHECK(gpu.markers.saddles_removed == cpu.markers.saddles_removed);
  CHECK(gpu.markers.nearby_removed == cpu.markers.nearby_removed);
  REQUIRE(gpu.markers.count == cpu.markers.count);
  REQUIRE(gpu.regions == cpu.regions);
  const auto& a = gpu.intermediates.markers;
  const auto& b = cpu.intermediates.markers;
  REQUIRE(a.size() == b.size());
  REQUIRE(std::equal(a.resident(), a.resident() + a.size(), b.resident()));
  REQUIRE(gpu.labels.size() == cpu.labels.size());
  REQUIRE(std::equal(gpu.labels.resident(), gpu.labels.resident() + gpu.labels.size(), cpu.labels.resident()));
}

}  // namespace

TEST_CASE("GPU pipeline markers and labels equal the CPU pipeline's on the sample", "[pnm][markers][gpu]") {
  gp::Runtime rt{gp::RuntimeOptions{}};
  const gp::io::Volume volume = foam_sample();
  Settings s;
  s.write_intermediates = true;
  SECTION("defaults (sigma 0.4)") {}
  SECTION("sigma 0") { s.sigma = 0; }
  SECTION("sigma 1, r_max 3, f 1.5") {
    s.sigma = 1.0f;
    s.r_max = 3;
    s.markers.nearby_factor = 1.5f;
  }
  const Segmentation cpu = segment_cpu(volume, s);
  REQUIRE(cpu.markers.count > 10);
  const Segmentation gpu = segment_gpu(volume, s, rt);
  require_same_markers(gpu, cpu);
  // The selection alone, on the sample's smoothed map and mask.
  const auto& d = volume.dims;
  const auto& mask = cpu.intermediates.mask;
  const auto& smoothed = s.sigma > 0 ? cpu.intermediates.smoothed : cpu.intermediates.distance;  // sigma 0 floods the map
  Field f{d.nx, d.ny, d.nz, spacing_of(volume),
          std::vector<std::uint8_t>(mask.resident(), mask.resident() + mask.size()),
          std::vector<float>(smoothed.resident(), smoothed.resident() + smoothed.size())};
  const Markers m = compare_markers(f, s.r_max, s.markers);
  CHECK(m.count == cpu.markers.count);
}

TEST_CASE("GPU peaks and markers address voxels past 2^32", "[pnm][markers][gpu][large]") {
  // 2048 x 2048 x 1025 voxels (2^32 + 4 Mi): mask and distance (5 bytes a voxel), the peak flags
  // (1) and a marker volume (4): about 43 GB.
  const int nx = 2048, ny = 2048, nz = 1025;
  const std::size_t voxels = std::size_t(nx) * ny * nz;
  std::size_t free_bytes = 0, total_bytes = 0;
  REQUIRE(cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess);
  if (free_bytes < voxels * 10 + (std::size_t(2) << 30)) {
    WARN("skipped: needs " << (voxels * 10 >> 30) << " GiB of free GPU memory, " << (free_bytes >> 30) << " free");
    return;
  }
  gp::test::PnmGpu gpu;
  auto mask = gpu.zeros<std::uint8_t>(nx, ny, nz);
  auto distance = gpu.zeros<float>(nx, ny, nz);
  auto index = [&](int x, int y, int z) { return (std::uint64_t(z) * ny + y) * nx + x; };
  struct Spike {
    int x, y, z;
    float value;
  };
  // Isolated spikes below and above 2^32, a two-voxel plateau above it, and a pair 5 apart above
  // it of which the lower goes (5 < 6 and 5 < 7: trim_nearby_peaks); the ball of r_max 4 sees
  // neither spike of the pair from the other.
  const std::vector<Spike> spikes = {{5, 5, 1023, 5},      {100, 200, 1024, 5},  {101, 200, 1024, 5},
                                     {500, 500, 1024, 7},  {505, 500, 1024, 6},  {1000, 1000, 1024, 5},
                                     {2047, 2047, 1024, 5}};
  gpu.sync();  // the zero fills run on the fixture's stream, which cudaMemcpy does not wait for
  for (const Spike& s : spikes) {
    const std::uint64_t i = index(s.x, s.y, s.z);
    const std::uint8_t one = 1;
    REQUIRE(cudaMemcpy(mask.data + i, &one, 1, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(distance.data + i, &s.value, sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
  }
  const DevicePeaks peaks = find_peaks_device(mask, distance, {1, 1, 1}, 4, 0, nz, gpu.scratch(), gpu.stream());
  REQUIRE(peaks.count == spikes.size());
  std::vector<std::uint64_t> found(peaks.count);
  gpu.sync();
  REQUIRE(cudaMemcpy(found.data(), peaks.voxels, found.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost) ==
          cudaSuccess);
  std::vector<std::uint64_t> want_peaks;
  for (const Spike& s : spikes) want_peaks.push_back(index(s.x, s.y, s.z));
  REQUIRE(found == want_peaks);

  const DeviceMarkers selected =
      select_markers_gpu(peaks.voxels, peaks.count, distance, {1, 1, 1}, {}, gpu.scratch(), gpu.stream());
  const Markers got = download_markers(selected, gpu.stream());
  CHECK(got.peaks == 6);
  CHECK(got.saddles_removed == 0);
  CHECK(got.nearby_removed == 1);
  REQUIRE(got.count == 5);
  const std::vector<std::uint64_t> want_voxels = {index(5, 5, 1023), index(100, 200, 1024), index(101, 200, 1024),
                                                  index(500, 500, 1024), index(1000, 1000, 1024),
                                                  index(2047, 2047, 1024)};
  CHECK(got.voxels == want_voxels);
  CHECK(got.labels == std::vector<std::uint32_t>{1, 2, 2, 3, 4, 5});

  gpu.release_scratch();
  auto markers = gpu.zeros<std::uint32_t>(nx, ny, nz);
  place_markers_gpu(got.voxels, got.labels, markers, gpu.scratch(), gpu.stream());
  gpu.sync();
  for (std::size_t k = 0; k < want_voxels.size(); ++k) {
    std::uint32_t label = 0;
    REQUIRE(cudaMemcpy(&label, markers.data + want_voxels[k], sizeof(label), cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(label == got.labels[k]);
  }
  std::uint32_t dropped_label = 1;
  REQUIRE(cudaMemcpy(&dropped_label, markers.data + index(505, 500, 1024), sizeof(dropped_label),
                     cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(dropped_label == 0);
  // Truncated 32-bit indices would land 2^32 voxels lower: there, nothing.
  std::uint32_t low = 1;
  REQUIRE(cudaMemcpy(&low, markers.data + (index(2047, 2047, 1024) - (std::uint64_t(1) << 32)), sizeof(low),
                     cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(low == 0);
  CHECK(voxels > (std::size_t(1) << 32));
}
