// The Statoil / Imperial College network files (see network_writers.hpp for the columns). Formats
// follow pnflow's own writer (fixed-width integers, scientific reals); readers split on whitespace.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/outputs.hpp"
#include "pnm/network_writers.hpp"
#include "pnm/text_output.hpp"

namespace gp::pnm {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr long long kInlet = -1, kOutlet = 0;  // reservoir indices in the format

struct Link {
  long long pore1, pore2;  // 1-based pores or a reservoir
  double radius, shape_factor, total_length, pore1_length, pore2_length, throat_length;
};

// A pore's links and neighbours, in link order.
struct Adjacency {
  std::vector<long long> neighbours, links;
  bool inlet = false, outlet = false;
};

}  // namespace

std::optional<double> metres_per_unit(const std::string& unit) {
  if (unit == "m") return 1.0;
  if (unit == "cm") return 1e-2;
  if (unit == "mm") return 1e-3;
  if (unit == "um" || unit == "µm" || unit == "micron" || unit == "micrometre" || unit == "micrometer") return 1e-6;
  if (unit == "nm") return 1e-9;
  return std::nullopt;
}

std::vector<std::string> write_statoil(const std::string& dir, const std::string& prefix, const PoreNetwork& net,
                                       double metres) {
  if (!(metres > 0) || !std::isfinite(metres)) throw Error("write_statoil: metres per unit must be positive");
  const NetworkGeometry& g = net.geometry;
  const double s[3] = {double(g.spacing.x), double(g.spacing.y), double(g.spacing.z)};
  const double box[3] = {g.nx * s[0] * metres, g.ny * s[1] * metres, g.nz * s[2] * metres};
  const std::size_t np = net.pore_count, nt = net.throat_count;
  const Property& coords = net.pore("pore.coords");
  const Property& pore_d = net.pore("pore.inscribed_diameter");
  const Property& pore_g = net.pore("pore.shape_factor");
  const Property& pore_v = net.pore("pore.volume");
  const Property& conns = net.throat("throat.conns");
  const Property& throat_d = net.throat("throat.inscribed_diameter");
  const Property& throat_g = net.throat("throat.shape_factor");
  const Property& total = net.throat("throat.total_length");
  const Property& conduit = net.throat("throat.conduit_lengths");

  // Pore positions in the box [0, L] (voxel centres at (i + 0.5) * s).
  auto box_coord = [&](std::size_t p, int axis) { return (coords.at(p, axis) - g.origin[std::size_t(axis)] + 0.5 * s[axis]) * metres; };

  std::vector<Link> links;
  links.reserve(nt + np / 8);
  for (std::size_t t = 0; t < nt; ++t)
    links.push_back({(long long)conns.at(t, 0) + 1, (long long)conns.at(t, 1) + 1, throat_d.at(t) / 2 * metres,
                     throat_g.at(t), total.at(t) * metres, conduit.at(t, 0) * metres, conduit.at(t, 2) * metres,
                     conduit.at(t, 1) * metres});
  // Boundary throats: pores on the x faces to the reservoirs.
  for (std::size_t p = 0; p < np; ++p)
    for (int face = 0; face < 2; ++face) {
      const double area = net.pore_face_areas[p][std::size_t(face)] * metres * metres;
      if (area <= 0) continue;
      const double pore_r = pore_d.at(p) / 2 * metres;
      const double r = std::min(pore_r, std::sqrt(area / kPi));
      const double g_face = std::min(r * r / (4 * area), 1 / (4 * kPi));
      const double x = box_coord(p, 0);
      const double length = face == 0 ? x : box[0] - x;
      links.push_back({(long long)p + 1, face == 0 ? kInlet : kOutlet, r, g_face, length, length, 0.0, 0.0});
    }

  std::vector<Adjacency> adjacency(np);
  for (std::size_t l = 0; l < links.size(); ++l) {
    const Link& k = links[l];
    const long long ends[2] = {k.pore1, k.pore2};
    for (int e = 0; e < 2; ++e) {
      if (ends[e] <= 0) continue;
      Adjacency& a = adjacency[std::size_t(ends[e] - 1)];
      const long long other = ends[1 - e];
      a.neighbours.push_back(other);
      a.links.push_back((long long)l + 1);
      a.inlet = a.inlet || other == kInlet;
      a.outlet = a.outlet || other == kOutlet;
    }
  }

  std::vector<std::string> paths;
  auto write_file = [&](const std::string& suffix, const std::string& header, std::size_t rows, const auto& format_row) {
    const std::string path = output_path(dir, prefix + suffix, "statoil prefix");
    write_text_file(path, [&](TextWriter& text) {
      text << header;
      text.rows(rows, [&](TextBuffer& out, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) format_row(out, i);
      });
    });
    paths.push_back(path);
  };

  // Fixed widths as pnflow's printf formats ("%9zu %8lld %15.8e"): a space, then the padded field.
  auto i9 = [](TextBuffer& out, long long v) -> TextBuffer& { return out.integer(v, 9); };
  auto i8 = [](TextBuffer& out, long long v) -> TextBuffer& { return (out << ' ').integer(v, 8); };
  auto e15 = [](TextBuffer& out, double v) -> TextBuffer& { return (out << ' ').scientific(v, 8, 15); };
  TextBuffer node1_header;
  node1_header.integer((long long)np);
  for (int axis = 0; axis < 3; ++axis) (node1_header << ' ').scientific(box[axis], 9);
  node1_header << '\n';
  write_file("_node1.dat", node1_header.str(), np, [&](TextBuffer& out, std::size_t p) {
    const Adjacency& a = adjacency[p];
    i9(out, (long long)p + 1);
    for (int axis = 0; axis < 3; ++axis) e15(out, box_coord(p, axis));
    (out << ' ').integer((long long)a.neighbours.size(), 5);
    for (long long n : a.neighbours) i8(out, n);
    (out << ' ').integer(a.inlet);
    (out << ' ').integer(a.outlet);
    for (long long l : a.links) i8(out, l);
    out << '\n';
  });
  write_file("_node2.dat", "", np, [&](TextBuffer& out, std::size_t p) {
    i9(out, (long long)p + 1);
    e15(out, pore_v.at(p) * metres * metres * metres);
    e15(out, pore_d.at(p) / 2 * metres);
    e15(out, pore_g.at(p));
    e15(out, 0.0) << '\n';
  });
  write_file("_link1.dat", std::to_string(links.size()) + "\n", links.size(), [&](TextBuffer& out, std::size_t l) {
    const Link& k = links[l];
    i9(out, (long long)l + 1);
    i8(out, k.pore1);
    i8(out, k.pore2);
    e15(out, k.radius);
    e15(out, k.shape_factor);
    e15(out, k.total_length) << '\n';
  });
  write_file("_link2.dat", "", links.size(), [&](TextBuffer& out, std::size_t l) {
    const Link& k = links[l];
    i9(out, (long long)l + 1);
    i8(out, k.pore1);
    i8(out, k.pore2);
    e15(out, k.pore1_length);
    e15(out, k.pore2_length);
    e15(out, k.throat_length);
    e15(out, 0.0);
    e15(out, 0.0) << '\n';
  });
  return paths;
}

}  // namespace gp::pnm
