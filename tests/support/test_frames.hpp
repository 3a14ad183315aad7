#pragma once
// Host frames and images for the segment-body tests: YUV 4:2:0 and packed frames (optionally with
// padded rows), float/u8 images, and realistic content (smooth colour gradients, a disc, noise).
#include <cuda_runtime_api.h>  // float4

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/views.hpp"
#include "cuda/frames/frame.hpp"

namespace gp::test {

struct HostYuvFrame {
  int width, height;
  std::size_t pitch[3];
  std::vector<std::uint8_t> planes[3];
  frames::YuvMatrix matrix = frames::YuvMatrix::bt601;
  bool full_range = false;

  HostYuvFrame(int w, int h, std::size_t row_padding = 0) : width(w), height(h) {
    const int cw = frames::chroma_size(w), ch = frames::chroma_size(h);
    pitch[0] = std::size_t(w) + row_padding;
    pitch[1] = pitch[2] = std::size_t(cw) + row_padding;
    planes[0].assign(pitch[0] * h, 0);
    planes[1].assign(pitch[1] * ch, 128);
    planes[2].assign(pitch[2] * ch, 128);
  }
  std::uint8_t& y(int x, int yy) { return planes[0][pitch[0] * yy + x]; }
  std::uint8_t& u(int x, int yy) { return planes[1][pitch[1] * yy + x]; }
  std::uint8_t& v(int x, int yy) { return planes[2][pitch[2] * yy + x]; }
  void fill(std::uint8_t yv, std::uint8_t uv, std::uint8_t vv) {
    for (int j = 0; j < height; ++j)
      for (int i = 0; i < width; ++i) y(i, j) = yv;
    for (int j = 0; j < frames::chroma_size(height); ++j)
      for (int i = 0; i < frames::chroma_size(width); ++i) {
        u(i, j) = uv;
        v(i, j) = vv;
      }
  }
  frames::FrameSource frame() const {
    return frames::yuv420_frame(planes[0].data(), pitch[0], planes[1].data(), pitch[1], planes[2].data(), pitch[2],
                                 width, height, matrix, full_range);
  }
};

struct HostPackedFrame {
  frames::FrameFormat format;
  int width, height, channels;
  std::size_t pitch;
  std::vector<std::uint8_t> data;

  HostPackedFrame(frames::FrameFormat f, int w, int h, std::size_t row_padding = 0)
      : format(f), width(w), height(h),
        channels(f == frames::FrameFormat::rgba || f == frames::FrameFormat::bgra ? 4 : 3),
        pitch(std::size_t(w) * channels + row_padding), data(pitch * h, 0) {}
  std::uint8_t* px(int x, int y) { return &data[pitch * y + std::size_t(x) * channels]; }
  // Sets pixel (x, y) to the colour r, g, b in this frame's channel order.
  void set(int x, int y, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
    std::uint8_t* p = px(x, y);
    const bool bgr = format == frames::FrameFormat::bgr || format == frames::FrameFormat::bgra;
    p[0] = bgr ? b : r;
    p[1] = g;
    p[2] = bgr ? r : b;
    if (channels == 4) p[3] = 7;  // ignored by every kernel
  }
  frames::FrameSource frame() const { return frames::packed_frame(format, data.data(), pitch, width, height); }
};

// A host image with its own storage (16-byte aligned rows when padded to a multiple of 16).
template <class T>
struct HostImage {
  std::vector<float4> storage;  // aligned storage
  ImageView view;
  HostImage(int w, int h, int channels, PixelType type, std::size_t row_padding = 0) {
    view = packed_view(nullptr, w, h, channels, type);
    view.pitch = view.row_bytes() + row_padding;
    storage.assign(view.pitch * std::size_t(h) / sizeof(float4) + 1, float4{0, 0, 0, 0});
    view.data = storage.data();
  }
  T& at(int x, int y, int c = 0) const { return view.row<T>(y)[std::size_t(x) * view.channels + c]; }
};

// A clamped 0..255 value.
inline std::uint8_t byte_of(double v) { return std::uint8_t(v < 0 ? 0 : v > 255 ? 255 : v + 0.5); }

// Frame-like content: colour gradients, a bright disc (a "person") and noise of +-noise levels.
inline void fill_realistic(HostPackedFrame& f, unsigned seed, int noise = 12) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> n(-noise, noise);
  for (int y = 0; y < f.height; ++y)
    for (int x = 0; x < f.width; ++x) {
      const double dx = x - 0.45 * f.width, dy = y - 0.5 * f.height;
      const bool disc = dx * dx + dy * dy < 0.09 * f.height * f.height;
      const double r = disc ? 220 : 40 + 150.0 * x / f.width, g = disc ? 180 : 60 + 120.0 * y / f.height,
                   b = disc ? 150 : 200 - 100.0 * x / f.width;
      f.set(x, y, byte_of(r + n(rng)), byte_of(g + n(rng)), byte_of(b + n(rng)));
    }
}

inline void fill_realistic(HostYuvFrame& f, unsigned seed, int noise = 12) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> n(-noise, noise);
  for (int y = 0; y < f.height; ++y)
    for (int x = 0; x < f.width; ++x) {
      const double dx = x - 0.45 * f.width, dy = y - 0.5 * f.height;
      const bool disc = dx * dx + dy * dy < 0.09 * f.height * f.height;
      f.y(x, y) = byte_of((disc ? 190 : 30 + 180.0 * x / f.width) + n(rng));
    }
  for (int y = 0; y < frames::chroma_size(f.height); ++y)
    for (int x = 0; x < frames::chroma_size(f.width); ++x) {
      f.u(x, y) = byte_of(128 + 60.0 * std::sin(0.01 * x) + n(rng));
      f.v(x, y) = byte_of(128 - 50.0 * std::cos(0.013 * y) + n(rng));
    }
}

}  // namespace gp::test
