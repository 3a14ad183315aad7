// Temporal smoothing and mask upsampling on the GPU: one thread per pixel (mask_math.hpp).
#include "cuda/segment_body/mask.hpp"

#include "cuda/common/cuda_check.hpp"
#include "cuda/segment_body/checks.hpp"
#include "cuda/common/pixel_launch.cuh"
#include "cuda/segment_body/mask_math.hpp"

namespace gp::segbody {
namespace {

__global__ void temporal_kernel(ImageView mask, ImageView luma, ImageView state, ImageView prev_luma,
                                TemporalParams p, bool first_frame) {
  int x, y;
  if (!launch::pixel_of_thread(mask.width, mask.height, x, y)) return;
  const float l = luma.row<const float>(y)[x];
  float& s = state.row<float>(y)[x];
  float& lp = prev_luma.row<float>(y)[x];
  s = math::smoothed(mask.row<const float>(y)[x], l, s, lp, p, first_frame);
  lp = l;
}

__global__ void upsample_kernel(ImageView mask, Rect content, ImageView out, MaskOutput mode) {
  int x, y;
  if (!launch::pixel_of_thread(out.width, out.height, x, y)) return;
  math::store_mask(out, x, y, math::upsampled(mask, content, out.width, out.height, x, y), mode);
}

}  // namespace

void temporal_smooth_gpu(const ImageView& mask, const ImageView& luma, const ImageView& state,
                         const ImageView& prev_luma, const TemporalParams& p, bool first_frame, cudaStream_t stream) {
  checks::require_temporal(mask, luma, state, prev_luma, p, "temporal_smooth_gpu");
  temporal_kernel<<<launch::pixel_grid(mask.width, mask.height), launch::pixel_block(), 0, stream>>>(
      mask, luma, state, prev_luma, p, first_frame);
  GP_CUDA_CHECK_LAUNCH("temporal_kernel " + checks::size_text(mask.width, mask.height));
}

void upsample_mask_gpu(const ImageView& mask, const Rect& content, const ImageView& out, const MaskOutput& mode,
                       cudaStream_t stream) {
  checks::require_upsample(mask, content, out, "upsample_mask_gpu");
  upsample_kernel<<<launch::pixel_grid(out.width, out.height), launch::pixel_block(), 0, stream>>>(mask, content, out,
                                                                                                   mode);
  GP_CUDA_CHECK_LAUNCH("upsample_kernel " + checks::size_text(mask.width, mask.height) + " -> " +
                       checks::size_text(out.width, out.height));
}

}  // namespace gp::segbody
