#pragma once
// How segment-body's masks become pixels: a value in [0, 1] as 8 bits (soft or thresholded) or a
// clamped float, for the mask, upsampling and guided-filter kernels and their CPU references.
#include <cmath>
#include <cstdint>

#include "core/views.hpp"
#include "cuda/common/host_device.hpp"  // GP_HD
#include "cuda/segment_body/frame_types.hpp"

namespace gp::segbody {

// How a mask value in [0, 1] becomes 8-bit: soft = round(255 v); binary = 255 where v >= threshold.
struct MaskOutput {
  enum class Kind : std::uint8_t { soft, binary } kind = Kind::soft;
  float threshold = 0.5f;
};

}  // namespace gp::segbody

namespace gp::segbody::math {

// A mask value in [0, 1] as 8 bits.
GP_HD std::uint8_t mask_to_u8(float v, const MaskOutput& out) {
  if (out.kind == MaskOutput::Kind::binary) return v >= out.threshold ? 255 : 0;
  return std::uint8_t(floorf(frames::math::clampf(v, 0.0f, 1.0f) * 255.0f + 0.5f));
}

// Stores v into a 1-channel f32 (clamped to [0, 1]) or u8 (mask_to_u8) view.
GP_HD void store_mask(const ImageView& out, int x, int y, float v, const MaskOutput& mode) {
  if (out.type == PixelType::f32)
    out.row<float>(y)[x] = frames::math::clampf(v, 0.0f, 1.0f);
  else
    out.row<std::uint8_t>(y)[x] = mask_to_u8(v, mode);
}

}  // namespace gp::segbody::math
