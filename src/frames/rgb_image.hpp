#pragma once
// Image inputs (and the background image) as packed 8-bit RGB: JPEG through TurboJPEG, other
// formats through OpenImageIO (scaled to 0..1, rounded; grey repeated, alpha dropped).
#include <cstdint>
#include <string>
#include <vector>

#include "core/views.hpp"

namespace gp::frames {

struct RgbImage {
  std::vector<std::uint8_t> pixels;  // packed RGB
  int width = 0, height = 0;
  ImageView view() { return packed_view(pixels.data(), width, height, 3, PixelType::u8); }
};

// Throws gp::ItemError(path, "decode", why).
RgbImage load_rgb_image(const std::string& path);

// Whether segment-body treats the file as an image (by extension); everything else is a video.
bool is_image_file(const std::string& path);

}  // namespace gp::frames
