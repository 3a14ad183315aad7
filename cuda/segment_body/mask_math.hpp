#pragma once
// Per-pixel rules of the temporal smoothing and the mask upsampling (GPU and CPU alike).
#include "core/views.hpp"
#include "cuda/segment_body/frame_types.hpp"
#include "cuda/segment_body/mask.hpp"

namespace gp::segbody::math {

// The new state of one pixel.
GP_HD float smoothed(float mask, float luma, float state, float prev_luma, const TemporalParams& p, bool first_frame) {
  if (first_frame || fabsf(luma - prev_luma) > p.motion_threshold) return mask;
  return p.alpha * mask + (1.0f - p.alpha) * state;
}

// Bilinear sample of the mask's content rectangle for output pixel (x, y) of an out_w x out_h
// frame (pixel centres mapped onto pixel centres, taps clamped into the rectangle).
GP_HD float upsampled(const ImageView& mask, const Rect& content, int out_w, int out_h, int x, int y) {
  const float cx = (float(x) + 0.5f) * (float(content.width) / float(out_w)) - 0.5f;
  const float cy = (float(y) + 0.5f) * (float(content.height) / float(out_h)) - 0.5f;
  const int fx = int(floorf(cx)), fy = int(floorf(cy));
  const float tx = cx - float(fx), ty = cy - float(fy);
  const int x0 = content.x + clampi(fx, 0, content.width - 1);
  const int x1 = content.x + clampi(fx + 1, 0, content.width - 1);
  const float* r0 = mask.row<const float>(content.y + clampi(fy, 0, content.height - 1));
  const float* r1 = mask.row<const float>(content.y + clampi(fy + 1, 0, content.height - 1));
  const float top = r0[x0] + tx * (r0[x1] - r0[x0]);
  const float bottom = r1[x0] + tx * (r1[x1] - r1[x0]);
  return top + ty * (bottom - top);
}

}  // namespace gp::segbody::math
