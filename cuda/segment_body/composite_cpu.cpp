// CPU references of compositing, the Gaussian blur and RGB -> YUV 4:2:0 (also the CPU path).
#include "cuda/segment_body/checks.hpp"
#include "cuda/segment_body/composite.hpp"
#include "cuda/segment_body/composite_math.hpp"
#include "core/parallel_for.hpp"

namespace gp::segbody {

std::size_t gaussian_blur_scratch_bytes(int width, int height) {
  return std::size_t(width) * std::size_t(height) * sizeof(float4);
}

void composite_cpu(const FrameSource& frame, const ImageView& alpha, const Background& background,
                   const ImageView& out) {
  checks::require_composite(frame, alpha, background, out, "composite_cpu");
  for_each_row(out.width, out.height, [&](int y) {
    for (int x = 0; x < out.width; ++x) math::composite_pixel(frame, alpha, background, out, x, y);
  });
}

void gaussian_blur_cpu(const FrameSource& frame, float sigma, const ImageView& out, void* scratch,
                       std::size_t scratch_bytes) {
  checks::require_blur(frame, sigma, out, scratch, scratch_bytes, "gaussian_blur_cpu");
  const math::GaussianTaps taps = math::gaussian_taps(sigma);
  auto* rows = static_cast<float4*>(scratch);
  for_each_row(frame.width, frame.height, [&](int y) {
    for (int x = 0; x < frame.width; ++x)
      rows[std::size_t(y) * frame.width + x] = math::blur_row(taps, [&](int k) {
        return math::frame_pixel(frame, math::clampi(x + k, 0, frame.width - 1), y);
      });
  });
  for_each_row(out.width, out.height, [&](int y) {
    for (int x = 0; x < out.width; ++x)
      math::store_rgb(out, x, y, math::blur_column(rows, out.width, out.height, taps, x, y), 255);
  });
}

void rgb_to_yuv420_cpu(const ImageView& rgb, const Yuv420Planes& out, YuvMatrix matrix, bool full_range) {
  checks::require_yuv420(rgb, out, "rgb_to_yuv420_cpu");
  const int bw = chroma_size(rgb.width), bh = chroma_size(rgb.height);
  for_each_row(bw, bh, [&](int by) {
    for (int bx = 0; bx < bw; ++bx)
      math::yuv420_block([&](int x, int y) { return math::image_pixel(rgb, x, y); }, rgb.width, rgb.height, out,
                         matrix, full_range, bx, by);
  });
}

void composite_yuv420_cpu(const FrameSource& frame, const ImageView& alpha, const Background& background,
                          const Yuv420Planes& out, YuvMatrix matrix, bool full_range) {
  checks::require_composite_yuv420(frame, alpha, background, out, "composite_yuv420_cpu");
  const int bw = chroma_size(frame.width), bh = chroma_size(frame.height);
  for_each_row(bw, bh, [&](int by) {
    for (int bx = 0; bx < bw; ++bx)
      math::yuv420_block([&](int x, int y) { return math::composited_u8(frame, alpha, background, x, y); },
                         frame.width, frame.height, out, matrix, full_range, bx, by);
  });
}

}  // namespace gp::segbody
