#pragma once
// Argument checks shared by the segment-body *_gpu launchers and *_cpu references: a wrong frame,
// view or scratch size becomes a gp::Error naming the function, not a bad result or a fault.
#include <string>

#include "core/error.hpp"
#include "cuda/common/checks.hpp"
#include "core/views.hpp"
#include "cuda/segment_body/composite.hpp"
#include "cuda/segment_body/frame.hpp"
#include "cuda/segment_body/guided_filter.hpp"
#include "cuda/segment_body/islands.hpp"
#include "cuda/segment_body/mask.hpp"
#include "cuda/segment_body/postprocess.hpp"
#include "cuda/segment_body/preprocess.hpp"

namespace gp::segbody::checks {

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
    const int bytes = f.format == FrameFormat::rgba || f.format == FrameFormat::bgra ? 4 : 3;
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

inline void require_temporal(const ImageView& mask, const ImageView& luma, const ImageView& state,
                             const ImageView& prev_luma, const TemporalParams& p, const char* function) {
  require_view(mask, PixelType::f32, 1, function, "mask");
  const ImageView* others[] = {&luma, &state, &prev_luma};
  const char* names[] = {"luma", "state", "prev_luma"};
  for (int i = 0; i < 3; ++i) {
    require_view(*others[i], PixelType::f32, 1, function, names[i]);
    require_size(*others[i], mask.width, mask.height, function, names[i]);
  }
  require(p.alpha >= 0.0f && p.alpha <= 1.0f, function, "alpha must be in [0, 1]");
}

inline void require_upsample(const ImageView& mask, const Rect& content, const ImageView& out, const char* function) {
  require_view(mask, PixelType::f32, 1, function, "mask");
  require(content.width > 0 && content.height > 0 && content.x >= 0 && content.y >= 0 &&
              content.x + content.width <= mask.width && content.y + content.height <= mask.height,
          function, "content rectangle outside the mask");
  require(out.type == PixelType::f32 || out.type == PixelType::u8, function, "out: must be f32 or u8");
  require_view(out, out.type, 1, function, "out");
}

inline void require_guided(const ImageView& guide, const ImageView& mask, const GuidedParams& p, const ImageView& out,
                           const void* scratch, std::size_t scratch_bytes, const char* function) {
  require_view(guide, PixelType::u8, 1, function, "guide");
  require_view(mask, PixelType::f32, 1, function, "mask");
  require_size(mask, guide.width, guide.height, function, "mask");
  require(out.type == PixelType::f32 || out.type == PixelType::u8, function, "out: must be f32 or u8");
  require_view(out, out.type, 1, function, "out");
  require_size(out, guide.width, guide.height, function, "out");
  require(p.radius >= 0 && p.eps > 0.0f, function, "radius must be >= 0 and eps > 0");
  require(p.subsample >= 1 && p.subsample <= 16, function, "subsample must be in 1..16");
  require_scratch(scratch, scratch_bytes, guided_filter_scratch_bytes(guide.width, guide.height, p), function);
}

inline void require_islands(const ImageView& mask, const IslandParams& p, const void* scratch,
                            std::size_t scratch_bytes, const char* function) {
  require_view(mask, PixelType::u8, 1, function, "mask");
  require(mask.pitch == std::size_t(mask.width), function, "mask: must be packed (pitch == width)");
  require(std::size_t(mask.width) * std::size_t(mask.height) < 0xffffffffu, function, "mask: too many pixels");
  require(p.min_foreground_area >= 0 && p.min_hole_area >= 0, function, "areas must be >= 0");
  require_scratch(scratch, scratch_bytes, island_scratch_bytes(mask.width, mask.height), function);
}

inline void require_composite(const FrameSource& frame, const ImageView& alpha, const Background& bg,
                              const ImageView& out, const char* function) {
  require_frame(frame, function);
  require_view(alpha, PixelType::u8, 1, function, "alpha");
  require_size(alpha, frame.width, frame.height, function, "alpha");
  require_view(out, PixelType::u8, bg.kind == Background::Kind::transparent ? 4 : 0, function, "out");
  require_size(out, frame.width, frame.height, function, "out");
  if (bg.kind == Background::Kind::image) {
    require_view(bg.image, PixelType::u8, 0, function, "background image");
  }
}

inline void require_blur(const FrameSource& frame, float sigma, const ImageView& out, const void* scratch,
                         std::size_t scratch_bytes, const char* function) {
  require_frame(frame, function);
  require(sigma >= 0.0f, function, "sigma must be >= 0");
  require_view(out, PixelType::u8, 0, function, "out");
  require_size(out, frame.width, frame.height, function, "out");
  require_scratch(scratch, scratch_bytes, gaussian_blur_scratch_bytes(frame.width, frame.height), function);
}

inline void require_planes(const Yuv420Planes& out, int width, int height, const char* function) {
  require(out.width == width && out.height == height, function,
          "planes of " + size_text(out.width, out.height) + " for an image of " + size_text(width, height));
  const std::size_t cw = std::size_t(chroma_size(width));
  require(out.planes[0] && out.planes[1] && out.planes[2], function, "a YUV plane is missing");
  require(out.pitches[0] >= std::size_t(width) && out.pitches[1] >= cw && out.pitches[2] >= cw, function,
          "a YUV plane's pitch is smaller than its row");
}

inline void require_yuv420(const ImageView& rgb, const Yuv420Planes& out, const char* function) {
  require_view(rgb, PixelType::u8, 0, function, "rgb");
  require_planes(out, rgb.width, rgb.height, function);
}

inline void require_composite_yuv420(const FrameSource& frame, const ImageView& alpha, const Background& bg,
                                     const Yuv420Planes& out, const char* function) {
  require_frame(frame, function);
  require(bg.kind != Background::Kind::transparent, function, "YUV output needs a colour or image background");
  require_view(alpha, PixelType::u8, 1, function, "alpha");
  require_size(alpha, frame.width, frame.height, function, "alpha");
  if (bg.kind == Background::Kind::image) require_view(bg.image, PixelType::u8, 0, function, "background image");
  require_planes(out, frame.width, frame.height, function);
}

inline void require_postprocess(const ImageView& guide, const PostprocessParams& p, const ImageView& out,
                                const void* scratch, std::size_t scratch_bytes, const char* function) {
  require_view(out, PixelType::u8, 1, function, "out");
  if (p.refine) {
    require_view(guide, PixelType::u8, 1, function, "guide");
    require_size(guide, out.width, out.height, function, "guide");
  }
  if (p.islands.min_foreground_area > 0 || p.islands.min_hole_area > 0)
    require(out.pitch == std::size_t(out.width), function, "out: must be packed (pitch == width) for island removal");
  require_scratch(scratch, scratch_bytes, postprocess_scratch_bytes(out.width, out.height, p), function);
}

}  // namespace gp::segbody::checks
