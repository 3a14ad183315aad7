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
  for_each_chunk(batch.count(), threads, [&](int begin, int end) {
    // Inflate's tables (5.3 KB); PIZ's (about 1 MB) when there are PIZ blocks.
    const auto tables = std::make_unique<InflateScratch>();
    const auto piz = batch.piz_count ? std::make_unique<PizScratch>() : nullptr;
    for (int i = begin; i < end; ++i) {
      const BlockDesc& b = batch.blocks[i];
      const BlockFile& f = batch.files[b.file];
      const BlockShape shape{f.channels, f.channel_count, b.width, b.height};
      f.results[b.index] = decompress_block(f.compression, f.packed + b.packed_offset, std::size_t(b.packed_size),
                                            f.unpacked + b.unpacked_offset, std::size_t(b.unpacked_size),
                                            f.entropy + b.unpacked_offset, *tables, piz.get(), shape);
    }
  });
}

void unpack_blocks_cpu(const BlockBatch& batch, int threads) {
  for_each_chunk(batch.count(), threads, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      const BlockDesc& b = batch.blocks[i];
      const BlockFile& f = batch.files[b.file];
      if (f.results[b.index].status != BlockStatus::ok) continue;
      const std::size_t bytes_per_row = row_bytes(f.channels, f.channel_count, b.width);
      const std::uint8_t* unpacked = f.unpacked + b.unpacked_offset;
      for (int r = 0; r < b.height; ++r)
        for (int x = 0; x < b.width; ++x)
          unpack_pixel(unpacked + std::size_t(r) * bytes_per_row, f.channels, f.channel_count, b.width, f.pixels, b.x,
                       b.y + r, x);
    }
  });
}

}  // namespace gp::exr
