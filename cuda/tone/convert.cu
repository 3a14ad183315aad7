// Source (f16 or f32, any channel count) -> RGBA float. Memory-bound: one thread per pixel; a
// 4-channel source is read with one vector load per pixel, others channel by channel.
#include <cuda_fp16.h>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/pixel_launch.cuh"
#include "cuda/tone/view_checks.hpp"

namespace gp::tone {
namespace {

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }

// All four channels of a pixel in one load (8 bytes for f16, 16 for f32).
__device__ __forceinline__ float4 load_four(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ float4 load_four(const __half* p) {
  const uint2 raw = *reinterpret_cast<const uint2*>(p);
  const float2 lo = __half22float2(*reinterpret_cast<const __half2*>(&raw.x));
  const float2 hi = __half22float2(*reinterpret_cast<const __half2*>(&raw.y));
  return make_float4(lo.x, lo.y, hi.x, hi.y);
}

// Channel i of a loaded pixel without indexing a local array (which would go to local memory).
__device__ __forceinline__ float pick(float4 v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }

template <class T>
__global__ void to_rgba_kernel(ImageView src, ChannelMap map, ImageView dst, bool four_channel_loads) {
  int x, y;
  if (!launch::pixel_of_thread(src.width, src.height, x, y)) return;
  const T* p = src.row<const T>(y) + std::size_t(x) * src.channels;
  const int* m = map.index;
  float4 out;
  if (four_channel_loads) {
    const float4 v = load_four(p);
    out = make_float4(pick(v, m[0]), pick(v, m[1]), pick(v, m[2]), m[3] >= 0 ? pick(v, m[3]) : 1.0f);
  } else {
    out = make_float4(to_float(p[m[0]]), to_float(p[m[1]]), to_float(p[m[2]]), m[3] >= 0 ? to_float(p[m[3]]) : 1.0f);
  }
  dst.row<float4>(y)[x] = out;
}

template <class T>
void launch_to_rgba(const ImageView& src, const ChannelMap& map, const ImageView& dst, cudaStream_t stream) {
  const std::size_t pixel_bytes = 4 * sizeof(T);
  const bool four = src.channels == 4 && checks::aligned(src.data, pixel_bytes) && src.pitch % pixel_bytes == 0;
  to_rgba_kernel<T><<<launch::pixel_grid(src.width, src.height), launch::pixel_block(), 0, stream>>>(src, map, dst, four);
}

}  // namespace

void to_rgba_f32_gpu(const ImageView& src, const ChannelMap& map, const ImageView& dst, cudaStream_t stream) {
  checks::check_convert(src, map, dst, "to_rgba_f32_gpu");
  if (launch::empty(src)) return;
  if (src.type == PixelType::f16)
    launch_to_rgba<__half>(src, map, dst, stream);
  else
    launch_to_rgba<float>(src, map, dst, stream);
  GP_CUDA_CHECK_LAUNCH("to_rgba_kernel " + checks::size_text(src) + "x" + std::to_string(src.channels) +
                       (src.type == PixelType::f16 ? " f16" : " f32"));
}

}  // namespace gp::tone
