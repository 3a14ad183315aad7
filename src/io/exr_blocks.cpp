#include "io/exr_blocks.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"
#include "cuda/exr/exr_kernels.hpp"

namespace gp::io {

bool exr_blocks_supported(int compression) {
  return compression == int(exr::Compression::none) || compression == int(exr::Compression::rle) ||
         compression == int(exr::Compression::zips) || compression == int(exr::Compression::zip) ||
         compression == int(exr::Compression::piz);
}

namespace {

std::string block_name(const ExrBlock& b) { return fmt::format("the block at x {}, y {}", b.x, b.y); }

}  // namespace

std::vector<exr::ChannelTarget> exr_channel_targets(const ExrBlocks& blocks, const ReadPlan& plan) {
  std::vector<exr::ChannelTarget> channels;
  for (std::size_t c = 0; c < blocks.channel_types.size(); ++c) {
    const auto slot = std::find(plan.channels.begin(), plan.channels.end(), int(c));
    channels.push_back({exr::SampleType(blocks.channel_types[c]),
                        slot == plan.channels.end() ? -1 : int(slot - plan.channels.begin())});
  }
  return channels;
}

std::vector<exr::BlockDesc> exr_block_descs(const std::string& path, std::size_t file_size, const ExrBlocks& blocks,
                                            const std::vector<exr::ChannelTarget>& channels, const ReadPlan& plan,
                                            std::uint64_t* unpacked_total) {
  if (!exr_blocks_supported(blocks.compression))
    throw ItemError(path, "decode", fmt::format("EXR compression {} is not decoded by this decoder", blocks.compression));
  std::vector<exr::BlockDesc> descs;
  std::uint64_t at = 0;
  for (const ExrBlock& b : blocks.blocks) {
    const bool placed = b.x >= 0 && b.y >= 0 && b.width >= 1 && b.height >= 1 && b.x + b.width <= plan.width &&
                        b.y + b.height <= plan.height;
    if (!placed || b.unpacked_size != exr::row_bytes(channels.data(), int(channels.size()), b.width) * std::size_t(b.height) ||
        b.offset > file_size || b.packed_size > file_size - b.offset)
      throw ItemError(path, "decode", block_name(b) + ": its size or place in the file does not match the header");
    descs.push_back({b.offset, b.packed_size, at, b.unpacked_size, b.x, b.y, b.width, b.height});
    at += b.unpacked_size;
  }
  *unpacked_total = at;
  return descs;
}

void throw_failed_block(const std::string& path, const ExrBlocks& blocks, const std::vector<exr::BlockResult>& results) {
  for (std::size_t i = 0; i < results.size(); ++i)
    if (results[i].status != exr::BlockStatus::ok)
      throw ItemError(path, "decode", block_name(blocks.blocks[i]) + ": " + exr::block_status_text(results[i]));
}

void decode_exr_blocks_cpu(const std::string& path, const std::uint8_t* file, std::size_t file_size,
                           const ExrBlocks& blocks, const ReadPlan& plan, void* dst, std::size_t pitch, int threads) {
  std::uint64_t unpacked_total = 0;
  const std::vector<exr::ChannelTarget> channels = exr_channel_targets(blocks, plan);
  const std::vector<exr::BlockDesc> descs = exr_block_descs(path, file_size, blocks, channels, plan, &unpacked_total);
  std::vector<std::uint8_t> unpacked(unpacked_total), entropy(unpacked_total);
  std::vector<exr::BlockResult> results(descs.size());
  const exr::BlockBatch batch{exr::Compression(blocks.compression), descs.data(), int(descs.size()), channels.data(),
                              int(channels.size()), file, unpacked.data(), entropy.data(), nullptr, nullptr, results.data()};
  exr::decompress_blocks_cpu(batch, threads);
  throw_failed_block(path, blocks, results);
  const exr::PixelTarget target{static_cast<std::uint8_t*>(dst), pitch, plan.channel_count(),
                                plan.type == PixelType::f16 ? exr::SampleType::half : exr::SampleType::float32};
  exr::unpack_blocks_cpu(batch, target, threads);
}

}  // namespace gp::io
