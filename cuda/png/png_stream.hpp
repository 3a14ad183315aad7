#pragma once
// Per-segment pieces of the deflate body shared by the kernels and the CPU references: the
// Adler-32 partial sums, the bit count of a segment's tokens and the writing of their codes.
#include <cstddef>
#include <cstdint>

#include "cuda/png/png_kernels.hpp"
#include "cuda/png/png_math.hpp"
#include "cuda/common/host_device.hpp"

namespace gp::png::stream {

GP_HD AdlerPartial adler_partial(const std::uint8_t* bytes, std::size_t n) {
  std::uint32_t sum = 0, weighted = 0;  // n <= kSegmentBytes: at most n * 255 and n * (n + 1) / 2 * 255
  for (std::size_t i = 0; i < n; ++i) {
    sum += bytes[i];
    weighted += std::uint32_t(n - i) * bytes[i];
  }
  return {sum, weighted};
}

// A match costs its length symbol, the length's extra bits and the one-bit distance code.
// segment: its n bytes; previous: the byte before it, -1 at the stream's start.
GP_HD std::uint64_t segment_bit_count(const std::uint8_t* segment, std::size_t n, int previous, const LitLenCode& code) {
  std::uint64_t bits = 0;
  math::tokenize(
      segment, n, previous, [&](std::uint8_t literal) { bits += code.length[literal]; },
      [&](int length) {
        const math::LengthCode l = math::length_code(length);
        bits += std::uint64_t(code.length[l.symbol]) + std::uint64_t(l.extra_bits) + 1;
      });
  return bits;
}

// Writer: put(value, count) appends `count` bits of value, least significant first.
template <class Writer>
GP_HD void write_tokens(const std::uint8_t* segment, std::size_t n, int previous, const LitLenCode& code, Writer& out) {
  math::tokenize(
      segment, n, previous, [&](std::uint8_t literal) { out.put(code.bits[literal], code.length[literal]); },
      [&](int length) {
        const math::LengthCode l = math::length_code(length);
        out.put(code.bits[l.symbol], code.length[l.symbol]);
        if (l.extra_bits) out.put(std::uint32_t(l.extra_value), l.extra_bits);
        out.put(0, 1);  // distance code 0: distance 1
      });
}

}  // namespace gp::png::stream
