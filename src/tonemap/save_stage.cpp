#include "core/outputs.hpp"
#include "core/trace.hpp"
#include "io/png_encoder.hpp"
#include "tonemap/stages.hpp"

namespace gp::tonemap {

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
    write_atomically(item.outputs.mip_tiled,
                     [&](const std::string& tmp) { io::write_mip_image(tmp, tiled_levels, s.write); });
    item.written.push_back(item.outputs.mip_tiled);
  }
  item.pixels.reset();
  item.png_streams = {};
}

}  // namespace gp::tonemap
