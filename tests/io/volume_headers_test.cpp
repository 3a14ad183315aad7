// NRRD and MetaImage volumes (headers parsed by io/volume_headers), size checks from the header
// before anything is read, single-slice refusal and TIFF stack checks.
#include <catch2/catch.hpp>

#include <OpenImageIO/imageio.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "io/volume_reader.hpp"
#include "pnm/network_writers.hpp"
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

std::string samples(Dims3 d, const std::string& dtype, bool big_endian) { return gp::test::pattern_samples(d, dtype, big_endian); }

// gzip (window bits 31) or zlib (15) stream of `bytes`.
std::string deflated(const std::string& bytes, bool gzip) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, gzip ? 31 : 15, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, uLong(bytes.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = uInt(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

void write_file(const fs::path& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

void check_pattern(const Volume& v, Dims3 d, double offset) {
  REQUIRE(v.dims == d);
  for (int z = 0; z < d.nz; ++z)
    for (int y = 0; y < d.ny; ++y)
      for (int x = 0; x < d.nx; ++x) REQUIRE(v.at(x, y, z) == float(pattern(x, y, z) + offset));
}

VolumeReadOptions options(int threads = 3) {
  VolumeReadOptions o;
  o.threads = threads;
  return o;
}

std::string load_error(const std::vector<std::string>& paths, const VolumeReadOptions& o) {
  return gp::test::volume_load_error(paths, o);
}

}  // namespace

TEST_CASE("NRRD: every type, both byte orders, raw and gzip, attached and detached", "[io][volume][nrrd]") {
  const auto dir = gp::test::scratch_dir("nrrd-types");
  const Dims3 d{5, 4, 3};
  for (const char* type : {"uint8", "int8", "uint16", "int16", "uint32", "int32", "float", "double"})
    for (bool big_endian : {false, true})
      for (const char* encoding : {"raw", "gzip"})
        for (bool detached : {false, true}) {
          DYNAMIC_SECTION(type << (big_endian ? " big" : " little") << " " << encoding << (detached ? " detached" : "")) {
            const std::string data = samples(d, type, big_endian);
            const std::string stored = std::string(encoding) == "gzip" ? deflated(data, true) : data;
            std::string header = std::string("NRRD0004\n# a comment\ntype: ") + type +
                                 "\ndimension: 3\nsizes: 5 4 3\nendian: " + (big_endian ? "big" : "little") +
                                 "\nencoding: " + encoding + "\nspacings: 0.5 0.25 2\n";
            fs::path path = dir / (std::string(type) + (big_endian ? "-be-" : "-le-") + encoding + (detached ? ".nhdr" : ".nrrd"));
            if (detached) {
              write_file(fs::path(path).replace_extension(".data"), stored);
              header += "data file: " + fs::path(path).replace_extension(".data").filename().string() + "\n";
              write_file(path, header);  // a detached header may end without the blank line
            } else {
              write_file(path, header + "\n" + stored);
            }
            const Volume v = read_volume({path.string()}, options());
            check_pattern(v, d, type[0] == 'u' ? 20 : 0);
            CHECK(v.spacing == gp::io::Spacing3{0.5, 0.25, 2});
            CHECK_THAT(v.description, Contains("NRRD"));
          }
        }
}

TEST_CASE("NRRD: space directions, origin, units, byte and line skips", "[io][volume][nrrd]") {
  const auto dir = gp::test::scratch_dir("nrrd-space");
  const Dims3 d{4, 3, 5};
  const std::string data = samples(d, "int16", false);
  const std::string common = "NRRD0005\ntype: short\ndimension: 3\nsizes: 4 3 5\nendian: little\n";

  SECTION("LPS with oblique directions and a byte skip") {
    const fs::path path = dir / "oblique.nrrd";
    write_file(path, common +
                         "encoding: raw\nspace: left-posterior-superior\nspace directions: (0.3,0.4,0) (0,0,-0.25) "
                         "(-1.6,1.2,0)\nspace origin: (-1.5,2,3.25)\nspace units: \"mm\" \"mm\" \"mm\"\nbyte skip: 7\n"
                         "kinds: domain domain domain\nfoo:=bar\n\n" +
                         std::string(7, 'x') + data);
    const Volume v = read_volume({path.string()}, options());
    check_pattern(v, d, 0);
    CHECK(v.spacing.x == Approx(0.5));
    CHECK(v.spacing.y == Approx(0.25));
    CHECK(v.spacing.z == Approx(2));
    CHECK(v.direction[0][0] == Approx(0.6));
    CHECK(v.direction[0][1] == Approx(0.8));
    CHECK(v.direction[1][2] == Approx(-1));
    CHECK(v.direction[2][0] == Approx(-0.8));
    CHECK(v.origin == std::array<double, 3>{-1.5, 2, 3.25});
    CHECK(v.lps);
    CHECK(v.length_unit == "mm");
  }
  SECTION("RAS is turned into LPS") {
    const fs::path path = dir / "ras.nrrd";
    write_file(path, common + "encoding: raw\nspace: RAS\nspace directions: (2,0,0) (0,3,0) (0,0,4)\nspace origin: (10,20,30)\n\n" + data);
    const Volume v = read_volume({path.string()}, options());
    CHECK(v.direction[0] == std::array<double, 3>{-1, -0.0, 0});
    CHECK(v.direction[1][1] == -1);
    CHECK(v.direction[2][2] == 1);
    CHECK(v.origin == std::array<double, 3>{-10, -20, 30});
    CHECK(v.spacing == gp::io::Spacing3{2, 3, 4});
  }
  SECTION("detached with a line skip and byte skip -1 (data at the end)") {
    write_file(dir / "scan.pgm", "P5\n4 15\n65535\n" + data);
    const fs::path path = dir / "skip.nhdr";
    write_file(path, common + "encoding: raw\ndata file: scan.pgm\nbyte skip: -1\n\n");
    check_pattern(read_volume({path.string()}, options()), d, 0);
    write_file(path, common + "encoding: raw\ndatafile: ./scan.pgm\nlineskip: 3\n\n");
    check_pattern(read_volume({path.string()}, options()), d, 0);
  }
}

TEST_CASE("NRRD: a volume written by write_volume_nrrd reads back exactly", "[io][volume][nrrd]") {
  const auto dir = gp::test::scratch_dir("nrrd-own");
  gp::pnm::LabelVolumeInfo info;
  info.dims = {37, 21, 9};
  info.spacing = {0.02, 0.03, 0.05};
  info.origin = {1.25, -7, 100.5};
  info.lps = true;
  info.direction = {{{0.6, 0.8, 0}, {0, 0, -1}, {-0.8, 0.6, 0}}};
  std::vector<std::uint32_t> labels(info.dims.voxels());
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = std::uint32_t((i * 2654435761u) % 1000);
  std::vector<float> distance(labels.size());
  for (std::size_t i = 0; i < distance.size(); ++i) distance[i] = float(i) * 0.001f - 3;
  const std::string labels_path = (dir / "labels.nrrd").string(), distance_path = (dir / "distance.nrrd").string();
  // Labels below 1000: written as uint16 (the smallest type that holds them).
  gp::pnm::write_labels_nrrd(labels_path, labels.data(), info, 999);
  gp::pnm::write_volume_nrrd(distance_path, distance.data(), gp::pnm::nrrd_type<float>(), info, "distance",
                             gp::pnm::VolumeEncoding{true, 1});
  const std::string raw_labels_path = (dir / "labels-raw.nrrd").string();
  gp::pnm::write_labels_nrrd(raw_labels_path, labels.data(), info, 999, gp::pnm::VolumeEncoding{false, 1},
                             gp::pnm::LabelsType::uint32);
  for (const auto& path : {labels_path, distance_path, raw_labels_path}) {
    const Volume v = read_volume({path}, options());
    REQUIRE(v.dims == info.dims);
    for (std::size_t i = 0; i < labels.size(); ++i)
      REQUIRE(v.values[i] == (path == distance_path ? distance[i] : float(labels[i])));
    CHECK(v.spacing.x == Approx(info.spacing.x));
    CHECK(v.spacing.y == Approx(info.spacing.y));
    CHECK(v.spacing.z == Approx(info.spacing.z));
    CHECK(v.origin == info.origin);
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c) CHECK(v.direction[a][c] == Approx(info.direction[a][c]).margin(1e-12));
    CHECK(v.lps);
  }
  // A label volume big enough for several 16 MiB gzip members (the writer compresses in parallel).
  info.dims = {256, 256, 70};
  info.direction = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  labels.assign(info.dims.voxels(), 0);
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = std::uint32_t(i / 1000);
  gp::pnm::write_labels_nrrd(labels_path, labels.data(), info, labels.back());
  const Volume big = read_volume({labels_path}, options());
  REQUIRE(big.dims == info.dims);
  for (std::size_t i = 0; i < labels.size(); ++i) REQUIRE(big.values[i] == float(labels[i]));
}

TEST_CASE("NRRD and MetaImage: bad headers and short data are clear errors", "[io][volume][nrrd][metaimage]") {
  const auto dir = gp::test::scratch_dir("nrrd-bad");
  const Dims3 d{4, 4, 4};
  const std::string data = samples(d, "uint16", false);
  const std::string head = "NRRD0004\ntype: uint16\ndimension: 3\nsizes: 4 4 4\nendian: little\n";
  auto error_of = [&](const std::string& name, const std::string& bytes) {
    write_file(dir / name, bytes);
    return load_error({(dir / name).string()}, options());
  };
  // Raw data shorter than the sizes: file, expected and actual bytes.
  const std::string raw_head = head + "encoding: raw\n\n";
  std::string what = error_of("short.nrrd", raw_head + data.substr(0, 100));
  CHECK_THAT(what, Contains("short.nrrd"));
  CHECK_THAT(what, Contains("has " + std::to_string(raw_head.size() + 100) + " bytes"));
  CHECK_THAT(what, Contains("needs " + std::to_string(raw_head.size() + 128)));
  // gzip data that ends early.
  what = error_of("short-gz.nrrd", head + "encoding: gzip\n\n" + deflated(data.substr(0, 100), true));
  CHECK_THAT(what, Contains("short-gz.nrrd"));
  CHECK_THAT(what, Contains("after 100 bytes"));
  CHECK_THAT(what, Contains("needs 128"));
  what = error_of("cut-gz.nrrd", head + "encoding: gzip\n\n" + deflated(data, true).substr(0, 20));
  CHECK_THAT(what, Contains("cut off"));
  CHECK_THAT(error_of("type.nrrd", "NRRD0004\ntype: block\ndimension: 3\nsizes: 4 4 4\nencoding: raw\n\n"),
             Contains("type: 'block' is not supported"));
  CHECK_THAT(error_of("enc.nrrd", head + "encoding: bzip2\n\n"), Contains("encoding: 'bzip2' is not supported"));
  CHECK_THAT(error_of("dim.nrrd", "NRRD0004\ntype: uint8\ndimension: 4\nsizes: 3 4 4 4\nencoding: raw\n\n"),
             Contains("dimension: 4 is not supported"));
  CHECK_THAT(error_of("sizes.nrrd", "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 4 x 4\nencoding: raw\n\n"),
             Contains("sizes: 'x' is not a number"));
  CHECK_THAT(error_of("endian.nrrd", "NRRD0004\ntype: uint16\ndimension: 3\nsizes: 4 4 4\nencoding: raw\n\n"),
             Contains("no 'endian' field"));
  CHECK_THAT(error_of("list.nhdr", head + "encoding: raw\ndata file: LIST\n\n"), Contains("one file only"));
  CHECK_THAT(error_of("missing.mhd", "ObjectType = Image\nNDims = 3\nDimSize = 4 4 4\nElementType = MET_USHORT\n"
                                     "ElementDataFile = nowhere.raw\n"),
             Contains("nowhere.raw"));
  CHECK_THAT(error_of("short.mhd", "NDims = 3\nDimSize = 4 4 4\nElementType = MET_USHORT\nElementDataFile = LOCAL\n" +
                                       data.substr(0, 10)),
             Contains("needs"));
  CHECK_THAT(error_of("rgb.mha", "NDims = 3\nDimSize = 4 4 4\nElementNumberOfChannels = 3\nElementType = MET_UCHAR\n"
                                 "ElementDataFile = LOCAL\n"),
             Contains("one channel"));
}

TEST_CASE("MetaImage: .mhd with raw and compressed data, .mha with LOCAL data", "[io][volume][metaimage]") {
  const auto dir = gp::test::scratch_dir("metaimage");
  const Dims3 d{6, 5, 4};
  const std::pair<const char*, const char*> types[] = {{"MET_UCHAR", "uint8"}, {"MET_CHAR", "int8"},
                                                       {"MET_USHORT", "uint16"}, {"MET_SHORT", "int16"},
                                                       {"MET_UINT", "uint32"}, {"MET_INT", "int32"},
                                                       {"MET_FLOAT", "float"}, {"MET_DOUBLE", "double"}};
  for (const auto& [met, type] : types)
    for (bool msb : {false, true})
      for (bool compressed : {false, true})
        for (bool local : {false, true}) {
          DYNAMIC_SECTION(met << (msb ? " MSB" : "") << (compressed ? " compressed" : "") << (local ? " mha" : " mhd")) {
            const std::string data = samples(d, type, msb);
            const std::string stored = compressed ? deflated(data, false) : data;
            const std::string name = std::string(met) + (msb ? "-msb" : "") + (compressed ? "-z" : "");
            std::string header = std::string("ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = ") +
                                 (msb ? "True" : "False") + "\nCompressedData = " + (compressed ? "True" : "False") +
                                 "\nTransformMatrix = 0 1 0 -1 0 0 0 0 1\nOffset = 1.5 -2 7\nCenterOfRotation = 0 0 0\n"
                                 "AnatomicalOrientation = RAI\nElementSpacing = 0.5 0.75 1.25\nDimSize = 6 5 4\n"
                                 "ElementType = " + met + "\n";
            fs::path path = dir / (name + (local ? ".mha" : ".mhd"));
            if (local) {
              write_file(path, header + "ElementDataFile = LOCAL\n" + stored);
            } else {
              write_file(dir / (name + (compressed ? ".zraw" : ".raw")), stored);
              write_file(path, header + "ElementDataFile = " + name + (compressed ? ".zraw" : ".raw") + "\n");
            }
            const Volume v = read_volume({path.string()}, options());
            check_pattern(v, d, type[0] == 'u' ? 20 : 0);
            CHECK(v.spacing.x == Approx(0.5));
            CHECK(v.spacing.y == Approx(0.75));
            CHECK(v.spacing.z == Approx(1.25));
            CHECK(v.direction[0] == std::array<double, 3>{0, 1, 0});
            CHECK(v.direction[1] == std::array<double, 3>{-1, 0, 0});
            CHECK(v.origin == std::array<double, 3>{1.5, -2, 7});
            CHECK(v.length_unit == "mm");
            CHECK_THAT(v.description, Contains("MetaImage"));
          }
        }
}

TEST_CASE("a folder holding one NRRD or MetaImage volume is that volume", "[io][volume][metaimage]") {
  const auto dir = gp::test::scratch_dir("metaimage-folder");
  const Dims3 d{3, 3, 3};
  write_file(dir / "scan.raw", samples(d, "int16", false));
  write_file(dir / "scan.mhd", "NDims = 3\nDimSize = 3 3 3\nElementType = MET_SHORT\nElementDataFile = scan.raw\n");
  check_pattern(read_volume({dir.string()}, options()), d, 0);
  write_file(dir / "other.nrrd", "NRRD0004\ntype: int16\ndimension: 3\nsizes: 3 3 3\nendian: little\nencoding: raw\n\n" +
                                     samples(d, "int16", false));
  CHECK_THAT(load_error({dir.string()}, options()), Contains("give each file as an input of its own"));
}

TEST_CASE("size limits are checked from the header before anything is read", "[io][volume]") {
  const auto dir = gp::test::scratch_dir("size-limits");
  // A raw file of 2^40 bytes (sparse: nothing is written) holding 4096 x 4096 x 65536 uint8: its
  // values would need 4 TiB. Before, it was read and converted until the allocation failed.
  const fs::path big = dir / "huge.raw";
  { std::ofstream(big, std::ios::binary); }
  fs::resize_file(big, std::uint64_t(1) << 40);
  VolumeReadOptions o = options();
  o.format = "raw";
  o.raw.dims = {4096, 4096, 65536};
  o.raw.dtype = "uint8";
  std::string what = load_error({big.string()}, o);
  CHECK_THAT(what, Contains("huge.raw"));
  CHECK_THAT(what, Contains("4096x4096x65536"));
  CHECK_THAT(what, Contains("host memory"));
  o.max_voxels = 1000;
  o.max_voxels_reason = "a test's limit";
  what = load_error({big.string()}, o);
  CHECK_THAT(what, Contains("over the limit of 1000 (a test's limit)"));
  o.crop_size = {10, 10, 10};  // a crop under the limit is read
  CHECK(read_volume({big.string()}, o).dims == Dims3{10, 10, 10});
  fs::remove(big);

  // A gzip NRRD claiming 2^21 cubed voxels: refused from its header, the stream is never inflated.
  write_file(dir / "claim.nrrd", "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 2097152 2097152 2097152\nencoding: gzip\n\n" +
                                     deflated("abc", true));
  what = load_error({(dir / "claim.nrrd").string()}, options());
  CHECK_THAT(what, Contains("claim.nrrd"));
  CHECK_THAT(what, Contains("host memory"));
}

TEST_CASE("a single slice is refused when the caller needs a volume", "[io][volume]") {
  const auto dir = gp::test::scratch_dir("single-slice");
  const fs::path path = dir / "slice.nrrd";
  write_file(path, "NRRD0004\ntype: uint8\ndimension: 2\nsizes: 4 3\nencoding: raw\n\n" + std::string(12, '\x05'));
  VolumeReadOptions o = options();
  CHECK(read_volume({path.string()}, o).dims == Dims3{4, 3, 1});  // by default a slice is a 1-slice volume
  o.single_slice_refusal = "a pore network needs a 3D volume";
  CHECK_THAT(load_error({path.string()}, o), Contains("a pore network needs a 3D volume; got 1 slice from " + path.string()));
  {
    auto out = OIIO::ImageOutput::create((dir / "page.tif").string());
    REQUIRE(out);
    REQUIRE(out->open((dir / "page.tif").string(), OIIO::ImageSpec(4, 3, 1, OIIO::TypeDesc::UINT8)));
    std::vector<std::uint8_t> pixels(12, 7);
    REQUIRE(out->write_image(OIIO::TypeDesc::UINT8, pixels.data()));
    REQUIRE(out->close());
  }
  CHECK_THAT(load_error({(dir / "page.tif").string()}, o), Contains("got 1 slice from"));
}

TEST_CASE("TIFF stack: a missing slice file, or one of another sample type, is refused naming it", "[io][volume][tiff]") {
  const auto dir = gp::test::scratch_dir("tiff-gaps");
  auto page = [&](const std::string& name, OIIO::TypeDesc type) {
    const std::string path = (dir / name).string();
    auto out = OIIO::ImageOutput::create(path);
    REQUIRE(out);
    REQUIRE(out->open(path, OIIO::ImageSpec(4, 3, 1, type)));
    std::vector<float> values(12, 0.5f);
    REQUIRE(out->write_image(OIIO::TypeDesc::FLOAT, values.data()));
    REQUIRE(out->close());
  };
  for (int i : {0, 1, 2, 3, 5, 6}) page("scan_" + std::string(i < 10 ? "000" : "00") + std::to_string(i) + ".tif", OIIO::TypeDesc::UINT16);
  std::string what = load_error({dir.string()}, options());
  CHECK_THAT(what, Contains("scan_0005.tif"));
  CHECK_THAT(what, Contains("1 slice file missing"));
  CHECK_THAT(what, Contains("scan_0003.tif"));
  page("scan_0004.tif", OIIO::TypeDesc::FLOAT);
  what = load_error({dir.string()}, options());
  CHECK_THAT(what, Contains("scan_0004.tif"));
  CHECK_THAT(what, Contains("sample type"));
  page("scan_0004.tif", OIIO::TypeDesc::UINT16);
  CHECK(read_volume({dir.string()}, options()).dims == Dims3{4, 3, 7});
}
