// Separable antialiased resampling of RGBA float images (MIP levels, thumbnails): a horizontal
// pass into scratch (dst.width x src.height), then a vertical pass. Each thread computes its own
// tap weights; in both passes a warp reads 32 neighbouring pixels of a row (coalesced).
#include "cuda/common/cuda_check.hpp"
#include "cuda/common/pixel_launch.cuh"
#include "cuda/tone/resample_math.hpp"
#include "cuda/tone/view_checks.hpp"

namespace gp::tone {
namespace {

template <bool Horizontal>
__global__ void resample_kernel(ImageView src, ImageView dst, Filter filter) {
  int x, y;
  if (!launch::pixel_of_thread(dst.width, dst.height, x, y)) return;
  const int dst_n = Horizontal ? dst.width : dst.height;
  dst.row<float4>(y)[x] = math::resample_sample<Horizontal>(src, x, y, dst_n, filter);
}

std::string pass_text(const char* axis, int from, int to) {
  return std::string("resample_kernel ") + axis + " " + std::to_string(from) + "->" + std::to_string(to);
}

}  // namespace

std::size_t resample_scratch_bytes(int /*src_width*/, int src_height, int dst_width, int /*dst_height*/) {
  return std::size_t(dst_width) * std::size_t(src_height) * sizeof(float4);
}

void resample_gpu(const ImageView& src, const ImageView& dst, Filter filter, void* scratch, cudaStream_t stream) {
  checks::check_resample(src, dst, "resample_gpu");
  if (launch::empty(dst)) return;
  checks::require(scratch != nullptr && checks::aligned(scratch, 16), "resample_gpu", "scratch must be 16-byte aligned");
  const ImageView mid = packed_view(scratch, dst.width, src.height, 4, PixelType::f32);
  resample_kernel<true><<<launch::pixel_grid(mid.width, mid.height), launch::pixel_block(), 0, stream>>>(src, mid, filter);
  GP_CUDA_CHECK_LAUNCH(pass_text("horizontal", src.width, dst.width) + " rows " + std::to_string(src.height));
  resample_kernel<false><<<launch::pixel_grid(dst.width, dst.height), launch::pixel_block(), 0, stream>>>(mid, dst, filter);
  GP_CUDA_CHECK_LAUNCH(pass_text("vertical", src.height, dst.height) + " columns " + std::to_string(dst.width));
}

}  // namespace gp::tone
