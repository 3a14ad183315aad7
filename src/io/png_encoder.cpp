#include "io/png_encoder.hpp"

#include <libdeflate.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>

#include "core/error.hpp"
#include "io/fast_png.hpp"

namespace gp::io {
namespace {

enum Filter : std::uint8_t { kNone = 0, kSub = 1, kUp = 2, kAverage = 3, kPaeth = 4 };

// Filters `row` (PNG byte order) against the previous row `prior` (zeros for the first row) into
// `out`; `bpp` is bytes per pixel. Plain loops the compiler vectorises.
void apply_filter(Filter f, const std::uint8_t* row, const std::uint8_t* prior, std::size_t n, std::size_t bpp,
                  std::uint8_t* out) {
  const std::size_t lead = std::min(bpp, n);  // bytes with no left neighbour
  switch (f) {
    case kNone:
      std::memcpy(out, row, n);
      return;
    case kSub:
      std::memcpy(out, row, lead);
      for (std::size_t i = lead; i < n; ++i) out[i] = std::uint8_t(row[i] - row[i - bpp]);
      return;
    case kUp:
      for (std::size_t i = 0; i < n; ++i) out[i] = std::uint8_t(row[i] - prior[i]);
      return;
    case kAverage:
      for (std::size_t i = 0; i < lead; ++i) out[i] = std::uint8_t(row[i] - (prior[i] >> 1));
      for (std::size_t i = lead; i < n; ++i) out[i] = std::uint8_t(row[i] - ((row[i - bpp] + prior[i]) >> 1));
      return;
    case kPaeth:
      for (std::size_t i = 0; i < lead; ++i) out[i] = std::uint8_t(row[i] - prior[i]);  // predictor = up
      for (std::size_t i = lead; i < n; ++i) {
        const int a = row[i - bpp], b = prior[i], c = prior[i - bpp];
        const int pa = std::abs(b - c), pb = std::abs(a - c), pc = std::abs(a + b - 2 * c);
        const int predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
        out[i] = std::uint8_t(row[i] - predictor);
      }
      return;
  }
}

// libpng's heuristic: the filtered row whose bytes, read as signed, have the smallest absolute sum.
std::uint64_t filtered_cost(const std::uint8_t* filtered, std::size_t n) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += std::uint64_t(std::abs(int(std::int8_t(filtered[i]))));
  return sum;
}

// Row bytes in PNG order: samples as they are for 8-bit, big-endian for 16-bit.
void png_row_bytes(const ImageView& image, int y, std::uint8_t* out) {
  const std::size_t n = image.row_bytes();
  if (image.type == PixelType::u8) {
    std::memcpy(out, image.row<std::uint8_t>(y), n);
    return;
  }
  const std::uint16_t* src = image.row<std::uint16_t>(y);
  for (std::size_t i = 0; i < n / 2; ++i) {
    out[2 * i] = std::uint8_t(src[i] >> 8);
    out[2 * i + 1] = std::uint8_t(src[i]);
  }
}

// Working memory kept per thread: the save workers encode image after image of similar sizes.
struct Scratch {
  std::vector<std::uint8_t> filtered, compressed, rows;
};
Scratch& thread_scratch() {
  thread_local Scratch scratch;
  return scratch;
}

struct CompressorDeleter {
  void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};

libdeflate_compressor* thread_compressor(int level) {
  thread_local std::array<std::unique_ptr<libdeflate_compressor, CompressorDeleter>, 13> compressors;
  auto& c = compressors[std::size_t(level)];
  if (!c) c.reset(libdeflate_alloc_compressor(level));
  if (!c) throw Error("out of memory allocating a deflate compressor");
  return c.get();
}

// The filtered image: each row is its filter type byte followed by the filtered bytes.
void filter_image(const ImageView& image, int level, std::vector<std::uint8_t>& filtered, std::vector<std::uint8_t>& rows) {
  const std::size_t n = image.row_bytes();
  const std::size_t bpp = std::size_t(image.channels) * pixel_type_bytes(image.type);
  static constexpr Filter kFast[] = {kNone, kSub, kUp};
  static constexpr Filter kAll[] = {kNone, kSub, kUp, kAverage, kPaeth};
  const Filter* candidates = level <= 3 ? kFast : kAll;
  const std::size_t candidate_count = level == 0 ? 1 : level <= 3 ? std::size(kFast) : std::size(kAll);

  filtered.resize((n + 1) * std::size_t(image.height));
  // rows: current row, previous row, one scratch row per candidate.
  rows.assign(n * (2 + candidate_count), 0);
  std::uint8_t* current = rows.data();
  std::uint8_t* prior = current + n;  // zeros before the first row, as PNG defines
  std::uint8_t* trial = prior + n;
  for (int y = 0; y < image.height; ++y) {
    png_row_bytes(image, y, current);
    std::size_t best = 0;
    std::uint64_t best_cost = ~std::uint64_t(0);
    for (std::size_t k = 0; k < candidate_count; ++k) {
      apply_filter(candidates[k], current, prior, n, bpp, trial + k * n);
      const std::uint64_t cost = candidate_count == 1 ? 0 : filtered_cost(trial + k * n, n);
      if (cost < best_cost) best_cost = cost, best = k;
    }
    std::uint8_t* dst = filtered.data() + (n + 1) * std::size_t(y);
    dst[0] = candidates[best];
    std::memcpy(dst + 1, trial + best * n, n);
    std::swap(current, prior);
  }
}

void put_u32(std::uint8_t* p, std::uint32_t v) {
  p[0] = std::uint8_t(v >> 24), p[1] = std::uint8_t(v >> 16), p[2] = std::uint8_t(v >> 8), p[3] = std::uint8_t(v);
}

using Sink = std::function<void(const void*, std::size_t)>;

// One chunk: length, type, data, CRC of type and data.
void put_chunk(const Sink& sink, const char (&type)[5], const std::uint8_t* data, std::size_t size) {
  std::uint8_t head[8], tail[4];
  put_u32(head, std::uint32_t(size));
  std::memcpy(head + 4, type, 4);
  std::uint32_t crc = libdeflate_crc32(0, head + 4, 4);
  if (size) crc = libdeflate_crc32(crc, data, size);
  put_u32(tail, crc);
  sink(head, 8);
  if (size) sink(data, size);
  sink(tail, 4);
}

void check_encodable(const ImageView& image) {
  if ((image.type != PixelType::u8 && image.type != PixelType::u16) || image.channels < 1 || image.channels > 4 ||
      image.width < 1 || image.height < 1 || image.pitch < image.row_bytes())
    throw Error("PNG encoding needs an 8- or 16-bit image of 1 to 4 channels (got " + std::to_string(image.width) +
                "x" + std::to_string(image.height) + "x" + std::to_string(image.channels) + ")");
}

// The zlib stream of the filtered rows by libdeflate (levels 0 and 2..9), in thread scratch.
std::pair<const std::uint8_t*, std::size_t> deflate_stream(const ImageView& image, int level) {
  Scratch& s = thread_scratch();
  filter_image(image, level, s.filtered, s.rows);
  libdeflate_compressor* compressor = thread_compressor(level);
  s.compressed.resize(libdeflate_zlib_compress_bound(compressor, s.filtered.size()));
  const std::size_t size =
      libdeflate_zlib_compress(compressor, s.filtered.data(), s.filtered.size(), s.compressed.data(), s.compressed.size());
  if (size == 0) throw Error("deflate produced no output");
  return {s.compressed.data(), size};
}

// Signature, header, the stream in IDAT chunks, end.
void put_png(const ImageView& shape, const std::uint8_t* zlib, std::size_t size, const Sink& sink) {
  check_encodable(shape);
  static constexpr std::uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  static constexpr std::uint8_t kColourType[5] = {0, 0 /* grey */, 4 /* grey+alpha */, 2 /* RGB */, 6 /* RGBA */};
  sink(kSignature, sizeof kSignature);
  std::uint8_t header[13];
  put_u32(header, std::uint32_t(shape.width));
  put_u32(header + 4, std::uint32_t(shape.height));
  header[8] = shape.type == PixelType::u8 ? 8 : 16;
  header[9] = kColourType[shape.channels];
  header[10] = header[11] = header[12] = 0;  // deflate, adaptive filtering, no interlace
  put_chunk(sink, "IHDR", header, sizeof header);
  // IDAT chunks of at most 8 MiB: readers handle one huge chunk, but some tools stream by chunk.
  constexpr std::size_t kMaxChunk = std::size_t(8) << 20;
  for (std::size_t at = 0; at < size; at += kMaxChunk) put_chunk(sink, "IDAT", zlib + at, std::min(kMaxChunk, size - at));
  put_chunk(sink, "IEND", nullptr, 0);
}

// Level 1: the fast path's CPU reference (the GPU path writes the same bytes); others: libdeflate.
void encode_to(const ImageView& image, int level, const Sink& sink) {
  check_encodable(image);
  if (!image.data) throw Error("PNG encoding: the image has no pixels");
  level = std::clamp(level, 0, 9);
  if (level == 1) {
    const std::vector<std::uint8_t> stream = fast_png_stream_cpu(image);
    put_png(image, stream.data(), stream.size(), sink);
  } else {
    const auto [zlib, size] = deflate_stream(image, level);
    put_png(image, zlib, size, sink);
  }
}

// Runs `body` with a sink writing to a new file at `path`; errors name the file.
void write_file(const std::string& path, const std::function<void(const Sink&)>& body) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!file) throw ItemError(path, "encode", std::string("cannot create the file: ") + std::strerror(errno));
  try {
    body([&](const void* data, std::size_t size) {
      if (std::fwrite(data, 1, size, file.get()) != size)
        throw ItemError(path, "encode", std::string("writing failed: ") + std::strerror(errno));
    });
  } catch (const ItemError&) {
    throw;
  } catch (const std::exception& e) {
    throw ItemError(path, "encode", e.what());
  }
  if (std::fclose(file.release()) != 0)
    throw ItemError(path, "encode", std::string("closing the file failed: ") + std::strerror(errno));
}

}  // namespace

std::vector<std::uint8_t> encode_png(const ImageView& image, int level) {
  std::vector<std::uint8_t> bytes;
  encode_to(image, level, [&](const void* data, std::size_t size) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    bytes.insert(bytes.end(), p, p + size);
  });
  return bytes;
}

void write_png(const std::string& path, const ImageView& image, int level) {
  write_file(path, [&](const Sink& sink) { encode_to(image, level, sink); });
}

void write_png_stream(const std::string& path, const ImageView& shape, const std::uint8_t* zlib, std::size_t size) {
  write_file(path, [&](const Sink& sink) { put_png(shape, zlib, size, sink); });
}

}  // namespace gp::io
