#pragma once
// Scratch layout and the island-edit rule of postprocess_* (GPU and CPU alike).
#include <cstdint>

#include "core/views.hpp"
#include "cuda/segment_body/frame_types.hpp"
#include "cuda/segment_body/mask_output.hpp"
#include "cuda/segment_body/guided_math.hpp"
#include "cuda/segment_body/islands.hpp"
#include "cuda/segment_body/postprocess.hpp"

namespace gp::segbody::math {

inline bool soft_islands(const PostprocessParams& p) {
  return p.output.kind == MaskOutput::Kind::soft && (p.islands.min_foreground_area > 0 || p.islands.min_hole_area > 0);
}

// [upsampled f32 mask (refine only)] then, reusing one region: the guided filter's scratch, or the
// binary copy (soft output with islands) followed by the island scratch.
struct PostprocessScratch {
  ImageView upsampled;  // f32, packed
  void* guided;
  ImageView binary;     // u8, packed
  void* islands;
  std::size_t guided_bytes, island_bytes;
};

inline PostprocessScratch postprocess_scratch(void* scratch, int w, int h, const PostprocessParams& p) {
  PostprocessScratch s{};
  char* base = static_cast<char*>(scratch);
  const std::size_t pixels = std::size_t(w) * std::size_t(h);
  std::size_t at = 0;
  if (p.refine) {
    s.upsampled = packed_view(base, w, h, 1, PixelType::f32);
    at = align256(pixels * sizeof(float));
    s.guided = base + at;
    s.guided_bytes = guided_filter_scratch_bytes(w, h, p.guided);
  }
  const std::size_t islands_at = at + (soft_islands(p) ? align256(pixels) : 0);
  if (soft_islands(p)) s.binary = packed_view(base + at, w, h, 1, PixelType::u8);
  s.islands = base + islands_at;
  s.island_bytes = island_scratch_bytes(w, h);
  return s;
}

inline std::size_t postprocess_bytes(int w, int h, const PostprocessParams& p) {
  const std::size_t pixels = std::size_t(w) * std::size_t(h);
  const std::size_t head = p.refine ? align256(pixels * sizeof(float)) : 0;
  const std::size_t guided = p.refine ? guided_filter_scratch_bytes(w, h, p.guided) : 0;
  const bool islands = p.islands.min_foreground_area > 0 || p.islands.min_hole_area > 0;
  const std::size_t island = islands ? (soft_islands(p) ? align256(pixels) : 0) + island_scratch_bytes(w, h) : 0;
  return head + (guided > island ? guided : island);
}

GP_HD bool on_foreground_side(std::uint8_t v, float threshold) { return float(v) >= threshold * 255.0f; }

// A soft alpha pixel after island removal on its binary copy: unchanged unless its side changed.
GP_HD std::uint8_t island_edited(std::uint8_t soft, std::uint8_t binary, float threshold) {
  return on_foreground_side(soft, threshold) == (binary == 255) ? soft : binary;
}

}  // namespace gp::segbody::math
