// CPU reference of the guided filter (also the CPU path): the same four passes over rows spread
// across threads, through the caller's host scratch.
#include "cuda/segment_body/checks.hpp"
#include "cuda/segment_body/guided_filter.hpp"
#include "cuda/segment_body/guided_math.hpp"
#include "cuda/tonemap/cpu_rows.hpp"

namespace gp::segbody {

std::size_t guided_filter_scratch_bytes(int width, int height) {
  return math::guided_sums_bytes(width, height) + std::size_t(width) * std::size_t(height) * sizeof(float2);
}

void guided_filter_cpu(const ImageView& guide, const ImageView& mask, const GuidedParams& p, const ImageView& out,
                       const MaskOutput& mode, void* scratch, std::size_t scratch_bytes) {
  checks::require_guided(guide, mask, p, out, scratch, scratch_bytes, "guided_filter_cpu");
  const int w = guide.width, h = guide.height, r = p.radius;
  const math::GuidedScratch s = math::guided_scratch(scratch, w, h);
  float2* columns = reinterpret_cast<float2*>(s.sums);
  using tonemap::cpu::for_each_row;
  for_each_row(w, h, [&](int y) {
    for (int x = 0; x < w; ++x) s.sums[std::size_t(y) * w + x] = math::column_sums(guide, mask, r, x, y);
  });
  for_each_row(w, h, [&](int y) {
    for (int x = 0; x < w; ++x) s.coefficients[std::size_t(y) * w + x] = math::coefficients(s.sums, w, h, r, p.eps, x, y);
  });
  for_each_row(w, h, [&](int y) {
    for (int x = 0; x < w; ++x) columns[std::size_t(y) * w + x] = math::coefficient_column_sums(s.coefficients, w, h, r, x, y);
  });
  for_each_row(w, h, [&](int y) {
    for (int x = 0; x < w; ++x) math::store_mask(out, x, y, math::guided_output(columns, guide, r, x, y), mode);
  });
}

}  // namespace gp::segbody
