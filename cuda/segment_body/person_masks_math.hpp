#pragma once
// One canvas pixel of paste_person_masks_* (same float operations on both sides).
#include <cmath>

#include "cuda/common/host_device.hpp"
#include "cuda/segment_body/person_masks.hpp"

namespace gp::segbody::math {

GP_HD float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

// Sigmoid of mask texel (u, v), 0 outside the S x S mask (BORDER_ZERO).
GP_HD float mask_texel(const float* logits, int S, int u, int v) {
  if (u < 0 || v < 0 || u >= S || v >= S) return 0.0f;
  return sigmoid(logits[std::size_t(v) * std::size_t(S) + std::size_t(u)]);
}

// Canvas pixel (cx, cy): its centre in frame pixels, then for each person the bilinear sample of
// its mask at the tensor point frame_to_tensor gives (texel centres at u + 0.5), the max of all.
GP_HD float canvas_value(const PersonMasks& p, int canvas_width, int canvas_height, int cx, int cy) {
  const float x = (float(cx) + 0.5f) * float(p.frame_width) / float(canvas_width);
  const float y = (float(cy) + 0.5f) * float(p.frame_height) / float(canvas_height);
  float best = 0.0f;
  for (int i = 0; i < p.count; ++i) {
    const detect::RoiPoint t = detect::frame_to_tensor(p.rois[i], p.size, x, y);
    const float tx = t.x - 0.5f, ty = t.y - 0.5f;
    if (!(tx > -1.0f && ty > -1.0f && tx < float(p.size) && ty < float(p.size))) continue;  // NaN too
    const int u0 = int(floorf(tx)), v0 = int(floorf(ty));
    const float fx = tx - float(u0), fy = ty - float(v0);
    const float* m = p.logits + std::size_t(i) * std::size_t(p.size) * std::size_t(p.size);
    const float top = mask_texel(m, p.size, u0, v0) * (1.0f - fx) + mask_texel(m, p.size, u0 + 1, v0) * fx;
    const float bottom = mask_texel(m, p.size, u0, v0 + 1) * (1.0f - fx) + mask_texel(m, p.size, u0 + 1, v0 + 1) * fx;
    const float value = top * (1.0f - fy) + bottom * fy;
    best = value > best ? value : best;
  }
  return best;
}

}  // namespace gp::segbody::math
