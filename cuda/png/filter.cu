// Row filters on the GPU: one block per row sums the cost of each filter over the row, picks the
// cheapest (ties to the lower filter type, as on the CPU) and writes the filtered row.
#include <cub/block/block_reduce.cuh>

#include "cuda/common/cuda_check.hpp"
#include "cuda/png/png_checks.hpp"
#include "cuda/png/png_math.hpp"

namespace gp::png {
namespace {

constexpr int kThreads = 256;

struct Costs {
  unsigned c[math::kFilterCount];
};
struct AddCosts {
  __device__ Costs operator()(const Costs& a, const Costs& b) const {
    Costs r;
    for (int f = 0; f < math::kFilterCount; ++f) r.c[f] = a.c[f] + b.c[f];
    return r;
  }
};

__global__ void __launch_bounds__(kThreads) filter_rows_kernel(ImageView image, std::uint8_t* filtered) {
  using Reduce = cub::BlockReduce<Costs, kThreads>;
  __shared__ typename Reduce::TempStorage reduce_storage;
  __shared__ int chosen;
  const int y = int(blockIdx.x);
  const std::size_t n = image.row_bytes();
  const std::size_t bpp = std::size_t(image.channels) * pixel_type_bytes(image.type);
  const bool sixteen = image.type == PixelType::u16;
  const auto* row = image.row<const std::uint8_t>(y);
  const auto* above = y > 0 ? image.row<const std::uint8_t>(y - 1) : nullptr;
  auto at = [&](std::size_t i, std::uint8_t& x, std::uint8_t& left, std::uint8_t& up) {
    x = math::png_byte(row, sixteen, i);
    left = i >= bpp ? math::png_byte(row, sixteen, i - bpp) : 0;
    up = above ? math::png_byte(above, sixteen, i) : 0;
  };

  Costs mine{};
  for (std::size_t i = threadIdx.x; i < n; i += kThreads) {
    std::uint8_t x, left, up;
    at(i, x, left, up);
    for (int f = 0; f < math::kFilterCount; ++f) mine.c[f] += math::filter_cost(math::filtered_byte(f, x, left, up));
  }
  const Costs total = Reduce(reduce_storage).Reduce(mine, AddCosts());
  if (threadIdx.x == 0) {
    int best = 0;
    for (int f = 1; f < math::kFilterCount; ++f)
      if (total.c[f] < total.c[best]) best = f;
    chosen = best;
  }
  __syncthreads();
  std::uint8_t* out = filtered + (n + 1) * std::size_t(y);
  if (threadIdx.x == 0) out[0] = std::uint8_t(chosen);
  for (std::size_t i = threadIdx.x; i < n; i += kThreads) {
    std::uint8_t x, left, up;
    at(i, x, left, up);
    out[1 + i] = math::filtered_byte(chosen, x, left, up);
  }
}

}  // namespace

void filter_rows_gpu(const ImageView& image, std::uint8_t* filtered, cudaStream_t stream) {
  checks::check_filter(image, filtered, "filter_rows_gpu");
  filter_rows_kernel<<<unsigned(image.height), kThreads, 0, stream>>>(image, filtered);
  GP_CUDA_CHECK_LAUNCH("filter_rows_gpu " + std::to_string(image.width) + "x" + std::to_string(image.height));
}

}  // namespace gp::png
