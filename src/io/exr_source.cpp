// EXR through OpenEXR's Core library: it parses the header and decodes chunks concurrently from
// one context, where OpenImageIO's path through the C++ library costs about three times as long
// per frame. Two steps are our own, both measured as the slow part of a Core decode:
// - ZIP/ZIPS chunks inflate with libdeflate (3-4x faster than the zlib Core 3.1 uses), then the
//   byte predictor and the two-halves interleave run in one pass;
// - the unpack into our interleaved rows is a plain per-channel copy (Core's generic unpack loops
//   per sample over a type switch).
#include <OpenEXR/openexr.h>
#include <libdeflate.h>

#include <Imath/half.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/error.hpp"
#include "io/exr_blocks.hpp"
#include "io/image_source.hpp"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "EXR data is little-endian; the unpack copies it as is");

namespace gp::io {
namespace {

// Core reports errors through a callback on the failing thread; keep the latest per thread.
thread_local std::string last_exr_error;

void record_exr_error(exr_const_context_t, exr_result_t code, const char* message) {
  last_exr_error = message && *message ? message : exr_get_default_error_message(code);
}

std::string exr_error_text(exr_result_t code) {
  std::string text = last_exr_error.empty() ? exr_get_default_error_message(code) : last_exr_error;
  last_exr_error.clear();
  return text;
}

// What one decoding thread keeps between chunks; reached through decoding_user_data.
struct ChunkDecoder {
  exr_const_context_t context;
  exr_decode_pipeline_t pipeline = EXR_DECODE_PIPELINE_INITIALIZER;
  bool initialized = false;
  libdeflate_decompressor* inflater = nullptr;
  std::vector<std::uint8_t> inflated;

  explicit ChunkDecoder(exr_const_context_t c) : context(c), inflater(libdeflate_alloc_decompressor()) {
    if (!inflater) throw std::bad_alloc();
  }
  ~ChunkDecoder() {
    if (initialized) exr_decoding_destroy(context, &pipeline);  // Core's buffers for this thread
    libdeflate_free_decompressor(inflater);
  }
  ChunkDecoder(const ChunkDecoder&) = delete;
  ChunkDecoder& operator=(const ChunkDecoder&) = delete;
};

// EXR's ZIP filter, undone in one pass: the stored bytes are deltas (+128) of a stream whose first
// half holds the even bytes of the chunk and whose second half the odd ones. Both halves are
// running sums; the odd one continues from the end of the even one, found first by a plain sum.
// The sums run 16 bytes at a time (a log-step prefix sum in an SSE register): as a scalar loop
// this filter cost as much as the inflate.
void undo_zip_filter(const std::uint8_t* deltas, std::size_t n, std::uint8_t* out) {
  if (n == 0) return;
  const std::size_t half = (n + 1) / 2, pairs = n / 2;
  const std::uint8_t* odd_deltas = deltas + half;
  unsigned sum = 0;  // wraps: only its low byte matters
  for (std::size_t i = 1; i < half; ++i) sum += deltas[i];
  std::uint8_t even = std::uint8_t(128);  // t[0] = d[0] = 128 + (d[0] - 128)
  std::uint8_t odd = std::uint8_t(deltas[0] + sum - 128u * unsigned(half - 1));
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i bias = _mm_set1_epi8(char(-128));
  auto prefix16 = [&](__m128i x, std::uint8_t carry) {
    x = _mm_add_epi8(x, bias);
    x = _mm_add_epi8(x, _mm_slli_si128(x, 1));
    x = _mm_add_epi8(x, _mm_slli_si128(x, 2));
    x = _mm_add_epi8(x, _mm_slli_si128(x, 4));
    x = _mm_add_epi8(x, _mm_slli_si128(x, 8));
    return _mm_add_epi8(x, _mm_set1_epi8(char(carry)));
  };
  for (; i + 16 <= pairs; i += 16) {
    const __m128i e = prefix16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(deltas + i)), even);
    const __m128i o = prefix16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(odd_deltas + i)), odd);
    even = std::uint8_t(_mm_extract_epi16(e, 7) >> 8);
    odd = std::uint8_t(_mm_extract_epi16(o, 7) >> 8);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * i), _mm_unpacklo_epi8(e, o));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * i + 16), _mm_unpackhi_epi8(e, o));
  }
#endif
  for (; i < pairs; ++i) {
    even = std::uint8_t(even + deltas[i] - 128);
    odd = std::uint8_t(odd + odd_deltas[i] - 128);
    out[2 * i] = even;
    out[2 * i + 1] = odd;
  }
  if (n & 1) out[n - 1] = std::uint8_t(even + deltas[pairs] - 128);
}

exr_result_t inflate_zip_chunk(exr_decode_pipeline_t* p) {
  auto& decoder = *static_cast<ChunkDecoder*>(p->decoding_user_data);
  const std::size_t n = p->chunk.unpacked_size;
  if (p->chunk.packed_size == n) {  // stored raw: it did not compress
    if (p->unpacked_buffer != p->packed_buffer) std::memcpy(p->unpacked_buffer, p->packed_buffer, n);
    return EXR_ERR_SUCCESS;
  }
  decoder.inflated.resize(n);
  std::size_t produced = 0;
  if (libdeflate_zlib_decompress(decoder.inflater, p->packed_buffer, p->chunk.packed_size, decoder.inflated.data(), n,
                                 &produced) != LIBDEFLATE_SUCCESS ||
      produced != n) {
    last_exr_error = "the zip data of the chunk is corrupt";
    return EXR_ERR_CORRUPT_CHUNK;
  }
  undo_zip_filter(decoder.inflated.data(), n, static_cast<std::uint8_t*>(p->unpacked_buffer));
  return EXR_ERR_SUCCESS;
}

template <std::size_t Bytes>
void copy_samples(const std::uint8_t* src, int count, std::uint8_t* dst, std::size_t stride) {
  for (int x = 0; x < count; ++x) std::memcpy(dst + std::size_t(x) * stride, src + std::size_t(x) * Bytes, Bytes);
}

// Stored channel samples of one line -> the destination's interleaved pixels.
void unpack_samples(const std::uint8_t* src, const exr_coding_channel_info_t& c, std::uint8_t* dst) {
  const std::size_t stride = std::size_t(c.user_pixel_stride);
  if (c.data_type == c.user_data_type) {
    if (c.bytes_per_element == 2) copy_samples<2>(src, c.width, dst, stride);
    else copy_samples<4>(src, c.width, dst, stride);
    return;
  }
  // Only promotions to float are planned (a half plan has half channels only).
  for (int x = 0; x < c.width; ++x) {
    float v;
    if (c.data_type == EXR_PIXEL_HALF) {
      std::uint16_t bits;
      std::memcpy(&bits, src + 2 * x, 2);
      v = float(Imath::half(Imath::half::FromBits, bits));
    } else {
      std::uint32_t u;
      std::memcpy(&u, src + 4 * x, 4);
      v = c.data_type == EXR_PIXEL_UINT ? float(u) : [&] { float f; std::memcpy(&f, &u, 4); return f; }();
    }
    std::memcpy(dst + x * stride, &v, 4);
  }
}

exr_result_t unpack_interleaved(exr_decode_pipeline_t* p) {
  const auto* src = static_cast<const std::uint8_t*>(p->unpacked_buffer);
  for (int y = 0; y < p->chunk.height; ++y)
    for (int k = 0; k < p->channel_count; ++k) {
      const exr_coding_channel_info_t& c = p->channels[k];
      if (c.decode_to_ptr) unpack_samples(src, c, c.decode_to_ptr + std::size_t(y) * std::size_t(c.user_line_stride));
      src += std::size_t(c.width) * std::size_t(c.bytes_per_element);
    }
  return EXR_ERR_SUCCESS;
}

struct Chunk {
  int x, y;           // data-window pixel of its top-left corner
  int tile_x, tile_y; // tiled parts only
};

class ExrSource final : public ImageSource {
 public:
  ExrSource(std::string path, exr_context_t context, std::vector<SourcePart> parts,
            std::vector<exr_compression_t> compressions)
      : path_(std::move(path)), context_(context), parts_(std::move(parts)), compressions_(std::move(compressions)) {}
  ~ExrSource() override { exr_finish(&context_); }

  const std::vector<SourcePart>& parts() const override { return parts_; }
  std::string format_name() const override { return "openexr"; }
  bool reads_channel_ranges() const override { return false; }

  ExrBlocks blocks(const ReadPlan& plan) const {
    const int part = plan.subimage;
    ExrBlocks out;
    out.compression = int(compressions_[std::size_t(part)]);
    try {
      const exr_attr_chlist_t* list = nullptr;
      check(exr_get_channels(context_, part, &list), "reading the channel list");
      for (int c = 0; c < list->num_channels; ++c) out.channel_types.push_back(int(list->entries[c].pixel_type));
      for (const Chunk& chunk : list_chunks(plan)) {
        exr_chunk_info_t info;
        check(plan.tiled ? exr_read_tile_chunk_info(context_, part, chunk.tile_x, chunk.tile_y, 0, 0, &info)
                         : exr_read_scanline_chunk_info(context_, part, plan.y_begin + chunk.y, &info),
              where(chunk));
        out.blocks.push_back({info.data_offset, info.packed_size, info.unpacked_size, chunk.x, chunk.y, info.width, info.height});
      }
    } catch (const std::runtime_error& e) {
      throw ItemError(path_, "decode", e.what());
    }
    return out;
  }

  void read(const ReadPlan& plan, void* dst, std::size_t pitch, int threads) override {
    const std::vector<Chunk> chunks = list_chunks(plan);
    std::atomic<std::size_t> next{0};
    std::vector<std::string> errors(std::size_t(std::max(1, threads)));
    auto work = [&](std::size_t t) {
      try {
        ChunkDecoder decoder(context_);
        for (std::size_t i; (i = next++) < chunks.size();) decode_chunk(plan, chunks[i], decoder, dst, pitch);
      } catch (const std::exception& e) {
        errors[t] = e.what();
        next = chunks.size();  // stop the others
      }
    };
    std::vector<std::thread> helpers;
    const std::size_t thread_count = std::min(errors.size(), chunks.size());
    for (std::size_t t = 1; t < thread_count; ++t) helpers.emplace_back(work, t);
    work(0);
    for (auto& h : helpers) h.join();
    for (auto& e : errors)
      if (!e.empty()) throw ItemError(path_, "decode", e);
  }

 private:
  std::vector<Chunk> list_chunks(const ReadPlan& plan) const {
    const int part = plan.subimage;
    std::vector<Chunk> chunks;
    if (!plan.tiled) {
      int32_t lines = 1;
      check(exr_get_scanlines_per_chunk(context_, part, &lines), "reading the header");
      for (int y = 0; y < plan.height; y += std::max(1, lines)) chunks.push_back({0, y, 0, 0});
      return chunks;
    }
    int32_t tile_w = 0, tile_h = 0;
    check(exr_get_tile_sizes(context_, part, 0, 0, &tile_w, &tile_h), "reading the tile sizes");
    if (tile_w < 1 || tile_h < 1) throw std::runtime_error("invalid tile size");
    for (int ty = 0; ty * tile_h < plan.height; ++ty)
      for (int tx = 0; tx * tile_w < plan.width; ++tx) chunks.push_back({tx * tile_w, ty * tile_h, tx, ty});
    return chunks;
  }

  void decode_chunk(const ReadPlan& plan, const Chunk& chunk, ChunkDecoder& decoder, void* dst, std::size_t pitch) {
    const int part = plan.subimage;
    exr_chunk_info_t info;
    const exr_result_t found = plan.tiled
                                   ? exr_read_tile_chunk_info(context_, part, chunk.tile_x, chunk.tile_y, 0, 0, &info)
                                   : exr_read_scanline_chunk_info(context_, part, plan.y_begin + chunk.y, &info);
    check(found, where(chunk));
    exr_decode_pipeline_t& p = decoder.pipeline;
    check(decoder.initialized ? exr_decoding_update(context_, part, &info, &p)
                              : exr_decoding_initialize(context_, part, &info, &p),
          where(chunk));
    decoder.initialized = true;
    p.decoding_user_data = &decoder;

    const std::size_t value_bytes = pixel_type_bytes(plan.type);
    const std::size_t pixel_bytes = value_bytes * plan.channels.size();
    auto* corner = static_cast<std::uint8_t*>(dst) + std::size_t(chunk.y) * pitch + std::size_t(chunk.x) * pixel_bytes;
    for (int k = 0; k < p.channel_count; ++k) {
      exr_coding_channel_info_t& c = p.channels[k];
      const auto slot = std::find(plan.channels.begin(), plan.channels.end(), k);
      c.decode_to_ptr = slot == plan.channels.end() ? nullptr : corner + std::size_t(slot - plan.channels.begin()) * value_bytes;
      c.user_pixel_stride = int32_t(pixel_bytes);
      c.user_line_stride = int32_t(pitch);
      c.user_bytes_per_element = int16_t(value_bytes);
      c.user_data_type = plan.type == PixelType::f16 ? EXR_PIXEL_HALF : EXR_PIXEL_FLOAT;
    }
    check(exr_decoding_choose_default_routines(context_, part, &p), where(chunk));
    // Core reads uncompressed planar data straight into place (no unpack); otherwise ours.
    if (p.unpack_and_convert_fn) p.unpack_and_convert_fn = &unpack_interleaved;
    const exr_compression_t compression = compressions_[std::size_t(part)];
    if (p.decompress_fn && (compression == EXR_COMPRESSION_ZIP || compression == EXR_COMPRESSION_ZIPS))
      p.decompress_fn = &inflate_zip_chunk;
    check(exr_decoding_run(context_, part, &p), where(chunk));
  }

  static std::string where(const Chunk& chunk) {
    return "the block at x " + std::to_string(chunk.x) + ", y " + std::to_string(chunk.y);
  }

  static void check(exr_result_t result, const std::string& doing) {
    if (result != EXR_ERR_SUCCESS) throw std::runtime_error(doing + ": " + exr_error_text(result));
  }

  std::string path_;
  exr_context_t context_;
  std::vector<SourcePart> parts_;
  std::vector<exr_compression_t> compressions_;
};

}  // namespace

std::optional<ExrBlocks> exr_blocks(ImageSource& source, const ReadPlan& plan) {
  auto* exr = dynamic_cast<ExrSource*>(&source);
  if (!exr) return std::nullopt;
  return exr->blocks(plan);
}

std::unique_ptr<ImageSource> open_exr_source(const std::string& path) {
  exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
  init.error_handler_fn = &record_exr_error;
  exr_context_t context = nullptr;
  if (exr_start_read(&context, path.c_str(), &init) != EXR_ERR_SUCCESS) {
    last_exr_error.clear();
    exr_finish(&context);
    return nullptr;  // not an EXR, or one Core cannot parse: OpenImageIO will read it or say why
  }
  auto close_and_decline = [&] {
    exr_finish(&context);
    last_exr_error.clear();
    return nullptr;
  };

  int count = 0;
  if (exr_get_count(context, &count) != EXR_ERR_SUCCESS || count < 1) return close_and_decline();
  std::vector<SourcePart> parts;
  std::vector<exr_compression_t> compressions;
  for (int i = 0; i < count; ++i) {
    SourcePart part;
    const char* name = nullptr;
    exr_storage_t storage;
    exr_compression_t compression;
    exr_attr_box2i_t window;
    const exr_attr_chlist_t* channels = nullptr;
    if (exr_get_storage(context, i, &storage) || exr_get_compression(context, i, &compression) ||
        exr_get_data_window(context, i, &window) || exr_get_channels(context, i, &channels) || !channels)
      return close_and_decline();
    // Core 3.1 has no DWA decoder; OpenImageIO reads these parts through the C++ library.
    if (compression == EXR_COMPRESSION_DWAA || compression == EXR_COMPRESSION_DWAB) return close_and_decline();
    if (exr_get_name(context, i, &name) == EXR_ERR_SUCCESS && name) part.name = name;
    last_exr_error.clear();  // an unnamed part reports a missing attribute
    part.deep = storage == EXR_STORAGE_DEEP_SCANLINE || storage == EXR_STORAGE_DEEP_TILED;
    part.tiled = storage == EXR_STORAGE_TILED || storage == EXR_STORAGE_DEEP_TILED;
    part.width = int(int64_t(window.max.x) - window.min.x + 1);
    part.height = int(int64_t(window.max.y) - window.min.y + 1);
    part.y_begin = window.min.y;
    const bool b44 = compression == EXR_COMPRESSION_B44 || compression == EXR_COMPRESSION_B44A;
    for (int c = 0; c < channels->num_channels; ++c) {
      const exr_attr_chlist_entry_t& entry = channels->entries[c];
      if (entry.x_sampling != 1 || entry.y_sampling != 1) return close_and_decline();
      // Core 3.1's B44 decoder garbles the float channels of a part (tests/io/exr_source_test.cpp).
      if (b44 && entry.pixel_type != EXR_PIXEL_HALF) return close_and_decline();
      part.channels.emplace_back(entry.name.str, std::size_t(entry.name.length));
      part.channel_is_half.push_back(entry.pixel_type == EXR_PIXEL_HALF);
    }
    parts.push_back(std::move(part));
    compressions.push_back(compression);
  }
  return std::make_unique<ExrSource>(path, context, std::move(parts), std::move(compressions));
}

}  // namespace gp::io
