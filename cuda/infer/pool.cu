// AVERAGE_POOL_2D, MAX_POOL_2D and MEAN for float and half storage: one thread per output
// element, channels fastest, each reducing its window in the CPU reference's order in float;
// except, in half only, an average over whole images (AVERAGE_POOL_2D whose window covers the
// input, MEAN over H and W), which is a parallel reduction in another order. FP32 keeps the
// serial order so that it stays bit-identical to the CPU reference.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/infer/device_math.cuh"
#include "cuda/infer/ops.hpp"

namespace gp::infer::gpu {
namespace {

using detail::activate;
using detail::load;
using detail::store;

// A window that covers the whole image (the squeeze-and-excitation pools of selfie
// segmentation: 128x128 to 1x1 and smaller): one block per image and 32 channels, 32 lanes of
// pixels per channel, then the lanes' partial sums added in shared memory. The one-thread-per-
// output kernel below would add 16384 values in one serial chain there, about 2 ms at batch 1.
// The order of additions differs from the reference's; the float sum is rounded to half once.
constexpr int kGlobalLanes = 32;

__global__ void global_average_kernel(const __half* __restrict__ input, int pixels, int channels,
                                      Activation activation, __half* __restrict__ output) {
  __shared__ float partial[kGlobalLanes][kGlobalLanes + 1];
  const int c = static_cast<int>(blockIdx.x) * kGlobalLanes + static_cast<int>(threadIdx.x);
  const std::int64_t n = blockIdx.y;
  float total = 0.0f;
  if (c < channels) {
    const __half* image = input + n * pixels * channels + c;
    for (int p = static_cast<int>(threadIdx.y); p < pixels; p += kGlobalLanes) {
      total += load(image, std::int64_t{p} * channels);
    }
  }
  partial[threadIdx.y][threadIdx.x] = total;
  __syncthreads();
  if (threadIdx.y == 0 && c < channels) {
    float sum = 0.0f;
    for (int lane = 0; lane < kGlobalLanes; ++lane) sum += partial[lane][threadIdx.x];
    store(output, n * channels + c, activate(sum / static_cast<float>(pixels), activation));
  }
}

void global_average(const __half* input, const Nhwc& in, Activation activation, __half* output, cudaStream_t stream,
                    const char* op) {
  if (in.count() == 0) return;
  if (in.n > 65535) throw Error(std::string(op) + " (fp16): batch " + std::to_string(in.n) + " too large");
  const dim3 grid(static_cast<unsigned>((in.c + kGlobalLanes - 1) / kGlobalLanes), static_cast<unsigned>(in.n));
  const dim3 block(kGlobalLanes, kGlobalLanes);
  global_average_kernel<<<grid, block, 0, stream>>>(input, in.h * in.w, in.c, activation, output);
  GP_CUDA_CHECK_LAUNCH(std::string(op) + " (fp16, whole image) " + shape_string(in.shape()));
}

struct PoolGeometry {
  int in_h, in_w, c;
  int out_h, out_w;
  int filter_h, filter_w, stride_h, stride_w;
  int pad_top, pad_left;
};

template <bool kMax, typename T>
__global__ void pool2d_kernel(const T* __restrict__ input, PoolGeometry g, std::int64_t count, Activation activation,
                              T* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) {
    const int c = static_cast<int>(i % g.c);
    std::int64_t rest = i / g.c;
    const int x = static_cast<int>(rest % g.out_w);
    rest /= g.out_w;
    const int y = static_cast<int>(rest % g.out_h);
    const std::int64_t n = rest / g.out_h;
    const int in_y0 = y * g.stride_h - g.pad_top, in_x0 = x * g.stride_w - g.pad_left;
    // The window's in-bounds part (TFLite's filter_x_start / filter_x_end).
    const int fy_begin = max(0, -in_y0), fy_end = min(g.filter_h, g.in_h - in_y0);
    const int fx_begin = max(0, -in_x0), fx_end = min(g.filter_w, g.in_w - in_x0);
    const T* image = input + n * g.in_h * g.in_w * g.c;
    float value = kMax ? -FLT_MAX : 0.0f;
    int elements = 0;
    for (int fy = fy_begin; fy < fy_end; ++fy) {
      for (int fx = fx_begin; fx < fx_end; ++fx) {
        const float v = load(image, (std::int64_t{in_y0 + fy} * g.in_w + in_x0 + fx) * g.c + c);
        if (kMax) {
          value = detail::std_max(value, v);
        } else {
          value += v;
          ++elements;
        }
      }
    }
    if (!kMax) value = value / static_cast<float>(elements);
    store(output, i, activate(value, activation));
  }
}

template <bool kMax, typename T>
void pool2d(const T* input, const Nhwc& in, const Pool2DOptions& o, T* output, cudaStream_t stream, const char* op) {
  detail::check_activation(o.activation, op);
  const Nhwc out = pool2d_output(in, o);
  const WindowAxis ay = window_axis(o.padding, in.h, o.filter_h, o.stride_h);
  const WindowAxis ax = window_axis(o.padding, in.w, o.filter_w, o.stride_w);
  const std::int64_t count = out.count();
  if (count == 0) return;
  if constexpr (detail::kIsHalf<T>) {
    // One output per image whose window holds every pixel: the averaging reduction kernel.
    if (!kMax && out.h == 1 && out.w == 1 && o.filter_h - ay.pad_before >= in.h && o.filter_w - ax.pad_before >= in.w) {
      global_average(input, in, o.activation, output, stream, op);
      return;
    }
  }
  PoolGeometry g{in.h, in.w, in.c, out.h, out.w, o.filter_h, o.filter_w, o.stride_h, o.stride_w,
                 ay.pad_before, ax.pad_before};
  pool2d_kernel<kMax, T><<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(input, g, count,
                                                                                     o.activation, output);
  GP_CUDA_CHECK_LAUNCH(detail::context<T>(op, in.shape()));
}

// MEAN: the kept dimensions locate an output's first input; the reduced ones are walked as an
// odometer (last reduced axis fastest), which is input order.
struct MeanGeometry {
  detail::Dims kept;     // sizes and input strides of the kept axes
  detail::Dims reduced;  // sizes and input strides of the reduced axes
  std::int64_t reduced_count;
};

template <typename T>
__global__ void mean_kernel(const T* __restrict__ input, MeanGeometry g, std::int64_t count, T* __restrict__ output) {
  for (std::int64_t o = detail::first_index(); o < count; o += detail::grid_stride()) {
    std::int64_t base = 0, rest = o;
    for (int k = g.kept.rank; k-- > 0;) {
      base += (rest % g.kept.size[k]) * g.kept.stride[k];
      rest /= g.kept.size[k];
    }
    int coordinate[detail::kMaxRank] = {};
    float total = 0.0f;
    for (std::int64_t r = 0; r < g.reduced_count; ++r) {
      std::int64_t offset = base;
      for (int k = 0; k < g.reduced.rank; ++k) offset += coordinate[k] * g.reduced.stride[k];
      total += load(input, offset);
      for (int k = g.reduced.rank; k-- > 0;) {
        if (++coordinate[k] < g.reduced.size[k]) break;
        coordinate[k] = 0;
      }
    }
    store(output, o, total / static_cast<float>(g.reduced_count));
  }
}

template <typename T>
void mean(const T* input, const Shape& input_shape, const std::vector<int>& axes, T* output, cudaStream_t stream) {
  const detail::Dims dims = detail::dense_dims(input_shape, "MEAN");
  const auto reduced = normalized_axes(axes, dims.rank);
  if constexpr (detail::kIsHalf<T>) {
    if (dims.rank == 4 && reduced == std::vector<int>{1, 2}) {  // NHWC over H and W
      global_average(input, Nhwc::of(input_shape), Activation::none, output, stream, "MEAN");
      return;
    }
  }
  MeanGeometry g;
  g.reduced_count = 1;
  for (int d = 0; d < dims.rank; ++d) {
    detail::Dims& part = std::binary_search(reduced.begin(), reduced.end(), d) ? g.reduced : g.kept;
    part.size[part.rank] = dims.size[d];
    part.stride[part.rank] = dims.stride[d];
    ++part.rank;
  }
  std::int64_t count = 1;
  for (int k = 0; k < g.kept.rank; ++k) count *= g.kept.size[k];
  for (int k = 0; k < g.reduced.rank; ++k) g.reduced_count *= g.reduced.size[k];
  if (count == 0) return;
  mean_kernel<T><<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(input, g, count, output);
  GP_CUDA_CHECK_LAUNCH(detail::context<T>("MEAN", input_shape));
}

}  // namespace

void average_pool2d_gpu(const float* input, const Nhwc& in, const Pool2DOptions& o, float* output,
                        cudaStream_t stream) {
  pool2d<false>(input, in, o, output, stream, "AVERAGE_POOL_2D");
}

void max_pool2d_gpu(const float* input, const Nhwc& in, const Pool2DOptions& o, float* output, cudaStream_t stream) {
  pool2d<true>(input, in, o, output, stream, "MAX_POOL_2D");
}

void mean_gpu(const float* input, const Shape& input_shape, const std::vector<int>& axes, float* output,
              cudaStream_t stream) {
  mean(input, input_shape, axes, output, stream);
}

namespace fp16 {

void average_pool2d_gpu(const __half* input, const Nhwc& in, const Pool2DOptions& o, __half* output,
                        cudaStream_t stream) {
  pool2d<false>(input, in, o, output, stream, "AVERAGE_POOL_2D");
}

void max_pool2d_gpu(const __half* input, const Nhwc& in, const Pool2DOptions& o, __half* output, cudaStream_t stream) {
  pool2d<true>(input, in, o, output, stream, "MAX_POOL_2D");
}

void mean_gpu(const __half* input, const Shape& input_shape, const std::vector<int>& axes, __half* output,
              cudaStream_t stream) {
  mean(input, input_shape, axes, output, stream);
}

}  // namespace fp16

}  // namespace gp::infer::gpu
