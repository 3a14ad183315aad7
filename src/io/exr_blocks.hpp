#pragma once
// An EXR part's compressed blocks, as its header and offset table give them (OpenEXR Core reads
// those), for decoders of our own that take the file's bytes and decode every block at once: the
// GPU's (cuda/exr), and decode_exr_blocks_cpu, the same steps on the CPU.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cuda/exr/exr_kernels.hpp"
#include "io/image_source.hpp"
#include "io/read_plan.hpp"

namespace gp::io {

struct ExrBlock {
  std::uint64_t offset = 0;  // of its stored bytes in the file
  std::uint64_t packed_size = 0, unpacked_size = 0;
  int x = 0, y = 0, width = 0, height = 0;  // its pixels, from the data window's corner
};

struct ExrBlocks {
  int compression = 0;             // OpenEXR's numbering (gp::exr::Compression for those decoded here)
  std::vector<int> channel_types;  // per stored channel, in the file's order: EXR_PIXEL_* (0 uint, 1 half, 2 float)
  std::vector<ExrBlock> blocks;
};

// The blocks of plan's part of `source`, which open_exr_source made (nullopt for any other source).
// Throws gp::ItemError(path, "decode", ...) for an offset table that does not fit the file.
std::optional<ExrBlocks> exr_blocks(ImageSource& source, const ReadPlan& plan);

// Whether decode_exr_blocks_cpu (and the GPU decoder) decode this compression: NONE, RLE, ZIPS, ZIP, PIZ.
bool exr_blocks_supported(int compression);

// Each stored channel's sample type and its slot in the plan's pixels (-1: not read).
std::vector<exr::ChannelTarget> exr_channel_targets(const ExrBlocks& blocks, const ReadPlan& plan);
// The blocks as cuda/exr's kernels take them: stored bytes at their file offsets, unpacked bytes
// one block after another (*unpacked_total in all). `channels`: exr_channel_targets(blocks, plan).
// Throws gp::ItemError naming a block whose size or place does not fit the plan or the file, or a
// compression not decoded here.
std::vector<exr::BlockDesc> exr_block_descs(const std::string& path, std::size_t file_size, const ExrBlocks& blocks,
                                            const std::vector<exr::ChannelTarget>& channels, const ReadPlan& plan,
                                            std::uint64_t* unpacked_total);
// Throws gp::ItemError(path, "decode", "the block at x X, y Y: ...") for the first block that failed.
void throw_failed_block(const std::string& path, const ExrBlocks& blocks, const std::vector<exr::BlockResult>& results);

// Decodes every block of `blocks` from the file's bytes into dst (plan's pixels, rows `pitch` bytes
// apart), on up to `threads` threads, with cuda/exr's steps: what the GPU decoder does, on the CPU.
// Throws gp::ItemError(path, "decode", "the block at x X, y Y: ...") for a damaged block.
void decode_exr_blocks_cpu(const std::string& path, const std::uint8_t* file, std::size_t file_size,
                           const ExrBlocks& blocks, const ReadPlan& plan, void* dst, std::size_t pitch, int threads);

}  // namespace gp::io
