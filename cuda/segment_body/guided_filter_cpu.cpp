// CPU reference of the guided filter (also the CPU path): the same passes over rows spread across
// threads, through the caller's host scratch.
#include "cuda/segment_body/checks.hpp"
#include "cuda/segment_body/guided_filter.hpp"
#include "cuda/segment_body/guided_math.hpp"
#include "core/parallel_for.hpp"

namespace gp::segbody {

std::size_t guided_filter_scratch_bytes(int width, int height, const GuidedParams& p) {
  return math::guided_scratch_bytes(math::guided_grid(width, height, p));
}

void guided_filter_cpu(const ImageView& guide, const ImageView& mask, const GuidedParams& p, const ImageView& out,
                       const MaskOutput& mode, void* scratch, std::size_t scratch_bytes) {
  checks::require_guided(guide, mask, p, out, scratch, scratch_bytes, "guided_filter_cpu");
  const math::GuidedGrid g = math::guided_grid(guide.width, guide.height, p);
  const math::GuidedScratch s = math::guided_scratch(scratch, g);
  float2* columns = reinterpret_cast<float2*>(s.sums);
  const bool sub = g.subsample > 1;
  const std::size_t gw = std::size_t(g.width);
  if (sub)
    for_each_row(g.width, g.height, [&](int y) {
      for (int x = 0; x < g.width; ++x) s.block_means[y * gw + x] = math::block_mean(guide, mask, g.subsample, x, y);
    });
  const math::GuidedInput in{guide, mask, sub ? s.block_means : nullptr, g.width};
  for_each_row(g.width, g.height, [&](int y) {
    for (int x = 0; x < g.width; ++x) s.sums[y * gw + x] = math::column_sums(in, g, x, y);
  });
  for_each_row(g.width, g.height, [&](int y) {
    for (int x = 0; x < g.width; ++x) s.coefficients[y * gw + x] = math::coefficients(s.sums, g, p.eps, x, y);
  });
  for_each_row(g.width, g.height, [&](int y) {
    for (int x = 0; x < g.width; ++x) columns[y * gw + x] = math::coefficient_column_sums(s.coefficients, g, x, y);
  });
  if (!sub) {
    for_each_row(g.width, g.height, [&](int y) {
      for (int x = 0; x < g.width; ++x) {
        const float2 m = math::mean_coefficients(columns, g, x, y);
        math::store_mask(out, x, y, m.x * math::guide_value(guide, x, y) + m.y, mode);
      }
    });
    return;
  }
  for_each_row(g.width, g.height, [&](int y) {
    for (int x = 0; x < g.width; ++x) s.block_means[y * gw + x] = math::mean_coefficients(columns, g, x, y);
  });
  for_each_row(out.width, out.height, [&](int y) {
    for (int x = 0; x < out.width; ++x)
      math::store_mask(out, x, y, math::subsampled_output(s.block_means, g, guide, x, y), mode);
  });
}

}  // namespace gp::segbody
