// VolumeStore: a volume in host memory, in a scratch file or in its input file gives the same
// slices, rows, mid slices and labels.nrrd, so the out-of-core path can keep any of its volumes
// in any of them.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <numeric>

#include "io/volume_reader.hpp"
#include "pnm/network_writers.hpp"
#include "pnm/volume_store.hpp"
#include "support/test_data.hpp"

namespace fs = std::filesystem;
using gp::pnm::VolumeStore;

namespace {

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("VolumeStore: host memory within the budget, else a scratch file; same contents", "[pnm][volume_store]") {
  const gp::io::Dims3 d{37, 23, 19};
  std::vector<std::uint32_t> values(d.voxels());
  std::iota(values.begin(), values.end(), 1u);
  const fs::path folder = gp::test::scratch_dir("volume-store");
  gp::ScratchSpace scratch(folder.string(), "run.scratch_dir");
  gp::HostMemoryBudget roomy(d.voxels() * 4), none(0);
  gp::pnm::VolumeStorage in_memory{roomy, scratch}, on_disk{none, scratch};
  VolumeStore<std::uint32_t> a(in_memory, d, "a"), b(on_disk, d, "b");
  REQUIRE(a.resident() != nullptr);
  CHECK(roomy.reserved() == d.voxels() * 4);
  REQUIRE(b.resident() == nullptr);
  CHECK(b.in_scratch());
  for (auto* store : {&a, &b}) {
    store->write_slices(0, 7, values.data());
    store->write(7 * d.slice_voxels(), (d.nz - 7) * d.slice_voxels(), values.data() + 7 * d.slice_voxels());
  }
  std::vector<std::uint32_t> got(d.voxels());
  b.read(0, got.size(), got.data());
  CHECK(got == values);
  // Rows 5..11 of every slice, slice after slice.
  std::vector<std::uint32_t> rows_a(std::size_t(d.nx) * 6 * d.nz), rows_b(rows_a.size());
  a.read_rows(5, 11, rows_a.data());
  b.read_rows(5, 11, rows_b.data());
  CHECK(rows_a == rows_b);
  CHECK(rows_a[std::size_t(d.nx) * 6 * 3 + d.nx + 2] == values[(3 * std::size_t(d.ny) + 6) * d.nx + 2]);
  b.write_rows(5, 11, rows_a.data());
  // Random access through a mapping of the scratch file.
  const auto whole = b.whole();
  CHECK(whole.view.at(36, 22, 18) == values.back());
  // Mid slices and labels.nrrd: the same bytes from either store.
  const auto mid_a = gp::pnm::MidSlices<std::uint32_t>::gather(a), mid_b = gp::pnm::MidSlices<std::uint32_t>::gather(b);
  for (int k = 0; k < 3; ++k) CHECK(mid_a.planes[k] == mid_b.planes[k]);
  CHECK(mid_a.planes[2][std::size_t(4) * d.ny + 3] == values[(4 * std::size_t(d.ny) + 3) * d.nx + d.nx / 2]);
  const gp::pnm::LabelVolumeInfo info{d, {1, 1, 1}, {0, 0, 0}, false, {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}};
  for (const bool gzip : {false, true})
    for (const auto type : {gp::pnm::LabelsType::smallest, gp::pnm::LabelsType::uint32}) {
      gp::pnm::write_labels_nrrd((folder / "a.nrrd").string(), a, info, values.back(), gp::pnm::VolumeEncoding{gzip, 1}, type);
      gp::pnm::write_labels_nrrd((folder / "b.nrrd").string(), b, info, values.back(), gp::pnm::VolumeEncoding{gzip, 1}, type);
      CHECK(file_bytes(folder / "a.nrrd") == file_bytes(folder / "b.nrrd"));
    }
}

TEST_CASE("VolumeStore: slices beyond the budget in scratch, plain or compressed; same contents",
          "[pnm][volume_store]") {
  const gp::io::Dims3 d{41, 29, 23};
  std::vector<std::uint32_t> values(d.voxels());
  // Label-like runs (what compressed scratch is for) with some variety.
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::uint32_t(i / 97 % 13 == 0 ? 0 : 1 + i / 333);
  const fs::path folder = gp::test::scratch_dir("volume-store-split");
  gp::ScratchSpace scratch(folder.string(), "run.scratch_dir");
  const std::uint64_t slice_bytes = d.slice_voxels() * 4;
  gp::HostMemoryBudget seven_slices(7 * slice_bytes + slice_bytes / 2), none(0);
  gp::pnm::VolumeStorage part{seven_slices, scratch}, disk{none, scratch};
  const auto form = GENERATE(gp::pnm::ScratchForm::plain, gp::pnm::ScratchForm::compressed);
  VolumeStore<std::uint32_t> split(part, d, "split", form), all(disk, d, "all", form);
  CHECK(seven_slices.reserved() == 7 * slice_bytes);  // whole slices only
  CHECK(split.host_bytes() == 7 * slice_bytes);
  CHECK(split.resident() == nullptr);
  CHECK(split.in_scratch());
  CHECK_FALSE(split.random_access());
  CHECK_THROWS_AS(split.whole(), gp::Error);
  std::vector<std::uint32_t> got(values.size());
  for (auto* store : {&split, &all}) {
    // Never written: zeros in compressed scratch; then written in two pieces across the split.
    if (form == gp::pnm::ScratchForm::compressed) {
      store->read_slices(10, 12, got.data());
      CHECK(std::all_of(got.begin(), got.begin() + std::ptrdiff_t(2 * d.slice_voxels()), [](auto v) { return v == 0; }));
    }
    store->write_slices(0, 5, values.data());
    store->write_slices(5, d.nz, values.data() + 5 * d.slice_voxels());
    store->read(0, got.size(), got.data());
    CHECK(got == values);
    // A slab across the split, written again with other contents (compressed: other sizes).
    std::vector<std::uint32_t> other(6 * d.slice_voxels());
    for (std::size_t i = 0; i < other.size(); ++i) other[i] = std::uint32_t(i * 2654435761u);
    store->write_slices(4, 10, other.data());
    std::vector<std::uint32_t> slab(other.size());
    store->read_slices(4, 10, slab.data());
    CHECK(slab == other);
    store->write_slices(4, 10, values.data() + 4 * d.slice_voxels());
    store->read_slices(0, d.nz, got.data());
    CHECK(got == values);
  }
  if (form == gp::pnm::ScratchForm::plain) {
    std::vector<std::uint32_t> rows(std::size_t(d.nx) * 3 * d.nz);
    split.read_rows(4, 7, rows.data());
    CHECK(rows[std::size_t(d.nx) * 3 * 20 + d.nx + 5] == values[(20 * std::size_t(d.ny) + 5) * d.nx + 5]);
    split.write_rows(4, 7, rows.data());
  } else {
    CHECK(all.scratch_bytes() < values.size() * 4 / 4);  // label runs compress
    std::vector<std::uint32_t> rows(std::size_t(d.nx) * 3 * d.nz);
    CHECK_THROWS_AS(all.read_rows(4, 7, rows.data()), gp::Error);
    CHECK_THROWS_AS(all.read(5, 10, got.data()), gp::Error);  // whole slices only
  }
  const auto mid_split = gp::pnm::MidSlices<std::uint32_t>::gather(split);
  const auto mid_all = gp::pnm::MidSlices<std::uint32_t>::gather(all);
  for (int k = 0; k < 3; ++k) CHECK(mid_split.planes[k] == mid_all.planes[k]);
  // labels.nrrd's pass over the store gives the quick look's mid slices too (the save stage's
  // one pass instead of two), equal to a pass of their own.
  gp::pnm::MidSlices<std::uint32_t> tapped;
  gp::pnm::LabelVolumeInfo info;
  info.dims = d;
  gp::pnm::write_labels_nrrd((folder / "tapped.nrrd").string(), split, info, values.back() + 1000, {},
                             gp::pnm::LabelsType::smallest, &tapped);
  for (int k = 0; k < 3; ++k) CHECK(tapped.planes[k] == mid_all.planes[k]);
}

TEST_CASE("VolumeStore: an input read slab by slab from its file equals the loaded volume", "[pnm][volume_store][io]") {
  const fs::path folder = gp::test::scratch_dir("volume-stream");
  const gp::io::Dims3 d{21, 17, 30};
  std::string bytes;
  for (std::size_t i = 0; i < d.voxels(); ++i) {
    const std::uint16_t v = std::uint16_t((i * 7919u) % 4096u);
    bytes.append(reinterpret_cast<const char*>(&v), 2);
  }
  const fs::path raw = folder / "scan.raw";
  std::ofstream(raw, std::ios::binary) << bytes;
  gp::io::VolumeReadOptions o;
  o.raw.dims = d;
  o.raw.dtype = "uint16";
  o.slope = 0.5;
  o.intercept = -10;
  SECTION("whole") {}
  SECTION("cropped and downsampled") {
    o.crop_begin = {1, 2, 3};
    o.crop_size = {18, 12, 24};
    o.downsample = 2;
  }
  const gp::io::Volume loaded = gp::io::read_volume({raw.string()}, o);
  const auto stream = gp::io::open_volume({raw.string()}, o);
  REQUIRE(stream->header().dims == loaded.dims);
  CHECK(stream->header().values.empty());
  CHECK(stream->header().origin == loaded.origin);
  const auto store = VolumeStore<float>::from_stream(*stream);
  std::vector<float> slab(3 * loaded.dims.slice_voxels());
  store.read_slices(2, 5, slab.data());
  CHECK(std::equal(slab.begin(), slab.end(), loaded.values.begin() + std::ptrdiff_t(2 * loaded.dims.slice_voxels())));
  CHECK_THROWS_AS(store.read(1, 5, slab.data()), gp::Error);  // whole slices only
  const auto mid = gp::pnm::MidSlices<float>::gather(store);
  const auto mid_loaded = gp::pnm::MidSlices<float>::gather(VolumeStore<float>::borrow(loaded.values.data(), loaded.dims));
  for (int k = 0; k < 3; ++k) CHECK(mid.planes[k] == mid_loaded.planes[k]);
}
