#pragma once
// Argument checks shared by the *_gpu launchers and the *_cpu references: a wrong view (type,
// channel count, size, alignment) becomes a gp::Error naming the function, not a bad result or a
// misaligned-address fault in a kernel.
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "cuda/common/checks.hpp"
#include "core/views.hpp"
#include "cuda/tone/tone_kernels.hpp"

namespace gp::tone::checks {

using kernel_checks::require;

inline std::string size_text(const ImageView& v) { return std::to_string(v.width) + "x" + std::to_string(v.height); }

inline bool aligned(const void* p, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

// Common to every view: non-negative size, rows that fit their pitch, data present when not empty.
inline void require_view(const ImageView& v, const char* function, const char* name) {
  require(v.width >= 0 && v.height >= 0 && v.channels >= 1, function, std::string(name) + ": bad size");
  require(v.pitch >= v.row_bytes(), function, std::string(name) + ": pitch smaller than a row");
  require(v.data != nullptr || v.width == 0 || v.height == 0, function, std::string(name) + ": no data");
}

// RGBA float images are read and written as 16-byte float4.
inline void require_rgba_f32(const ImageView& v, const char* function, const char* name) {
  require_view(v, function, name);
  require(v.type == PixelType::f32 && v.channels == 4, function, std::string(name) + ": must be RGBA f32");
  require(aligned(v.data, 16) && v.pitch % 16 == 0, function, std::string(name) + ": must be 16-byte aligned");
}

inline void require_same_size(const ImageView& a, const ImageView& b, const char* function) {
  require(a.width == b.width && a.height == b.height, function,
          "size mismatch: " + size_text(a) + " vs " + size_text(b));
}

inline void check_convert(const ImageView& src, const ChannelMap& map, const ImageView& dst, const char* function) {
  require_view(src, function, "src");
  require(src.type == PixelType::f16 || src.type == PixelType::f32, function, "src: must be f16 or f32");
  require_rgba_f32(dst, function, "dst");
  require_same_size(src, dst, function);
  for (int c = 0; c < 4; ++c) {
    const int i = map.index[c];
    require(i < src.channels && (i >= 0 || (c == 3 && i == -1)), function,
            "channel map entry " + std::to_string(c) + " = " + std::to_string(i) + " is not a source channel");
  }
}

inline void check_encode(const ImageView& src, const ImageView& dst, const EncodeParams& p, const char* function) {
  require_rgba_f32(src, function, "src");
  require_view(dst, function, "dst");
  require(dst.type == PixelType::u8 || dst.type == PixelType::u16, function, "dst: must be u8 or u16");
  require(dst.channels == 3 || dst.channels == 4, function, "dst: must have 3 or 4 channels");
  require(p.transfer != Transfer::gamma || p.gamma > 0.0f, function, "gamma must be positive");
  require_same_size(src, dst, function);
}

inline void check_resample(const ImageView& src, const ImageView& dst, const char* function) {
  require_rgba_f32(src, function, "src");
  require_rgba_f32(dst, function, "dst");
  require((src.width > 0 && src.height > 0) || dst.width == 0 || dst.height == 0, function,
          "empty source for a non-empty output");
}

}  // namespace gp::tone::checks
