// segment-pnm's output files read back: CSV headers and rows, network.json through nlohmann,
// the Statoil files' counts and columns, network.vtp's XML structure and array sizes, labels.nrrd's
// header and inflated payload, and the quick-look PNG through OpenImageIO.
#include <catch2/catch.hpp>

#include <OpenImageIO/imageio.h>
#include <libdeflate.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <mutex>
#include <random>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "pnm/label_volumes.hpp"
#include "pnm/network_writers.hpp"
#include "pnm/text_output.hpp"
#include "support/test_data.hpp"
#include "support/text_files.hpp"

using Catch::Detail::Approx;
using gp::pnm::PoreNetwork;
using gp::pnm::Property;
using gp::test::LabelVolume;

using gp::test::read_text;
using gp::test::words;

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(s);
  while (std::getline(in, field, sep)) out.push_back(field);
  return out;
}

std::vector<std::string> lines_of(const std::string& text) { return split(text, '\n'); }

// Three regions of 2, 4 and 6 slices along x fill a 12 x 4 x 4 volume of 0.5 mm voxels.
LabelVolume row_of_regions() {
  LabelVolume v(12, 4, 4);
  v.box(0, 1, 0, 3, 0, 3, 1, 0.5f);
  v.box(2, 5, 0, 3, 0, 3, 2, 1.0f);
  v.box(6, 11, 0, 3, 0, 3, 3, 1.5f);
  return v;
}

PoreNetwork network_of(const LabelVolume& v) {
  const auto stats = gp::pnm::region_stats_cpu(v.label_view(), v.distance_view(), v.regions, 0, v.nz, gp::Connectivity::c6);
  gp::pnm::NetworkGeometry g;
  g.nx = v.nx, g.ny = v.ny, g.nz = v.nz;
  g.spacing = {0.5f, 0.5f, 0.5f};
  g.origin = {1, 2, 3};
  g.length_unit = "mm";
  return gp::pnm::build_network(stats, g);
}

// A minimal XML reader for the VTP check: tags must nest; returns each DataArray's attributes and
// token count, in order, with the enclosing section (PointData, CellData, Points, Verts, Lines).
struct XmlArray {
  std::string section, name;
  int components = 1;
  std::vector<std::string> tokens;
};
std::string attribute(const std::string& tag, const std::string& key) {
  const std::size_t at = tag.find(" " + key + "=\"");
  if (at == std::string::npos) return "";
  const std::size_t begin = at + key.size() + 3;
  return tag.substr(begin, tag.find('"', begin) - begin);
}
std::vector<XmlArray> parse_vtp(const std::string& xml, std::string& piece_tag) {
  std::vector<std::string> stack;
  std::vector<XmlArray> arrays;
  std::size_t pos = 0;
  while ((pos = xml.find('<', pos)) != std::string::npos) {
    const std::size_t end = xml.find('>', pos);
    REQUIRE(end != std::string::npos);
    const std::string tag = xml.substr(pos + 1, end - pos - 1);
    if (tag[0] == '?') {
    } else if (tag[0] == '/') {
      REQUIRE(!stack.empty());
      REQUIRE(stack.back() == tag.substr(1));
      stack.pop_back();
    } else {
      const std::string name = tag.substr(0, tag.find(' '));
      if (name == "Piece") piece_tag = tag;
      if (name == "DataArray") {
        XmlArray a;
        a.section = stack.back();
        a.name = attribute(tag, "Name");
        if (!attribute(tag, "NumberOfComponents").empty()) a.components = std::stoi(attribute(tag, "NumberOfComponents"));
        a.tokens = words(xml.substr(end + 1, xml.find('<', end) - end - 1));
        arrays.push_back(a);
      }
      if (tag.back() != '/') stack.push_back(name);
    }
    pos = end + 1;
  }
  REQUIRE(stack.empty());
  return arrays;
}

}  // namespace

TEST_CASE("writers: pores.csv and throats.csv", "[pnm][writers]") {
  const PoreNetwork net = network_of(row_of_regions());
  const auto dir = gp::test::scratch_dir("pnm-csv");
  gp::pnm::write_pores_csv((dir / "pores.csv").string(), net);
  gp::pnm::write_throats_csv((dir / "throats.csv").string(), net);

  const auto pores = lines_of(read_text(dir / "pores.csv"));
  REQUIRE(pores.size() == 1 + net.pore_count);
  const auto header = split(pores[0], ',');
  REQUIRE(header.size() >= 4);
  CHECK(header[0] == "pore.region_label");
  CHECK(header[1] == "pore.coords[0]");
  CHECK(header[3] == "pore.coords[2]");
  std::size_t columns = 0;
  for (const auto& p : net.pores) columns += std::size_t(p.components);
  CHECK(header.size() == columns);
  auto column = [&](const std::string& name) { return std::size_t(std::find(header.begin(), header.end(), name) - header.begin()); };
  for (std::size_t i = 0; i < net.pore_count; ++i) {
    const auto row = split(pores[i + 1], ',');
    REQUIRE(row.size() == columns);
    CHECK(row[0] == std::to_string(i + 1));
    CHECK(std::stod(row[column("pore.coords[0]")]) == net.pore("pore.coords").at(i, 0));  // exact round trip
    CHECK(std::stod(row[column("pore.surface_area")]) == net.pore("pore.surface_area").at(i));
    CHECK(row[column("pore.xmin")] == (i == 0 ? "True" : "False"));
  }

  const auto throats = lines_of(read_text(dir / "throats.csv"));
  REQUIRE(throats.size() == 1 + net.throat_count);
  const auto t_header = split(throats[0], ',');
  CHECK(t_header[0] == "throat.conns[0]");
  CHECK(t_header[1] == "throat.conns[1]");
  CHECK(std::find(t_header.begin(), t_header.end(), "throat.global_peak[2]") != t_header.end());
  const auto row = split(throats[2], ',');
  CHECK(row[0] == "1");
  CHECK(row[1] == "2");
}

TEST_CASE("writers: network.json", "[pnm][writers]") {
  const PoreNetwork net = network_of(row_of_regions());
  const auto path = gp::test::scratch_dir("pnm-json") / "network.json";
  gp::pnm::write_network_json(path.string(), net);
  const nlohmann::json j = nlohmann::json::parse(read_text(path));
  CHECK(j["network"]["pores"] == 3);
  CHECK(j["network"]["throats"] == 2);
  CHECK(j["network"]["length_unit"] == "mm");
  CHECK(j["units"]["pore.volume"] == "mm^3");
  CHECK(j["units"]["throat.cross_sectional_area"] == "mm^2");
  CHECK(j["units"]["pore.region_label"] == "");
  for (const auto& p : net.pores) {
    INFO(p.name);
    REQUIRE(j.contains(p.name));
    REQUIRE(j[p.name].size() == net.pore_count);
  }
  for (const auto& p : net.throats) REQUIRE(j[p.name].size() == net.throat_count);
  REQUIRE(j["pore.coords"][2].size() == 3);
  CHECK(j["pore.coords"][2][0].get<double>() == net.pore("pore.coords").at(2, 0));
  CHECK(j["throat.conns"][1] == nlohmann::json::array({1, 2}));
  CHECK(j["pore.xmin"][0] == true);
  CHECK(j["pore.region_label"][1] == 2);
}

TEST_CASE("writers: network.vtp", "[pnm][writers]") {
  const PoreNetwork net = network_of(row_of_regions());
  const auto path = gp::test::scratch_dir("pnm-vtp") / "network.vtp";
  gp::pnm::write_network_vtp(path.string(), net);
  std::string piece;
  const auto arrays = parse_vtp(read_text(path), piece);
  CHECK(attribute(piece, "NumberOfPoints") == "3");
  CHECK(attribute(piece, "NumberOfVerts") == "3");
  CHECK(attribute(piece, "NumberOfLines") == "2");
  const std::size_t np = 3, nt = 2;
  std::size_t point_arrays = 0, cell_arrays = 0;
  for (const auto& a : arrays) {
    INFO(a.section << " " << a.name);
    if (a.section == "PointData") {
      CHECK(a.tokens.size() == np * std::size_t(a.components));
      ++point_arrays;
    } else if (a.section == "CellData") {
      CHECK(a.tokens.size() == (np + nt) * std::size_t(a.components));
      ++cell_arrays;
    } else if (a.section == "Points") {
      CHECK(a.tokens.size() == 3 * np);
      CHECK(std::stod(a.tokens[3]) == net.pore("pore.coords").at(1, 0));
    } else if (a.section == "Verts") {
      CHECK(a.tokens.size() == np);
    } else if (a.section == "Lines") {
      CHECK(a.tokens.size() == (a.name == "connectivity" ? 2 * nt : nt));
      if (a.name == "connectivity") CHECK(a.tokens == std::vector<std::string>{"0", "1", "1", "2"});
      if (a.name == "offsets") CHECK(a.tokens == std::vector<std::string>{"2", "4"});
    } else {
      FAIL("DataArray in " << a.section);
    }
    if (a.name == "is_throat") CHECK(a.tokens == std::vector<std::string>{"0", "0", "0", "1", "1"});
    if (a.name == "pore.coords" && a.section == "PointData") CHECK(a.components == 3);
  }
  CHECK(point_arrays == net.pores.size());
  CHECK(cell_arrays == net.throats.size() + 1);
}

TEST_CASE("writers: Statoil files", "[pnm][writers]") {
  const PoreNetwork net = network_of(row_of_regions());
  const auto dir = gp::test::scratch_dir("pnm-statoil");
  REQUIRE(gp::pnm::metres_per_unit("mm") == 1e-3);
  CHECK(gp::pnm::metres_per_unit("um") == 1e-6);
  CHECK(!gp::pnm::metres_per_unit("voxel"));
  const auto paths = gp::pnm::write_statoil(dir.string(), "rock", net, 1e-3);
  REQUIRE(paths.size() == 4);

  const auto node1 = lines_of(read_text(dir / "rock_node1.dat"));
  REQUIRE(node1.size() == 4);
  const auto head = words(node1[0]);
  REQUIRE(head.size() == 4);
  CHECK(head[0] == "3");
  CHECK(std::stod(head[1]) == Approx(6e-3));
  CHECK(std::stod(head[2]) == Approx(2e-3));
  // index, x, y, z, coordination, neighbours..., inlet, outlet, throats...
  const std::vector<std::vector<std::string>> expected_neighbours = {{"2", "-1"}, {"1", "3"}, {"2", "0"}};
  const int inlet[3] = {1, 0, 0}, outlet[3] = {0, 0, 1};
  for (std::size_t p = 0; p < 3; ++p) {
    INFO("pore " << p + 1);
    const auto w = words(node1[p + 1]);
    REQUIRE(w.size() == 5 + 2 + 2 + 2);
    CHECK(w[0] == std::to_string(p + 1));
    CHECK(w[4] == "2");
    CHECK(std::vector<std::string>(w.begin() + 5, w.begin() + 7) == expected_neighbours[p]);
    CHECK(w[7] == std::to_string(inlet[p]));
    CHECK(w[8] == std::to_string(outlet[p]));
  }
  // Pore 1's centroid: x index 0.5, 0.5 mm voxels, box from the volume's corner: 0.5 mm.
  CHECK(std::stod(words(node1[1])[1]) == Approx(5e-4));

  const auto node2 = lines_of(read_text(dir / "rock_node2.dat"));
  REQUIRE(node2.size() == 3);
  const auto n2 = words(node2[0]);
  REQUIRE(n2.size() == 5);
  CHECK(std::stod(n2[1]) == Approx(32 * 0.125e-9));  // 32 voxels of 0.125 mm^3
  CHECK(std::stod(n2[2]) == Approx(0.5e-3));         // distance 0.5 mm
  CHECK(std::stod(n2[3]) > 0);

  const auto link1 = lines_of(read_text(dir / "rock_link1.dat"));
  const auto link2 = lines_of(read_text(dir / "rock_link2.dat"));
  REQUIRE(link1.size() == 1 + 4);  // 2 throats + inlet and outlet boundary throats
  CHECK(words(link1[0]) == std::vector<std::string>{"4"});
  REQUIRE(link2.size() == 4);
  for (std::size_t t = 0; t < 4; ++t) {
    const auto w1 = words(link1[t + 1]), w2 = words(link2[t]);
    REQUIRE(w1.size() == 6);
    REQUIRE(w2.size() == 8);
    CHECK(w1[0] == std::to_string(t + 1));
    CHECK(w1[1] == w2[1]);
    CHECK(w1[2] == w2[2]);
    // pore 1 + pore 2 + throat lengths = total length
    CHECK(std::stod(w2[3]) + std::stod(w2[4]) + std::stod(w2[5]) == Approx(std::stod(w1[5])));
    CHECK(std::stod(w1[4]) > 0);
    CHECK(std::stod(w1[4]) <= 1 / (4 * 3.14159265358979) + 1e-9);
  }
  CHECK(std::vector<std::string>{words(link1[3])[1], words(link1[3])[2]} == std::vector<std::string>{"1", "-1"});
  CHECK(std::vector<std::string>{words(link1[4])[1], words(link1[4])[2]} == std::vector<std::string>{"3", "0"});
  CHECK(std::stod(words(link1[3])[5]) == Approx(5e-4));  // centroid to the x = 0 face
  CHECK(std::stod(words(link1[4])[5]) == Approx(1.5e-3));  // pore 3's centroid at x index 8.5: 4.5 of 6 mm
}

TEST_CASE("writers: NRRD space directions are the voxel axes' directions times the spacing", "[pnm][writers]") {
  const LabelVolume v = gp::test::random_partition(5, 4, 3, 4, 0.3, 2);
  const auto dir = gp::test::scratch_dir("pnm-nrrd-oblique");
  gp::pnm::LabelVolumeInfo info;
  info.dims = {v.nx, v.ny, v.nz};
  info.spacing = {0.5, 0.25, 2.0};
  info.origin = {-1.5, 2, 3.25};
  info.lps = true;
  // An oblique DICOM series: rows along (0.6, 0.8, 0), columns along (0, 0, -1), slices along
  // their cross product (-0.8, 0.6, 0).
  info.direction = {{{0.6, 0.8, 0}, {0, 0, -1}, {-0.8, 0.6, 0}}};
  const auto path = dir / "labels.nrrd";
  gp::pnm::write_labels_nrrd(path.string(), v.labels.data(), info, 4);
  const std::string bytes = read_text(path);
  const auto header = lines_of(bytes.substr(0, bytes.find("\n\n")));
  CHECK(std::find(header.begin(), header.end(), "space directions: (0.3,0.4,0) (0,0,-0.25) (-1.6,1.2,0)") != header.end());
  CHECK(std::find(header.begin(), header.end(), "space origin: (-1.5,2,3.25)") != header.end());
}

namespace {

struct NrrdFile {
  std::vector<std::string> header;
  std::string data;  // inflated for gzip
  bool has(const std::string& line) const { return std::find(header.begin(), header.end(), line) != header.end(); }
};

NrrdFile read_nrrd(const std::filesystem::path& path, std::size_t data_bytes) {
  const std::string bytes = read_text(path);
  const std::size_t end = bytes.find("\n\n");
  REQUIRE(end != std::string::npos);
  NrrdFile f;
  f.header = lines_of(bytes.substr(0, end));
  if (f.has("encoding: raw")) {
    f.data = bytes.substr(end + 2);
    return f;
  }
  REQUIRE(f.has("encoding: gzip"));
  // Member after member, as zlib and teem read a multi-member stream.
  f.data.resize(data_bytes);
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  std::size_t in = end + 2, out = 0;
  int members = 0;
  while (in < bytes.size()) {
    std::size_t in_used = 0, out_got = 0;
    const auto rc = libdeflate_gzip_decompress_ex(d, bytes.data() + in, bytes.size() - in, &f.data[out], data_bytes - out,
                                                  &in_used, &out_got);
    REQUIRE(rc == LIBDEFLATE_SUCCESS);
    in += in_used, out += out_got, ++members;
  }
  libdeflate_free_decompressor(d);
  REQUIRE(out == data_bytes);
  f.header.push_back("members: " + std::to_string(members));  // for the checks below
  return f;
}

template <class T>
std::vector<std::uint32_t> widened(const std::string& data) {
  std::vector<std::uint32_t> out(data.size() / sizeof(T));
  for (std::size_t i = 0; i < out.size(); ++i) {
    T v;
    std::memcpy(&v, data.data() + i * sizeof(T), sizeof(T));
    out[i] = v;
  }
  return out;
}

}  // namespace

TEST_CASE("writers: labels.nrrd", "[pnm][writers]") {
  const LabelVolume v = gp::test::random_partition(23, 17, 9, 30, 0.3, 5);
  const auto dir = gp::test::scratch_dir("pnm-nrrd");
  gp::pnm::LabelVolumeInfo info;
  info.dims = {v.nx, v.ny, v.nz};
  info.spacing = {0.5, 0.25, 2.0};
  info.origin = {-1.5, 2, 3.25};
  for (bool lps : {false, true})
    for (bool gzip : {true, false})
      for (auto type : {gp::pnm::LabelsType::smallest, gp::pnm::LabelsType::uint32})
        for (std::size_t slab_bytes : {std::size_t(16) << 20, std::size_t(23 * 17 * 2)}) {
          const bool narrow = type == gp::pnm::LabelsType::smallest;  // 30 regions: uint8
          INFO("lps " << lps << " gzip " << gzip << " narrow " << narrow << " slab bytes " << slab_bytes);
          info.lps = lps;
          gp::pnm::VolumeEncoding encoding;
          encoding.gzip = gzip;
          encoding.gzip_level = 6;
          encoding.slab_bytes = slab_bytes;
          const auto path = dir / "labels.nrrd";
          gp::pnm::write_labels_nrrd(path.string(), v.labels.data(), info, v.regions, encoding, type);
          const NrrdFile f = read_nrrd(path, v.labels.size() * (narrow ? 1 : 4));
          CHECK(f.header[0] == "NRRD0004");
          CHECK(f.has(narrow ? "type: uint8" : "type: uint32"));
          CHECK(f.has("dimension: 3"));
          CHECK(f.has("sizes: 23 17 9"));
          CHECK(f.has("space directions: (0.5,0,0) (0,0.25,0) (0,0,2)"));
          CHECK(f.has("space origin: (-1.5,2,3.25)"));
          CHECK(f.has("kinds: domain domain domain"));
          CHECK(f.has("endian: little"));
          CHECK(f.has(gzip ? "encoding: gzip" : "encoding: raw"));
          CHECK(f.has(lps ? "space: left-posterior-superior" : "space dimension: 3"));
          // Slabs of whole slices: one member for the volume, or one per slab (uint8: 2 slices,
          // uint32: half a slice rounds up to one).
          if (gzip) CHECK(f.has("members: " + std::to_string(slab_bytes > 1000 ? 1 : narrow ? 5 : 9)));
          CHECK((narrow ? widened<std::uint8_t>(f.data) : widened<std::uint32_t>(f.data)) == v.labels);
        }
}

TEST_CASE("writers: label types by region count", "[pnm][writers]") {
  using gp::pnm::LabelsType;
  CHECK(std::string(gp::pnm::labels_nrrd_type(0, LabelsType::smallest).name) == "uint8");
  CHECK(std::string(gp::pnm::labels_nrrd_type(255, LabelsType::smallest).name) == "uint8");
  CHECK(std::string(gp::pnm::labels_nrrd_type(256, LabelsType::smallest).name) == "uint16");
  CHECK(std::string(gp::pnm::labels_nrrd_type(65535, LabelsType::smallest).name) == "uint16");
  CHECK(std::string(gp::pnm::labels_nrrd_type(65536, LabelsType::smallest).name) == "uint32");
  CHECK(std::string(gp::pnm::labels_nrrd_type(3, LabelsType::uint32).name) == "uint32");

  // 300 regions in a 40 x 30 x 20 volume of many slabs: uint16, the values kept.
  std::vector<std::uint32_t> labels(40 * 30 * 20);
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = std::uint32_t(i * 7919 % 301);
  gp::pnm::LabelVolumeInfo info;
  info.dims = {40, 30, 20};
  info.spacing = {1, 1, 1};
  gp::pnm::VolumeEncoding encoding;
  encoding.slab_bytes = 40 * 30 * 2 * 3;  // 3 slices per member, 7 members
  const auto path = gp::test::scratch_dir("pnm-nrrd-types") / "labels.nrrd";
  gp::pnm::write_labels_nrrd(path.string(), labels.data(), info, 300, encoding);
  const NrrdFile f = read_nrrd(path, labels.size() * 2);
  CHECK(f.has("type: uint16"));
  CHECK(f.has("members: 7"));
  CHECK(widened<std::uint16_t>(f.data) == labels);

  // A label above the stated count does not wrap around: the file is not written.
  std::filesystem::remove(path);
  labels[labels.size() - 5] = 70000;
  CHECK_THROWS_WITH(gp::pnm::write_labels_nrrd(path.string(), labels.data(), info, 300, encoding),
                    Catch::Contains("does not fit the 16-bit labels"));
  CHECK(!std::filesystem::exists(path));
}

TEST_CASE("writers: volumes from a slab source", "[pnm][writers]") {
  // Slabs made on demand (as from disk): every slab asked for once, the file as from memory.
  gp::pnm::LabelVolumeInfo info;
  info.dims = {64, 48, 37};
  info.spacing = {1, 1, 1};
  std::vector<float> volume(std::size_t(64) * 48 * 37);
  for (std::size_t i = 0; i < volume.size(); ++i) volume[i] = float(i % 1000) * 0.5f;
  const std::size_t slice = 64 * 48;
  for (bool gzip : {true, false}) {
    INFO("gzip " << gzip);
    gp::pnm::VolumeEncoding encoding;
    encoding.gzip = gzip;
    encoding.slab_bytes = slice * 4 * 2;  // 2 slices per slab, 19 slabs
    std::mutex mutex;
    std::vector<int> asked(37, 0);
    const auto dir = gp::test::scratch_dir("pnm-nrrd-slabs");
    gp::pnm::write_volume_nrrd((dir / "made.nrrd").string(), gp::pnm::nrrd_type<float>(), info, "made", encoding,
                               [&](int z, int slices, void* scratch) -> const void* {
                                 {
                                   std::lock_guard<std::mutex> lock(mutex);
                                   for (int k = z; k < z + slices; ++k) ++asked[std::size_t(k)];
                                 }
                                 std::memcpy(scratch, volume.data() + std::size_t(z) * slice, slice * 4 * std::size_t(slices));
                                 return scratch;
                               });
    CHECK(asked == std::vector<int>(37, 1));
    gp::pnm::write_volume_nrrd((dir / "memory.nrrd").string(), volume.data(), gp::pnm::nrrd_type<float>(), info, "made",
                               encoding);
    CHECK(read_text(dir / "made.nrrd") == read_text(dir / "memory.nrrd"));
    const NrrdFile f = read_nrrd(dir / "made.nrrd", volume.size() * 4);
    CHECK(f.has("type: float"));
    CHECK(std::memcmp(f.data.data(), volume.data(), f.data.size()) == 0);
  }
}

TEST_CASE("writers: fixed-width numbers as printf writes them", "[pnm][writers]") {
  std::vector<double> values = {0.0, -0.0, 1.0, -1.0, 0.5, 1e-300, -2.5e300, 5e-324, 1.0 / 3.0, 123456789.123456789,
                                9.999999995, 9.9999999949, 0.000123, std::nan(""), -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::infinity()};
  std::mt19937_64 rng(3);
  for (int i = 0; i < 2000; ++i) {
    double v;
    const std::uint64_t bits = rng();
    std::memcpy(&v, &bits, sizeof v);
    if (std::isfinite(v)) values.push_back(v);
  }
  for (double v : values) {
    INFO(v);
    char want[128];
    std::snprintf(want, sizeof want, "%15.8e|%.9e", v, v);
    gp::pnm::TextBuffer got;
    got.scientific(v, 8, 15) << '|';
    got.scientific(v, 9);
    CHECK(got.str() == want);
  }
  for (long long v : {0LL, 7LL, -7LL, 12345678LL, 123456789LL, -123456789012LL}) {
    char want[64];
    std::snprintf(want, sizeof want, "%9lld| %8lld", v, v);
    gp::pnm::TextBuffer got;
    got.integer(v, 9) << "| ";
    got.integer(v, 8);
    CHECK(got.str() == want);
  }
}

TEST_CASE("writers: rows formatted in chunks join up", "[pnm][writers]") {
  const auto chunks = gp::pnm::format_rows(10007, [](gp::pnm::TextBuffer& out, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) out.integer((long long)i) << (i % 8 == 7 ? '\n' : ' ');
  }, 100);
  REQUIRE(chunks.size() == 101);
  std::string joined, want;
  for (const auto& c : chunks) joined += c;
  for (std::size_t i = 0; i < 10007; ++i) want += std::to_string(i) + (i % 8 == 7 ? '\n' : ' ');
  CHECK(joined == want);
  CHECK(gp::pnm::format_rows(0, [](gp::pnm::TextBuffer&, std::size_t, std::size_t) { FAIL("no rows"); }).empty());
}

TEST_CASE("writers: a network of thousands of pores, across chunk boundaries", "[pnm][writers]") {
  // Thousands of rows: each file is formatted in several chunks on several threads.
  const LabelVolume v = gp::test::random_partition(40, 36, 30, 2600, 0.25, 11);
  const PoreNetwork net = network_of(v);
  REQUIRE(net.pore_count > 2048);
  REQUIRE(net.throat_count > 3 * 2048);
  const auto dir = gp::test::scratch_dir("pnm-large");

  gp::pnm::write_throats_csv((dir / "throats.csv").string(), net);
  const auto rows = lines_of(read_text(dir / "throats.csv"));
  REQUIRE(rows.size() == 1 + net.throat_count);
  const Property& area = net.throat("throat.cross_sectional_area");
  const Property& conns = net.throat("throat.conns");
  for (std::size_t t = 0; t < net.throat_count; ++t) {
    const auto row = split(rows[t + 1], ',');
    REQUIRE(row.size() == split(rows[0], ',').size());
    REQUIRE(std::stoll(row[0]) == (long long)conns.at(t, 0));
    REQUIRE(std::stoll(row[1]) == (long long)conns.at(t, 1));
    REQUIRE(std::stod(row[2]) == area.at(t));
  }

  gp::pnm::write_network_json((dir / "network.json").string(), net);
  const nlohmann::json j = nlohmann::json::parse(read_text(dir / "network.json"));
  REQUIRE(j["throat.conns"].size() == net.throat_count);
  for (std::size_t t = 0; t < net.throat_count; ++t) REQUIRE(j["throat.cross_sectional_area"][t].get<double>() == area.at(t));

  gp::pnm::write_network_vtp((dir / "network.vtp").string(), net);
  const std::string vtp = read_text(dir / "network.vtp");
  std::string piece;
  for (const auto& a : parse_vtp(vtp, piece)) {
    INFO(a.section << " " << a.name);
    const std::size_t tuples = a.section == "CellData" ? net.pore_count + net.throat_count
                               : a.section == "Lines"  ? (a.name == "connectivity" ? 2 : 1) * net.throat_count
                                                       : net.pore_count;
    CHECK(a.tokens.size() == tuples * std::size_t(a.components));
  }
  // Value lines hold 8 tuples (index arrays and leading zeros 16 values), none empty.
  for (const auto& line : lines_of(vtp)) {
    if (line.find('<') != std::string::npos) continue;
    const std::size_t n = words(line).size();
    CHECK(n >= 1);
    CHECK(n <= 24);
  }

  // Statoil: node2 and link1 against the printf formats of earlier versions, line by line.
  const auto paths = gp::pnm::write_statoil(dir.string(), "net", net, 1e-3);
  const auto node2 = lines_of(read_text(dir / "net_node2.dat"));
  REQUIRE(node2.size() == net.pore_count);
  const Property& volume = net.pore("pore.volume");
  const Property& diameter = net.pore("pore.inscribed_diameter");
  const Property& shape = net.pore("pore.shape_factor");
  for (std::size_t p = 0; p < net.pore_count; ++p) {
    char want[200];
    std::snprintf(want, sizeof want, "%9zu %15.8e %15.8e %15.8e %15.8e", p + 1, volume.at(p) * 1e-9, diameter.at(p) / 2 * 1e-3,
                  shape.at(p), 0.0);
    REQUIRE(node2[p] == want);
  }
  const auto link1 = lines_of(read_text(dir / "net_link1.dat"));
  const Property& t_diameter = net.throat("throat.inscribed_diameter");
  const Property& t_shape = net.throat("throat.shape_factor");
  const Property& total = net.throat("throat.total_length");
  REQUIRE(link1.size() > net.throat_count + 1);
  CHECK(link1[0] == std::to_string(link1.size() - 1));
  for (std::size_t t = 0; t < net.throat_count; ++t) {
    char want[200];
    std::snprintf(want, sizeof want, "%9zu %8lld %8lld %15.8e %15.8e %15.8e", t + 1, (long long)conns.at(t, 0) + 1,
                  (long long)conns.at(t, 1) + 1, t_diameter.at(t) / 2 * 1e-3, t_shape.at(t), total.at(t) * 1e-3);
    REQUIRE(link1[t + 1] == want);
  }
}

TEST_CASE("writers: quick-look PNG", "[pnm][writers]") {
  // 40 x 30 x 20 voxels of 1 x 1 x 2: solid below x = 10, region 1 to x = 24, region 2 above.
  gp::io::Volume grey;
  grey.dims = {40, 30, 20};
  grey.spacing = {1, 1, 2};
  grey.values.resize(grey.dims.voxels());
  std::vector<std::uint32_t> labels(grey.values.size());
  for (int z = 0; z < 20; ++z)
    for (int y = 0; y < 30; ++y)
      for (int x = 0; x < 40; ++x) {
        grey.values[grey.index(x, y, z)] = float(x + y + z);
        labels[grey.index(x, y, z)] = x < 10 ? 0 : x < 25 ? 1 : 2;
      }
  // Longest side 40 (x, and z: 20 x 2) at 256 pixels: 0.15625 per pixel. Panels 256x192 (XY),
  // 256x256 (XZ), 192x256 (YZ), 4-pixel gaps.
  const gp::pnm::RgbImage img = gp::pnm::render_quicklook(grey, labels.data());
  REQUIRE(img.width == 256 + 4 + 256 + 4 + 192);
  REQUIRE(img.height == 256);
  auto pixel = [&](int u, int v) {
    const std::uint8_t* p = &img.rgb[(std::size_t(v) * img.width + u) * 3];
    return std::vector<int>{p[0], p[1], p[2]};
  };
  const auto solid = pixel(20, 100);  // x = 3: untinted grey
  CHECK(solid[0] == solid[1]);
  CHECK(solid[1] == solid[2]);
  const auto pore = pixel(100, 100);  // x = 15: tinted
  CHECK((pore[0] != pore[1] || pore[1] != pore[2]));
  CHECK(pixel(63, 100) == std::vector<int>{0, 0, 0});   // last pixel of x = 9 next to x = 10: boundary
  CHECK(pixel(62, 100) != std::vector<int>{0, 0, 0});
  CHECK(pixel(100, 220) == std::vector<int>{0, 0, 0});  // below the XY panel (192 rows): background

  const auto path = gp::test::scratch_dir("pnm-png") / "quicklook.png";
  gp::pnm::write_quicklook_png(path.string(), gp::pnm::VolumeStore<float>::borrow(grey.values.data(), grey.dims),
                               gp::pnm::VolumeStore<std::uint32_t>::borrow(labels.data(), grey.dims), grey.spacing);
  auto in = OIIO::ImageInput::open(path.string());
  REQUIRE(in);
  const OIIO::ImageSpec& spec = in->spec();
  CHECK(spec.width == img.width);
  CHECK(spec.height == img.height);
  CHECK(spec.nchannels == 3);
  std::vector<std::uint8_t> decoded(img.rgb.size());
  REQUIRE(in->read_image(0, 0, 0, 3, OIIO::TypeDesc::UINT8, decoded.data()));
  CHECK(decoded == img.rgb);
}
