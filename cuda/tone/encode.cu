// Quantisation of display-linear RGBA float to u8/u16 with the output transfer and optional TPDF
// dither. One thread per pixel; a 4-channel output is written with one vector store per pixel when
// aligned (outputs are packed back to back, so an image may start at any byte).
#include <cstdint>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/pixel_launch.cuh"
#include "cuda/tone/tone_math.hpp"
#include "cuda/tone/view_checks.hpp"

namespace gp::tone {
namespace {

template <class T>
struct Vec4;
template <>
struct Vec4<std::uint8_t> {
  using type = uchar4;
};
template <>
struct Vec4<std::uint16_t> {
  using type = ushort4;
};

template <class T>
__global__ void encode_kernel(ImageView src, ImageView dst, EncodeParams p, bool vector_stores) {
  int x, y;
  if (!launch::pixel_of_thread(src.width, src.height, x, y)) return;
  constexpr float max_code = sizeof(T) == 1 ? 255.0f : 65535.0f;
  const math::Codes q = math::encode_pixel(src.row<const float4>(y)[x], x, y, p, max_code, dst.channels == 4);
  T* out = dst.row<T>(y) + std::size_t(x) * dst.channels;
  if (vector_stores) {
    using V = typename Vec4<T>::type;
    *reinterpret_cast<V*>(out) = V{T(q.c[0]), T(q.c[1]), T(q.c[2]), T(q.c[3])};
  } else {
    for (int c = 0; c < dst.channels; ++c) out[c] = T(q.c[c]);
  }
}

template <class T>
void launch_encode(const ImageView& src, const ImageView& dst, const EncodeParams& p, cudaStream_t stream) {
  const std::size_t pixel_bytes = 4 * sizeof(T);
  const bool vector_stores = dst.channels == 4 && checks::aligned(dst.data, pixel_bytes) && dst.pitch % pixel_bytes == 0;
  encode_kernel<T><<<launch::pixel_grid(src.width, src.height), launch::pixel_block(), 0, stream>>>(src, dst, p,
                                                                                                   vector_stores);
}

}  // namespace

void encode_gpu(const ImageView& src, const ImageView& dst, const EncodeParams& p, cudaStream_t stream) {
  checks::check_encode(src, dst, p, "encode_gpu");
  if (launch::empty(src)) return;
  if (dst.type == PixelType::u8)
    launch_encode<std::uint8_t>(src, dst, p, stream);
  else
    launch_encode<std::uint16_t>(src, dst, p, stream);
  GP_CUDA_CHECK_LAUNCH("encode_kernel " + checks::size_text(src) + " -> " + std::to_string(dst.channels) + "x" +
                       (dst.type == PixelType::u8 ? "u8" : "u16"));
}

}  // namespace gp::tone
