// CPU references of token_histogram_gpu and encode_segments_gpu: the same segments, tokens and
// bits, segments spread over threads.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "core/parallel_for.hpp"
#include "cuda/png/png_checks.hpp"
#include "cuda/png/png_math.hpp"
#include "cuda/png/png_stream.hpp"

namespace gp::png {
namespace {

// Like the kernel's writer: words fully inside the segment are stored, the shared first and last
// words ORed atomically (neighbouring segments run on other threads).
struct WordWriter {
  std::uint32_t* words;
  std::size_t word;
  std::uint64_t acc = 0;
  int pending;
  bool first = true;
  WordWriter(std::uint32_t* w, std::uint64_t bit) : words(w), word(bit / 32), pending(int(bit % 32)) {}
  void put(std::uint32_t value, int count) {
    acc |= std::uint64_t(value) << pending;
    pending += count;
    while (pending >= 32) {
      if (first) __atomic_fetch_or(&words[word], std::uint32_t(acc), __ATOMIC_RELAXED);
      else words[word] = std::uint32_t(acc);
      first = false;
      ++word;
      acc >>= 32;
      pending -= 32;
    }
  }
  void finish() {
    if (pending > 0 && acc) __atomic_fetch_or(&words[word], std::uint32_t(acc), __ATOMIC_RELAXED);
  }
};

}  // namespace

void token_histogram_cpu(const std::uint8_t* filtered, std::size_t n, std::uint32_t* histogram, AdlerPartial* partials) {
  checks::check_stream(filtered, n, "token_histogram_cpu");
  const long segments = long(segment_count(n));
  std::vector<std::atomic<std::uint32_t>> shared(kLitLenSymbols);
  parallel_for(segments, [&](long first, long last) {
    std::uint32_t local[kLitLenSymbols] = {};
    for (long s = first; s < last; ++s) {
      const std::size_t begin = std::size_t(s) * kSegmentBytes, end = std::min(n, begin + kSegmentBytes);
      math::tokenize(
          filtered + begin, end - begin, begin ? filtered[begin - 1] : -1, [&](std::uint8_t literal) { ++local[literal]; },
          [&](int length) { ++local[math::length_code(length).symbol]; });
      partials[s] = stream::adler_partial(filtered + begin, end - begin);
    }
    for (int i = 0; i < kLitLenSymbols; ++i) shared[i] += local[i];
  }, 64);
  for (int i = 0; i < kLitLenSymbols; ++i) histogram[i] = shared[i];
  histogram[kEndOfBlock] += 1;
}

void encode_segments_cpu(const std::uint8_t* filtered, std::size_t n, const LitLenCode& code, std::uint64_t first_bit,
                         std::uint32_t* words, std::size_t word_count, std::uint64_t* end_bit) {
  checks::check_stream(filtered, n, "encode_segments_cpu");
  const std::size_t segments = segment_count(n);
  std::vector<std::uint64_t> offsets(segments + 1, 0);
  parallel_for(long(segments), [&](long first, long last) {
    for (long s = first; s < last; ++s) {
      const std::size_t begin = std::size_t(s) * kSegmentBytes, end = std::min(n, begin + kSegmentBytes);
      offsets[std::size_t(s) + 1] =
          stream::segment_bit_count(filtered + begin, end - begin, begin ? filtered[begin - 1] : -1, code);
    }
  }, 64);
  for (std::size_t s = 0; s < segments; ++s) offsets[s + 1] += offsets[s];
  checks::require((first_bit + offsets[segments] + 31) / 32 <= word_count, "encode_segments_cpu", "word buffer too small");
  std::memset(words, 0, word_count * sizeof(std::uint32_t));
  parallel_for(long(segments), [&](long first, long last) {
    for (long s = first; s < last; ++s) {
      const std::size_t begin = std::size_t(s) * kSegmentBytes, end = std::min(n, begin + kSegmentBytes);
      WordWriter out(words, first_bit + offsets[std::size_t(s)]);
      stream::write_tokens(filtered + begin, end - begin, begin ? filtered[begin - 1] : -1, code, out);
      out.finish();
    }
  }, 64);
  *end_bit = first_bit + offsets[segments];
}

}  // namespace gp::png
