#pragma once
// Launch geometry of the segment-body per-pixel kernels: 32x8 blocks, one thread per pixel, each
// warp on 32 neighbouring pixels of one row (coalesced). Reuses tonemap's helpers.
#include "cuda/tonemap/kernel_launch.cuh"

namespace gp::segbody::launch {
using tonemap::launch::block_h;
using tonemap::launch::block_w;
using tonemap::launch::pixel_block;
using tonemap::launch::pixel_grid;
using tonemap::launch::pixel_of_thread;
}  // namespace gp::segbody::launch
