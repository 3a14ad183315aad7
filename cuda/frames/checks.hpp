#pragma once
// Argument checks of the frame kernels (preprocess, resize, luma) and of the kernels of
// segment-body and track-faces that take frames: a wrong frame, view or scratch size becomes a
// gp::Error naming the function, not a bad result or a fault.
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/views.hpp"
#include "cuda/common/checks.hpp"
#include "cuda/frames/frame.hpp"
#include "cuda/frames/preprocess.hpp"

namespace gp::frames::checks {

using kernel_checks::require;

inline std::string size_text(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

inline void require_frame(const FrameSource& f, const char* function) {
  require(f.width > 0 && f.height > 0, function, "frame: empty (" + size_text(f.width, f.height) + ")");
  if (f.format == FrameFormat::yuv420) {
    const std::size_t cw = std::size_t(chroma_size(f.width));
    require(f.planes[0] && f.planes[1] && f.planes[2], function, "frame: a YUV plane is missing");
    require(f.pitches[0] >= std::size_t(f.width) && f.pitches[1] >= cw && f.pitches[2] >= cw, function,
            "frame: a YUV plane's pitch is smaller than its row");
  } else {
    const int bytes = packed_stride(f.format);
    require(f.planes[0] != nullptr, function, "frame: no data");
    require(f.pitches[0] >= std::size_t(f.width) * bytes, function, "frame: pitch smaller than a row");
  }
}

// A non-empty view of `type` with `channels` (0: 3 or 4) channels whose rows fit their pitch.
inline void require_view(const ImageView& v, PixelType type, int channels, const char* function, const char* name) {
  const std::string n(name);
  require(v.width > 0 && v.height > 0 && v.data != nullptr, function, n + ": empty view");
  require(v.type == type, function, n + ": wrong pixel type");
  require(channels == 0 ? (v.channels == 3 || v.channels == 4) : v.channels == channels, function,
          n + ": " + std::to_string(v.channels) + " channels, expected " +
              (channels == 0 ? std::string("3 or 4") : std::to_string(channels)));
  require(v.pitch >= v.row_bytes(), function, n + ": pitch smaller than a row");
  require(v.pitch % pixel_type_bytes(type) == 0 && reinterpret_cast<std::uintptr_t>(v.data) % pixel_type_bytes(type) == 0,
          function, n + ": not aligned to its pixel type");
}

inline void require_size(const ImageView& v, int width, int height, const char* function, const char* name) {
  require(v.width == width && v.height == height, function,
          std::string(name) + ": " + size_text(v.width, v.height) + ", expected " + size_text(width, height));
}

inline void require_scratch(const void* scratch, std::size_t bytes, std::size_t needed, const char* function) {
  require(scratch != nullptr && bytes >= needed, function,
          "scratch of " + std::to_string(bytes) + " bytes, needs " + std::to_string(needed));
  require(reinterpret_cast<std::uintptr_t>(scratch) % 16 == 0, function, "scratch must be 16-byte aligned");
}

inline void require_preprocess(const FrameSource& frame, const PreprocessParams& p, const void* tensor,
                               int batch_index, const ImageView* luma, const char* function) {
  require_frame(frame, function);
  require(p.width > 0 && p.height > 0, function, "model input size must be positive");
  require(tensor != nullptr && batch_index >= 0, function, "no tensor or negative batch index");
  if (luma) {
    require_view(*luma, PixelType::f32, 1, function, "luma");
    require_size(*luma, p.width, p.height, function, "luma");
  }
}

inline void require_planes(const Yuv420Planes& out, int width, int height, const char* function) {
  require(out.width == width && out.height == height, function,
          "planes of " + size_text(out.width, out.height) + " for an image of " + size_text(width, height));
  const std::size_t cw = std::size_t(chroma_size(width));
  require(out.planes[0] && out.planes[1] && out.planes[2], function, "a YUV plane is missing");
  require(out.pitches[0] >= std::size_t(width) && out.pitches[1] >= cw && out.pitches[2] >= cw, function,
          "a YUV plane's pitch is smaller than its row");
}

}  // namespace gp::frames::checks
