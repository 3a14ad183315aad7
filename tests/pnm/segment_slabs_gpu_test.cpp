// The out-of-core GPU path (Z-slabs within a small memory budget) gives exactly what the CPU path
// and the in-core GPU path give: same threshold, filled voxels, markers, labels and statistics.
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "core/host_memory.hpp"
#include "core/scratch_space.hpp"
#include "io/volume_reader.hpp"
#include "label_volumes.hpp"
#include "pnm/segmentation.hpp"
#include "segment_volumes.hpp"
#include "support/test_data.hpp"

using namespace gp;

namespace {

// A CT-like volume: pore balls at -800 HU in solid at +300 HU, with a smooth gradient and
// sensor-level noise, so Otsu, the fills and the denoise filters all have work to do.
io::Volume ct_phantom(int nx, int ny, int nz, std::uint64_t seed) {
  const auto pore = test::porous_mask(nx, ny, nz, 60, 1.5, 6.0, seed);
  io::Volume v;
  v.dims = {nx, ny, nz};
  v.spacing = {0.02, 0.02, 0.025};
  v.values.resize(pore.size());
  for (std::size_t i = 0; i < pore.size(); ++i) {
    const double noise = 60.0 * (test::unit_random(seed + 7, i) - 0.5);
    v.values[i] = float((pore[i] ? -800.0 : 300.0) + 0.5 * double(i % nx) + noise);
  }
  return v;
}

void require_same(const pnm::Segmentation& got, const pnm::Segmentation& want) {
  CHECK(got.threshold == want.threshold);
  CHECK(got.porosity_binarized == want.porosity_binarized);
  CHECK(got.porosity == want.porosity);
  CHECK(got.closed_pore_voxels == want.closed_pore_voxels);
  CHECK(got.floating_solid_voxels == want.floating_solid_voxels);
  CHECK(got.markers.count == want.markers.count);
  REQUIRE(got.regions == want.regions);
  REQUIRE(got.labels.size() == want.labels.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < want.labels.size(); ++i) differing += got.labels[i] != want.labels[i];
  CHECK(differing == 0);
  test::require_equal(got.stats, want.stats);
}

}  // namespace

TEST_CASE("segment-pnm in Z-slabs equals the in-core GPU and the CPU paths", "[pnm][slabs][gpu]") {
  Runtime rt{RuntimeOptions{}};
  const io::Volume volume = ct_phantom(48, 40, 56, 11);
  pnm::Settings s;
  SECTION("defaults: Otsu, both fills, 26-connected, sigma 0.4") {}
  SECTION("median denoise, 6-connected fills, unsmoothed flooding") {
    s.denoise = "median";
    s.connectivity = gp::Connectivity::c6;
    s.sigma = 0;
  }
  SECTION("gaussian denoise, fixed threshold, fewer fills") {
    s.denoise = "gaussian";
    s.denoise_sigma = 0.8f;
    s.otsu = false;
    s.threshold = -250;
    s.remove_floating_solid = false;
  }
  const pnm::Segmentation cpu = pnm::segment_cpu(volume, s);
  REQUIRE(cpu.regions > 10);
  {
    INFO("in-core GPU");
    require_same(pnm::segment_gpu(volume, s, rt), cpu);
  }
  // From slabs of one or two slices (with their halos) to a single slab.
  for (const std::size_t budget : {std::size_t(400) << 10, std::size_t(1) << 20, std::size_t(3) << 20,
                                   std::size_t(256) << 20}) {
    INFO("slab budget " << budget << " bytes");
    const pnm::Segmentation slabs = pnm::segment_gpu_slabs(volume, s, {&rt}, budget);
    if (budget < (std::size_t(1) << 20)) CHECK(slabs.watershed_slab_runs > 3);
    require_same(slabs, cpu);
  }
  // Several GPUs: the machine's second one where it has two, else a second share of the first (a
  // runtime and threads of its own), and a third share: every stage spreads its slabs over them,
  // the watershed runs theirs at once.
  RuntimeOptions other;
  other.device = DeviceChoice::parse(cuda_device_count() > 1 ? "cuda:1" : "cuda:0");
  Runtime second{other}, third{RuntimeOptions{}};
  for (const std::size_t budget : {std::size_t(400) << 10, std::size_t(256) << 20}) {
    INFO("two GPUs, slab budget " << budget << " bytes");
    const pnm::Segmentation two = pnm::segment_gpu_slabs(volume, s, {&rt, &second}, budget);
    CHECK(two.slab_gpus == 2);
    require_same(two, cpu);
  }
  INFO("three GPUs");
  require_same(pnm::segment_gpu_slabs(volume, s, {&rt, &second, &third}, std::size_t(1) << 20), cpu);
}

TEST_CASE("segment-pnm in Z-slabs refuses a budget below one slab with its halo", "[pnm][slabs][gpu]") {
  Runtime rt{RuntimeOptions{}};
  const io::Volume volume = ct_phantom(48, 40, 24, 3);
  CHECK_THROWS_AS(pnm::segment_gpu_slabs(volume, pnm::Settings{}, {&rt}, 20000), GpuOutOfMemory);
}

TEST_CASE("segment-pnm in Z-slabs from a streamed file with every volume in scratch files equals the CPU path",
          "[pnm][slabs][gpu][scratch]") {
  Runtime rt{RuntimeOptions{}};
  const io::Volume phantom = ct_phantom(48, 40, 56, 5);
  // The phantom as a float32 raw file, read back slab by slab.
  const auto folder = test::scratch_dir("slabs-scratch");
  const auto raw = folder / "phantom.raw";
  {
    std::ofstream out(raw, std::ios::binary);
    out.write(reinterpret_cast<const char*>(phantom.values.data()), std::streamsize(phantom.values.size() * sizeof(float)));
  }
  io::VolumeReadOptions o;
  o.raw.dims = phantom.dims;
  o.raw.dtype = "float32";
  o.spacing = phantom.spacing;
  o.spacing_given = true;
  const auto stream = io::open_volume({raw.string()}, o);
  const auto input = pnm::VolumeStore<float>::from_stream(*stream);
  pnm::Settings s;
  s.write_intermediates = true;
  SECTION("defaults") {}
  SECTION("median denoise, sigma 0") {
    s.denoise = "median";
    s.sigma = 0;
  }
  const pnm::Segmentation cpu = pnm::segment_cpu(phantom, s);
  HostMemoryBudget nothing(0);
  ScratchSpace scratch((folder / "scratch").string(), "run.scratch_dir");
  pnm::VolumeStorage storage{nothing, scratch};
  for (const std::size_t budget : {std::size_t(400) << 10, std::size_t(256) << 20}) {
    INFO("slab budget " << budget << " bytes");
    // Two shares of the GPU on the small budget: the stores are written by both at once.
    Runtime second{RuntimeOptions{}};
    const std::vector<Runtime*> gpus = budget < (std::size_t(1) << 20) ? std::vector<Runtime*>{&rt, &second}
                                                                        : std::vector<Runtime*>{&rt};
    pnm::Segmentation slabs = pnm::segment_gpu_slabs(stream->header(), input, s, gpus, budget, storage);
    CHECK(slabs.labels.in_scratch());
    CHECK(scratch.bytes_written() > 0);
    // Back into host memory to compare voxel by voxel.
    slabs.labels = pnm::VolumeStore<std::uint32_t>(slabs.labels.to_host(), phantom.dims);
    require_same(slabs, cpu);
    const auto markers = slabs.intermediates.markers.to_host();
    CHECK(std::equal(markers.data(), markers.data() + markers.size(), cpu.intermediates.markers.resident()));
  }
}
