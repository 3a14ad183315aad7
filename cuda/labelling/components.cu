// Connected components on the GPU by union-find over voxel indices, in three launches:
//   1. local_roots_kernel: one block per 32x8x8 tile joins the tile's voxels in shared memory and
//      writes each voxel's tile-local root as a view index;
//   2. merge_tiles_kernel: voxels on a tile's faces join their neighbours in other tiles, in global
//      memory;
//   3. compress_kernel: every voxel points straight at its root (chased without path splitting).
// The union-find (union_find.cuh) makes the final root of a set its smallest voxel whatever the
// scheduling, so the result is canonical; its races are the algorithm's. The tile kernel uses it
// in shared memory with atomics only, so that racecheck checks the rest of that kernel.
#include "core/stream_ops.hpp"
#include "cuda/labelling/components.hpp"

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/volume_launch.cuh"
#include "cuda/common/volume_checks.hpp"
#include "cuda/labelling/components_math.hpp"
#include "cuda/labelling/union_find.cuh"

namespace gp::labelling {
namespace {

namespace checks = gp::volume_checks;

constexpr int tile_x = 32, tile_y = 8, tile_z = 8;
constexpr int block_z = 4;  // threads along z; each thread takes tile_z / block_z voxels
constexpr int voxels_per_thread = tile_z / block_z;
constexpr int tile_voxels = tile_x * tile_y * tile_z;

using namespace union_find;

__device__ __forceinline__ std::uint32_t view_index(int x, int y, int z, int nx, int ny) {
  return std::uint32_t((std::size_t(z) * std::size_t(ny) + std::size_t(y)) * std::size_t(nx) + std::size_t(x));
}

// Whether joining voxel p = (x, y, z) with its backward neighbour q = p + (dx, dy, dz) (not the
// left voxel itself) can be left to p's left voxel p' = (x-1, y, z) when that is foreground and in
// the same tile (`left_joins`): p' is in p's set once the tile is joined. With 26-connectivity, q
// is a backward neighbour of p' too when dx <= 0; with 6-connectivity (dx == 0), p' joins q's left
// voxel, which is in q's set when foreground (`q_left_joins`, same tile as q; read for 6 only).
// p' may leave its join to its own left voxel in turn; the chain ends, as each step adds one to dx
// (26) or comes to the tile's edge. This holds for the in-tile joins and the cross-tile ones alike,
// since p' and q' lie in the tiles of p and q.
template <bool C26>
__device__ __forceinline__ bool skip_for_left(bool left_joins, int dx, bool q_left_joins) {
  return C26 ? left_joins && dx <= 0 : left_joins && q_left_joins;
}

template <bool C26>
__global__ void __launch_bounds__(tile_x* tile_y* block_z)
    local_roots_kernel(VolumeView<const std::uint8_t> mask, std::uint8_t value, std::uint32_t* roots) {
  __shared__ std::uint32_t local[tile_voxels];
  __shared__ std::uint8_t foreground[tile_voxels];  // read while `local` changes
  const int nx = mask.nx, ny = mask.ny, nz = mask.z_count;
  const int x0 = int(blockIdx.x) * tile_x, y0 = int(blockIdx.y) * tile_y, z0 = int(blockIdx.z) * tile_z;
  const int lx = int(threadIdx.x), ly = int(threadIdx.y);
  const int x = x0 + lx, y = y0 + ly;
  bool inside[voxels_per_thread], fg[voxels_per_thread];
#pragma unroll
  for (int k = 0; k < voxels_per_thread; ++k) {
    const int lz = int(threadIdx.z) + k * block_z;
    const int li = (lz * tile_y + ly) * tile_x + lx;
    inside[k] = x < nx && y < ny && z0 + lz < nz;
    fg[k] = inside[k] && mask.data[view_index(x, y, z0 + lz, nx, ny)] == value;
    local[li] = fg[k] ? std::uint32_t(li) : no_root;
    foreground[li] = fg[k];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < voxels_per_thread; ++k) {
    if (!fg[k]) continue;
    const int lz = int(threadIdx.z) + k * block_z;
    const int li = (lz * tile_y + ly) * tile_x + lx;
    // The left voxel, when foreground, joins most of the same neighbours (see skip_for_left).
    const bool left_joins = lx > 0 && foreground[li - 1];
#pragma unroll
    for (int n = 0; n < math::BackwardNeighbours<C26>::count; ++n) {
      int dx, dy, dz;
      math::BackwardNeighbours<C26>::offset(n, dx, dy, dz);
      if (lx + dx < 0 || lx + dx >= tile_x || ly + dy < 0 || ly + dy >= tile_y || lz + dz < 0) continue;
      const bool is_left = dx == -1 && dy == 0 && dz == 0;
      const int ln = li + (dz * tile_y + dy) * tile_x + dx;
      if (!is_left && skip_for_left<C26>(left_joins, dx, !C26 && lx > 0 && foreground[ln - 1])) continue;
      if (foreground[ln]) unite<SharedParents>(local, std::uint32_t(li), std::uint32_t(ln));
    }
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < voxels_per_thread; ++k) {
    if (!inside[k]) continue;
    const int lz = int(threadIdx.z) + k * block_z;
    std::uint32_t out = no_root;
    if (fg[k]) {
      const int r = int(find_root<SharedParents>(local, std::uint32_t((lz * tile_y + ly) * tile_x + lx)));
      out = view_index(x0 + r % tile_x, y0 + (r / tile_x) % tile_y, z0 + r / (tile_x * tile_y), nx, ny);
    }
    roots[view_index(x, y, z0 + lz, nx, ny)] = out;
  }
}

// One thread per voxel; those on a tile face join their backward neighbours in other tiles. A
// neighbour whose parent is one this thread has just joined (or its own parent) is in a joined set
// already, and skip_for_left() drops more redundant joins: finds are the cost on dense masks.
template <bool C26>
__global__ void __launch_bounds__(256)
    merge_tiles_kernel(VolumeView<const std::uint8_t> mask, std::uint8_t value, std::uint32_t* roots) {
  const int nx = mask.nx, ny = mask.ny;  // z: one slice per grid row, all of them held
  const int x = int(blockIdx.x) * 32 + int(threadIdx.x), y = int(blockIdx.y) * 8 + int(threadIdx.y);
  const int z = int(blockIdx.z);
  if (x >= nx || y >= ny) return;
  const int lx = x % tile_x, ly = y % tile_y, lz = z % tile_z;
  // Only these can have a backward neighbour in another tile.
  const bool on_face = lx == 0 || lx == tile_x - 1 || ly == 0 || ly == tile_y - 1 || lz == 0;
  if (!on_face) return;
  const std::uint32_t i = view_index(x, y, z, nx, ny);
  if (mask.data[i] != value) return;
  const bool left_joins = lx > 0 && mask.data[i - 1] == value;
  std::uint32_t joined1 = load_parent(&roots[i]), joined2 = no_root;
#pragma unroll
  for (int n = 0; n < math::BackwardNeighbours<C26>::count; ++n) {
    int dx, dy, dz;
    math::BackwardNeighbours<C26>::offset(n, dx, dy, dz);
    const int xn = x + dx, yn = y + dy, zn = z + dz;
    if (xn < 0 || xn >= nx || yn < 0 || yn >= ny || zn < 0) continue;
    const bool other_tile = lx + dx < 0 || lx + dx >= tile_x || ly + dy < 0 || ly + dy >= tile_y || lz + dz < 0;
    if (!other_tile) continue;
    const std::uint32_t j = view_index(xn, yn, zn, nx, ny);
    if (skip_for_left<C26>(left_joins, dx, !C26 && lx > 0 && mask.data[j - 1] == value)) continue;
    if (mask.data[j] != value) continue;
    const std::uint32_t parent = load_parent(&roots[j]);
    if (parent == joined1 || parent == joined2) continue;
    unite(roots, i, parent);
    joined2 = joined1;
    joined1 = parent;
  }
}

// Every voxel points straight at its root (chase_root: no path splitting here).
__global__ void compress_kernel(std::uint32_t* roots, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n || roots[i] == no_root) return;
  roots[i] = chase_root(roots, std::uint32_t(i));
}

struct IsRoot {
  const std::uint32_t* roots;
  __host__ __device__ std::uint32_t operator()(std::uint32_t i) const { return roots[i] == i ? 1u : 0u; }
};

__global__ void count_kernel(const std::uint32_t* roots, const std::uint32_t* before, std::size_t n,
                             std::uint32_t* count) {
  *count = before[n - 1] + (roots[n - 1] == std::uint32_t(n - 1) ? 1u : 0u);
}

__global__ void relabel_kernel(std::uint32_t* labels, const std::uint32_t* before, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::uint32_t r = labels[i];
  labels[i] = r == no_root ? 0u : before[r] + 1u;
}

void check_roots_args(const char* op, VolumeView<const std::uint8_t> mask, VolumeView<std::uint32_t> out) {
  require_indexable<std::uint8_t>(mask, op, "mask");
  checks::require_view(out, op, "output");
  checks::require_same_slices(mask, out, op);
}

// The three union-find launches (arguments checked by the caller).
void roots_gpu(VolumeView<const std::uint8_t> mask, std::uint8_t value, Connectivity connectivity,
               std::uint32_t* roots, cudaStream_t stream) {
  const std::size_t n = mask.held_voxels();
  if (n == 0) return;
  const std::string size = checks::describe(mask) + ", " + std::to_string(int(connectivity)) + "-connected";
  const bool c26 = connectivity == Connectivity::c26;
  const dim3 tiles(unsigned(mask.nx + tile_x - 1) / tile_x, unsigned(mask.ny + tile_y - 1) / tile_y,
                   unsigned(mask.z_count + tile_z - 1) / tile_z);
  const dim3 tile_block(tile_x, tile_y, block_z);
  if (c26)
    local_roots_kernel<true><<<tiles, tile_block, 0, stream>>>(mask, value, roots);
  else
    local_roots_kernel<false><<<tiles, tile_block, 0, stream>>>(mask, value, roots);
  GP_CUDA_CHECK_LAUNCH("local_roots_kernel " + size);
  if (c26)
    merge_tiles_kernel<true><<<launch::voxel_grid(mask), launch::voxel_block(), 0, stream>>>(mask, value, roots);
  else
    merge_tiles_kernel<false><<<launch::voxel_grid(mask), launch::voxel_block(), 0, stream>>>(mask, value, roots);
  GP_CUDA_CHECK_LAUNCH("merge_tiles_kernel " + size);
  compress_kernel<<<launch::flat_blocks(n, 256), 256, 0, stream>>>(roots, n);
  GP_CUDA_CHECK_LAUNCH("compress_kernel " + size);
}

}  // namespace

void component_roots_gpu(VolumeView<const std::uint8_t> mask, std::uint8_t value, Connectivity connectivity,
                         VolumeView<std::uint32_t> roots, cudaStream_t stream) {
  check_roots_args("component_roots_gpu", mask, roots);
  roots_gpu(mask, value, connectivity, roots.data, stream);
}

std::uint32_t label_components_gpu(VolumeView<const std::uint8_t> mask, std::uint8_t value, Connectivity connectivity,
                                   VolumeView<std::uint32_t> labels, const ScratchAllocator& scratch,
                                   cudaStream_t stream) {
  check_roots_args("label_components_gpu", mask, labels);
  const std::size_t n = mask.held_voxels();
  if (n == 0) return 0;
  const std::string size = checks::describe(mask);
  roots_gpu(mask, value, connectivity, labels.data, stream);

  // Labels: 1 + the number of roots before each voxel's root (an exclusive scan of the root flags).
  using Flags = thrust::transform_iterator<IsRoot, thrust::counting_iterator<std::uint32_t>>;
  const Flags flags(thrust::counting_iterator<std::uint32_t>(0), IsRoot{labels.data});
  const auto items = std::uint32_t(n);
  std::uint32_t* before = nullptr;
  std::size_t temp_bytes = 0;
  GP_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, flags, before, items, stream),
                "size the label scan " + size);
  const std::size_t count_at = scratch_aligned(n * sizeof(std::uint32_t)), temp_at = count_at + 256;
  auto* base = static_cast<char*>(scratch(temp_at + temp_bytes));
  before = reinterpret_cast<std::uint32_t*>(base);
  auto* count = reinterpret_cast<std::uint32_t*>(base + count_at);
  GP_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(base + temp_at, temp_bytes, flags, before, items, stream),
                "label scan " + size);
  count_kernel<<<1, 1, 0, stream>>>(labels.data, before, n, count);
  GP_CUDA_CHECK_LAUNCH("count_kernel " + size);
  relabel_kernel<<<launch::flat_blocks(n, 256), 256, 0, stream>>>(labels.data, before, n);
  GP_CUDA_CHECK_LAUNCH("relabel_kernel " + size);
  return stream_ops::read_back(count, stream, "label_components_gpu count " + size);
}

}  // namespace gp::labelling
