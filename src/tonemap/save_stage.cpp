#include "core/outputs.hpp"
#include "core/text.hpp"
#include "core/trace.hpp"
#include "io/png_encoder.hpp"
#include "cuda/tone/tone_math.hpp"
#include "tonemap/stages.hpp"

namespace gp::tonemap {
namespace {

// A tiled MIP EXR holds linear light with premultiplied alpha, as EXR readers assume: the levels'
// display-encoded values decoded, then multiplied by their alpha (itself linear), as floats.
std::vector<ImageView> linear_levels(const std::vector<ImageView>& levels, const tone::EncodeParams& encode,
                                     std::vector<std::vector<float>>& storage) {
  std::vector<ImageView> out;
  storage.resize(levels.size());
  for (std::size_t l = 0; l < levels.size(); ++l) {
    const ImageView& v = levels[l];
    const float scale = v.type == PixelType::u16 ? 1.0f / 65535 : 1.0f / 255;
    std::vector<float>& f = storage[l];
    f.resize(std::size_t(v.width) * v.height * v.channels);
    const bool alpha = v.channels == 2 || v.channels == 4;
    const int colour = alpha ? v.channels - 1 : v.channels;
    for (int y = 0; y < v.height; ++y) {
      const auto* row = static_cast<const unsigned char*>(v.data) + std::size_t(y) * v.pitch;
      auto sample = [&](std::size_t i) {
        return (v.type == PixelType::u16 ? reinterpret_cast<const std::uint16_t*>(row)[i] : row[i]) * scale;
      };
      for (int x = 0; x < v.width; ++x) {
        const std::size_t first = std::size_t(x) * v.channels;
        float* out = f.data() + std::size_t(y) * v.width * v.channels + first;
        const float a = alpha ? sample(first + std::size_t(colour)) : 1.0f;
        for (int c = 0; c < colour; ++c)
          out[c] = tone::math::transfer_decode(sample(first + std::size_t(c)), encode) * a;
        if (alpha) out[colour] = a;
      }
    }
    out.push_back(packed_view(f.data(), v.width, v.height, v.channels, PixelType::f32));
  }
  return out;
}

}  // namespace

void save_stage(TonemapItem& item, const Settings& s) {
  ScopedStage t("encode");
  std::vector<ImageView> tiled_levels;
  for (auto& img : item.images) {
    if (img.role == EncodedImage::Role::mip_level && s.mip_layout == "tiled") {
      tiled_levels.push_back(img.view);
      continue;
    }
    write_atomically(img.path, [&](const std::string& tmp) {
      if (img.fast_png()) {
        const auto* stream = reinterpret_cast<const std::uint8_t*>(item.png_streams.data() + img.png_word_offset);
        io::write_png_stream(tmp, img.view, stream, img.png_bytes);
      } else {
        io::write_image(tmp, img.view, s.write);
      }
    });
    item.written.push_back(img.path);
  }
  if (!tiled_levels.empty()) {
    // The tiled file holds level 0 too.
    tiled_levels.insert(tiled_levels.begin(), item.images.front().view);
    std::vector<std::vector<float>> linear;
    if (lowercase_extension(item.outputs.mip_tiled) == ".exr") tiled_levels = linear_levels(tiled_levels, s.encode, linear);
    write_atomically(item.outputs.mip_tiled,
                     [&](const std::string& tmp) { io::write_mip_image(tmp, tiled_levels, s.write); });
    item.written.push_back(item.outputs.mip_tiled);
  }
  item.pixels.reset();
  item.png_streams = {};
}

}  // namespace gp::tonemap
