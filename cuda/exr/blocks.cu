#include "cuda/common/cuda_check.hpp"
#include "cuda/exr/exr_kernels.hpp"

namespace gp::exr {
namespace {

__global__ void decompress_blocks_kernel(BlockBatch batch) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= batch.count) return;
  const BlockDesc b = batch.blocks[i];
  const BlockShape shape{batch.channels, batch.channel_count, b.width, b.height};
  batch.results[i] = decompress_block(batch.compression, batch.packed + b.packed_offset, std::size_t(b.packed_size),
                                      batch.unpacked + b.unpacked_offset, std::size_t(b.unpacked_size),
                                      batch.entropy + b.unpacked_offset, batch.tables[i],
                                      batch.piz ? batch.piz + i : nullptr, shape);
}

__global__ void unpack_blocks_kernel(BlockBatch batch, PixelTarget dst) {
  const ChannelTarget* channels = batch.channels;
  const int channel_count = batch.channel_count;
  const int i = int(blockIdx.x);
  if (batch.results[i].status != BlockStatus::ok) return;
  const BlockDesc b = batch.blocks[i];
  const std::size_t bytes_per_row = row_bytes(channels, channel_count, b.width);
  const std::uint8_t* unpacked = batch.unpacked + b.unpacked_offset;
  for (int r = 0; r < b.height; ++r)
    for (int x = int(threadIdx.x); x < b.width; x += int(blockDim.x))
      unpack_pixel(unpacked + std::size_t(r) * bytes_per_row, channels, channel_count, b.width, dst, b.x, b.y + r, x);
}

}  // namespace

void decompress_blocks_gpu(const BlockBatch& batch, cudaStream_t stream) {
  if (batch.count <= 0) return;
  // Few threads per CUDA block: each thread is a whole EXR block, and they vary in length.
  constexpr int kThreads = 32;
  decompress_blocks_kernel<<<(batch.count + kThreads - 1) / kThreads, kThreads, 0, stream>>>(batch);
  GP_CUDA_CHECK(cudaGetLastError(), "EXR decompress_blocks launch (" + std::to_string(batch.count) + " blocks)");
}

void unpack_blocks_gpu(const BlockBatch& batch, const PixelTarget& dst, cudaStream_t stream) {
  if (batch.count <= 0) return;
  unpack_blocks_kernel<<<batch.count, 128, 0, stream>>>(batch, dst);
  GP_CUDA_CHECK(cudaGetLastError(), "EXR unpack_blocks launch (" + std::to_string(batch.count) + " blocks)");
}

}  // namespace gp::exr
