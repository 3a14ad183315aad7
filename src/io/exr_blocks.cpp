#include "io/exr_blocks.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"
#include "cuda/exr/block_decode.hpp"

namespace gp::io {

bool exr_blocks_supported(int compression) {
  return compression == int(exr::Compression::none) || compression == int(exr::Compression::rle) ||
         compression == int(exr::Compression::zips) || compression == int(exr::Compression::zip);
}

namespace {

std::string block_name(const ExrBlock& b) { return fmt::format("the block at x {}, y {}", b.x, b.y); }

}  // namespace

void decode_exr_blocks_cpu(const std::string& path, const std::uint8_t* file, std::size_t file_size,
                           const ExrBlocks& blocks, const ReadPlan& plan, void* dst, std::size_t pitch, int threads) {
  if (!exr_blocks_supported(blocks.compression))
    throw ItemError(path, "decode", fmt::format("EXR compression {} is not decoded by this decoder", blocks.compression));
  // Each stored channel: its sample type, and its slot in the plan's pixels (-1: not read).
  std::vector<exr::ChannelTarget> channels;
  std::size_t sample_row_bytes = 0;  // per pixel of a row, all channels
  for (std::size_t c = 0; c < blocks.channel_types.size(); ++c) {
    const auto slot = std::find(plan.channels.begin(), plan.channels.end(), int(c));
    channels.push_back({exr::SampleType(blocks.channel_types[c]),
                        slot == plan.channels.end() ? -1 : int(slot - plan.channels.begin())});
    sample_row_bytes += std::size_t(exr::sample_bytes(channels.back().stored));
  }
  const exr::PixelTarget target{static_cast<std::uint8_t*>(dst), pitch, plan.channel_count(),
                                plan.type == PixelType::f16 ? exr::SampleType::half : exr::SampleType::float32};

  std::atomic<std::size_t> next{0};
  std::vector<std::string> errors(std::size_t(std::max(1, threads)));
  const auto work = [&](std::size_t t) {
    exr::InflateScratch tables;
    std::vector<std::uint8_t> unpacked, scratch;
    for (std::size_t i; (i = next++) < blocks.blocks.size();) {
      const ExrBlock& b = blocks.blocks[i];
      const std::size_t rows_bytes = sample_row_bytes * std::size_t(b.width) * std::size_t(b.height);
      if (b.x < 0 || b.y < 0 || b.width < 1 || b.height < 1 || b.x + b.width > plan.width || b.y + b.height > plan.height ||
          b.unpacked_size != rows_bytes || b.offset > file_size || b.packed_size > file_size - b.offset) {
        errors[t] = block_name(b) + ": its size or place in the file does not match the header";
        next = blocks.blocks.size();
        return;
      }
      unpacked.resize(rows_bytes);
      scratch.resize(rows_bytes);
      exr::InflateStatus inflate_status;
      const exr::BlockStatus status =
          exr::decompress_block(exr::Compression(blocks.compression), file + b.offset, std::size_t(b.packed_size),
                                unpacked.data(), rows_bytes, scratch.data(), tables, &inflate_status);
      if (status != exr::BlockStatus::ok) {
        errors[t] = block_name(b) + ": " + exr::block_status_text(status, inflate_status);
        next = blocks.blocks.size();
        return;
      }
      const std::uint8_t* row = unpacked.data();
      for (int r = 0; r < b.height; ++r)
        row += exr::unpack_row(row, channels.data(), int(channels.size()), b.width, target, b.x, b.y + r);
    }
  };
  std::vector<std::thread> helpers;
  const std::size_t thread_count = std::min(errors.size(), std::max<std::size_t>(1, blocks.blocks.size()));
  for (std::size_t t = 1; t < thread_count; ++t) helpers.emplace_back(work, t);
  work(0);
  for (auto& h : helpers) h.join();
  for (const std::string& e : errors)
    if (!e.empty()) throw ItemError(path, "decode", e);
}

}  // namespace gp::io
