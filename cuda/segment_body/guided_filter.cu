// Guided filter on the GPU: four per-pixel passes (guided_math.hpp). Column passes: a warp reads 32
// neighbouring columns of each row (coalesced); row passes: neighbouring threads share most of
// their windows, which L1 serves.
#include "cuda/segment_body/guided_filter.hpp"

#include "cuda/common/cuda_check.hpp"
#include "cuda/segment_body/checks.hpp"
#include "cuda/segment_body/guided_math.hpp"
#include "cuda/segment_body/launch.cuh"

namespace gp::segbody {
namespace {

__global__ void column_sums_kernel(ImageView guide, ImageView mask, int r, float4* sums) {
  int x, y;
  if (!launch::pixel_of_thread(guide.width, guide.height, x, y)) return;
  sums[std::size_t(y) * guide.width + x] = math::column_sums(guide, mask, r, x, y);
}

__global__ void coefficients_kernel(const float4* sums, int width, int height, int r, float eps, float2* ab) {
  int x, y;
  if (!launch::pixel_of_thread(width, height, x, y)) return;
  ab[std::size_t(y) * width + x] = math::coefficients(sums, width, height, r, eps, x, y);
}

__global__ void coefficient_columns_kernel(const float2* ab, int width, int height, int r, float2* column) {
  int x, y;
  if (!launch::pixel_of_thread(width, height, x, y)) return;
  column[std::size_t(y) * width + x] = math::coefficient_column_sums(ab, width, height, r, x, y);
}

__global__ void guided_output_kernel(const float2* column, ImageView guide, int r, ImageView out, MaskOutput mode) {
  int x, y;
  if (!launch::pixel_of_thread(guide.width, guide.height, x, y)) return;
  math::store_mask(out, x, y, math::guided_output(column, guide, r, x, y), mode);
}

}  // namespace

void guided_filter_gpu(const ImageView& guide, const ImageView& mask, const GuidedParams& p, const ImageView& out,
                       const MaskOutput& mode, void* scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  checks::require_guided(guide, mask, p, out, scratch, scratch_bytes, "guided_filter_gpu");
  const int w = guide.width, h = guide.height;
  const math::GuidedScratch s = math::guided_scratch(scratch, w, h);
  // Pass 3's float2 column sums reuse the float4 sums of pass 1, which pass 2 has consumed.
  float2* columns = reinterpret_cast<float2*>(s.sums);
  const dim3 grid = launch::pixel_grid(w, h), block = launch::pixel_block();
  const std::string size = checks::size_text(w, h) + " r=" + std::to_string(p.radius);
  column_sums_kernel<<<grid, block, 0, stream>>>(guide, mask, p.radius, s.sums);
  GP_CUDA_CHECK_LAUNCH("column_sums_kernel " + size);
  coefficients_kernel<<<grid, block, 0, stream>>>(s.sums, w, h, p.radius, p.eps, s.coefficients);
  GP_CUDA_CHECK_LAUNCH("coefficients_kernel " + size);
  coefficient_columns_kernel<<<grid, block, 0, stream>>>(s.coefficients, w, h, p.radius, columns);
  GP_CUDA_CHECK_LAUNCH("coefficient_columns_kernel " + size);
  guided_output_kernel<<<grid, block, 0, stream>>>(columns, guide, p.radius, out, mode);
  GP_CUDA_CHECK_LAUNCH("guided_output_kernel " + size);
}

}  // namespace gp::segbody
