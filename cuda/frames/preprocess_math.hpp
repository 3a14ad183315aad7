#pragma once
// One output pixel of the preprocess kernel and of its CPU reference.
#include <cstdint>

#include "cuda/frames/frame_math.hpp"
#include "cuda/frames/preprocess.hpp"

#ifdef __CUDACC__
#include <cuda_fp16.h>
#endif
#include "cuda/common/half.hpp"  // float_to_half on the host

namespace gp::frames::math {

struct ModelPixel {
  float value[3];  // normalised R, G, B
  float luma;      // [0, 1]; 0 on padding
};

// Model-input pixel (x, y) of a frame placed at `content`.
GP_HD ModelPixel preprocess_pixel(const FrameSource& f, const PreprocessParams& p, const Rect& content, int x, int y) {
  ModelPixel out;
  const int cx = x - content.x, cy = y - content.y;
  if (cx < 0 || cy < 0 || cx >= content.width || cy >= content.height) {
    for (int c = 0; c < 3; ++c) out.value[c] = p.pad[c];
    out.luma = 0.0f;
    return out;
  }
  const bool area = p.filter == ResizeFilter::area;
  const Rgb rgb = sample_frame(f, resize_footprint(cx, content.width, f.width, area),
                               resize_footprint(cy, content.height, f.height, area));
  out.value[0] = rgb.r * p.scale[0] + p.offset[0];
  out.value[1] = rgb.g * p.scale[1] + p.offset[1];
  out.value[2] = rgb.b * p.scale[2] + p.offset[2];
  out.luma = rgb_luma(rgb, f.matrix) / 255.0f;
  return out;
}

// binary16 bits of v, round to nearest even (the hardware conversion and gp::float_to_half
// agree on every non-NaN value).
GP_HD std::uint16_t half_bits(float v) {
#ifdef __CUDA_ARCH__
  return __half_as_ushort(__float2half_rn(v));
#else
  return gp::float_to_half(v);
#endif
}

// Writes the pixel into item `batch_index` of the NHWC tensor.
GP_HD void store_model_pixel(const ModelPixel& px, const PreprocessParams& p, void* tensor, int batch_index, int x,
                             int y) {
  const std::size_t at = ((std::size_t(batch_index) * std::size_t(p.height) + std::size_t(y)) * std::size_t(p.width) +
                          std::size_t(x)) * 3;
  if (p.type == TensorType::f32) {
    float* out = static_cast<float*>(tensor) + at;
    for (int c = 0; c < 3; ++c) out[c] = px.value[c];
  } else {
    std::uint16_t* out = static_cast<std::uint16_t*>(tensor) + at;
    for (int c = 0; c < 3; ++c) out[c] = half_bits(px.value[c]);
  }
}

}  // namespace gp::frames::math
