// CPU references of the preprocess kernels (also the CPU path): the same per-pixel functions over
// rows spread across threads, and the letterbox geometry both sides use.
#include <algorithm>
#include <cmath>

#include "cuda/frames/checks.hpp"
#include "cuda/frames/preprocess.hpp"
#include "cuda/frames/preprocess_math.hpp"
#include "core/parallel_for.hpp"

namespace gp::frames {

Rect content_rect(int frame_width, int frame_height, const PreprocessParams& p) {
  if (p.mode == ResizeMode::stretch || frame_width <= 0 || frame_height <= 0) return Rect{0, 0, p.width, p.height};
  const double scale = std::min(double(p.width) / frame_width, double(p.height) / frame_height);
  Rect r;
  r.width = std::clamp(int(std::lround(frame_width * scale)), 1, p.width);
  r.height = std::clamp(int(std::lround(frame_height * scale)), 1, p.height);
  r.x = (p.width - r.width) / 2;
  r.y = (p.height - r.height) / 2;
  return r;
}

Rect preprocess_cpu(const FrameSource& frame, const PreprocessParams& p, void* tensor, int batch_index,
                    const ImageView* luma) {
  checks::require_preprocess(frame, p, tensor, batch_index, luma, "preprocess_cpu");
  const Rect content = content_rect(frame.width, frame.height, p);
  for_each_row(p.width, p.height, [&](int y) {
    for (int x = 0; x < p.width; ++x) {
      const math::ModelPixel px = math::preprocess_pixel(frame, p, content, x, y);
      math::store_model_pixel(px, p, tensor, batch_index, x, y);
      if (luma) luma->row<float>(y)[x] = px.luma;
    }
  });
  return content;
}

void resize_frame_cpu(const FrameSource& frame, const ImageView& out) {
  const char* fn = "resize_frame_cpu";
  checks::require_frame(frame, fn);
  checks::require_view(out, PixelType::u8, 0, fn, "out");
  for_each_row(out.width, out.height, [&](int y) {
    const math::AxisFootprint fy = math::resize_footprint(y, out.height, frame.height, true);
    for (int x = 0; x < out.width; ++x) {
      const math::Rgb c = math::sample_frame(frame, math::resize_footprint(x, out.width, frame.width, true), fy);
      std::uint8_t* o = out.row<std::uint8_t>(y) + std::size_t(x) * out.channels;
      o[0] = math::round_u8(c.r);
      o[1] = math::round_u8(c.g);
      o[2] = math::round_u8(c.b);
      if (out.channels == 4) o[3] = 255;
    }
  });
}

void frame_luma_cpu(const FrameSource& frame, const ImageView& out) {
  const char* fn = "frame_luma_cpu";
  checks::require_frame(frame, fn);
  checks::require_view(out, PixelType::u8, 1, fn, "out");
  checks::require_size(out, frame.width, frame.height, fn, "out");
  for_each_row(out.width, out.height, [&](int y) {
    std::uint8_t* o = out.row<std::uint8_t>(y);
    for (int x = 0; x < out.width; ++x)
      o[x] = frame.format == FrameFormat::yuv420
                 ? frame.planes[0][frame.pitches[0] * std::size_t(y) + std::size_t(x)]
                 : math::round_u8(math::rgb_luma(math::frame_pixel(frame, x, y), frame.matrix));
  });
}

}  // namespace gp::frames
