#include "cuda/stitch/sharpness.hpp"

#include <cub/block/block_reduce.cuh>

#include <string>

#include "cuda/common/cuda_check.hpp"

namespace gp::stitch {
namespace {

constexpr int kBlockX = 32, kBlockY = 8;

__global__ void zero_sums(LaplacianSums* sums) {
  sums->sum = 0;
  sums->sum_squares = 0;
}

// One thread per pixel, one pair of atomics per block (two's complement: unsigned adds give the
// signed sum exactly).
__global__ void __launch_bounds__(kBlockX* kBlockY)
    laplacian_sums_kernel(const std::uint8_t* __restrict__ data, std::size_t pitch, int width, int height,
                          LaplacianSums* sums) {
  const int x = blockIdx.x * kBlockX + threadIdx.x, y = blockIdx.y * kBlockY + threadIdx.y;
  long long l = 0;
  if (x >= 1 && y >= 1 && x + 1 < width && y + 1 < height) {
    const std::uint8_t* row = data + std::size_t(y) * pitch;
    const std::uint8_t* up = row - pitch;
    const std::uint8_t* down = row + pitch;
    l = int(up[x]) + int(down[x]) + int(row[x - 1]) + int(row[x + 1]) - 4 * int(row[x]);
  }
  using Reduce = cub::BlockReduce<long long, kBlockX, cub::BLOCK_REDUCE_WARP_REDUCTIONS, kBlockY>;
  __shared__ typename Reduce::TempStorage sum_storage, square_storage;
  const long long sum = Reduce(sum_storage).Sum(l);
  const long long squares = Reduce(square_storage).Sum(l * l);
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(&sums->sum), static_cast<unsigned long long>(sum));
    atomicAdd(reinterpret_cast<unsigned long long*>(&sums->sum_squares), static_cast<unsigned long long>(squares));
  }
}

}  // namespace

void laplacian_sums_gpu(const ImageView& luma, LaplacianSums* sums, cudaStream_t stream) {
  zero_sums<<<1, 1, 0, stream>>>(sums);
  GP_CUDA_CHECK_LAUNCH("launch zero_sums (sharpness)");
  if (luma.width < 3 || luma.height < 3) return;
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid((unsigned(luma.width) + kBlockX - 1) / kBlockX, (unsigned(luma.height) + kBlockY - 1) / kBlockY);
  laplacian_sums_kernel<<<grid, block, 0, stream>>>(static_cast<const std::uint8_t*>(luma.data), luma.pitch, luma.width,
                                                    luma.height, sums);
  GP_CUDA_CHECK_LAUNCH("launch laplacian_sums_kernel " + std::to_string(luma.width) + "x" + std::to_string(luma.height));
}

}  // namespace gp::stitch
