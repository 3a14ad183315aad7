// CPU reference of resample_gpu: the same two passes and weights (resample_math.hpp).
#include <vector>

#include "core/parallel_for.hpp"
#include "cuda/tone/resample_math.hpp"
#include "cuda/tone/view_checks.hpp"

namespace gp::tone {
namespace {

template <bool Horizontal>
void resample_pass(const ImageView& src, const ImageView& dst, Filter filter) {
  const int dst_n = Horizontal ? dst.width : dst.height;
  for_each_row(dst.width, dst.height, [&](int y) {
    float4* out = dst.row<float4>(y);
    for (int x = 0; x < dst.width; ++x) out[x] = math::resample_sample<Horizontal>(src, x, y, dst_n, filter);
  });
}

}  // namespace

void resample_cpu(const ImageView& src, const ImageView& dst, Filter filter) {
  checks::check_resample(src, dst, "resample_cpu");
  if (dst.width <= 0 || dst.height <= 0) return;
  std::vector<float4> mid(std::size_t(dst.width) * std::size_t(src.height));
  const ImageView mid_view = packed_view(mid.data(), dst.width, src.height, 4, PixelType::f32);
  resample_pass<true>(src, mid_view, filter);
  resample_pass<false>(mid_view, dst, filter);
}

}  // namespace gp::tone
