#include "io/image_io.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/exr_blocks.hpp"
#include "io/image_source.hpp"
#include "io/oiio_module.hpp"
#include "io/png_encoder.hpp"

namespace gp::io {

// ---- reading ---------------------------------------------------------------------------------

HdrReader::HdrReader(const std::string& path) : path_(path), source_(open_exr_source(path)) {
  if (!source_) source_ = open_oiio_source(path);
}

HdrReader::~HdrReader() = default;

std::string HdrReader::format_name() const { return source_->format_name(); }

ReadPlan HdrReader::plan(const ChannelSelection& selection) const {
  const auto& parts = source_->parts();
  return make_read_plan(path_, parts, select_channels(path_, parts, selection), source_->reads_channel_ranges());
}

void HdrReader::read(const ReadPlan& plan, void* dst, std::size_t pitch, int threads) {
  if (plan.type != PixelType::f16 && plan.type != PixelType::f32)
    throw ItemError(path_, "decode", "reads produce half or float pixels");
  const auto& parts = source_->parts();
  bool fits = plan.subimage >= 0 && plan.subimage < int(parts.size()) && !plan.channels.empty() && pitch >= plan.row_bytes();
  for (int c : plan.channels) fits = fits && c >= 0 && c < int(parts[std::size_t(plan.subimage)].channels.size());
  if (!fits) throw ItemError(path_, "decode", "the read plan does not fit this file");
  source_->read(plan, dst, pitch, threads);
}

std::optional<ExrBlocks> HdrReader::exr_blocks(const ReadPlan& plan) const { return io::exr_blocks(*source_, plan); }

// ---- writing ---------------------------------------------------------------------------------

namespace {

// Outputs are 8- or 16-bit, and float for EXR and Radiance .hdr (linear light).
void check_view(const std::string& path, const ImageView& image) {
  const std::string ext = lowercase_extension(path);
  const bool exr = ext == ".exr", hdr = ext == ".hdr";
  if (hdr && (image.type != PixelType::f32 || image.channels != 3))
    throw ItemError(path, "encode", "Radiance .hdr outputs are float RGB (3 channels)");
  if (image.type != PixelType::u8 && image.type != PixelType::u16 && !((exr || hdr) && image.type == PixelType::f32))
    throw ItemError(path, "encode", exr ? "EXR outputs are 8-, 16-bit or float" : "outputs are 8- or 16-bit");
  if (image.channels < 1 || image.channels > 4 || image.width < 1 || image.height < 1 || !image.data ||
      image.pitch < image.row_bytes())
    throw ItemError(path, "encode", "invalid image (" + std::to_string(image.width) + "x" +
                                        std::to_string(image.height) + "x" + std::to_string(image.channels) + ")");
}

bool is_png(const std::string& path) { return path.size() > 4 && lowercase(path.substr(path.size() - 4)) == ".png"; }

}  // namespace

void write_image(const std::string& path, const ImageView& image, const WriteOptions& options) {
  check_view(path, image);
  if (is_png(path)) {
    write_png(path, image, options.png_compression);  // several times faster than OIIO's libpng writer
    return;
  }
  oiio_module().write_image(path, image, options);
}

void write_mip_image(const std::string& path, const std::vector<ImageView>& levels, const WriteOptions& options) {
  if (levels.empty()) throw ItemError(path, "encode", "no MIP levels to write");
  for (std::size_t l = 0; l < levels.size(); ++l) {
    check_view(path, levels[l]);
    if (levels[l].channels != levels[0].channels || levels[l].type != levels[0].type)
      throw ItemError(path, "encode", "MIP levels differ in channels or type");
    if (l > 0 && (levels[l].width != std::max(1, levels[l - 1].width / 2) ||
                  levels[l].height != std::max(1, levels[l - 1].height / 2)))
      throw ItemError(path, "encode", "MIP level " + std::to_string(l) + " is not half the size of the previous one");
  }
  oiio_module().write_mip_image(path, levels, options);
}

bool can_write_extension(const std::string& extension) {
  std::string ext = lowercase(extension);
  if (!ext.empty() && ext[0] != '.') ext.insert(0, ".");
  return ext == ".png" || oiio_module().can_write_extension(ext);
}

std::string oiio_version() { return oiio_module().version(); }

std::string oiio_formats() { return oiio_module().formats(); }

}  // namespace gp::io
