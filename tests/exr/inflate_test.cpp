// cuda/exr/inflate.hpp on the CPU (the GPU decoder runs the same code) against zlib and libdeflate:
// every block type and compressor setting gives zlib's bytes back; damaged streams give a status,
// never a read or write outside their buffers (the ASan build runs this file too).
#include <catch2/catch.hpp>
#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cuda/exr/inflate.hpp"

using gp::exr::InflateStatus;

namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes zlib_compress(const Bytes& data, int level, int strategy = Z_DEFAULT_STRATEGY) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, level, Z_DEFLATED, 15, 8, strategy) == Z_OK);
  Bytes out(deflateBound(&z, uLong(data.size())) + 16);
  z.next_in = const_cast<Bytes::value_type*>(data.data());
  z.avail_in = uInt(data.size());
  z.next_out = out.data();
  z.avail_out = uInt(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

Bytes libdeflate_compress(const Bytes& data, int level) {  // OpenEXR Core's compressor
  libdeflate_compressor* c = libdeflate_alloc_compressor(level);
  REQUIRE(c);
  Bytes out(libdeflate_zlib_compress_bound(c, data.size()));
  const std::size_t n = libdeflate_zlib_compress(c, data.data(), data.size(), out.data(), out.size());
  libdeflate_free_compressor(c);
  REQUIRE(n > 0);
  out.resize(n);
  return out;
}

InflateStatus inflate(const Bytes& stream, std::size_t capacity, Bytes& out) {
  gp::exr::InflateScratch scratch;
  out.assign(capacity, 0);
  std::size_t produced = 0;
  const InflateStatus status = gp::exr::inflate_zlib(stream.data(), stream.size(), out.data(), capacity, &produced, scratch);
  REQUIRE(produced <= capacity);
  out.resize(produced);
  return status;
}

// Data of the kinds an EXR block holds after OpenEXR's predictor and byte split, and worse.
Bytes sample(const std::string& kind, std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes b(n);
  if (kind == "noise") {
    for (auto& v : b) v = std::uint8_t(rng());
  } else if (kind == "runs") {
    for (std::size_t i = 0; i < n;) {
      const std::uint8_t v = std::uint8_t(rng() % 4);
      for (std::size_t k = rng() % 300; k-- && i < n;) b[i++] = v;
    }
  } else if (kind == "skewed") {  // geometric symbol frequencies: Huffman codes up to 15 bits long
    std::geometric_distribution<int> g(0.45);
    for (auto& v : b) v = std::uint8_t(std::min(255, g(rng) * 7));
  } else if (kind == "text") {
    const char* words[] = {"scanline ", "half ", "float ", "channel ", "tile ", "zip ", "piz ", "\n", "exr ", "R G B A "};
    std::string s;
    while (s.size() < n) s += words[rng() % 10];
    b.assign(s.begin(), s.begin() + std::ptrdiff_t(n));
  } else {  // "image": a smooth half-float gradient with sensor noise, predictor-coded bytes
    std::normal_distribution<float> noise(0.f, 2.f);
    std::uint8_t previous = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const int v = int(128 + 20 * std::sin(double(i) * 0.01) + noise(rng));
      const std::uint8_t byte = std::uint8_t(v & 0xff);
      b[i] = std::uint8_t(byte - previous + 128);
      previous = byte;
    }
  }
  return b;
}

}  // namespace

TEST_CASE("inflate: zlib's streams at every level and strategy decode to their bytes", "[exr][inflate]") {
  for (const std::string kind : {"noise", "runs", "skewed", "text", "image"})
    for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(100), std::size_t(70000), std::size_t(491520)})
      for (const int strategy : {Z_DEFAULT_STRATEGY, Z_FIXED, Z_HUFFMAN_ONLY, Z_RLE, Z_FILTERED})
        for (const int level : {0, 1, 6, 9}) {
          const Bytes data = sample(kind, n, std::uint32_t(n + level));
          const Bytes stream = zlib_compress(data, level, strategy);
          Bytes out;
          INFO(kind << " " << n << " bytes, level " << level << ", strategy " << strategy);
          REQUIRE(inflate(stream, n, out) == InflateStatus::ok);
          CHECK(out == data);
        }
}

TEST_CASE("inflate: libdeflate's streams (OpenEXR Core's ZIP blocks) decode to their bytes", "[exr][inflate]") {
  for (const std::string kind : {"noise", "runs", "text", "image"})
    for (const int level : {0, 1, 4, 6, 9, 12}) {
      const Bytes data = sample(kind, 16 * 3840 * 4 * 2, std::uint32_t(level));  // a ZIP block of 3840-wide half RGBA
      const Bytes stream = libdeflate_compress(data, level);
      Bytes out;
      INFO(kind << ", level " << level);
      REQUIRE(inflate(stream, data.size(), out) == InflateStatus::ok);
      CHECK(out == data);
    }
}

TEST_CASE("inflate: hand-made streams: empty, lone codes, and what zlib refuses", "[exr][inflate]") {
  Bytes out;
  // An empty final stored block: 78 01 | 01 00 00 ff ff | Adler-32 of nothing (00 00 00 01).
  CHECK(inflate({0x78, 0x01, 0x01, 0x00, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01}, 0, out) == InflateStatus::ok);
  CHECK(out.empty());
  // Block type 3 (reserved).
  CHECK(inflate({0x78, 0x01, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00}, 16, out) == InflateStatus::bad_block_type);
  // LEN and NLEN that disagree.
  CHECK(inflate({0x78, 0x01, 0x01, 0x01, 0x00, 0xff, 0xff, 0x41, 0x00, 0x00, 0x00, 0x00}, 16, out) ==
        InflateStatus::bad_stored_length);
  // Not deflate, and a header whose check fails.
  CHECK(inflate({0x79, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01}, 16, out) == InflateStatus::bad_zlib_header);
  CHECK(inflate({0x78, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01}, 16, out) == InflateStatus::bad_zlib_header);
  // A fixed block whose first symbol is a match (length 3, distance 1) with nothing before it:
  // 78 01, then bits: BFINAL 1, BTYPE 01, code 257 (0000001), distance 0 (00000), end (0000000).
  CHECK(inflate({0x78, 0x01, 0x03, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01}, 16, out) == InflateStatus::bad_distance);

  // A matching pair from zlib: "aaaa..." of 1000 bytes (one literal, then matches at distance 1).
  const Bytes runs(1000, 'a');
  const Bytes stream = zlib_compress(runs, 9);
  CHECK(inflate(stream, 1000, out) == InflateStatus::ok);
  CHECK(out == runs);
  CHECK(inflate(stream, 999, out) == InflateStatus::output_overflow);  // one byte short
}

TEST_CASE("inflate: damaged streams end with a status, within their buffers", "[exr][inflate]") {
  const Bytes data = sample("image", 60000, 7);
  for (const int level : {0, 1, 9}) {
    const Bytes stream = zlib_compress(data, level, level == 1 ? Z_FIXED : Z_DEFAULT_STRATEGY);
    Bytes out;
    // Every truncation: never ok (the checksum at least is missing).
    for (std::size_t cut = 0; cut < stream.size(); cut += 1 + cut / 64) {
      const Bytes part(stream.begin(), stream.begin() + std::ptrdiff_t(cut));
      INFO("level " << level << ", cut at " << cut << " of " << stream.size());
      CHECK(inflate(part, data.size(), out) != InflateStatus::ok);
    }
    // Flipped bits: either a status, or (a bit the decoder never reads) the same bytes.
    std::mt19937 rng{std::uint32_t(level)};
    for (int k = 0; k < 400; ++k) {
      Bytes bad = stream;
      bad[2 + rng() % (bad.size() - 2)] ^= std::uint8_t(1u << (rng() % 8));
      const InflateStatus status = inflate(bad, data.size(), out);
      INFO("level " << level << ", flip " << k << ": " << gp::exr::inflate_status_text(status));
      CHECK((status != InflateStatus::ok || out == data));
    }
    // Random bytes behind a valid header.
    for (int k = 0; k < 200; ++k) {
      Bytes junk(2 + rng() % 3000);
      for (auto& v : junk) v = std::uint8_t(rng());
      junk[0] = 0x78;
      junk[1] = 0x01;
      (void)inflate(junk, 4096, out);  // any status; ASan and the capacity check watch the buffers
    }
  }
}
