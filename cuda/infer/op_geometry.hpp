#pragma once
// Output shapes and padding of the operators the engine runs, computed as TFLite computes them
// (kernels/padding.h, the kernels' Prepare functions, MediaPipe's transpose_conv_bias.cc).
// Backend-neutral: the CPU reference and the CUDA backend size their outputs with these (written
// once, beside the kernels; plain C++ built into gpuproc_infer_geometry).
// Shape errors throw gp::Error; the engine adds the model and operator to the message.
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/infer/op_options.hpp"

namespace gp::infer {

using Shape = std::vector<int>;

std::int64_t element_count(const Shape& shape);
// "1x256x256x3", "scalar" for rank 0.
std::string shape_string(const Shape& shape);

// A rank-4 NHWC shape (also used for OHWI filters: n = output channels, c = input channels).
struct Nhwc {
  int n = 1, h = 1, w = 1, c = 1;
  static Nhwc of(const Shape& shape);  // Error unless rank 4
  Shape shape() const { return {n, h, w, c}; }
  std::int64_t count() const { return std::int64_t{n} * h * w * c; }
  bool operator==(const Nhwc& o) const { return n == o.n && h == o.h && w == o.w && c == o.c; }
};

// One spatial axis of a sliding window: output size and the padding before it (top/left).
// TFLite: out = SAME ceil(in / stride), VALID ceil((in - effective_filter + 1) / stride); total
// padding max(0, (out - 1) * stride + effective_filter - in), before = total / 2, so an odd
// total puts the extra row/column after (bottom/right).
struct WindowAxis {
  int out = 0;
  int pad_before = 0;
  int pad_after = 0;
};
WindowAxis window_axis(Padding padding, int in, int filter, int stride, int dilation = 1);

// MediaPipe's Convolution2DTransposeBias along one axis: total padding (SAME only)
// max(0, filter - (in - 1) % stride - 1), out = stride * (in - 1) + filter - total, and the
// input origin shifted by total / 2.
struct TransposeAxis {
  int out = 0;
  int pad_before = 0;
};
TransposeAxis transpose_conv_axis(Padding padding, int in, int filter, int stride);

// Output shapes (inputs NHWC; conv filters OHWI, depthwise filters 1 x H x W x (C * multiplier),
// transpose-conv weights OHWI).
Nhwc conv2d_output(const Nhwc& input, const Nhwc& filter, const Conv2DOptions& options);
Nhwc depthwise_conv2d_output(const Nhwc& input, const Nhwc& filter, const DepthwiseConv2DOptions& options);
Nhwc pool2d_output(const Nhwc& input, const Pool2DOptions& options);
Nhwc transpose_conv_bias_output(const Nhwc& input, const Nhwc& weights, const TransposeConvBiasOptions& options);
Nhwc resize_output(const Nhwc& input, int out_h, int out_w);
// DEPTH_TO_SPACE with block size b: (n, h * b, w * b, c / (b * b)); Error unless b > 0 and c is a
// multiple of b * b.
Nhwc depth_to_space_output(const Nhwc& input, int block_size);

// NumPy/TFLite broadcasting: shapes aligned at the last dimension, each pair equal or one of
// them 1.
Shape broadcast_shape(const Shape& a, const Shape& b);
// Reduced axes normalised (negative counts from the end, duplicates dropped, sorted).
std::vector<int> normalized_axes(const std::vector<int>& axes, int rank);
Shape mean_output(const Shape& input, const std::vector<int>& axes, bool keep_dims);
// paddings: rank x 2 values (before, after) per dimension, none negative.
Shape pad_output(const Shape& input, const std::vector<int>& paddings);
// One -1 at most, resolved from the element count, which must match.
Shape reshape_output(const Shape& input, const Shape& new_shape);
// Axis may be negative; every other dimension must match.
int normalized_axis(int axis, int rank);
Shape concatenation_output(const std::vector<Shape>& inputs, int axis);

}  // namespace gp::infer
