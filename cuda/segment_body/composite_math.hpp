#pragma once
// Per-pixel rules of compositing, the Gaussian blur and RGB -> YUV 4:2:0 (GPU and CPU alike).
#include <cuda_runtime_api.h>  // float4

#include <cmath>

#include "core/views.hpp"
#include "cuda/segment_body/composite.hpp"
#include "cuda/segment_body/frame_types.hpp"

namespace gp::segbody::math {

GP_HD void store_rgb(const ImageView& out, int x, int y, const Rgb& c, std::uint8_t alpha) {
  std::uint8_t* o = out.row<std::uint8_t>(y) + std::size_t(x) * out.channels;
  o[0] = round_u8(c.r);
  o[1] = round_u8(c.g);
  o[2] = round_u8(c.b);
  if (out.channels == 4) o[3] = alpha;
}

GP_HD Rgb image_pixel(const ImageView& image, int x, int y) {
  const std::uint8_t* p = image.row<const std::uint8_t>(y) + std::size_t(x) * image.channels;
  return Rgb{float(p[0]), float(p[1]), float(p[2])};
}

// The composited colour at (x, y), before rounding, and its alpha (255 over a background).
GP_HD Rgb composited(const FrameSource& frame, const ImageView& alpha, const Background& bg, int x, int y,
                     std::uint8_t& out_alpha) {
  const Rgb f = frame_pixel(frame, x, y);
  const std::uint8_t a = alpha.row<const std::uint8_t>(y)[x];
  if (bg.kind == Background::Kind::transparent) {
    out_alpha = a;
    return f;
  }
  Rgb b{float(bg.colour[0]), float(bg.colour[1]), float(bg.colour[2])};
  if (bg.kind == Background::Kind::image) {
    const ImageView& im = bg.image;
    if (im.width == frame.width && im.height == frame.height) {
      b = image_pixel(im, x, y);
    } else {
      FrameSource src;
      src.format = im.channels == 4 ? FrameFormat::rgba : FrameFormat::rgb;
      src.width = im.width;
      src.height = im.height;
      src.planes[0] = static_cast<const std::uint8_t*>(im.data);
      src.pitches[0] = im.pitch;
      b = sample_frame(src, resize_footprint(x, frame.width, im.width, true), resize_footprint(y, frame.height, im.height, true));
    }
  }
  const float fa = float(a), fb = 255.0f - fa;
  out_alpha = 255;
  return Rgb{(f.r * fa + b.r * fb) / 255.0f, (f.g * fa + b.g * fb) / 255.0f, (f.b * fa + b.b * fb) / 255.0f};
}

GP_HD void composite_pixel(const FrameSource& frame, const ImageView& alpha, const Background& bg,
                           const ImageView& out, int x, int y) {
  std::uint8_t a;
  const Rgb c = composited(frame, alpha, bg, x, y, a);
  store_rgb(out, x, y, c, a);
}

// The composited colour as an 8-bit RGB image would hold it (what rgb_to_yuv420 would read).
GP_HD Rgb composited_u8(const FrameSource& frame, const ImageView& alpha, const Background& bg, int x, int y) {
  std::uint8_t a;
  const Rgb c = composited(frame, alpha, bg, x, y, a);
  return Rgb{float(round_u8(c.r)), float(round_u8(c.g)), float(round_u8(c.b))};
}

// Normalised weights of taps 0..radius (symmetric), computed once on the host.
struct GaussianTaps {
  int radius;
  float weight[gaussian_max_radius + 1];
};

inline GaussianTaps gaussian_taps(float sigma) {
  GaussianTaps t{};
  t.radius = sigma > 0.0f ? int(std::ceil(3.0f * sigma)) : 0;
  if (t.radius > gaussian_max_radius) t.radius = gaussian_max_radius;
  double w[gaussian_max_radius + 1], sum = 0;
  for (int k = 0; k <= t.radius; ++k) {
    w[k] = sigma > 0.0f ? std::exp(-0.5 * double(k) * double(k) / (double(sigma) * double(sigma))) : 1.0;
    sum += k == 0 ? w[k] : 2 * w[k];
  }
  for (int k = 0; k <= t.radius; ++k) t.weight[k] = float(w[k] / sum);
  return t;
}

// Horizontal pass at one pixel: the weighted sum of pixel(k) = the frame's RGB k pixels to the
// right (taps from -r to r, clamped to the row by the caller's `pixel`).
template <class Pixel>
GP_HD float4 blur_row(const GaussianTaps& t, Pixel&& pixel) {
  float4 s{0.0f, 0.0f, 0.0f, 0.0f};
  for (int k = -t.radius; k <= t.radius; ++k) {
    const float w = t.weight[k < 0 ? -k : k];
    const Rgb c = pixel(k);
    s.x += w * c.r;
    s.y += w * c.g;
    s.z += w * c.b;
  }
  return s;
}

// Vertical pass at (x, y) over the horizontal pass's rows.
GP_HD Rgb blur_column(const float4* rows, int width, int height, const GaussianTaps& t, int x, int y) {
  Rgb s{0.0f, 0.0f, 0.0f};
  for (int k = -t.radius; k <= t.radius; ++k) {
    const float w = t.weight[k < 0 ? -k : k];
    const float4 v = rows[std::size_t(clampi(y + k, 0, height - 1)) * std::size_t(width) + std::size_t(x)];
    s.r += w * v.x;
    s.g += w * v.y;
    s.b += w * v.z;
  }
  return s;
}

// The 2x2 block (bx, by) of a width x height RGB image, pixel(x, y) -> Rgb, into the planes.
template <class Pixel>
GP_HD void yuv420_block(Pixel&& pixel, int width, int height, const Yuv420Planes& out, YuvMatrix m, bool full_range,
                        int bx, int by) {
  Rgb sum{0.0f, 0.0f, 0.0f};
  int n = 0;
  for (int dy = 0; dy < 2; ++dy) {
    const int y = 2 * by + dy;
    if (y >= height) break;
    for (int dx = 0; dx < 2; ++dx) {
      const int x = 2 * bx + dx;
      if (x >= width) break;
      const Rgb c = pixel(x, y);
      out.planes[0][out.pitches[0] * std::size_t(y) + std::size_t(x)] = round_u8(rgb_to_yuv(c, m, full_range).r);
      sum.r += c.r;
      sum.g += c.g;
      sum.b += c.b;
      ++n;
    }
  }
  const float inv = 1.0f / float(n);
  const Rgb yuv = rgb_to_yuv(Rgb{sum.r * inv, sum.g * inv, sum.b * inv}, m, full_range);
  out.planes[1][out.pitches[1] * std::size_t(by) + std::size_t(bx)] = round_u8(yuv.g);
  out.planes[2][out.pitches[2] * std::size_t(by) + std::size_t(bx)] = round_u8(yuv.b);
}

}  // namespace gp::segbody::math
