// gp::io PNG encoder: every sample depth and channel count read back exactly by OpenImageIO's
// libpng reader, padded pitches, the filter choice, compression levels and errors.
#include <catch2/catch.hpp>

#include <OpenImageIO/imageio.h>
#include <libdeflate.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

#include "core/error.hpp"
#include "io/png_encoder.hpp"
#include "support/test_data.hpp"

namespace {

using gp::ImageView;
using gp::PixelType;

// Camera-like content: gradients, a hard edge and deterministic grain, in the full sample range.
std::uint16_t sample_value(int x, int y, int c, int width, int height) {
  const double gradient = (double(x) / std::max(1, width - 1) + double(y) / std::max(1, height - 1)) / 2;
  const unsigned hash = unsigned(x) * 73856093u ^ unsigned(y) * 19349663u ^ unsigned(c) * 83492791u;
  const double grain = double(hash % 97) / 97.0 * 0.06;
  const double edge = x > width / 2 ? 0.3 : 0.0;
  const double v = std::min(1.0, gradient * 0.6 + grain + edge + 0.02 * c);
  return std::uint16_t(v * 65535.0);
}

// An image with `padding` spare bytes after every row.
struct TestImage {
  std::vector<std::uint8_t> bytes;
  ImageView view;
  TestImage(int width, int height, int channels, PixelType type, std::size_t padding = 0) {
    view.width = width, view.height = height, view.channels = channels, view.type = type;
    view.pitch = view.row_bytes() + padding;
    bytes.assign(view.pitch * std::size_t(height), 0xAB);
    view.data = bytes.data();
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        for (int c = 0; c < channels; ++c) {
          const std::uint16_t v = sample_value(x, y, c, width, height);
          const std::size_t i = std::size_t(x) * channels + c;
          if (type == PixelType::u8) view.row<std::uint8_t>(y)[i] = std::uint8_t(v >> 8);
          else view.row<std::uint16_t>(y)[i] = v;
        }
  }
};

// Reads a PNG with OIIO and checks every sample against `expected`.
void require_reads_back(const std::string& path, const ImageView& expected) {
  OIIO::ImageSpec config;
  config.attribute("oiio:UnassociatedAlpha", 1);  // the stored values, not premultiplied ones
  auto in = OIIO::ImageInput::open(path, &config);
  REQUIRE(in);
  const OIIO::ImageSpec& spec = in->spec();
  REQUIRE(spec.width == expected.width);
  REQUIRE(spec.height == expected.height);
  REQUIRE(spec.nchannels == expected.channels);
  const bool eight = expected.type == PixelType::u8;
  REQUIRE(spec.format == (eight ? OIIO::TypeDesc::UINT8 : OIIO::TypeDesc::UINT16));
  std::vector<std::uint8_t> pixels(expected.row_bytes() * std::size_t(expected.height));
  REQUIRE(in->read_image(0, 0, 0, expected.channels, spec.format, pixels.data()));
  std::size_t mismatches = 0;
  for (int y = 0; y < expected.height; ++y)
    if (std::memcmp(pixels.data() + expected.row_bytes() * std::size_t(y), expected.row<std::uint8_t>(y),
                    expected.row_bytes()) != 0)
      ++mismatches;
  REQUIRE(mismatches == 0);
}

// The filter type of every row, by inflating the IDAT data of an encoded PNG.
std::multiset<int> row_filters(const std::vector<std::uint8_t>& png, const ImageView& image) {
  std::vector<std::uint8_t> zlib;
  for (std::size_t at = 8; at + 12 <= png.size();) {
    const std::uint32_t length = std::uint32_t(png[at]) << 24 | std::uint32_t(png[at + 1]) << 16 |
                                 std::uint32_t(png[at + 2]) << 8 | png[at + 3];
    if (std::memcmp(&png[at + 4], "IDAT", 4) == 0) zlib.insert(zlib.end(), &png[at + 8], &png[at + 8] + length);
    at += 12 + length;
  }
  const std::size_t stride = image.row_bytes() + 1;
  std::vector<std::uint8_t> raw(stride * std::size_t(image.height));
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  const auto result = libdeflate_zlib_decompress(d, zlib.data(), zlib.size(), raw.data(), raw.size(), nullptr);
  libdeflate_free_decompressor(d);
  REQUIRE(result == LIBDEFLATE_SUCCESS);
  std::multiset<int> filters;
  for (int y = 0; y < image.height; ++y) filters.insert(raw[stride * std::size_t(y)]);
  return filters;
}

}  // namespace

TEST_CASE("PNG encoder: 8/16-bit, 1-4 channels, odd sizes and padded rows read back exactly", "[io][png]") {
  const auto dir = gp::test::scratch_dir("png");
  const PixelType type = GENERATE(PixelType::u8, PixelType::u16);
  const int channels = GENERATE(1, 2, 3, 4);
  const int level = GENERATE(0, 1, 6, 9);
  for (auto [width, height] : {std::pair{1, 1}, std::pair{37, 19}, std::pair{130, 3}}) {
    TestImage image(width, height, channels, type, /*padding=*/5);
    const std::string path = (dir / "out.png").string();
    gp::io::write_png(path, image.view, level);
    INFO(width << "x" << height << "x" << channels << (type == PixelType::u8 ? " u8" : " u16") << " level " << level);
    require_reads_back(path, image.view);
  }
}

TEST_CASE("PNG encoder: fast levels try None/Sub/Up, higher levels every filter", "[io][png]") {
  TestImage image(256, 96, 4, PixelType::u8);
  const auto fast = row_filters(gp::io::encode_png(image.view, 1), image.view);
  for (int f : fast) CHECK(f <= 2);
  const auto thorough = row_filters(gp::io::encode_png(image.view, 6), image.view);
  // Gradients with grain: the heuristic picks more than one filter across the rows.
  CHECK(std::set<int>(thorough.begin(), thorough.end()).size() > 1);
  const auto stored = row_filters(gp::io::encode_png(image.view, 0), image.view);
  CHECK(stored.count(0) == stored.size());
}

TEST_CASE("PNG encoder: higher levels compress smaller, level 0 stores", "[io][png]") {
  TestImage image(320, 200, 3, PixelType::u8);
  const std::size_t raw = image.view.row_bytes() * std::size_t(image.view.height);
  const auto stored = gp::io::encode_png(image.view, 0).size();
  const auto fast = gp::io::encode_png(image.view, 1).size();
  const auto best = gp::io::encode_png(image.view, 9).size();
  CHECK(stored > raw);
  CHECK(fast < raw * 3 / 4);
  CHECK(best <= fast);
}

TEST_CASE("PNG encoder: unusable views and unwritable paths are errors naming the file", "[io][png]") {
  TestImage image(8, 8, 4, PixelType::u8);
  ImageView wrong = image.view;
  wrong.type = PixelType::f32;
  CHECK_THROWS_AS(gp::io::encode_png(wrong, 1), gp::Error);
  wrong = image.view;
  wrong.pitch = 3;
  CHECK_THROWS_AS(gp::io::encode_png(wrong, 1), gp::Error);
  try {
    gp::io::write_png("/nonexistent-folder/x.png", image.view, 1);
    FAIL("expected an error");
  } catch (const gp::ItemError& e) {
    CHECK(e.stage() == "encode");
    CHECK(std::string(e.what()).find("/nonexistent-folder/x.png") != std::string::npos);
  }
}
