#pragma once
// The host half of the fast PNG path (cuda/png/png_kernels.hpp): the Huffman code and deflate
// block header made from the token histogram, and the completion of the zlib stream once the
// GPU (or the CPU reference) has written its body.
#include <cstdint>
#include <vector>

#include "core/views.hpp"
#include "cuda/png/png_kernels.hpp"

namespace gp::io {

struct FastPngPlan {
  png::LitLenCode code{};
  std::vector<std::uint32_t> header;  // zlib header and block header, little-endian bit stream
  std::uint64_t header_bits = 0;      // where the body starts
  std::uint64_t body_bits = 0;        // what the histogram says the body takes
  std::size_t word_count = 0;         // room for header, body, end of block, padding and Adler-32
};

// Code lengths (at most 15 bits, canonical codes) from the token counts of encode step 2.
FastPngPlan plan_fast_png(const std::uint32_t* histogram);

// Completes the stream in `words` whose body the encoder wrote from plan.header_bits to end_bit:
// ORs the header in, appends end of block, pads to a byte and appends the Adler-32 of the
// filtered bytes (folded from the per-segment partials). Returns the stream's size in bytes.
// Throws gp::Error when end_bit is not what the plan predicted (a broken encoder).
std::size_t finish_fast_png(const FastPngPlan& plan, std::uint32_t* words, std::uint64_t end_bit,
                            const png::AdlerPartial* partials, std::size_t filtered_bytes);

// The whole fast path on the CPU (the references of each kernel): image -> zlib stream bytes.
std::vector<std::uint8_t> fast_png_stream_cpu(const ImageView& image);

}  // namespace gp::io
