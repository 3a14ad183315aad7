#include "stitch/hdr_preview.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "cuda/tone/tone_kernels.hpp"

namespace gp::stitch {
namespace {

constexpr std::size_t scratch_alignment = 256;

std::size_t aligned(std::size_t bytes) { return (bytes + scratch_alignment - 1) / scratch_alignment * scratch_alignment; }

tone::ToneParams tone_params(const HdrOutputConfig& c) {
  tone::ToneParams p;
  p.op = c.preview_operator;
  return p;
}

// tonemap-exr's 8-bit defaults: sRGB with dither (deterministic).
tone::EncodeParams encode_params() {
  tone::EncodeParams p;
  p.transfer = tone::Transfer::srgb;
  p.dither = true;
  return p;
}

void require_views(const ImageView& rgb, const ImageView& preview) {
  if (rgb.type != PixelType::f32 || rgb.channels != 3 || preview.type != PixelType::u8 || preview.channels != 3 ||
      rgb.width != preview.width || rgb.height != preview.height)
    throw Error("stitch-360 preview: expected an f32 RGB output and a u8 RGB preview of its size, got " +
                std::to_string(rgb.width) + "x" + std::to_string(rgb.height) + " and " + std::to_string(preview.width) +
                "x" + std::to_string(preview.height));
}

const tone::ChannelMap rgb_channels{{0, 1, 2, -1}};

}  // namespace

HdrPreviewer::HdrPreviewer(const HdrOutputConfig& config) : config_(config) {}

float HdrPreviewer::exposure_scale() const { return float(std::exp2(config_.preview_ev)); }

void HdrPreviewer::run_cpu(const ImageView& rgb, const ImageView& preview) const {
  require_views(rgb, preview);
  std::vector<float> rgba(std::size_t(rgb.width) * rgb.height * 4);
  const ImageView rgba_view = packed_view(rgba.data(), rgb.width, rgb.height, 4, PixelType::f32);
  tone::to_rgba_f32_cpu(rgb, rgb_channels, rgba_view);
  float scale[2] = {exposure_scale(), 0.0f};
  if (config_.preview_auto_exposure) tone::auto_exposure_cpu(rgba_view, {}, exposure_scale(), scale);
  tone::tonemap_cpu(rgba_view, rgba_view, tone_params(config_), scale);
  tone::encode_cpu(rgba_view, preview, encode_params());
}

std::size_t HdrPreviewer::scratch_bytes(int width, int height) const {
  std::size_t bytes = aligned(std::size_t(width) * height * 4 * sizeof(float));
  if (config_.preview_auto_exposure) bytes += aligned(2 * sizeof(float)) + aligned(tone::auto_exposure_scratch_bytes(width, height));
  return bytes;
}

void HdrPreviewer::run_gpu(const ImageView& rgb, const ImageView& preview, const float* scale, void* scratch,
                           std::size_t bytes, const Stream& stream) const {
  require_views(rgb, preview);
  if (bytes < scratch_bytes(rgb.width, rgb.height)) throw Error("stitch-360 preview: scratch too small");
  auto* next = static_cast<std::uint8_t*>(scratch);
  const ImageView rgba = packed_view(next, rgb.width, rgb.height, 4, PixelType::f32);
  next += aligned(rgba.bytes());
  if (config_.preview_auto_exposure) {
    auto* own_scale = reinterpret_cast<float*>(next);
    next += aligned(2 * sizeof(float));
    tone::to_rgba_f32_gpu(rgb, rgb_channels, rgba, stream.get());
    const std::size_t exposure_bytes = tone::auto_exposure_scratch_bytes(rgb.width, rgb.height);
    tone::auto_exposure_gpu(rgba, {}, exposure_scale(), own_scale, next, exposure_bytes, stream.get());
    scale = own_scale;
  } else {
    tone::to_rgba_f32_gpu(rgb, rgb_channels, rgba, stream.get());
  }
  tone::tonemap_gpu(rgba, rgba, tone_params(config_), scale, stream.get());
  tone::encode_gpu(rgba, preview, encode_params(), stream.get());
}

}  // namespace gp::stitch
