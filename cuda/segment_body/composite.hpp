#pragma once
// segment-body outputs from the frame and its 8-bit alpha mask:
//   composite:      RGBA (frame + mask as alpha), or the frame blended over a background (a colour
//                   or an RGB image of any size, resampled to the frame on the fly like
//                   resize_frame_*: bilinear, area average when shrinking by more than 2x) by the
//                   soft alpha: out = (F a + B (255 - a)) / 255, rounded;
//   gaussian_blur:  the frame blurred (separable Gaussian), as such a background. Its cost grows
//                   with sigma; for a strong blur, blur a smaller copy (resize_frame_* to 1/k of
//                   the frame, then gaussian_blur_* of that packed RGB image with sigma / k) and
//                   let composite enlarge it: the same look at 1/k^2 of the work.
//   rgb_to_yuv420:  8-bit RGB -> YUV 4:2:0 planes for a video encoder (chroma from the 2x2 mean);
//                   composite_yuv420 composites straight into such planes.
//
// *_gpu: device memory, enqueued on `stream`, no allocation or synchronisation; *_cpu: the same on
// host memory.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "core/views.hpp"
#include "cuda/segment_body/frame_types.hpp"

namespace gp::segbody {

struct Background {
  enum class Kind : std::uint8_t { transparent, colour, image } kind = Kind::transparent;
  std::uint8_t colour[3] = {0, 0, 0};  // RGB, for Kind::colour
  ImageView image;                     // u8 RGB(A), any size, for Kind::image
};

// alpha: u8 1 channel, frame size. out: u8, frame size; 4 channels for Kind::transparent (frame RGB
// + alpha), 3 or 4 otherwise (alpha 255).
void composite_gpu(const FrameSource& frame, const ImageView& alpha, const Background& background,
                   const ImageView& out, cudaStream_t stream);
void composite_cpu(const FrameSource& frame, const ImageView& alpha, const Background& background,
                   const ImageView& out);

// Gaussian of standard deviation sigma (pixels), truncated at radius ceil(3 sigma), at most
// gaussian_max_radius (larger sigmas are cut there); edges replicate. out: u8 RGB(A), frame size.
constexpr int gaussian_max_radius = 127;
std::size_t gaussian_blur_scratch_bytes(int width, int height);  // 16 bytes per pixel
void gaussian_blur_gpu(const FrameSource& frame, float sigma, const ImageView& out, void* scratch,
                       std::size_t scratch_bytes, cudaStream_t stream);
void gaussian_blur_cpu(const FrameSource& frame, float sigma, const ImageView& out, void* scratch,
                       std::size_t scratch_bytes);

// rgb: u8 RGB(A); out: its size, planes of (w+1)/2 x (h+1)/2 chroma. Y per pixel; Cb, Cr from the
// mean colour of each 2x2 block (the pixels inside the image at odd edges). Rounded, limited range
// unless full_range.
void rgb_to_yuv420_gpu(const ImageView& rgb, const Yuv420Planes& out, YuvMatrix matrix, bool full_range,
                       cudaStream_t stream);
void rgb_to_yuv420_cpu(const ImageView& rgb, const Yuv420Planes& out, YuvMatrix matrix, bool full_range);

// composite_* over a colour or image background straight to YUV 4:2:0 planes of the frame's size,
// in one pass: the same bytes as composite_* into RGB followed by rgb_to_yuv420_*.
void composite_yuv420_gpu(const FrameSource& frame, const ImageView& alpha, const Background& background,
                          const Yuv420Planes& out, YuvMatrix matrix, bool full_range, cudaStream_t stream);
void composite_yuv420_cpu(const FrameSource& frame, const ImageView& alpha, const Background& background,
                          const Yuv420Planes& out, YuvMatrix matrix, bool full_range);

}  // namespace gp::segbody
