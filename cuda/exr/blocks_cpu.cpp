#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "cuda/exr/exr_kernels.hpp"

namespace gp::exr {
namespace {

// Runs body(i, t) for i in [0, count) on up to `threads` threads (t: the thread's number), each
// thread taking the next index.
template <typename Body>
void for_each_block(int count, int threads, const Body& body) {
  std::atomic<int> next{0};
  const auto work = [&](int t) {
    for (int i; (i = next++) < count;) body(i, t);
  };
  std::vector<std::thread> helpers;
  for (int t = 1; t < std::min(threads, count); ++t) helpers.emplace_back(work, t);
  work(0);
  for (std::thread& h : helpers) h.join();
}

}  // namespace

void decompress_blocks_cpu(const BlockBatch& batch, int threads) {
  threads = std::max(1, threads);
  // Per thread: inflate's tables (5.3 KB); PIZ's (about 1 MB) for PIZ blocks only.
  std::vector<std::unique_ptr<InflateScratch>> tables;
  std::vector<std::unique_ptr<PizScratch>> piz;
  for (int t = 0; t < threads; ++t) {
    tables.push_back(std::make_unique<InflateScratch>());
    piz.push_back(batch.compression == Compression::piz ? std::make_unique<PizScratch>() : nullptr);
  }
  for_each_block(batch.count, threads, [&](int i, int t) {
    const BlockDesc& b = batch.blocks[i];
    const BlockShape shape{batch.channels, batch.channel_count, b.width, b.height};
    batch.results[i] = decompress_block(batch.compression, batch.packed + b.packed_offset, std::size_t(b.packed_size),
                                        batch.unpacked + b.unpacked_offset, std::size_t(b.unpacked_size),
                                        batch.entropy + b.unpacked_offset, *tables[std::size_t(t)],
                                        piz[std::size_t(t)].get(), shape);
  });
}

void unpack_blocks_cpu(const BlockBatch& batch, const PixelTarget& dst, int threads) {
  const ChannelTarget* channels = batch.channels;
  const int channel_count = batch.channel_count;
  for_each_block(batch.count, std::max(1, threads), [&](int i, int) {
    if (batch.results[i].status != BlockStatus::ok) return;
    const BlockDesc& b = batch.blocks[i];
    const std::size_t bytes_per_row = row_bytes(channels, channel_count, b.width);
    const std::uint8_t* unpacked = batch.unpacked + b.unpacked_offset;
    for (int r = 0; r < b.height; ++r)
      for (int x = 0; x < b.width; ++x)
        unpack_pixel(unpacked + std::size_t(r) * bytes_per_row, channels, channel_count, b.width, dst, b.x, b.y + r, x);
  });
}

}  // namespace gp::exr
