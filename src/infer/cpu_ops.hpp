#pragma once
// CPU reference operators on float32 tensors (NHWC for the spatial ones), with TFLite's
// reference-kernel semantics and summation order (tensorflow/lite/kernels/internal/reference/,
// MediaPipe's transpose_conv_bias.cc). The CUDA backend is tested against these, so the
// arithmetic is kept plain: one accumulator per output, in the order TFLite adds.
// Outputs are sized by the matching op_geometry.hpp function; inputs and outputs never alias.
// Multithreaded with gp::parallel_for over output rows (or element ranges).
#include <cstdint>
#include <vector>

#include "cuda/infer/op_geometry.hpp"
#include "infer/tflite_model.hpp"

namespace gp::infer::cpu {

// Fused activation as TFLite clamps to CalculateActivationRange's bounds: NONE [lowest, max]
// (only infinities change), RELU [0, max], RELU6 [0, 6], RELU_N1_TO_1 [-1, 1]. TANH applies tanh (TFLite's float kernels ignore a fused TANH; no
// MediaPipe model uses one). SIGN_BIT is rejected by the engine.
float activate(float x, Activation activation);

// ---- windows (cpu_ops_window.cpp) ------------------------------------------------------------

// output[n, y, x, o] = act(sum over (fy, fx, i) of input * filter[o, fy, fx, i] + bias[o]); bias may
// be null. Sum order: fy, fx, i (points outside the image skipped), then + bias.
void conv2d(const float* input, const Nhwc& input_shape, const float* filter, const Nhwc& filter_shape,
            const float* bias, const Conv2DOptions& options, float* output);
// filter 1 x H x W x (C * M); output channel c * M + m reads input channel c.
void depthwise_conv2d(const float* input, const Nhwc& input_shape, const float* filter, const Nhwc& filter_shape,
                      const float* bias, const DepthwiseConv2DOptions& options, float* output);
// Average over the window's in-bounds elements only (padding is not counted).
void average_pool2d(const float* input, const Nhwc& input_shape, const Pool2DOptions& options, float* output);
void max_pool2d(const float* input, const Nhwc& input_shape, const Pool2DOptions& options, float* output);
// MediaPipe's Convolution2DTransposeBias: weights OHWI, bias[O]. Each output starts at its bias
// and adds input * weight over inputs in (y, x, channel) order, as MediaPipe's scatter loop does.
void transpose_conv_bias(const float* input, const Nhwc& input_shape, const float* weights, const Nhwc& weights_shape,
                         const float* bias, const TransposeConvBiasOptions& options, float* output);

// ---- element-wise and layout (cpu_ops_tensor.cpp) --------------------------------------------

// Broadcasting binary operators (output shape broadcast_shape(a, b)).
void add(const float* a, const Shape& a_shape, const float* b, const Shape& b_shape, Activation activation,
         float* output);
void mul(const float* a, const Shape& a_shape, const float* b, const Shape& b_shape, Activation activation,
         float* output);
// x >= 0 ? x : x * alpha, alpha broadcast against the input (usually 1 x 1 x C or C); the output
// has the input's shape.
void prelu(const float* input, const Shape& input_shape, const float* alpha, const Shape& alpha_shape, float* output);

void relu(const float* input, std::int64_t count, float* output);
void relu6(const float* input, std::int64_t count, float* output);
void hard_swish(const float* input, std::int64_t count, float* output);  // x * min(max(x + 3, 0), 6) / 6
// 1 / (1 + exp(-x)); as TFLite's reference: exactly 1 above 16.619047, exp(x) below -9.
void logistic(const float* input, std::int64_t count, float* output);
// IEEE binary16 -> float32 (exact).
void dequantize_fp16(const std::uint16_t* input, std::int64_t count, float* output);

// Mean over axes: sum in input order, then divide by the number of reduced elements.
void mean(const float* input, const Shape& input_shape, const std::vector<int>& axes, float* output);
// Zero padding; paddings as pad_output takes them.
void pad(const float* input, const Shape& input_shape, const std::vector<int>& paddings, float* output);
// TFLite's reference ResizeBilinear, including its scale for align_corners and the clamping of
// the source coordinates (a negative half-pixel coordinate keeps its weight on row/column 0).
void resize_bilinear(const float* input, const Nhwc& input_shape, int out_h, int out_w,
                     const ResizeBilinearOptions& options, float* output);
// DEPTH_TO_SPACE (TFLite's DCR order): output (y, x, c) reads input (y / b, x / b,
// ((y % b) * b + x % b) * output channels + c).
void depth_to_space(const float* input, const Nhwc& input_shape, int block_size, float* output);
// TFLite's float kernel requires activation NONE and copies; another activation is applied.
void concatenation(const std::vector<const float*>& inputs, const std::vector<Shape>& shapes, int axis,
                   Activation activation, float* output);
// RESHAPE moves no data: a copy of count elements.
void copy(const float* input, std::int64_t count, float* output);

}  // namespace gp::infer::cpu
