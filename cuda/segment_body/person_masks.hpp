#pragma once
// BlazePose's person masks back into one frame-shaped canvas: each person's 256 x 256 segmentation
// logits (the landmark model's output, in its rotated ROI) become sigmoid values warped into the
// frame as MediaPipe's TensorsToSegmentationCalculator (SIGMOID) then WarpAffineCalculator
// (bilinear, BORDER_ZERO: 0 outside the ROI) do, and the people of a frame combine by max.
//
// The canvas is the whole frame stretched onto canvas.width x canvas.height (f32, 1 channel), so
// the rest of segment-body's postprocess (upsampling to the frame, temporal smoothing, refinement)
// takes it like a model mask whose content is the whole input.
//
// *_gpu: device pointers (logits [count][S][S], rois [count]), enqueued on `stream`; *_cpu: the
// same on host memory (the reference and the CPU path). count may be 0 (the canvas becomes 0).
#include <cuda_runtime_api.h>

#include "core/views.hpp"
#include "cuda/detection/roi.hpp"

namespace gp::segbody {

struct PersonMasks {
  const float* logits = nullptr;      // [count][size][size] raw model output
  const detect::Roi* rois = nullptr;  // [count], frame pixels
  int count = 0;
  int size = 256;                     // S: the landmark model's mask side
  int frame_width = 0, frame_height = 0;
};

void paste_person_masks_gpu(const PersonMasks& people, const ImageView& canvas, cudaStream_t stream);
void paste_person_masks_cpu(const PersonMasks& people, const ImageView& canvas);

}  // namespace gp::segbody
