#pragma once
// A synthetic porous food (bread crumb, aerated chocolate) as a micro-CT would see it: spherical
// pores that overlap their neighbours a little, so they connect through narrow throats, in a
// textured solid matrix; partial-volume edges and sensor noise. Everything is a pure function of
// the parameters (seed included): byte-identical output whatever the thread count or machine
// (placement and rendering use only +, -, *, / and sqrt, which IEEE 754 rounds exactly).
#include <cstdint>
#include <memory>
#include <vector>

#include "io/parallel_items.hpp"
#include "io/volume.hpp"

namespace gp::samples {

struct PorousParams {
  io::Dims3 dims{96, 96, 80};
  io::Spacing3 spacing{0.02, 0.02, 0.025};  // mm
  std::uint64_t seed = 1;
  // Pore radii: lognormal (median, sigma of the log), truncated to [min, max] by redrawing.
  double radius_median_mm = 0.14, radius_sigma = 0.35, radius_min_mm = 0.06, radius_max_mm = 0.30;
  // Centres at least this times the sum of the radii apart: neighbours overlap by at most 25%.
  double min_distance_factor = 0.75;
  // A new pore grows from a random existing one at (0.76 .. 0.92) x the sum of radii (they
  // overlap: a throat); this fraction of candidates are placed anywhere instead.
  double free_placement_fraction = 0.1;
  double target_porosity = 0.5;  // placement stops once about this fraction of the box is pore
  double air_hu = -1000;
  double solid_hu = 500, solid_variation_hu = 200;  // matrix: solid +- variation (smooth texture)
  double texture_scale_mm = 0.5;                     // size of the texture's largest features
  double noise_sigma_hu = 40;
};

struct Sphere {
  double x, y, z, r;  // mm; voxel (i, j, k) has its centre at (i sx, j sy, k sz)
};

struct PorousPhantom {
  PorousParams params;
  std::vector<Sphere> spheres;       // in placement order
  std::vector<bool> border_connected;  // per sphere: its overlap-graph component reaches the box border
  double partial_volume_width_mm = 0;  // pore fraction ramps from 1 to 0 over this width at surfaces
};

// Places the pores (sequential random sequential addition; fast: a uniform grid for neighbours).
PorousPhantom place_pores(const PorousParams& params);

// Voxel counts of the noise-free construction.
struct PhantomCounts {
  std::uint64_t pore_voxels = 0;              // voxel centres inside any sphere
  std::uint64_t border_connected_voxels = 0;  // ... inside a sphere of a border-connected component
};

// Renders a phantom in Hounsfield units, a slab of slices at a time; slabs may render concurrently.
class PhantomRenderer {
 public:
  static constexpr int kSlabSlices = 8;
  explicit PhantomRenderer(const PorousPhantom& phantom);
  ~PhantomRenderer();
  int slabs() const { return slabs_; }
  int slab_begin(int slab) const { return slab * kSlabSlices; }
  int slab_end(int slab) const;
  // Slices [slab_begin, slab_end) into `values` (x fastest); returns the slab's voxel counts.
  PhantomCounts render(int slab, std::vector<float>& values) const;

 private:
  struct Texture;
  const PorousPhantom& phantom_;
  int slabs_ = 0;
  std::vector<std::vector<int>> spheres_of_slab_;
  std::unique_ptr<Texture> texture_;
};

// All slabs on `threads` threads: emit(z_begin, z_end, values) receives each slab exactly once,
// possibly concurrently. Returns the whole volume's counts.
template <class Emit>
PhantomCounts render_phantom(const PorousPhantom& phantom, int threads, Emit&& emit) {
  const PhantomRenderer renderer(phantom);
  std::vector<PhantomCounts> counts(std::size_t(renderer.slabs()));
  io::for_each_item(renderer.slabs(), threads, [&](int slab) {
    std::vector<float> values;
    counts[std::size_t(slab)] = renderer.render(slab, values);
    emit(renderer.slab_begin(slab), renderer.slab_end(slab), values.data());
  });
  PhantomCounts total;
  for (const auto& c : counts) {
    total.pore_voxels += c.pore_voxels;
    total.border_connected_voxels += c.border_connected_voxels;
  }
  return total;
}

}  // namespace gp::samples
