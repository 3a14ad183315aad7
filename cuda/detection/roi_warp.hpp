#pragma once
// Face-landmark model input, all faces of a frame in one launch: for each ROI (face_roi.hpp) an
// S x S crop of the frame (YUV 4:2:0 or packed RGB), rotated so that the face is upright,
// normalised and written as item i of an NHWC [count][S][S][3] f32/f16 tensor.
//
// Sampling: bilinear at the point tensor_to_frame() gives for the pixel's centre (as MediaPipe's
// ImageToTensorCalculator: warpAffine INTER_LINEAR / GL linear textures; no area filtering when a
// big face shrinks to 192). Outside the frame: BORDER_REPLICATE, the edge pixel. That is what
// MediaPipe's face mesh uses: ImageToTensorCalculator's border_mode unspecified means kReplicate
// (image_to_tensor_utils.cc GetBorderMode) and the face_landmark graphs set none; the older
// face_landmark_gpu.pbtxt cropped with ImageCroppingCalculator border_mode: BORDER_REPLICATE.
//
// *_gpu: frame planes, `rois` and `tensor` are device pointers (the caller uploads the ROIs);
// work enqueued on `stream`, no allocation, no synchronisation.
// *_cpu: the same on host memory (the reference the GPU test compares with, and the CPU path).
#include <cuda_runtime_api.h>

#include "cuda/frames/frame.hpp"
#include "cuda/frames/preprocess.hpp"  // frames::TensorType
#include "cuda/detection/roi.hpp"

namespace gp::detect {

struct RoiWarpParams {
  int size = 192;  // S: face_landmark's input is 192 x 192
  // value = rgb / 255 * scale + offset (rgb in [0, 255]); face_landmark wants [0, 1].
  float scale = 1.0f, offset = 0.0f;
  frames::TensorType type = frames::TensorType::f32;
};

// Items 0..count-1 of `tensor` ([count][S][S][3] of p.type, packed). count may be 0.
void warp_rois_gpu(const frames::FrameSource& frame, const Roi* rois, int count, const RoiWarpParams& p,
                   void* tensor, cudaStream_t stream);
void warp_rois_cpu(const frames::FrameSource& frame, const Roi* rois, int count, const RoiWarpParams& p,
                   void* tensor);

}  // namespace gp::detect
