#pragma once
// Inflate (RFC 1951) of one zlib stream (RFC 1950), the form of OpenEXR's ZIP and ZIPS blocks
// (OpenEXR Core compresses them with libdeflate's zlib_compress): written once for the GPU decoder
// (one thread per block: a frame has over a hundred blocks, a batch of frames thousands) and the
// CPU (the same code; the tests hold it against zlib itself). No allocation, no recursion, no
// tables in static memory (device code cannot index host arrays): every constant of the format is
// computed. Every read and write is bounds-checked: a damaged stream ends with a status, never with
// a read or write outside its buffers, nor a loop that does not end (each symbol consumes input,
// and input past the end is an error).
#include <cstddef>
#include <cstdint>

#include "cuda/common/host_device.hpp"

namespace gp::exr {

enum class InflateStatus : int {
  ok = 0,
  bad_zlib_header,    // not deflate, a preset dictionary, or the header check fails
  bad_block_type,     // block type 3
  bad_stored_length,  // a stored block's LEN and NLEN disagree
  bad_code_lengths,   // a dynamic block's code lengths do not make a Huffman code
  bad_symbol,         // a code that is not in the table, or literal/length symbol 286/287
  bad_distance,       // a distance past the start of the output, or distance symbol 30/31
  output_overflow,    // more bytes than the output holds
  input_overrun,      // the stream ends inside a block or before its checksum
  bad_checksum,       // the Adler-32 of the output differs from the stream's
};

GP_HD const char* inflate_status_text(InflateStatus s) {
  switch (s) {
    case InflateStatus::ok: return "ok";
    case InflateStatus::bad_zlib_header: return "the zip data is corrupt (not a zlib stream)";
    case InflateStatus::bad_block_type: return "the zip data is corrupt (invalid block type)";
    case InflateStatus::bad_stored_length: return "the zip data is corrupt (stored block length)";
    case InflateStatus::bad_code_lengths: return "the zip data is corrupt (invalid Huffman code lengths)";
    case InflateStatus::bad_symbol: return "the zip data is corrupt (invalid Huffman code)";
    case InflateStatus::bad_distance: return "the zip data is corrupt (invalid match distance)";
    case InflateStatus::output_overflow: return "the zip data is corrupt (more bytes than the block holds)";
    case InflateStatus::input_overrun: return "the zip data is corrupt (truncated)";
    case InflateStatus::bad_checksum: return "the zip data is corrupt (Adler-32 mismatch)";
  }
  return "unknown";
}

namespace inflate_detail {

constexpr int kMaxBits = 15;
constexpr int kFastBits = 10;  // codes up to this long resolve in one table look-up

// A canonical Huffman code (puff's form: counts per length, symbols in code order) plus a table of
// the first kFastBits bits of the stream, each entry (symbol << 4) | length, 0 for a longer code.
struct Huffman {
  std::uint16_t count[kMaxBits + 1];
  std::uint16_t symbol[288];
  std::uint16_t fast[1 << kFastBits];
  // puff's search state after kFastBits bits that are no code: where decode() resumes it.
  std::int32_t slow_first, slow_index;
};

// LSB-first bit reader over [data, data + size); bytes past the end read as zero and are counted,
// so that the caller can tell a stream that ran out (consumed() > size * 8).
struct BitReader {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t pos;  // next byte to load into `buffer`
  std::uint64_t buffer;
  int bits;         // valid bits in `buffer`

  // Whole bytes until it holds more than 56 bits.
  GP_HD void refill() {
#ifdef __CUDA_ARCH__
    // On the GPU, the next 8 bytes from the three aligned words around them: three independent
    // loads instead of up to eight dependent ones. The bytes past the last whole one taken sit
    // above `bits` where the next refill puts the same bytes again.
    if (bits <= 56 && pos + 12 <= size) {
      const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(data + pos);
      const std::uint32_t* w = reinterpret_cast<const std::uint32_t*>(at & ~std::uintptr_t(3));
      const unsigned shift = unsigned(at & 3) * 8;
      const std::uint64_t next8 = std::uint64_t(__funnelshift_r(w[0], w[1], shift)) |
                                  std::uint64_t(__funnelshift_r(w[1], w[2], shift)) << 32;
      const int count = (63 - bits) / 8;
      buffer |= next8 << bits;
      pos += std::size_t(count);
      bits += 8 * count;
      return;
    }
#endif
    while (bits <= 56) {
      const std::uint64_t byte = pos < size ? data[pos] : 0;
      ++pos;
      buffer |= byte << bits;
      bits += 8;
    }
  }
  GP_HD std::uint64_t consumed() const { return std::uint64_t(pos) * 8 - std::uint64_t(bits); }
  GP_HD bool overrun() const { return consumed() > std::uint64_t(size) * 8; }
  GP_HD std::uint32_t take(int n) {  // n <= 32; refill() first
    const std::uint32_t v = std::uint32_t(buffer & ((std::uint64_t(1) << n) - 1));
    buffer >>= n;
    bits -= n;
    return v;
  }
  // Drops the bits up to the next byte boundary; returns the byte the stream continues at, and
  // empties the buffer so that bytes are read from there.
  GP_HD std::size_t align_to_byte() {
    take(bits & 7);
    const std::size_t at = pos - std::size_t(bits / 8);
    pos = at;
    buffer = 0;
    bits = 0;
    return at;
  }
};

GP_HD std::uint32_t reverse_bits(std::uint32_t code, int length) {
#ifdef __CUDA_ARCH__
  return __brev(code) >> (32 - length);
#else
  std::uint32_t r = 0;
  for (int i = 0; i < length; ++i, code >>= 1) r = (r << 1) | (code & 1);
  return r;
#endif
}

// Builds `h` from n code lengths. Returns false, as zlib's inflate_table does, for an
// over-subscribed code, and for an incomplete one except a lone code of one bit in a literal/length
// or distance code (`lone_code_allowed`; never in the code-length code).
GP_HD bool build(Huffman& h, const std::uint8_t* lengths, int n, bool lone_code_allowed) {
  for (int len = 0; len <= kMaxBits; ++len) h.count[len] = 0;
  for (int s = 0; s < n; ++s) ++h.count[lengths[s]];
  for (int i = 0; i < (1 << kFastBits); ++i) h.fast[i] = 0;
  h.slow_first = h.slow_index = 0;
  for (int len = 1; len <= kFastBits; ++len) {
    h.slow_index += h.count[len];
    h.slow_first = (h.slow_first + h.count[len]) << 1;
  }
  if (h.count[0] == n) return true;  // no codes: only a stream that never uses the table is valid
  int left = 1;
  for (int len = 1; len <= kMaxBits; ++len) {
    left <<= 1;
    left -= h.count[len];
    if (left < 0) return false;
  }
  std::uint16_t offset[kMaxBits + 2];
  offset[1] = 0;
  for (int len = 1; len < kMaxBits; ++len) offset[len + 1] = std::uint16_t(offset[len] + h.count[len]);
  for (int s = 0; s < n; ++s)
    if (lengths[s]) h.symbol[offset[lengths[s]]++] = std::uint16_t(s);
  if (left > 0 && !(lone_code_allowed && n - h.count[0] == 1 && h.count[1] == 1)) return false;
  // Canonical codes in order of length then symbol; each short one fills every table entry whose
  // low bits are its (bit-reversed) code.
  std::uint32_t code = 0;
  int index = 0;
  for (int len = 1; len <= kFastBits; ++len) {
    for (int k = 0; k < h.count[len]; ++k, ++index, ++code) {
      const std::uint16_t entry = std::uint16_t((h.symbol[index] << 4) | len);
      for (std::uint32_t i = reverse_bits(code, len); i < (1u << kFastBits); i += 1u << len) h.fast[i] = entry;
    }
    code <<= 1;
  }
  return true;
}

// The next symbol of `h`, or -1 for a code not in it. The reader must hold >= 15 bits.
GP_HD int decode(const Huffman& h, BitReader& in) {
  const std::uint16_t entry = h.fast[in.buffer & ((1u << kFastBits) - 1)];
  if (entry) {
    in.take(entry & 15);
    return entry >> 4;
  }
  // A longer code (or none): its first kFastBits bits are no code (else the table would hold it),
  // so puff's bit-by-bit search resumes after them.
  int code = int(reverse_bits(in.take(kFastBits), kFastBits)) << 1;
  int first = h.slow_first, index = h.slow_index;
  for (int len = kFastBits + 1; len <= kMaxBits; ++len) {
    code |= int(in.take(1));
    const int count = h.count[len];
    if (code - count < first) return h.symbol[index + (code - first)];
    index += count;
    first += count;
    first <<= 1;
    code <<= 1;
  }
  return -1;
}

// Length symbols 257..285 and distance symbols 0..29: base value and extra bits, computed.
GP_HD int length_extra(int symbol) { return symbol < 265 || symbol == 285 ? 0 : (symbol - 261) / 4; }
GP_HD int length_base(int symbol) {
  if (symbol < 265) return symbol - 254;
  if (symbol == 285) return 258;
  return ((4 + ((symbol - 265) & 3)) << length_extra(symbol)) + 3;
}
GP_HD int distance_extra(int symbol) { return symbol < 4 ? 0 : (symbol - 2) / 2; }
GP_HD int distance_base(int symbol) { return symbol < 4 ? symbol + 1 : ((2 + (symbol & 1)) << distance_extra(symbol)) + 1; }

// The next code of a Huffman-coded block: a literal, a match, the block's end, or an error.
struct Symbol {
  enum Kind : int { literal, match, end_of_block, error } kind;
  int value;               // literal: the byte; match: its length; error: the InflateStatus
  std::uint32_t distance;  // match
};

// Reads one symbol (and a match's distance). `produced`: the output so far (a match may not reach
// before its start); the caller checks a literal or match against its capacity.
GP_HD Symbol next_symbol(BitReader& in, const Huffman& litlen, const Huffman& dist, std::size_t produced) {
  in.refill();
  if (in.overrun()) return {Symbol::error, int(InflateStatus::input_overrun), 0};
  const int symbol = decode(litlen, in);
  if (symbol < 0 || symbol > 285) return {Symbol::error, int(InflateStatus::bad_symbol), 0};
  if (symbol < 256) return {Symbol::literal, symbol, 0};
  if (symbol == 256) return {Symbol::end_of_block, 0, 0};
  // 5 + 15 + 13 bits at most after the 15 of the symbol: enough left of the 57 refilled.
  const int length = length_base(symbol) + int(in.take(length_extra(symbol)));
  const int dsym = decode(dist, in);
  if (dsym < 0) return {Symbol::error, int(InflateStatus::bad_symbol), 0};
  if (dsym > 29) return {Symbol::error, int(InflateStatus::bad_distance), 0};
  in.refill();
  const std::uint32_t distance = std::uint32_t(distance_base(dsym)) + in.take(distance_extra(dsym));
  if (distance > produced) return {Symbol::error, int(InflateStatus::bad_distance), 0};
  return {Symbol::match, length, distance};
}

// Literals and matches of one Huffman-coded block into out[*produced...].
GP_HD InflateStatus codes(BitReader& in, const Huffman& litlen, const Huffman& dist, std::uint8_t* out,
                          std::size_t capacity, std::size_t* produced) {
  std::size_t n = *produced;
  for (;;) {
    const Symbol s = next_symbol(in, litlen, dist, n);
    if (s.kind == Symbol::literal) {
      if (n >= capacity) return InflateStatus::output_overflow;
      out[n++] = std::uint8_t(s.value);
      continue;
    }
    if (s.kind == Symbol::end_of_block) break;
    if (s.kind == Symbol::error) return InflateStatus(s.value);
    if (std::size_t(s.value) > capacity - n) return InflateStatus::output_overflow;
    const std::uint8_t* from = out + (n - s.distance);
    for (int i = 0; i < s.value; ++i) out[n + std::size_t(i)] = from[i];  // overlapping copies repeat
    n += std::size_t(s.value);
  }
  *produced = n;
  return in.overrun() ? InflateStatus::input_overrun : InflateStatus::ok;
}

// The fixed block's codes (RFC 1951 3.2.6).
GP_HD void fixed_codes(Huffman& litlen, Huffman& dist) {
  std::uint8_t lengths[288];
  for (int s = 0; s < 288; ++s) lengths[s] = std::uint8_t(s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8);
  build(litlen, lengths, 288, true);
  for (int s = 0; s < 32; ++s) lengths[s] = 5;  // 30 and 31 complete the code; they decode as errors
  build(dist, lengths, 32, true);
}

// A dynamic block's header: its code-length code, then the literal/length and distance codes.
GP_HD InflateStatus dynamic_codes(BitReader& in, Huffman& litlen, Huffman& dist) {
  in.refill();
  const int nlen = int(in.take(5)) + 257, ndist = int(in.take(5)) + 1, ncode = int(in.take(4)) + 4;
  if (nlen > 286 || ndist > 30) return InflateStatus::bad_code_lengths;
  // The code-length code's lengths, in the format's order of symbols.
  const char* order = "\x10\x11\x12\x00\x08\x07\x09\x06\x0a\x05\x0b\x04\x0c\x03\x0d\x02\x0e\x01\x0f";
  std::uint8_t lengths[286 + 30];
  for (int i = 0; i < 19; ++i) lengths[i] = 0;
  for (int i = 0; i < ncode; ++i) {
    if ((i & 7) == 0) in.refill();
    lengths[int(order[i])] = std::uint8_t(in.take(3));
  }
  Huffman& lencode = litlen;  // (litlen is built over it below)
  if (!build(lencode, lengths, 19, false)) return InflateStatus::bad_code_lengths;
  for (int i = 0; i < nlen + ndist;) {
    in.refill();
    if (in.overrun()) return InflateStatus::input_overrun;
    const int symbol = decode(lencode, in);
    if (symbol < 0) return InflateStatus::bad_code_lengths;
    if (symbol < 16) {
      lengths[i++] = std::uint8_t(symbol);
      continue;
    }
    int repeat = 0;
    std::uint8_t value = 0;
    if (symbol == 16) {
      if (i == 0) return InflateStatus::bad_code_lengths;  // nothing to repeat
      value = lengths[i - 1];
      repeat = 3 + int(in.take(2));
    } else if (symbol == 17) {
      repeat = 3 + int(in.take(3));
    } else {
      repeat = 11 + int(in.take(7));
    }
    if (i + repeat > nlen + ndist) return InflateStatus::bad_code_lengths;
    while (repeat--) lengths[i++] = value;
  }
  if (lengths[256] == 0) return InflateStatus::bad_code_lengths;  // no end-of-block code
  if (!build(litlen, lengths, nlen, true)) return InflateStatus::bad_code_lengths;
  if (!build(dist, lengths + nlen, ndist, true)) return InflateStatus::bad_code_lengths;
  return InflateStatus::ok;
}

// The next deflate block's header. A stored block is copied whole into out[*produced...] (*coded
// false); a fixed or dynamic block leaves its codes in litlen and dist (*coded true) for
// next_symbol. *last: whether it is the stream's final block.
GP_HD InflateStatus begin_block(BitReader& in, Huffman& litlen, Huffman& dist, std::uint8_t* out, std::size_t capacity,
                                std::size_t* produced, bool* last, bool* coded) {
  in.refill();
  if (in.overrun()) return InflateStatus::input_overrun;
  *last = in.take(1) != 0;
  const std::uint32_t type = in.take(2);
  *coded = type == 1 || type == 2;
  if (type == 1) {
    fixed_codes(litlen, dist);
    return InflateStatus::ok;
  }
  if (type == 2) return dynamic_codes(in, litlen, dist);
  if (type == 3) return InflateStatus::bad_block_type;
  std::size_t at = in.align_to_byte();
  if (at + 4 > in.size) return InflateStatus::input_overrun;
  const std::size_t length = std::size_t(in.data[at]) | std::size_t(in.data[at + 1]) << 8;
  const std::size_t check = std::size_t(in.data[at + 2]) | std::size_t(in.data[at + 3]) << 8;
  if (length != (~check & 0xffff)) return InflateStatus::bad_stored_length;
  at += 4;
  if (at + length > in.size) return InflateStatus::input_overrun;
  if (length > capacity - *produced) return InflateStatus::output_overflow;
  for (std::size_t i = 0; i < length; ++i) out[*produced + i] = in.data[at + i];
  *produced += length;
  in.pos = at + length;
  return InflateStatus::ok;
}

// The zlib header (RFC 1950): deflate, no preset dictionary, the check bits right.
GP_HD InflateStatus check_zlib_header(const std::uint8_t* in, std::size_t in_size) {
  if (in_size < 6) return InflateStatus::input_overrun;
  const unsigned cmf = in[0], flg = in[1];
  if ((cmf & 15) != 8 || (cmf >> 4) > 7 || (cmf * 256 + flg) % 31 != 0 || (flg & 0x20))
    return InflateStatus::bad_zlib_header;
  return InflateStatus::ok;
}

// The Adler-32 after the final block (big-endian, from the next byte boundary); false if the
// stream ends first.
GP_HD bool read_adler32(BitReader& in, std::uint32_t* expected) {
  const std::size_t at = in.align_to_byte();
  if (at + 4 > in.size) return false;
  const std::uint8_t* p = in.data + at;
  *expected = std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | std::uint32_t(p[3]);
  return true;
}

GP_HD std::uint32_t adler32(const std::uint8_t* bytes, std::size_t n) {
  std::uint32_t a = 1, b = 0;
  while (n > 0) {
    const std::size_t run = n < 5552 ? n : 5552;  // the most bytes before b can overflow 32 bits
    for (std::size_t i = 0; i < run; ++i) {
      a += bytes[i];
      b += a;
    }
    a %= 65521u;
    b %= 65521u;
    bytes += run;
    n -= run;
  }
  return (b << 16) | a;
}

}  // namespace inflate_detail

// Scratch for one inflate: two Huffman codes (5.3 KB). On the GPU, one per thread.
struct InflateScratch {
  inflate_detail::Huffman litlen, dist;
};

// Decompresses the zlib stream [in, in + in_size) into out (capacity bytes); *produced: the bytes
// written (also on failure: how far it got). The whole stream must be one zlib stream: header,
// deflate blocks to the final one, Adler-32 of the output.
GP_HD InflateStatus inflate_zlib(const std::uint8_t* in, std::size_t in_size, std::uint8_t* out, std::size_t capacity,
                                 std::size_t* produced, InflateScratch& scratch) {
  using namespace inflate_detail;
  *produced = 0;
  const InflateStatus header = check_zlib_header(in, in_size);
  if (header != InflateStatus::ok) return header;
  BitReader reader{in, in_size, 2, 0, 0};
  for (bool last = false; !last;) {
    bool coded = false;
    InflateStatus status = begin_block(reader, scratch.litlen, scratch.dist, out, capacity, produced, &last, &coded);
    if (status == InflateStatus::ok && coded) status = codes(reader, scratch.litlen, scratch.dist, out, capacity, produced);
    if (status != InflateStatus::ok) return status;
  }
  std::uint32_t expected = 0;
  if (!read_adler32(reader, &expected)) return InflateStatus::input_overrun;
  return adler32(out, *produced) == expected ? InflateStatus::ok : InflateStatus::bad_checksum;
}

}  // namespace gp::exr
