// read_volume: raw files, TIFF stacks and multi-page TIFF, crop and downsample, format detection,
// and the committed segment-pnm sample against its truth.
#include <catch2/catch.hpp>

#include <OpenImageIO/imageio.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "io/volume_reader.hpp"
#include "io/volume_samples.hpp"
#include "support/test_data.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using gp::io::Dims3;
using gp::io::read_volume;
using gp::io::Volume;
using gp::io::VolumeReadOptions;

namespace {

using gp::test::pattern;

// A raw file of `dims` in `dtype` after `header` bytes (volume_samples.hpp).
std::string write_raw(const fs::path& path, Dims3 d, const std::string& dtype, bool big_endian, std::size_t header) {
  std::ofstream(path, std::ios::binary) << std::string(header, 'H') + gp::test::pattern_samples(d, dtype, big_endian);
  return path.string();
}

VolumeReadOptions raw_options(Dims3 dims, const std::string& dtype, bool big_endian = false, std::uint64_t header = 0) {
  VolumeReadOptions o;
  o.raw.dims = dims;
  o.raw.dtype = dtype;
  o.raw.big_endian = big_endian;
  o.raw.header_bytes = header;
  o.threads = 3;
  return o;
}

std::string load_error(const std::vector<std::string>& paths, const VolumeReadOptions& options) {
  return gp::test::volume_load_error(paths, options);
}

void write_tiff_page(const std::string& path, int w, int h, OIIO::TypeDesc type, const std::vector<float>& values) {
  auto out = OIIO::ImageOutput::create(path);
  REQUIRE(out);
  REQUIRE(out->open(path, OIIO::ImageSpec(w, h, 1, type)));
  // Integer outputs take float input as 0..1; write the stored values in the file's own type.
  std::vector<std::uint16_t> words(values.begin(), values.end());
  const bool written = type == OIIO::TypeDesc::UINT16 ? out->write_image(type, words.data())
                                                      : out->write_image(OIIO::TypeDesc::FLOAT, values.data());
  REQUIRE(written);
  REQUIRE(out->close());
}

std::vector<float> page_values(int w, int h, int z) {
  std::vector<float> v;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) v.push_back(float(pattern(x, y, z) + 20));
  return v;
}

}  // namespace

TEST_CASE("raw volumes: every dtype, both byte orders, a header, slope and intercept", "[io][volume]") {
  const auto dir = gp::test::scratch_dir("raw-dtypes");
  const Dims3 dims{5, 4, 3};
  for (const char* dtype : {"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "float64"})
    for (bool big_endian : {false, true}) {
      DYNAMIC_SECTION(dtype << (big_endian ? " big-endian" : " little-endian")) {
        const std::string path = write_raw(dir / (std::string(dtype) + (big_endian ? ".be" : ".le")), dims, dtype, big_endian, 10);
        VolumeReadOptions o = raw_options(dims, dtype, big_endian, 10);
        o.format = "raw";
        o.slope = 2;
        o.intercept = -3;
        o.spacing = {0.1, 0.2, 0.3};
        o.spacing_given = true;
        const Volume v = read_volume({path}, o);
        REQUIRE(v.dims == dims);
        CHECK(v.spacing == gp::io::Spacing3{0.1, 0.2, 0.3});
        const double offset = dtype[0] == 'u' ? 20 : 0;
        for (int z = 0; z < 3; ++z)
          for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 5; ++x) REQUIRE(v.at(x, y, z) == float((pattern(x, y, z) + offset) * 2 - 3));
        CHECK_THAT(v.description, Contains(std::string("raw ") + dtype));
      }
    }
}

TEST_CASE("raw volumes: size checks and format detection", "[io][volume]") {
  const auto dir = gp::test::scratch_dir("raw-checks");
  const std::string path = write_raw(dir / "v.bin", {4, 4, 4}, "int16", false, 0);
  // Auto picks raw for one unknown file when its dims are given.
  CHECK(read_volume({path}, raw_options({4, 4, 4}, "int16")).dims == Dims3{4, 4, 4});
  // Also when its first bytes happen to look like a DICOM dataset without preamble (group 0008).
  {
    std::string bytes = {8, 0, 5, 0};
    bytes.resize(4 * 4 * 4 * 2, '\0');
    std::ofstream(dir / "dicom-like.raw", std::ios::binary) << bytes;
    const Volume v = read_volume({(dir / "dicom-like.raw").string()}, raw_options({4, 4, 4}, "int16"));
    CHECK(v.values[0] == 8);
    CHECK(v.values[1] == 5);
  }
  CHECK_THAT(load_error({path}, raw_options({4, 4, 5}, "int16")), Contains("needs 160"));
  CHECK_THAT(load_error({path}, raw_options({4, 4, 4}, "int12")), Contains("unknown raw dtype"));
  CHECK_THAT(load_error({path}, VolumeReadOptions{}), Contains("neither DICOM, TIFF, NRRD nor MetaImage"));
  CHECK_THAT(load_error({(dir / "missing.raw").string()}, VolumeReadOptions{}), Contains("no such file"));
}

TEST_CASE("crop and downsample: block means, spacing and origin, any thread count", "[io][volume]") {
  const auto dir = gp::test::scratch_dir("crop");
  const Dims3 dims{10, 9, 8};
  const std::string path = write_raw(dir / "v.raw", dims, "float32", false, 0);
  VolumeReadOptions o = raw_options(dims, "float32");
  o.spacing = {0.5, 1, 2};
  o.spacing_given = true;

  SECTION("crop") {
    o.crop_begin = {1, 2, 3};
    o.crop_size = {6, 0, 4};  // 0: to the end
    const Volume v = read_volume({path}, o);
    REQUIRE(v.dims == Dims3{6, 7, 4});
    for (int z = 0; z < 4; ++z)
      for (int y = 0; y < 7; ++y)
        for (int x = 0; x < 6; ++x) REQUIRE(v.at(x, y, z) == float(pattern(x + 1, y + 2, z + 3)));
    CHECK(v.origin == std::array<double, 3>{0.5, 2, 6});
    CHECK_THAT(v.description, Contains("cropped to 6x7x4 at (1, 2, 3)"));
  }
  SECTION("crop then downsample by 2, remainder dropped") {
    o.crop_begin = {1, 2, 1};
    o.crop_size = {7, 6, 5};  // 3x3x2 blocks; x and z remainders dropped
    o.downsample = 2;
    for (int threads : {1, 2, 5}) {
      o.threads = threads;
      const Volume v = read_volume({path}, o);
      REQUIRE(v.dims == Dims3{3, 3, 2});
      CHECK(v.spacing == gp::io::Spacing3{1, 2, 4});
      CHECK(v.origin[0] == Approx((1 + 0.5) * 0.5));
      CHECK(v.origin[2] == Approx((1 + 0.5) * 2));
      for (int z = 0; z < 2; ++z)
        for (int y = 0; y < 3; ++y)
          for (int x = 0; x < 3; ++x) {
            double sum = 0;
            for (int k = 0; k < 2; ++k)
              for (int j = 0; j < 2; ++j)
                for (int i = 0; i < 2; ++i) sum += pattern(1 + 2 * x + i, 2 + 2 * y + j, 1 + 2 * z + k);
            REQUIRE(v.at(x, y, z) == float(sum / 8));
          }
      CHECK_THAT(v.description, Contains("downsampled x2"));
    }
  }
  SECTION("regions outside the volume are refused") {
    o.crop_begin = {0, 0, 8};
    CHECK_THAT(load_error({path}, o), Contains("outside the volume's 8 voxels along z"));
    o.crop_begin = {2, 0, 0};
    o.crop_size = {9, 0, 0};
    CHECK_THAT(load_error({path}, o), Contains("goes past"));
    o.crop_size = {1, 0, 0};
    o.downsample = 2;
    CHECK_THAT(load_error({path}, o), Contains("smaller than the downsample factor"));
  }
}

TEST_CASE("TIFF stack: files in natural name order, other files skipped", "[io][volume][tiff]") {
  const auto dir = gp::test::scratch_dir("tiff-stack");
  const int w = 6, h = 5, n = 11;
  for (int z = 0; z < n; ++z)  // slice1.tif ... slice11.tif: "slice10" sorts after "slice9"
    write_tiff_page((dir / ("slice" + std::to_string(z + 1) + ".tif")).string(), w, h, OIIO::TypeDesc::UINT16,
                    page_values(w, h, z));
  std::ofstream(dir / "notes.txt") << "stack exported by a scanner\n";
  VolumeReadOptions o;
  o.spacing = {0.01, 0.01, 0.02};
  o.spacing_given = true;
  o.slope = 0.5;
  o.threads = 3;
  const Volume v = read_volume({dir.string()}, o);
  REQUIRE(v.dims == Dims3{w, h, n});
  CHECK(v.spacing == o.spacing);
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) REQUIRE(v.at(x, y, z) == float((pattern(x, y, z) + 20) * 0.5));
  CHECK(v.description == "TIFF stack, 11 files, uint16, skipped 1 other file");

  SECTION("a page of another size") {
    write_tiff_page((dir / "slice12.tif").string(), w + 1, h, OIIO::TypeDesc::UINT16, page_values(w + 1, h, 0));
    const std::string what = load_error({dir.string()}, o);
    CHECK_THAT(what, Contains("slice12.tif"));
    CHECK_THAT(what, Contains("is 7x5"));
  }
}

TEST_CASE("multi-page TIFF: pages are slices", "[io][volume][tiff]") {
  const auto dir = gp::test::scratch_dir("tiff-pages");
  const std::string path = (dir / "stack.tif").string();
  const int w = 4, h = 4, n = 6;
  {
    auto out = OIIO::ImageOutput::create(path);
    REQUIRE(out);
    REQUIRE(out->supports("multiimage"));
    const OIIO::ImageSpec spec(w, h, 1, OIIO::TypeDesc::FLOAT);
    std::vector<OIIO::ImageSpec> specs(n, spec);
    REQUIRE(out->open(path, n, specs.data()));
    for (int z = 0; z < n; ++z) {
      if (z > 0) REQUIRE(out->open(path, spec, OIIO::ImageOutput::AppendSubimage));
      std::vector<float> values = page_values(w, h, z);
      for (float& value : values) value -= 20.25f;  // negative and fractional values stay as they are
      REQUIRE(out->write_image(OIIO::TypeDesc::FLOAT, values.data()));
    }
    REQUIRE(out->close());
  }
  VolumeReadOptions o;
  o.threads = 2;
  const Volume v = read_volume({path}, o);
  REQUIRE(v.dims == Dims3{w, h, n});
  CHECK(v.spacing == gp::io::Spacing3{1, 1, 1});
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) REQUIRE(v.at(x, y, z) == float(pattern(x, y, z) - 0.25));
  CHECK(v.description == "multi-page TIFF, 6 pages, float");

  o.downsample = 2;
  const Volume half = read_volume({path}, o);
  REQUIRE(half.dims == Dims3{2, 2, 3});
  double sum = 0;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i) sum += pattern(2 + i, j, 4 + k) - 0.25;
  CHECK(half.at(1, 0, 2) == float(sum / 8));
}

TEST_CASE("committed pnm sample matches its truth", "[io][volume][dicom]") {
  const std::string folder = gp::test::source_path("data-samples/pnm/foam");
  std::ifstream truth_file(gp::test::source_path("data-samples/pnm/foam-truth.json"));
  const auto truth = nlohmann::json::parse(truth_file);
  const Volume v = read_volume({folder}, VolumeReadOptions{});
  REQUIRE(v.dims == Dims3{truth["dims"][0].get<int>(), truth["dims"][1].get<int>(), truth["dims"][2].get<int>()});
  CHECK(v.spacing.x == Approx(truth["spacing_mm"][0].get<double>()));
  CHECK(v.spacing.y == Approx(truth["spacing_mm"][1].get<double>()));
  CHECK(v.spacing.z == Approx(truth["spacing_mm"][2].get<double>()));
  CHECK_THAT(v.description, Contains("DICOM series, 80 slices, CT"));

  // Every value is intercept + slope * integer: the reader applied the truth's rescale.
  const double slope = truth["dicom"]["slope"], intercept = truth["dicom"]["intercept"];
  std::size_t below = 0;
  for (float value : v.values) {
    const double stored = (value - intercept) / slope;
    REQUIRE(stored == std::round(stored));
    below += value < -300;
  }
  const double porosity = double(below) / double(v.values.size());
  CHECK(porosity == Approx(truth["porosity"].get<double>()).margin(0.01));
  // Air about -1000, solid about +300..+700.
  CHECK(*std::min_element(v.values.begin(), v.values.end()) < -1050);
  CHECK(*std::max_element(v.values.begin(), v.values.end()) > 600);
}
