#pragma once
// Test images for the fast PNG path: camera-like content (gradients, edges, grain), flat areas
// whose runs become matches, and 16-bit samples; any size, channel count and row padding.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/views.hpp"

namespace gp::test {

struct PngTestImage {
  std::vector<std::uint8_t> bytes;
  ImageView view;
  // flat_rows: rows from this one down are one colour (runs); noise: grain amplitude in 1/256.
  PngTestImage(int width, int height, int channels, PixelType type, std::size_t padding = 0, int flat_from_row = 1 << 30,
               int noise = 12) {
    view.width = width, view.height = height, view.channels = channels, view.type = type;
    view.pitch = view.row_bytes() + padding;
    bytes.assign(view.pitch * std::size_t(height), 0xCD);
    view.data = bytes.data();
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        for (int c = 0; c < channels; ++c) {
          const unsigned hash = (unsigned(x) * 73856093u) ^ (unsigned(y) * 19349663u) ^ (unsigned(c) * 83492791u);
          double v = 0.25 + 0.5 * double(x + 2 * y) / double(width + 2 * height) + (x > width / 3 ? 0.15 : 0.0) +
                     double(int(hash % 257) - 128) / 128.0 * noise / 256.0;
          if (y >= flat_from_row) v = 0.5;
          if (c == channels - 1 && channels % 2 == 0) v = 1.0;  // opaque alpha
          const double clamped = std::clamp(v, 0.0, 1.0);
          const std::size_t i = std::size_t(x) * channels + c;
          if (type == PixelType::u8) view.row<std::uint8_t>(y)[i] = std::uint8_t(clamped * 255.0 + 0.5);
          else view.row<std::uint16_t>(y)[i] = std::uint16_t(clamped * 65535.0 + 0.5);
        }
  }
};

}  // namespace gp::test
