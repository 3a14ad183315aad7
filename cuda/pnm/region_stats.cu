// Region and throat statistics on the GPU (see region_stats.hpp):
//   1. one thread per voxel: region sums and maximum distances, warp-aggregated (the threads of a
//      warp with the same label combine first, one atomic per label and warp), and the number of
//      throat records;
//   2. [host: record count -> scratch for the records]
//   3. one thread per voxel: where each region's maximum is (atomicMin of the index among the
//      voxels at the maximum), and the throat records (key, payload) at warp-aggregated offsets;
//   4. CUB radix sort of the records by key, count of distinct keys, CUB ReduceByKey of the records
//      (as InterfaceStat, via a transform iterator that reads the voxel's distance) per key.
// Sums are integers and maxima use the index tie rule, so the order of atomics and of records with
// equal keys does not matter: the results equal the CPU reference exactly.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/stream_ops.hpp"
#include "cuda/common/cuda_check.hpp"
#include "cuda/pnm/region_stats.hpp"
#include "cuda/pnm/region_stats_voxel.hpp"

namespace gp::pnm {
namespace {

namespace cg = cooperative_groups;
using u64 = unsigned long long;

constexpr int kBlockW = 32, kBlockH = 8;
constexpr int kLinearThreads = 256;
enum Counter { kRecords = 0, kCursor = 1, kBadLabel = 2, kRuns = 3, kCounters = 4 };

struct Slab {
  stats::Neighbourhood nb;
  std::uint32_t region_count;
  int z_begin;
  bool c26;
};

__device__ void add(std::uint64_t* p, u64 v) { atomicAdd(reinterpret_cast<u64*>(p), v); }

// This thread's voxel and its label; false outside the slab, on unlabelled voxels and on labels
// above the region count (reported through the counters).
__device__ bool voxel_of_thread(const Slab& s, int& x, int& y, int& z, std::uint32_t& label, u64* counters) {
  x = int(blockIdx.x) * kBlockW + int(threadIdx.x);
  y = int(blockIdx.y) * kBlockH + int(threadIdx.y);
  z = s.z_begin + int(blockIdx.z);
  if (x >= s.nb.labels.nx || y >= s.nb.labels.ny) return false;
  label = s.nb.labels.at(x, y, z);
  if (label == 0) return false;
  if (label > s.region_count) {
    atomicMax(&counters[kBadLabel], u64(label));
    return false;
  }
  return true;
}

__global__ void init_regions_kernel(RegionStat* regions, std::uint32_t n) {
  const std::uint32_t i = blockIdx.x * kLinearThreads + threadIdx.x;
  if (i < n) regions[i] = RegionStat{};
}

__global__ void sum_regions_kernel(Slab s, RegionStat* regions, u64* counters) {
  int x, y, z;
  std::uint32_t L;
  if (!voxel_of_thread(s, x, y, z, L, counters)) return;
  const int nx = s.nb.labels.nx, ny = s.nb.labels.ny, nz = s.nb.labels.nz;
  RegionStat& r = regions[L - 1];
  const float d = stats::canonical_distance(s.nb.distance.at(x, y, z));
  unsigned faces[3];
  s.nb.solid_faces(x, y, z, faces);
  {
    // Lanes of this warp with the same label: one reduction, one set of atomics.
    const cg::coalesced_group same = cg::labeled_partition(cg::coalesced_threads(), L);
    const u64 sum_x = cg::reduce(same, u64(x), cg::plus<u64>());
    const u64 sum_y = cg::reduce(same, u64(y), cg::plus<u64>());
    const u64 sum_z = cg::reduce(same, u64(z), cg::plus<u64>());
    // Up to 32 lanes x 2 faces per axis: 7 bits per axis suffice.
    const unsigned packed_faces = cg::reduce(same, faces[0] | (faces[1] << 10) | (faces[2] << 20), cg::plus<unsigned>());
    const unsigned max_bits = cg::reduce(same, __float_as_uint(d), cg::greater<unsigned>());
    if (same.thread_rank() == 0) {
      add(&r.voxels, same.size());
      add(&r.sum_x, sum_x);
      add(&r.sum_y, sum_y);
      add(&r.sum_z, sum_z);
      for (int a = 0; a < 3; ++a)
        if (const unsigned f = (packed_faces >> (10 * a)) & 1023u) add(&r.solid_faces[a], f);
      atomicMax(reinterpret_cast<unsigned*>(&r.max_distance), max_bits);
    }
  }
  if (x == 0) add(&r.border_voxels[0], 1);
  if (x == nx - 1) add(&r.border_voxels[1], 1);
  if (y == 0) add(&r.border_voxels[2], 1);
  if (y == ny - 1) add(&r.border_voxels[3], 1);
  if (z == 0) add(&r.border_voxels[4], 1);
  if (z == nz - 1) add(&r.border_voxels[5], 1);

  const unsigned records = stats::for_each_contact(s.nb, x, y, z, L, s.c26, [](std::uint32_t, unsigned, unsigned, unsigned, bool) {});
  if (records != 0) {
    const cg::coalesced_group g = cg::coalesced_threads();
    const u64 total = cg::reduce(g, u64(records), cg::plus<u64>());
    if (g.thread_rank() == 0) atomicAdd(&counters[kRecords], total);
  }
}

__global__ void peaks_and_records_kernel(Slab s, RegionStat* regions, std::uint64_t* keys, std::uint64_t* payloads,
                                         u64 capacity, u64* counters) {
  int x, y, z;
  std::uint32_t L;
  if (!voxel_of_thread(s, x, y, z, L, counters)) return;
  const int nx = s.nb.labels.nx, ny = s.nb.labels.ny;
  const std::uint64_t index = stats::voxel_index(x, y, z, nx, ny);
  RegionStat& r = regions[L - 1];
  const float d = stats::canonical_distance(s.nb.distance.at(x, y, z));
  if (__float_as_uint(d) == __float_as_uint(r.max_distance)) atomicMin(reinterpret_cast<u64*>(&r.max_index), u64(index));

  const unsigned records = stats::for_each_contact(s.nb, x, y, z, L, s.c26, [](std::uint32_t, unsigned, unsigned, unsigned, bool) {});
  if (records == 0) return;
  const cg::coalesced_group g = cg::coalesced_threads();
  const u64 inclusive = cg::inclusive_scan(g, u64(records));
  u64 base = 0;
  if (g.thread_rank() == g.size() - 1) base = atomicAdd(&counters[kCursor], inclusive);
  u64 at = g.shfl(base, g.size() - 1) + inclusive - records;
  stats::for_each_contact(s.nb, x, y, z, L, s.c26, [&](std::uint32_t m, unsigned fx, unsigned fy, unsigned fz, bool rim) {
    if (at < capacity) {
      keys[at] = stats::throat_key(L, m, s.region_count);
      payloads[at] = stats::record_payload(index, rim, fx, fy, fz);
    }
    ++at;
  });
}

// Number of distinct keys in the sorted records.
__global__ void count_runs_kernel(const std::uint64_t* keys, u64 n, u64* counters) {
  const u64 stride = u64(gridDim.x) * kLinearThreads;
  // All lanes of a warp loop equally often (same base), so the ballot sees the whole warp.
  for (u64 base = u64(blockIdx.x) * kLinearThreads; base < n; base += stride) {
    const u64 i = base + threadIdx.x;
    const bool head = i < n && (i == 0 || keys[i] != keys[i - 1]);
    const unsigned heads = __ballot_sync(0xffffffffu, head);
    if ((threadIdx.x & 31) == 0 && heads != 0) atomicAdd(&counters[kRuns], u64(__popc(heads)));
  }
}

unsigned linear_blocks(u64 n) { return unsigned(std::min<u64>((n + kLinearThreads - 1) / kLinearThreads, 1u << 20)); }

template <class T>
T* scratch_as(const ScratchAllocator& scratch, std::size_t count, const char* what) {
  void* p = scratch(std::max<std::size_t>(count * sizeof(T), 1));
  if (p == nullptr) throw Error(std::string("region_stats_gpu: no scratch for ") + what);
  return static_cast<T*>(p);
}

}  // namespace

RegionStats region_stats_gpu(VolumeView<const std::uint32_t> labels, VolumeView<const float> distance,
                             std::uint32_t region_count, int z_begin, int z_end, Connectivity connectivity,
                             const ScratchAllocator& scratch, cudaStream_t stream) {
  detail::check_region_stats_args(labels, distance, region_count, z_begin, z_end, "region_stats_gpu");
  RegionStats out;
  out.regions.assign(region_count, RegionStat{});
  const int nx = labels.nx, ny = labels.ny;
  if (z_begin == z_end || nx == 0 || ny == 0) return out;
  const std::string context = "region_stats_gpu " + std::to_string(nx) + "x" + std::to_string(ny) + "x" +
                              std::to_string(labels.nz) + " z [" + std::to_string(z_begin) + ", " +
                              std::to_string(z_end) + "), " + std::to_string(region_count) + " regions";
  if (z_end - z_begin > 65535) throw Error(context + ": over 65535 slices in one call");

  const Slab slab{stats::Neighbourhood{labels, distance}, region_count, z_begin, connectivity == Connectivity::c26};
  RegionStat* regions = scratch_as<RegionStat>(scratch, region_count, "regions");
  u64* counters = scratch_as<u64>(scratch, kCounters, "counters");
  stream_ops::fill(counters, 0, kCounters, stream, context);
  if (region_count > 0) {
    init_regions_kernel<<<(region_count + kLinearThreads - 1) / kLinearThreads, kLinearThreads, 0, stream>>>(regions, region_count);
    GP_CUDA_CHECK_LAUNCH(context + ": init");
  }
  const dim3 block(kBlockW, kBlockH);
  const dim3 grid(unsigned(nx + kBlockW - 1) / kBlockW, unsigned(ny + kBlockH - 1) / kBlockH, unsigned(z_end - z_begin));
  sum_regions_kernel<<<grid, block, 0, stream>>>(slab, regions, counters);
  GP_CUDA_CHECK_LAUNCH(context + ": sums");

  u64 host_counters[kCounters];
  stream_ops::read_back(host_counters, counters, kCounters, stream, context);
  if (host_counters[kBadLabel] != 0)
    throw Error(context + ": label " + std::to_string(host_counters[kBadLabel]) + " above the region count");
  const u64 n = host_counters[kRecords];

  // Records, double-buffered for the sort, and CUB's temporary storage for the sort and reduction.
  cub::DoubleBuffer<std::uint64_t> keys(scratch_as<std::uint64_t>(scratch, n, "keys"),
                                        scratch_as<std::uint64_t>(scratch, n, "sorted keys"));
  cub::DoubleBuffer<std::uint64_t> payloads(scratch_as<std::uint64_t>(scratch, n, "payloads"),
                                            scratch_as<std::uint64_t>(scratch, n, "sorted payloads"));
  const int key_bits = stats::throat_key_bits(region_count);
  const auto sides_in = thrust::make_transform_iterator(static_cast<const std::uint64_t*>(nullptr), stats::RecordToSide{distance});
  std::size_t sort_bytes = 0, reduce_bytes = 0;
  if (n > 0) {
    GP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, payloads, n, 0, key_bits, stream), context);
    GP_CUDA_CHECK(cub::DeviceReduce::ReduceByKey(nullptr, reduce_bytes, keys.Current(), static_cast<std::uint64_t*>(nullptr),
                                                 sides_in, static_cast<InterfaceStat*>(nullptr), &counters[kRuns],
                                                 stats::CombineSides{}, n, stream),
                  context);
  }
  void* temp = scratch(std::max<std::size_t>({sort_bytes, reduce_bytes, 1}));
  if (temp == nullptr) throw Error(context + ": no scratch for CUB");

  peaks_and_records_kernel<<<grid, block, 0, stream>>>(slab, regions, keys.Current(), payloads.Current(), n, counters);
  GP_CUDA_CHECK_LAUNCH(context + ": peaks and records");
  u64 runs = 0;
  if (n > 0) {
    GP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, sort_bytes, keys, payloads, n, 0, key_bits, stream), context + ": sort");
    count_runs_kernel<<<linear_blocks(n), kLinearThreads, 0, stream>>>(keys.Current(), n, counters);
    GP_CUDA_CHECK_LAUNCH(context + ": runs");
  }
  stream_ops::read_back(host_counters, counters, kCounters, stream, context);
  if (host_counters[kCursor] != n)
    throw Error(context + ": " + std::to_string(host_counters[kCursor]) + " throat records written, " + std::to_string(n) + " counted");
  runs = host_counters[kRuns];

  std::vector<std::uint64_t> host_keys(runs);
  std::vector<InterfaceStat> host_sides(runs);
  if (runs > 0) {
    std::uint64_t* unique_keys = scratch_as<std::uint64_t>(scratch, runs, "throat keys");
    InterfaceStat* sides = scratch_as<InterfaceStat>(scratch, runs, "throat sides");
    const auto records_as_sides = thrust::make_transform_iterator(static_cast<const std::uint64_t*>(payloads.Current()),
                                                                  stats::RecordToSide{distance});
    GP_CUDA_CHECK(cub::DeviceReduce::ReduceByKey(temp, reduce_bytes, keys.Current(), unique_keys, records_as_sides, sides,
                                                 &counters[kRuns], stats::CombineSides{}, n, stream),
                  context + ": reduce");
    stream_ops::copy(host_keys.data(), unique_keys, runs, stream, context);
    stream_ops::copy(host_sides.data(), sides, runs, stream, context);
  }
  stream_ops::read_back(out.regions.data(), regions, region_count, stream, context);
  out.throats = detail::throats_from_sides(host_keys.data(), host_sides.data(), runs, region_count);
  return out;
}

}  // namespace gp::pnm
