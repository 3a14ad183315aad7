#pragma once
// OpenEXR blocks decoded on the GPU (and the same steps on the CPU, the references beside them):
//
//   decompress_blocks: one thread per block: inflate (ZIP, ZIPS) or RLE into `entropy`, then
//                      OpenEXR's byte filter undone into `unpacked`; or PIZ (Huffman, wavelet,
//                      LUT) through `entropy` into `unpacked` (block_decode.hpp's steps)
//   unpack_blocks:     one thread block per EXR block, threads over its pixels: each row's
//                      samples of each channel into the destination's interleaved pixels
//
// The host lays the blocks' stored bytes one after another (`packed`) and gives each its place in
// the unpacked buffer; a block's status comes back in `results` (the caller names the block). No
// host libraries here: nvcc compiles it.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cuda/exr/block_decode.hpp"

namespace gp::exr {

struct BlockDesc {
  std::uint64_t packed_offset, packed_size;      // in BlockBatch::packed
  std::uint64_t unpacked_offset, unpacked_size;  // in BlockBatch::unpacked and ::entropy
  int x, y, width, height;                       // its pixels in the destination
};

struct BlockBatch {
  Compression compression;
  const BlockDesc* blocks;
  int count;
  const ChannelTarget* channels;  // the stored channels in file order, and their slots in dst
  int channel_count;
  const std::uint8_t* packed;
  std::uint8_t* unpacked;
  std::uint8_t* entropy;   // scratch, as large as `unpacked` (2-byte aligned offsets for PIZ)
  InflateScratch* tables;  // one per block (GPU); the CPU reference makes its own per thread
  PizScratch* piz;         // PIZ only: one per block (GPU; about 1 MB each); the CPU makes its own
  BlockResult* results;    // one per block
};

// Device memory of `count` blocks' Huffman tables (BlockBatch::tables, ::piz).
inline std::size_t inflate_tables_bytes(int count) { return std::size_t(count) * sizeof(InflateScratch); }
inline std::size_t piz_tables_bytes(int count) { return std::size_t(count) * sizeof(PizScratch); }

void decompress_blocks_gpu(const BlockBatch& batch, cudaStream_t stream);
void decompress_blocks_cpu(const BlockBatch& batch, int threads);

// The unpacked blocks into dst. Blocks whose result is not ok are left out.
void unpack_blocks_gpu(const BlockBatch& batch, const PixelTarget& dst, cudaStream_t stream);
void unpack_blocks_cpu(const BlockBatch& batch, const PixelTarget& dst, int threads);

}  // namespace gp::exr
