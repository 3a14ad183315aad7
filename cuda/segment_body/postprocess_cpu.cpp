// CPU reference of the postprocess chain (also the CPU path): the same steps as postprocess_gpu
// through the CPU references.
#include "cuda/segment_body/checks.hpp"
#include "cuda/segment_body/postprocess.hpp"
#include "cuda/segment_body/postprocess_math.hpp"

namespace gp::segbody {

std::size_t postprocess_scratch_bytes(int frame_width, int frame_height, const PostprocessParams& p) {
  return math::postprocess_bytes(frame_width, frame_height, p);
}

void postprocess_cpu(const ImageView& model_mask, const ImageView& luma, const TemporalState& temporal,
                     bool first_frame, const Rect& content, const ImageView& guide, const PostprocessParams& p,
                     const ImageView& out, void* scratch, std::size_t scratch_bytes) {
  checks::require_postprocess(guide, p, out, scratch, scratch_bytes, "postprocess_cpu");
  const math::PostprocessScratch s = math::postprocess_scratch(scratch, out.width, out.height, p);
  ImageView mask = model_mask;
  if (p.temporal) {
    temporal_smooth_cpu(model_mask, luma, temporal.state, temporal.prev_luma, p.temporal_params, first_frame);
    mask = temporal.state;
  }
  if (p.refine) {
    upsample_mask_cpu(mask, content, s.upsampled, p.output);
    guided_filter_cpu(guide, s.upsampled, p.guided, out, p.output, s.guided, s.guided_bytes);
  } else {
    upsample_mask_cpu(mask, content, out, p.output);
  }
  if (p.islands.min_foreground_area <= 0 && p.islands.min_hole_area <= 0) return;
  if (!math::soft_islands(p)) {
    remove_islands_cpu(out, p.islands, s.islands, s.island_bytes);
    return;
  }
  const std::size_t n = std::size_t(out.width) * std::size_t(out.height);
  auto* soft = static_cast<std::uint8_t*>(out.data);
  auto* binary = static_cast<std::uint8_t*>(s.binary.data);
  for (std::size_t i = 0; i < n; ++i) binary[i] = math::on_foreground_side(soft[i], p.output.threshold) ? 255 : 0;
  remove_islands_cpu(s.binary, p.islands, s.islands, s.island_bytes);
  for (std::size_t i = 0; i < n; ++i) soft[i] = math::island_edited(soft[i], binary[i], p.output.threshold);
}

}  // namespace gp::segbody
