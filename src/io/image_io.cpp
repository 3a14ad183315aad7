#include "io/image_io.hpp"

#include <OpenImageIO/imageio.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "core/error.hpp"
#include "io/image_source.hpp"
#include "io/oiio_errors.hpp"
#include "io/png_encoder.hpp"

namespace gp::io {
namespace {

using OIIO::ImageOutput;
using OIIO::ImageSpec;
using OIIO::TypeDesc;

constexpr int kMipTileSize = 64;

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

}  // namespace

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

// ---- writing ---------------------------------------------------------------------------------

namespace {

void check_view(const std::string& path, const ImageView& image) {
  if (image.type != PixelType::u8 && image.type != PixelType::u16)
    throw ItemError(path, "encode", "outputs are 8- or 16-bit");
  if (image.channels < 1 || image.channels > 4 || image.width < 1 || image.height < 1 || !image.data ||
      image.pitch < image.row_bytes())
    throw ItemError(path, "encode", "invalid image (" + std::to_string(image.width) + "x" +
                                        std::to_string(image.height) + "x" + std::to_string(image.channels) + ")");
}

TypeDesc integer_type(PixelType t) { return t == PixelType::u8 ? TypeDesc::UINT8 : TypeDesc::UINT16; }

std::unique_ptr<ImageOutput> create_output(const std::string& path) {
  auto out = ImageOutput::create(path);
  if (!out) throw ItemError(path, "encode", oiio_message(OIIO::geterror(), "no writer for this file extension"));
  return out;
}

// Size, channels and the format's compression settings. Alpha is straight (not premultiplied):
// "oiio:UnassociatedAlpha" stops PNG/TIFF/WebP writers from un-premultiplying it.
ImageSpec output_spec(const ImageView& image, const std::string& format, const WriteOptions& options) {
  ImageSpec spec(image.width, image.height, image.channels, integer_type(image.type));
  static const std::vector<std::string> names[4] = {{"Y"}, {"Y", "A"}, {"R", "G", "B"}, {"R", "G", "B", "A"}};
  spec.channelnames = names[image.channels - 1];
  spec.alpha_channel = image.channels % 2 == 0 ? image.channels - 1 : -1;
  if (spec.alpha_channel >= 0) spec.attribute("oiio:UnassociatedAlpha", 1);
  if (format == "jpeg" || format == "webp")
    spec.attribute("Compression", format + ":" + std::to_string(std::clamp(options.quality, 1, 100)));
  if (format == "tiff") spec.attribute("Compression", options.tiff_compression);
  if (format == "openexr") spec.attribute("Compression", "zip");
  return spec;
}

void write_pixels(ImageOutput& out, const std::string& path, const ImageView& image) {
  const auto pixel_bytes = OIIO::stride_t(image.channels * pixel_type_bytes(image.type));
  if (!out.write_image(integer_type(image.type), image.data, pixel_bytes, OIIO::stride_t(image.pitch)))
    throw ItemError(path, "encode", oiio_message(out.geterror(), "writing the pixels failed"));
}

void close_output(ImageOutput& out, const std::string& path) {
  if (!out.close()) throw ItemError(path, "encode", oiio_message(out.geterror(), "closing the file failed"));
}

// Grey (+alpha) as RGB(A), for writers without grey images (WebP).
std::vector<unsigned char> grey_to_rgb(const ImageView& grey, ImageView& rgb) {
  const int channels = grey.channels + 2;
  const std::size_t value_bytes = pixel_type_bytes(grey.type);
  std::vector<unsigned char> pixels(std::size_t(grey.width) * grey.height * channels * value_bytes);
  rgb = packed_view(pixels.data(), grey.width, grey.height, channels, grey.type);
  for (int y = 0; y < grey.height; ++y)
    for (int x = 0; x < grey.width; ++x) {
      const unsigned char* src = grey.row<unsigned char>(y) + std::size_t(x) * grey.channels * value_bytes;
      unsigned char* dst = rgb.row<unsigned char>(y) + std::size_t(x) * channels * value_bytes;
      for (int c = 0; c < channels; ++c)
        std::copy_n(src + (c < 3 ? 0 : value_bytes), value_bytes, dst + c * value_bytes);
    }
  return pixels;
}

}  // namespace

void write_image(const std::string& path, const ImageView& image, const WriteOptions& options) {
  check_view(path, image);
  if (path.size() > 4 && lowercase(path.substr(path.size() - 4)) == ".png") {
    write_png(path, image, options.png_compression);  // several times faster than OIIO's libpng writer
    return;
  }
  auto out = create_output(path);
  const std::string format = out->format_name();
  ImageView source = image;
  std::vector<unsigned char> expanded;
  if (format == "webp" && image.channels < 3) expanded = grey_to_rgb(image, source);
  if (!out->open(path, output_spec(source, format, options)))
    throw ItemError(path, "encode", oiio_message(out->geterror(), "cannot create the file"));
  write_pixels(*out, path, source);
  close_output(*out, path);
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
  auto out = create_output(path);
  const std::string format = out->format_name();
  // TIFF has no MIP levels of its own: like maketx, write them as subimages (reduced-resolution
  // directories), which OIIO reads back as MIP levels because of "textureformat".
  const bool native_mip = out->supports("mipmap");
  if (!out->supports("tiles") || (!native_mip && !out->supports("multiimage")))
    throw ItemError(path, "encode", "the " + format + " writer cannot write tiled MIP-mapped files");
  const auto append_mode = native_mip ? ImageOutput::AppendMIPLevel : ImageOutput::AppendSubimage;
  // OpenEXR's MIPMAP_LEVELS mode (ROUND_DOWN) expects every level down to 1x1.
  const ImageView& last = levels.back();
  if (format == "openexr" && (last.width != 1 || last.height != 1) && levels.size() > 1)
    throw ItemError(path, "encode", "a MIP-mapped EXR needs every level down to 1x1");

  for (std::size_t l = 0; l < levels.size(); ++l) {
    ImageSpec spec = output_spec(levels[l], format, options);
    spec.tile_width = spec.tile_height = kMipTileSize;
    // What maketx writes: the texture system and the EXR writer (MIP mode) key on it.
    spec.attribute("textureformat", "Plain Texture");
    if (format == "openexr") spec.attribute("openexr:roundingmode", 0 /* ROUND_DOWN */);
    if (!out->open(path, spec, l == 0 ? ImageOutput::Create : append_mode))
      throw ItemError(path, "encode", oiio_message(out->geterror(), "cannot add a MIP level"));
    write_pixels(*out, path, levels[l]);
  }
  close_output(*out, path);
}

bool can_write_extension(const std::string& extension) {
  std::string ext = lowercase(extension);
  if (!ext.empty() && ext[0] != '.') ext.insert(0, ".");
  const bool ok = ImageOutput::create("file" + ext) != nullptr;
  OIIO::geterror();  // a failed create leaves a message for this thread; drop it
  return ok;
}

std::string oiio_version() { return OIIO::get_string_attribute("version"); }

std::string oiio_formats() { return OIIO::get_string_attribute("format_list"); }

}  // namespace gp::io
