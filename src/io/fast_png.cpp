#include "io/fast_png.hpp"

#include <algorithm>
#include <cstring>
#include <queue>
#include <tuple>

#include "core/error.hpp"

namespace gp::io {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the bit stream is built in little-endian words");

constexpr int kMaxCodeBits = 15, kMaxCodeLengthBits = 7;
constexpr int kDistanceCodes = 2;  // two one-bit codes: a complete code; only distance 1 is used
// Order in which the code-length code's lengths are sent (RFC 1951, 3.2.7).
constexpr int kCodeLengthOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

// Huffman code lengths for `freq`, none longer than max_bits. Ties break by symbol, so the result
// is deterministic. At least two symbols get codes (a one-symbol code is not complete). When the
// tree is too deep, the counts are halved (keeping them non-zero) and the tree rebuilt.
std::vector<int> huffman_lengths(std::vector<std::uint64_t> freq, int max_bits) {
  const int n = int(freq.size());
  int used = int(std::count_if(freq.begin(), freq.end(), [](std::uint64_t f) { return f > 0; }));
  for (int s = 0; used < 2 && s < n; ++s)
    if (freq[s] == 0) freq[s] = 1, ++used;
  for (;;) {
    // Nodes 0..n-1 are leaves; parents follow. (weight, node) pairs in a min-heap.
    std::vector<int> parent(2 * n, -1);
    using Entry = std::pair<std::uint64_t, int>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    for (int s = 0; s < n; ++s)
      if (freq[s]) heap.push({freq[s], s});
    int next = n;
    while (heap.size() > 1) {
      const Entry a = heap.top();
      heap.pop();
      const Entry b = heap.top();
      heap.pop();
      parent[a.second] = parent[b.second] = next;
      heap.push({a.first + b.first, next++});
    }
    std::vector<int> depth(next, 0), lengths(n, 0);
    for (int node = next - 2; node >= 0; --node)  // parents are numbered after their children
      if (parent[node] >= 0) depth[node] = depth[parent[node]] + 1;
    int deepest = 0;
    for (int s = 0; s < n; ++s)
      if (freq[s]) deepest = std::max(deepest, lengths[s] = depth[s]);
    if (deepest <= max_bits) return lengths;
    for (auto& f : freq)
      if (f) f = (f + 1) / 2;
  }
}

// Canonical codes (RFC 1951, 3.2.2), bit-reversed for LSB-first writing.
std::vector<std::uint32_t> canonical_codes(const std::vector<int>& lengths) {
  int count[kMaxCodeBits + 2] = {};
  for (int l : lengths) ++count[l];
  count[0] = 0;
  std::uint32_t next[kMaxCodeBits + 2] = {};
  std::uint32_t code = 0;
  for (int bits = 1; bits <= kMaxCodeBits + 1; ++bits) {
    code = (code + std::uint32_t(count[bits - 1])) << 1;
    next[bits] = code;
  }
  std::vector<std::uint32_t> codes(lengths.size(), 0);
  for (std::size_t s = 0; s < lengths.size(); ++s) {
    const int l = lengths[s];
    if (!l) continue;
    std::uint32_t c = next[l]++, reversed = 0;
    for (int b = 0; b < l; ++b) reversed |= ((c >> b) & 1u) << (l - 1 - b);
    codes[s] = reversed;
  }
  return codes;
}

// Appends bits least significant first.
struct BitWriter {
  std::vector<std::uint32_t> words;
  std::uint64_t bits = 0;
  void put(std::uint32_t value, int count) {
    for (int b = 0; b < count; ++b, ++bits) {
      if (bits / 32 >= words.size()) words.push_back(0);
      words[bits / 32] |= ((value >> b) & 1u) << (bits % 32);
    }
  }
};

// ORs `count` bits of value into words at bit `at`.
void or_bits(std::uint32_t* words, std::uint64_t at, std::uint32_t value, int count) {
  for (int b = 0; b < count; ++b, ++at) words[at / 32] |= ((value >> b) & 1u) << (at % 32);
}

}  // namespace

FastPngPlan plan_fast_png(const std::uint32_t* histogram) {
  FastPngPlan plan;
  std::vector<std::uint64_t> freq(histogram, histogram + png::kLitLenSymbols);
  if (freq[png::kEndOfBlock] == 0) throw Error("fast PNG: the token histogram has no end of block");
  const std::vector<int> lengths = huffman_lengths(freq, kMaxCodeBits);
  const std::vector<std::uint32_t> codes = canonical_codes(lengths);
  for (int s = 0; s < png::kLitLenSymbols; ++s) {
    plan.code.length[s] = std::uint8_t(lengths[s]);
    plan.code.bits[s] = std::uint16_t(codes[s]);
  }

  // Lengths of both alphabets as one sequence, sent with the code-length code (no run codes).
  std::vector<int> sequence(lengths);
  sequence.insert(sequence.end(), kDistanceCodes, 1);
  std::vector<std::uint64_t> cl_freq(19, 0);
  for (int l : sequence) ++cl_freq[l];
  const std::vector<int> cl_lengths = huffman_lengths(cl_freq, kMaxCodeLengthBits);
  const std::vector<std::uint32_t> cl_codes = canonical_codes(cl_lengths);

  BitWriter w;
  w.put(0x78, 8);  // zlib: deflate, 32 KiB window
  w.put(0x01, 8);  // fastest, no dictionary; (0x78 << 8 | 0x01) % 31 == 0
  w.put(1, 1);     // final block
  w.put(2, 2);     // dynamic Huffman codes
  w.put(png::kLitLenSymbols - 257, 5);
  w.put(kDistanceCodes - 1, 5);
  w.put(19 - 4, 4);
  for (int i : kCodeLengthOrder) w.put(std::uint32_t(cl_lengths[i]), 3);
  for (int l : sequence) w.put(cl_codes[l], cl_lengths[l]);
  plan.header = w.words;
  plan.header_bits = w.bits;

  for (int s = 0; s < png::kLitLenSymbols; ++s) {
    if (s == png::kEndOfBlock) continue;
    const int extra = s > png::kEndOfBlock ? (s < 265 || s == 285 ? 0 : (s - 261) / 4) + 1 : 0;  // + distance bit
    plan.body_bits += std::uint64_t(histogram[s]) * std::uint64_t(lengths[s] + extra);
  }
  const std::uint64_t total = plan.header_bits + plan.body_bits + kMaxCodeBits + 7 + 32;
  plan.word_count = std::size_t((total + 31) / 32) + 1;
  return plan;
}

std::size_t finish_fast_png(const FastPngPlan& plan, std::uint32_t* words, std::uint64_t end_bit,
                            const png::AdlerPartial* partials, std::size_t filtered_bytes) {
  if (end_bit != plan.header_bits + plan.body_bits)
    throw Error("fast PNG: the encoder wrote " + std::to_string(end_bit - plan.header_bits) + " bits, the histogram says " +
                std::to_string(plan.body_bits));
  for (std::size_t i = 0; i < plan.header.size(); ++i) words[i] |= plan.header[i];
  const int eob = png::kEndOfBlock;
  or_bits(words, end_bit, plan.code.bits[eob], plan.code.length[eob]);
  const std::size_t deflate_bytes = std::size_t((end_bit + plan.code.length[eob] + 7) / 8);

  // Adler-32 of the filtered bytes from the per-segment sums (see png::AdlerPartial).
  constexpr std::uint64_t kMod = 65521;
  std::uint64_t a = 1, b = 0;
  const std::size_t segments = png::segment_count(filtered_bytes);
  for (std::size_t s = 0; s < segments; ++s) {
    const std::uint64_t length = std::min(png::kSegmentBytes, filtered_bytes - s * png::kSegmentBytes);
    b = (b + length * a + partials[s].weighted) % kMod;
    a = (a + partials[s].sum) % kMod;
  }
  const std::uint32_t adler = std::uint32_t(b << 16 | a);
  auto* bytes = reinterpret_cast<std::uint8_t*>(words);
  const std::uint8_t trailer[4] = {std::uint8_t(adler >> 24), std::uint8_t(adler >> 16), std::uint8_t(adler >> 8),
                                   std::uint8_t(adler)};
  std::memcpy(bytes + deflate_bytes, trailer, 4);
  return deflate_bytes + 4;
}

std::vector<std::uint8_t> fast_png_stream_cpu(const ImageView& image) {
  const std::size_t n = png::filtered_size(image);
  std::vector<std::uint8_t> filtered(n);
  png::filter_rows_cpu(image, filtered.data());
  std::uint32_t histogram[png::kLitLenSymbols];
  std::vector<png::AdlerPartial> partials(png::segment_count(n));
  png::token_histogram_cpu(filtered.data(), n, histogram, partials.data());
  const FastPngPlan plan = plan_fast_png(histogram);
  std::vector<std::uint32_t> words(plan.word_count);
  std::uint64_t end_bit = 0;
  png::encode_segments_cpu(filtered.data(), n, plan.code, plan.header_bits, words.data(), words.size(), &end_bit);
  const std::size_t size = finish_fast_png(plan, words.data(), end_bit, partials.data(), n);
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(words.data());
  return std::vector<std::uint8_t>(bytes, bytes + size);
}

}  // namespace gp::io
