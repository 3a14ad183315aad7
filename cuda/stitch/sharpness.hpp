#pragma once
// How sharp a frame is, for picking the sharpest video frame of each interval (motion blur ruins
// a reconstruction): the variance of the Laplacian of its luma (the 4-neighbour kernel
// [0 1 0; 1 -4 1; 0 1 0] over the pixels that have all four neighbours), the usual focus
// measure. Sums are exact integers on both sides, so the GPU and the CPU give the same score.
#include <cstdint>

#include <cuda_runtime_api.h>

#include "core/views.hpp"

namespace gp::stitch {

struct LaplacianSums {
  std::int64_t sum = 0, sum_squares = 0;  // of the Laplacian over the interior pixels
};

// Device `luma` (u8, 1 channel, any pitch); `sums` in device memory, set (not added to) by the
// call, queued on `stream`. Images smaller than 3 x 3 give zero sums.
void laplacian_sums_gpu(const ImageView& luma, LaplacianSums* sums, cudaStream_t stream);
// The CPU reference.
LaplacianSums laplacian_sums_cpu(const ImageView& luma);

// The variance from the sums: E[L^2] - E[L]^2 over the (width - 2) x (height - 2) interior pixels.
double laplacian_variance(const LaplacianSums& sums, int width, int height);

}  // namespace gp::stitch
