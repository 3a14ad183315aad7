#pragma once
// Per-region and per-throat sums and maxima over a watershed label volume and its distance map:
// what the pore network (src/pnm/network.hpp) is built from. nvcc-safe.
//
// Definitions (voxel coordinates; z is global, the index of voxel (x, y, z) is (z*ny + y)*nx + x):
//  * region r (1..region_count): the voxels labelled r. Label 0 is solid or unassigned pore space.
//  * solid voxel: distance map == 0 (the map is 0 on solid and positive in the pore space).
//  * throat {a, b}, a < b: a voxel of a and a voxel of b are neighbours under the connectivity
//    (c6 = PoreSpy's regions_to_network, which dilates each region by skimage ball(1), the
//    6-neighbour cross; c26 = the 3x3x3 cube).
//  * the throat's interface on side b: the voxels of b with a neighbour in a. This is PoreSpy's
//    throat (its dilation of pore a, restricted to region b, for b > a). Side a likewise.
//  * maxima of the distance map: the first voxel by index wins ties, so results do not depend on
//    the order voxels are visited in. Negative values and NaN count as 0.
//
// Slabs: a call counts the voxels with z in [z_begin, z_end) only, and reads their neighbours from
// the views, which must also hold slices z_begin - 1 and z_end where the volume has them (one halo
// slice each side). merge_region_stats of the calls over consecutive slabs is exactly the result
// over the whole range: every field is an integer sum or a maximum with the tie rule above.
// The GPU and CPU versions return identical results.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "cuda/pnm/volume_view.hpp"

namespace gp::pnm {

constexpr std::uint64_t kNoVoxel = ~std::uint64_t(0);

// The voxels of one region that touch another region (one side of a throat).
struct InterfaceStat {
  std::uint64_t voxels = 0;
  std::uint64_t sum_x = 0, sum_y = 0, sum_z = 0;
  std::uint64_t faces[3] = {0, 0, 0};  // faces these voxels share with the other region, normal to x, y, z
  std::uint64_t rim_voxels = 0;        // voxels with a solid voxel among their 26 neighbours
  float max_distance = 0;              // largest distance-map value over the voxels
  std::uint64_t max_index = kNoVoxel;  // where it is
};

struct RegionStat {
  std::uint64_t voxels = 0;
  std::uint64_t sum_x = 0, sum_y = 0, sum_z = 0;
  std::uint64_t solid_faces[3] = {0, 0, 0};  // faces shared with solid voxels, normal to x, y, z
  // Voxels on each face of the volume: x = 0, x = nx-1, y = 0, y = ny-1, z = 0, z = nz-1.
  std::uint64_t border_voxels[6] = {0, 0, 0, 0, 0, 0};
  float max_distance = 0;
  std::uint64_t max_index = kNoVoxel;
};

struct ThroatStat {
  std::uint32_t a = 0, b = 0;  // region labels, a < b
  InterfaceStat on_a;          // voxels of a touching b
  InterfaceStat on_b;          // voxels of b touching a (PoreSpy's throat voxels)
};

struct RegionStats {
  std::vector<RegionStat> regions;  // index = label - 1, region_count entries
  std::vector<ThroatStat> throats;  // sorted by (a, b)
};

// GPU: labels and distance are device views of the same volume (their held ranges may differ).
// Device memory comes from `scratch`: 120 bytes per region, then, once a first pass has counted
// them, 32 bytes per record (one record per interface voxel and throat side: a voxel touching k
// other regions makes k records) plus CUB's sort storage, then 88 bytes per throat side.
// Synchronises `stream` (copies the results to the host). Throws gp::Error on labels above
// region_count, views that do not hold the range and its halo, or volumes over 2^44 voxels.
RegionStats region_stats_gpu(VolumeView<const std::uint32_t> labels, VolumeView<const float> distance,
                             std::uint32_t region_count, int z_begin, int z_end, Connectivity connectivity,
                             const ScratchAllocator& scratch, cudaStream_t stream);

// CPU reference (multithreaded): host views, same results.
RegionStats region_stats_cpu(VolumeView<const std::uint32_t> labels, VolumeView<const float> distance,
                             std::uint32_t region_count, int z_begin, int z_end, Connectivity connectivity);

// Adds `part` (another z range of the same volume) into `into`. Exact and order-independent.
// Throws gp::Error when the region counts differ.
void merge_region_stats(RegionStats& into, const RegionStats& part);
// All parts at once (the slabs of a volume, any order), on all cores: the same result as merging
// them one after another, without copying the throats merged so far at every step.
RegionStats merge_region_stats(std::vector<RegionStats>&& parts);

// Field-by-field equality (floats compared exactly): what the GPU tests check.
bool operator==(const InterfaceStat& l, const InterfaceStat& r);
bool operator==(const RegionStat& l, const RegionStat& r);
bool operator==(const ThroatStat& l, const ThroatStat& r);
inline bool operator!=(const InterfaceStat& l, const InterfaceStat& r) { return !(l == r); }
inline bool operator!=(const RegionStat& l, const RegionStat& r) { return !(l == r); }
inline bool operator!=(const ThroatStat& l, const ThroatStat& r) { return !(l == r); }

namespace detail {
// Shared by both versions (defined in region_stats_cpu.cpp).
void check_region_stats_args(const VolumeView<const std::uint32_t>& labels, const VolumeView<const float>& distance,
                             std::uint32_t region_count, int z_begin, int z_end, const char* function);
// Throats from the reduced sides, sorted by key (see region_stats_voxel.hpp for the key).
std::vector<ThroatStat> throats_from_sides(const std::uint64_t* keys, const InterfaceStat* sides, std::size_t n,
                                           std::uint32_t region_count);
}  // namespace detail

}  // namespace gp::pnm
