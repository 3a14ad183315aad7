#include "frames/rgb_image.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/file_bytes.hpp"
#include "io/jpeg_codec.hpp"
#include "io/oiio_module.hpp"

namespace gp::frames {

bool is_image_file(const std::string& path) {
  const std::string ext = lowercase_extension(path);
  for (const char* e : {".jpg", ".jpeg", ".png", ".tif", ".tiff", ".bmp", ".webp", ".exr"})
    if (ext == e) return true;
  return false;
}

RgbImage load_rgb_image(const std::string& path) {
  RgbImage image;
  const std::string ext = lowercase_extension(path);
  if (ext == ".jpg" || ext == ".jpeg") {
    const std::vector<std::uint8_t> bytes = io::read_file_bytes(path);
    const io::JpegInfo info = io::jpeg_info(bytes, path);
    image.width = info.width;
    image.height = info.height;
    image.pixels.resize(std::size_t(info.width) * info.height * 3);
    io::decode_jpeg(bytes.data(), bytes.size(), image.view(), path);
    return image;
  }
  std::unique_ptr<io::FloatImage> file;
  try {
    file = io::oiio_module().open_float_image(path);
  } catch (const std::exception& e) {
    throw ItemError(path, "decode", e.what());
  }
  if (file->channels < 1) throw ItemError(path, "decode", "no channels");
  image.width = file->width;
  image.height = file->height;
  image.pixels.resize(std::size_t(image.width) * image.height * 3);
  const int c = file->channels, grey = c < 3;
  std::vector<float> row;
  for (int y = 0; y < image.height; ++y) {
    try {
      file->read_row(y, row);
    } catch (const std::exception& e) {
      throw ItemError(path, "decode", e.what());
    }
    std::uint8_t* out = image.pixels.data() + std::size_t(y) * image.width * 3;
    for (int x = 0; x < image.width; ++x)
      for (int k = 0; k < 3; ++k) {
        const float v = row[std::size_t(x) * c + (grey ? 0 : k)];
        out[3 * x + k] = std::uint8_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f));
      }
  }
  return image;
}

}  // namespace gp::frames
