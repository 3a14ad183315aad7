// segment-pnm's output files read back: CSV headers and rows, network.json through nlohmann,
// the Statoil files' counts and columns, network.vtp's XML structure and array sizes, labels.nrrd's
// header and inflated payload, and the quick-look PNG through OpenImageIO.
#include <catch2/catch.hpp>

#include <OpenImageIO/imageio.h>
#include <libdeflate.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "pnm/label_volumes.hpp"
#include "pnm/network_writers.hpp"
#include "support/test_data.hpp"
#include "support/text_files.hpp"

using Catch::Detail::Approx;
using gp::pnm::PoreNetwork;
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
  const auto stats = gp::pnm::region_stats_cpu(v.label_view(), v.distance_view(), v.regions, 0, v.nz, gp::pnm::Connectivity::c6);
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
  gp::pnm::write_labels_nrrd(path.string(), v.labels.data(), info, 1);
  const std::string bytes = read_text(path);
  const auto header = lines_of(bytes.substr(0, bytes.find("\n\n")));
  CHECK(std::find(header.begin(), header.end(), "space directions: (0.3,0.4,0) (0,0,-0.25) (-1.6,1.2,0)") != header.end());
  CHECK(std::find(header.begin(), header.end(), "space origin: (-1.5,2,3.25)") != header.end());
}

TEST_CASE("writers: labels.nrrd", "[pnm][writers]") {
  const LabelVolume v = gp::test::random_partition(23, 17, 9, 30, 0.3, 5);
  const auto dir = gp::test::scratch_dir("pnm-nrrd");
  gp::pnm::LabelVolumeInfo info;
  info.dims = {v.nx, v.ny, v.nz};
  info.spacing = {0.5, 0.25, 2.0};
  info.origin = {-1.5, 2, 3.25};
  for (bool lps : {false, true}) {
    info.lps = lps;
    const auto path = dir / "labels.nrrd";
    gp::pnm::write_labels_nrrd(path.string(), v.labels.data(), info, 6);
    const std::string bytes = read_text(path);
    const std::size_t end = bytes.find("\n\n");
    REQUIRE(end != std::string::npos);
    const auto header = lines_of(bytes.substr(0, end));
    CHECK(header[0] == "NRRD0004");
    auto has = [&](const std::string& line) { return std::find(header.begin(), header.end(), line) != header.end(); };
    CHECK(has("type: uint32"));
    CHECK(has("dimension: 3"));
    CHECK(has("sizes: 23 17 9"));
    CHECK(has("space directions: (0.5,0,0) (0,0.25,0) (0,0,2)"));
    CHECK(has("space origin: (-1.5,2,3.25)"));
    CHECK(has("kinds: domain domain domain"));
    CHECK(has("endian: little"));
    CHECK(has("encoding: gzip"));
    CHECK(has(lps ? "space: left-posterior-superior" : "space dimension: 3"));

    std::vector<std::uint32_t> inflated(v.labels.size() + 1);
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    std::size_t got = 0;
    const auto rc = libdeflate_gzip_decompress(d, bytes.data() + end + 2, bytes.size() - end - 2, inflated.data(),
                                               inflated.size() * 4, &got);
    libdeflate_free_decompressor(d);
    REQUIRE(rc == LIBDEFLATE_SUCCESS);
    REQUIRE(got == v.labels.size() * 4);
    CHECK(std::memcmp(inflated.data(), v.labels.data(), got) == 0);
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
  gp::pnm::write_quicklook_png(path.string(), grey, labels.data());
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
