#pragma once
// What the segment-body kernels read and share: decoded frames (YUV 4:2:0 planes or packed 8-bit
// RGB), rectangles, and how a float mask becomes 8-bit. The same structs describe host memory (for
// the *_cpu references) and device memory (for the *_gpu launchers). nvcc-safe.
#include <cstddef>
#include <cstdint>

#include "core/views.hpp"  // GP_VIEW_HD

namespace gp::frames {

enum class FrameFormat : std::uint8_t { yuv420, rgb, rgba, bgr, bgra };
// Y'CbCr matrix of a YUV frame (and of the luma the kernels compute from RGB).
enum class YuvMatrix : std::uint8_t { bt601, bt709 };

// A decoded frame. yuv420: planes Y, U (Cb), V (Cr); chroma planes (width+1)/2 x (height+1)/2,
// each chroma sample centred on its 2x2 luma block (MPEG-1/JPEG siting; H.264's left siting is a
// quarter luma pixel away, which a person mask does not see). Limited range (Y 16..235, C 16..240)
// unless full_range. Packed formats: planes[0] only, 3 or 4 bytes per pixel, alpha ignored.
struct FrameSource {
  FrameFormat format = FrameFormat::yuv420;
  int width = 0, height = 0;
  const std::uint8_t* planes[3] = {nullptr, nullptr, nullptr};
  std::size_t pitches[3] = {0, 0, 0};  // bytes between rows
  YuvMatrix matrix = YuvMatrix::bt601;
  bool full_range = false;
};

inline FrameSource yuv420_frame(const std::uint8_t* y, std::size_t y_pitch, const std::uint8_t* u,
                                std::size_t u_pitch, const std::uint8_t* v, std::size_t v_pitch, int width,
                                int height, YuvMatrix matrix = YuvMatrix::bt601, bool full_range = false) {
  FrameSource f;
  f.format = FrameFormat::yuv420;
  f.width = width;
  f.height = height;
  f.planes[0] = y;
  f.planes[1] = u;
  f.planes[2] = v;
  f.pitches[0] = y_pitch;
  f.pitches[1] = u_pitch;
  f.pitches[2] = v_pitch;
  f.matrix = matrix;
  f.full_range = full_range;
  return f;
}

inline FrameSource packed_frame(FrameFormat format, const std::uint8_t* data, std::size_t pitch, int width,
                                int height) {
  FrameSource f;
  f.format = format;
  f.width = width;
  f.height = height;
  f.planes[0] = data;
  f.pitches[0] = pitch;
  return f;
}

GP_VIEW_HD inline int chroma_size(int n) { return (n + 1) / 2; }

// Pixels [x, x + width) x [y, y + height).
struct Rect {
  int x = 0, y = 0, width = 0, height = 0;
};
inline bool operator==(const Rect& a, const Rect& b) {
  return a.x == b.x && a.y == b.y && a.width == b.width && a.height == b.height;
}

// Bytes a pixel of a packed format (rgb, bgr: 3; rgba, bgra: 4).
GP_VIEW_HD inline int packed_stride(FrameFormat f) { return f == FrameFormat::rgba || f == FrameFormat::bgra ? 4 : 3; }

// The part r of frame f, sharing its planes (no copy). r must lie inside the frame, and for
// yuv420 start at even x and y (a chroma sample covers a 2x2 block); the caller checks.
inline FrameSource crop_frame(const FrameSource& f, const Rect& r) {
  FrameSource c = f;
  c.width = r.width;
  c.height = r.height;
  if (f.format == FrameFormat::yuv420) {
    c.planes[0] = f.planes[0] + std::size_t(r.y) * f.pitches[0] + std::size_t(r.x);
    for (int p = 1; p < 3; ++p) c.planes[p] = f.planes[p] + std::size_t(r.y / 2) * f.pitches[p] + std::size_t(r.x / 2);
  } else {
    c.planes[0] = f.planes[0] + std::size_t(r.y) * f.pitches[0] + std::size_t(r.x) * std::size_t(packed_stride(f.format));
  }
  return c;
}

// Writable Y, U, V planes of a YUV 4:2:0 frame (the encoder's input).
struct Yuv420Planes {
  std::uint8_t* planes[3] = {nullptr, nullptr, nullptr};
  std::size_t pitches[3] = {0, 0, 0};
  int width = 0, height = 0;
};

}  // namespace gp::frames
