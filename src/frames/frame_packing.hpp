#pragma once
// A decoded frame (any pitches) packed into one contiguous buffer and described again over it:
// how the GPU paths stage frames in pinned memory for a single upload (segment-body, track-faces).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cuda/frames/frame.hpp"

namespace gp::frames {

inline std::size_t frame_bytes(const FrameSource& f) {
  const std::size_t w = std::size_t(f.width), h = std::size_t(f.height);
  if (f.format == FrameFormat::yuv420) return w * h + 2 * std::size_t(chroma_size(f.width)) * chroma_size(f.height);
  const int c = packed_stride(f.format);
  return w * h * c;
}

inline std::size_t yuv420_bytes(int w, int h) {
  return std::size_t(w) * h + 2 * std::size_t(chroma_size(w)) * chroma_size(h);
}

// Copies the frame's planes packed into dst (the layout frame_at() describes).
inline void pack_frame(const FrameSource& f, std::uint8_t* dst) {
  const bool yuv = f.format == FrameFormat::yuv420;
  const int planes = yuv ? 3 : 1;
  for (int p = 0; p < planes; ++p) {
    const int w = p == 0 ? f.width : chroma_size(f.width), h = p == 0 ? f.height : chroma_size(f.height);
    const std::size_t row = yuv ? std::size_t(w) : frame_bytes(f) / std::size_t(f.height);
    for (int y = 0; y < h; ++y) std::memcpy(dst + row * y, f.planes[p] + f.pitches[p] * y, row);
    dst += row * h;
  }
}

// The same frame over packed memory at `data`.
inline FrameSource frame_at(const FrameSource& f, std::uint8_t* data) {
  FrameSource out = f;
  if (f.format != FrameFormat::yuv420) {
    out.planes[0] = data;
    out.pitches[0] = frame_bytes(f) / std::size_t(f.height);
    return out;
  }
  const std::size_t cw = chroma_size(f.width), ch = chroma_size(f.height);
  out.planes[0] = data;
  out.pitches[0] = std::size_t(f.width);
  out.planes[1] = data + std::size_t(f.width) * f.height;
  out.pitches[1] = cw;
  out.planes[2] = out.planes[1] + cw * ch;
  out.pitches[2] = cw;
  return out;
}

}  // namespace gp::frames
