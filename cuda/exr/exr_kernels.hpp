#pragma once
// OpenEXR blocks decoded on the GPU (and the same steps on the CPU, the references beside them):
//
//   decompress_blocks: one launch for blocks of every compression, side by side: inflate (ZIP,
//                      ZIPS; a warp per block) or RLE (a thread per block) into `entropy`, then
//                      OpenEXR's byte filter undone into `unpacked`; PIZ (a thread block per
//                      block: Huffman, wavelet, LUT) through `entropy` into `unpacked`
//                      (block_decode.hpp's steps)
//   unpack_blocks:     one thread block per EXR block, threads over its pixels: each row's
//                      samples of each channel into the destination's interleaved pixels
//
// The host gives each block its file's buffers (the file's bytes, where its unpacked bytes go)
// and its place in them; a block's status comes back in its file's `results` (the caller names
// the block). No host libraries here: nvcc compiles it.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cuda/exr/block_decode.hpp"

namespace gp::exr {

struct BlockDesc {
  std::uint64_t packed_offset, packed_size;      // in its file's BlockFile::packed
  std::uint64_t unpacked_offset, unpacked_size;  // in its file's BlockFile::unpacked and ::entropy
  int x, y, width, height;                       // its pixels in its file's destination
  int file;                                      // its BlockBatch::files entry
  int index;                                     // its place in that file's results
};

// One file of a batch (a batch may hold the blocks of many: one launch keeps the GPU busy where a
// single file's hundred blocks would not).
struct BlockFile {
  Compression compression;     // its blocks'
  const std::uint8_t* packed;  // the file's bytes (block offsets are file offsets)
  std::uint8_t* unpacked;      // its blocks' unpacked bytes, one after another
  std::uint8_t* entropy;       // scratch, as large as `unpacked` (2-byte aligned offsets for PIZ)
  BlockResult* results;        // one per block
  const ChannelTarget* channels;  // the stored channels in file order, and their slots in `pixels`
  int channel_count;
  PixelTarget pixels;          // where unpack_blocks puts the file's pixels
};

// The blocks of one launch, from one file or several, by the kernel that decodes them: ZIP and
// ZIPS blocks (a warp each), then NONE and RLE blocks (a thread each), then PIZ blocks (a thread
// block each), one after another in `blocks`.
struct BlockBatch {
  const BlockDesc* blocks;
  int zip_count, other_count, piz_count;
  const BlockFile* files;
  PizScratch* piz;  // PIZ on the GPU: one per PIZ block of the batch (about 1 MB each); the CPU makes its own
  GP_HD int count() const { return zip_count + other_count + piz_count; }
};

// Device memory of `count` PIZ blocks' tables (BlockBatch::piz): a large PIZ group runs in
// batches of as many blocks as the memory for their tables allows.
inline std::size_t piz_tables_bytes(int count) { return std::size_t(count) * sizeof(PizScratch); }

void decompress_blocks_gpu(const BlockBatch& batch, cudaStream_t stream);
void decompress_blocks_cpu(const BlockBatch& batch, int threads);

// The unpacked blocks into their files' pixels. Blocks whose result is not ok are left out.
void unpack_blocks_gpu(const BlockBatch& batch, cudaStream_t stream);
void unpack_blocks_cpu(const BlockBatch& batch, int threads);

}  // namespace gp::exr
