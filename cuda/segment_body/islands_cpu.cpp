// CPU reference of island removal (also the CPU path): segment-pnm's CPU union-find, areas by a
// raster pass, flips by another.
#include <algorithm>

#include "cuda/labelling/components.hpp"
#include "cuda/segment_body/checks.hpp"
#include "cuda/segment_body/islands.hpp"
#include "cuda/segment_body/islands_math.hpp"

namespace gp::segbody {

std::size_t island_scratch_bytes(int width, int height) {
  return 2 * std::size_t(width) * std::size_t(height) * sizeof(std::uint32_t);
}

namespace {

void remove_phase(const ImageView& mask, std::uint8_t phase, int min_area, const math::IslandScratch& s) {
  if (min_area <= 0) return;
  const std::size_t n = std::size_t(mask.width) * std::size_t(mask.height);
  labelling::component_roots_cpu(math::mask_volume(mask), phase, Connectivity::c26,
                           whole_volume(s.roots, mask.width, mask.height, 1));
  std::fill(s.counts, s.counts + n, 0u);
  for (std::size_t i = 0; i < n; ++i)
    if (s.roots[i] != labelling::no_root) ++s.counts[s.roots[i]];
  auto* m = static_cast<std::uint8_t*>(mask.data);
  const std::uint8_t to = phase == math::foreground ? math::background : math::foreground;
  for (std::size_t i = 0; i < n; ++i)
    if (s.roots[i] != labelling::no_root && s.counts[s.roots[i]] < std::uint32_t(min_area)) m[i] = to;
}

}  // namespace

void remove_islands_cpu(const ImageView& mask, const IslandParams& p, void* scratch, std::size_t scratch_bytes) {
  checks::require_islands(mask, p, scratch, scratch_bytes, "remove_islands_cpu");
  const math::IslandScratch s = math::island_scratch(scratch, std::size_t(mask.width) * std::size_t(mask.height));
  remove_phase(mask, math::foreground, p.min_foreground_area, s);
  remove_phase(mask, math::background, p.min_hole_area, s);
}

}  // namespace gp::segbody
