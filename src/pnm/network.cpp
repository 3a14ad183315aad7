// Pore network properties from region statistics; definitions in network.hpp.
#include "pnm/network.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <iterator>
#include <utility>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "cuda/pnm/region_stats_voxel.hpp"

namespace gp::pnm {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kCircleShapeFactor = 1.0 / (4.0 * kPi);

using Vec3 = std::array<double, 3>;

double distance_between(const Vec3& a, const Vec3& b) {
  const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
  return std::sqrt(dx * dx + dy * dy + dz * dz);
}

double shape_factor(double radius, double area) {
  return area > 0 ? std::min(radius * radius / (4.0 * area), kCircleShapeFactor) : kCircleShapeFactor;
}

// Positions of voxels and centroids in physical units.
struct Frame {
  int nx, ny;
  Vec3 spacing, origin;
  Vec3 voxel(std::uint64_t index) const {
    const std::uint64_t x = index % std::uint64_t(nx), row = index / std::uint64_t(nx);
    const std::uint64_t y = row % std::uint64_t(ny), z = row / std::uint64_t(ny);
    return {origin[0] + spacing[0] * double(x), origin[1] + spacing[1] * double(y), origin[2] + spacing[2] * double(z)};
  }
  Vec3 centroid(std::uint64_t n, std::uint64_t sx, std::uint64_t sy, std::uint64_t sz) const {
    const double count = double(n);
    return {origin[0] + spacing[0] * (double(sx) / count), origin[1] + spacing[1] * (double(sy) / count),
            origin[2] + spacing[2] * (double(sz) / count)};
  }
};

// Mean area of the faces a throat side shares with the other region (see network.hpp).
double effective_face_area(const InterfaceStat& side, const Vec3& s) {
  const double fx = double(side.faces[0]), fy = double(side.faces[1]), fz = double(side.faces[2]);
  const double faces = fx + fy + fz;
  if (faces == 0) return std::pow(s[0] * s[1] * s[2], 2.0 / 3.0);
  return (fx * s[1] * s[2] + fy * s[0] * s[2] + fz * s[0] * s[1]) / faces;
}

class PropertyTable {
 public:
  explicit PropertyTable(std::size_t count) : count_(count) {}
  Property& add(const std::string& name, int components, PropertyKind kind, int length_power) {
    Property p;
    p.name = name;
    p.components = components;
    p.kind = kind;
    p.length_power = length_power;
    p.values.assign(count_ * std::size_t(components), 0.0);
    props_.push_back(std::move(p));
    return props_.back();
  }
  std::vector<Property> take() { return {std::make_move_iterator(props_.begin()), std::make_move_iterator(props_.end())}; }

 private:
  std::size_t count_;
  std::deque<Property> props_;  // references from add() stay valid
};

void set3(Property& p, std::size_t i, const Vec3& v) {
  for (int c = 0; c < 3; ++c) p.values[i * 3 + std::size_t(c)] = v[std::size_t(c)];
}

const Property& find_property(const std::vector<Property>& props, const std::string& name) {
  for (const Property& p : props)
    if (p.name == name) return p;
  throw Error("pore network has no property '" + name + "'");
}

}  // namespace

const Property& PoreNetwork::pore(const std::string& name) const { return find_property(pores, name); }
const Property& PoreNetwork::throat(const std::string& name) const { return find_property(throats, name); }

std::string unit_of(const std::string& length_unit, int length_power) {
  if (length_power == 0) return "";
  if (length_power == 1) return length_unit;
  return length_unit + "^" + std::to_string(length_power);
}

PoreNetwork build_network(const RegionStats& stats, const NetworkGeometry& geometry) {
  PoreNetwork net;
  net.geometry = geometry;
  const Vec3 s{double(geometry.spacing.x), double(geometry.spacing.y), double(geometry.spacing.z)};
  const Frame frame{geometry.nx, geometry.ny, s, geometry.origin};
  const double voxel_volume = s[0] * s[1] * s[2];

  // Pores: the non-empty regions, in label order.
  std::vector<std::int64_t> pore_of(stats.regions.size(), -1);
  std::vector<std::uint32_t> region_of;
  for (std::size_t r = 0; r < stats.regions.size(); ++r)
    if (stats.regions[r].voxels > 0) {
      pore_of[r] = std::int64_t(region_of.size());
      region_of.push_back(std::uint32_t(r));
    }
  const std::size_t np = region_of.size(), nt = stats.throats.size();
  net.pore_count = np;
  net.throat_count = nt;

  // Extended peaks: the region's own peak or a touching neighbour voxel's.
  std::vector<std::pair<float, std::uint64_t>> extended(np);
  for (std::size_t p = 0; p < np; ++p) {
    const RegionStat& r = stats.regions[region_of[p]];
    extended[p] = {r.max_distance, r.max_index};
  }
  std::vector<std::array<std::size_t, 2>> conns(nt);
  std::vector<std::size_t> coordination(np, 0);
  for (std::size_t t = 0; t < nt; ++t) {
    const ThroatStat& th = stats.throats[t];
    if (th.a == 0 || th.b <= th.a || th.b > stats.regions.size() || pore_of[th.a - 1] < 0 || pore_of[th.b - 1] < 0)
      throw Error("build_network: throat (" + std::to_string(th.a) + ", " + std::to_string(th.b) +
                  ") between missing or empty regions");
    const std::size_t i = std::size_t(pore_of[th.a - 1]), j = std::size_t(pore_of[th.b - 1]);
    conns[t] = {i, j};
    ++coordination[i];
    ++coordination[j];
    auto take = [](std::pair<float, std::uint64_t>& peak, const InterfaceStat& side) {
      if (stats::beats(side.max_distance, side.max_index, peak.first, peak.second)) peak = {side.max_distance, side.max_index};
    };
    take(extended[i], th.on_b);  // b's voxels touching a lie in a's dilation
    take(extended[j], th.on_a);
  }

  PropertyTable pt(np);
  Property& label = pt.add("pore.region_label", 1, PropertyKind::integer, 0);
  Property& coords = pt.add("pore.coords", 3, PropertyKind::real, 1);
  Property& centroid = pt.add("pore.geometric_centroid", 3, PropertyKind::real, 1);
  Property& local_peak = pt.add("pore.local_peak", 3, PropertyKind::real, 1);
  Property& global_peak = pt.add("pore.global_peak", 3, PropertyKind::real, 1);
  Property& region_volume = pt.add("pore.region_volume", 1, PropertyKind::real, 3);
  Property& volume = pt.add("pore.volume", 1, PropertyKind::real, 3);
  Property& equivalent = pt.add("pore.equivalent_diameter", 1, PropertyKind::real, 1);
  Property& inscribed = pt.add("pore.inscribed_diameter", 1, PropertyKind::real, 1);
  Property& extended_d = pt.add("pore.extended_diameter", 1, PropertyKind::real, 1);
  Property& surface = pt.add("pore.surface_area", 1, PropertyKind::real, 2);
  Property& pore_g = pt.add("pore.shape_factor", 1, PropertyKind::real, 0);
  Property& coordination_p = pt.add("pore.coordination_number", 1, PropertyKind::integer, 0);
  static const char* const face_names[6] = {"pore.xmin", "pore.xmax", "pore.ymin", "pore.ymax", "pore.zmin", "pore.zmax"};
  Property* on_face[6];
  for (int f = 0; f < 6; ++f) on_face[f] = &pt.add(face_names[f], 1, PropertyKind::boolean, 0);
  const double face_area[6] = {s[1] * s[2], s[1] * s[2], s[0] * s[2], s[0] * s[2], s[0] * s[1], s[0] * s[1]};

  std::vector<Vec3> pore_centroid(np);
  std::vector<double> pore_radius(np);
  net.pore_face_areas.resize(np);
  // Each pore and each throat below only writes its own entries: on all cores.
  parallel_for(long(np), [&](long first, long last) {
    for (std::size_t p = std::size_t(first); p < std::size_t(last); ++p) {
      const RegionStat& r = stats.regions[region_of[p]];
      pore_centroid[p] = frame.centroid(r.voxels, r.sum_x, r.sum_y, r.sum_z);
      label.values[p] = double(region_of[p] + 1);
      set3(coords, p, pore_centroid[p]);
      set3(centroid, p, pore_centroid[p]);
      set3(local_peak, p, frame.voxel(r.max_index));
      set3(global_peak, p, frame.voxel(extended[p].second));
      const double v = double(r.voxels) * voxel_volume;
      region_volume.values[p] = v;
      volume.values[p] = v;
      const double d_eq = 2.0 * std::cbrt(3.0 * v / (4.0 * kPi));
      equivalent.values[p] = d_eq;
      pore_radius[p] = double(r.max_distance);
      inscribed.values[p] = 2.0 * pore_radius[p];
      extended_d.values[p] = 2.0 * double(extended[p].first);
      surface.values[p] = double(r.solid_faces[0]) * face_area[0] + double(r.solid_faces[1]) * face_area[2] +
                          double(r.solid_faces[2]) * face_area[4];
      pore_g.values[p] = shape_factor(double(r.max_distance), v / d_eq);
      coordination_p.values[p] = double(coordination[p]);
      for (int f = 0; f < 6; ++f) {
        on_face[f]->values[p] = r.border_voxels[f] > 0 ? 1.0 : 0.0;
        net.pore_face_areas[p][std::size_t(f)] = double(r.border_voxels[f]) * face_area[f];
      }
    }
  }, 4096);
  net.pores = pt.take();

  PropertyTable tt(nt);
  Property& conn = tt.add("throat.conns", 2, PropertyKind::integer, 0);
  Property& area = tt.add("throat.cross_sectional_area", 1, PropertyKind::real, 2);
  Property& t_equivalent = tt.add("throat.equivalent_diameter", 1, PropertyKind::real, 1);
  Property& t_inscribed = tt.add("throat.inscribed_diameter", 1, PropertyKind::real, 1);
  Property& perimeter = tt.add("throat.perimeter", 1, PropertyKind::real, 1);
  Property& t_peak = tt.add("throat.global_peak", 3, PropertyKind::real, 1);
  Property& direct = tt.add("throat.direct_length", 1, PropertyKind::real, 1);
  Property& total = tt.add("throat.total_length", 1, PropertyKind::real, 1);
  Property& conduit = tt.add("throat.conduit_lengths", 3, PropertyKind::real, 1);
  Property& throat_g = tt.add("throat.shape_factor", 1, PropertyKind::real, 0);
  parallel_for(long(nt), [&](long first, long last) {
    for (std::size_t t = std::size_t(first); t < std::size_t(last); ++t) {
      const ThroatStat& th = stats.throats[t];
      const std::size_t i = conns[t][0], j = conns[t][1];
      conn.values[t * 2] = double(i);
      conn.values[t * 2 + 1] = double(j);
      const double a_eff = effective_face_area(th.on_b, s);
      const double a = double(th.on_b.voxels) * a_eff;
      area.values[t] = a;
      t_equivalent.values[t] = std::sqrt(4.0 * a / kPi);
      const double r_t = double(th.on_b.max_distance);
      t_inscribed.values[t] = 2.0 * r_t;
      perimeter.values[t] = double(th.on_b.rim_voxels) * std::sqrt(a_eff);
      const Vec3 peak = frame.voxel(th.on_b.max_index);
      set3(t_peak, t, peak);
      const double to_i = distance_between(pore_centroid[i], peak), to_j = distance_between(pore_centroid[j], peak);
      direct.values[t] = distance_between(pore_centroid[i], pore_centroid[j]);
      total.values[t] = to_i + to_j;
      const double in_i = std::min(pore_radius[i], to_i), in_j = std::min(pore_radius[j], to_j);
      conduit.values[t * 3] = in_i;
      conduit.values[t * 3 + 1] = (to_i - in_i) + (to_j - in_j);
      conduit.values[t * 3 + 2] = in_j;
      throat_g.values[t] = shape_factor(r_t, a);
    }
  }, 4096);
  net.throats = tt.take();
  return net;
}

namespace {

double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  const double pos = q * double(sorted.size() - 1);
  const std::size_t lo = std::size_t(std::floor(pos)), hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
}

nlohmann::ordered_json distribution(const Property& p, const std::string& length_unit) {
  constexpr int kBins = 20;
  std::vector<double> v = p.values;
  std::sort(v.begin(), v.end());
  nlohmann::ordered_json d;
  d["unit"] = unit_of(length_unit, p.length_power);
  d["count"] = v.size();
  if (v.empty()) {
    d["histogram"] = {{"bin_edges", nlohmann::ordered_json::array()}, {"counts", nlohmann::ordered_json::array()}};
    return d;
  }
  double sum = 0;
  for (double x : v) sum += x;
  d["min"] = v.front();
  d["max"] = v.back();
  d["mean"] = sum / double(v.size());
  d["d10"] = percentile(v, 0.10);
  d["d50"] = percentile(v, 0.50);
  d["d90"] = percentile(v, 0.90);
  const double top = v.back() > 0 ? v.back() : 1.0;
  std::vector<double> edges(kBins + 1);
  for (int b = 0; b <= kBins; ++b) edges[std::size_t(b)] = top * double(b) / kBins;
  std::vector<std::size_t> counts(kBins, 0);
  for (double x : v) {
    int b = int(std::floor(x / top * kBins));
    counts[std::size_t(std::clamp(b, 0, kBins - 1))]++;
  }
  d["histogram"] = {{"bin_edges", edges}, {"counts", counts}};
  return d;
}

}  // namespace

nlohmann::ordered_json network_summary(const PoreNetwork& net, double porosity) {
  nlohmann::ordered_json j;
  j["pores"] = net.pore_count;
  j["throats"] = net.throat_count;
  j["porosity"] = porosity;
  j["length_unit"] = net.geometry.length_unit;

  const Property& z = net.pore("pore.coordination_number");
  std::size_t max_z = 0, isolated = 0;
  double sum_z = 0;
  for (double v : z.values) {
    max_z = std::max(max_z, std::size_t(v));
    isolated += v == 0;
    sum_z += v;
  }
  std::vector<std::size_t> z_values(net.pore_count > 0 ? max_z + 1 : 0), z_counts(z_values.size(), 0);
  for (std::size_t k = 0; k < z_values.size(); ++k) z_values[k] = k;
  for (double v : z.values) z_counts[std::size_t(v)]++;
  j["coordination_number"] = {
      {"mean", net.pore_count > 0 ? sum_z / double(net.pore_count) : 0.0},
      {"max", max_z},
      {"isolated_pores", isolated},
      {"histogram", {{"coordination_number", z_values}, {"pores", z_counts}}}};

  double pore_volume = 0;
  for (double v : net.pore("pore.volume").values) pore_volume += v;
  j["total_pore_volume"] = pore_volume;
  j["volume_unit"] = unit_of(net.geometry.length_unit, 3);
  const std::string& unit = net.geometry.length_unit;
  j["pore_size"] = {{"equivalent_diameter", distribution(net.pore("pore.equivalent_diameter"), unit)},
                    {"inscribed_diameter", distribution(net.pore("pore.inscribed_diameter"), unit)}};
  j["throat_size"] = {{"equivalent_diameter", distribution(net.throat("throat.equivalent_diameter"), unit)},
                      {"inscribed_diameter", distribution(net.throat("throat.inscribed_diameter"), unit)}};
  return j;
}

}  // namespace gp::pnm
