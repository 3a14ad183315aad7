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

// OpenEXR's name of a compression ("zip", "piz", "dwaa"...).
std::string exr_compression_name(int compression);

// Whether decode_exr_blocks_cpu (and the GPU decoder) decode this compression: NONE, RLE, ZIPS, ZIP, PIZ.
bool exr_blocks_supported(int compression);

// The blocks of several EXR files laid out for cuda/exr's kernels, one launch whatever their
// number and compressions: each file's bytes, unpacked bytes, scratch, results and channels at
// offsets in five buffers the caller allocates (device memory for the GPU, host
// memory for the CPU references) and sizes from here.
class ExrBlockBatch {
 public:
  // Adds a file whose bytes are file_size long; returns its index. Throws gp::ItemError naming
  // the file for blocks that do not fit it or the plan (exr_block_descs).
  int add(const std::string& path, std::size_t file_size, const ExrBlocks& blocks, const ReadPlan& plan);
  int files() const { return int(files_.size()); }

  std::size_t packed_bytes() const { return packed_total_; }      // the files' bytes, one after another
  std::size_t unpacked_bytes() const { return unpacked_total_; }  // (the entropy scratch's too)
  int block_count() const { return int(block_total_); }           // results
  int block_count(exr::Compression c) const;                      // those of one compression
  std::size_t packed_offset(int file) const { return files_[std::size_t(file)].packed_at; }
  const std::vector<exr::ChannelTarget>& channels() const { return channels_; }  // every file's, to upload

  struct Buffers {
    const std::uint8_t* packed;
    std::uint8_t* unpacked;
    std::uint8_t* entropy;
    exr::BlockResult* results;
    const exr::ChannelTarget* channels;
  };
  // The kernels' per-file arguments for buffers at these addresses, file k's pixels to pixels[k].
  std::vector<exr::BlockFile> block_files(const Buffers& at, const std::vector<exr::PixelTarget>& pixels) const;

  // Every block, in the order of BlockBatch (ZIP, NONE and RLE, PIZ), and the launches over
  // them: one, or with more PIZ blocks than piz_window (the PizScratch tables there is room
  // for), the rest of the PIZ blocks piz_window at a time. A Launch is a BlockBatch at `first`.
  struct Launch {
    int first, zip_count, other_count, piz_count;
  };
  std::vector<exr::BlockDesc> descs(std::vector<Launch>* launches, int piz_window = 1 << 30) const;

  // Throws gp::ItemError(path, "decode", "the block at x X, y Y: ...") for file k's first failed
  // block; `results`: the results buffer, all files'.
  void check(int file, const exr::BlockResult* results) const;

 private:
  struct File {
    std::string path;
    const ExrBlocks* blocks;
    std::vector<exr::BlockDesc> descs;
    std::size_t packed_at, unpacked_at, channels_at, results_at;
  };
  std::vector<File> files_;
  std::vector<exr::ChannelTarget> channels_;
  std::size_t packed_total_ = 0, unpacked_total_ = 0, block_total_ = 0;
};

// Decodes every block of `blocks` from the file's bytes into dst (plan's pixels, rows `pitch` bytes
// apart), on up to `threads` threads, with cuda/exr's steps: what the GPU decoder does, on the CPU.
// Throws gp::ItemError(path, "decode", "the block at x X, y Y: ...") for a damaged block.
void decode_exr_blocks_cpu(const std::string& path, const std::uint8_t* file, std::size_t file_size,
                           const ExrBlocks& blocks, const ReadPlan& plan, void* dst, std::size_t pitch, int threads);

// The kernels' destination for plan's pixels at dst, rows `pitch` bytes apart.
exr::PixelTarget exr_pixel_target(const ReadPlan& plan, void* dst, std::size_t pitch);

}  // namespace gp::io
