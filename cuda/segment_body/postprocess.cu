// The postprocess chain on the GPU: the launchers of mask.hpp, guided_filter.hpp and islands.hpp
// in order on one stream, plus two small kernels for islands on a soft alpha.
#include "cuda/segment_body/postprocess.hpp"

#include "cuda/common/cuda_check.hpp"
#include "cuda/segment_body/checks.hpp"
#include "cuda/segment_body/postprocess_math.hpp"

namespace gp::segbody {
namespace {

constexpr int threads = 256;

__global__ void __launch_bounds__(threads) binary_copy_kernel(const std::uint8_t* soft, std::uint8_t* binary,
                                                              std::size_t n, float threshold) {
  const std::size_t i = std::size_t(blockIdx.x) * threads + threadIdx.x;
  if (i < n) binary[i] = math::on_foreground_side(soft[i], threshold) ? 255 : 0;
}

__global__ void __launch_bounds__(threads) island_edit_kernel(std::uint8_t* soft, const std::uint8_t* binary,
                                                              std::size_t n, float threshold) {
  const std::size_t i = std::size_t(blockIdx.x) * threads + threadIdx.x;
  if (i < n) soft[i] = math::island_edited(soft[i], binary[i], threshold);
}

}  // namespace

void postprocess_gpu(const ImageView& model_mask, const ImageView& luma, const TemporalState& temporal,
                     bool first_frame, const Rect& content, const ImageView& guide, const PostprocessParams& p,
                     const ImageView& out, void* scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  checks::require_postprocess(guide, p, out, scratch, scratch_bytes, "postprocess_gpu");
  const math::PostprocessScratch s = math::postprocess_scratch(scratch, out.width, out.height, p);
  ImageView mask = model_mask;
  if (p.temporal) {
    temporal_smooth_gpu(model_mask, luma, temporal.state, temporal.prev_luma, p.temporal_params, first_frame, stream);
    mask = temporal.state;
  }
  if (p.refine) {
    upsample_mask_gpu(mask, content, s.upsampled, p.output, stream);
    guided_filter_gpu(guide, s.upsampled, p.guided, out, p.output, s.guided, s.guided_bytes, stream);
  } else {
    upsample_mask_gpu(mask, content, out, p.output, stream);
  }
  if (p.islands.min_foreground_area <= 0 && p.islands.min_hole_area <= 0) return;
  if (!math::soft_islands(p)) {
    remove_islands_gpu(out, p.islands, s.islands, s.island_bytes, stream);
    return;
  }
  const std::size_t n = std::size_t(out.width) * std::size_t(out.height);
  const unsigned blocks = unsigned((n + threads - 1) / threads);
  auto* soft = static_cast<std::uint8_t*>(out.data);
  auto* binary = static_cast<std::uint8_t*>(s.binary.data);
  const std::string size = checks::size_text(out.width, out.height);
  binary_copy_kernel<<<blocks, threads, 0, stream>>>(soft, binary, n, p.output.threshold);
  GP_CUDA_CHECK_LAUNCH("binary_copy_kernel " + size);
  remove_islands_gpu(s.binary, p.islands, s.islands, s.island_bytes, stream);
  island_edit_kernel<<<blocks, threads, 0, stream>>>(soft, binary, n, p.output.threshold);
  GP_CUDA_CHECK_LAUNCH("island_edit_kernel " + size);
}

}  // namespace gp::segbody
