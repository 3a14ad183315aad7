#pragma once
// segment-body mask postprocessing at model resolution and back to the frame:
//   temporal_smooth: EMA of the model's masks per video stream with a motion-aware reset;
//   upsample_mask:   the (smoothed) mask back to frame size, undoing the letterbox, bilinear,
//                    as float for refinement or straight to 8 bits (soft alpha or binary).
// Edge refinement (guided_filter.hpp), island removal (islands.hpp) and compositing
// (composite.hpp) follow.
//
// *_gpu: device memory, enqueued on `stream`, no allocation or synchronisation; *_cpu: the same on
// host memory.
#include <cuda_runtime_api.h>

#include "core/views.hpp"
#include "cuda/segment_body/frame_types.hpp"
#include "cuda/segment_body/mask_output.hpp"

namespace gp::segbody {

struct TemporalParams {
  float alpha = 0.5f;              // weight of the new mask: state = alpha * mask + (1 - alpha) * state
  float motion_threshold = 0.08f;  // |luma - previous luma| (0..1) above which the new mask replaces the state
};

// mask, luma: this frame's model output and preprocess luma (f32, 1 channel, model size).
// state, prev_luma: the stream's state, same size, updated in place: `state` is the smoothed mask
// (the input of upsample_mask) and `prev_luma` becomes `luma`. first_frame: state = mask.
void temporal_smooth_gpu(const ImageView& mask, const ImageView& luma, const ImageView& state,
                         const ImageView& prev_luma, const TemporalParams& p, bool first_frame, cudaStream_t stream);
void temporal_smooth_cpu(const ImageView& mask, const ImageView& luma, const ImageView& state,
                         const ImageView& prev_luma, const TemporalParams& p, bool first_frame);

// mask: f32 1 channel at model size; content: where the frame lies in it (content_rect()).
// out: frame size, 1 channel; f32 gets the value clamped to [0, 1], u8 gets mask_to_u8(value, mode).
// Samples outside `content` read its edge (the padding never bleeds in).
void upsample_mask_gpu(const ImageView& mask, const Rect& content, const ImageView& out, const MaskOutput& mode,
                       cudaStream_t stream);
void upsample_mask_cpu(const ImageView& mask, const Rect& content, const ImageView& out, const MaskOutput& mode);

}  // namespace gp::segbody
