#pragma once
// The whole per-frame mask postprocessing of segment-body in one call, composed of the kernels of
// mask.hpp, guided_filter.hpp and islands.hpp:
//   model mask (model size) -> [temporal EMA, per stream] -> upsample to the frame, undoing the
//   letterbox -> [guided filter on the frame's luma] -> 8-bit soft alpha or binary mask ->
//   [small-island removal].
// With a soft output, islands are found on its binary version (value >= threshold) and only the
// pixels whose side changed are edited (removed islands to 0, filled holes to 255); soft edges stay.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "core/views.hpp"
#include "cuda/segment_body/frame_types.hpp"
#include "cuda/segment_body/mask_output.hpp"
#include "cuda/segment_body/guided_filter.hpp"
#include "cuda/segment_body/islands.hpp"
#include "cuda/segment_body/mask.hpp"

namespace gp::segbody {

struct PostprocessParams {
  bool temporal = true;
  TemporalParams temporal_params;
  bool refine = true;
  GuidedParams guided;
  MaskOutput output;
  IslandParams islands;  // both areas 0: no island removal
};

// Scratch for postprocess_* at this frame size (device memory for _gpu, host for _cpu).
std::size_t postprocess_scratch_bytes(int frame_width, int frame_height, const PostprocessParams& p);

// The stream's state for the temporal step: state and prev_luma, f32 1 channel of the model size,
// kept by the caller between frames of one stream.
struct TemporalState {
  ImageView state, prev_luma;
};

// model_mask: f32 1 channel (model size). luma: preprocess's luma (model size; used when
// p.temporal). content: content_rect() of the frame. guide: u8 1 channel, frame size (used when
// p.refine). out: u8 1 channel, frame size; packed (pitch == width) when islands are removed.
void postprocess_gpu(const ImageView& model_mask, const ImageView& luma, const TemporalState& temporal,
                     bool first_frame, const Rect& content, const ImageView& guide, const PostprocessParams& p,
                     const ImageView& out, void* scratch, std::size_t scratch_bytes, cudaStream_t stream);
void postprocess_cpu(const ImageView& model_mask, const ImageView& luma, const TemporalState& temporal,
                     bool first_frame, const Rect& content, const ImageView& guide, const PostprocessParams& p,
                     const ImageView& out, void* scratch, std::size_t scratch_bytes);

}  // namespace gp::segbody
