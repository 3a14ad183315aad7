// The fast PNG path on the CPU: its zlib stream inflates (libdeflate, which checks the Adler-32)
// to exactly the filtered rows; length codes match RFC 1951; codes stay within 15 bits and are
// complete; runs shrink flat images.
#include <catch2/catch.hpp>
#include <libdeflate.h>

#include <cmath>
#include <vector>

#include "cuda/png/png_kernels.hpp"
#include "cuda/png/png_math.hpp"
#include "io/fast_png.hpp"
#include "png/png_images.hpp"

namespace {

using gp::PixelType;
using gp::test::PngTestImage;

std::vector<std::uint8_t> inflate(const std::vector<std::uint8_t>& stream, std::size_t expected_size) {
  std::vector<std::uint8_t> out(expected_size + 16);
  std::size_t actual = 0;
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  const auto result = libdeflate_zlib_decompress(d, stream.data(), stream.size(), out.data(), out.size(), &actual);
  libdeflate_free_decompressor(d);
  REQUIRE(result == LIBDEFLATE_SUCCESS);
  out.resize(actual);
  return out;
}

}  // namespace

TEST_CASE("fast PNG: deflate length codes are RFC 1951's", "[png]") {
  struct Expected {
    int length, symbol, extra_bits, extra_value;
  };
  for (auto e : {Expected{3, 257, 0, 0}, {10, 264, 0, 0}, {11, 265, 1, 0}, {12, 265, 1, 1}, {18, 268, 1, 1},
                 {19, 269, 2, 0}, {34, 272, 2, 3}, {35, 273, 3, 0}, {130, 280, 4, 15}, {131, 281, 5, 0},
                 {227, 284, 5, 0}, {257, 284, 5, 30}, {258, 285, 0, 0}}) {
    const auto code = gp::png::math::length_code(e.length);
    INFO("length " << e.length);
    CHECK(code.symbol == e.symbol);
    CHECK(code.extra_bits == e.extra_bits);
    CHECK(code.extra_value == e.extra_value);
    CHECK(gp::png::math::symbol_extra_bits(code.symbol) == e.extra_bits);
  }
}

TEST_CASE("fast PNG: the stream inflates to the filtered rows, at every size and depth", "[png]") {
  const PixelType type = GENERATE(PixelType::u8, PixelType::u16);
  const int channels = GENERATE(1, 2, 3, 4);
  // Sizes around segment boundaries (256 filtered bytes), a single pixel and flat tails (runs).
  for (auto [width, height, flat_from] : {std::tuple{1, 1, 99}, std::tuple{1023, 4, 99}, std::tuple{1024, 4, 2},
                                          std::tuple{333, 77, 40}, std::tuple{2000, 3, 0}}) {
    PngTestImage image(width, height, channels, type, 3, flat_from);
    INFO(width << "x" << height << "x" << channels << (type == PixelType::u8 ? " u8" : " u16"));
    std::vector<std::uint8_t> filtered(gp::png::filtered_size(image.view));
    gp::png::filter_rows_cpu(image.view, filtered.data());
    const std::vector<std::uint8_t> stream = gp::io::fast_png_stream_cpu(image.view);
    CHECK(inflate(stream, filtered.size()) == filtered);
  }
}

TEST_CASE("fast PNG: flat images shrink through runs, detailed ones stay near their entropy", "[png]") {
  PngTestImage flat(1024, 256, 4, PixelType::u8, 0, /*flat_from_row=*/0);
  const std::size_t raw = flat.view.row_bytes() * 256;
  CHECK(gp::io::fast_png_stream_cpu(flat.view).size() < raw / 100);
  PngTestImage grainy(1024, 256, 3, PixelType::u8, 0, 1 << 30, /*noise=*/4);
  const std::size_t grainy_raw = grainy.view.row_bytes() * 256;
  CHECK(gp::io::fast_png_stream_cpu(grainy.view).size() < grainy_raw * 6 / 10);
}

TEST_CASE("fast PNG: Huffman codes are complete and at most 15 bits, even for skewed counts", "[png]") {
  std::uint32_t histogram[gp::png::kLitLenSymbols] = {};
  // Fibonacci counts make the deepest possible tree (an unlimited code would need ~30 bits).
  std::uint32_t a = 1, b = 1;
  for (int s = 0; s < 40; ++s) {
    histogram[s] = a;
    const std::uint32_t next = a + b;
    a = b, b = next;
  }
  histogram[gp::png::kEndOfBlock] = 1;
  const gp::io::FastPngPlan plan = gp::io::plan_fast_png(histogram);
  double kraft = 0;
  int longest = 0;
  for (int s = 0; s < gp::png::kLitLenSymbols; ++s) {
    const int l = plan.code.length[s];
    CHECK((l > 0) == (histogram[s] > 0));
    if (l) kraft += std::ldexp(1.0, -l);
    longest = std::max(longest, l);
  }
  CHECK(longest <= 15);
  CHECK(kraft == 1.0);
}
