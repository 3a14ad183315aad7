// CONV_2D, DEPTHWISE_CONV_2D and MediaPipe's Convolution2DTransposeBias, for float and half
// storage (each kernel a template over its storage type, computing in float), and the FP16
// engine's bias + activation epilogue of its cuBLAS pointwise convolutions.
//
// CONV_2D is a tiled GEMM in shared memory rather than cuBLAS: each output keeps one
// accumulator that adds input * weight in the reference's (fy, fx, ic) order, so with
// --fmad=false the result is the CPU reference's bit for bit, which cuBLAS (split-K, FMA, its
// own order) would not give; the engine's graphs are small enough that the tile kernel is not
// the bottleneck. Padded points load 0 and add 0 * weight, which leaves the sum unchanged (the
// accumulator starts at +0, so it is never -0) where the reference skips them.
//
// The FP16 engine sends CONV_2D 1x1 stride 1 to cuBLAS (tensor cores); what reaches the tiled
// kernel in half is the models' first convolution (3x3 or 5x5 over 3 channels: K = 27 or 75, 4-24%
// of the arithmetic, too narrow for tensor-core tiles to pay) and the other non-1x1 ones, plus
// every CONV_2D when the engine's tensor_cores option is off.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "cuda/infer/device_math.cuh"
#include "cuda/infer/ops.hpp"

namespace gp::infer::gpu {
namespace {

using detail::activate;
using detail::load;
using detail::store;

// 64 x 64 outputs per block of 16 x 16 threads, 4 x 4 per thread (rows ty + 16 i, channels
// tx + 16 j: neighbouring threads store neighbouring channels), K in steps of 16.
constexpr int kTileM = 64, kTileN = 64, kTileK = 16, kGemmThreads = 256;

struct ConvGeometry {
  int in_h, in_w, in_c;
  int out_h, out_w, out_c;
  int filter_h, filter_w;
  int stride_h, stride_w, dilation_h, dilation_w;
  int pad_top, pad_left;
  int m;  // N * out_h * out_w
  int k;  // filter_h * filter_w * in_c
};

// kPointwise: 1x1 filter, stride 1 (so no padding): the input is the m x in_c matrix itself.
template <typename T, bool kPointwise>
__global__ void __launch_bounds__(kGemmThreads)
    conv2d_gemm_kernel(const T* __restrict__ input, const T* __restrict__ filter, const T* __restrict__ bias,
                       ConvGeometry g, Activation activation, T* __restrict__ output) {
  __shared__ float tile_a[kTileK][kTileM + 4];  // [k][output pixel]
  __shared__ float tile_b[kTileK][kTileN + 4];  // [k][output channel]
  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % 16, ty = tid / 16;
  const int m0 = static_cast<int>(blockIdx.x) * kTileM, o0 = static_cast<int>(blockIdx.y) * kTileN;

  // This thread loads column load_k of the K step for rows load_row + 16 i of both tiles.
  const int load_k = tid % kTileK, load_row = tid / kTileK;
  std::int64_t a_base[4];
  int a_iy0[4], a_ix0[4];
  bool a_valid[4];
  const int pixels = g.out_h * g.out_w;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int m = m0 + load_row + 16 * i;
    a_valid[i] = m < g.m;
    const int mm = a_valid[i] ? m : 0;
    const int n = mm / pixels, rest = mm % pixels;
    const int oy = rest / g.out_w, ox = rest % g.out_w;
    a_iy0[i] = oy * g.stride_h - g.pad_top;
    a_ix0[i] = ox * g.stride_w - g.pad_left;
    a_base[i] = kPointwise ? std::int64_t{mm} * g.in_c : std::int64_t{n} * g.in_h * g.in_w * g.in_c;
  }

  float acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;
  }

  for (int k0 = 0; k0 < g.k; k0 += kTileK) {
    const int k = k0 + load_k;
    const bool k_valid = k < g.k;
    int fy = 0, fx = 0, ic = k;
    if (!kPointwise && k_valid) {
      ic = k % g.in_c;
      const int f = k / g.in_c;
      fx = f % g.filter_w;
      fy = f / g.filter_w;
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float a = 0.0f;
      if (a_valid[i] && k_valid) {
        if (kPointwise) {
          a = load(input, a_base[i] + k);
        } else {
          const int iy = a_iy0[i] + fy * g.dilation_h, ix = a_ix0[i] + fx * g.dilation_w;
          if (iy >= 0 && iy < g.in_h && ix >= 0 && ix < g.in_w) {
            a = load(input, a_base[i] + (std::int64_t{iy} * g.in_w + ix) * g.in_c + ic);
          }
        }
      }
      tile_a[load_k][load_row + 16 * i] = a;
      const int o = o0 + load_row + 16 * i;
      tile_b[load_k][load_row + 16 * i] = (o < g.out_c && k_valid) ? load(filter, std::int64_t{o} * g.k + k) : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTileK; ++kk) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = tile_a[kk][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = tile_b[kk][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
      }
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int m = m0 + ty + 16 * i;
    if (m >= g.m) continue;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int o = o0 + tx + 16 * j;
      if (o < g.out_c) {
        store(output, std::int64_t{m} * g.out_c + o, activate(acc[i][j] + (bias ? load(bias, o) : 0.0f), activation));
      }
    }
  }
}

struct DepthwiseGeometry {
  int in_h, in_w, in_c;
  int out_h, out_w, out_c;
  int filter_h, filter_w, multiplier;
  int stride_h, stride_w, dilation_h, dilation_w;
  int pad_top, pad_left;
};

// One thread per output element, channels fastest (coalesced); sum in (fy, fx) order.
template <typename T>
__global__ void depthwise_conv2d_kernel(const T* __restrict__ input, const T* __restrict__ filter,
                                        const T* __restrict__ bias, DepthwiseGeometry g, std::int64_t count,
                                        Activation activation, T* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) {
    const int oc = static_cast<int>(i % g.out_c);
    std::int64_t rest = i / g.out_c;
    const int x = static_cast<int>(rest % g.out_w);
    rest /= g.out_w;
    const int y = static_cast<int>(rest % g.out_h);
    const std::int64_t n = rest / g.out_h;
    const int ic = oc / g.multiplier;
    const int in_y0 = y * g.stride_h - g.pad_top, in_x0 = x * g.stride_w - g.pad_left;
    const T* image = input + n * g.in_h * g.in_w * g.in_c;
    float total = 0.0f;
    for (int fy = 0; fy < g.filter_h; ++fy) {
      const int iy = in_y0 + fy * g.dilation_h;
      if (iy < 0 || iy >= g.in_h) continue;
      for (int fx = 0; fx < g.filter_w; ++fx) {
        const int ix = in_x0 + fx * g.dilation_w;
        if (ix < 0 || ix >= g.in_w) continue;
        total += load(image, (std::int64_t{iy} * g.in_w + ix) * g.in_c + ic) *
                 load(filter, (std::int64_t{fy} * g.filter_w + fx) * g.out_c + oc);
      }
    }
    store(output, i, activate(total + (bias ? load(bias, oc) : 0.0f), activation));
  }
}

struct TransposeGeometry {
  int in_h, in_w, in_c;
  int out_h, out_w, out_c;
  int filter_h, filter_w;
  int stride_h, stride_w;
  int pad_top, pad_left;
};

// One thread per output element, gathering MediaPipe's scatter in its (iy, ix, ic) order, as
// cpu::transpose_conv_bias does.
template <typename T>
__global__ void transpose_conv_bias_kernel(const T* __restrict__ input, const T* __restrict__ weights,
                                           const T* __restrict__ bias, TransposeGeometry g, std::int64_t count,
                                           T* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) {
    const int oc = static_cast<int>(i % g.out_c);
    std::int64_t rest = i / g.out_c;
    const int x = static_cast<int>(rest % g.out_w);
    rest /= g.out_w;
    const int y = static_cast<int>(rest % g.out_h);
    const std::int64_t n = rest / g.out_h;
    const T* image = input + n * g.in_h * g.in_w * g.in_c;
    const int iy_first = max(0, (y + g.pad_top - g.filter_h) / g.stride_h);
    const int ix_first = max(0, (x + g.pad_left - g.filter_w) / g.stride_w);
    float total = load(bias, oc);
    for (int iy = iy_first; iy < g.in_h; ++iy) {
      const int fy = y + g.pad_top - iy * g.stride_h;
      if (fy < 0) break;
      if (fy >= g.filter_h) continue;
      for (int ix = ix_first; ix < g.in_w; ++ix) {
        const int fx = x + g.pad_left - ix * g.stride_w;
        if (fx < 0) break;
        if (fx >= g.filter_w) continue;
        const T* src = image + (std::int64_t{iy} * g.in_w + ix) * g.in_c;
        const T* w = weights + ((std::int64_t{oc} * g.filter_h + fy) * g.filter_w + fx) * g.in_c;
        for (int ic = 0; ic < g.in_c; ++ic) total += load(src, ic) * load(w, ic);
      }
    }
    store(output, i, total);
  }
}

// In place: x = act(x + bias[channel]) over a rows x channels matrix (only the FP16 engine's
// cuBLAS convolutions need it).
__global__ void bias_activation_kernel(__half* __restrict__ data, std::int64_t count, int channels,
                                       const __half* __restrict__ bias, Activation activation) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) {
    const float b = bias ? load(bias, static_cast<int>(i % channels)) : 0.0f;
    store(data, i, activate(load(data, i) + b, activation));
  }
}

template <typename T>
std::string conv_context(const char* op, const Nhwc& in, const Nhwc& f) {
  return std::string(op) + detail::storage_suffix<T>() + " input " + shape_string(in.shape()) + " filter " +
         shape_string(f.shape());
}

template <typename T>
void conv2d(const T* input, const Nhwc& in, const T* filter, const Nhwc& f, const T* bias, const Conv2DOptions& o,
            T* output, cudaStream_t stream) {
  detail::check_activation(o.activation, "CONV_2D");
  const Nhwc out = conv2d_output(in, f, o);
  const WindowAxis ay = window_axis(o.padding, in.h, f.h, o.stride_h, o.dilation_h);
  const WindowAxis ax = window_axis(o.padding, in.w, f.w, o.stride_w, o.dilation_w);
  const std::int64_t m = std::int64_t{out.n} * out.h * out.w, k = std::int64_t{f.h} * f.w * f.c;
  if (m > (std::int64_t{1} << 30) || k > (std::int64_t{1} << 30)) {
    throw Error(conv_context<T>("CONV_2D", in, f) + ": too large for the CUDA kernel");
  }
  if (out.count() == 0) return;
  ConvGeometry g{in.h,   in.w,       in.c,       out.h,         out.w,          out.c,
                 f.h,    f.w,        o.stride_h, o.stride_w,    o.dilation_h,   o.dilation_w,
                 ay.pad_before, ax.pad_before, static_cast<int>(m), static_cast<int>(k)};
  const dim3 grid(static_cast<unsigned>((m + kTileM - 1) / kTileM), static_cast<unsigned>((out.c + kTileN - 1) / kTileN));
  if (grid.y > 65535u) throw Error(conv_context<T>("CONV_2D", in, f) + ": too many output channels");
  const bool pointwise = f.h == 1 && f.w == 1 && o.stride_h == 1 && o.stride_w == 1;
  if (pointwise) {
    conv2d_gemm_kernel<T, true><<<grid, kGemmThreads, 0, stream>>>(input, filter, bias, g, o.activation, output);
  } else {
    conv2d_gemm_kernel<T, false><<<grid, kGemmThreads, 0, stream>>>(input, filter, bias, g, o.activation, output);
  }
  GP_CUDA_CHECK_LAUNCH(conv_context<T>("CONV_2D", in, f));
}

template <typename T>
void depthwise_conv2d(const T* input, const Nhwc& in, const T* filter, const Nhwc& f, const T* bias,
                      const DepthwiseConv2DOptions& o, T* output, cudaStream_t stream) {
  detail::check_activation(o.activation, "DEPTHWISE_CONV_2D");
  const Nhwc out = depthwise_conv2d_output(in, f, o);
  const WindowAxis ay = window_axis(o.padding, in.h, f.h, o.stride_h, o.dilation_h);
  const WindowAxis ax = window_axis(o.padding, in.w, f.w, o.stride_w, o.dilation_w);
  const std::int64_t count = out.count();
  if (count == 0) return;
  DepthwiseGeometry g{in.h,       in.w,       in.c,         out.h,        out.w,         out.c,        f.h,
                      f.w,        f.c / in.c, o.stride_h,   o.stride_w,   o.dilation_h,  o.dilation_w,
                      ay.pad_before, ax.pad_before};
  depthwise_conv2d_kernel<T><<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(input, filter, bias, g,
                                                                                         count, o.activation, output);
  GP_CUDA_CHECK_LAUNCH(conv_context<T>("DEPTHWISE_CONV_2D", in, f));
}

template <typename T>
void transpose_conv_bias(const T* input, const Nhwc& in, const T* weights, const Nhwc& f, const T* bias,
                         const TransposeConvBiasOptions& o, T* output, cudaStream_t stream) {
  const Nhwc out = transpose_conv_bias_output(in, f, o);
  if (bias == nullptr) throw Error(conv_context<T>("Convolution2DTransposeBias", in, f) + ": no bias");
  const int pad_y = transpose_conv_axis(o.padding, in.h, f.h, o.stride_h).pad_before;
  const int pad_x = transpose_conv_axis(o.padding, in.w, f.w, o.stride_w).pad_before;
  const std::int64_t count = out.count();
  if (count == 0) return;
  TransposeGeometry g{in.h, in.w, in.c, out.h, out.w, out.c, f.h, f.w, o.stride_h, o.stride_w, pad_y, pad_x};
  transpose_conv_bias_kernel<T><<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(input, weights, bias,
                                                                                            g, count, output);
  GP_CUDA_CHECK_LAUNCH(conv_context<T>("Convolution2DTransposeBias", in, f));
}

}  // namespace

void conv2d_gpu(const float* input, const Nhwc& in, const float* filter, const Nhwc& f, const float* bias,
                const Conv2DOptions& o, float* output, cudaStream_t stream) {
  conv2d(input, in, filter, f, bias, o, output, stream);
}

void depthwise_conv2d_gpu(const float* input, const Nhwc& in, const float* filter, const Nhwc& f, const float* bias,
                          const DepthwiseConv2DOptions& o, float* output, cudaStream_t stream) {
  depthwise_conv2d(input, in, filter, f, bias, o, output, stream);
}

void transpose_conv_bias_gpu(const float* input, const Nhwc& in, const float* weights, const Nhwc& f,
                             const float* bias, const TransposeConvBiasOptions& o, float* output,
                             cudaStream_t stream) {
  transpose_conv_bias(input, in, weights, f, bias, o, output, stream);
}

namespace fp16 {

void conv2d_gpu(const __half* input, const Nhwc& in, const __half* filter, const Nhwc& f, const __half* bias,
                const Conv2DOptions& o, __half* output, cudaStream_t stream) {
  conv2d(input, in, filter, f, bias, o, output, stream);
}

void depthwise_conv2d_gpu(const __half* input, const Nhwc& in, const __half* filter, const Nhwc& f,
                          const __half* bias, const DepthwiseConv2DOptions& o, __half* output, cudaStream_t stream) {
  depthwise_conv2d(input, in, filter, f, bias, o, output, stream);
}

void transpose_conv_bias_gpu(const __half* input, const Nhwc& in, const __half* weights, const Nhwc& f,
                             const __half* bias, const TransposeConvBiasOptions& o, __half* output,
                             cudaStream_t stream) {
  transpose_conv_bias(input, in, weights, f, bias, o, output, stream);
}

void bias_activation_gpu(__half* data, std::int64_t rows, int channels, const __half* bias, Activation activation,
                         cudaStream_t stream) {
  detail::check_activation(activation, "CONV_2D");
  const std::int64_t count = rows * channels;
  if (count == 0 || (bias == nullptr && activation == Activation::none)) return;
  bias_activation_kernel<<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(data, count, channels, bias,
                                                                                     activation);
  GP_CUDA_CHECK_LAUNCH("CONV_2D (fp16) bias and activation of " + std::to_string(rows) + "x" +
                       std::to_string(channels));
}

}  // namespace fp16

}  // namespace gp::infer::gpu
