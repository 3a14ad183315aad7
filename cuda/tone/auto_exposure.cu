// Auto exposure on the GPU without a host round trip: log2 luminance per pixel into scratch, a CUB
// histogram of it, percentile bounds from one block scanning the histogram, a CUB sum (in double)
// of the log-luminances clamped to those bounds, and a one-thread kernel that writes the exposure
// scale where the tone-mapping kernel reads it.
#include <cub/block/block_scan.cuh>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>

#include <algorithm>
#include <climits>

#include "cuda/common/cuda_check.hpp"
#include "cuda/tone/exposure_math.hpp"
#include "cuda/common/pixel_launch.cuh"
#include "cuda/common/scratch.hpp"
#include "cuda/tone/view_checks.hpp"

namespace gp::tone {
namespace {

using math::log_lum_bins;

// Packed (unpitched) log2 luminances, so CUB can read them as a flat array.
__global__ void log_luminance_kernel(ImageView rgba, float* log_lum) {
  int x, y;
  if (!launch::pixel_of_thread(rgba.width, rgba.height, x, y)) return;
  const float4 p = rgba.row<const float4>(y)[x];
  log_lum[std::size_t(y) * rgba.width + x] = math::log2_luminance({p.x, p.y, p.z});
}

// One block, one thread per bin: an inclusive scan gives each bin its cumulative count, and the
// bin holding each percentile target writes its edge. Exactly one bin holds each target (n > 0).
__global__ void __launch_bounds__(log_lum_bins) percentile_bounds_kernel(const int* histogram, int n,
                                                                         AutoExposureParams p, math::LogBounds* bounds) {
  using Scan = cub::BlockScan<int, log_lum_bins>;
  __shared__ typename Scan::TempStorage scan_storage;
  const int bin = int(threadIdx.x);
  const int count = histogram[bin];
  int through;
  Scan(scan_storage).InclusiveSum(count, through);
  if (math::bin_holds(through - count, through, math::percentile_target(p.percentile_low, n)))
    bounds->low = math::log_lum_bin_start(bin);
  if (math::bin_holds(through - count, through, math::percentile_target(p.percentile_high, n)))
    bounds->high = math::log_lum_bin_start(bin + 1);
}

struct ClampToBounds {
  const math::LogBounds* bounds;
  __device__ double operator()(float l) const { return double(math::clamp_to_bounds(l, *bounds)); }
};

__global__ void exposure_scale_kernel(const double* log_sum, int n, AutoExposureParams p, float base_scale,
                                      float* out_scale) {
  math::exposure_result(n > 0 ? *log_sum : 0.0, n, p, base_scale, out_scale);
}

// Scratch: [log2 luminances | histogram | bounds | sum | CUB temporary storage], each part at a
// 256-byte offset. CUB's storage is sized for the larger of its two calls, which run one after
// the other on the same stream.
struct ScratchLayout {
  std::size_t histogram, bounds, sum, cub_temp, cub_temp_bytes, total;
};
ScratchLayout scratch_layout(int n) {
  std::size_t histogram_temp = 0, sum_temp = 0;
  GP_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, histogram_temp, static_cast<const float*>(nullptr),
                                                    static_cast<int*>(nullptr), log_lum_bins + 1, math::log_lum_min,
                                                    math::log_lum_max, n),
                "size the auto-exposure histogram");
  GP_CUDA_CHECK(cub::DeviceReduce::TransformReduce(nullptr, sum_temp, static_cast<const float*>(nullptr),
                                                   static_cast<double*>(nullptr), n, ::cuda::std::plus<double>{},
                                                   ClampToBounds{nullptr}, 0.0),
                "size the auto-exposure sum");
  ScratchLayout l{};
  l.histogram = scratch_aligned(std::size_t(n) * sizeof(float));
  l.bounds = l.histogram + scratch_aligned(log_lum_bins * sizeof(int));
  l.sum = l.bounds + scratch_aligned(sizeof(math::LogBounds));
  l.cub_temp = l.sum + scratch_aligned(sizeof(double));
  l.cub_temp_bytes = std::max(histogram_temp, sum_temp);
  l.total = l.cub_temp + scratch_aligned(l.cub_temp_bytes);
  return l;
}

int pixel_count(int width, int height) {
  const long long n = (long long)std::max(width, 0) * std::max(height, 0);
  if (n > INT_MAX) throw Error("auto exposure: image of " + std::to_string(n) + " pixels is too large");
  return int(n);
}

}  // namespace

std::size_t auto_exposure_scratch_bytes(int width, int height) {
  return scratch_layout(pixel_count(width, height)).total;
}

void auto_exposure_gpu(const ImageView& rgba, const AutoExposureParams& p, float base_scale, float* out_scale,
                       void* scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  checks::require_rgba_f32(rgba, "auto_exposure_gpu", "rgba");
  const int n = pixel_count(rgba.width, rgba.height);
  const ScratchLayout l = scratch_layout(n);
  checks::require(scratch_bytes >= l.total && checks::aligned(scratch, 16), "auto_exposure_gpu",
                  "scratch must be auto_exposure_scratch_bytes() = " + std::to_string(l.total) + " bytes, 16-aligned");
  auto* base = static_cast<char*>(scratch);
  auto* log_lum = reinterpret_cast<float*>(base);
  auto* histogram = reinterpret_cast<int*>(base + l.histogram);
  auto* bounds = reinterpret_cast<math::LogBounds*>(base + l.bounds);
  auto* log_sum = reinterpret_cast<double*>(base + l.sum);
  void* cub_temp = base + l.cub_temp;
  const std::string size = checks::size_text(rgba);

  if (n > 0) {
    log_luminance_kernel<<<launch::pixel_grid(rgba.width, rgba.height), launch::pixel_block(), 0, stream>>>(rgba,
                                                                                                           log_lum);
    GP_CUDA_CHECK_LAUNCH("log_luminance_kernel " + size);
    const float* samples = log_lum;  // same CUB instantiations as in scratch_layout()
    std::size_t temp_bytes = l.cub_temp_bytes;
    GP_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(cub_temp, temp_bytes, samples, histogram, log_lum_bins + 1,
                                                      math::log_lum_min, math::log_lum_max, n, stream),
                  "auto-exposure histogram " + size);
    percentile_bounds_kernel<<<1, log_lum_bins, 0, stream>>>(histogram, n, p, bounds);
    GP_CUDA_CHECK_LAUNCH("percentile_bounds_kernel " + std::to_string(log_lum_bins) + " bins, " + size);
    temp_bytes = l.cub_temp_bytes;
    GP_CUDA_CHECK(cub::DeviceReduce::TransformReduce(cub_temp, temp_bytes, samples, log_sum, n,
                                                     ::cuda::std::plus<double>{}, ClampToBounds{bounds}, 0.0, stream),
                  "auto-exposure sum " + size);
  }
  exposure_scale_kernel<<<1, 1, 0, stream>>>(log_sum, n, p, base_scale, out_scale);
  GP_CUDA_CHECK_LAUNCH("exposure_scale_kernel " + size);
}

}  // namespace gp::tone
