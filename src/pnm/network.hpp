#pragma once
// The pore network of a watershed segmentation, built from RegionStats (cuda/pnm/region_stats.hpp)
// with the property names of PoreSpy's regions_to_network (porespy/networks/_getnet.py, v2.x,
// accuracy='standard') and OpenPNM's conventions.
//
// Pores are the regions that have voxels, in label order (pore.region_label maps pores to labels;
// PoreSpy relabels first, so it has no empty regions to leave out). Throats are the touching
// pairs, sorted by pore indices. Positions are physical: origin + spacing * voxel coordinate, the
// voxel centre; components x, y, z along the volume's axes (PoreSpy's follow the numpy array's axes).
// Lengths are in the caller's length unit; the distance map is physical already.
//
// Properties, and where they differ from PoreSpy on purpose:
//  pore.region_label, pore.coords = pore.geometric_centroid (centre of mass), pore.region_volume =
//    pore.volume (voxels * voxel volume), pore.equivalent_diameter (sphere of that volume):
//    as PoreSpy.
//  pore.inscribed_diameter: 2 * the largest distance-map value in the region; pore.local_peak is
//    that voxel. PoreSpy takes a distance transform of the region alone (distance to anything not
//    in the region), one EDT per region; ours measures to the solid, so it is equal where the
//    largest ball centred in the region stays inside it and larger where it reaches into a
//    neighbour.
//  pore.extended_diameter / pore.global_peak: the same over the region and the neighbours' voxels
//    that touch it (its dilation); PoreSpy scans the region's bounding box grown by one voxel.
//  pore.surface_area: the voxel faces the region shares with solid voxels, each with its area
//    (sy*sz for a face normal to x...). PoreSpy counts the region's boundary voxels minus the throat
//    voxels of throats to higher labels; faces measure the voxelised wall itself, with any spacing.
//  throat.conns [i, j], i < j; throat.global_peak and throat.inscribed_diameter (2 * largest
//    distance over the throat voxels): as PoreSpy. Throat voxels are PoreSpy's: the voxels of the
//    higher-labelled region that touch the lower one.
//  throat.cross_sectional_area: throat voxels * a_eff, a_eff = the mean area of the faces those
//    voxels share with the other region. With cubic voxels a_eff = voxel_size^2: PoreSpy's count *
//    voxel_size^2; with anisotropic voxels a flat throat normal to an axis gets its exact area.
//    Throats touching only at edges or corners (c26) use (sx*sy*sz)^(2/3).
//  throat.equivalent_diameter sqrt(4 A / pi): as PoreSpy.
//  throat.perimeter: throat voxels with a solid voxel among their 26 neighbours * sqrt(a_eff).
//    PoreSpy counts throat voxels with distance < 2 voxels, the same voxels for cubic voxels.
//  throat.total_length |c_i - t| + |c_j - t| (c: pore centroids, t: throat.global_peak) and
//    throat.direct_length |c_i - c_j|: as PoreSpy.
// Not in PoreSpy, for OpenPNM models and the Statoil export:
//  pore.coordination_number; pore.xmin .. pore.zmax (the region has voxels on that volume face);
//  throat.conduit_lengths [pore1, throat, pore2]: pore k's part is min(r_k, |c_k - t|) with r_k its
//    inscribed radius, the throat gets the rest, so the three add up to throat.total_length;
//  pore.shape_factor, throat.shape_factor: G = r^2 / (4 A) capped at 1/(4 pi) (a circle), r the
//    inscribed radius, A the throat's cross-sectional area or, for pores, the mean cross-section
//    volume / equivalent_diameter. For a polygon with an inscribed circle A / P^2 = r^2 / (4 A),
//    which is how OpenPNM and pnflow turn radius and G back into an area.
// Not computed: pore.phase / throat.phases (one phase), the 'high' accuracy (marching cubes) areas.
#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/pnm/region_stats.hpp"
#include "cuda/pnm/volume_view.hpp"

namespace gp::pnm {

struct NetworkGeometry {
  int nx = 0, ny = 0, nz = 0;        // volume size in voxels
  Spacing spacing;                   // voxel size
  std::array<double, 3> origin{0, 0, 0};  // position of voxel (0, 0, 0)'s centre
  std::string length_unit = "voxel";      // of spacing, origin and every length ("mm", "um"...)
};

enum class PropertyKind : std::uint8_t { real, integer, boolean };

// One OpenPNM array: `components` values per pore or throat (3 for positions, 2 for conns).
struct Property {
  std::string name;  // "pore.coords"
  int components = 1;
  PropertyKind kind = PropertyKind::real;
  int length_power = 0;        // unit = length unit ^ length_power; 0: a label, count or ratio
  std::vector<double> values;  // element i, component c at values[i * components + c]
  double at(std::size_t i, int c = 0) const { return values[i * std::size_t(components) + std::size_t(c)]; }
};

struct PoreNetwork {
  NetworkGeometry geometry;
  std::size_t pore_count = 0, throat_count = 0;
  std::vector<Property> pores, throats;  // in output order
  // Area of each pore's voxels on the volume faces x-, x+, y-, y+, z-, z+ (the Statoil writer's
  // boundary throats).
  std::vector<std::array<double, 6>> pore_face_areas;

  // The named property; throws gp::Error when there is none.
  const Property& pore(const std::string& name) const;
  const Property& throat(const std::string& name) const;
};

// Throws gp::Error when the statistics are inconsistent (a throat to an empty region).
PoreNetwork build_network(const RegionStats& stats, const NetworkGeometry& geometry);

// "mm", "mm^2", "mm^3" or "" for power 0.
std::string unit_of(const std::string& length_unit, int length_power);

// The network part of summary.json: counts, coordination numbers (mean, histogram, isolated
// pores), pore and throat size distributions (equivalent and inscribed diameters: 20-bin
// histograms over [0, max] with their edges, d10/d50/d90 by linear interpolation as numpy's
// percentile) and the porosity the caller measured.
nlohmann::ordered_json network_summary(const PoreNetwork& network, double porosity);

}  // namespace gp::pnm
