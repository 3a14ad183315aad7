// Tone mapping: dst = curve(src.rgb * scale[0]), alpha copied (premultiplied colour is tone-mapped
// straight and premultiplied again). One thread per pixel, float4 in and out; one kernel per
// operator so each has only its own curve's code and registers.
#include "cuda/common/cuda_check.hpp"
#include "cuda/common/pixel_launch.cuh"
#include "cuda/tone/tone_math.hpp"
#include "cuda/tone/view_checks.hpp"

namespace gp::tone {
namespace {

// `scale` is read on the device (written there by auto exposure, no host round trip).
template <Operator Op>
__global__ void tonemap_kernel(ImageView src, ImageView dst, ToneParams p, const float* scale) {
  int x, y;
  if (!launch::pixel_of_thread(src.width, src.height, x, y)) return;
  const float s = __ldg(scale);
  dst.row<float4>(y)[x] = math::tonemap_pixel<Op>(src.row<const float4>(y)[x], s, p);
}

}  // namespace

void tonemap_gpu(const ImageView& src, const ImageView& dst, const ToneParams& p, const float* scale,
                 cudaStream_t stream) {
  checks::require_rgba_f32(src, "tonemap_gpu", "src");
  checks::require_rgba_f32(dst, "tonemap_gpu", "dst");
  checks::require_same_size(src, dst, "tonemap_gpu");
  if (launch::empty(src)) return;
  math::with_operator(p.op, [&](auto op) {
    tonemap_kernel<decltype(op)::value>
        <<<launch::pixel_grid(src.width, src.height), launch::pixel_block(), 0, stream>>>(src, dst, p, scale);
  });
  GP_CUDA_CHECK_LAUNCH("tonemap_kernel " + checks::size_text(src) + " operator " + std::to_string(int(p.op)));
}

}  // namespace gp::tone
