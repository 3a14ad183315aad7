// CPU reference of to_rgba_f32_gpu.
#include <cstdint>

#include "core/parallel_for.hpp"
#include "cuda/tone/half_convert.hpp"
#include "cuda/tone/tone_kernels.hpp"
#include "cuda/tone/view_checks.hpp"

namespace gp::tone {
namespace {

float to_float(float v) { return v; }
float to_float(std::uint16_t half_bits) { return half_bits_to_float(half_bits); }

template <class T>
void convert_rows(const ImageView& src, const ChannelMap& map, const ImageView& dst) {
  const int* m = map.index;
  for_each_row(src.width, src.height, [&](int y) {
    const T* in = src.row<const T>(y);
    float4* out = dst.row<float4>(y);
    for (int x = 0; x < src.width; ++x) {
      const T* p = in + std::size_t(x) * src.channels;
      out[x] = float4{to_float(p[m[0]]), to_float(p[m[1]]), to_float(p[m[2]]), m[3] >= 0 ? to_float(p[m[3]]) : 1.0f};
    }
  });
}

}  // namespace

void to_rgba_f32_cpu(const ImageView& src, const ChannelMap& map, const ImageView& dst) {
  checks::check_convert(src, map, dst, "to_rgba_f32_cpu");
  if (src.type == PixelType::f16)
    convert_rows<std::uint16_t>(src, map, dst);
  else
    convert_rows<float>(src, map, dst);
}

}  // namespace gp::tone
