// Per-pixel kernels: source -> RGBA float, tone curve, quantisation. Memory-bound: one thread
// per pixel, float4 loads and stores, 2-D grid so pitched rows need no division.
#include <cuda_fp16.h>

#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/tonemap/tonemap_math.hpp"

namespace gp::tonemap {
namespace {

using math::Rgb;

constexpr dim3 block_2d(32, 8);
dim3 grid_for(int w, int h) { return dim3((w + 31) / 32, (h + 7) / 8); }
std::string size_text(const ImageView& v) { return std::to_string(v.width) + "x" + std::to_string(v.height); }

template <class T>
__device__ float load_channel(const T* p, int c);
template <>
__device__ float load_channel<__half>(const __half* p, int c) { return __half2float(p[c]); }
template <>
__device__ float load_channel<float>(const float* p, int c) { return p[c]; }

template <class T>
__global__ void to_rgba_kernel(ImageView src, ChannelMap map, ImageView dst) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= src.width || y >= src.height) return;
  const T* p = src.row<const T>(y) + std::size_t(x) * src.channels;
  float4 o;
  o.x = load_channel(p, map.index[0]);
  o.y = load_channel(p, map.index[1]);
  o.z = load_channel(p, map.index[2]);
  o.w = map.index[3] >= 0 ? load_channel(p, map.index[3]) : 1.0f;
  dst.row<float4>(y)[x] = o;
}

__global__ void tonemap_kernel(ImageView src, ImageView dst, ToneParams p, const float* scale) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= src.width || y >= src.height) return;
  const float s = scale[0];
  const float4 in = src.row<const float4>(y)[x];
  const Rgb c = math::tonemap_pixel(in.x, in.y, in.z, in.w, s, p);
  dst.row<float4>(y)[x] = make_float4(c.r, c.g, c.b, in.w);
}

template <class T>
__global__ void encode_kernel(ImageView src, ImageView dst, EncodeParams p, float max_code) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= src.width || y >= src.height) return;
  const float4 in = src.row<const float4>(y)[x];
  float v[4] = {in.x, in.y, in.z, in.w};
  math::unpremultiply_for_output(v, dst.channels, p);
  T* out = dst.row<T>(y) + std::size_t(x) * dst.channels;
  for (int c = 0; c < dst.channels; ++c) out[c] = T(math::quantize(v[c], c == 3, x, y, c, max_code, p));
}

}  // namespace

void to_rgba_f32_gpu(const ImageView& src, const ChannelMap& map, const ImageView& dst, cudaStream_t stream) {
  if (src.type == PixelType::f16)
    to_rgba_kernel<__half><<<grid_for(src.width, src.height), block_2d, 0, stream>>>(src, map, dst);
  else if (src.type == PixelType::f32)
    to_rgba_kernel<float><<<grid_for(src.width, src.height), block_2d, 0, stream>>>(src, map, dst);
  else
    throw GpuError("to_rgba_f32_gpu: source must be f16 or f32");
  GP_CUDA_CHECK_LAUNCH("to_rgba_kernel " + size_text(src) + "x" + std::to_string(src.channels));
}

void tonemap_gpu(const ImageView& src, const ImageView& dst, const ToneParams& p, const float* scale,
                 cudaStream_t stream) {
  tonemap_kernel<<<grid_for(src.width, src.height), block_2d, 0, stream>>>(src, dst, p, scale);
  GP_CUDA_CHECK_LAUNCH("tonemap_kernel " + size_text(src));
}

void encode_gpu(const ImageView& src, const ImageView& dst, const EncodeParams& p, cudaStream_t stream) {
  if (dst.type == PixelType::u8)
    encode_kernel<std::uint8_t><<<grid_for(src.width, src.height), block_2d, 0, stream>>>(src, dst, p, 255.0f);
  else if (dst.type == PixelType::u16)
    encode_kernel<std::uint16_t><<<grid_for(src.width, src.height), block_2d, 0, stream>>>(src, dst, p, 65535.0f);
  else
    throw GpuError("encode_gpu: output must be u8 or u16");
  GP_CUDA_CHECK_LAUNCH("encode_kernel " + size_text(src) + " -> " + std::to_string(dst.channels) + " channels");
}

}  // namespace gp::tonemap
