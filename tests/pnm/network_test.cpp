// Pore network properties against hand-computed values: two boxes with anisotropic voxels and an
// origin, a row of three regions across the volume for face labels, coordination and the summary.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/error.hpp"
#include "pnm/label_volumes.hpp"
#include "pnm/network.hpp"

using Catch::Detail::Approx;
using gp::Connectivity;
using gp::pnm::PoreNetwork;
using gp::test::LabelVolume;

namespace {

constexpr double kPi = 3.14159265358979323846;

PoreNetwork network_of(const LabelVolume& v, gp::pnm::Spacing s, std::array<double, 3> origin, Connectivity c) {
  const auto stats = gp::pnm::region_stats_cpu(v.label_view(), v.distance_view(), v.regions, 0, v.nz, c);
  gp::pnm::NetworkGeometry g;
  g.nx = v.nx, g.ny = v.ny, g.nz = v.nz;
  g.spacing = s;
  g.origin = origin;
  g.length_unit = "mm";
  return gp::pnm::build_network(stats, g);
}

void check3(const gp::pnm::Property& p, std::size_t i, double x, double y, double z) {
  INFO(p.name << "[" << i << "]");
  CHECK(p.at(i, 0) == Approx(x));
  CHECK(p.at(i, 1) == Approx(y));
  CHECK(p.at(i, 2) == Approx(z));
}

}  // namespace

TEST_CASE("network: two boxes with anisotropic voxels", "[pnm][network]") {
  // Region 1 at x 1..4, region 2 at x 5..8, y and z 1..4, in a solid margin. Voxels 2 x 0.5 x 0.5.
  LabelVolume v(10, 6, 6);
  v.box(1, 4, 1, 4, 1, 4, 1, 1.0f);
  v.box(5, 8, 1, 4, 1, 4, 2, 0.5f);
  v.distance[v.index(4, 2, 2)] = 3.0f;   // region 1's peak, on its side of the throat
  v.distance[v.index(5, 3, 2)] = 0.75f;  // region 2's peak, a throat voxel
  const PoreNetwork net = network_of(v, {2.0f, 0.5f, 0.5f}, {10, 20, 30}, Connectivity::c6);
  REQUIRE(net.pore_count == 2);
  REQUIRE(net.throat_count == 1);

  CHECK(net.pore("pore.region_label").at(0) == 1);
  CHECK(net.pore("pore.region_label").at(1) == 2);
  // Centroids (2.5, 2.5, 2.5) and (6.5, 2.5, 2.5) in voxels.
  check3(net.pore("pore.coords"), 0, 15, 21.25, 31.25);
  check3(net.pore("pore.coords"), 1, 23, 21.25, 31.25);
  check3(net.pore("pore.geometric_centroid"), 1, 23, 21.25, 31.25);
  check3(net.pore("pore.local_peak"), 0, 18, 21, 31);
  check3(net.pore("pore.local_peak"), 1, 20, 21.5, 31);
  // Region 2's dilation reaches region 1's peak voxel (4, 2, 2).
  check3(net.pore("pore.global_peak"), 0, 18, 21, 31);
  check3(net.pore("pore.global_peak"), 1, 18, 21, 31);
  CHECK(net.pore("pore.inscribed_diameter").at(0) == Approx(6.0));
  CHECK(net.pore("pore.inscribed_diameter").at(1) == Approx(1.5));
  CHECK(net.pore("pore.extended_diameter").at(0) == Approx(6.0));
  CHECK(net.pore("pore.extended_diameter").at(1) == Approx(6.0));
  // 64 voxels of 0.5: 32; sphere of volume 32.
  CHECK(net.pore("pore.region_volume").at(0) == Approx(32));
  CHECK(net.pore("pore.volume").at(1) == Approx(32));
  const double d_eq = 2 * std::cbrt(3 * 32 / (4 * kPi));
  CHECK(d_eq == Approx(3.938980).epsilon(1e-6));
  CHECK(net.pore("pore.equivalent_diameter").at(0) == Approx(d_eq));
  // Wall faces: 16 normal to x (area 0.25), 32 normal to y (area 1), 32 normal to z (area 1).
  CHECK(net.pore("pore.surface_area").at(0) == Approx(68));
  CHECK(net.pore("pore.surface_area").at(1) == Approx(68));
  // G = r^2 / (4 V / d_eq): capped for pore 1 (r 3), not for pore 2 (r 0.75).
  CHECK(net.pore("pore.shape_factor").at(0) == Approx(1 / (4 * kPi)));
  CHECK(net.pore("pore.shape_factor").at(1) == Approx(0.75 * 0.75 / (4 * 32 / d_eq)));
  CHECK(net.pore("pore.coordination_number").at(0) == 1);
  for (const char* face : {"pore.xmin", "pore.xmax", "pore.ymin", "pore.ymax", "pore.zmin", "pore.zmax"})
    CHECK(net.pore(face).at(1) == 0);

  CHECK(net.throat("throat.conns").at(0, 0) == 0);
  CHECK(net.throat("throat.conns").at(0, 1) == 1);
  // 16 throat voxels, each sharing a face normal to x (0.5 x 0.5) with region 1.
  CHECK(net.throat("throat.cross_sectional_area").at(0) == Approx(4.0));
  CHECK(net.throat("throat.equivalent_diameter").at(0) == Approx(std::sqrt(16 / kPi)));
  CHECK(net.throat("throat.inscribed_diameter").at(0) == Approx(1.5));
  CHECK(net.throat("throat.perimeter").at(0) == Approx(12 * 0.5));  // 12 voxels next to the wall
  check3(net.throat("throat.global_peak"), 0, 20, 21.5, 31);
  CHECK(net.throat("throat.direct_length").at(0) == Approx(8));
  const double to_0 = std::sqrt(25.125), to_1 = std::sqrt(9.125);
  CHECK(net.throat("throat.total_length").at(0) == Approx(to_0 + to_1));
  const auto& conduit = net.throat("throat.conduit_lengths");
  CHECK(conduit.at(0, 0) == Approx(3.0));
  CHECK(conduit.at(0, 2) == Approx(0.75));
  CHECK(conduit.at(0, 1) == Approx(to_0 - 3.0 + to_1 - 0.75));
  CHECK(net.throat("throat.shape_factor").at(0) == Approx(0.75 * 0.75 / 16));
}

TEST_CASE("network: throat area with cubic voxels is PoreSpy's voxel count", "[pnm][network]") {
  // A diagonal interface: region 2's voxels touching region 1 share faces along x and y.
  LabelVolume v(6, 6, 3);
  for (int z = 0; z < 3; ++z)
    for (int y = 0; y < 6; ++y)
      for (int x = 0; x < 6; ++x) {
        v.labels[v.index(x, y, z)] = x + y < 6 ? 1 : 2;
        v.distance[v.index(x, y, z)] = 1.0f;
      }
  v.regions = 2;
  const auto stats = gp::pnm::region_stats_cpu(v.label_view(), v.distance_view(), 2, 0, 3, Connectivity::c6);
  REQUIRE(stats.throats.size() == 1);
  const PoreNetwork net = network_of(v, {0.5f, 0.5f, 0.5f}, {0, 0, 0}, Connectivity::c6);
  CHECK(net.throat("throat.cross_sectional_area").at(0) == Approx(double(stats.throats[0].on_b.voxels) * 0.25));
}

TEST_CASE("network: a row of regions across the volume", "[pnm][network]") {
  // Regions of 2, 4 and 6 slices along x fill a 12 x 4 x 4 volume.
  LabelVolume v(12, 4, 4);
  v.box(0, 1, 0, 3, 0, 3, 1, 1.0f);
  v.box(2, 5, 0, 3, 0, 3, 2, 1.0f);
  v.box(6, 11, 0, 3, 0, 3, 3, 1.0f);
  const PoreNetwork net = network_of(v, {1, 1, 1}, {0, 0, 0}, Connectivity::c26);
  REQUIRE(net.pore_count == 3);
  REQUIRE(net.throat_count == 2);
  CHECK(net.pore("pore.xmin").at(0) == 1);
  CHECK(net.pore("pore.xmin").at(1) == 0);
  CHECK(net.pore("pore.xmax").at(2) == 1);
  CHECK(net.pore("pore.ymin").at(1) == 1);
  CHECK(net.pore_face_areas[0][0] == Approx(16));
  CHECK(net.pore_face_areas[2][1] == Approx(16));
  CHECK(net.pore_face_areas[1][0] == 0);
  CHECK(net.pore_face_areas[1][2] == Approx(16));  // on the y = 0 face: x 2..5 by z 0..3
  CHECK(net.pore("pore.surface_area").at(1) == 0);  // no solid at all
  CHECK(net.pore("pore.coordination_number").at(1) == 2);

  const nlohmann::ordered_json s = gp::pnm::network_summary(net, 0.42);
  CHECK(s["pores"] == 3);
  CHECK(s["throats"] == 2);
  CHECK(s["porosity"] == 0.42);
  CHECK(s["coordination_number"]["mean"].get<double>() == Approx(4.0 / 3.0));
  CHECK(s["coordination_number"]["isolated_pores"] == 0);
  CHECK(s["coordination_number"]["histogram"]["pores"].get<std::vector<int>>() == std::vector<int>{0, 2, 1});
  CHECK(s["total_pore_volume"].get<double>() == Approx(192));
  // Equivalent diameters of volumes 32, 64, 96; percentiles interpolate as numpy's.
  auto d = [](double volume) { return 2 * std::cbrt(3 * volume / (4 * kPi)); };
  const auto& eq = s["pore_size"]["equivalent_diameter"];
  CHECK(eq["unit"] == "mm");
  CHECK(eq["d50"].get<double>() == Approx(d(64)));
  CHECK(eq["d10"].get<double>() == Approx(d(32) + 0.2 * (d(64) - d(32))));
  CHECK(eq["d90"].get<double>() == Approx(d(64) + 0.8 * (d(96) - d(64))));
  CHECK(eq["histogram"]["bin_edges"].size() == 21);
  CHECK(eq["histogram"]["bin_edges"].back().get<double>() == Approx(d(96)));
  std::size_t counted = 0;
  for (const auto& c : eq["histogram"]["counts"]) counted += c.get<std::size_t>();
  CHECK(counted == 3);
  CHECK(eq["histogram"]["counts"].back() == 1);  // the maximum lands in the last bin
  CHECK(s["throat_size"]["inscribed_diameter"]["count"] == 2);
}

TEST_CASE("network: empty regions are left out, labels kept", "[pnm][network]") {
  LabelVolume v(4, 1, 1);
  v.box(0, 1, 0, 0, 0, 0, 1, 1.0f);
  v.box(2, 3, 0, 0, 0, 0, 3, 1.0f);  // region 2 has no voxel
  const PoreNetwork net = network_of(v, {1, 1, 1}, {0, 0, 0}, Connectivity::c6);
  REQUIRE(net.pore_count == 2);
  CHECK(net.pore("pore.region_label").at(1) == 3);
  CHECK(net.throat("throat.conns").at(0, 1) == 1);
  CHECK_THROWS_AS(net.pore("pore.no_such_property"), gp::Error);
}
