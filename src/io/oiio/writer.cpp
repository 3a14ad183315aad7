// 8/16-bit outputs through OpenImageIO: JPEG, WebP, TIFF; float EXR and Radiance .hdr; and tiled MIP-mapped TIFF/EXR that
// OIIO's texture system and maketx read. The caller (io/image_io.cpp) has checked the views.
#include <OpenImageIO/imageio.h>

#include <algorithm>

#include "core/error.hpp"
#include "io/oiio/errors.hpp"
#include "io/oiio/module_parts.hpp"

namespace gp::io::oiio {
namespace {

using OIIO::ImageOutput;
using OIIO::ImageSpec;
using OIIO::TypeDesc;

constexpr int kMipTileSize = 64;

TypeDesc type_of(PixelType t) {
  switch (t) {
    case PixelType::u8: return TypeDesc::UINT8;
    case PixelType::u16: return TypeDesc::UINT16;
    case PixelType::f16: return TypeDesc::HALF;
    case PixelType::f32: return TypeDesc::FLOAT;
  }
  return TypeDesc::UNKNOWN;
}

std::unique_ptr<ImageOutput> create_output(const std::string& path) {
  auto out = ImageOutput::create(path);
  if (!out) throw ItemError(path, "encode", oiio_message(OIIO::geterror(), "no writer for this file extension"));
  return out;
}

// Size, channels and the format's compression settings. Alpha is straight (not premultiplied):
// "oiio:UnassociatedAlpha" stops PNG/TIFF/WebP writers from un-premultiplying it.
ImageSpec output_spec(const ImageView& image, const std::string& format, const WriteOptions& options) {
  ImageSpec spec(image.width, image.height, image.channels, type_of(image.type));
  static const std::vector<std::string> names[4] = {{"Y"}, {"Y", "A"}, {"R", "G", "B"}, {"R", "G", "B", "A"}};
  spec.channelnames = names[image.channels - 1];
  spec.alpha_channel = image.channels % 2 == 0 ? image.channels - 1 : -1;
  const bool floats = image.type == PixelType::f16 || image.type == PixelType::f32;
  // Integer outputs hold straight alpha; float ones (EXR) premultiplied, as EXR's convention is.
  if (spec.alpha_channel >= 0 && !floats) spec.attribute("oiio:UnassociatedAlpha", 1);
  if (format == "jpeg" || format == "webp")
    spec.attribute("Compression", format + ":" + std::to_string(std::clamp(options.quality, 1, 100)));
  if (format == "tiff") spec.attribute("Compression", options.tiff_compression);
  if (format == "openexr") {
    spec.attribute("Compression", options.exr_compression);
    // EXR holds linear light: only float pixels (decoded by the caller) are tagged so.
    if (floats) spec.set_format(options.exr_half ? TypeDesc::HALF : TypeDesc::FLOAT);
    spec.attribute("oiio:ColorSpace", floats ? "Linear" : "sRGB");
  }
  return spec;
}

void write_pixels(ImageOutput& out, const std::string& path, const ImageView& image) {
  const auto pixel_bytes = OIIO::stride_t(image.channels * pixel_type_bytes(image.type));
  if (!out.write_image(type_of(image.type), image.data, pixel_bytes, OIIO::stride_t(image.pitch)))
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
  const bool ok = ImageOutput::create("file" + extension) != nullptr;
  OIIO::geterror();  // a failed create leaves a message for this thread; drop it
  return ok;
}

}  // namespace gp::io::oiio
