#include "core/stream_ops.hpp"
#include "cuda/pnm/watershed.hpp"

#include <algorithm>
#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/pnm/slab_checks.hpp"
#include "cuda/pnm/watershed_key.hpp"

namespace gp::pnm {
namespace {

using namespace watershed_detail;

constexpr int tile = 8, halo_tile = tile + 2;

// The 8^3 tiles over slices [z_begin, z_end) of the volume.
struct Tiles {
  int tx, ty, tz;
  int z_begin, z_end;
  __host__ __device__ std::size_t count() const { return std::size_t(tx) * ty * tz; }
};

__global__ void init_kernel(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                            VolumeView<const std::uint32_t> markers, std::uint64_t* key, std::uint32_t* label,
                            std::size_t voxels) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < voxels) initial_state(mask.data[i], distance.data[i], markers.data[i], key[i], label[i]);
}

// One pass: each active 8^3 tile, with a one-voxel halo from its neighbours, relaxes in shared
// memory until it is locally stable (see watershed.hpp for why any order reaches the same result).
__global__ void relax_kernel(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                             VolumeView<const std::uint32_t> markers, std::uint64_t* key, std::uint32_t* label,
                             Tiles tiles, const std::uint8_t* active, std::uint8_t* changed) {
  const std::size_t t = blockIdx.x;
  if (!active[t]) return;
  __shared__ std::uint64_t s_key[halo_tile][halo_tile][halo_tile];
  __shared__ std::uint32_t s_label[halo_tile][halo_tile][halo_tile];
  const int nx = mask.nx, ny = mask.ny, nz = mask.nz;
  const int x0 = int(t % tiles.tx) * tile, y0 = int((t / tiles.tx) % tiles.ty) * tile,
            z0 = tiles.z_begin + int(t / (std::size_t(tiles.tx) * tiles.ty)) * tile;
  const int lx = threadIdx.x, ly = threadIdx.y, lz = threadIdx.z;
  const int lid = (lz * tile + ly) * tile + lx;
  for (int h = lid; h < halo_tile * halo_tile * halo_tile; h += tile * tile * tile) {
    const int hx = h % halo_tile, hy = (h / halo_tile) % halo_tile, hz = h / (halo_tile * halo_tile);
    const int x = x0 + hx - 1, y = y0 + hy - 1, z = z0 + hz - 1;
    // Slices outside the view (beyond a slab's halo) are never read: the view holds all of the
    // volume or the slab's neighbours.
    const bool inside = x >= 0 && y >= 0 && x < nx && y < ny && z >= 0 && z < nz && mask.holds_z(z);
    const std::size_t i = inside ? mask.offset(x, y, z) : 0;
    s_key[hz][hy][hx] = inside ? key[i] : unreached;
    s_label[hz][hy][hx] = inside ? label[i] : 0;
  }
  const int x = x0 + lx, y = y0 + ly, z = z0 + lz;
  const bool inside = x < nx && y < ny && z < tiles.z_end;  // halo slices are read, never written
  const std::size_t i = inside ? mask.offset(x, y, z) : 0;
  const bool free_voxel = inside && mask.data[i] && markers.data[i] == 0;
  const std::uint32_t level = free_voxel ? level_of(distance.data[i]) : 0;
  const int sx = lx + 1, sy = ly + 1, sz = lz + 1;
  __syncthreads();
  bool ever = false;
  for (;;) {
    // Jacobi steps: every thread reads its neighbours, then, after a barrier, writes its own
    // voxel. Writing at once would let a thread read a neighbour's key and label half-updated;
    // the fixed point is the same (watershed.hpp), but that is a data race.
    bool now = false;
    std::uint64_t best_key = unreached;
    std::uint32_t best_label = 0;
    if (free_voxel) {
      std::uint64_t best_from = unreached;
      auto consider = [&](int hx, int hy, int hz) {
        const std::uint64_t from = s_key[hz][hy][hx];
        const std::uint64_t k = step(from, level);
        const std::uint32_t l = s_label[hz][hy][hx];
        if (is_better(k, from, l, best_key, best_from, best_label)) {
          best_key = k;
          best_from = from;
          best_label = l;
        }
      };
      consider(sx - 1, sy, sz);
      consider(sx + 1, sy, sz);
      consider(sx, sy - 1, sz);
      consider(sx, sy + 1, sz);
      consider(sx, sy, sz - 1);
      consider(sx, sy, sz + 1);
      if (best_key == unreached) best_label = 0;
      now = best_key != s_key[sz][sy][sx] || best_label != s_label[sz][sy][sx];
    }
    __syncthreads();
    if (now) {
      s_key[sz][sy][sx] = best_key;
      s_label[sz][sy][sx] = best_label;
    }
    ever |= now;
    if (!__syncthreads_or(now)) break;
  }
  if (ever) {
    key[i] = s_key[sz][sy][sx];
    label[i] = s_label[sz][sy][sx];
  }
  if (__syncthreads_or(ever) && lid == 0) changed[t] = 1;
}

// Next pass runs the tiles that changed and their six face neighbours; `any` says whether any did.
__global__ void activity_kernel(Tiles tiles, const std::uint8_t* changed, std::uint8_t* active, int* any) {
  const std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= tiles.count()) return;
  const int x = int(t % tiles.tx), y = int((t / tiles.tx) % tiles.ty), z = int(t / (std::size_t(tiles.tx) * tiles.ty));
  const std::size_t row = tiles.tx, plane = std::size_t(tiles.tx) * tiles.ty;
  bool a = changed[t];
  a |= x > 0 && changed[t - 1];
  a |= x + 1 < tiles.tx && changed[t + 1];
  a |= y > 0 && changed[t - row];
  a |= y + 1 < tiles.ty && changed[t + row];
  a |= z > 0 && changed[t - plane];
  a |= z + 1 < tiles.tz && changed[t + plane];
  active[t] = a;
  if (changed[t]) *any = 1;
}

__global__ void scatter_kernel(const std::uint64_t* voxels, const std::uint32_t* labels, std::size_t count,
                               std::uint32_t* markers) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < count) markers[voxels[k]] = labels[k];
}

}  // namespace

void place_markers_gpu(const std::uint64_t* voxels, const std::uint32_t* labels, std::size_t count,
                       VolumeView<std::uint32_t> markers, cudaStream_t stream) {
  const std::string what = "place " + std::to_string(count) + " marker voxels";
  stream_ops::fill(markers.data, 0, markers.held_voxels(), stream, what);
  if (count == 0) return;
  scatter_kernel<<<unsigned((count + 255) / 256), 256, 0, stream>>>(voxels, labels, count, markers.data);
  GP_CUDA_CHECK_LAUNCH(what);
}

void place_markers_gpu(const std::vector<std::uint64_t>& voxels, const std::vector<std::uint32_t>& labels,
                       VolumeView<std::uint32_t> markers, const ScratchAllocator& scratch, cudaStream_t stream) {
  const std::string what = "place " + std::to_string(voxels.size()) + " marker voxels";
  auto* d_voxels = static_cast<std::uint64_t*>(scratch(std::max<std::size_t>(voxels.size() * sizeof(std::uint64_t), 1)));
  auto* d_labels = static_cast<std::uint32_t*>(scratch(std::max<std::size_t>(labels.size() * sizeof(std::uint32_t), 1)));
  stream_ops::copy(d_voxels, voxels.data(), voxels.size(), stream, what);
  stream_ops::copy(d_labels, labels.data(), labels.size(), stream, what);
  place_markers_gpu(d_voxels, d_labels, voxels.size(), markers, stream);
  // The host vectors must outlive the copies.
  stream_ops::wait(stream, what);
}

namespace {

// Relaxation passes over the tiles of slices [z_begin, z_end) until no tile changes; key and
// label are addressed like mask. Returns the passes (1 = nothing changed).
int relax_until_stable(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                       VolumeView<const std::uint32_t> markers, std::uint64_t* key, std::uint32_t* label, int z_begin,
                       int z_end, const ScratchAllocator& scratch, cudaStream_t stream, const std::string& what) {
  const Tiles tiles{(mask.nx + tile - 1) / tile, (mask.ny + tile - 1) / tile, (z_end - z_begin + tile - 1) / tile,
                    z_begin, z_end};
  if (tiles.count() == 0) return 1;
  auto* active = static_cast<std::uint8_t*>(scratch(tiles.count()));
  auto* changed = static_cast<std::uint8_t*>(scratch(tiles.count()));
  auto* any = static_cast<int*>(scratch(sizeof(int)));
  stream_ops::fill(active, 1, tiles.count(), stream, what);
  int passes = 0;
  for (;;) {
    ++passes;
    stream_ops::fill(changed, 0, tiles.count(), stream, what);
    stream_ops::fill(any, 0, 1, stream, what);
    relax_kernel<<<unsigned(tiles.count()), dim3(tile, tile, tile), 0, stream>>>(mask, distance, markers, key, label,
                                                                                tiles, active, changed);
    GP_CUDA_CHECK_LAUNCH(what + " relax pass " + std::to_string(passes));
    activity_kernel<<<unsigned((tiles.count() + 255) / 256), 256, 0, stream>>>(tiles, changed, active, any);
    GP_CUDA_CHECK_LAUNCH(what + " activity");
    if (!stream_ops::read_back(any, stream, what + " pass " + std::to_string(passes))) break;
  }
  return passes;
}

std::string describe(const VolumeView<const std::uint8_t>& mask) {
  return std::to_string(mask.nx) + "x" + std::to_string(mask.ny) + "x" + std::to_string(mask.nz);
}

}  // namespace

int watershed_gpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                  VolumeView<const std::uint32_t> markers, VolumeView<std::uint32_t> labels,
                  const ScratchAllocator& scratch, cudaStream_t stream) {
  const std::size_t voxels = mask.held_voxels();
  if (voxels == 0) return 0;
  const std::string what = "watershed " + describe(mask);
  auto* key = static_cast<std::uint64_t*>(scratch(voxels * sizeof(std::uint64_t)));
  init_kernel<<<unsigned((voxels + 255) / 256), 256, 0, stream>>>(mask, distance, markers, key, labels.data, voxels);
  GP_CUDA_CHECK_LAUNCH(what + " init");
  return relax_until_stable(mask, distance, markers, key, labels.data, 0, mask.nz, scratch, stream, what);
}

void watershed_init_gpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                        VolumeView<const std::uint32_t> markers, VolumeView<std::uint64_t> key,
                        VolumeView<std::uint32_t> labels, cudaStream_t stream) {
  const int z_begin = mask.z_first, z_end = mask.z_first + mask.z_count;
  const char* op = "watershed_init_gpu";
  checks::require_view(mask, op, "mask");
  checks::require_same_slices(mask, distance, op);
  checks::require_same_slices(mask, markers, op);
  checks::require_same_slices(mask, key, op);
  checks::require_same_slices(mask, labels, op);
  const std::size_t voxels = mask.held_voxels();
  if (voxels == 0) return;
  init_kernel<<<unsigned((voxels + 255) / 256), 256, 0, stream>>>(mask, distance, markers, key.data, labels.data, voxels);
  GP_CUDA_CHECK_LAUNCH("watershed init " + describe(mask) + " slices [" + std::to_string(z_begin) + ", " +
                       std::to_string(z_end) + ")");
}

int watershed_relax_gpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                        VolumeView<const std::uint32_t> markers, VolumeView<std::uint64_t> key,
                        VolumeView<std::uint32_t> labels, int z_begin, int z_end, const ScratchAllocator& scratch,
                        cudaStream_t stream) {
  detail::check_relax_args(mask, distance, markers, key, labels, z_begin, z_end, "watershed_relax_gpu");
  const std::string what = "watershed " + describe(mask) + " slices [" + std::to_string(z_begin) + ", " +
                           std::to_string(z_end) + ")";
  return relax_until_stable(mask, distance, markers, key.data, labels.data, z_begin, z_end, scratch, stream, what);
}

}  // namespace gp::pnm
