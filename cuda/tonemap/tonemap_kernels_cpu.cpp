// CPU references of the tonemap-exr kernels (and the CPU path of `--device cpu`): the same math
// from tonemap_math.hpp, rows spread over threads with gp::parallel_for.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "cuda/tonemap/tonemap_math.hpp"

namespace gp::tonemap {
namespace {

using math::Rgb;

struct Float4 {
  float x, y, z, w;
};

float load_channel(const void* row, std::size_t index, PixelType t) {
  return t == PixelType::f16 ? math::half_to_float(static_cast<const std::uint16_t*>(row)[index])
                             : static_cast<const float*>(row)[index];
}

template <class Body>
void for_rows(int height, Body&& body) {
  parallel_for(height, [&](long begin, long end) {
    for (long y = begin; y < end; ++y) body(int(y));
  }, 4);
}

}  // namespace

void to_rgba_f32_cpu(const ImageView& src, const ChannelMap& map, const ImageView& dst) {
  if (src.type != PixelType::f16 && src.type != PixelType::f32) throw Error("to_rgba_f32_cpu: source must be f16 or f32");
  for_rows(src.height, [&](int y) {
    const void* in = src.row<const char>(y);
    Float4* out = dst.row<Float4>(y);
    for (int x = 0; x < src.width; ++x) {
      const std::size_t p = std::size_t(x) * src.channels;
      out[x] = {load_channel(in, p + map.index[0], src.type), load_channel(in, p + map.index[1], src.type),
                load_channel(in, p + map.index[2], src.type),
                map.index[3] >= 0 ? load_channel(in, p + map.index[3], src.type) : 1.0f};
    }
  });
}

void auto_exposure_cpu(const ImageView& rgba, const AutoExposureParams& p, float base_scale, float* out_scale) {
  const int n = rgba.width * rgba.height;
  std::vector<float> log_lum(static_cast<std::size_t>(n));
  for_rows(rgba.height, [&](int y) {
    const Float4* in = rgba.row<const Float4>(y);
    for (int x = 0; x < rgba.width; ++x) log_lum[std::size_t(y) * rgba.width + x] = math::log2_luminance({in[x].x, in[x].y, in[x].z});
  });
  // Same binning as cub::DeviceHistogram::HistogramEven over [log_lum_min, log_lum_max).
  std::vector<long long> histogram(math::log_lum_bins, 0);
  const float bins_per_unit = float(math::log_lum_bins) / (math::log_lum_max - math::log_lum_min);
  for (float v : log_lum) {
    const int b = int((v - math::log_lum_min) * bins_per_unit);
    if (b >= 0 && b < math::log_lum_bins) histogram[std::size_t(b)]++;
  }
  const float bin_width = (math::log_lum_max - math::log_lum_min) / math::log_lum_bins;
  float low = -1e30f, high = 1e30f;
  const double low_count = double(p.percentile_low) / 100.0 * n, high_count = double(p.percentile_high) / 100.0 * n;
  bool low_found = p.percentile_low <= 0.0f, high_found = p.percentile_high >= 100.0f;
  long long cumulative = 0;
  for (int b = 0; b < math::log_lum_bins && !(low_found && high_found); ++b) {
    cumulative += histogram[std::size_t(b)];
    if (!low_found && double(cumulative) >= low_count) {
      low = math::log_lum_min + b * bin_width;
      low_found = true;
    }
    if (!high_found && double(cumulative) >= high_count) {
      high = math::log_lum_min + (b + 1) * bin_width;
      high_found = true;
    }
  }
  double sum = 0;
  for (float v : log_lum) sum += double(std::min(std::max(v, low), high));
  const float log_average = std::exp2(float(sum / n));
  out_scale[0] = std::min(std::max(base_scale * p.key / log_average, p.min_scale), p.max_scale);
  out_scale[1] = log_average;
}

void tonemap_cpu(const ImageView& src, const ImageView& dst, const ToneParams& p, const float* scale) {
  const float s = scale[0];
  for_rows(src.height, [&](int y) {
    const Float4* in = src.row<const Float4>(y);
    Float4* out = dst.row<Float4>(y);
    for (int x = 0; x < src.width; ++x) {
      const Float4 v = in[x];
      const Rgb c = math::tonemap_pixel(v.x, v.y, v.z, v.w, s, p);
      out[x] = {c.r, c.g, c.b, v.w};
    }
  });
}

void resample_cpu(const ImageView& src, const ImageView& dst, Filter filter) {
  // Horizontal pass into a temporary, then vertical: the same order and weights as the kernel.
  std::vector<Float4> mid(std::size_t(dst.width) * src.height);
  const ImageView mid_view = packed_view(mid.data(), dst.width, src.height, 4, PixelType::f32);
  auto pass = [&](const ImageView& from, const ImageView& to, bool horizontal) {
    for_rows(to.height, [&](int y) {
      for (int x = 0; x < to.width; ++x) {
        const int o = horizontal ? x : y;
        const int src_n = horizontal ? from.width : from.height, dst_n = horizontal ? to.width : to.height;
        const math::Taps t = math::taps_for(o, src_n, dst_n, filter);
        Float4 acc{0, 0, 0, 0};
        float sum = 0;
        for (int i = t.first; i <= t.last; ++i) {
          const float w = math::filter_weight(filter, (float(i) + 0.5f - t.centre) * t.inv_width);
          if (w == 0.0f) continue;
          const int k = std::min(std::max(i, 0), src_n - 1);
          const Float4 v = horizontal ? from.row<const Float4>(y)[k] : from.row<const Float4>(k)[x];
          acc = {acc.x + w * v.x, acc.y + w * v.y, acc.z + w * v.z, acc.w + w * v.w};
          sum += w;
        }
        const float inv = sum != 0.0f ? 1.0f / sum : 0.0f;
        to.row<Float4>(y)[x] = {acc.x * inv, acc.y * inv, acc.z * inv, acc.w * inv};
      }
    });
  };
  pass(src, mid_view, true);
  pass(mid_view, dst, false);
}

void encode_cpu(const ImageView& src, const ImageView& dst, const EncodeParams& p) {
  if (dst.type != PixelType::u8 && dst.type != PixelType::u16) throw Error("encode_cpu: output must be u8 or u16");
  const float max_code = dst.type == PixelType::u8 ? 255.0f : 65535.0f;
  for_rows(src.height, [&](int y) {
    const Float4* in = src.row<const Float4>(y);
    for (int x = 0; x < src.width; ++x) {
      float v[4] = {in[x].x, in[x].y, in[x].z, in[x].w};
      math::unpremultiply_for_output(v, dst.channels, p);
      for (int c = 0; c < dst.channels; ++c) {
        const std::uint32_t q = math::quantize(v[c], c == 3, x, y, c, max_code, p);
        const std::size_t i = std::size_t(x) * dst.channels + c;
        if (dst.type == PixelType::u8) dst.row<std::uint8_t>(y)[i] = std::uint8_t(q);
        else dst.row<std::uint16_t>(y)[i] = std::uint16_t(q);
      }
    }
  });
}

}  // namespace gp::tonemap
