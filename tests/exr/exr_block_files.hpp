#pragma once
// An EXR opened for the block decoder's tests: OpenEXR Core's source, the plan of a channel
// selection, the part's blocks and the file's bytes.
#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/exr_blocks.hpp"
#include "io/file_bytes.hpp"
#include "io/image_source.hpp"

namespace gp::test {

struct OpenedExr {
  std::string path;
  std::unique_ptr<io::ImageSource> source;
  io::ReadPlan plan;
  io::ExrBlocks blocks;
  std::vector<std::uint8_t> file;
};

inline OpenedExr open_exr_blocks(const std::string& path, const io::ChannelSelection& selection = {}) {
  OpenedExr e;
  e.path = path;
  e.source = io::open_exr_source(path);
  REQUIRE(e.source);
  e.plan = io::make_read_plan(path, e.source->parts(), io::select_channels(path, e.source->parts(), selection),
                              e.source->reads_channel_ranges());
  auto blocks = io::exr_blocks(*e.source, e.plan);
  REQUIRE(blocks);
  e.blocks = *blocks;
  e.file = io::read_file_bytes(path);
  return e;
}

// Every block's result from the CPU references (no exception for damaged blocks).
inline std::vector<exr::BlockResult> block_results_cpu(const OpenedExr& e) {
  io::ExrBlockBatch batch;
  batch.add(e.path, e.file.size(), e.blocks, e.plan);
  std::vector<std::uint8_t> unpacked(batch.unpacked_bytes()), entropy(batch.unpacked_bytes());
  std::vector<exr::BlockResult> results(std::size_t(batch.block_count()));
  std::vector<std::uint8_t> pixels(e.plan.bytes());
  const std::vector<exr::BlockFile> files =
      batch.block_files({e.file.data(), unpacked.data(), entropy.data(), results.data(), batch.channels().data()},
                        {io::exr_pixel_target(e.plan, pixels.data(), e.plan.row_bytes())});
  std::vector<io::ExrBlockBatch::Launch> launches;
  const std::vector<exr::BlockDesc> descs = batch.descs(&launches);
  for (const auto& l : launches)
    exr::decompress_blocks_cpu({descs.data() + l.first, l.zip_count, l.other_count, l.piz_count, files.data(), nullptr}, 2);
  return results;
}

}  // namespace gp::test
