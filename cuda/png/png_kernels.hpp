#pragma once
// The fast PNG path (compression level 1) on the GPU, with a CPU reference for each step that
// produces the same bytes. The image's rows are filtered (None, Sub or Up per row, by libpng's
// minimum-sum heuristic) and entropy coded as one dynamic-Huffman deflate block whose only
// matches are runs at distance 1. The filtered bytes are cut into fixed segments, each tokenised
// by one thread, so the work spreads over the GPU and the bit stream is deterministic:
//
//   filter_rows -> token_histogram (+ Adler-32 partial sums)
//     -> [host: Huffman code from the histogram, block header]
//     -> encode_segments (bit count per segment, exclusive scan, bits written at their offsets)
//     -> [host: header bits, end of block, Adler-32, PNG chunks]
//
// No LZ77 search: files are larger than zlib level 1 on detailed images, much smaller on flat
// ones, and no CPU time is spent compressing. nvcc-safe: no host libraries here.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "core/views.hpp"

namespace gp::png {

constexpr std::size_t kSegmentBytes = 256;   // filtered bytes per tokenising thread
constexpr int kLitLenSymbols = 286;          // literals, end of block (256), lengths 257..285
constexpr int kEndOfBlock = 256;
constexpr int kMinRun = 6;                   // shorter runs stay literals (a match costs more)
constexpr int kMaxRun = 258;                 // deflate's longest match

// Bytes of the filtered image: each row is a filter-type byte and the filtered row bytes.
GP_VIEW_HD inline std::size_t filtered_size(const ImageView& image) { return (image.row_bytes() + 1) * std::size_t(image.height); }
GP_VIEW_HD inline std::size_t segment_count(std::size_t filtered_bytes) { return (filtered_bytes + kSegmentBytes - 1) / kSegmentBytes; }

// Adler-32 ingredients of one segment of n bytes b[0..n): sum = sum b[i], weighted = sum (n - i) b[i].
// Both fit 32 bits for a segment of kSegmentBytes; the host folds them into the stream's Adler-32.
struct AdlerPartial {
  std::uint32_t sum, weighted;
};

// A literal/length code: per symbol the code bits, bit-reversed because deflate writes Huffman
// codes from their first bit into the least significant free bit; length 0 = symbol unused.
// Distance codes are fixed: two codes of one bit, of which only "0" (distance 1) is used.
struct LitLenCode {
  std::uint16_t bits[kLitLenSymbols];
  std::uint8_t length[kLitLenSymbols];
};

// 8/16-bit, 1-4 channel image -> filtered bytes (filtered_size(image) of them).
void filter_rows_gpu(const ImageView& image, std::uint8_t* filtered, cudaStream_t stream);
void filter_rows_cpu(const ImageView& image, std::uint8_t* filtered);

// Token counts (kLitLenSymbols counters, end of block included once) and one AdlerPartial per segment.
void token_histogram_gpu(const std::uint8_t* filtered, std::size_t n, std::uint32_t* histogram,
                         AdlerPartial* partials, cudaStream_t stream);
void token_histogram_cpu(const std::uint8_t* filtered, std::size_t n, std::uint32_t* histogram, AdlerPartial* partials);

// Writes the tokens' codes (without end of block) into `words` as a little-endian bit stream
// starting at bit `first_bit`; every other bit of the word_count words is zeroed. *end_bit
// receives the bit after the last one written (device memory for the GPU launcher).
std::size_t encode_scratch_bytes(std::size_t n);
void encode_segments_gpu(const std::uint8_t* filtered, std::size_t n, const LitLenCode& code, std::uint64_t first_bit,
                         std::uint32_t* words, std::size_t word_count, std::uint64_t* end_bit, void* scratch,
                         std::size_t scratch_bytes, cudaStream_t stream);
void encode_segments_cpu(const std::uint8_t* filtered, std::size_t n, const LitLenCode& code, std::uint64_t first_bit,
                         std::uint32_t* words, std::size_t word_count, std::uint64_t* end_bit);

}  // namespace gp::png
