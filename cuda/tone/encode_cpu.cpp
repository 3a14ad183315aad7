// CPU reference of encode_gpu.
#include <cstdint>

#include "core/parallel_for.hpp"
#include "cuda/tone/tone_math.hpp"
#include "cuda/tone/view_checks.hpp"

namespace gp::tone {
namespace {

template <class T>
void encode_rows(const ImageView& src, const ImageView& dst, const EncodeParams& p) {
  constexpr float max_code = sizeof(T) == 1 ? 255.0f : 65535.0f;
  for_each_row(src.width, src.height, [&](int y) {
    const float4* in = src.row<const float4>(y);
    T* out = dst.row<T>(y);
    for (int x = 0; x < src.width; ++x) {
      const math::Codes q = math::encode_pixel(in[x], x, y, p, max_code, dst.channels == 4);
      for (int c = 0; c < dst.channels; ++c) out[std::size_t(x) * dst.channels + c] = T(q.c[c]);
    }
  });
}

}  // namespace

void encode_cpu(const ImageView& src, const ImageView& dst, const EncodeParams& p) {
  checks::check_encode(src, dst, p, "encode_cpu");
  if (dst.type == PixelType::u8)
    encode_rows<std::uint8_t>(src, dst, p);
  else
    encode_rows<std::uint16_t>(src, dst, p);
}

}  // namespace gp::tone
