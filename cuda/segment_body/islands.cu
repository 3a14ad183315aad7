// Island removal on the GPU, per phase: union-find roots (segment-pnm), component areas by
// atomicAdd on each pixel's root (warp-aggregated: lanes with the same root add once, since a
// large component would otherwise serialise a million atomics on one address), then every pixel of
// a small component flips. No host synchronisation.
#include "core/stream_ops.hpp"
#include "cuda/segment_body/islands.hpp"

#include "cuda/common/cuda_check.hpp"
#include "cuda/labelling/components.hpp"
#include "cuda/segment_body/checks.hpp"
#include "cuda/segment_body/islands_math.hpp"

namespace gp::segbody {
namespace {

constexpr int threads = 256;

__global__ void __launch_bounds__(threads) count_kernel(const std::uint32_t* roots, std::size_t n, std::uint32_t* counts) {
  const std::size_t i = std::size_t(blockIdx.x) * threads + threadIdx.x;
  const std::uint32_t r = i < n ? roots[i] : labelling::no_root;
  const unsigned active = __ballot_sync(0xffffffffu, r != labelling::no_root);
  if (r == labelling::no_root) return;
  const unsigned peers = __match_any_sync(active, r);
  if (int(threadIdx.x & 31) == __ffs(peers) - 1) atomicAdd(&counts[r], std::uint32_t(__popc(peers)));
}

__global__ void __launch_bounds__(threads) flip_small_kernel(std::uint8_t* mask, const std::uint32_t* roots,
                                                             const std::uint32_t* counts, std::size_t n,
                                                             std::uint32_t min_area, std::uint8_t to) {
  const std::size_t i = std::size_t(blockIdx.x) * threads + threadIdx.x;
  if (i >= n) return;
  const std::uint32_t r = roots[i];
  if (r != labelling::no_root && counts[r] < min_area) mask[i] = to;
}

void remove_phase(const ImageView& mask, std::uint8_t phase, int min_area, const math::IslandScratch& s,
                  cudaStream_t stream) {
  if (min_area <= 0) return;
  const std::size_t n = std::size_t(mask.width) * std::size_t(mask.height);
  const auto volume = math::mask_volume(mask);
  labelling::component_roots_gpu(volume, phase, Connectivity::c26, whole_volume(s.roots, mask.width, mask.height, 1),
                           stream);
  const std::string what = std::to_string(mask.width) + "x" + std::to_string(mask.height) + " mask";
  stream_ops::fill(s.counts, 0, n, stream, "island areas " + what);
  const unsigned blocks = unsigned((n + threads - 1) / threads);
  count_kernel<<<blocks, threads, 0, stream>>>(s.roots, n, s.counts);
  GP_CUDA_CHECK_LAUNCH("count_kernel " + what);
  flip_small_kernel<<<blocks, threads, 0, stream>>>(static_cast<std::uint8_t*>(mask.data), s.roots, s.counts, n,
                                                     std::uint32_t(min_area),
                                                     phase == math::foreground ? math::background : math::foreground);
  GP_CUDA_CHECK_LAUNCH("flip_small_kernel " + what);
}

}  // namespace

void remove_islands_gpu(const ImageView& mask, const IslandParams& p, void* scratch, std::size_t scratch_bytes,
                        cudaStream_t stream) {
  checks::require_islands(mask, p, scratch, scratch_bytes, "remove_islands_gpu");
  const math::IslandScratch s = math::island_scratch(scratch, std::size_t(mask.width) * std::size_t(mask.height));
  remove_phase(mask, math::foreground, p.min_foreground_area, s, stream);
  remove_phase(mask, math::background, p.min_hole_area, s, stream);
}

}  // namespace gp::segbody
