// Preprocess on the GPU: one thread per model-input pixel filters the frame over its footprint,
// normalises and stores; neighbouring threads read neighbouring source pixels (L1/L2 reuse), a
// warp writes 32 consecutive NHWC pixels.
#include "cuda/frames/preprocess.hpp"

#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/frames/checks.hpp"
#include "cuda/common/pixel_launch.cuh"
#include "cuda/frames/preprocess_math.hpp"

namespace gp::frames {
namespace {

__global__ void preprocess_kernel(FrameSource frame, PreprocessParams p, Rect content, void* tensor, int batch_index,
                                  ImageView luma, bool write_luma) {
  int x, y;
  if (!launch::pixel_of_thread(p.width, p.height, x, y)) return;
  const math::ModelPixel px = math::preprocess_pixel(frame, p, content, x, y);
  math::store_model_pixel(px, p, tensor, batch_index, x, y);
  if (write_luma) luma.row<float>(y)[x] = px.luma;
}

__global__ void resize_frame_kernel(FrameSource frame, ImageView out) {
  int x, y;
  if (!launch::pixel_of_thread(out.width, out.height, x, y)) return;
  const math::Rgb c = math::sample_frame(frame, math::resize_footprint(x, out.width, frame.width, true),
                                         math::resize_footprint(y, out.height, frame.height, true));
  std::uint8_t* o = out.row<std::uint8_t>(y) + std::size_t(x) * out.channels;
  o[0] = math::round_u8(c.r);
  o[1] = math::round_u8(c.g);
  o[2] = math::round_u8(c.b);
  if (out.channels == 4) o[3] = 255;
}

__global__ void frame_luma_kernel(FrameSource frame, ImageView out) {
  int x, y;
  if (!launch::pixel_of_thread(out.width, out.height, x, y)) return;
  std::uint8_t v;
  if (frame.format == FrameFormat::yuv420)
    v = frame.planes[0][frame.pitches[0] * std::size_t(y) + std::size_t(x)];
  else
    v = math::round_u8(math::rgb_luma(math::frame_pixel(frame, x, y), frame.matrix));
  out.row<std::uint8_t>(y)[x] = v;
}

}  // namespace

Rect preprocess_gpu(const FrameSource& frame, const PreprocessParams& p, void* tensor, int batch_index,
                    const ImageView* luma, cudaStream_t stream) {
  const char* fn = "preprocess_gpu";
  checks::require_preprocess(frame, p, tensor, batch_index, luma, fn);
  const Rect content = content_rect(frame.width, frame.height, p);
  preprocess_kernel<<<launch::pixel_grid(p.width, p.height), launch::pixel_block(), 0, stream>>>(
      frame, p, content, tensor, batch_index, luma ? *luma : ImageView{}, luma != nullptr);
  GP_CUDA_CHECK_LAUNCH("preprocess_kernel " + checks::size_text(frame.width, frame.height) + " -> " +
                       checks::size_text(p.width, p.height));
  return content;
}

void resize_frame_gpu(const FrameSource& frame, const ImageView& out, cudaStream_t stream) {
  const char* fn = "resize_frame_gpu";
  checks::require_frame(frame, fn);
  checks::require_view(out, PixelType::u8, 0, fn, "out");
  resize_frame_kernel<<<launch::pixel_grid(out.width, out.height), launch::pixel_block(), 0, stream>>>(frame, out);
  GP_CUDA_CHECK_LAUNCH("resize_frame_kernel " + checks::size_text(frame.width, frame.height) + " -> " +
                       checks::size_text(out.width, out.height));
}

void frame_luma_gpu(const FrameSource& frame, const ImageView& out, cudaStream_t stream) {
  const char* fn = "frame_luma_gpu";
  checks::require_frame(frame, fn);
  checks::require_view(out, PixelType::u8, 1, fn, "out");
  checks::require_size(out, frame.width, frame.height, fn, "out");
  frame_luma_kernel<<<launch::pixel_grid(out.width, out.height), launch::pixel_block(), 0, stream>>>(frame, out);
  GP_CUDA_CHECK_LAUNCH("frame_luma_kernel " + checks::size_text(frame.width, frame.height));
}

}  // namespace gp::frames
