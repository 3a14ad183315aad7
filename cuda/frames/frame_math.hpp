#pragma once
// Per-pixel arithmetic of the segment-body kernels that the GPU and the CPU references share:
// Y'CbCr <-> RGB, the resampling footprint of an output pixel, filtered frame samples and the
// float -> 8-bit mask rule. Compiled with --fmad=false / -ffp-contract=off on both sides, so the
// same operations in the same order give the same floats.
#include <cmath>
#include <cstdint>

#include "cuda/frames/frame.hpp"
#include "cuda/common/host_device.hpp"  // GP_HD

namespace gp::frames::math {

struct Rgb {
  float r, g, b;  // 0..255
};

GP_HD float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }
GP_HD int mini(int a, int b) { return a < b ? a : b; }
GP_HD int maxi(int a, int b) { return a > b ? a : b; }
GP_HD int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
GP_HD std::uint8_t round_u8(float v) { return std::uint8_t(floorf(clampf(v, 0.0f, 255.0f) + 0.5f)); }

// Kr and Kb of the matrix (Kg = 1 - Kr - Kb).
GP_HD float matrix_kr(YuvMatrix m) { return m == YuvMatrix::bt601 ? 0.299f : 0.2126f; }
GP_HD float matrix_kb(YuvMatrix m) { return m == YuvMatrix::bt601 ? 0.114f : 0.0722f; }

// Y'CbCr (8-bit code values, possibly filtered, so fractional) -> R'G'B' in [0, 255].
GP_HD Rgb yuv_to_rgb(float y, float u, float v, YuvMatrix m, bool full_range) {
  const float kr = matrix_kr(m), kb = matrix_kb(m), kg = 1.0f - kr - kb;
  float luma = y, cb = u - 128.0f, cr = v - 128.0f;
  if (!full_range) {
    luma = (y - 16.0f) * (255.0f / 219.0f);
    cb = cb * (255.0f / 224.0f);
    cr = cr * (255.0f / 224.0f);
  }
  const float r = luma + (2.0f - 2.0f * kr) * cr;
  const float b = luma + (2.0f - 2.0f * kb) * cb;
  const float g = luma - (2.0f * kb * (1.0f - kb) / kg) * cb - (2.0f * kr * (1.0f - kr) / kg) * cr;
  return Rgb{clampf(r, 0.0f, 255.0f), clampf(g, 0.0f, 255.0f), clampf(b, 0.0f, 255.0f)};
}

// Luma Kr R + Kg G + Kb B (0..255) of R'G'B' in [0, 255].
GP_HD float rgb_luma(const Rgb& c, YuvMatrix m) {
  const float kr = matrix_kr(m), kb = matrix_kb(m), kg = 1.0f - kr - kb;
  return kr * c.r + kg * c.g + kb * c.b;
}

// R'G'B' -> Y'CbCr code values (unrounded).
GP_HD Rgb rgb_to_yuv(const Rgb& c, YuvMatrix m, bool full_range) {
  const float kr = matrix_kr(m), kb = matrix_kb(m);
  const float luma = rgb_luma(c, m);
  const float cb = (c.b - luma) / (2.0f - 2.0f * kb);
  const float cr = (c.r - luma) / (2.0f - 2.0f * kr);
  if (full_range) return Rgb{luma, cb + 128.0f, cr + 128.0f};
  return Rgb{16.0f + luma * (219.0f / 255.0f), 128.0f + cb * (224.0f / 255.0f), 128.0f + cr * (224.0f / 255.0f)};
}

// The source pixels along one axis that an output pixel covers. The output pixel spans [lo, hi)
// in source pixel-edge coordinates (source pixel i spans [i, i + 1)). box: each source pixel
// weighs its overlap with [lo, hi) (area averaging, for shrinking by more than 2x); else a tent of
// radius 1 around the centre (lo + hi)/2 - 0.5 in pixel-centre coordinates (bilinear). Taps past
// the plane's edge read the edge pixel; weights are normalised by their sum.
struct AxisFootprint {
  float lo, hi, centre;
  int first, last;
  bool box;
};

GP_HD AxisFootprint axis_footprint(float lo, float hi, bool box) {
  AxisFootprint f;
  f.lo = lo;
  f.hi = hi;
  f.centre = 0.5f * (lo + hi) - 0.5f;
  f.box = box;
  if (box) {
    f.first = int(floorf(lo));
    f.last = int(ceilf(hi)) - 1;
    if (f.last < f.first) f.last = f.first;
  } else {
    f.first = int(floorf(f.centre));
    f.last = f.first + 1;
  }
  return f;
}

// The same footprint on a plane subsampled by 2 (4:2:0 chroma, sited at the 2x2 block's centre).
GP_HD AxisFootprint half_footprint(const AxisFootprint& f) { return axis_footprint(0.5f * f.lo, 0.5f * f.hi, f.box); }

GP_HD float axis_weight(const AxisFootprint& f, int i) {
  if (f.box) return fmaxf(0.0f, fminf(float(i + 1), f.hi) - fmaxf(float(i), f.lo));
  return fmaxf(0.0f, 1.0f - fabsf(float(i) - f.centre));
}

// Filtered value of channel `channel` of an 8-bit plane with `stride` bytes per pixel.
GP_HD float filter_plane(const std::uint8_t* plane, std::size_t pitch, int stride, int channel, int width, int height,
                         const AxisFootprint& fx, const AxisFootprint& fy) {
  float sum = 0.0f, weight_sum = 0.0f;
  for (int j = fy.first; j <= fy.last; ++j) {
    const float wy = axis_weight(fy, j);
    if (wy == 0.0f) continue;
    const std::uint8_t* row = plane + pitch * std::size_t(clampi(j, 0, height - 1));
    float row_sum = 0.0f, row_weight = 0.0f;
    for (int i = fx.first; i <= fx.last; ++i) {
      const float wx = axis_weight(fx, i);
      if (wx == 0.0f) continue;
      row_sum += wx * float(row[std::size_t(clampi(i, 0, width - 1)) * stride + channel]);
      row_weight += wx;
    }
    sum += wy * row_sum;
    weight_sum += wy * row_weight;
  }
  return weight_sum > 0.0f ? sum / weight_sum : 0.0f;
}

GP_HD bool packed_bgr(FrameFormat f) { return f == FrameFormat::bgr || f == FrameFormat::bgra; }

// The frame filtered over the footprints (luma-plane coordinates), as R'G'B' in [0, 255]. YUV is
// filtered plane by plane and converted once: conversion is affine up to the final clamp.
GP_HD Rgb sample_frame(const FrameSource& f, const AxisFootprint& fx, const AxisFootprint& fy) {
  if (f.format == FrameFormat::yuv420) {
    const AxisFootprint cx = half_footprint(fx), cy = half_footprint(fy);
    const int cw = (f.width + 1) / 2, ch = (f.height + 1) / 2;
    const float y = filter_plane(f.planes[0], f.pitches[0], 1, 0, f.width, f.height, fx, fy);
    const float u = filter_plane(f.planes[1], f.pitches[1], 1, 0, cw, ch, cx, cy);
    const float v = filter_plane(f.planes[2], f.pitches[2], 1, 0, cw, ch, cx, cy);
    return yuv_to_rgb(y, u, v, f.matrix, f.full_range);
  }
  const int stride = packed_stride(f.format);
  const int r = packed_bgr(f.format) ? 2 : 0;
  return Rgb{filter_plane(f.planes[0], f.pitches[0], stride, r, f.width, f.height, fx, fy),
             filter_plane(f.planes[0], f.pitches[0], stride, 1, f.width, f.height, fx, fy),
             filter_plane(f.planes[0], f.pitches[0], stride, 2 - r, f.width, f.height, fx, fy)};
}

// Frame pixel (x, y) as R'G'B': exact for packed frames; YUV chroma interpolated bilinearly.
GP_HD Rgb frame_pixel(const FrameSource& f, int x, int y) {
  if (f.format != FrameFormat::yuv420) {
    const std::uint8_t* p = f.planes[0] + f.pitches[0] * std::size_t(y) + std::size_t(x) * packed_stride(f.format);
    return packed_bgr(f.format) ? Rgb{float(p[2]), float(p[1]), float(p[0])} : Rgb{float(p[0]), float(p[1]), float(p[2])};
  }
  return sample_frame(f, axis_footprint(float(x), float(x + 1), false), axis_footprint(float(y), float(y + 1), false));
}

// Footprint of output pixel o of n_out spread over n_src source pixels starting at source pixel 0:
// bilinear at the pixel's centre, or with `area` an average over its area when shrinking by more
// than 2x (no aliasing; what the images and blur copies use).
GP_HD AxisFootprint resize_footprint(int o, int n_out, int n_src, bool area) {
  const float scale = float(n_src) / float(n_out);
  return axis_footprint(float(o) * scale, float(o + 1) * scale, area && scale > 2.0f);
}

}  // namespace gp::frames::math
