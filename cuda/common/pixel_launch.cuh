#pragma once
// Launch geometry of the per-pixel kernels (tonemap, segment-body, track-faces): one thread per
// pixel in 32x8 blocks, so each warp covers 32 neighbouring pixels of one row (coalesced
// accesses) and pitched rows need no division.
#include <cuda_runtime_api.h>

#include <string>

#include "core/error.hpp"
#include "core/views.hpp"

namespace gp::launch {

constexpr int block_w = 32, block_h = 8;

inline dim3 pixel_block() { return dim3(block_w, block_h); }
inline dim3 pixel_grid(int width, int height) {
  const unsigned rows_of_blocks = unsigned(height + block_h - 1) / block_h;
  if (rows_of_blocks > 65535u) throw Error("image too tall for one launch: " + std::to_string(height) + " rows");
  return dim3(unsigned(width + block_w - 1) / block_w, rows_of_blocks);
}
inline bool empty(const ImageView& v) { return v.width <= 0 || v.height <= 0; }

// This thread's pixel; false past the image's edge.
__device__ __forceinline__ bool pixel_of_thread(int width, int height, int& x, int& y) {
  x = int(blockIdx.x) * block_w + int(threadIdx.x);
  y = int(blockIdx.y) * block_h + int(threadIdx.y);
  return x < width && y < height;
}

}  // namespace gp::launch
