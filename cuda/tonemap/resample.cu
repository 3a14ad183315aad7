// Separable antialiased resampling of RGBA float images (MIP levels, thumbnails): a horizontal
// pass into scratch (dst.width x src.height), then a vertical pass. Weights are computed per
// output sample; taps past the edge clamp to it.
#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/tonemap/tonemap_math.hpp"

namespace gp::tonemap {
namespace {

__device__ float4 axpy(float w, float4 v, float4 acc) {
  return make_float4(acc.x + w * v.x, acc.y + w * v.y, acc.z + w * v.z, acc.w + w * v.w);
}

// Filters along x (horizontal = true) or y, from `src` into `dst`.
__global__ void resample_pass(ImageView src, ImageView dst, Filter f, bool horizontal) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dst.width || y >= dst.height) return;
  const int o = horizontal ? x : y;
  const int src_n = horizontal ? src.width : src.height, dst_n = horizontal ? dst.width : dst.height;
  const math::Taps t = math::taps_for(o, src_n, dst_n, f);
  float4 acc = make_float4(0, 0, 0, 0);
  float sum = 0;
  for (int i = t.first; i <= t.last; ++i) {
    const float w = math::filter_weight(f, (float(i) + 0.5f - t.centre) * t.inv_width);
    if (w == 0.0f) continue;
    const int k = min(max(i, 0), src_n - 1);
    const float4 v = horizontal ? src.row<const float4>(y)[k] : src.row<const float4>(k)[x];
    acc = axpy(w, v, acc);
    sum += w;
  }
  const float inv = sum != 0.0f ? 1.0f / sum : 0.0f;
  dst.row<float4>(y)[x] = make_float4(acc.x * inv, acc.y * inv, acc.z * inv, acc.w * inv);
}

}  // namespace

std::size_t resample_scratch_bytes(int src_width, int src_height, int dst_width, int dst_height) {
  return std::size_t(dst_width) * std::size_t(src_height) * sizeof(float4);
}

void resample_gpu(const ImageView& src, const ImageView& dst, Filter filter, void* scratch, cudaStream_t stream) {
  const ImageView mid = packed_view(scratch, dst.width, src.height, 4, PixelType::f32);
  const dim3 block(32, 8);
  resample_pass<<<dim3((mid.width + 31) / 32, (mid.height + 7) / 8), block, 0, stream>>>(src, mid, filter, true);
  GP_CUDA_CHECK_LAUNCH("resample horizontal " + std::to_string(src.width) + "->" + std::to_string(dst.width));
  resample_pass<<<dim3((dst.width + 31) / 32, (dst.height + 7) / 8), block, 0, stream>>>(mid, dst, filter, false);
  GP_CUDA_CHECK_LAUNCH("resample vertical " + std::to_string(src.height) + "->" + std::to_string(dst.height));
}

}  // namespace gp::tonemap
