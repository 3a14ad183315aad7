#pragma once
// Argument checks shared by the segment-body *_gpu launchers and *_cpu references: a wrong frame,
// view or scratch size becomes a gp::Error naming the function, not a bad result or a fault.
#include <string>

#include "core/error.hpp"
#include "cuda/common/checks.hpp"
#include "core/views.hpp"
#include "cuda/frames/checks.hpp"
#include "cuda/segment_body/composite.hpp"
#include "cuda/segment_body/guided_filter.hpp"
#include "cuda/segment_body/islands.hpp"
#include "cuda/segment_body/mask.hpp"
#include "cuda/segment_body/person_masks.hpp"
#include "cuda/segment_body/postprocess.hpp"

namespace gp::segbody::checks {

using kernel_checks::require;
using frames::checks::require_frame;
using frames::checks::require_planes;
using frames::checks::require_preprocess;
using frames::checks::require_scratch;
using frames::checks::require_size;
using frames::checks::require_view;
using frames::checks::size_text;

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

inline void require_person_masks(const PersonMasks& p, const ImageView& canvas, const char* function) {
  require_view(canvas, PixelType::f32, 1, function, "canvas");
  require(p.count >= 0 && p.count <= 4096, function, "person count must be in 0..4096, got " + std::to_string(p.count));
  require(p.size > 0 && p.size <= 4096, function, "mask size must be in 1..4096, got " + std::to_string(p.size));
  require(p.frame_width > 0 && p.frame_height > 0, function,
          "empty frame " + size_text(p.frame_width, p.frame_height));
  require(p.count == 0 || (p.logits && p.rois), function, "no masks or no ROIs");
}

}  // namespace gp::segbody::checks
