// FP16-storage element-wise, pooling and layout operators, and the float <-> half conversions of
// the FP16 engine's inputs and outputs. Each kernel computes in float what its FP32 counterpart
// (elementwise.cu, pool.cu, layout.cu) computes, in the same order, and rounds once to half;
// except an average over whole images (AVERAGE_POOL_2D whose window covers the input, MEAN over
// H and W), which is a parallel reduction here.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/infer/device_math.cuh"
#include "cuda/infer/ops.hpp"

namespace gp::infer::gpu::fp16 {
namespace {

using detail::activate;
using detail::std_max;
using detail::std_min;

__device__ __forceinline__ float load(const __half* p, std::int64_t i) { return __half2float(p[i]); }
__device__ __forceinline__ void store(__half* p, std::int64_t i, float v) { p[i] = __float2half_rn(v); }

// ---- element-wise ----

enum class BinaryOp { add, mul, prelu };

struct BroadcastGeometry {
  detail::Dims out;
  std::int64_t stride_a[detail::kMaxRank];
  std::int64_t stride_b[detail::kMaxRank];
};

template <BinaryOp kOp>
__global__ void broadcast_binary_fp16_kernel(const __half* __restrict__ a, const __half* __restrict__ b,
                                             BroadcastGeometry g, std::int64_t count, Activation activation,
                                             __half* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) {
    std::int64_t ia = 0, ib = 0, rest = i;
    for (int d = g.out.rank; d-- > 0;) {
      const std::int64_t coordinate = rest % g.out.size[d];
      rest /= g.out.size[d];
      ia += coordinate * g.stride_a[d];
      ib += coordinate * g.stride_b[d];
    }
    const float x = load(a, ia), y = load(b, ib);
    if (kOp == BinaryOp::add) store(output, i, activate(x + y, activation));
    if (kOp == BinaryOp::mul) store(output, i, activate(x * y, activation));
    if (kOp == BinaryOp::prelu) store(output, i, x >= 0.0f ? x : x * y);
  }
}

void broadcast_strides(const Shape& shape, const Shape& out, std::int64_t* strides) {
  for (std::size_t i = 0; i < out.size(); ++i) strides[i] = 0;
  std::int64_t stride = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    const std::size_t o = i + (out.size() - shape.size());
    strides[o] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
}

template <BinaryOp kOp>
void broadcast_binary(const __half* a, const Shape& a_shape, const __half* b, const Shape& b_shape,
                      Activation activation, __half* output, cudaStream_t stream, const char* op) {
  detail::check_activation(activation, op);
  Shape out = broadcast_shape(a_shape, b_shape);
  if (out.empty()) out = {1};
  BroadcastGeometry g;
  g.out = detail::dense_dims(out, op);
  broadcast_strides(a_shape, out, g.stride_a);
  broadcast_strides(b_shape, out, g.stride_b);
  const std::int64_t count = element_count(out);
  if (count == 0) return;
  broadcast_binary_fp16_kernel<kOp><<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(a, b, g, count,
                                                                                                activation, output);
  GP_CUDA_CHECK_LAUNCH(std::string(op) + " (fp16) " + shape_string(a_shape) + " and " + shape_string(b_shape));
}

enum class UnaryOp { relu, relu6, hard_swish, logistic };

template <UnaryOp kOp>
__global__ void unary_fp16_kernel(const __half* __restrict__ input, std::int64_t count, __half* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) {
    const float x = load(input, i);
    float y = 0.0f;
    if (kOp == UnaryOp::relu) y = std_max(x, 0.0f);
    if (kOp == UnaryOp::relu6) y = std_min(std_max(x, 0.0f), 6.0f);
    if (kOp == UnaryOp::hard_swish) y = x * std_min(6.0f, std_max(0.0f, x + 3.0f)) / 6.0f;
    if (kOp == UnaryOp::logistic) {
      const float cutoff_upper = 16.619047164916992188f, cutoff_lower = -9.0f;
      y = x > cutoff_upper ? 1.0f : x < cutoff_lower ? expf(x) : 1.0f / (1.0f + expf(-x));
    }
    store(output, i, y);
  }
}

template <UnaryOp kOp>
void unary(const __half* input, std::int64_t count, __half* output, cudaStream_t stream, const char* op) {
  if (count <= 0) return;
  unary_fp16_kernel<kOp><<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(input, count, output);
  GP_CUDA_CHECK_LAUNCH(std::string(op) + " (fp16) of " + std::to_string(count) + " elements");
}

__global__ void float_to_half_kernel(const float* __restrict__ input, std::int64_t count, __half* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) store(output, i, input[i]);
}

__global__ void half_to_float_kernel(const __half* __restrict__ input, std::int64_t count, float* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) output[i] = load(input, i);
}

// ---- pooling and MEAN ----

// A window that covers the whole image (the squeeze-and-excitation pools of selfie
// segmentation: 128x128 to 1x1 and smaller): one block per image and 32 channels, 32 lanes of
// pixels per channel, then the lanes' partial sums added in shared memory. The one-thread-per-
// output kernel below would add 16384 values in one serial chain there, about 2 ms at batch 1.
// The order of additions differs from the reference's; the float sum is rounded to half once.
constexpr int kGlobalLanes = 32;

__global__ void global_average_fp16_kernel(const __half* __restrict__ input, int pixels, int channels,
                                           Activation activation, __half* __restrict__ output) {
  __shared__ float partial[kGlobalLanes][kGlobalLanes + 1];
  const int c = static_cast<int>(blockIdx.x) * kGlobalLanes + static_cast<int>(threadIdx.x);
  const std::int64_t n = blockIdx.y;
  float total = 0.0f;
  if (c < channels) {
    const __half* image = input + n * pixels * channels + c;
    for (int p = static_cast<int>(threadIdx.y); p < pixels; p += kGlobalLanes) total += load(image, std::int64_t{p} * channels);
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
  global_average_fp16_kernel<<<grid, block, 0, stream>>>(input, in.h * in.w, in.c, activation, output);
  GP_CUDA_CHECK_LAUNCH(std::string(op) + " (fp16, whole image) " + shape_string(in.shape()));
}

struct PoolGeometry {
  int in_h, in_w, c;
  int out_h, out_w;
  int filter_h, filter_w, stride_h, stride_w;
  int pad_top, pad_left;
};

template <bool kMax>
__global__ void pool2d_fp16_kernel(const __half* __restrict__ input, PoolGeometry g, std::int64_t count,
                                   Activation activation, __half* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) {
    const int c = static_cast<int>(i % g.c);
    std::int64_t rest = i / g.c;
    const int x = static_cast<int>(rest % g.out_w);
    rest /= g.out_w;
    const int y = static_cast<int>(rest % g.out_h);
    const std::int64_t n = rest / g.out_h;
    const int in_y0 = y * g.stride_h - g.pad_top, in_x0 = x * g.stride_w - g.pad_left;
    const int fy_begin = max(0, -in_y0), fy_end = min(g.filter_h, g.in_h - in_y0);
    const int fx_begin = max(0, -in_x0), fx_end = min(g.filter_w, g.in_w - in_x0);
    const __half* image = input + n * g.in_h * g.in_w * g.c;
    float value = kMax ? -FLT_MAX : 0.0f;
    int elements = 0;
    for (int fy = fy_begin; fy < fy_end; ++fy) {
      for (int fx = fx_begin; fx < fx_end; ++fx) {
        const float v = load(image, (std::int64_t{in_y0 + fy} * g.in_w + in_x0 + fx) * g.c + c);
        if (kMax) {
          value = std_max(value, v);
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

template <bool kMax>
void pool2d(const __half* input, const Nhwc& in, const Pool2DOptions& o, __half* output, cudaStream_t stream,
            const char* op) {
  detail::check_activation(o.activation, op);
  const Nhwc out = pool2d_output(in, o);
  const WindowAxis ay = window_axis(o.padding, in.h, o.filter_h, o.stride_h);
  const WindowAxis ax = window_axis(o.padding, in.w, o.filter_w, o.stride_w);
  const std::int64_t count = out.count();
  if (count == 0) return;
  // One output per image whose window holds every pixel: the averaging reduction kernel.
  if (!kMax && out.h == 1 && out.w == 1 && o.filter_h - ay.pad_before >= in.h && o.filter_w - ax.pad_before >= in.w) {
    global_average(input, in, o.activation, output, stream, op);
    return;
  }
  PoolGeometry g{in.h, in.w, in.c, out.h, out.w, o.filter_h, o.filter_w, o.stride_h, o.stride_w,
                 ay.pad_before, ax.pad_before};
  pool2d_fp16_kernel<kMax><<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(input, g, count, o.activation,
                                                                                       output);
  GP_CUDA_CHECK_LAUNCH(std::string(op) + " (fp16) " + shape_string(in.shape()));
}

struct MeanGeometry {
  detail::Dims kept;
  detail::Dims reduced;
  std::int64_t reduced_count;
};

__global__ void mean_fp16_kernel(const __half* __restrict__ input, MeanGeometry g, std::int64_t count,
                                 __half* __restrict__ output) {
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

// ---- layout ----

struct PadGeometry {
  detail::Dims out;
  detail::Dims in;
  int before[detail::kMaxRank];
};

__global__ void pad_fp16_kernel(const __half* __restrict__ input, PadGeometry g, std::int64_t count,
                                __half* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) {
    std::int64_t rest = i, source = 0;
    bool inside = true;
    for (int d = g.out.rank; d-- > 0;) {
      const int c = static_cast<int>(rest % g.out.size[d]) - g.before[d];
      rest /= g.out.size[d];
      inside = inside && c >= 0 && c < g.in.size[d];
      source += std::int64_t{c} * g.in.stride[d];
    }
    output[i] = inside ? input[source] : __float2half_rn(0.0f);
  }
}

struct ResizeGeometry {
  int in_h, in_w, c;
  int out_h, out_w;
  float height_scale, width_scale;
  bool half_pixel_centers;
};

struct Source {
  float value;
  int lower, upper;
};
__device__ __forceinline__ Source source_of(int index, float scale, int size, bool half_pixel_centers) {
  Source s;
  s.value = half_pixel_centers ? (static_cast<float>(index) + 0.5f) * scale - 0.5f : static_cast<float>(index) * scale;
  s.lower = max(static_cast<int>(floorf(s.value)), 0);
  s.upper = min(static_cast<int>(ceilf(s.value)), size - 1);
  return s;
}

__global__ void resize_bilinear_fp16_kernel(const __half* __restrict__ input, ResizeGeometry g, std::int64_t count,
                                            __half* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) {
    const int c = static_cast<int>(i % g.c);
    std::int64_t rest = i / g.c;
    const int x = static_cast<int>(rest % g.out_w);
    rest /= g.out_w;
    const int y = static_cast<int>(rest % g.out_h);
    const std::int64_t n = rest / g.out_h;
    const Source sy = source_of(y, g.height_scale, g.in_h, g.half_pixel_centers);
    const Source sx = source_of(x, g.width_scale, g.in_w, g.half_pixel_centers);
    const float dy = sy.value - static_cast<float>(sy.lower);
    const float dx = sx.value - static_cast<float>(sx.lower);
    const __half* row0 = input + (n * g.in_h + sy.lower) * g.in_w * g.c;
    const __half* row1 = input + (n * g.in_h + sy.upper) * g.in_w * g.c;
    const float top_left = load(row0, std::int64_t{sx.lower} * g.c + c);
    const float bottom_left = load(row1, std::int64_t{sx.lower} * g.c + c);
    const float top_right = load(row0, std::int64_t{sx.upper} * g.c + c);
    const float bottom_right = load(row1, std::int64_t{sx.upper} * g.c + c);
    store(output, i,
          top_left * (1 - dy) * (1 - dx) + bottom_left * dy * (1 - dx) + top_right * (1 - dy) * dx +
              bottom_right * dy * dx);
  }
}

__global__ void concatenate_fp16_kernel(const __half* __restrict__ input, std::int64_t block, std::int64_t out_block,
                                        std::int64_t offset, std::int64_t count, bool apply_activation,
                                        Activation activation, __half* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) {
    const std::int64_t to = (i / block) * out_block + offset + i % block;
    if (apply_activation) {
      store(output, to, activate(load(input, i), activation));
    } else {
      output[to] = input[i];
    }
  }
}

}  // namespace

void add_gpu(const __half* a, const Shape& a_shape, const __half* b, const Shape& b_shape, Activation activation,
             __half* output, cudaStream_t stream) {
  broadcast_binary<BinaryOp::add>(a, a_shape, b, b_shape, activation, output, stream, "ADD");
}

void mul_gpu(const __half* a, const Shape& a_shape, const __half* b, const Shape& b_shape, Activation activation,
             __half* output, cudaStream_t stream) {
  broadcast_binary<BinaryOp::mul>(a, a_shape, b, b_shape, activation, output, stream, "MUL");
}

void prelu_gpu(const __half* input, const Shape& input_shape, const __half* alpha, const Shape& alpha_shape,
               __half* output, cudaStream_t stream) {
  if (broadcast_shape(input_shape, alpha_shape) != input_shape) {
    throw Error("PRELU alpha " + shape_string(alpha_shape) + " does not broadcast to the input " +
                shape_string(input_shape));
  }
  broadcast_binary<BinaryOp::prelu>(input, input_shape, alpha, alpha_shape, Activation::none, output, stream,
                                    "PRELU");
}

void relu_gpu(const __half* input, std::int64_t count, __half* output, cudaStream_t stream) {
  unary<UnaryOp::relu>(input, count, output, stream, "RELU");
}

void relu6_gpu(const __half* input, std::int64_t count, __half* output, cudaStream_t stream) {
  unary<UnaryOp::relu6>(input, count, output, stream, "RELU6");
}

void hard_swish_gpu(const __half* input, std::int64_t count, __half* output, cudaStream_t stream) {
  unary<UnaryOp::hard_swish>(input, count, output, stream, "HARD_SWISH");
}

void logistic_gpu(const __half* input, std::int64_t count, __half* output, cudaStream_t stream) {
  unary<UnaryOp::logistic>(input, count, output, stream, "LOGISTIC");
}

void float_to_half_gpu(const float* input, std::int64_t count, __half* output, cudaStream_t stream) {
  if (count <= 0) return;
  float_to_half_kernel<<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(input, count, output);
  GP_CUDA_CHECK_LAUNCH("float to half of " + std::to_string(count) + " elements");
}

void half_to_float_gpu(const __half* input, std::int64_t count, float* output, cudaStream_t stream) {
  if (count <= 0) return;
  half_to_float_kernel<<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(input, count, output);
  GP_CUDA_CHECK_LAUNCH("half to float of " + std::to_string(count) + " elements");
}

void average_pool2d_gpu(const __half* input, const Nhwc& in, const Pool2DOptions& o, __half* output,
                        cudaStream_t stream) {
  pool2d<false>(input, in, o, output, stream, "AVERAGE_POOL_2D");
}

void max_pool2d_gpu(const __half* input, const Nhwc& in, const Pool2DOptions& o, __half* output, cudaStream_t stream) {
  pool2d<true>(input, in, o, output, stream, "MAX_POOL_2D");
}

void mean_gpu(const __half* input, const Shape& input_shape, const std::vector<int>& axes, __half* output,
              cudaStream_t stream) {
  const detail::Dims dims = detail::dense_dims(input_shape, "MEAN");
  const auto reduced = normalized_axes(axes, dims.rank);
  if (dims.rank == 4 && reduced == std::vector<int>{1, 2}) {  // NHWC over H and W
    global_average(input, Nhwc::of(input_shape), Activation::none, output, stream, "MEAN");
    return;
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
  mean_fp16_kernel<<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(input, g, count, output);
  GP_CUDA_CHECK_LAUNCH("MEAN (fp16) " + shape_string(input_shape));
}

void pad_gpu(const __half* input, const Shape& input_shape, const std::vector<int>& paddings, __half* output,
             cudaStream_t stream) {
  const Shape out = pad_output(input_shape, paddings);
  if (out.empty()) {
    copy_gpu(input, 1, output, stream);
    return;
  }
  PadGeometry g;
  g.out = detail::dense_dims(out, "PAD");
  g.in = detail::dense_dims(input_shape, "PAD");
  for (std::size_t d = 0; d < out.size(); ++d) g.before[d] = paddings[2 * d];
  const std::int64_t count = element_count(out);
  if (count == 0) return;
  pad_fp16_kernel<<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(input, g, count, output);
  GP_CUDA_CHECK_LAUNCH("PAD (fp16) " + shape_string(input_shape));
}

void resize_bilinear_gpu(const __half* input, const Nhwc& in, int out_h, int out_w,
                         const ResizeBilinearOptions& options, __half* output, cudaStream_t stream) {
  const Nhwc out = resize_output(in, out_h, out_w);
  float height_scale = static_cast<float>(in.h) / static_cast<float>(out.h);
  float width_scale = static_cast<float>(in.w) / static_cast<float>(out.w);
  if (options.align_corners && out.h > 1) height_scale = static_cast<float>(in.h - 1) / static_cast<float>(out.h - 1);
  if (options.align_corners && out.w > 1) width_scale = static_cast<float>(in.w - 1) / static_cast<float>(out.w - 1);
  const std::int64_t count = out.count();
  if (count == 0) return;
  ResizeGeometry g{in.h, in.w, in.c, out.h, out.w, height_scale, width_scale, options.half_pixel_centers};
  resize_bilinear_fp16_kernel<<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(input, g, count, output);
  GP_CUDA_CHECK_LAUNCH("RESIZE_BILINEAR (fp16) " + shape_string(in.shape()) + " -> " + shape_string(out.shape()));
}

void concatenation_gpu(const std::vector<const __half*>& inputs, const std::vector<Shape>& shapes, int axis,
                       Activation activation, __half* output, cudaStream_t stream) {
  detail::check_activation(activation, "CONCATENATION");
  if (inputs.size() != shapes.size()) throw Error("CONCATENATION: pointer and shape counts differ");
  const Shape out = concatenation_output(shapes, axis);
  const auto a = static_cast<std::size_t>(normalized_axis(axis, static_cast<int>(out.size())));
  std::int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < a; ++d) outer *= out[d];
  for (std::size_t d = a + 1; d < out.size(); ++d) inner *= out[d];
  const std::int64_t out_block = out[a] * inner;
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::int64_t block = shapes[i][a] * inner, count = outer * block;
    if (count > 0) {
      concatenate_fp16_kernel<<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(
          inputs[i], block, out_block, offset, count, activation != Activation::none, activation, output);
      GP_CUDA_CHECK_LAUNCH("CONCATENATION (fp16) input " + std::to_string(i) + " " + shape_string(shapes[i]));
    }
    offset += block;
  }
}

void copy_gpu(const __half* input, std::int64_t count, __half* output, cudaStream_t stream) {
  if (count <= 0) return;
  GP_CUDA_CHECK(cudaMemcpyAsync(output, input, static_cast<std::size_t>(count) * sizeof(__half),
                                cudaMemcpyDeviceToDevice, stream),
                "RESHAPE (fp16) copy of " + std::to_string(count) + " elements");
}

}  // namespace gp::infer::gpu::fp16
