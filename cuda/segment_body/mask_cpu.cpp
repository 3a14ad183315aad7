// CPU references of the temporal smoothing and mask upsampling (also the CPU path).
#include "cuda/segment_body/checks.hpp"
#include "cuda/segment_body/mask.hpp"
#include "cuda/segment_body/mask_math.hpp"
#include "core/parallel_for.hpp"

namespace gp::segbody {

void temporal_smooth_cpu(const ImageView& mask, const ImageView& luma, const ImageView& state,
                         const ImageView& prev_luma, const TemporalParams& p, bool first_frame) {
  checks::require_temporal(mask, luma, state, prev_luma, p, "temporal_smooth_cpu");
  for_each_row(mask.width, mask.height, [&](int y) {
    const float* m = mask.row<const float>(y);
    const float* l = luma.row<const float>(y);
    float* s = state.row<float>(y);
    float* lp = prev_luma.row<float>(y);
    for (int x = 0; x < mask.width; ++x) {
      s[x] = math::smoothed(m[x], l[x], s[x], lp[x], p, first_frame);
      lp[x] = l[x];
    }
  });
}

void upsample_mask_cpu(const ImageView& mask, const Rect& content, const ImageView& out, const MaskOutput& mode) {
  checks::require_upsample(mask, content, out, "upsample_mask_cpu");
  for_each_row(out.width, out.height, [&](int y) {
    for (int x = 0; x < out.width; ++x)
      math::store_mask(out, x, y, math::upsampled(mask, content, out.width, out.height, x, y), mode);
  });
}

}  // namespace gp::segbody
