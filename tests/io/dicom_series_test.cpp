// DICOM series and multi-frame objects: written with io/dicom_writer, read back with read_volume.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcpixel.h>
#include <dcmtk/dcmdata/dcpixseq.h>
#include <dcmtk/dcmdata/dcpxitem.h>

#include "core/error.hpp"
#include "io/dicom_writer.hpp"
#include "io/j2k_codec.hpp"
#include "io/volume_reader.hpp"
#include "io/dicom_bytes.hpp"
#include "support/test_data.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using gp::io::DicomWriteOptions;
using gp::io::read_volume;
using gp::io::Volume;
using gp::io::VolumeReadOptions;
using gp::io::write_dicom;

namespace {

// Values that survive int16 storage with slope 0.5 / intercept -1024 exactly; negative stored values too.
Volume ramp(int nx, int ny, int nz, gp::io::Spacing3 spacing = {0.3, 0.4, 0.7}, std::array<double, 3> origin = {5, -3, 10}) {
  Volume v;
  v.dims = {nx, ny, nz};
  v.spacing = spacing;
  v.origin = origin;
  v.values.resize(v.dims.voxels());
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) v.values[v.index(x, y, z)] = float(-1024 + 0.5 * (x + 10 * y + 100 * z - 300));
  return v;
}

DicomWriteOptions hu_options() {
  DicomWriteOptions o;
  o.slope = 0.5;
  o.intercept = -1024;
  o.threads = 3;
  return o;
}

// Renames the files to names whose order has nothing to do with the slices'.
void shuffle_names(const std::vector<std::string>& files) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::size_t scrambled = (i * 7 + 3) % 101;
    fs::rename(files[i], fs::path(files[i]).parent_path() / ("IM" + std::to_string(scrambled)));
  }
}

VolumeReadOptions read_options(int threads = 3) {
  VolumeReadOptions o;
  o.threads = threads;
  return o;
}

void require_same_values(const Volume& a, const Volume& b) {
  REQUIRE(a.dims == b.dims);
  for (std::size_t i = 0; i < a.values.size(); ++i)
    if (a.values[i] != b.values[i]) FAIL("voxel " << i << ": " << a.values[i] << " != " << b.values[i]);
}

std::string load_error(const std::vector<std::string>& paths) {
  try {
    read_volume(paths, read_options());
  } catch (const gp::ItemError& e) {
    CHECK(e.stage() == "load");
    return e.what();
  }
  FAIL("no error");
  return {};
}

std::vector<char> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("DICOM series: values after slope/intercept, spacing from positions, shuffled names", "[io][dicom]") {
  const auto dir = gp::test::scratch_dir("dicom-series");
  const Volume original = ramp(12, 10, 7);
  const auto files = write_dicom(original, dir.string(), hu_options());
  REQUIRE(files.size() == 7);
  shuffle_names(files);

  const Volume read = read_volume({dir.string()}, read_options());
  require_same_values(read, original);
  CHECK(read.spacing.x == Approx(0.3));
  CHECK(read.spacing.y == Approx(0.4));
  CHECK(read.spacing.z == Approx(0.7));
  CHECK(read.origin[0] == Approx(5));
  CHECK(read.origin[1] == Approx(-3));
  CHECK(read.origin[2] == Approx(10));
  CHECK(read.description == "DICOM series, 7 slices, CT, explicit VR little endian");
}

TEST_CASE("DICOM series: slices ordered by position along the normal, not by InstanceNumber", "[io][dicom]") {
  const auto dir = gp::test::scratch_dir("dicom-order");
  DicomWriteOptions o = hu_options();
  o.first_instance_number = 50;
  o.instance_number_step = -3;  // instance numbers fall as positions rise
  // Rows along y, columns along x, normal -z: slice z sits at origin - z * spacing along patient z.
  o.orientation = {0, 1, 0, 1, 0, 0};
  const Volume original = ramp(6, 5, 6);
  shuffle_names(write_dicom(original, dir.string(), o));
  const Volume read = read_volume({dir.string()}, read_options());
  require_same_values(read, original);
  CHECK(read.spacing.z == Approx(0.7));
  CHECK(read.origin[2] == Approx(10));
}

TEST_CASE("DICOM series: without positions, InstanceNumber orders the slices", "[io][dicom]") {
  const auto dir = gp::test::scratch_dir("dicom-instance");
  DicomWriteOptions o = hu_options();
  o.write_positions = false;
  o.first_instance_number = 10;
  o.instance_number_step = 5;
  const Volume original = ramp(6, 5, 6);
  shuffle_names(write_dicom(original, dir.string(), o));
  const Volume read = read_volume({dir.string()}, read_options());
  require_same_values(read, original);
  CHECK(read.spacing.z == Approx(0.7));  // SliceThickness
  CHECK_THAT(read.description, Contains("ordered by InstanceNumber"));
}

TEST_CASE("DICOM multi-frame (Enhanced CT functional groups)", "[io][dicom]") {
  const auto dir = gp::test::scratch_dir("dicom-multiframe");
  DicomWriteOptions o = hu_options();
  o.multi_frame = true;
  const Volume original = ramp(9, 8, 6, {0.05, 0.05, 0.08}, {0, 0, 0});
  const auto files = write_dicom(original, dir.string(), o);
  REQUIRE(files.size() == 1);
  const Volume read = read_volume(files, read_options());
  require_same_values(read, original);
  CHECK(read.spacing.z == Approx(0.08));
  CHECK(read.spacing.x == Approx(0.05));
  CHECK(read.description == "DICOM multi-frame, 6 frames, CT, explicit VR little endian");

  SECTION("frames in file order without per-frame positions") {
    const auto dir2 = gp::test::scratch_dir("dicom-multiframe-nopos");
    o.write_positions = false;
    const Volume read2 = read_volume(write_dicom(original, dir2.string(), o), read_options());
    require_same_values(read2, original);
    CHECK(read2.spacing.z == Approx(0.08));
  }
}

TEST_CASE("DICOM compressed transfer syntaxes round-trip losslessly", "[io][dicom]") {
  const Volume original = ramp(17, 11, 5, {0.1, 0.1, 0.2}, {0, 0, 0});
  const std::pair<const char*, const char*> syntaxes[] = {
      {"rle", "RLE lossless"}, {"jpeg-ls", "JPEG-LS lossless"}, {"jpeg-lossless", "JPEG lossless SV1"}};
  for (const auto& [syntax, name] : syntaxes)
    for (bool multi_frame : {false, true}) {
      DYNAMIC_SECTION(syntax << (multi_frame ? " multi-frame" : " series")) {
        const auto dir = gp::test::scratch_dir(std::string("dicom-") + syntax);
        DicomWriteOptions o = hu_options();
        o.transfer_syntax = syntax;
        o.multi_frame = multi_frame;
        const auto files = write_dicom(original, dir.string(), o);
        const Volume read = read_volume({dir.string()}, read_options(2));
        require_same_values(read, original);
        CHECK_THAT(read.description, Contains(name));
      }
    }
}

TEST_CASE("DICOM NumberOfFrames beyond the pixel data is refused before anything is sized by it", "[io][dicom]") {
  for (const char* syntax : {"explicit", "rle"}) {
    DYNAMIC_SECTION(syntax) {
      const auto dir = gp::test::scratch_dir(std::string("dicom-frames-") + syntax);
      DicomWriteOptions o = hu_options();
      o.transfer_syntax = syntax;
      o.multi_frame = true;
      const auto files = write_dicom(ramp(6, 5, 4), dir.string(), o);
      DcmFileFormat file;
      REQUIRE(file.loadFile(files.front().c_str()).good());
      // A claim a header could make with a few bytes: two billion frames of 6x5.
      REQUIRE(file.getDataset()->putAndInsertString(DCM_NumberOfFrames, "2000000000").good());
      REQUIRE(file.saveFile(files.front().c_str()).good());
      const std::string what = load_error({dir.string()});
      CHECK_THAT(what, Contains("NumberOfFrames 2000000000 of 6x5"));
      CHECK_THAT(what, Contains(std::string(syntax) == "rle" ? "4 fragments" : "the file holds 240"));
      CHECK_THAT(what, Contains(fs::path(files.front()).filename().string()));
    }
  }
}

TEST_CASE("DICOM writer output is byte-identical run to run", "[io][dicom]") {
  const Volume original = ramp(8, 8, 4);
  for (const char* syntax : {"explicit", "rle", "jpeg-ls", "jpeg-lossless"}) {
    DicomWriteOptions o = hu_options();
    o.transfer_syntax = syntax;
    const auto a = write_dicom(original, gp::test::scratch_dir("dicom-same-a").string(), o);
    o.threads = 1;
    const auto b = write_dicom(original, gp::test::scratch_dir("dicom-same-b").string(), o);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      const bool same = file_bytes(a[i]) == file_bytes(b[i]);
      INFO(syntax << ": " << a[i] << " against " << b[i]);
      CHECK(same);
    }
  }
  const std::string uid = gp::io::deterministic_uid(1, 2, 3);
  CHECK(uid == gp::io::deterministic_uid(1, 2, 3));
  CHECK(uid != gp::io::deterministic_uid(1, 2, 4));
  CHECK(uid.rfind("2.25.", 0) == 0);
  CHECK(uid.size() <= 64);
}

TEST_CASE("DICOM inconsistent series are refused, naming the files", "[io][dicom]") {
  const auto dir = gp::test::scratch_dir("dicom-bad");
  const Volume original = ramp(6, 5, 6);
  DicomWriteOptions o = hu_options();
  const auto files = write_dicom(original, dir.string(), o);

  SECTION("several series") {
    o.seed = 2;
    o.file_prefix = "other";
    write_dicom(ramp(6, 5, 2), dir.string(), o);
    const std::string what = load_error({dir.string()});
    CHECK_THAT(what, Contains("2 series (SeriesInstanceUID)"));
    CHECK_THAT(what, Contains(gp::io::deterministic_uid(1, 2, 0)));
    CHECK_THAT(what, Contains(gp::io::deterministic_uid(2, 2, 0)));
    CHECK_THAT(what, Contains("other0001.dcm"));
  }
  SECTION("mixed sizes") {
    o.first_instance_number = 100;
    o.file_prefix = "small";
    write_dicom(ramp(4, 5, 2), dir.string(), o);
    const std::string what = load_error({dir.string()});
    CHECK_THAT(what, Contains("different sizes"));
    CHECK_THAT(what, Contains("6x5"));
    CHECK_THAT(what, Contains("4x5"));
    CHECK_THAT(what, Contains("small0001.dcm"));
  }
  SECTION("duplicate positions") {
    o.first_instance_number = 100;
    o.file_prefix = "again";
    Volume one = ramp(6, 5, 1);
    one.origin = {5, -3, 10 + 3 * 0.7};  // where slice 3 is
    write_dicom(one, dir.string(), o);
    const std::string what = load_error({dir.string()});
    CHECK_THAT(what, Contains("same slice position"));
    CHECK_THAT(what, Contains("again0001.dcm"));
    CHECK_THAT(what, Contains("slice0004.dcm"));
  }
  SECTION("a missing slice") {
    fs::remove(files[3]);
    const std::string what = load_error({dir.string()});
    CHECK_THAT(what, Contains("about 1 slice missing between"));
    CHECK_THAT(what, Contains("slice0003.dcm"));
    CHECK_THAT(what, Contains("slice0005.dcm"));
  }
  SECTION("non-uniform spacing") {
    for (int z = 3; z < 6; ++z) fs::remove(files[std::size_t(z)]);
    o.first_instance_number = 100;
    o.file_prefix = "far";
    Volume rest = ramp(6, 5, 3);
    rest.origin = {5, -3, 10 + 3.5 * 0.7};  // a gap of 1.5 spacings
    write_dicom(rest, dir.string(), o);
    const std::string what = load_error({dir.string()});
    CHECK_THAT(what, Contains("slice spacing is not uniform"));
    CHECK_THAT(what, Contains("slice0003.dcm and"));
    CHECK_THAT(what, Contains("far0001.dcm"));
  }
  SECTION("the same image twice") {
    fs::copy_file(files[2], dir / "copy.dcm");
    const std::string what = load_error({dir.string()});
    CHECK_THAT(what, Contains("are the same image"));
    CHECK_THAT(what, Contains("copy.dcm"));
  }
  SECTION("the same InstanceNumber and no positions") {
    const auto dir2 = gp::test::scratch_dir("dicom-bad-instance");
    for (const char* sop : {"1.2.7.1", "1.2.7.2"})
      gp::test::write_dicom_bytes((dir2 / sop).string(), "1.2.840.10008.5.1.4.1.1.2", sop,
                                  {{0x0008, 0x0018, "UI", sop},
                                   {0x0020, 0x000E, "UI", "1.2.7.100"},
                                   {0x0020, 0x0013, "IS", "4"},
                                   {0x0028, 0x0002, "US", gp::test::dicom_u16(1)},
                                   {0x0028, 0x0010, "US", gp::test::dicom_u16(1)},
                                   {0x0028, 0x0011, "US", gp::test::dicom_u16(2)},
                                   {0x0028, 0x0100, "US", gp::test::dicom_u16(16)},
                                   {0x7FE0, 0x0010, "OW", std::string(4, '\0')}});
    const std::string what = load_error({dir2.string()});
    CHECK_THAT(what, Contains("have the same InstanceNumber 4"));
    CHECK_THAT(what, Contains("1.2.7.1"));
    CHECK_THAT(what, Contains("1.2.7.2"));
  }
}

TEST_CASE("DICOM folder: other files and objects without pixel data are skipped", "[io][dicom]") {
  const auto dir = gp::test::scratch_dir("dicom-extra");
  const Volume original = ramp(6, 5, 4);
  const auto files = write_dicom(original, dir.string(), hu_options());
  std::ofstream(dir / "README") << "scanner export notes\n";
  gp::test::write_dicom_bytes((dir / "DICOMDIR").string(), "1.2.840.10008.1.3.10", "1.2.3.4",
                              {{0x0004, 0x1130, "CS", "EXPORT"}});
  gp::test::write_dicom_bytes((dir / "report.dcm").string(), "1.2.840.10008.5.1.4.1.1.88.11", "1.2.3.5",
                              {{0x0008, 0x0060, "CS", "SR"}});
  const Volume read = read_volume({dir.string()}, read_options());
  require_same_values(read, original);
  CHECK_THAT(read.description, Contains("skipped 2 DICOM objects without pixel data"));
  CHECK_THAT(read.description, Contains("skipped 1 other file"));

  SECTION("a named list of files is read as given; a non-DICOM file in it is an error") {
    const Volume part = read_volume({files[1], files[0], files[2]}, read_options());
    CHECK(part.dims.nz == 3);
    CHECK(part.values[0] == original.values[0]);
    const std::string what = load_error({files[0], (dir / "README").string()});
    CHECK_THAT(what, Contains("README"));
    CHECK_THAT(what, Contains("neither DICOM, TIFF, NRRD nor MetaImage"));
  }
}

TEST_CASE("DICOM pixel formats: 8/32 bits, unsigned/signed, BitsStored below BitsAllocated", "[io][dicom]") {
  using gp::test::DicomElement;
  using gp::test::dicom_u16;
  using gp::test::dicom_u32;
  const auto dir = gp::test::scratch_dir("dicom-formats");
  const int nx = 3, ny = 2;
  // One slice per file; stored words and the values expected from them.
  auto slice = [&](const std::string& name, int z, std::uint16_t bits_allocated, std::uint16_t bits_stored,
                   std::uint16_t high_bit, bool is_signed, const std::string& pixels, const char* slope) {
    std::vector<DicomElement> e = {
        {0x0008, 0x0016, "UI", "1.2.840.10008.5.1.4.1.1.2"},
        {0x0008, 0x0018, "UI", "1.2.9." + std::to_string(z)},
        {0x0008, 0x0060, "CS", "CT"},
        {0x0018, 0x0050, "DS", "2"},
        {0x0020, 0x000E, "UI", "1.2.9.100"},
        {0x0020, 0x0013, "IS", std::to_string(z + 1)},
        {0x0020, 0x0032, "DS", "0\\0\\" + std::to_string(2 * z)},
        {0x0020, 0x0037, "DS", "1\\0\\0\\0\\1\\0"},
        {0x0028, 0x0002, "US", dicom_u16(1)},
        {0x0028, 0x0004, "CS", "MONOCHROME2"},
        {0x0028, 0x0010, "US", dicom_u16(ny)},
        {0x0028, 0x0011, "US", dicom_u16(nx)},
        {0x0028, 0x0030, "DS", "0.5\\0.25"},
        {0x0028, 0x0100, "US", dicom_u16(bits_allocated)},
        {0x0028, 0x0101, "US", dicom_u16(bits_stored)},
        {0x0028, 0x0102, "US", dicom_u16(high_bit)},
        {0x0028, 0x0103, "US", dicom_u16(is_signed ? 1 : 0)},
        {0x0028, 0x1052, "DS", "-10"},
        {0x0028, 0x1053, "DS", slope},
        {0x7FE0, 0x0010, bits_allocated == 8 ? "OB" : "OW", pixels}};
    gp::test::write_dicom_bytes((dir / name).string(), "1.2.840.10008.5.1.4.1.1.2", "1.2.9." + std::to_string(z), e);
  };
  // z = 0: 8-bit unsigned.
  slice("a", 0, 8, 8, 7, false, std::string{char(0), char(1), char(2), char(200), char(254), char(255)}, "1");
  // z = 1: 12 bits stored, signed, in 16: upper nibble holds garbage (overlay bits) to be masked.
  std::string s12;
  for (int v : {0, 1, -1, 2047, -2048, -5}) s12 += dicom_u16(std::uint16_t((v & 0x0FFF) | 0xA000));
  slice("b", 1, 16, 12, 11, true, s12, "2");
  // z = 2: 32-bit signed.
  std::string s32;
  for (std::int32_t v : {0, -100000, 100000, 7, -7, 123456}) s32 += dicom_u32(std::uint32_t(v));
  slice("c", 2, 32, 32, 31, true, s32, "1");

  const Volume v = read_volume({dir.string()}, read_options());
  REQUIRE(v.dims == gp::io::Dims3{3, 2, 3});
  CHECK(v.spacing.x == Approx(0.25));
  CHECK(v.spacing.y == Approx(0.5));
  CHECK(v.spacing.z == Approx(2));
  const float expected[] = {-10, -9, -8, 190, 244, 245,                    // 8-bit unsigned, intercept -10
                            -10, -8, -12, 4084, -4106, -20,                // 12-bit signed, slope 2
                            -10, -100010, 99990, -3, -17, 123446};         // 32-bit signed
  for (std::size_t i = 0; i < v.values.size(); ++i) CHECK(v.values[i] == expected[i]);
}

TEST_CASE("DICOM legacy multi-frame: frames placed by SpacingBetweenSlices from one position", "[io][dicom]") {
  using gp::test::DicomElement;
  using gp::test::dicom_u16;
  const auto dir = gp::test::scratch_dir("dicom-legacy");
  std::string pixels;
  for (int i = 0; i < 2 * 2 * 3; ++i) pixels += dicom_u16(std::uint16_t(i));
  gp::test::write_dicom_bytes((dir / "nm.dcm").string(), "1.2.840.10008.5.1.4.1.1.20", "1.2.8.1",
                              {{0x0008, 0x0016, "UI", "1.2.840.10008.5.1.4.1.1.20"},
                               {0x0008, 0x0018, "UI", "1.2.8.1"},
                               {0x0008, 0x0060, "CS", "NM"},
                               {0x0018, 0x0088, "DS", "1.5"},
                               {0x0020, 0x000E, "UI", "1.2.8.100"},
                               {0x0020, 0x0032, "DS", "1\\2\\3"},
                               {0x0020, 0x0037, "DS", "1\\0\\0\\0\\1\\0"},
                               {0x0028, 0x0002, "US", dicom_u16(1)},
                               {0x0028, 0x0004, "CS", "MONOCHROME2"},
                               {0x0028, 0x0008, "IS", "3"},
                               {0x0028, 0x0010, "US", dicom_u16(2)},
                               {0x0028, 0x0011, "US", dicom_u16(2)},
                               {0x0028, 0x0100, "US", dicom_u16(16)},
                               {0x0028, 0x0101, "US", dicom_u16(16)},
                               {0x0028, 0x0102, "US", dicom_u16(15)},
                               {0x0028, 0x0103, "US", dicom_u16(0)},
                               {0x7FE0, 0x0010, "OW", pixels}});
  const Volume v = read_volume({(dir / "nm.dcm").string()}, read_options());
  REQUIRE(v.dims == gp::io::Dims3{2, 2, 3});
  CHECK(v.spacing.z == Approx(1.5));
  CHECK(v.origin[2] == Approx(3));
  for (std::size_t i = 0; i < v.values.size(); ++i) CHECK(v.values[i] == float(i));
  CHECK_THAT(v.description, Contains("DICOM multi-frame, 3 frames, NM"));
  CHECK_THAT(v.description, Contains("no PixelSpacing"));
}

TEST_CASE("DICOM PixelPaddingValue: padding voxels read as NaN, compared before rescale", "[io][dicom][padding]") {
  // A CT-like ramp with the corners outside the "scan circle" at -2000 HU: stored
  // (-2000 + 1024) / 0.5 = -1952 (signed 16-bit).
  Volume original = ramp(10, 9, 4);
  auto outside = [&](int x, int y) { return (x - 4.5) * (x - 4.5) + (y - 4) * (y - 4) > 20; };
  for (int z = 0; z < 4; ++z)
    for (int y = 0; y < 9; ++y)
      for (int x = 0; x < 10; ++x)
        if (outside(x, y)) original.values[original.index(x, y, z)] = -2000;
  const auto dir = gp::test::scratch_dir("dicom-padding");
  const auto files = write_dicom(original, dir.string(), hu_options());
  const Volume plain = read_volume({dir.string()}, read_options());
  require_same_values(plain, original);  // without the tag, -2000 is a value like any other
  for (const auto& path : files) {
    DcmFileFormat file;
    REQUIRE(file.loadFile(path.c_str()).good());
    REQUIRE(file.getDataset()->putAndInsertSint16(DCM_PixelPaddingValue, -1952).good());
    REQUIRE(file.saveFile(path.c_str()).good());
  }
  const Volume padded = read_volume({dir.string()}, read_options());
  REQUIRE(padded.dims == original.dims);
  int nan_count = 0;
  for (int z = 0; z < 4; ++z)
    for (int y = 0; y < 9; ++y)
      for (int x = 0; x < 10; ++x) {
        const float v = padded.at(x, y, z);
        if (outside(x, y)) {
          CHECK(std::isnan(v));
          nan_count += std::isnan(v);
        } else {
          CHECK(v == original.at(x, y, z));
        }
      }
  CHECK(nan_count > 0);
  CHECK_THAT(padded.description, Contains("padding -1952 excluded"));
}

TEST_CASE("DICOM PixelPaddingRangeLimit and a padding value written as US for signed pixels", "[io][dicom][padding]") {
  using gp::test::DicomElement;
  using gp::test::dicom_u16;
  const auto dir = gp::test::scratch_dir("dicom-padding-range");
  // Signed 16-bit stored values; the padding value -2000 written as US 0xF830 (two's complement),
  // the range limit -1990 as US too: stored -2000..-1990 are padding, -1989 is not.
  auto slice = [&](int z, std::vector<int> stored, bool range) {
    std::string pixels;
    for (int v : stored) pixels += dicom_u16(std::uint16_t(std::int16_t(v)));
    std::vector<DicomElement> e = {{0x0008, 0x0016, "UI", "1.2.840.10008.5.1.4.1.1.2"},
                                   {0x0008, 0x0018, "UI", "1.2.7." + std::to_string(z)},
                                   {0x0008, 0x0060, "CS", "CT"},
                                   {0x0020, 0x000E, "UI", "1.2.7.100"},
                                   {0x0020, 0x0013, "IS", std::to_string(z + 1)},
                                   {0x0020, 0x0032, "DS", "0\\0\\" + std::to_string(z)},
                                   {0x0020, 0x0037, "DS", "1\\0\\0\\0\\1\\0"},
                                   {0x0028, 0x0002, "US", dicom_u16(1)},
                                   {0x0028, 0x0004, "CS", "MONOCHROME2"},
                                   {0x0028, 0x0010, "US", dicom_u16(1)},
                                   {0x0028, 0x0011, "US", dicom_u16(3)},
                                   {0x0028, 0x0100, "US", dicom_u16(16)},
                                   {0x0028, 0x0101, "US", dicom_u16(16)},
                                   {0x0028, 0x0102, "US", dicom_u16(15)},
                                   {0x0028, 0x0103, "US", dicom_u16(1)},
                                   {0x0028, 0x0120, "US", dicom_u16(std::uint16_t(std::int16_t(-2000)))}};
    if (range) e.push_back({0x0028, 0x0121, "US", dicom_u16(std::uint16_t(std::int16_t(-1990)))});
    e.push_back({0x0028, 0x1052, "DS", "-1024"});  // rescale applies to the values, not to the padding test
    e.push_back({0x0028, 0x1053, "DS", "1"});
    e.push_back({0x7FE0, 0x0010, "OW", pixels});
    gp::test::write_dicom_bytes((dir / ("s" + std::to_string(z))).string(), "1.2.840.10008.5.1.4.1.1.2",
                                "1.2.7." + std::to_string(z), e);
  };
  slice(0, {-2000, -1995, -1989}, true);
  slice(1, {-1990, 976, -2000}, true);
  const Volume v = read_volume({dir.string()}, read_options());
  REQUIRE(v.dims == gp::io::Dims3{3, 1, 2});
  CHECK(std::isnan(v.values[0]));
  CHECK(std::isnan(v.values[1]));
  CHECK(v.values[2] == -1989 - 1024);
  CHECK(std::isnan(v.values[3]));
  CHECK(v.values[4] == 976 - 1024);
  CHECK(std::isnan(v.values[5]));
  CHECK_THAT(v.description, Contains("padding -2000..-1990 excluded"));
}

TEST_CASE("DICOM oblique series: direction cosines and origin carried into the volume", "[io][dicom]") {
  const auto dir = gp::test::scratch_dir("dicom-oblique");
  DicomWriteOptions o = hu_options();
  const double c = std::cos(0.5), s = std::sin(0.5);
  // Rows tilted 0.5 rad about patient z, columns tilted about patient x.
  const double ct = std::cos(0.3), st = std::sin(0.3);
  o.orientation = {c, s, 0, -s * ct, c * ct, st};
  const Volume original = ramp(7, 6, 5, {0.3, 0.4, 0.7}, {5, -3, 10});
  shuffle_names(write_dicom(original, dir.string(), o));
  const Volume read = read_volume({dir.string()}, read_options());
  require_same_values(read, original);
  const std::array<double, 3> row{c, s, 0}, column{-s * ct, c * ct, st};
  const std::array<double, 3> normal{row[1] * column[2] - row[2] * column[1], row[2] * column[0] - row[0] * column[2],
                                     row[0] * column[1] - row[1] * column[0]};
  for (int i = 0; i < 3; ++i) {
    CHECK(read.direction[0][i] == Approx(row[i]).margin(1e-9));
    CHECK(read.direction[1][i] == Approx(column[i]).margin(1e-9));
    CHECK(read.direction[2][i] == Approx(normal[i]).margin(1e-9));
    CHECK(read.origin[i] == Approx(original.origin[i]));
  }
  CHECK(read.spacing.z == Approx(0.7));
  CHECK(read.lps);
  CHECK(read.length_unit == "mm");
}

namespace {

// Re-encodes a file of our writer (int16 stored values, one frame) as encapsulated pixel data of
// `syntax`: a JPEG 2000 codestream from OpenJPEG's encoder, or for other syntaxes `fragment` as is.
void recode(const std::string& path, E_TransferSyntax syntax, std::vector<std::uint8_t> fragment = {}) {
  DcmFileFormat file;
  REQUIRE(file.loadFile(path.c_str()).good());
  DcmDataset* data = file.getDataset();
  if (fragment.empty()) {
    const Uint16* words = nullptr;
    unsigned long count = 0;
    Uint16 rows = 0, columns = 0;
    REQUIRE(data->findAndGetUint16Array(DCM_PixelData, words, &count).good());
    REQUIRE(data->findAndGetUint16(DCM_Rows, rows).good());
    REQUIRE(data->findAndGetUint16(DCM_Columns, columns).good());
    std::vector<std::int32_t> samples(count);
    for (unsigned long i = 0; i < count; ++i) samples[i] = std::int16_t(words[i]);
    fragment = gp::io::encode_j2k_lossless(samples.data(), columns, rows, 16, true);
  }
  if (fragment.size() % 2) fragment.push_back(0);
  auto* sequence = new DcmPixelSequence(DCM_PixelSequenceTag);
  sequence->insert(new DcmPixelItem(DCM_PixelItemTag));  // empty basic offset table
  auto* item = new DcmPixelItem(DCM_PixelItemTag);
  REQUIRE(item->putUint8Array(fragment.data(), Uint32(fragment.size())).good());
  sequence->insert(item);
  auto* pixels = new DcmPixelData(DCM_PixelData);
  pixels->putOriginalRepresentation(syntax, nullptr, sequence);
  REQUIRE(data->insert(pixels, true).good());
  REQUIRE(file.saveFile(path.c_str(), syntax).good());
}

}  // namespace

TEST_CASE("DICOM JPEG 2000 (lossless and lossy syntaxes) decoded through OpenJPEG", "[io][dicom][j2k]") {
  const Volume original = ramp(13, 9, 4);
  for (E_TransferSyntax syntax : {EXS_JPEG2000LosslessOnly, EXS_JPEG2000}) {
    DYNAMIC_SECTION(DcmXfer(syntax).getXferID()) {
      const auto dir = gp::test::scratch_dir("dicom-j2k");
      const auto files = write_dicom(original, dir.string(), hu_options());
      for (const auto& path : files) recode(path, syntax);
      const Volume read = read_volume({dir.string()}, read_options());
      require_same_values(read, original);
      CHECK_THAT(read.description, Contains(syntax == EXS_JPEG2000 ? "JPEG 2000" : "JPEG 2000 lossless"));

      SECTION("a damaged codestream is an error naming the file and the syntax") {
        recode(files[2], syntax, std::vector<std::uint8_t>{0xFF, 0x4F, 0xFF, 0x51, 0, 1, 2, 3});
        const std::string what = load_error({dir.string()});
        CHECK_THAT(what, Contains(fs::path(files[2]).filename().string()));
        CHECK_THAT(what, Contains("JPEG 2000"));
      }
    }
  }
}

TEST_CASE("DICOM compressed transfer syntaxes nobody decodes are refused by name", "[io][dicom]") {
  const auto dir = gp::test::scratch_dir("dicom-mpeg");
  const auto files = write_dicom(ramp(6, 5, 3), dir.string(), hu_options());
  recode(files[1], EXS_MPEG2MainProfileAtMainLevel, std::vector<std::uint8_t>(64, 0x11));
  const std::string what = load_error({dir.string()});
  CHECK_THAT(what, Contains(fs::path(files[1]).filename().string()));
  CHECK_THAT(what, Contains("1.2.840.10008.1.2.4.100"));
  CHECK_THAT(what, Contains("is not supported"));
}
