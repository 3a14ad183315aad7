#pragma once
// One output pixel of the ROI warp kernel and of its CPU reference (same float operations, both
// sides compiled with --fmad=false / -ffp-contract=off).
#include <cstddef>
#include <cstdint>

#include "cuda/frames/frame_math.hpp"
#include "cuda/frames/preprocess_math.hpp"  // half_bits
#include "cuda/detection/roi.hpp"
#include "cuda/detection/roi_warp.hpp"

namespace gp::detect::warp {

// Frame colour (R'G'B', 0..255) at frame point (x, y), bilinear between pixel centres; points
// outside the frame read the edge (replicate). Clamping the point to [0, width] x [0, height]
// first changes nothing (beyond it both taps are the edge pixel already) but keeps floor() in
// range for ROIs far outside, and turns NaN into the edge (fmaxf/fminf drop NaN).
GP_HD frames::math::Rgb sample_point(const frames::FrameSource& f, float x, float y) {
  namespace m = frames::math;
  x = fminf(fmaxf(x, 0.0f), float(f.width));
  y = fminf(fmaxf(y, 0.0f), float(f.height));
  return m::sample_frame(f, m::axis_footprint(x, x, false), m::axis_footprint(y, y, false));
}

// Writes pixel (u, v) of item `item`.
GP_HD void warp_pixel(const frames::FrameSource& f, const Roi& roi, const RoiWarpParams& p, void* tensor,
                      int item, int u, int v) {
  const RoiPoint q = tensor_to_frame(roi, p.size, float(u) + 0.5f, float(v) + 0.5f);
  const frames::math::Rgb rgb = sample_point(f, q.x, q.y);
  const float value[3] = {rgb.r / 255.0f * p.scale + p.offset, rgb.g / 255.0f * p.scale + p.offset,
                          rgb.b / 255.0f * p.scale + p.offset};
  const std::size_t at =
      ((std::size_t(item) * std::size_t(p.size) + std::size_t(v)) * std::size_t(p.size) + std::size_t(u)) * 3;
  if (p.type == frames::TensorType::f32) {
    float* out = static_cast<float*>(tensor) + at;
    for (int c = 0; c < 3; ++c) out[c] = value[c];
  } else {
    std::uint16_t* out = static_cast<std::uint16_t*>(tensor) + at;
    for (int c = 0; c < 3; ++c) out[c] = frames::math::half_bits(value[c]);
  }
}

}  // namespace gp::detect::warp
