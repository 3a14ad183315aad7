// segment-pnm's fill of enclosed components on the GPU (fill_enclosed.hpp): component roots from
// the shared labelling (cuda/labelling), then the components touching a face are flagged and the
// others change phase.
#include "core/stream_ops.hpp"
#include "cuda/pnm/fill_enclosed.hpp"

#include <cub/block/block_reduce.cuh>

#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/volume_launch.cuh"
#include "cuda/labelling/components.hpp"
#include "cuda/pnm/slab_checks.hpp"

namespace gp::pnm {
namespace {

using labelling::no_root;

__device__ __forceinline__ std::size_t view_index(int x, int y, int z, int nx, int ny) {
  return (std::size_t(z) * std::size_t(ny) + std::size_t(y)) * std::size_t(nx) + std::size_t(x);
}

// flags[key] = 1 for the keys (roots or labels) of voxels on a face of the volume: x or y at their
// ends, or the volume's first or last slice where the view holds it.
__global__ void mark_face_keys_kernel(VolumeView<const std::uint32_t> keys, std::uint32_t background,
                                      std::uint8_t* flags) {
  const int x = int(blockIdx.x) * 32 + int(threadIdx.x), y = int(blockIdx.y) * 8 + int(threadIdx.y);
  const int z = int(blockIdx.z), z_volume = keys.z_first + z;
  if (x >= keys.nx || y >= keys.ny) return;
  if (!(x == 0 || x == keys.nx - 1 || y == 0 || y == keys.ny - 1 || z_volume == 0 || z_volume == keys.nz - 1)) return;
  const std::uint32_t k = keys.data[view_index(x, y, z, keys.nx, keys.ny)];
  if (k != background) flags[k] = 1;
}

constexpr int change_threads = 256;

// mask = other where the voxel's key is not background and not kept; counts the changes.
__global__ void __launch_bounds__(change_threads)
    change_unkept_kernel(std::uint8_t* mask, const std::uint32_t* keys, std::uint32_t background,
                         const std::uint8_t* keep, std::size_t n, std::uint8_t other, unsigned long long* changed) {
  const std::size_t i = std::size_t(blockIdx.x) * change_threads + threadIdx.x;
  std::uint32_t mine = 0;
  if (i < n) {
    const std::uint32_t k = keys[i];
    if (k != background && !keep[k]) {
      mask[i] = other;
      mine = 1;
    }
  }
  using Reduce = cub::BlockReduce<std::uint32_t, change_threads>;
  __shared__ typename Reduce::TempStorage storage;
  const std::uint32_t total = Reduce(storage).Sum(mine);
  if (threadIdx.x == 0 && total > 0) atomicAdd(changed, static_cast<unsigned long long>(total));
}

}  // namespace

std::uint64_t fill_enclosed_gpu(VolumeView<std::uint8_t> mask, std::uint8_t phase, Connectivity connectivity,
                                const ScratchAllocator& scratch, cudaStream_t stream) {
  const char* op = "fill_enclosed_gpu";
  VolumeView<const std::uint8_t> in = mask;
  checks::require(phase <= 1, op, "phase must be 0 or 1, not " + std::to_string(int(phase)));
  checks::require_view(in, op, "mask");
  checks::require(mask.z_first == 0 && mask.z_count == mask.nz, op,
                  "the mask must hold the whole volume: " + checks::describe(mask));
  const std::size_t n = mask.held_voxels();
  const std::size_t keep_at = scratch_aligned(n * sizeof(std::uint32_t)), changed_at = keep_at + scratch_aligned(n);
  auto* base = static_cast<char*>(scratch(changed_at + sizeof(unsigned long long)));
  auto* roots = reinterpret_cast<std::uint32_t*>(base);
  auto* keep = reinterpret_cast<std::uint8_t*>(base + keep_at);
  auto* changed = reinterpret_cast<unsigned long long*>(base + changed_at);
  const std::string size = checks::describe(mask);
  labelling::component_roots_gpu(in, phase, connectivity, {roots, mask.nx, mask.ny, mask.nz, 0, mask.nz}, stream);
  stream_ops::fill(keep, 0, n, stream, "fill_enclosed keep flags " + size);
  stream_ops::fill(changed, 0, 1, stream, "fill_enclosed count " + size);
  const VolumeView<const std::uint32_t> keys{roots, mask.nx, mask.ny, mask.nz, 0, mask.nz};
  mark_face_keys_kernel<<<launch::voxel_grid(keys), launch::voxel_block(), 0, stream>>>(keys, no_root, keep);
  GP_CUDA_CHECK_LAUNCH("mark_face_keys_kernel " + size);
  change_unkept_kernel<<<launch::flat_blocks(n, change_threads), change_threads, 0, stream>>>(
      mask.data, roots, no_root, keep, n, std::uint8_t(1 - phase), changed);
  GP_CUDA_CHECK_LAUNCH("change_unkept_kernel " + size);
  return stream_ops::read_back(changed, stream, "fill_enclosed_gpu " + size);
}

void mark_face_labels_gpu(VolumeView<const std::uint32_t> labels, std::uint32_t count, std::uint8_t* flags,
                          cudaStream_t stream) {
  labelling::require_indexable<std::uint32_t>(labels, "mark_face_labels_gpu", "labels");
  const std::string size = checks::describe(labels);
  stream_ops::fill(flags, 0, std::size_t(count) + 1, stream, "face flags " + size);
  if (labels.held_voxels() == 0) return;
  mark_face_keys_kernel<<<launch::voxel_grid(labels), launch::voxel_block(), 0, stream>>>(labels, 0, flags);
  GP_CUDA_CHECK_LAUNCH("mark_face_keys_kernel " + size);
}

std::uint64_t change_unkept_labels_gpu(VolumeView<std::uint8_t> mask, VolumeView<const std::uint32_t> labels,
                                       const std::uint8_t* keep, std::uint8_t value, const ScratchAllocator& scratch,
                                       cudaStream_t stream) {
  const char* op = "change_unkept_labels_gpu";
  labelling::require_indexable<std::uint32_t>(labels, op, "labels");
  checks::require_view(mask, op, "mask");
  checks::require_same_slices(mask, labels, op);
  const std::size_t n = labels.held_voxels();
  if (n == 0) return 0;
  const std::string size = checks::describe(labels);
  auto* changed = static_cast<unsigned long long*>(scratch(sizeof(unsigned long long)));
  stream_ops::fill(changed, 0, 1, stream, "changed count " + size);
  change_unkept_kernel<<<launch::flat_blocks(n, change_threads), change_threads, 0, stream>>>(mask.data, labels.data, 0, keep,
                                                                                         n, value, changed);
  GP_CUDA_CHECK_LAUNCH("change_unkept_kernel " + size);
  return stream_ops::read_back(changed, stream, std::string(op) + " " + size);
}

}  // namespace gp::pnm
