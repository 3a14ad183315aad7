#pragma once
// The per-byte rules of the fast PNG path, shared by the kernels (nvcc) and the CPU references
// (g++) so both produce the same bytes: row filters, the cost that picks one, run tokens and the
// deflate length codes (RFC 1951, 3.2.5).
#include <cstddef>
#include <cstdint>

#include "cuda/png/png_kernels.hpp"
#include "cuda/common/host_device.hpp"

namespace gp::png::math {

// The fast filters, in the order ties are broken: None, Sub, Up.
constexpr int kFilterCount = 3;

// Byte i of a row in PNG order (16-bit samples big-endian). `row` is the view's row start.
GP_HD std::uint8_t png_byte(const std::uint8_t* row, bool sixteen_bit, std::size_t i) {
  return sixteen_bit ? row[i ^ 1] : row[i];  // little-endian host: swap the two bytes of a sample
}

// Filter `f` (0 None, 1 Sub, 2 Up) of byte i, given this row's byte, its left neighbour (bpp
// bytes back, 0 before the row start) and the byte above (0 on the first row).
GP_HD std::uint8_t filtered_byte(int f, std::uint8_t x, std::uint8_t left, std::uint8_t up) {
  return f == 0 ? x : f == 1 ? std::uint8_t(x - left) : std::uint8_t(x - up);
}

// libpng's heuristic cost of a filtered byte: its value read as signed, absolute.
GP_HD unsigned filter_cost(std::uint8_t v) {
  const int s = int(static_cast<std::int8_t>(v));
  return unsigned(s < 0 ? -s : s);
}

// Deflate's length symbol (257..285) with its extra bits for a match of `length` (3..258).
struct LengthCode {
  int symbol, extra_bits, extra_value;
};
GP_HD LengthCode length_code(int length) {
  if (length == 258) return {285, 0, 0};
  if (length <= 10) return {254 + length, 0, 0};
  int base = 11, symbol = 265, bits = 1;
  while (length >= base + (4 << bits)) {  // four symbols per extra-bit count
    base += 4 << bits;
    symbol += 4;
    ++bits;
  }
  return {symbol + ((length - base) >> bits), bits, (length - base) & ((1 << bits) - 1)};
}

// Extra bits of a literal/length symbol (0 for literals and end-of-block).
GP_HD int symbol_extra_bits(int symbol) {
  if (symbol < 265 || symbol == 285) return 0;
  return (symbol - 261) / 4;
}

// Tokenises the n bytes of a segment: runs of at least kMinRun copies of the byte before them
// become a match at distance 1, everything else a literal. `previous` is the byte before the
// segment (-1 at the stream's start). Calls literal(byte) and match(length).
template <class Literal, class Match>
GP_HD void tokenize(const std::uint8_t* segment, std::size_t n, int previous, Literal&& literal, Match&& match) {
  std::size_t i = 0;
  while (i < n) {
    if (previous >= 0) {
      const std::size_t limit = n - i < std::size_t(kMaxRun) ? n - i : std::size_t(kMaxRun);
      std::size_t run = 0;
      while (run < limit && segment[i + run] == previous) ++run;
      if (run >= std::size_t(kMinRun)) {
        match(int(run));
        i += run;
        continue;
      }
      for (std::size_t k = 0; k < run; ++k) literal(std::uint8_t(previous));
      i += run;
      if (i >= n) break;
    }
    literal(segment[i]);  // differs from the byte before it (or is the stream's first)
    previous = segment[i++];
  }
}

}  // namespace gp::png::math
