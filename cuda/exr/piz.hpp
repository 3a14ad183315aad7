#pragma once
// OpenEXR's PIZ blocks undone, written once for the GPU decoder and the CPU (GP_HD), as OpenEXR
// Core's internal_exr_undo_piz reads them: the bitmap of the 16-bit values the block uses (its
// reverse LUT), OpenEXR's own Huffman code (code lengths packed in 6 bits with zero runs, codes
// assigned from the longest length down, a run-length symbol repeating the previous value,
// decoded through a 14-bit table with longer codes listed per 14-bit prefix), the 2D Haar-like
// wavelet of each channel's plane (14-bit or modulo 16-bit), the LUT, then the planes back into
// the rows of channels every other compression gives. Every read and write is bounds-checked.
#include <cstddef>
#include <cstdint>

#include "cuda/common/host_device.hpp"
#include "cuda/exr/exr_types.hpp"

namespace gp::exr {

enum class PizStatus : int {
  ok = 0,
  bad_header,       // the bitmap's range, or a length field, outside the block
  bad_code_table,   // code lengths past the table's end, or codes that do not fit or collide
  bad_code,         // a code not in the table
  bad_run,          // a run before any value, or past the end of the output
  wrong_count,      // fewer or more values than the block holds
};

GP_HD const char* piz_status_text(PizStatus s) {
  switch (s) {
    case PizStatus::ok: return "ok";
    case PizStatus::bad_header: return "the piz data is corrupt (header)";
    case PizStatus::bad_code_table: return "the piz data is corrupt (Huffman table)";
    case PizStatus::bad_code: return "the piz data is corrupt (invalid Huffman code)";
    case PizStatus::bad_run: return "the piz data is corrupt (run length)";
    case PizStatus::wrong_count: return "the piz data is corrupt (value count)";
  }
  return "unknown";
}

namespace piz_detail {

constexpr int kEncSize = 65537;  // the 65536 values and the run-length symbol
constexpr int kDecBits = 14;
constexpr int kShortZeroRun = 59, kLongZeroRun = 63, kShortestLongRun = 2 + kLongZeroRun - kShortZeroRun;
constexpr int kBitmapSize = 65536 / 8;

// A 14-bit table entry: len > 0: a code of that length for `value`; len == 0 and count > 0:
// `count` longer codes have this prefix (LongCodes decodes them).
struct DecEntry {
  std::uint32_t value;
  std::uint16_t count;
  std::uint8_t len;
};

// The codes longer than the 14-bit table, by length. Each length's codes are consecutive
// numbers in symbol order (hufCanonicalCodeTable), so the next l bits are a code of length l
// when they lie in [first_code[l], first_code[l] + its count): a few compares per length instead
// of OpenEXR's search through every long code of the prefix, each a table load (the GPU's
// slowest step on noisy images, where many values have long codes). Same codes, same symbols.
constexpr int kMaxCodeLength = 58;
struct LongCodes {
  std::uint64_t first_code[kMaxCodeLength + 1];
  std::uint32_t first[kMaxCodeLength + 2];  // length l's symbols: symbols[first[l] .. first[l + 1])
  std::uint32_t symbols[kEncSize];
};

}  // namespace piz_detail

// Scratch for one PIZ block (about 1 MB): its code table, decoding table, long codes, LUT, bitmap.
struct PizScratch {
  std::uint64_t hcode[piz_detail::kEncSize];  // length | code << 6
  piz_detail::DecEntry dec[1 << piz_detail::kDecBits];
  piz_detail::LongCodes long_codes;
  std::uint16_t lut[65536];
  std::uint8_t bitmap[piz_detail::kBitmapSize];
};

namespace piz_detail {

GP_HD std::uint32_t load32(const std::uint8_t* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}

// MSB-first bits from [in, end).
struct BitsIn {
  const std::uint8_t* in;
  const std::uint8_t* end;
  std::uint64_t c = 0;
  int lc = 0;
  GP_HD bool get_char() {
    if (in >= end) return false;
    c = (c << 8) | *in++;
    lc += 8;
    return true;
  }
  // Four bytes at once (independent loads; lc <= 32 and four bytes left).
  GP_HD void get_word() {
    c = (c << 32) | std::uint64_t(std::uint32_t(in[0]) << 24 | std::uint32_t(in[1]) << 16 | std::uint32_t(in[2]) << 8 | in[3]);
    in += 4;
    lc += 32;
  }
  GP_HD bool get_bits(int n, std::uint64_t* v) {
    while (lc < n)
      if (!get_char()) return false;
    lc -= n;
    *v = (c >> lc) & ((std::uint64_t(1) << n) - 1);
    return true;
  }
};

// The code lengths of symbols im..iM, then canonical codes (OpenEXR's hufCanonicalCodeTable);
// *consumed: the bytes the table took (the codes start after them).
GP_HD bool unpack_code_table(const std::uint8_t* in, std::size_t size, int im, int iM, std::uint64_t* hcode,
                             std::size_t* consumed) {
  for (int i = 0; i < kEncSize; ++i) hcode[i] = 0;
  BitsIn bits{in, in + size};
  for (; im <= iM; ++im) {
    std::uint64_t l = 0;
    if (!bits.get_bits(6, &l)) return false;
    hcode[im] = l;
    if (l == std::uint64_t(kLongZeroRun)) {
      std::uint64_t run = 0;
      if (!bits.get_bits(8, &run)) return false;
      const int zeros = int(run) + kShortestLongRun;
      if (im + zeros > iM + 1) return false;
      for (int k = 0; k < zeros; ++k) hcode[im + k] = 0;
      im += zeros - 1;
    } else if (l >= std::uint64_t(kShortZeroRun)) {
      const int zeros = int(l) - kShortZeroRun + 2;
      if (im + zeros > iM + 1) return false;
      for (int k = 0; k < zeros; ++k) hcode[im + k] = 0;
      im += zeros - 1;
    }
  }
  *consumed = std::size_t(bits.in - in);
  std::uint64_t n[59];
  for (int i = 0; i < 59; ++i) n[i] = 0;
  for (int i = 0; i < kEncSize; ++i) ++n[hcode[i]];
  std::uint64_t c = 0;
  for (int i = 58; i > 0; --i) {
    const std::uint64_t next = (c + n[i]) >> 1;
    n[i] = c;
    c = next;
  }
  for (int i = 0; i < kEncSize; ++i) {
    const std::uint64_t l = hcode[i];
    if (l > 0) hcode[i] = l | (n[l]++ << 6);
  }
  return true;
}

GP_HD std::uint64_t code_of(std::uint64_t h) { return h >> 6; }
GP_HD int length_of(std::uint64_t h) { return int(h & 63); }

// OpenEXR's hufBuildDecTable (its checks too), with the long codes by length.
GP_HD bool build_decoding(const std::uint64_t* hcode, int im, int iM, DecEntry* dec, LongCodes& long_codes) {
  for (int i = 0; i < (1 << kDecBits); ++i) dec[i] = DecEntry{0, 0, 0};
  for (int s = im; s <= iM; ++s) {  // short codes, and how many long ones per prefix
    const std::uint64_t c = code_of(hcode[s]);
    const int l = length_of(hcode[s]);
    if (l == 0) continue;
    if (c >> l) return false;
    if (l > kDecBits) {
      DecEntry& e = dec[c >> (l - kDecBits)];
      if (e.len || e.count == 0xffff) return false;
      ++e.count;
    } else {
      const std::uint64_t first = c << (kDecBits - l), entries = std::uint64_t(1) << (kDecBits - l);
      for (std::uint64_t i = 0; i < entries; ++i) {
        DecEntry& e = dec[first + i];
        if (e.len || e.count) return false;
        e.len = std::uint8_t(l);
        e.value = std::uint32_t(s);
      }
    }
  }
  std::uint32_t* first = long_codes.first;
  for (int l = 0; l <= kMaxCodeLength + 1; ++l) first[l] = 0;
  for (int s = im; s <= iM; ++s) {
    const int l = length_of(hcode[s]);
    if (l > kDecBits) ++first[l + 1];  // (counts, then their running sums)
  }
  for (int l = 1; l <= kMaxCodeLength + 1; ++l) first[l] += first[l - 1];
  std::uint32_t next[kMaxCodeLength + 1];
  for (int l = 0; l <= kMaxCodeLength; ++l) next[l] = first[l];
  for (int s = im; s <= iM; ++s) {  // in symbol order: each length's codes in increasing order
    const int l = length_of(hcode[s]);
    if (l <= kDecBits) continue;
    if (next[l] == first[l]) long_codes.first_code[l] = code_of(hcode[s]);
    long_codes.symbols[next[l]++] = std::uint32_t(s);
  }
  return true;
}

// One decoded symbol into out: a value, or (the run-length symbol rlc) the previous value repeated
// as often as the next 8 bits say. `last`: the previous value (kept here, not read back from out).
GP_HD PizStatus put_symbol(std::uint32_t symbol, int rlc, BitsIn& bits, std::uint16_t* out, std::size_t capacity,
                           std::size_t* n, std::uint16_t* last) {
  if (int(symbol) == rlc) {
    if (bits.lc < 8 && !bits.get_char()) return PizStatus::bad_run;
    bits.lc -= 8;
    const std::size_t count = std::size_t((bits.c >> bits.lc) & 0xff);
    if (*n == 0 || count > capacity - *n) return PizStatus::bad_run;
    for (std::size_t k = 0; k < count; ++k) out[(*n)++] = *last;
    return PizStatus::ok;
  }
  if (*n >= capacity) return PizStatus::wrong_count;
  *last = std::uint16_t(symbol);
  out[(*n)++] = *last;
  return PizStatus::ok;
}

// A short-code table of the first kFastBits bits (the GPU keeps it in shared memory, where the
// 14-bit table in global memory costs a slow load per value): (value << 5) | length for a code
// of at most kFastBits bits, 0 for a longer one (the 14-bit table then decides).
constexpr int kFastBits = 13;
GP_HD std::uint32_t fast_entry(const DecEntry* dec, int i) {
  const DecEntry e = dec[i << (kDecBits - kFastBits)];
  return e.len && e.len <= kFastBits ? (e.value << 5) | e.len : 0u;
}

// OpenEXR's hufDecode: nbits of codes from `in` into `count` values. `fast`: fast_entry's table,
// or null.
GP_HD PizStatus huffman_decode(const DecEntry* dec, const LongCodes& long_codes, const std::uint32_t* fast,
                               const std::uint8_t* in, std::uint64_t nbits, int rlc, std::uint16_t* out, std::size_t count) {
  BitsIn bits{in, in + (nbits + 7) / 8};
  std::size_t n = 0;
  std::uint16_t last = 0;
  constexpr std::uint64_t kMask = (1u << kDecBits) - 1;
  while (bits.in < bits.end) {
    if (bits.lc <= 32 && bits.end - bits.in >= 4) bits.get_word();
    else bits.get_char();
    while (bits.lc >= kDecBits) {
      if (fast) {
        const std::uint32_t f = fast[(bits.c >> (bits.lc - kFastBits)) & ((1u << kFastBits) - 1)];
        if (f) {
          bits.lc -= int(f & 31);
          const PizStatus s = put_symbol(f >> 5, rlc, bits, out, count, &n, &last);
          if (s != PizStatus::ok) return s;
          continue;
        }
      }
      const DecEntry e = dec[(bits.c >> (bits.lc - kDecBits)) & kMask];
      if (e.len) {
        bits.lc -= e.len;
        const PizStatus s = put_symbol(e.value, rlc, bits, out, count, &n, &last);
        if (s != PizStatus::ok) return s;
        continue;
      }
      if (e.count == 0) return PizStatus::bad_code;
      int l = kDecBits + 1;
      for (; l <= kMaxCodeLength; ++l) {
        const std::uint32_t codes = long_codes.first[l + 1] - long_codes.first[l];
        if (codes == 0) continue;
        while (bits.lc < l && bits.in < bits.end) bits.get_char();
        if (bits.lc < l) {
          l = kMaxCodeLength + 1;  // the stream ends first
          break;
        }
        const std::uint64_t k = ((bits.c >> (bits.lc - l)) & ((std::uint64_t(1) << l) - 1)) - long_codes.first_code[l];
        if (k < codes) {  // (below first_code, k wraps round to a large number)
          bits.lc -= l;
          const PizStatus s = put_symbol(long_codes.symbols[long_codes.first[l] + k], rlc, bits, out, count, &n, &last);
          if (s != PizStatus::ok) return s;
          break;
        }
      }
      if (l > kMaxCodeLength) return PizStatus::bad_code;
    }
  }
  // The last codes, shorter than the table's 14 bits: the padding bits of the last byte dropped.
  const int padding = int((8 - nbits) & 7);
  bits.c >>= padding;
  bits.lc -= padding;
  while (bits.lc > 0) {
    const DecEntry e = dec[(bits.c << (kDecBits - bits.lc)) & kMask];
    if (!e.len || e.len > bits.lc) return PizStatus::bad_code;
    bits.lc -= e.len;
    const PizStatus s = put_symbol(e.value, rlc, bits, out, count, &n, &last);
    if (s != PizStatus::ok) return s;
  }
  return n == count ? PizStatus::ok : PizStatus::wrong_count;
}

// OpenEXR's wavelet basis, inverse: 14-bit (no modulo) and modulo 16-bit.
GP_HD void wdec14(std::uint16_t l, std::uint16_t h, std::uint16_t* a, std::uint16_t* b) {
  const int hi = std::int16_t(h);
  const int ai = std::int16_t(l) + (hi & 1) + (hi >> 1);
  *a = std::uint16_t(std::int16_t(ai));
  *b = std::uint16_t(std::int16_t(ai - hi));
}
GP_HD void wdec16(std::uint16_t l, std::uint16_t h, std::uint16_t* a, std::uint16_t* b) {
  constexpr int kOffset = 1 << 15, kMask = (1 << 16) - 1;
  const int m = l, d = h;
  const int bb = (m - (d >> 1)) & kMask;
  const int aa = (d + bb - kOffset) & kMask;
  *b = std::uint16_t(bb);
  *a = std::uint16_t(aa);
}
GP_HD void wdec(bool w14, std::uint16_t l, std::uint16_t h, std::uint16_t* a, std::uint16_t* b) {
  if (w14) wdec14(l, h, a, b);
  else wdec16(l, h, a, b);
}

// OpenEXR's wav_2D_decode, level by level: values in[x * ox + y * oy], nx by ny. Level (p, p2)
// touches disjoint pieces: the cx by cy cells of 2 x 2 values p apart, then, where nx or ny has
// the bit p, the odd column's pairs (cy) and the odd line's pairs (cx); the pieces of a level can
// run in any order (on the GPU, across threads), the levels one after another.
struct WaveletLevel {
  int p, p2, cx, cy;
  bool odd_column, odd_line;
  GP_HD int pieces() const { return cx * cy + (odd_column ? cy : 0) + (odd_line ? cx : 0); }
};

// The first level's p2: the largest power of two <= min(nx, ny); levels run while p2 >= 2.
GP_HD int wavelet_first_p2(int nx, int ny) {
  const int n = nx > ny ? ny : nx;
  int p = 1;
  while (p <= n) p <<= 1;
  return p >> 1;
}

GP_HD WaveletLevel wavelet_level(int nx, int ny, int p2) {
  const int p = p2 >> 1;
  return WaveletLevel{p, p2, nx / p2, ny / p2, (nx & p) != 0, (ny & p) != 0};
}

GP_HD void wavelet_piece(std::uint16_t* in, int ox, int oy, const WaveletLevel& l, bool w14, int k) {
  std::uint16_t i00, i01, i10, i11;
  const std::ptrdiff_t ox1 = std::ptrdiff_t(ox) * l.p, oy1 = std::ptrdiff_t(oy) * l.p;
  const std::ptrdiff_t ox2 = std::ptrdiff_t(ox) * l.p2, oy2 = std::ptrdiff_t(oy) * l.p2;
  if (k < l.cx * l.cy) {  // a cell
    std::uint16_t* a = in + oy2 * (k / l.cx) + ox2 * (k % l.cx);
    std::uint16_t* a01 = a + ox1;
    std::uint16_t* a10 = a + oy1;
    std::uint16_t* a11 = a10 + ox1;
    wdec(w14, *a, *a10, &i00, &i10);
    wdec(w14, *a01, *a11, &i01, &i11);
    wdec(w14, i00, i01, a, a01);
    wdec(w14, i10, i11, a10, a11);
    return;
  }
  k -= l.cx * l.cy;
  if (l.odd_column && k < l.cy) {  // the odd column, line k
    std::uint16_t* a = in + oy2 * k + ox2 * l.cx;
    wdec(w14, *a, a[oy1], &i00, a + oy1);
    *a = i00;
    return;
  }
  if (l.odd_column) k -= l.cy;
  std::uint16_t* a = in + oy2 * l.cy + ox2 * k;  // the odd line, column k
  wdec(w14, *a, a[ox1], &i00, a + ox1);
  *a = i00;
}

// The whole transform on one thread (the CPU).
GP_HD void wavelet_decode(std::uint16_t* in, int nx, int ox, int ny, int oy, std::uint16_t max_value) {
  const bool w14 = max_value < (1 << 14);
  for (int p2 = wavelet_first_p2(nx, ny); p2 >= 2; p2 >>= 1) {
    const WaveletLevel l = wavelet_level(nx, ny, p2);
    for (int k = 0; k < l.pieces(); ++k) wavelet_piece(in, ox, oy, l, w14, k);
  }
}

}  // namespace piz_detail

// What piz_setup read: where the Huffman codes are and how the planes decode.
struct PizLayout {
  const std::uint8_t* codes;
  std::uint32_t nbits;
  int rlc;                  // the run-length symbol (the last one of the code)
  std::uint16_t max_value;  // the LUT's last index: the wavelet is 14-bit below 1 << 14
  std::size_t count;        // 16-bit values in the block
};

// A PIZ block's header: the bitmap into the LUT, the code table and its decoding table (into s);
// the block's size checked against its channels' planes.
GP_HD PizStatus piz_setup(const std::uint8_t* in, std::size_t size, std::size_t out_size, const ChannelTarget* channels,
                          int channel_count, int width, int height, PizScratch& s, PizLayout* layout) {
  using namespace piz_detail;
  if (size < 4) return PizStatus::bad_header;
  const int min_nonzero = in[0] | in[1] << 8, max_nonzero = in[2] | in[3] << 8;
  if (max_nonzero >= kBitmapSize) return PizStatus::bad_header;
  std::size_t at = 4;
  for (int i = 0; i < kBitmapSize; ++i) s.bitmap[i] = 0;
  if (min_nonzero <= max_nonzero) {
    const std::size_t n = std::size_t(max_nonzero - min_nonzero + 1);
    if (at + n > size) return PizStatus::bad_header;
    for (std::size_t i = 0; i < n; ++i) s.bitmap[std::size_t(min_nonzero) + i] = in[at + i];
    at += n;
  }
  // Reverse LUT: the k-th value present (0 always counts), the rest 0.
  std::uint32_t k = 0;
  for (std::uint32_t v = 0; v < 65536; ++v)
    if (v == 0 || (s.bitmap[v >> 3] & (1u << (v & 7)))) s.lut[k++] = std::uint16_t(v);
  layout->max_value = std::uint16_t(k - 1);
  while (k < 65536) s.lut[k++] = 0;

  if (at + 4 > size) return PizStatus::bad_header;
  const std::size_t huf_bytes = load32(in + at);
  at += 4;
  if (huf_bytes > size - at) return PizStatus::bad_header;
  layout->count = out_size / 2;
  std::size_t plane_words = 0;  // the channels' planes must fill the block exactly
  for (int c = 0; c < channel_count; ++c)
    plane_words += std::size_t(width) * std::size_t(height) * std::size_t(sample_bytes(channels[c].stored) / 2);
  if (plane_words != layout->count || out_size % 2) return PizStatus::wrong_count;
  // The Huffman stream: im, iM, table length, bit count, a reserved word, the code table, the codes.
  const std::uint8_t* huf = in + at;
  if (huf_bytes < 20) return PizStatus::bad_header;
  const std::uint32_t im = load32(huf), iM = load32(huf + 4), nbits = load32(huf + 12);
  if (im >= std::uint32_t(kEncSize) || iM >= std::uint32_t(kEncSize)) return PizStatus::bad_code_table;
  std::size_t table_bytes = 0;
  if (!unpack_code_table(huf + 20, huf_bytes - 20, int(im), int(iM), s.hcode, &table_bytes))
    return PizStatus::bad_code_table;
  layout->codes = huf + 20 + table_bytes;
  layout->nbits = nbits;
  layout->rlc = int(iM);
  const std::size_t code_bytes = huf_bytes - 20 - table_bytes;
  if ((std::uint64_t(nbits) + 7) / 8 > code_bytes) return PizStatus::bad_header;
  if (!build_decoding(s.hcode, int(im), int(iM), s.dec, s.long_codes)) return PizStatus::bad_code_table;
  return PizStatus::ok;
}

// `fast`: piz_detail::fast_entry's table of s.dec, or null.
GP_HD PizStatus piz_huffman(const PizLayout& layout, const PizScratch& s, const std::uint32_t* fast, std::uint16_t* values) {
  return piz_detail::huffman_decode(s.dec, s.long_codes, fast, layout.codes, layout.nbits, layout.rlc, values,
                                    layout.count);
}

// Each channel's plane: width x height samples of bytes / 2 interleaved 16-bit words, one plane
// per word (`plane`: 0 .. the sum of the channels' words - 1); *ox, *oy its steps.
GP_HD std::uint16_t* piz_plane(std::uint16_t* values, const ChannelTarget* channels, int channel_count, int width,
                               int height, int plane, int* ox, int* oy) {
  for (int c = 0; c < channel_count; ++c) {
    const int words = sample_bytes(channels[c].stored) / 2;
    if (plane < words) {
      *ox = words;
      *oy = words * width;
      return values + plane;
    }
    plane -= words;
    values += std::size_t(width) * std::size_t(height) * std::size_t(words);
  }
  return nullptr;
}

// The planes through the LUT back into rows of channels (little-endian 16-bit words): row y,
// channel c for the tasks y * channel_count + c = first, first + step, ... (0 <= first < step).
GP_HD void piz_rows(const std::uint16_t* values, const std::uint16_t* lut, std::uint8_t* out,
                    const ChannelTarget* channels, int channel_count, int width, int height, int first, int step) {
  std::size_t bytes_per_row = 0;
  for (int c = 0; c < channel_count; ++c) bytes_per_row += std::size_t(width) * std::size_t(sample_bytes(channels[c].stored));
  std::size_t plane_at = 0, row_at = 0;  // channel c's plane in values, its bytes in a row
  for (int c = 0; c < channel_count; ++c) {
    const std::size_t row_words = std::size_t(width) * std::size_t(sample_bytes(channels[c].stored) / 2);
    for (int y = 0; y < height; ++y) {
      const int task = y * channel_count + c;
      if (task % step != first) continue;
      const std::uint16_t* row = values + plane_at + std::size_t(y) * row_words;
      std::uint8_t* dst = out + std::size_t(y) * bytes_per_row + row_at;
      for (std::size_t w = 0; w < row_words; ++w) {
        const std::uint16_t v = lut[row[w]];
        dst[2 * w] = std::uint8_t(v);
        dst[2 * w + 1] = std::uint8_t(v >> 8);
      }
    }
    plane_at += std::size_t(height) * row_words;
    row_at += 2 * row_words;
  }
}

// A PIZ block of `width` x `height` pixels of `channels` (in file order; 2 or 4 bytes a sample) into
// `out` (out_size bytes: rows of channels of samples, as the other compressions give), on one
// thread. `values`: scratch of out_size bytes (the channels' planes of 16-bit values).
GP_HD PizStatus piz_decompress(const std::uint8_t* in, std::size_t size, std::uint8_t* out, std::size_t out_size,
                               const ChannelTarget* channels, int channel_count, int width, int height,
                               std::uint16_t* values, PizScratch& s) {
  PizLayout layout{};
  PizStatus status = piz_setup(in, size, out_size, channels, channel_count, width, height, s, &layout);
  if (status == PizStatus::ok) status = piz_huffman(layout, s, nullptr, values);
  if (status != PizStatus::ok) return status;
  int ox = 0, oy = 0;
  for (int plane = 0; std::uint16_t* p = piz_plane(values, channels, channel_count, width, height, plane, &ox, &oy); ++plane)
    piz_detail::wavelet_decode(p, width, ox, height, oy, layout.max_value);
  piz_rows(values, s.lut, out, channels, channel_count, width, height, 0, 1);
  return PizStatus::ok;
}

}  // namespace gp::exr
