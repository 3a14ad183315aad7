#pragma once
// Resampling filters and the filtering of one output sample, shared by the two-pass kernel and the
// CPU reference. Geometry: source pixel i covers [i, i + 1) and output sample o is centred at
// (o + 0.5) * scale in source units, scale = src_n / dst_n. When shrinking, the filter is stretched
// by the scale (antialiasing); when enlarging it keeps its natural width. Taps past an edge read
// the edge pixel, and weights are normalised, so a constant image stays constant.
#include <cmath>

#include "cuda/common/host_device.hpp"
#include "cuda/tone/tone_kernels.hpp"

namespace gp::tone::math {

// Filter radius in output samples (before stretching).
GP_HD float filter_radius(Filter f) { return f == Filter::box ? 0.5f : f == Filter::triangle ? 1.0f : 3.0f; }

struct Footprint {
  float centre;     // source units
  float width;      // stretch: max(1, scale)
  float inv_width;
  int first, last;  // source pixels that may carry weight (inclusive, before edge clamping)
};

GP_HD Footprint footprint(int o, int src_n, int dst_n, Filter f) {
  const float scale = float(src_n) / float(dst_n);
  Footprint fp;
  fp.centre = (float(o) + 0.5f) * scale;
  fp.width = fmaxf(scale, 1.0f);
  fp.inv_width = 1.0f / fp.width;
  const float radius = filter_radius(f) * fp.width;
  fp.first = int(floorf(fp.centre - radius - 0.5f));
  fp.last = int(ceilf(fp.centre + radius - 0.5f));
  return fp;
}

// sinc(t) sinc(t/3) = sin(pi t) sin(pi t/3) / (pi^2 t^2 / 3). With x = pi t / 3 and s = sin x,
// sin(pi t) = sin 3x = 3s - 4s^3, so one sine per tap: (3 - 4 s^2) s^2 / (3 x^2).
GP_HD float lanczos3(float t) {
  if (!(fabsf(t) < 3.0f)) return 0.0f;
  if (fabsf(t) < 1e-4f) return 1.0f;
  const float x = 1.04719755f * t;
  const float s = sinf(x), s2 = s * s;
  return (3.0f - 4.0f * s2) * s2 / (3.0f * x * x);
}

// Weight of source pixel i for the footprint.
//   box:      the area of [i, i + 1) under [centre - width/2, centre + width/2]: a pixel-area
//             average (exactly the 2x2 mean at 2x; enlarging blends the nearest two like bilinear).
//   triangle: tent of radius 1 (bilinear when enlarging).
//   lanczos3: sinc(t) sinc(t/3), |t| < 3.
GP_HD float tap_weight(Filter f, const Footprint& fp, int i) {
  if (f == Filter::box) {
    const float half = 0.5f * fp.width;
    return fmaxf(0.0f, fminf(float(i + 1), fp.centre + half) - fmaxf(float(i), fp.centre - half));
  }
  const float t = (float(i) + 0.5f - fp.centre) * fp.inv_width;
  return f == Filter::triangle ? fmaxf(0.0f, 1.0f - fabsf(t)) : lanczos3(t);
}

// Output sample (x, y) of one separable pass: filtered along x when Horizontal (the output has the
// source's height), else along y (the output has the source's width). dst_n is the output's
// length along the filtered axis.
template <bool Horizontal>
GP_HD float4 resample_sample(const ImageView& src, int x, int y, int dst_n, Filter f) {
  const int src_n = Horizontal ? src.width : src.height;
  const Footprint fp = footprint(Horizontal ? x : y, src_n, dst_n, f);
  float4 acc{0.0f, 0.0f, 0.0f, 0.0f};
  float weight_sum = 0.0f;
  for (int i = fp.first; i <= fp.last; ++i) {
    const float w = tap_weight(f, fp, i);
    if (w == 0.0f) continue;
    const int k = i < 0 ? 0 : i >= src_n ? src_n - 1 : i;
    const float4 v = Horizontal ? src.row<const float4>(y)[k] : src.row<const float4>(k)[x];
    acc = float4{acc.x + w * v.x, acc.y + w * v.y, acc.z + w * v.z, acc.w + w * v.w};
    weight_sum += w;
  }
  const float inv = weight_sum != 0.0f ? 1.0f / weight_sum : 0.0f;
  return float4{acc.x * inv, acc.y * inv, acc.z * inv, acc.w * inv};
}

}  // namespace gp::tone::math
