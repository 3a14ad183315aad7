#pragma once
// One OpenEXR block (a scanline chunk or a tile) from its stored bytes to pixels, in steps written
// once for the GPU decoder and the CPU: the entropy stage (inflate for ZIP and ZIPS, run lengths for
// RLE; stored bytes for NONE and for any block whose compression did not help), OpenEXR's byte
// filter (ZIP, ZIPS and RLE store the block's bytes split, even bytes first, then delta coded),
// then the samples of each row and channel into the destination's interleaved pixels. OpenEXR Core
// (src/io/exr_source.cpp) is the reference these are held against.
#include <cstddef>
#include <cstdint>

#include "cuda/common/half.hpp"
#include "cuda/common/host_device.hpp"
#include "cuda/exr/exr_types.hpp"
#include "cuda/exr/inflate.hpp"
#include "cuda/exr/piz.hpp"

namespace gp::exr {

enum class BlockStatus : int {
  ok = 0,
  bad_size,          // the block decodes to another size than its header says
  bad_run_length,    // an RLE run past the end of its input or output
  inflate_failed,    // see the InflateStatus beside it
  piz_failed,        // see the PizStatus beside it
  unsupported,       // a compression this decoder does not have
};

// A block's outcome: the step's status and, where one failed, its own.
struct BlockResult {
  BlockStatus status;
  InflateStatus inflate;
  PizStatus piz;
};

// A block's pixels: `width` x `height` of the stored channels (PIZ transforms each channel's plane).
struct BlockShape {
  const ChannelTarget* channels;
  int channel_count;
  int width, height;
};


GP_HD const char* block_status_text(const BlockResult& r) {
  switch (r.status) {
    case BlockStatus::ok: return "ok";
    case BlockStatus::bad_size: return "it decodes to another size than the header says";
    case BlockStatus::bad_run_length: return "the RLE data is corrupt";
    case BlockStatus::inflate_failed: return inflate_status_text(r.inflate);
    case BlockStatus::piz_failed: return piz_status_text(r.piz);
    case BlockStatus::unsupported: return "a compression this decoder does not decode";
  }
  return "unknown";
}

// RLE (OpenEXR's unRleCompress): a signed count byte; negative: that many literal bytes follow;
// otherwise the next byte repeated count + 1 times. Returns bad_run_length for a run past either end.
GP_HD BlockStatus rle_decode(const std::uint8_t* in, std::size_t size, std::uint8_t* out, std::size_t capacity,
                             std::size_t* produced) {
  std::size_t i = 0, n = 0;
  while (i < size) {
    const int count = int(static_cast<signed char>(in[i++]));
    if (count < 0) {
      const std::size_t run = std::size_t(-count);
      if (run > size - i || run > capacity - n) return BlockStatus::bad_run_length;
      for (std::size_t k = 0; k < run; ++k) out[n + k] = in[i + k];
      i += run;
      n += run;
    } else {
      const std::size_t run = std::size_t(count) + 1;
      if (i >= size || run > capacity - n) return BlockStatus::bad_run_length;
      const std::uint8_t value = in[i++];
      for (std::size_t k = 0; k < run; ++k) out[n + k] = value;
      n += run;
    }
  }
  *produced = n;
  return BlockStatus::ok;
}

// OpenEXR's ZIP/RLE byte filter undone (its reconstruct, then interleave): `deltas` are the
// differences (+128) of a stream whose first half, (n + 1) / 2 bytes, holds the block's even bytes
// and whose second half the odd ones. One pass, as a running sum.
GP_HD void undo_byte_filter(const std::uint8_t* deltas, std::size_t n, std::uint8_t* out) {
  if (n == 0) return;
  const std::size_t half = (n + 1) / 2;
  std::uint8_t value = deltas[0];
  out[0] = value;
  for (std::size_t i = 1; i < n; ++i) {
    value = std::uint8_t(value + deltas[i] - 128);
    // stream position i -> block byte: the first half's to even places, the second's to odd ones
    out[i < half ? 2 * i : 2 * (i - half) + 1] = value;
  }
}

// Whether a block's stored bytes are its unpacked bytes: no compression, or compression that would
// not have saved a byte (OpenEXR then writes the unpacked bytes, filter and all undone).
GP_HD bool stored_as_is(Compression compression, std::size_t packed_size, std::size_t unpacked_size) {
  return compression == Compression::none || packed_size == unpacked_size;
}

GP_HD BlockResult copy_stored(const std::uint8_t* packed, std::size_t packed_size, std::uint8_t* unpacked,
                              std::size_t unpacked_size) {
  BlockResult r{BlockStatus::ok, InflateStatus::ok, PizStatus::ok};
  if (packed_size != unpacked_size) r.status = BlockStatus::bad_size;
  else
    for (std::size_t i = 0; i < packed_size; ++i) unpacked[i] = packed[i];
  return r;
}

// After an entropy stage (inflate, RLE) wrote `produced` bytes to `filtered`: the size checked,
// then the byte filter undone into `unpacked`.
GP_HD BlockResult unfilter(BlockResult r, std::size_t produced, const std::uint8_t* filtered, std::uint8_t* unpacked,
                           std::size_t unpacked_size) {
  if (r.status != BlockStatus::ok) return r;
  if (produced != unpacked_size) {
    r.status = BlockStatus::bad_size;
    return r;
  }
  undo_byte_filter(filtered, unpacked_size, unpacked);
  return r;
}

GP_HD BlockResult rle_block(const std::uint8_t* packed, std::size_t packed_size, std::uint8_t* unpacked,
                            std::size_t unpacked_size, std::uint8_t* scratch) {
  std::size_t produced = 0;
  const BlockResult r{rle_decode(packed, packed_size, scratch, unpacked_size, &produced), InflateStatus::ok, PizStatus::ok};
  return unfilter(r, produced, scratch, unpacked, unpacked_size);
}

GP_HD BlockResult zip_block(const std::uint8_t* packed, std::size_t packed_size, std::uint8_t* unpacked,
                            std::size_t unpacked_size, std::uint8_t* scratch, InflateScratch& tables) {
  std::size_t produced = 0;
  BlockResult r{BlockStatus::ok, inflate_zlib(packed, packed_size, scratch, unpacked_size, &produced, tables), PizStatus::ok};
  if (r.inflate != InflateStatus::ok) r.status = BlockStatus::inflate_failed;
  return unfilter(r, produced, scratch, unpacked, unpacked_size);
}

GP_HD BlockResult piz_block(const std::uint8_t* packed, std::size_t packed_size, std::uint8_t* unpacked,
                            std::size_t unpacked_size, std::uint8_t* scratch, PizScratch& piz, const BlockShape& shape) {
  BlockResult r{BlockStatus::ok, InflateStatus::ok, PizStatus::ok};
  if (unpacked_size % 2) {
    r.status = BlockStatus::bad_size;
    return r;
  }
  r.piz = piz_decompress(packed, packed_size, unpacked, unpacked_size, shape.channels, shape.channel_count, shape.width,
                         shape.height, reinterpret_cast<std::uint16_t*>(scratch), piz);
  if (r.piz != PizStatus::ok) r.status = BlockStatus::piz_failed;
  return r;  // (no byte filter in PIZ)
}

// The stored bytes of one block -> its unpacked bytes (rows of channels of samples, little-endian),
// unpacked_size of them: the CPU decoder's whole step (the GPU runs the same pieces in a kernel per
// compression). `scratch` holds unpacked_size bytes (the entropy stage's output before the filter;
// PIZ's planes of 16-bit values); `tables` serves inflate, `piz` (null unless PIZ) PIZ.
GP_HD BlockResult decompress_block(Compression compression, const std::uint8_t* packed, std::size_t packed_size,
                                   std::uint8_t* unpacked, std::size_t unpacked_size, std::uint8_t* scratch,
                                   InflateScratch& tables, PizScratch* piz, const BlockShape& shape) {
  if (stored_as_is(compression, packed_size, unpacked_size)) return copy_stored(packed, packed_size, unpacked, unpacked_size);
  if (compression == Compression::zip || compression == Compression::zips)
    return zip_block(packed, packed_size, unpacked, unpacked_size, scratch, tables);
  if (compression == Compression::rle) return rle_block(packed, packed_size, unpacked, unpacked_size, scratch);
  if (compression == Compression::piz && piz) return piz_block(packed, packed_size, unpacked, unpacked_size, scratch, *piz, shape);
  return BlockResult{BlockStatus::unsupported, InflateStatus::ok, PizStatus::ok};
}

// The destination: interleaved pixels of `slots` values of `out` type (half or float32), rows
// `pitch` bytes apart, pixel (0, 0) at `data` (the data window's or the plan's corner).
struct PixelTarget {
  std::uint8_t* data;
  std::size_t pitch;
  int slots;
  SampleType out;
};

GP_HD void store_sample(const std::uint8_t* src, SampleType stored, std::uint8_t* dst, SampleType out) {
  if (out == SampleType::half) {  // (a half plan reads half channels only)
    dst[0] = src[0];
    dst[1] = src[1];
    return;
  }
  float v;
  if (stored == SampleType::half) {
    v = half_to_float(std::uint16_t(src[0] | src[1] << 8));
  } else {
    const std::uint32_t u = std::uint32_t(src[0]) | std::uint32_t(src[1]) << 8 | std::uint32_t(src[2]) << 16 |
                            std::uint32_t(src[3]) << 24;
    if (stored == SampleType::uint32) {
      v = float(u);
    } else {
      union {
        std::uint32_t u;
        float f;
      } bits{u};
      v = bits.f;
    }
  }
  const union {
    float f;
    std::uint32_t u;
  } bits{v};
  for (int k = 0; k < 4; ++k) dst[k] = std::uint8_t(bits.u >> (8 * k));
}

// Pixel i of one row of a block's unpacked bytes (rows of channels of `width` samples each) into the
// destination at pixel (x + i, y): its sample of each channel read.
GP_HD void unpack_pixel(const std::uint8_t* row, const ChannelTarget* channels, int channel_count, int width,
                        const PixelTarget& dst, int x, int y, int i) {
  const std::size_t value_bytes = std::size_t(sample_bytes(dst.out));
  std::uint8_t* pixel = dst.data + std::size_t(y) * dst.pitch + std::size_t(x + i) * value_bytes * std::size_t(dst.slots);
  const std::uint8_t* plane = row;  // this channel's samples of the row
  for (int c = 0; c < channel_count; ++c) {
    const std::size_t bytes = std::size_t(sample_bytes(channels[c].stored));
    if (channels[c].slot >= 0)
      store_sample(plane + std::size_t(i) * bytes, channels[c].stored, pixel + std::size_t(channels[c].slot) * value_bytes, dst.out);
    plane += std::size_t(width) * bytes;
  }
}

// The bytes of one row of a block: every channel's `width` samples.
GP_HD std::size_t row_bytes(const ChannelTarget* channels, int channel_count, int width) {
  std::size_t n = 0;
  for (int c = 0; c < channel_count; ++c) n += std::size_t(width) * std::size_t(sample_bytes(channels[c].stored));
  return n;
}

}  // namespace gp::exr
