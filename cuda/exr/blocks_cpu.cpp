#include <algorithm>
#include <memory>

#include "core/parallel_for.hpp"
#include "cuda/exr/exr_kernels.hpp"

namespace gp::exr {
namespace {

// Runs body(begin, end) over [0, count) in at most `threads` contiguous chunks (the project's
// fork-join loop; a chunk's scratch is made once for its blocks).
template <typename Body>
void for_each_chunk(int count, int threads, const Body& body) {
  const long chunk = (long(count) + std::max(1, threads) - 1) / std::max(1, threads);
  parallel_for(count, [&](long begin, long end) { body(int(begin), int(end)); }, std::max(1L, chunk));
}

}  // namespace

void decompress_blocks_cpu(const BlockBatch& batch, int threads) {
  for_each_chunk(batch.count, threads, [&](int begin, int end) {
    // Inflate's tables (5.3 KB); PIZ's (about 1 MB) for PIZ blocks only.
    const auto tables = std::make_unique<InflateScratch>();
    const auto piz = batch.compression == Compression::piz ? std::make_unique<PizScratch>() : nullptr;
    for (int i = begin; i < end; ++i) {
      const BlockDesc& b = batch.blocks[i];
      const BlockShape shape{batch.channels, batch.channel_count, b.width, b.height};
      batch.results[i] = decompress_block(batch.compression, batch.packed + b.packed_offset, std::size_t(b.packed_size),
                                          batch.unpacked + b.unpacked_offset, std::size_t(b.unpacked_size),
                                          batch.entropy + b.unpacked_offset, *tables, piz.get(), shape);
    }
  });
}

void unpack_blocks_cpu(const BlockBatch& batch, const PixelTarget& dst, int threads) {
  const ChannelTarget* channels = batch.channels;
  const int channel_count = batch.channel_count;
  for_each_chunk(batch.count, threads, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      if (batch.results[i].status != BlockStatus::ok) continue;
      const BlockDesc& b = batch.blocks[i];
      const std::size_t bytes_per_row = row_bytes(channels, channel_count, b.width);
      const std::uint8_t* unpacked = batch.unpacked + b.unpacked_offset;
      for (int r = 0; r < b.height; ++r)
        for (int x = 0; x < b.width; ++x)
          unpack_pixel(unpacked + std::size_t(r) * bytes_per_row, channels, channel_count, b.width, dst, b.x, b.y + r, x);
    }
  });
}

}  // namespace gp::exr
