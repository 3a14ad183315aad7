// The GPU marker selection of markers.hpp, on sorted lists of 64-bit voxel indices in device memory:
//   - clusters of a sorted list: union-find over list positions (a neighbour is found by binary
//     search; linking hangs the larger root under the smaller with atomicMin, so a root is its
//     set's first entry whatever the scheduling), then an inclusive scan of the root flags numbers
//     the clusters in the order of their first voxel, as the CPU reference does;
//   - trim_saddle_points: all clusters walk their plateaus at once, one dilation step per round.
//     A round lists each plateau voxel's 27 neighbours inside its cluster's box, sorts them per
//     cluster (segmented sort) and drops repeats: what is left is the dilated set. Rim and level
//     voxels are flagged and compacted, the rims are split into 26-connected parts by the same
//     union-find restricted to each cluster's entries, and every cluster decides alone, so the
//     rounds give the CPU's per-cluster result. Clusters still walking carry their level set into
//     the next round. Rounds with more neighbours than a chunk holds run in chunks of clusters;
//   - trim_nearby_peaks: cluster centres hashed into a grid (radix sort by cell), the nearest
//     other centre from markers_math.hpp, the same function the CPU runs.
// Only counts come back to the host, to size the next step's arrays.
#include "core/stream_ops.hpp"
#include "cuda/pnm/markers.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "cuda/common/cuda_check.hpp"
#include "cuda/pnm/markers_math.hpp"
#include "cuda/pnm/slab_checks.hpp"
#include "cuda/labelling/union_find.cuh"

namespace gp::pnm {
namespace {

using namespace markers_detail;

constexpr int threads = 256;
constexpr std::size_t default_chunk_neighbours = std::size_t(1) << 24;  // ~22 bytes each
constexpr int neighbourhood = 27;

unsigned blocks_for(std::size_t n) { return unsigned((n + threads - 1) / threads); }

int bits_for(std::uint64_t max_value) {
  int bits = 1;
  while (bits < 64 && (max_value >> bits) != 0) ++bits;
  return bits;
}

// Union-find over list positions (union_find.cuh, in global memory).
using namespace labelling::union_find;

// First position in [lo, hi) of a sorted list whose entry is not below v.
template <class T>
__device__ std::size_t lower_bound(const T* list, std::size_t lo, std::size_t hi, std::uint64_t v) {
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (list[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// A list sorted by (owner, voxel): entry k's owner's entries start at begin[owner[k] - base].
// Without owners the whole list is one set.
struct Owners {
  const std::uint32_t* owner = nullptr;
  const std::uint32_t* begin = nullptr;
  std::uint32_t base = 0;
};

__global__ void iota_kernel(std::uint32_t* values, std::size_t n) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < n) values[k] = std::uint32_t(k);
}

// Joins each entry with its neighbours of the same owner that come before it in the list.
__global__ void link_kernel(const std::uint64_t* voxels, std::size_t n, Owners owners, int nx, int ny, int nz, bool c26,
                            std::uint32_t* parent) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const std::uint64_t v = voxels[k];
  const Voxel c = voxel_of(v, nx, ny);
  const std::size_t first = owners.owner ? owners.begin[owners.owner[k] - owners.base] : 0;
  for (int dz = -1; dz <= 0; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        if (!(dz < 0 || dy < 0 || (dy == 0 && dx < 0))) continue;  // earlier voxels only
        if (!c26 && (dx != 0) + (dy != 0) + (dz != 0) > 1) continue;
        const int x = c.x + dx, y = c.y + dy, z = c.z + dz;
        if (x < 0 || y < 0 || z < 0 || x >= nx || y >= ny || z >= nz) continue;
        const std::uint64_t j = index_of(x, y, z, nx, ny);
        const std::size_t m = lower_bound(voxels, first, k, j);
        if (m < k && voxels[m] == j) unite(parent, std::uint32_t(k), std::uint32_t(m));
      }
}

// Points every entry at its root (chase_root: no path splitting here); flags the roots.
__global__ void root_flags_kernel(std::uint32_t* parent, std::size_t n, std::uint32_t* flags) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const std::uint32_t r = chase_root(parent, std::uint32_t(k));
  flags[k] = r == k ? 1u : 0u;
  parent[k] = r;
}

// roots_before[k]: roots among entries 0..k (inclusive scan); a cluster's number is its root's rank.
__global__ void cluster_ids_kernel(const std::uint32_t* parent, const std::uint32_t* roots_through, std::size_t n,
                                   std::uint32_t* id, std::uint32_t add) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < n) id[k] = roots_through[parent[k]] - 1 + add;
}

__global__ void count_roots_kernel(const std::uint32_t* parent, const std::uint32_t* owner, std::size_t n,
                                   std::uint32_t* parts) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < n && load_parent(&parent[k]) == k) atomicAdd(&parts[owner[k]], 1u);
}

// ---- Peak clusters and their walks ----------------------------------------------------------

// Order-preserving map of floats to unsigned (for atomicMax).
__device__ __forceinline__ unsigned ordered(float f) {
  const unsigned b = __float_as_uint(f);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}
__device__ __forceinline__ float unordered(unsigned b) {
  return __uint_as_float((b & 0x80000000u) ? (b & 0x7fffffffu) : ~b);
}

struct Walk {
  int lo[3], hi[3];  // the box the plateau grows in
  float R;           // the cluster's height
  std::uint32_t cluster;
};

struct ClusterBox {
  int lo[3], hi[3];
  unsigned height;  // ordered(R)
  unsigned long long voxels;
};

__global__ void init_boxes_kernel(ClusterBox* boxes, std::size_t clusters) {
  const std::size_t c = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= clusters) return;
  ClusterBox b;
  for (int a = 0; a < 3; ++a) b.lo[a] = 0x7fffffff, b.hi[a] = -1;
  b.height = ordered(0.0f);  // R starts at 0, as the CPU's std::max(R, d)
  b.voxels = 0;
  boxes[c] = b;
}

__global__ void cluster_boxes_kernel(const std::uint64_t* peaks, const std::uint32_t* id, std::size_t n,
                                     VolumeView<const float> distance, ClusterBox* boxes) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const std::uint64_t v = peaks[k];
  const Voxel p = voxel_of(v, distance.nx, distance.ny);
  ClusterBox& b = boxes[id[k]];
  const int c[3] = {p.x, p.y, p.z};
  for (int a = 0; a < 3; ++a) atomicMin(&b.lo[a], c[a]), atomicMax(&b.hi[a], c[a]);
  const float d = distance.data[v];
  if (!isnan(d)) atomicMax(&b.height, ordered(d));
  atomicAdd(&b.voxels, 1ull);
}

__global__ void init_walks_kernel(const ClusterBox* boxes, std::size_t clusters, int nx, int ny, int nz, Walk* walks,
                                  unsigned long long* plateau_sizes) {
  const std::size_t c = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= clusters) return;
  const ClusterBox b = boxes[c];
  Walk w;
  w.R = unordered(b.height);
  const int pad = max(10, int(w.R));
  const int n[3] = {nx, ny, nz};
  for (int a = 0; a < 3; ++a) w.lo[a] = max(0, b.lo[a] - pad), w.hi[a] = min(n[a] - 1, b.hi[a] + pad);
  w.cluster = std::uint32_t(c);
  walks[c] = w;
  plateau_sizes[c] = b.voxels;
}

// ---- One dilation round of the saddle test ---------------------------------------------------

// The 27 neighbours of plateau entries [e0, e1) inside their walk's box (no_voxel outside).
__global__ void neighbours_kernel(const std::uint64_t* plateau, const std::uint32_t* owner, std::size_t e0,
                                  std::size_t e1, const Walk* walks, int nx, int ny, std::uint64_t* out_voxel,
                                  std::uint32_t* out_owner) {
  const std::size_t e = e0 + std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= e1) return;
  const std::uint32_t a = owner[e];
  const Walk w = walks[a];
  const Voxel c = voxel_of(plateau[e], nx, ny);
  std::size_t out = (e - e0) * neighbourhood;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx, ++out) {
        const int x = c.x + dx, y = c.y + dy, z = c.z + dz;
        const bool in_box = x >= w.lo[0] && y >= w.lo[1] && z >= w.lo[2] && x <= w.hi[0] && y <= w.hi[1] && z <= w.hi[2];
        out_voxel[out] = in_box ? index_of(x, y, z, nx, ny) : no_voxel;
        out_owner[out] = a;
      }
}

// Neighbour list offsets of walks [a0, a1]: 27 per plateau entry.
__global__ void neighbour_offsets_kernel(const unsigned long long* plateau_begin, std::uint32_t a0, std::uint32_t a1,
                                         std::size_t e0, std::int64_t* offsets) {
  const std::uint32_t a = a0 + blockIdx.x * blockDim.x + threadIdx.x;
  if (a <= a1) offsets[a - a0] = std::int64_t((plateau_begin[a] - e0) * neighbourhood);
}

// Each distinct neighbour (the sorted list's first of a run): rim (at least R high, not on the
// plateau) and level (exactly R) flags and counts per walk.
__global__ void classify_kernel(const std::uint64_t* voxel, const std::uint32_t* owner, std::size_t m,
                                const std::uint64_t* plateau, const unsigned long long* plateau_begin, const Walk* walks,
                                VolumeView<const float> distance, std::uint8_t* rim, std::uint8_t* level,
                                std::uint32_t* rim_count, unsigned long long* level_count, unsigned long long* rim_total) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const std::uint64_t v = voxel[i];
  const std::uint32_t a = owner[i];
  bool is_rim = false, is_level = false;
  if (v != no_voxel && !(i > 0 && owner[i - 1] == a && voxel[i - 1] == v)) {
    const float R = walks[a].R, d = distance.data[v];
    const std::size_t p0 = plateau_begin[a], p1 = plateau_begin[a + 1];
    const std::size_t at = lower_bound(plateau, p0, p1, v);
    const bool on_plateau = at < p1 && plateau[at] == v;
    is_rim = d >= R && !on_plateau;
    is_level = d == R;
  }
  rim[i] = is_rim;
  level[i] = is_level;
  if (is_rim) {
    atomicAdd(&rim_count[a], 1u);
    atomicAdd(rim_total, 1ull);
  }
  if (is_level) atomicAdd(&level_count[a], 1ull);
}

// markers.hpp step 2's decision for walks [a0, a1) after this round's dilation.
__global__ void decide_kernel(std::uint32_t a0, std::uint32_t a1, const unsigned long long* plateau_begin,
                              const std::uint32_t* rim_count, const unsigned long long* level_count,
                              const std::uint32_t* parts, const Walk* walks, bool last_round, std::uint8_t* keep,
                              std::uint32_t* walking, unsigned long long* removed) {
  const std::uint32_t a = a0 + blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= a1) return;
  bool goes_on = false;
  if (rim_count[a] == 0) {
    // a true peak
  } else if (parts[a] >= 2) {
    keep[walks[a].cluster] = 0;  // a saddle
    atomicAdd(removed, 1ull);
  } else if (level_count[a] == plateau_begin[a + 1] - plateau_begin[a]) {
    // a ridge
  } else {
    goes_on = !last_round;
  }
  walking[a] = goes_on ? 1u : 0u;
}

// Level flags kept only for walks that go on; counts them.
__global__ void next_plateau_flags_kernel(std::uint8_t* level, const std::uint32_t* owner, std::size_t m,
                                          const std::uint32_t* walking, unsigned long long* total) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m || !level[i]) return;
  if (walking[owner[i]])
    atomicAdd(total, 1ull);
  else
    level[i] = 0;
}

__global__ void renumber_kernel(std::uint32_t* owner, std::size_t n, const std::uint32_t* new_index) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < n) owner[k] = new_index[owner[k]];
}

// ---- Kept voxels, nearby trimming, final labels ------------------------------------------

__global__ void keep_flags_kernel(const std::uint32_t* id, std::size_t n, const std::uint8_t* keep_cluster,
                                  bool keep_value, std::uint8_t* flags) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < n) flags[k] = (keep_cluster[id[k]] != 0) == keep_value;
}

__global__ void centre_sums_kernel(const std::uint64_t* voxels, const std::uint32_t* id, std::size_t n, int nx, int ny,
                                   unsigned long long* sums) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const Voxel p = voxel_of(voxels[k], nx, ny);
  unsigned long long* s = sums + 4 * std::size_t(id[k]);
  atomicAdd(&s[0], (unsigned long long)p.x);
  atomicAdd(&s[1], (unsigned long long)p.y);
  atomicAdd(&s[2], (unsigned long long)p.z);
  atomicAdd(&s[3], 1ull);
}

__global__ void centres_kernel(const unsigned long long* sums, std::size_t clusters, VolumeView<const float> distance,
                               Grid grid, int* centres, float* to_solid, std::uint32_t* cells, std::uint32_t* points) {
  const std::size_t c = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= clusters) return;
  const unsigned long long* s = sums + 4 * c;
  int* centre = centres + 3 * c;
  for (int a = 0; a < 3; ++a) centre[a] = int(__ddiv_rn(double(s[a]), double(s[3])));  // truncated, as astype(int)
  to_solid[c] = distance.at(centre[0], centre[1], centre[2]);
  cells[c] = std::uint32_t(grid.cell_of(centre));
  points[c] = std::uint32_t(c);
}

// cell_start[c]: the first position of cell c in the sorted cell list (c in [0, cells]).
__global__ void cell_start_kernel(const std::uint32_t* sorted_cells, std::size_t points, std::size_t cells,
                                  std::uint32_t* cell_start) {
  const std::size_t c = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c > cells) return;
  cell_start[c] = std::uint32_t(lower_bound(sorted_cells, 0, points, c));
}

__global__ void nearby_kernel(std::size_t clusters, const int* centres, const float* to_solid,
                              const std::uint32_t* cell_start, const std::uint32_t* cell_points, Grid grid, float factor,
                              std::uint8_t* dropped) {
  const std::size_t c = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= clusters) return;
  const Nearest n = nearest_other(std::uint32_t(c), centres, cell_start, cell_points, grid);
  if (n.index != no_point && too_near(n.squared, factor, to_solid[c]))
    dropped[to_solid[c] < to_solid[n.index] ? c : n.index] = 1;
}

__global__ void count_nonzero_kernel(const std::uint8_t* flags, std::size_t n, unsigned long long* count) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int block_count = __syncthreads_count(k < n && flags[k] != 0);
  if (threadIdx.x == 0 && block_count > 0) atomicAdd(count, (unsigned long long)block_count);
}

// ---- Host side ---------------------------------------------------------------------------------

// Scratch, stream and the error context of one selection.
class Gpu {
 public:
  Gpu(const ScratchAllocator& scratch, cudaStream_t stream, std::string what)
      : scratch_(scratch), stream_(stream), what_(std::move(what)) {}
  cudaStream_t stream() const { return stream_; }
  const std::string& what() const { return what_; }

  template <class T>
  T* alloc(std::size_t n) {
    return static_cast<T*>(scratch_(std::max<std::size_t>(n * sizeof(T), 1)));
  }
  template <class T>
  T* zeros(std::size_t n) {
    T* p = alloc<T>(n);
    zero(p, n);
    return p;
  }
  template <class T>
  void zero(T* p, std::size_t n) {
    stream_ops::fill(p, 0, n, stream_, what_);
  }
  template <class T>
  void copy(T* to, const T* from, std::size_t n) {
    stream_ops::copy(to, from, n, stream_, what_);
  }
  template <class T>
  std::vector<T> read(const T* p, std::size_t n) {
    std::vector<T> values(n);
    if (n > 0) stream_ops::read_back(values.data(), p, n, stream_, what_);
    return values;
  }
  template <class T>
  T read(const T* p) {
    return read(p, 1)[0];
  }
  void check(cudaError_t err, const char* step) {
    if (err != cudaSuccess) throw_cuda_error(err, step, __FILE__, __LINE__, what_);
  }
  // A launch of one thread per item (none for no items).
  template <class... Params, class... Args>
  void launch(const char* name, std::size_t items, void (*kernel)(Params...), Args... args) {
    if (items == 0) return;
    kernel<<<blocks_for(items), threads, 0, stream_>>>(args...);
    GP_CUDA_CHECK_LAUNCH(what_ + ": " + name);
  }
  // Runs a CUB call twice, for its storage size and then for real; the storage is reused while
  // big enough.
  template <class Call>
  void run_cub(const char* step, Call&& call) {
    std::size_t bytes = 0;
    check(call(static_cast<void*>(nullptr), bytes), step);
    if (bytes > temp_bytes_) {
      temp_bytes_ = std::max(bytes, 2 * temp_bytes_);
      temp_ = scratch_(temp_bytes_);
    }
    check(call(temp_, bytes), step);
  }

 private:
  const ScratchAllocator& scratch_;
  cudaStream_t stream_;
  std::string what_;
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
};

// A device array reallocated (from scratch, which keeps the old block) when it must grow.
template <class T>
struct Grown {
  T* data = nullptr;
  std::size_t capacity = 0;
  // keep: entries [0, keep) survive a reallocation.
  T* ensure(Gpu& gpu, std::size_t n, std::size_t keep = 0) {
    if (n <= capacity) return data;
    const std::size_t grown = std::max(n, 2 * capacity);
    T* bigger = gpu.alloc<T>(grown);
    gpu.copy(bigger, data, keep);
    data = bigger;
    capacity = grown;
    return data;
  }
};

// Selects the entries of `in` whose flag is set into `out`, in order; the count goes to *count.
template <class In, class Flag, class Out>
void select_flagged(Gpu& gpu, In in, const Flag* flags, Out out, std::size_t n, unsigned long long* count) {
  if (n == 0) {
    gpu.zero(count, 1);
    return;
  }
  gpu.run_cub("cub::DeviceSelect::Flagged", [&](void* temp, std::size_t& bytes) {
    return cub::DeviceSelect::Flagged(temp, bytes, in, flags, out, count, std::int64_t(n), gpu.stream());
  });
}

// offsets[0] = 0, offsets[1..n] = the inclusive sums of in[0..n).
template <class In, class Out>
void offsets_of(Gpu& gpu, const In* in, Out* offsets, std::size_t n) {
  gpu.zero(offsets, 1);
  if (n == 0) return;
  gpu.run_cub("cub::DeviceScan::InclusiveSum", [&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(temp, bytes, in, offsets + 1, std::int64_t(n), gpu.stream());
  });
}

// Clusters of a sorted voxel list: id[k] = add + the cluster's number (0.., by first entry).
// Returns how many.
std::uint32_t cluster_list(Gpu& gpu, const std::uint64_t* voxels, std::size_t n, int nx, int ny, int nz,
                           Connectivity connectivity, std::uint32_t* id, std::uint32_t add = 0) {
  if (n == 0) return 0;
  auto* parent = gpu.alloc<std::uint32_t>(n);
  auto* roots = gpu.alloc<std::uint32_t>(n);
  gpu.launch("iota", n, iota_kernel, parent, n);
  gpu.launch("link", n, link_kernel, voxels, n, Owners{}, nx, ny, nz, connectivity == Connectivity::c26, parent);
  gpu.launch("root flags", n, root_flags_kernel, parent, n, roots);
  gpu.run_cub("cub::DeviceScan::InclusiveSum", [&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(temp, bytes, roots, roots, std::int64_t(n), gpu.stream());
  });
  gpu.launch("cluster ids", n, cluster_ids_kernel, static_cast<const std::uint32_t*>(parent),
             static_cast<const std::uint32_t*>(roots), n, id, add);
  return gpu.read(roots + n - 1);
}

// trim_saddle_points over the peak clusters (id: cluster per peak voxel). keep[c] = 0 for the
// clusters that go; returns how many go.
std::size_t trim_saddles(Gpu& gpu, const std::uint64_t* peaks, const std::uint32_t* id, std::size_t n,
                         std::uint32_t clusters, VolumeView<const float> distance, int max_iterations,
                         std::size_t chunk_neighbours, std::uint8_t* keep) {
  const int nx = distance.nx, ny = distance.ny, nz = distance.nz;
  stream_ops::fill(keep, 1, clusters, gpu.stream(), gpu.what());
  if (max_iterations <= 0 || clusters == 0) return 0;
  auto* removed = gpu.zeros<unsigned long long>(1);

  // The walks start from the clusters: plateaus sorted by (cluster, voxel), as a stable sort by
  // cluster keeps the voxels' order.
  auto* boxes = gpu.alloc<ClusterBox>(clusters);
  gpu.launch("init boxes", clusters, init_boxes_kernel, boxes, std::size_t(clusters));
  gpu.launch("cluster boxes", n, cluster_boxes_kernel, peaks, id, n, distance, boxes);
  Grown<Walk> walks, next_walks;
  Grown<unsigned long long> plateau_begin, next_plateau_begin, level_count;
  Grown<std::uint64_t> plateau, next_plateau;
  Grown<std::uint32_t> owner, next_owner;
  auto* sizes = gpu.alloc<unsigned long long>(clusters);
  gpu.launch("init walks", clusters, init_walks_kernel, static_cast<const ClusterBox*>(boxes), std::size_t(clusters),
             nx, ny, nz, walks.ensure(gpu, clusters), sizes);
  offsets_of(gpu, sizes, plateau_begin.ensure(gpu, std::size_t(clusters) + 1), clusters);
  {
    auto* id_copy = gpu.alloc<std::uint32_t>(n);
    auto* voxel_copy = gpu.alloc<std::uint64_t>(n);
    gpu.copy(id_copy, id, n);
    gpu.copy(voxel_copy, peaks, n);
    cub::DoubleBuffer<std::uint32_t> keys(id_copy, gpu.alloc<std::uint32_t>(n));
    cub::DoubleBuffer<std::uint64_t> values(voxel_copy, gpu.alloc<std::uint64_t>(n));
    const int key_bits = bits_for(clusters - 1);
    gpu.run_cub("cub::DeviceRadixSort::SortPairs", [&](void* temp, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, values, std::int64_t(n), 0, key_bits, gpu.stream());
    });
    plateau = {values.Current(), n};
    owner = {keys.Current(), n};
  }
  std::uint32_t walking_count = clusters;
  std::size_t plateau_size = n;

  Grown<std::uint64_t> neighbour, sorted_neighbour, rim_voxel;
  Grown<std::uint32_t> neighbour_owner, rim_owner, rim_begin, rim_parent, rim_count, parts, walking, new_index;
  Grown<unsigned long long> next_level_count;
  Grown<std::uint8_t> rim_flag, level_flag;
  Grown<std::int64_t> segment;
  auto* counters = gpu.alloc<unsigned long long>(3);  // rims, next plateau voxels, selected
  for (int round = 0; round < max_iterations && walking_count > 0; ++round) {
    const bool last_round = round == max_iterations - 1;
    gpu.zero(rim_count.ensure(gpu, walking_count), walking_count);
    gpu.zero(level_count.ensure(gpu, walking_count), walking_count);
    gpu.zero(parts.ensure(gpu, walking_count), walking_count);
    walking.ensure(gpu, walking_count);

    // Chunks of walks [first walk, end walk) whose neighbour lists fit chunk_neighbours (one walk
    // at least), with their plateau entries [first, end).
    struct Chunk {
      std::uint32_t a0, a1;
      std::size_t e0, e1;
    };
    std::vector<Chunk> chunks;
    if (plateau_size * neighbourhood <= chunk_neighbours) {
      chunks.push_back({0, walking_count, 0, plateau_size});
    } else {
      const auto begin = gpu.read(plateau_begin.data, std::size_t(walking_count) + 1);
      for (std::uint32_t a = 0; a < walking_count;) {
        std::uint32_t b = a + 1;
        while (b < walking_count && (begin[b + 1] - begin[a]) * neighbourhood <= chunk_neighbours) ++b;
        if ((begin[b] - begin[a]) * neighbourhood >= std::size_t(0xffffffffu))
          throw Error(gpu.what() + ": a peak plateau of " + std::to_string(begin[b] - begin[a]) +
                      " voxels is too large for the saddle test");
        chunks.push_back({a, b, std::size_t(begin[a]), std::size_t(begin[b])});
        a = b;
      }
    }

    std::size_t next_size = 0;
    for (const Chunk& chunk : chunks) {
      const std::uint32_t a0 = chunk.a0, a1 = chunk.a1, walks_here = a1 - a0;
      const std::size_t m = (chunk.e1 - chunk.e0) * neighbourhood;
      gpu.launch("neighbours", chunk.e1 - chunk.e0, neighbours_kernel, static_cast<const std::uint64_t*>(plateau.data),
                 static_cast<const std::uint32_t*>(owner.data), chunk.e0, chunk.e1,
                 static_cast<const Walk*>(walks.data), nx, ny, neighbour.ensure(gpu, m), neighbour_owner.ensure(gpu, m));
      gpu.launch("neighbour offsets", std::size_t(walks_here) + 1, neighbour_offsets_kernel,
                 static_cast<const unsigned long long*>(plateau_begin.data), a0, a1, chunk.e0,
                 segment.ensure(gpu, std::size_t(walks_here) + 1));
      sorted_neighbour.ensure(gpu, m);
      if (m > 0)
        gpu.run_cub("cub::DeviceSegmentedSort::SortKeys", [&](void* temp, std::size_t& bytes) {
          return cub::DeviceSegmentedSort::SortKeys(temp, bytes, neighbour.data, sorted_neighbour.data,
                                                    std::int64_t(m), std::int64_t(walks_here), segment.data,
                                                    segment.data + 1, gpu.stream());
        });
      gpu.zero(counters, 3);
      gpu.launch("classify", m, classify_kernel, static_cast<const std::uint64_t*>(sorted_neighbour.data),
                 static_cast<const std::uint32_t*>(neighbour_owner.data), m,
                 static_cast<const std::uint64_t*>(plateau.data),
                 static_cast<const unsigned long long*>(plateau_begin.data), static_cast<const Walk*>(walks.data),
                 distance, rim_flag.ensure(gpu, m), level_flag.ensure(gpu, m), rim_count.data, level_count.data,
                 counters);

      // The rims' 26-connected parts, within each walk.
      const std::size_t rims = gpu.read(counters);
      if (rims > 0) {
        select_flagged(gpu, sorted_neighbour.data, rim_flag.data, rim_voxel.ensure(gpu, rims), m, counters + 2);
        select_flagged(gpu, neighbour_owner.data, rim_flag.data, rim_owner.ensure(gpu, rims), m, counters + 2);
        offsets_of(gpu, rim_count.data + a0, rim_begin.ensure(gpu, std::size_t(walks_here) + 1), walks_here);
        gpu.launch("iota", rims, iota_kernel, rim_parent.ensure(gpu, rims), rims);
        gpu.launch("link rims", rims, link_kernel, static_cast<const std::uint64_t*>(rim_voxel.data), rims,
                   Owners{rim_owner.data, rim_begin.data, a0}, nx, ny, nz, true, rim_parent.data);
        gpu.launch("count rim parts", rims, count_roots_kernel, static_cast<const std::uint32_t*>(rim_parent.data),
                   static_cast<const std::uint32_t*>(rim_owner.data), rims, parts.data);
      }
      gpu.launch("decide", walks_here, decide_kernel, a0, a1, static_cast<const unsigned long long*>(plateau_begin.data),
                 static_cast<const std::uint32_t*>(rim_count.data),
                 static_cast<const unsigned long long*>(level_count.data), static_cast<const std::uint32_t*>(parts.data),
                 static_cast<const Walk*>(walks.data), last_round, keep, walking.data, removed);

      // The level sets of the walks that go on: their next plateaus.
      gpu.launch("next plateau flags", m, next_plateau_flags_kernel, level_flag.data,
                 static_cast<const std::uint32_t*>(neighbour_owner.data), m,
                 static_cast<const std::uint32_t*>(walking.data), counters + 1);
      const std::size_t more = gpu.read(counters + 1);
      if (more > 0) {
        next_plateau.ensure(gpu, next_size + more, next_size);
        next_owner.ensure(gpu, next_size + more, next_size);
        select_flagged(gpu, sorted_neighbour.data, level_flag.data, next_plateau.data + next_size, m, counters + 2);
        select_flagged(gpu, neighbour_owner.data, level_flag.data, next_owner.data + next_size, m, counters + 2);
        next_size += more;
      }
    }
    // Walks that go on with no plateau left would find no rim next round and stay: as they are.
    if (next_size == 0) break;

    // The walks that go on, renumbered in order.
    select_flagged(gpu, walks.data, walking.data, next_walks.ensure(gpu, walking_count), walking_count, counters + 2);
    const auto next_count = std::uint32_t(gpu.read(counters + 2));
    gpu.run_cub("cub::DeviceScan::ExclusiveSum", [&](void* temp, std::size_t& bytes) {
      return cub::DeviceScan::ExclusiveSum(temp, bytes, walking.data, new_index.ensure(gpu, walking_count),
                                           std::int64_t(walking_count), gpu.stream());
    });
    gpu.launch("renumber", next_size, renumber_kernel, next_owner.data, next_size,
               static_cast<const std::uint32_t*>(new_index.data));
    select_flagged(gpu, level_count.data, walking.data, next_level_count.ensure(gpu, next_count), walking_count,
                   counters + 2);
    offsets_of(gpu, next_level_count.data, next_plateau_begin.ensure(gpu, std::size_t(next_count) + 1), next_count);
    std::swap(walks, next_walks);
    std::swap(plateau, next_plateau);
    std::swap(owner, next_owner);
    std::swap(plateau_begin, next_plateau_begin);
    walking_count = next_count;
    plateau_size = next_size;
  }
  return std::size_t(gpu.read(removed));
}

}  // namespace

DeviceMarkers select_markers_gpu(const std::uint64_t* peaks, std::size_t peak_count, VolumeView<const float> distance,
                                 Spacing spacing, const MarkerParams& params, const ScratchAllocator& scratch,
                                 cudaStream_t stream, std::size_t chunk_neighbours) {
  const char* op = "select_markers_gpu";
  checks::require_view(distance, op, "distance");
  checks::require(distance.z_first == 0 && distance.z_count == distance.nz, op,
                  "the distance view must hold the whole volume");
  checks::require(peak_count < std::size_t(0xffffffffu), op,
                  std::to_string(peak_count) + " peak voxels: at most 2^32 - 2 (marker labels are 32-bit)");
  DeviceMarkers out;
  if (peak_count == 0) return out;
  const int nx = distance.nx, ny = distance.ny, nz = distance.nz;
  Gpu gpu(scratch, stream, "select markers from " + std::to_string(peak_count) + " peak voxels");
  const std::size_t n = peak_count;

  // Peak clusters (6-connected) and trim_saddle_points.
  auto* id = gpu.alloc<std::uint32_t>(n);
  const std::uint32_t clusters = cluster_list(gpu, peaks, n, nx, ny, nz, Connectivity::c6, id);
  out.summary.peaks = clusters;
  auto* keep = gpu.alloc<std::uint8_t>(clusters);
  out.summary.saddles_removed = trim_saddles(gpu, peaks, id, n, clusters, distance, params.saddle_max_iterations,
                                             chunk_neighbours > 0 ? chunk_neighbours : default_chunk_neighbours, keep);
  auto* flags = gpu.alloc<std::uint8_t>(n);
  gpu.launch("kept peaks", n, keep_flags_kernel, static_cast<const std::uint32_t*>(id), n,
             static_cast<const std::uint8_t*>(keep), true, flags);
  auto* counters = gpu.zeros<unsigned long long>(2);  // selected, dropped
  auto* kept = gpu.alloc<std::uint64_t>(n);
  select_flagged(gpu, peaks, flags, kept, n, counters);
  const std::size_t kept_count = gpu.read(counters);

  // trim_nearby_peaks on the 26-connected clusters of what is left.
  const std::uint32_t groups = cluster_list(gpu, kept, kept_count, nx, ny, nz, Connectivity::c26, id);
  auto* dropped = gpu.zeros<std::uint8_t>(groups);
  if (groups >= 2) {
    auto* sums = gpu.zeros<unsigned long long>(std::size_t(groups) * 4);
    gpu.launch("centre sums", kept_count, centre_sums_kernel, static_cast<const std::uint64_t*>(kept),
               static_cast<const std::uint32_t*>(id), kept_count, nx, ny, sums);
    const Grid grid = make_grid(nx, ny, nz, spacing, groups);
    auto* centres = gpu.alloc<int>(std::size_t(groups) * 3);
    auto* to_solid = gpu.alloc<float>(groups);
    auto* cells = gpu.alloc<std::uint32_t>(groups);
    auto* points = gpu.alloc<std::uint32_t>(groups);
    gpu.launch("centres", groups, centres_kernel, static_cast<const unsigned long long*>(sums), std::size_t(groups),
               distance, grid, centres, to_solid, cells, points);
    cub::DoubleBuffer<std::uint32_t> cell_keys(cells, gpu.alloc<std::uint32_t>(groups));
    cub::DoubleBuffer<std::uint32_t> cell_points(points, gpu.alloc<std::uint32_t>(groups));
    const int cell_bits = bits_for(grid.cells() - 1);
    gpu.run_cub("cub::DeviceRadixSort::SortPairs", [&](void* temp, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(temp, bytes, cell_keys, cell_points, std::int64_t(groups), 0, cell_bits,
                                             stream);
    });
    auto* cell_start = gpu.alloc<std::uint32_t>(grid.cells() + 1);
    gpu.launch("cell starts", grid.cells() + 1, cell_start_kernel, static_cast<const std::uint32_t*>(cell_keys.Current()),
               std::size_t(groups), grid.cells(), cell_start);
    gpu.launch("nearby peaks", groups, nearby_kernel, std::size_t(groups), static_cast<const int*>(centres),
               static_cast<const float*>(to_solid), static_cast<const std::uint32_t*>(cell_start),
               static_cast<const std::uint32_t*>(cell_points.Current()), grid, params.nearby_factor, dropped);
    gpu.launch("count dropped", groups, count_nonzero_kernel, static_cast<const std::uint8_t*>(dropped),
               std::size_t(groups), counters + 1);
  }
  gpu.launch("final peaks", kept_count, keep_flags_kernel, static_cast<const std::uint32_t*>(id), kept_count,
             static_cast<const std::uint8_t*>(dropped), false, flags);
  auto* final_voxels = gpu.alloc<std::uint64_t>(kept_count);
  select_flagged(gpu, kept, flags, final_voxels, kept_count, counters);
  const auto counts = gpu.read(counters, 2);
  const std::size_t final_count = counts[0];
  out.summary.nearby_removed = counts[1];

  // Markers: the 6-connected components of what is left, numbered from 1.
  auto* labels = gpu.alloc<std::uint32_t>(final_count);
  out.summary.count = cluster_list(gpu, final_voxels, final_count, nx, ny, nz, Connectivity::c6, labels, 1);
  out.voxels = final_voxels;
  out.labels = labels;
  out.voxel_count = final_count;
  return out;
}

Markers download_markers(const DeviceMarkers& markers, cudaStream_t stream) {
  Markers out = markers.summary;
  out.voxels.resize(markers.voxel_count);
  out.labels.resize(markers.voxel_count);
  if (markers.voxel_count == 0) return out;
  const std::string what = "download " + std::to_string(markers.voxel_count) + " marker voxels";
  stream_ops::copy(out.voxels.data(), markers.voxels, markers.voxel_count, stream, what);
  stream_ops::read_back(out.labels.data(), markers.labels, markers.voxel_count, stream, what);
  return out;
}

}  // namespace gp::pnm
