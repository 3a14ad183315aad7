#pragma once
// FP32 CUDA kernels of the inference engine's operators (issue 6), one launcher per operator of
// the CPU reference (src/infer/cpu_ops.hpp) with the same arguments plus a stream. Tensors are
// float32 device pointers (NHWC for the spatial operators, batch N in the shapes); outputs are
// sized by the matching op_geometry.hpp function and never alias an input. Launchers only
// enqueue work on `stream`: they never allocate or synchronise, so they can be captured into a
// CUDA graph. Shape errors throw gp::Error (from op_geometry) before anything is launched;
// launch failures throw gp::GpuError naming the operator and its shapes.
//
// Results match the CPU reference bit for bit where the arithmetic allows it: every output has
// one accumulator that adds in the reference's order, and the library is compiled with
// --fmad=false like the reference with -ffp-contract=off. Exceptions: LOGISTIC and a fused TANH
// use CUDA's expf/tanhf (within 2 ulp of glibc's), and convolutions add 0 * weight for padded
// points that the reference skips (the same result unless a weight is infinite or NaN).
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "cuda/infer/op_geometry.hpp"
#include "cuda/infer/op_options.hpp"

namespace gp::infer::gpu {

// ---- windows (conv.cu, pool.cu) ---------------------------------------------------------------

// CONV_2D, filter OHWI, bias[O] or null. A tiled GEMM in shared memory over M = N * OH * OW
// output pixels, O output channels and K = FH * FW * C (im2col on the fly; a 1x1 convolution
// with stride 1 reads the input as the M x C matrix directly).
void conv2d_gpu(const float* input, const Nhwc& input_shape, const float* filter, const Nhwc& filter_shape,
                const float* bias, const Conv2DOptions& options, float* output, cudaStream_t stream);
// DEPTHWISE_CONV_2D, filter 1 x H x W x (C * multiplier), bias or null.
void depthwise_conv2d_gpu(const float* input, const Nhwc& input_shape, const float* filter, const Nhwc& filter_shape,
                          const float* bias, const DepthwiseConv2DOptions& options, float* output,
                          cudaStream_t stream);
void average_pool2d_gpu(const float* input, const Nhwc& input_shape, const Pool2DOptions& options, float* output,
                        cudaStream_t stream);
void max_pool2d_gpu(const float* input, const Nhwc& input_shape, const Pool2DOptions& options, float* output,
                    cudaStream_t stream);
// MediaPipe's Convolution2DTransposeBias: weights OHWI, bias[O] (required).
void transpose_conv_bias_gpu(const float* input, const Nhwc& input_shape, const float* weights,
                             const Nhwc& weights_shape, const float* bias, const TransposeConvBiasOptions& options,
                             float* output, cudaStream_t stream);

// ---- element-wise and layout (elementwise.cu, layout.cu) --------------------------------------

// Broadcasting ADD / MUL (output shape broadcast_shape(a, b); rank 8 at most).
void add_gpu(const float* a, const Shape& a_shape, const float* b, const Shape& b_shape, Activation activation,
             float* output, cudaStream_t stream);
void mul_gpu(const float* a, const Shape& a_shape, const float* b, const Shape& b_shape, Activation activation,
             float* output, cudaStream_t stream);
// x >= 0 ? x : x * alpha; alpha broadcasts to the input's shape.
void prelu_gpu(const float* input, const Shape& input_shape, const float* alpha, const Shape& alpha_shape,
               float* output, cudaStream_t stream);

void relu_gpu(const float* input, std::int64_t count, float* output, cudaStream_t stream);
void relu6_gpu(const float* input, std::int64_t count, float* output, cudaStream_t stream);
void hard_swish_gpu(const float* input, std::int64_t count, float* output, cudaStream_t stream);
// TFLite's reference LOGISTIC: 1 above 16.619047, exp(x) below -9, else 1 / (1 + exp(-x)).
void logistic_gpu(const float* input, std::int64_t count, float* output, cudaStream_t stream);
// IEEE binary16 bits -> float32, exact (NaN payloads kept as the CPU's half_to_float keeps them).
void dequantize_fp16_gpu(const std::uint16_t* input, std::int64_t count, float* output, cudaStream_t stream);

// MEAN over axes (rank 8 at most): each output sums its inputs in input order, then divides.
void mean_gpu(const float* input, const Shape& input_shape, const std::vector<int>& axes, float* output,
              cudaStream_t stream);
// Zero padding; paddings: rank x (before, after) (rank 8 at most).
void pad_gpu(const float* input, const Shape& input_shape, const std::vector<int>& paddings, float* output,
             cudaStream_t stream);
void resize_bilinear_gpu(const float* input, const Nhwc& input_shape, int out_h, int out_w,
                         const ResizeBilinearOptions& options, float* output, cudaStream_t stream);
// DEPTH_TO_SPACE (cpu::depth_to_space's order): a copy, one thread per output element.
void depth_to_space_gpu(const float* input, const Nhwc& input_shape, int block_size, float* output, cudaStream_t stream);
// One copy kernel per input (no device-side pointer table, so nothing to allocate).
void concatenation_gpu(const std::vector<const float*>& inputs, const std::vector<Shape>& shapes, int axis,
                       Activation activation, float* output, cudaStream_t stream);
// RESHAPE: a device-to-device copy of count elements.
void copy_gpu(const float* input, std::int64_t count, float* output, cudaStream_t stream);

// ---- FP16 storage (the same .cu files) ---------------------------------------------------------
// The same operators on half tensors for the FP16 engine: each kernel is the FP32 kernel's
// template instantiated for __half, so it loads half, computes in float in the same order (one
// float accumulator per output) and rounds its result to half once (AVERAGE_POOL_2D over the
// whole image and MEAN over H and W reduce in parallel, in another order, in half only). Same
// arguments and errors (" (fp16)" after the operator's name) as the FP32 launchers. In a
// namespace of their own so that a call with null pointers still picks the FP32 launcher
// unambiguously.
namespace fp16 {

void conv2d_gpu(const __half* input, const Nhwc& input_shape, const __half* filter, const Nhwc& filter_shape,
                const __half* bias, const Conv2DOptions& options, __half* output, cudaStream_t stream);
void depthwise_conv2d_gpu(const __half* input, const Nhwc& input_shape, const __half* filter,
                          const Nhwc& filter_shape, const __half* bias, const DepthwiseConv2DOptions& options,
                          __half* output, cudaStream_t stream);
void average_pool2d_gpu(const __half* input, const Nhwc& input_shape, const Pool2DOptions& options, __half* output,
                        cudaStream_t stream);
void max_pool2d_gpu(const __half* input, const Nhwc& input_shape, const Pool2DOptions& options, __half* output,
                    cudaStream_t stream);
void transpose_conv_bias_gpu(const __half* input, const Nhwc& input_shape, const __half* weights,
                             const Nhwc& weights_shape, const __half* bias, const TransposeConvBiasOptions& options,
                             __half* output, cudaStream_t stream);
void add_gpu(const __half* a, const Shape& a_shape, const __half* b, const Shape& b_shape, Activation activation,
             __half* output, cudaStream_t stream);
void mul_gpu(const __half* a, const Shape& a_shape, const __half* b, const Shape& b_shape, Activation activation,
             __half* output, cudaStream_t stream);
void prelu_gpu(const __half* input, const Shape& input_shape, const __half* alpha, const Shape& alpha_shape,
               __half* output, cudaStream_t stream);
void relu_gpu(const __half* input, std::int64_t count, __half* output, cudaStream_t stream);
void relu6_gpu(const __half* input, std::int64_t count, __half* output, cudaStream_t stream);
void hard_swish_gpu(const __half* input, std::int64_t count, __half* output, cudaStream_t stream);
void logistic_gpu(const __half* input, std::int64_t count, __half* output, cudaStream_t stream);
void mean_gpu(const __half* input, const Shape& input_shape, const std::vector<int>& axes, __half* output,
              cudaStream_t stream);
void pad_gpu(const __half* input, const Shape& input_shape, const std::vector<int>& paddings, __half* output,
             cudaStream_t stream);
void resize_bilinear_gpu(const __half* input, const Nhwc& input_shape, int out_h, int out_w,
                         const ResizeBilinearOptions& options, __half* output, cudaStream_t stream);
void depth_to_space_gpu(const __half* input, const Nhwc& input_shape, int block_size, __half* output,
                        cudaStream_t stream);
void concatenation_gpu(const std::vector<const __half*>& inputs, const std::vector<Shape>& shapes, int axis,
                       Activation activation, __half* output, cudaStream_t stream);
void copy_gpu(const __half* input, std::int64_t count, __half* output, cudaStream_t stream);

// In place on a rows x channels row-major half matrix (a pointwise convolution's GEMM output):
// x = act(x + bias[channel]); bias may be null. Nothing is launched for no bias and NONE.
void bias_activation_gpu(__half* data, std::int64_t rows, int channels, const __half* bias, Activation activation,
                         cudaStream_t stream);
// Conversions at the FP16 engine's inputs and outputs (round to nearest even; exact widening).
void float_to_half_gpu(const float* input, std::int64_t count, __half* output, cudaStream_t stream);
void half_to_float_gpu(const __half* input, std::int64_t count, float* output, cudaStream_t stream);

}  // namespace fp16

}  // namespace gp::infer::gpu
