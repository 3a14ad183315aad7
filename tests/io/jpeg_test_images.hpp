#pragma once
// Host images for the JPEG codec tests: camera-like content and comparisons.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/views.hpp"

namespace gp::test {

// Smooth shading, a few sharp edges with colour, fine texture and a little deterministic grain.
// `variant` shifts the pattern, for batches of different images. Row padding bytes are 0xAB.
struct TestImage {
  std::vector<std::uint8_t> bytes;
  ImageView view;
  TestImage(int width, int height, int channels, std::size_t padding = 0, int variant = 0) {
    view = packed_view(nullptr, width, height, channels, PixelType::u8);
    view.pitch += padding;
    bytes.assign(view.pitch * std::size_t(height), 0xAB);
    view.data = bytes.data();
    const int shift = 37 * variant;
    for (int y = 0; y < height; ++y)
      for (int x0 = 0; x0 < width; ++x0)
        for (int c = 0; c < channels; ++c) {
          const int x = x0 + shift;
          const double shade = 90 + 60 * std::sin(x * 0.021 + c) * std::cos(y * 0.017 - 0.5 * c);
          const double texture = 25 * std::sin(x * 0.31 + y * 0.23 + 1.7 * c);
          const double edge = ((x / 64 + y / 48) % 3 == 0) ? 40.0 * (c + 1) / 3 : 0.0;
          const unsigned hash = unsigned(x) * 73856093u ^ unsigned(y) * 19349663u ^ unsigned(c) * 83492791u;
          const double grain = double(hash % 9) - 4.0;
          view.row<std::uint8_t>(y)[std::size_t(x0) * channels + c] =
              std::uint8_t(std::lround(std::min(255.0, std::max(0.0, shade + texture + edge + grain))));
        }
  }
};

// An image filled with `fill`, with `padding` bytes after each row.
struct Canvas {
  std::vector<std::uint8_t> bytes;
  ImageView view;
  Canvas(int width, int height, int channels, std::size_t padding = 0, std::uint8_t fill = 0x5A) {
    view = packed_view(nullptr, width, height, channels, PixelType::u8);
    view.pitch += padding;
    bytes.assign(view.pitch * std::size_t(height), fill);
    view.data = bytes.data();
  }
};

inline double psnr(const ImageView& a, const ImageView& b) {
  REQUIRE(a.width == b.width);
  REQUIRE(a.height == b.height);
  REQUIRE(a.channels == b.channels);
  double squared = 0;
  for (int y = 0; y < a.height; ++y)
    for (std::size_t i = 0; i < a.row_bytes(); ++i) {
      const double d = double(a.row<std::uint8_t>(y)[i]) - double(b.row<std::uint8_t>(y)[i]);
      squared += d * d;
    }
  const double mse = squared / (double(a.row_bytes()) * a.height);
  return mse == 0 ? 99.0 : 10 * std::log10(255.0 * 255.0 / mse);
}

// How far two u8 images are apart: the largest difference, the mean, and the difference that
// all but 0.1% of the samples stay within.
struct Difference {
  int max = 0;
  double mean = 0;
  int p999 = 0;
};

inline Difference difference(const ImageView& a, const ImageView& b) {
  REQUIRE(a.width == b.width);
  REQUIRE(a.height == b.height);
  REQUIRE(a.channels == b.channels);
  std::vector<std::size_t> histogram(256, 0);
  double sum = 0;
  for (int y = 0; y < a.height; ++y)
    for (std::size_t i = 0; i < a.row_bytes(); ++i) {
      const int d = std::abs(int(a.row<std::uint8_t>(y)[i]) - int(b.row<std::uint8_t>(y)[i]));
      ++histogram[std::size_t(d)];
      sum += d;
    }
  const std::size_t count = a.row_bytes() * std::size_t(a.height);
  Difference result;
  result.mean = sum / double(count);
  std::size_t below = 0;
  bool p999_found = false;
  for (int d = 0; d < 256; ++d) {
    below += histogram[std::size_t(d)];
    if (histogram[std::size_t(d)]) result.max = d;
    if (!p999_found && double(below) >= 0.999 * double(count)) {
      result.p999 = d;
      p999_found = true;
    }
  }
  return result;
}

// Padding bytes after each row still hold `fill`.
inline bool padding_untouched(const Canvas& canvas, std::uint8_t fill) {
  for (int y = 0; y < canvas.view.height; ++y)
    for (std::size_t i = canvas.view.row_bytes(); i < canvas.view.pitch; ++i)
      if (canvas.view.row<std::uint8_t>(y)[i] != fill) return false;
  return true;
}

}  // namespace gp::test
