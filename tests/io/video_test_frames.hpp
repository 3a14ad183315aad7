#pragma once
// Synthetic moving video content for the video reader/writer tests: a drifting colour gradient,
// fixed-pattern texture that scrolls, a disc moving on a circle and a bar sliding across, as
// RGB(A), YUV 4:2:0 or grey masks, a pure function of (frame, x, y); clips of it written with
// VideoWriter, and a hash of a decoded frame's pixels.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/views.hpp"
#include "io/video_frame.hpp"
#include "io/video_writer.hpp"

namespace gp::test {

inline std::uint32_t video_hash(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  return x ^ (x >> 16);
}

struct MovingScene {
  int width, height;

  // Disc centre of frame t (pixels).
  double disc_x(int t) const { return width * (0.5 + 0.3 * std::cos(0.2 * t)); }
  double disc_y(int t) const { return height * (0.5 + 0.3 * std::sin(0.2 * t)); }
  double disc_radius() const { return height * 0.15; }

  // Coverage of the disc at a pixel centre: 1 inside, 0 outside, a 1.5-pixel soft edge.
  double disc(int t, int x, int y) const {
    const double d = std::hypot(x + 0.5 - disc_x(t), y + 0.5 - disc_y(t)) - disc_radius();
    return std::clamp(0.5 - d / 1.5, 0.0, 1.0);
  }

  void rgb(int t, int x, int y, std::uint8_t out[3]) const {
    const int sx = x + 2 * t;  // texture scrolls 2 pixels per frame
    const double texture = double(video_hash(std::uint32_t(sx / 3) * 7919u + std::uint32_t(y / 3) * 104729u) & 63) - 32;
    const double gx = double(x) / width, gy = double(y) / height;
    double r = 255 * (0.5 + 0.4 * std::sin(6.28 * (gx + 0.01 * t))) + texture;
    double g = 255 * (0.3 + 0.5 * gy) + 0.5 * texture;
    double b = 255 * (0.6 - 0.4 * gx * gy) - texture;
    const bool bar = std::abs(x - (t * 5) % (width + 40) + 20) < 6;
    if (bar) r = g = b = 235;
    const double a = disc(t, x, y);
    r = r * (1 - a) + 250 * a, g = g * (1 - a) + 40 * a, b = b * (1 - a) + 30 * a;
    out[0] = std::uint8_t(std::clamp(std::lround(r), 0L, 255L));
    out[1] = std::uint8_t(std::clamp(std::lround(g), 0L, 255L));
    out[2] = std::uint8_t(std::clamp(std::lround(b), 0L, 255L));
  }
};

// An owned interleaved u8 image with a padded pitch (to catch pitch mistakes).
struct VideoImage {
  int width = 0, height = 0, channels = 0;
  std::size_t pitch = 0;
  std::vector<std::uint8_t> bytes;
  VideoImage(int w, int h, int c) : width(w), height(h), channels(c), pitch(std::size_t(w) * c + 24), bytes(pitch * h, 0) {}
  std::uint8_t* row(int y) { return bytes.data() + pitch * y; }
  const std::uint8_t* row(int y) const { return bytes.data() + pitch * y; }
  ImageView view() { return ImageView{bytes.data(), width, height, channels, PixelType::u8, pitch}; }
};

inline VideoImage scene_rgb(const MovingScene& s, int t, bool alpha = false) {
  VideoImage image(s.width, s.height, alpha ? 4 : 3);
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x) {
      std::uint8_t* px = image.row(y) + x * image.channels;
      s.rgb(t, x, y, px);
      // Alpha: the disc opaque, a ramp elsewhere (every level appears).
      if (alpha) px[3] = std::uint8_t(std::max(s.disc(t, x, y) * 255.0, double((x + y + t) % 256)));
    }
  return image;
}

// A soft person-like mask: the disc at 255 with a soft edge, 0 elsewhere, plus a few isolated
// levels so that lossless really means every value.
inline VideoImage scene_mask(const MovingScene& s, int t) {
  VideoImage image(s.width, s.height, 1);
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x) {
      std::uint8_t v = std::uint8_t(std::lround(255 * s.disc(t, x, y)));
      if (x < 16 && y < 16) v = std::uint8_t((x * 16 + y + t) & 255);
      image.row(y)[x] = v;
    }
  return image;
}

// YUV 4:2:0 planes: Y full size, U and V half size.
struct YuvImage {
  VideoImage y, u, v;
  YuvImage(int w, int h) : y(w, h, 1), u((w + 1) / 2, (h + 1) / 2, 1), v((w + 1) / 2, (h + 1) / 2, 1) {}
};

// BT.601 limited range, chroma from the top-left pixel of each 2x2 block (what matters is that
// the content is textured and moves, not how faithful the conversion is).
inline YuvImage scene_yuv(const MovingScene& s, int t) {
  YuvImage out(s.width, s.height);
  const VideoImage rgb = scene_rgb(s, t);
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x) {
      const std::uint8_t* p = rgb.row(y) + 3 * x;
      const double r = p[0], g = p[1], b = p[2];
      out.y.row(y)[x] = std::uint8_t(std::lround(16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255));
      if (x % 2 == 0 && y % 2 == 0) {
        out.u.row(y / 2)[x / 2] = std::uint8_t(std::lround(128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255));
        out.v.row(y / 2)[x / 2] = std::uint8_t(std::lround(128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255));
      }
    }
  return out;
}

// PSNR in dB between two u8 planes of the same size (given as pointer + pitch), 99 when equal.
inline double plane_psnr(const std::uint8_t* a, std::size_t a_pitch, const std::uint8_t* b, std::size_t b_pitch,
                         int row_bytes, int rows) {
  double sum = 0;
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < row_bytes; ++x) {
      const double d = double(a[a_pitch * y + x]) - double(b[b_pitch * y + x]);
      sum += d * d;
    }
  if (sum == 0) return 99;
  return 10 * std::log10(255.0 * 255.0 / (sum / (double(row_bytes) * rows)));
}

inline bool planes_equal(const std::uint8_t* a, std::size_t a_pitch, const std::uint8_t* b, std::size_t b_pitch,
                         int row_bytes, int rows) {
  for (int y = 0; y < rows; ++y)
    if (!std::equal(a + a_pitch * y, a + a_pitch * y + row_bytes, b + b_pitch * y)) return false;
  return true;
}

// A clip of the scene's first `frames` frames (YUV 4:2:0) at `path`, written with `options`.
inline std::string write_scene_clip(const std::string& path, const MovingScene& scene,
                                    const io::VideoWriterOptions& options, int frames) {
  io::VideoWriter writer(path, scene.width, scene.height, options);
  for (int t = 0; t < frames; ++t) {
    YuvImage yuv = scene_yuv(scene, t);
    writer.write_yuv420(yuv.y.row(0), int(yuv.y.pitch), yuv.u.row(0), int(yuv.u.pitch), yuv.v.row(0), int(yuv.v.pitch));
  }
  writer.finish();
  return path;
}

// FNV-1a over the visible bytes of every plane: equal frames, equal sums.
inline std::uint64_t frame_hash(const io::VideoFrame& f) {
  std::uint64_t h = 1469598103934665603ull;
  for (int p = 0; p < 3 && f.plane(p); ++p) {
    const ImageView plane = f.plane_view(p);
    const std::size_t row_bytes = plane.row_bytes();
    for (int y = 0; y < plane.height; ++y) {
      const std::uint8_t* row = plane.row<const std::uint8_t>(y);
      for (std::size_t x = 0; x < row_bytes; ++x) h = (h ^ row[x]) * 1099511628211ull;
    }
  }
  return h;
}

}  // namespace gp::test
