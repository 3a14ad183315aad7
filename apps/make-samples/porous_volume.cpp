#include "porous_volume.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/splitmix64.hpp"

namespace gp::samples {
namespace {

// A sequential stream of uniforms for the (inherently sequential) placement.
class Stream {
 public:
  explicit Stream(std::uint64_t seed) : state_(splitmix64(seed)) {}
  double uniform() { return double(splitmix64(state_ += 0x9E3779B97F4A7C15ull) >> 11) * 0x1p-53; }  // [0, 1)
  // Roughly standard normal: the sum of 12 uniforms minus 6 (Irwin-Hall), exact arithmetic.
  double normal() {
    double sum = 0;
    for (int i = 0; i < 12; ++i) sum += uniform();
    return sum - 6;
  }

 private:
  std::uint64_t state_;
};

// exp(x) with +, *, / only (so every machine gets the same bits): x / 2^8, a Taylor series, squared back.
double portable_exp(double x) {
  double y = x / 256, term = 1, sum = 1;
  for (int n = 1; n < 16; ++n) sum += term *= y / n;
  for (int i = 0; i < 8; ++i) sum *= sum;
  return sum;
}

std::array<double, 3> extent_of(const PorousParams& p) {  // voxel centres span [0, extent]
  return {(p.dims.nx - 1) * p.spacing.x, (p.dims.ny - 1) * p.spacing.y, (p.dims.nz - 1) * p.spacing.z};
}

double quantise_um(double mm) { return std::round(mm * 1e6) / 1e6; }  // sphere values to 1e-6 mm

// A uniform grid of sphere indices for neighbour queries within one cell size.
class SphereGrid {
 public:
  SphereGrid(const std::array<double, 3>& extent, double cell) : cell_(cell) {
    for (int a = 0; a < 3; ++a) n_[a] = std::max(1, int(extent[a] / cell) + 1);
    cells_.resize(std::size_t(n_[0]) * n_[1] * n_[2]);
  }
  void add(const Sphere& s, int index) { cells_[cell_of(s)].push_back(index); }
  template <class Visit>
  void for_neighbours(const Sphere& s, Visit&& visit) const {
    const int c[3] = {coord(s.x, 0), coord(s.y, 1), coord(s.z, 2)};
    for (int k = std::max(0, c[2] - 1); k <= std::min(n_[2] - 1, c[2] + 1); ++k)
      for (int j = std::max(0, c[1] - 1); j <= std::min(n_[1] - 1, c[1] + 1); ++j)
        for (int i = std::max(0, c[0] - 1); i <= std::min(n_[0] - 1, c[0] + 1); ++i)
          for (int index : cells_[(std::size_t(k) * n_[1] + j) * n_[0] + i])
            if (!visit(index)) return;
  }

 private:
  int coord(double v, int a) const { return std::clamp(int(v / cell_), 0, n_[a] - 1); }
  std::size_t cell_of(const Sphere& s) const {
    return (std::size_t(coord(s.z, 2)) * n_[1] + coord(s.y, 1)) * n_[0] + coord(s.x, 0);
  }
  double cell_;
  int n_[3];
  std::vector<std::vector<int>> cells_;
};

// Pore fraction estimate for the stopping rule: cells of a coarse grid whose centre a sphere covers.
class Coverage {
 public:
  Coverage(const std::array<double, 3>& extent, double min_cell) {
    double cell = min_cell;
    const double volume = extent[0] * extent[1] * extent[2];
    cell = std::max(cell, std::cbrt(volume / 32e6));  // at most ~32 M cells
    cell_ = cell;
    for (int a = 0; a < 3; ++a) n_[a] = std::max(1, int(extent[a] / cell) + 1);
    covered_.assign(std::size_t(n_[0]) * n_[1] * n_[2], 0);
  }
  void add(const Sphere& s) {
    const double c[3] = {s.x, s.y, s.z};
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::max(0, int(std::ceil((c[a] - s.r) / cell_)));
      hi[a] = std::min(n_[a] - 1, int(std::floor((c[a] + s.r) / cell_)));
    }
    for (int k = lo[2]; k <= hi[2]; ++k)
      for (int j = lo[1]; j <= hi[1]; ++j)
        for (int i = lo[0]; i <= hi[0]; ++i) {
          const double dx = i * cell_ - s.x, dy = j * cell_ - s.y, dz = k * cell_ - s.z;
          auto& cell = covered_[(std::size_t(k) * n_[1] + j) * n_[0] + i];
          if (!cell && dx * dx + dy * dy + dz * dz < s.r * s.r) cell = 1, ++count_;
        }
  }
  double fraction() const { return double(count_) / double(covered_.size()); }

 private:
  double cell_;
  int n_[3];
  std::vector<std::uint8_t> covered_;
  std::size_t count_ = 0;
};

struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int a) {
    while (parent[std::size_t(a)] != a) a = parent[std::size_t(a)] = parent[std::size_t(parent[std::size_t(a)])];
    return a;
  }
  void join(int a, int b) {
    a = find(a), b = find(b);
    if (a != b) parent[std::size_t(std::max(a, b))] = std::min(a, b);
  }
};

std::vector<bool> border_components(const std::vector<Sphere>& spheres, const SphereGrid& grid,
                                    const std::array<double, 3>& extent) {
  UnionFind sets(spheres.size());
  for (std::size_t a = 0; a < spheres.size(); ++a)
    grid.for_neighbours(spheres[a], [&](int b) {
      const Sphere &p = spheres[a], &q = spheres[std::size_t(b)];
      const double dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z, reach = p.r + q.r;
      if (dx * dx + dy * dy + dz * dz < reach * reach) sets.join(int(a), b);
      return true;
    });
  std::vector<bool> root_at_border(spheres.size(), false);
  for (std::size_t a = 0; a < spheres.size(); ++a) {
    const Sphere& s = spheres[a];
    const bool at_border = s.x - s.r < 0 || s.y - s.r < 0 || s.z - s.r < 0 || s.x + s.r > extent[0] ||
                           s.y + s.r > extent[1] || s.z + s.r > extent[2];
    if (at_border) root_at_border[std::size_t(sets.find(int(a)))] = true;
  }
  std::vector<bool> connected(spheres.size());
  for (std::size_t a = 0; a < spheres.size(); ++a) connected[a] = root_at_border[std::size_t(sets.find(int(a)))];
  return connected;
}

}  // namespace

// Smooth texture: value noise on lattices of halving spacing, trilinear with smoothstep weights.
struct PhantomRenderer::Texture {
  Texture(const PorousParams& p, const std::array<double, 3>& extent) {
    double scale = p.texture_scale_mm, amplitude = 1;
    for (int o = 0; o < kOctaves; ++o, scale /= 2, amplitude /= 2) {
      Octave& oct = octaves_[o];
      oct.inverse_scale = 1 / scale;
      oct.amplitude = amplitude;
      for (int a = 0; a < 3; ++a) oct.n[a] = int(extent[a] / scale) + 2;
      oct.values.resize(std::size_t(oct.n[0]) * oct.n[1] * oct.n[2]);
      for (std::size_t i = 0; i < oct.values.size(); ++i)
        oct.values[i] = float(double(splitmix64(p.seed * 0x100000001B3ull + std::uint64_t(o) * 0x9E3779B97F4A7C15ull + i) >> 40) *
                              0x1p-24);
      norm_ += amplitude;
    }
  }
  // In [0, 1).
  double at(double x, double y, double z) const {
    double sum = 0;
    for (const Octave& o : octaves_) sum += o.amplitude * o.at(x, y, z);
    return sum / norm_;
  }

  static constexpr int kOctaves = 3;
  struct Octave {
    double inverse_scale = 1, amplitude = 1;
    int n[3] = {0, 0, 0};
    std::vector<float> values;
    double at(double x, double y, double z) const {
      const double p[3] = {x * inverse_scale, y * inverse_scale, z * inverse_scale};
      int i[3];
      double t[3];
      for (int a = 0; a < 3; ++a) {
        i[a] = std::clamp(int(p[a]), 0, n[a] - 2);
        const double f = std::clamp(p[a] - i[a], 0.0, 1.0);
        t[a] = f * f * (3 - 2 * f);
      }
      auto v = [&](int dx, int dy, int dz) {
        return double(values[(std::size_t(i[2] + dz) * n[1] + std::size_t(i[1] + dy)) * n[0] + std::size_t(i[0] + dx)]);
      };
      auto lerp = [](double a, double b, double w) { return a + (b - a) * w; };
      const double x00 = lerp(v(0, 0, 0), v(1, 0, 0), t[0]), x10 = lerp(v(0, 1, 0), v(1, 1, 0), t[0]);
      const double x01 = lerp(v(0, 0, 1), v(1, 0, 1), t[0]), x11 = lerp(v(0, 1, 1), v(1, 1, 1), t[0]);
      return lerp(lerp(x00, x10, t[1]), lerp(x01, x11, t[1]), t[2]);
    }
  };
  std::array<Octave, kOctaves> octaves_;
  double norm_ = 0;
};

namespace {

// Roughly standard normal noise for voxel `index`: Irwin-Hall of four 16-bit uniforms of one hash.
double voxel_noise(std::uint64_t index, std::uint64_t seed) {
  std::uint64_t h = splitmix64(index ^ splitmix64(seed + 0xC0FFEE));
  double sum = 0;
  for (int i = 0; i < 4; ++i, h >>= 16) sum += double(h & 0xFFFF) * (1.0 / 65536.0);
  return (sum - 2.0) * 1.7320508075688772;
}

}  // namespace

PorousPhantom place_pores(const PorousParams& p) {
  PorousPhantom phantom;
  phantom.params = p;
  phantom.partial_volume_width_mm = (p.spacing.x + p.spacing.y + p.spacing.z) / 3;
  const auto extent = extent_of(p);
  SphereGrid grid(extent, 2 * p.radius_max_mm);  // covers both the spacing and the overlap queries
  Coverage coverage(extent, std::min({p.spacing.x, p.spacing.y, p.spacing.z}));
  Stream rng(p.seed);
  auto& spheres = phantom.spheres;

  auto radius = [&] {
    for (;;) {
      const double r = p.radius_median_mm * portable_exp(p.radius_sigma * rng.normal());
      if (r >= p.radius_min_mm && r <= p.radius_max_mm) return quantise_um(r);
    }
  };
  auto fits = [&](const Sphere& s) {
    if (s.x < 0 || s.y < 0 || s.z < 0 || s.x > extent[0] || s.y > extent[1] || s.z > extent[2]) return false;
    bool ok = true;
    grid.for_neighbours(s, [&](int b) {
      const Sphere& q = spheres[std::size_t(b)];
      const double dx = s.x - q.x, dy = s.y - q.y, dz = s.z - q.z, apart = p.min_distance_factor * (s.r + q.r);
      ok = dx * dx + dy * dy + dz * dz >= apart * apart;
      return ok;
    });
    return ok;
  };

  // Expected count at the target (sum of volumes ~ 1.3x the union), for the attempt budget.
  const double mean_volume = 4.18879 * p.radius_median_mm * p.radius_median_mm * p.radius_median_mm * 1.6;
  const double expected = 1.3 * p.target_porosity * extent[0] * extent[1] * extent[2] / mean_volume;
  const std::uint64_t max_attempts = std::uint64_t(200 * std::max(100.0, expected));
  for (std::uint64_t attempt = 0; attempt < max_attempts && coverage.fraction() < p.target_porosity; ++attempt) {
    Sphere s;
    s.r = radius();
    if (spheres.empty() || rng.uniform() < p.free_placement_fraction) {
      s.x = rng.uniform() * extent[0], s.y = rng.uniform() * extent[1], s.z = rng.uniform() * extent[2];
    } else {
      const Sphere& parent = spheres[std::size_t(rng.uniform() * double(spheres.size()))];
      double d[3], length2;
      do {  // a direction: a point in the unit ball, normalised
        for (double& c : d) c = 2 * rng.uniform() - 1;
        length2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      } while (length2 > 1 || length2 < 1e-4);
      const double distance = (0.76 + 0.16 * rng.uniform()) * (parent.r + s.r) / std::sqrt(length2);
      s.x = parent.x + d[0] * distance, s.y = parent.y + d[1] * distance, s.z = parent.z + d[2] * distance;
    }
    s.x = quantise_um(s.x), s.y = quantise_um(s.y), s.z = quantise_um(s.z);
    if (!fits(s)) continue;
    grid.add(s, int(spheres.size()));
    spheres.push_back(s);
    coverage.add(s);
  }
  phantom.border_connected = border_components(spheres, grid, extent);
  return phantom;
}

PhantomRenderer::PhantomRenderer(const PorousPhantom& phantom)
    : phantom_(phantom), texture_(std::make_unique<Texture>(phantom.params, extent_of(phantom.params))) {
  const PorousParams& p = phantom.params;
  slabs_ = (p.dims.nz + kSlabSlices - 1) / kSlabSlices;
  spheres_of_slab_.resize(std::size_t(slabs_));
  const double reach_extra = 0.5 * phantom.partial_volume_width_mm;  // as in render()
  for (std::size_t index = 0; index < phantom.spheres.size(); ++index) {
    const Sphere& s = phantom.spheres[index];
    const int k_lo = std::max(0, int(std::ceil((s.z - s.r - reach_extra) / p.spacing.z)));
    const int k_hi = std::min(p.dims.nz - 1, int(std::floor((s.z + s.r + reach_extra) / p.spacing.z)));
    for (int slab = k_lo / kSlabSlices; k_lo <= k_hi && slab <= k_hi / kSlabSlices; ++slab)
      spheres_of_slab_[std::size_t(slab)].push_back(int(index));
  }
}

PhantomRenderer::~PhantomRenderer() = default;

int PhantomRenderer::slab_end(int slab) const { return std::min(phantom_.params.dims.nz, (slab + 1) * kSlabSlices); }

PhantomCounts PhantomRenderer::render(int slab, std::vector<float>& values) const {
  const PorousPhantom& phantom = phantom_;
  const PorousParams& p = phantom.params;
  const int nx = p.dims.nx, ny = p.dims.ny;
  const int z0 = slab_begin(slab), z1 = slab_end(slab);
  const std::size_t slice = std::size_t(nx) * ny, count = slice * std::size_t(z1 - z0);

  // Signed distance to the nearest sphere surface (negative inside; exact outside the union),
  // and whether the voxel centre is inside a sphere (bit 0) of a border-connected one (bit 1).
  std::vector<float> distance(count, std::numeric_limits<float>::max());
  std::vector<std::uint8_t> inside(count, 0);
  // Only distances within the partial-volume ramp matter (|d| < width / 2): voxels further out
  // stay "far" (no pore), voxels deeper in are marked -width (all pore) without a square root.
  const double width = phantom.partial_volume_width_mm;
  const double margin = 0.5 * width;
  const double sx = p.spacing.x, sy = p.spacing.y, sz = p.spacing.z;
  for (int index : spheres_of_slab_[std::size_t(slab)]) {
    const Sphere& s = phantom.spheres[std::size_t(index)];
    const double reach = s.r + margin, deep = std::max(0.0, s.r - width);
    const int k_lo = std::max(z0, int(std::ceil((s.z - reach) / sz))), k_hi = std::min(z1 - 1, int(std::floor((s.z + reach) / sz)));
    const int j_lo = std::max(0, int(std::ceil((s.y - reach) / sy))), j_hi = std::min(ny - 1, int(std::floor((s.y + reach) / sy)));
    const int i_lo = std::max(0, int(std::ceil((s.x - reach) / sx))), i_hi = std::min(nx - 1, int(std::floor((s.x + reach) / sx)));
    const std::uint8_t flag = phantom.border_connected[std::size_t(index)] ? 3 : 1;
    for (int k = k_lo; k <= k_hi; ++k)
      for (int j = j_lo; j <= j_hi; ++j) {
        const double dz = k * sz - s.z, dy = j * sy - s.y, dyz2 = dy * dy + dz * dz;
        const std::size_t row = (std::size_t(k - z0) * ny + std::size_t(j)) * nx;
        for (int i = i_lo; i <= i_hi; ++i) {
          const double dx = i * sx - s.x, d2 = dx * dx + dyz2;
          if (d2 > reach * reach) continue;
          float& nearest = distance[row + std::size_t(i)];
          nearest = std::min(nearest, d2 < deep * deep ? float(-width) : float(std::sqrt(d2) - s.r));
          if (d2 < s.r * s.r) inside[row + std::size_t(i)] |= flag;
        }
      }
  }

  values.resize(count);
  PhantomCounts counts;
  for (int k = z0; k < z1; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const std::size_t local = (std::size_t(k - z0) * ny + std::size_t(j)) * nx + std::size_t(i);
        counts.pore_voxels += inside[local] & 1;
        counts.border_connected_voxels += (inside[local] >> 1) & 1;
        // Partial volume: the pore fraction ramps from 1 to 0 across the surface.
        const double pore = std::clamp(0.5 - double(distance[local]) / width, 0.0, 1.0);
        double v = p.air_hu * pore;
        if (pore < 1) {
          const double solid = p.solid_hu + p.solid_variation_hu * (2 * texture_->at(i * sx, j * sy, k * sz) - 1);
          v += solid * (1 - pore);
        }
        values[local] = float(v + p.noise_sigma_hu * voxel_noise(std::uint64_t(z0) * slice + local, p.seed));
      }
  return counts;
}

}  // namespace gp::samples
