// CPU reference of tonemap_gpu: the same per-pixel math, one specialised loop per operator.
#include "core/parallel_for.hpp"
#include "cuda/tone/tone_math.hpp"
#include "cuda/tone/view_checks.hpp"

namespace gp::tone {

void tonemap_cpu(const ImageView& src, const ImageView& dst, const ToneParams& p, const float* scale) {
  checks::require_rgba_f32(src, "tonemap_cpu", "src");
  checks::require_rgba_f32(dst, "tonemap_cpu", "dst");
  checks::require_same_size(src, dst, "tonemap_cpu");
  const float s = scale[0];
  math::with_operator(p.op, [&](auto op) {
    for_each_row(src.width, src.height, [&](int y) {
      const float4* in = src.row<const float4>(y);
      float4* out = dst.row<float4>(y);
      for (int x = 0; x < src.width; ++x) out[x] = math::tonemap_pixel<decltype(op)::value>(in[x], s, p);
    });
  });
}

}  // namespace gp::tone
