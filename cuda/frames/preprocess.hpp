#pragma once
// Model input of segment-body, in one fused pass per frame: decoded frame (YUV 4:2:0 or packed
// RGB) -> resize to the model's W x H (stretch, or letterbox: aspect kept, padded) -> normalise
// -> item b of an NHWC RGB float32/float16 batch tensor. Each output pixel samples the frame
// bilinearly at its centre as MediaPipe does (ResizeFilter::bilinear), or averages its footprint
// when shrinking by more than 2x (ResizeFilter::area, frame_math.hpp). Optionally also the
// downscaled luma the temporal smoothing compares.
//
// Also here, on the same sampling: a frame resized to an 8-bit RGB image (a small copy to blur for
// a background, composite.hpp) and the frame's full-size 8-bit luma (the guided filter's guide).
//
// *_gpu: device pointers, work enqueued on `stream`, no allocation, no synchronisation.
// *_cpu: the same on host memory (the reference the GPU tests compare with, and the CPU path).
#include <cuda_runtime_api.h>

#include "core/views.hpp"
#include "cuda/frames/frame.hpp"

namespace gp::frames {

enum class ResizeMode : std::uint8_t { stretch, letterbox };
// bilinear: each model pixel samples the frame bilinearly at its centre, as MediaPipe's
// ImageToTensorCalculator does (cv::warpAffine INTER_LINEAR, GL linear textures), also when it
// shrinks a frame many times; area: averages the pixel's footprint when shrinking by more than
// 2x (no aliasing, but not what the models were fed in training).
enum class ResizeFilter : std::uint8_t { bilinear, area };
enum class TensorType : std::uint8_t { f32, f16 };

struct PreprocessParams {
  int width = 256, height = 256;  // model input
  ResizeMode mode = ResizeMode::stretch;
  ResizeFilter filter = ResizeFilter::bilinear;
  // out = rgb * scale + offset with rgb in [0, 255]; the default gives MediaPipe selfie
  // segmentation's [0, 1]. Padding pixels get `pad` (already normalised).
  float scale[3] = {1.0f / 255.0f, 1.0f / 255.0f, 1.0f / 255.0f};
  float offset[3] = {0.0f, 0.0f, 0.0f};
  float pad[3] = {0.0f, 0.0f, 0.0f};
  TensorType type = TensorType::f32;
};

// Where the frame lands in the model input: the whole input for stretch; for letterbox the largest
// centred rectangle of the frame's aspect (sides rounded to whole pixels, at least 1; odd margins
// put the extra pixel right/below). Postprocessing undoes it (upsample_mask_*).
Rect content_rect(int frame_width, int frame_height, const PreprocessParams& p);

// tensor: NHWC [batch][p.height][p.width][3] of p.type, packed; item `batch_index` is written.
// luma (optional, may be null): p.width x p.height f32 1-channel, the content's luma
// (Kr R + Kg G + Kb B of the frame's matrix) / 255 in [0, 1], 0 on padding. Returns content_rect().
Rect preprocess_gpu(const FrameSource& frame, const PreprocessParams& p, void* tensor, int batch_index,
                    const ImageView* luma, cudaStream_t stream);
Rect preprocess_cpu(const FrameSource& frame, const PreprocessParams& p, void* tensor, int batch_index,
                    const ImageView* luma);

// The whole frame stretched onto `out` (u8, 3 channels RGB or 4 with alpha 255), same filter.
void resize_frame_gpu(const FrameSource& frame, const ImageView& out, cudaStream_t stream);
void resize_frame_cpu(const FrameSource& frame, const ImageView& out);

// Full-size luma of the frame, rounded (u8, 1 channel, the frame's size): the Y plane's codes for
// YUV frames (limited range stays limited: the guided filter needs only relative values), else
// Kr R + Kg G + Kb B with the frame's matrix.
void frame_luma_gpu(const FrameSource& frame, const ImageView& out, cudaStream_t stream);
void frame_luma_cpu(const FrameSource& frame, const ImageView& out);

}  // namespace gp::frames
