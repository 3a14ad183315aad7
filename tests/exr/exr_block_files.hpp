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
  std::unique_ptr<io::ImageSource> source;
  io::ReadPlan plan;
  io::ExrBlocks blocks;
  std::vector<std::uint8_t> file;
};

inline OpenedExr open_exr_blocks(const std::string& path, const io::ChannelSelection& selection = {}) {
  OpenedExr e;
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

}  // namespace gp::test
