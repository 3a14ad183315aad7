// Guided filter on the GPU: one per-pixel kernel per pass (guided_math.hpp). Column passes: a warp
// reads 32 neighbouring columns of each row (coalesced); row passes: neighbouring threads share
// most of their windows, which L1 serves.
#include "cuda/segment_body/guided_filter.hpp"

#include "cuda/common/cuda_check.hpp"
#include "cuda/segment_body/checks.hpp"
#include "cuda/segment_body/guided_math.hpp"
#include "cuda/common/pixel_launch.cuh"

namespace gp::segbody {
namespace {

using math::GuidedGrid;

__global__ void block_means_kernel(ImageView guide, ImageView mask, GuidedGrid g, float2* means) {
  int x, y;
  if (!launch::pixel_of_thread(g.width, g.height, x, y)) return;
  means[std::size_t(y) * g.width + x] = math::block_mean(guide, mask, g.subsample, x, y);
}

__global__ void column_sums_kernel(math::GuidedInput in, GuidedGrid g, float4* sums) {
  int x, y;
  if (!launch::pixel_of_thread(g.width, g.height, x, y)) return;
  sums[std::size_t(y) * g.width + x] = math::column_sums(in, g, x, y);
}

__global__ void coefficients_kernel(const float4* sums, GuidedGrid g, float eps, float2* ab) {
  int x, y;
  if (!launch::pixel_of_thread(g.width, g.height, x, y)) return;
  ab[std::size_t(y) * g.width + x] = math::coefficients(sums, g, eps, x, y);
}

__global__ void coefficient_columns_kernel(const float2* ab, GuidedGrid g, float2* column) {
  int x, y;
  if (!launch::pixel_of_thread(g.width, g.height, x, y)) return;
  column[std::size_t(y) * g.width + x] = math::coefficient_column_sums(ab, g, x, y);
}

// Full size: q straight from the mean coefficients.
__global__ void guided_output_kernel(const float2* column, GuidedGrid g, ImageView guide, ImageView out,
                                     MaskOutput mode) {
  int x, y;
  if (!launch::pixel_of_thread(g.width, g.height, x, y)) return;
  const float2 m = math::mean_coefficients(column, g, x, y);
  math::store_mask(out, x, y, m.x * math::guide_value(guide, x, y) + m.y, mode);
}

__global__ void mean_coefficients_kernel(const float2* column, GuidedGrid g, float2* means) {
  int x, y;
  if (!launch::pixel_of_thread(g.width, g.height, x, y)) return;
  means[std::size_t(y) * g.width + x] = math::mean_coefficients(column, g, x, y);
}

__global__ void subsampled_output_kernel(const float2* means, GuidedGrid g, ImageView guide, ImageView out,
                                         MaskOutput mode) {
  int x, y;
  if (!launch::pixel_of_thread(out.width, out.height, x, y)) return;
  math::store_mask(out, x, y, math::subsampled_output(means, g, guide, x, y), mode);
}

}  // namespace

void guided_filter_gpu(const ImageView& guide, const ImageView& mask, const GuidedParams& p, const ImageView& out,
                       const MaskOutput& mode, void* scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  checks::require_guided(guide, mask, p, out, scratch, scratch_bytes, "guided_filter_gpu");
  const GuidedGrid g = math::guided_grid(guide.width, guide.height, p);
  const math::GuidedScratch s = math::guided_scratch(scratch, g);
  float2* columns = reinterpret_cast<float2*>(s.sums);  // pass 3 over pass 1's sums (consumed by pass 2)
  const bool sub = g.subsample > 1;
  const dim3 grid = launch::pixel_grid(g.width, g.height), block = launch::pixel_block();
  const std::string size = checks::size_text(guide.width, guide.height) + " r=" + std::to_string(p.radius) +
                           " s=" + std::to_string(g.subsample);
  if (sub) {
    block_means_kernel<<<grid, block, 0, stream>>>(guide, mask, g, s.block_means);
    GP_CUDA_CHECK_LAUNCH("block_means_kernel " + size);
  }
  column_sums_kernel<<<grid, block, 0, stream>>>(math::GuidedInput{guide, mask, sub ? s.block_means : nullptr, g.width},
                                                 g, s.sums);
  GP_CUDA_CHECK_LAUNCH("column_sums_kernel " + size);
  coefficients_kernel<<<grid, block, 0, stream>>>(s.sums, g, p.eps, s.coefficients);
  GP_CUDA_CHECK_LAUNCH("coefficients_kernel " + size);
  coefficient_columns_kernel<<<grid, block, 0, stream>>>(s.coefficients, g, columns);
  GP_CUDA_CHECK_LAUNCH("coefficient_columns_kernel " + size);
  if (!sub) {
    guided_output_kernel<<<grid, block, 0, stream>>>(columns, g, guide, out, mode);
    GP_CUDA_CHECK_LAUNCH("guided_output_kernel " + size);
    return;
  }
  mean_coefficients_kernel<<<grid, block, 0, stream>>>(columns, g, s.block_means);
  GP_CUDA_CHECK_LAUNCH("mean_coefficients_kernel " + size);
  subsampled_output_kernel<<<launch::pixel_grid(out.width, out.height), block, 0, stream>>>(s.block_means, g, guide,
                                                                                             out, mode);
  GP_CUDA_CHECK_LAUNCH("subsampled_output_kernel " + size);
}

}  // namespace gp::segbody
