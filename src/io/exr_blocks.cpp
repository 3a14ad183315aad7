#include "io/exr_blocks.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "core/error.hpp"
#include "cuda/exr/exr_kernels.hpp"

namespace gp::io {

bool exr_blocks_supported(int compression) {
  return compression == int(exr::Compression::none) || compression == int(exr::Compression::rle) ||
         compression == int(exr::Compression::zips) || compression == int(exr::Compression::zip) ||
         compression == int(exr::Compression::piz);
}

std::string exr_compression_name(int compression) {
  static const char* const names[] = {"none", "rle", "zips", "zip", "piz", "pxr24", "b44", "b44a", "dwaa", "dwab"};
  if (compression >= 0 && compression < int(std::size(names))) return names[compression];
  return fmt::format("compression {}", compression);
}

namespace {

std::string block_name(const ExrBlock& b) { return fmt::format("the block at x {}, y {}", b.x, b.y); }

// Each stored channel's sample type and its slot in the plan's pixels (-1: not read).
std::vector<exr::ChannelTarget> exr_channel_targets(const ExrBlocks& blocks, const ReadPlan& plan) {
  std::vector<exr::ChannelTarget> channels;
  for (std::size_t c = 0; c < blocks.channel_types.size(); ++c) {
    const auto slot = std::find(plan.channels.begin(), plan.channels.end(), int(c));
    channels.push_back({exr::SampleType(blocks.channel_types[c]),
                        slot == plan.channels.end() ? -1 : int(slot - plan.channels.begin())});
  }
  return channels;
}

// The blocks as cuda/exr's kernels take them: stored bytes at their file offsets, unpacked bytes
// one block after another (*unpacked_total in all), `file` 0 and `index` their place in `blocks`.
// Throws gp::ItemError naming a block whose size or place does not fit the plan or the file, or a
// compression not decoded here.
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
    descs.push_back({b.offset, b.packed_size, at, b.unpacked_size, b.x, b.y, b.width, b.height, 0, int(descs.size())});
    at += b.unpacked_size;
  }
  *unpacked_total = at;
  return descs;
}

void throw_failed_block(const std::string& path, const ExrBlocks& blocks, const exr::BlockResult* results) {
  for (std::size_t i = 0; i < blocks.blocks.size(); ++i)
    if (results[i].status != exr::BlockStatus::ok)
      throw ItemError(path, "decode", block_name(blocks.blocks[i]) + ": " + exr::block_status_text(results[i]));
}

}  // namespace

int ExrBlockBatch::add(const std::string& path, std::size_t file_size, const ExrBlocks& blocks, const ReadPlan& plan) {
  const std::vector<exr::ChannelTarget> channels = exr_channel_targets(blocks, plan);
  std::uint64_t unpacked = 0;
  File f{path, &blocks, exr_block_descs(path, file_size, blocks, channels, plan, &unpacked), packed_total_,
         unpacked_total_, channels_.size(), block_total_};
  for (exr::BlockDesc& d : f.descs) d.file = int(files_.size());
  // 8-byte steps: PIZ reads its scratch as 16-bit words, and copies stay aligned.
  const auto aligned = [](std::size_t n) { return (n + 7) & ~std::size_t(7); };
  packed_total_ += aligned(file_size);
  unpacked_total_ += aligned(std::size_t(unpacked));
  block_total_ += f.descs.size();
  channels_.insert(channels_.end(), channels.begin(), channels.end());
  files_.push_back(std::move(f));
  return int(files_.size()) - 1;
}

std::vector<exr::BlockFile> ExrBlockBatch::block_files(const Buffers& at, const std::vector<exr::PixelTarget>& pixels) const {
  std::vector<exr::BlockFile> out;
  for (std::size_t k = 0; k < files_.size(); ++k) {
    const File& f = files_[k];
    out.push_back({exr::Compression(f.blocks->compression), at.packed + f.packed_at, at.unpacked + f.unpacked_at, at.entropy + f.unpacked_at, at.results + f.results_at,
                   at.channels + f.channels_at, int(f.blocks->channel_types.size()), pixels.at(k)});
  }
  return out;
}

int ExrBlockBatch::block_count(exr::Compression c) const {
  int n = 0;
  for (const File& f : files_)
    if (f.blocks->compression == int(c)) n += int(f.descs.size());
  return n;
}

std::vector<exr::BlockDesc> ExrBlockBatch::descs(std::vector<Launch>* launches, int piz_window) const {
  const auto kind = [](int compression) {
    return compression == int(exr::Compression::zip) || compression == int(exr::Compression::zips) ? 0
           : compression == int(exr::Compression::piz)                                               ? 2
                                                                                                      : 1;
  };
  std::vector<exr::BlockDesc> out;
  int counts[3] = {0, 0, 0};
  for (int k = 0; k < 3; ++k)
    for (const File& f : files_)
      if (kind(f.blocks->compression) == k) {
        out.insert(out.end(), f.descs.begin(), f.descs.end());
        counts[k] += int(f.descs.size());
      }
  launches->clear();
  const int window = std::max(1, piz_window);
  Launch first{0, counts[0], counts[1], std::min(counts[2], window)};
  launches->push_back(first);
  for (int done = first.piz_count; done < counts[2]; done += window)
    launches->push_back({counts[0] + counts[1] + done, 0, 0, std::min(window, counts[2] - done)});
  return out;
}

void ExrBlockBatch::check(int file, const exr::BlockResult* results) const {
  const File& f = files_.at(std::size_t(file));
  throw_failed_block(f.path, *f.blocks, results + f.results_at);
}

exr::PixelTarget exr_pixel_target(const ReadPlan& plan, void* dst, std::size_t pitch) {
  return {static_cast<std::uint8_t*>(dst), pitch, plan.channel_count(),
          plan.type == PixelType::f16 ? exr::SampleType::half : exr::SampleType::float32};
}

void decode_exr_blocks_cpu(const std::string& path, const std::uint8_t* file, std::size_t file_size,
                           const ExrBlocks& blocks, const ReadPlan& plan, void* dst, std::size_t pitch, int threads) {
  ExrBlockBatch batch;
  batch.add(path, file_size, blocks, plan);
  std::vector<std::uint8_t> unpacked(batch.unpacked_bytes()), entropy(batch.unpacked_bytes());
  std::vector<exr::BlockResult> results(std::size_t(batch.block_count()));
  const std::vector<exr::BlockFile> files = batch.block_files(
      {file, unpacked.data(), entropy.data(), results.data(), batch.channels().data()},
      {exr_pixel_target(plan, dst, pitch)});
  std::vector<ExrBlockBatch::Launch> launches;
  const std::vector<exr::BlockDesc> descs = batch.descs(&launches);
  const ExrBlockBatch::Launch& l = launches.at(0);  // (one: no PIZ window on the CPU)
  const exr::BlockBatch kernels{descs.data(), l.zip_count, l.other_count, l.piz_count, files.data(), nullptr};
  exr::decompress_blocks_cpu(kernels, threads);
  batch.check(0, results.data());
  exr::unpack_blocks_cpu(kernels, threads);
}

}  // namespace gp::io
