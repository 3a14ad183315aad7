#include "cuda/infer/op_geometry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "core/error.hpp"

namespace gp::infer {

std::string shape_string(const Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

const char* padding_name(Padding padding) { return padding == Padding::same ? "SAME" : "VALID"; }

const char* activation_name(Activation activation) {
  switch (activation) {
    case Activation::none: return "NONE";
    case Activation::relu: return "RELU";
    case Activation::relu_n1_to_1: return "RELU_N1_TO_1";
    case Activation::relu6: return "RELU6";
    case Activation::tanh: return "TANH";
    case Activation::sign_bit: return "SIGN_BIT";
  }
  return "?";
}

std::int64_t element_count(const Shape& shape) {
  std::int64_t count = 1;
  for (const int d : shape) count *= d;
  return count;
}

Nhwc Nhwc::of(const Shape& shape) {
  if (shape.size() != 4) throw Error(fmt::format("expected a rank-4 NHWC tensor, got {}", shape_string(shape)));
  return {shape[0], shape[1], shape[2], shape[3]};
}

WindowAxis window_axis(Padding padding, int in, int filter, int stride, int dilation) {
  if (stride < 1 || dilation < 1 || filter < 1) {
    throw Error(fmt::format("window with filter {}, stride {}, dilation {}", filter, stride, dilation));
  }
  // 64-bit: a model's sizes, strides and dilations may multiply past int.
  const std::int64_t effective_filter = std::int64_t(filter - 1) * dilation + 1;
  const std::int64_t out = padding == Padding::same ? (std::int64_t(in) + stride - 1) / stride
                                                    : (std::int64_t(in) + stride - effective_filter) / stride;
  if (out < 1) {
    throw Error(fmt::format("{} window of {} (dilated) over {} gives no output", padding_name(padding),
                            effective_filter, in));
  }
  const std::int64_t total = std::max<std::int64_t>(0, (out - 1) * stride + effective_filter - in);
  if (total > std::numeric_limits<int>::max()) {
    throw Error(fmt::format("window of {} (dilated) over {} needs {} padding", effective_filter, in, total));
  }
  WindowAxis axis;
  axis.out = static_cast<int>(out);  // at most in + stride - 1
  axis.pad_before = static_cast<int>(total / 2);
  axis.pad_after = static_cast<int>(total) - axis.pad_before;
  return axis;
}

TransposeAxis transpose_conv_axis(Padding padding, int in, int filter, int stride) {
  if (stride < 1 || filter < 1 || in < 1) {
    throw Error(fmt::format("transposed convolution of {} with filter {}, stride {}", in, filter, stride));
  }
  const int total = padding == Padding::same ? std::max(0, filter - (in - 1) % stride - 1) : 0;
  const std::int64_t out = std::int64_t(stride) * (in - 1) + filter - total;  // 64-bit: may pass int
  if (out > std::numeric_limits<int>::max()) {
    throw Error(fmt::format("transposed convolution of {} with filter {}, stride {} gives {} outputs", in, filter,
                            stride, out));
  }
  return {static_cast<int>(out), total / 2};
}

Nhwc conv2d_output(const Nhwc& input, const Nhwc& filter, const Conv2DOptions& o) {
  if (filter.c != input.c) {
    throw Error(fmt::format("filter {} has {} input channels, the input has {}", shape_string(filter.shape()),
                            filter.c, input.c));
  }
  return {input.n, window_axis(o.padding, input.h, filter.h, o.stride_h, o.dilation_h).out,
          window_axis(o.padding, input.w, filter.w, o.stride_w, o.dilation_w).out, filter.n};
}

Nhwc depthwise_conv2d_output(const Nhwc& input, const Nhwc& filter, const DepthwiseConv2DOptions& o) {
  if (filter.n != 1 || input.c < 1 || filter.c % input.c != 0) {  // input.c 0: a model's empty dimension
    throw Error(fmt::format("depthwise filter {} does not fit {} input channels", shape_string(filter.shape()),
                            input.c));
  }
  return {input.n, window_axis(o.padding, input.h, filter.h, o.stride_h, o.dilation_h).out,
          window_axis(o.padding, input.w, filter.w, o.stride_w, o.dilation_w).out, filter.c};
}

Nhwc pool2d_output(const Nhwc& input, const Pool2DOptions& o) {
  return {input.n, window_axis(o.padding, input.h, o.filter_h, o.stride_h).out,
          window_axis(o.padding, input.w, o.filter_w, o.stride_w).out, input.c};
}

Nhwc transpose_conv_bias_output(const Nhwc& input, const Nhwc& weights, const TransposeConvBiasOptions& o) {
  if (weights.c != input.c) {
    throw Error(fmt::format("weights {} have {} input channels, the input has {}", shape_string(weights.shape()),
                            weights.c, input.c));
  }
  return {input.n, transpose_conv_axis(o.padding, input.h, weights.h, o.stride_h).out,
          transpose_conv_axis(o.padding, input.w, weights.w, o.stride_w).out, weights.n};
}

Nhwc resize_output(const Nhwc& input, int out_h, int out_w) {
  if (out_h < 1 || out_w < 1) throw Error(fmt::format("resize to {}x{}", out_h, out_w));
  return {input.n, out_h, out_w, input.c};
}

Nhwc depth_to_space_output(const Nhwc& input, int block_size) {
  if (block_size < 1) throw Error(fmt::format("block size {}", block_size));
  const std::int64_t square = std::int64_t{block_size} * block_size;
  if (input.c % square != 0) {
    throw Error(fmt::format("{} channels are not a multiple of block size {} squared", input.c, block_size));
  }
  const std::int64_t h = std::int64_t{input.h} * block_size, w = std::int64_t{input.w} * block_size;
  if (h > std::numeric_limits<int>::max() || w > std::numeric_limits<int>::max()) {
    throw Error(fmt::format("output of {}x{} pixels", h, w));
  }
  return {input.n, int(h), int(w), int(input.c / square)};
}

Shape broadcast_shape(const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const int da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      throw Error(fmt::format("shapes {} and {} do not broadcast", shape_string(a), shape_string(b)));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::vector<int> normalized_axes(const std::vector<int>& axes, int rank) {
  std::vector<int> out;
  for (const int axis : axes) out.push_back(normalized_axis(axis, rank));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Shape mean_output(const Shape& input, const std::vector<int>& axes, bool keep_dims) {
  const auto reduced = normalized_axes(axes, static_cast<int>(input.size()));
  Shape out;
  for (int i = 0; i < static_cast<int>(input.size()); ++i) {
    const bool is_reduced = std::binary_search(reduced.begin(), reduced.end(), i);
    if (!is_reduced) {
      out.push_back(input[static_cast<std::size_t>(i)]);
    } else if (keep_dims) {
      out.push_back(1);
    }
  }
  return out;
}

Shape pad_output(const Shape& input, const std::vector<int>& paddings) {
  if (paddings.size() != 2 * input.size()) {
    throw Error(fmt::format("{} padding values for a rank-{} tensor", paddings.size(), input.size()));
  }
  Shape out(input);
  for (std::size_t i = 0; i < input.size(); ++i) {
    if (paddings[2 * i] < 0 || paddings[2 * i + 1] < 0) throw Error("negative padding");
    const std::int64_t size = std::int64_t(out[i]) + paddings[2 * i] + paddings[2 * i + 1];
    if (size > std::numeric_limits<int>::max()) throw Error(fmt::format("padding {} makes dimension {} {} long", shape_string(input), i, size));
    out[i] = static_cast<int>(size);
  }
  return out;
}

Shape reshape_output(const Shape& input, const Shape& new_shape) {
  Shape out(new_shape);
  std::int64_t known = 1;
  int unknown = -1;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (unknown >= 0) throw Error(fmt::format("new shape {} has more than one -1", shape_string(new_shape)));
      unknown = static_cast<int>(i);
    } else if (out[i] < 0) {
      throw Error(fmt::format("new shape {} has a negative dimension", shape_string(new_shape)));
    } else {
      known *= out[i];  // each factor below 2^31, so this stays far from int64's limit before the check
      if (known > std::numeric_limits<std::int32_t>::max()) {
        throw Error(fmt::format("new shape {} has more than 2^31 elements", shape_string(new_shape)));
      }
    }
  }
  const std::int64_t count = element_count(input);
  if (unknown >= 0 && known > 0 && count % known == 0) out[static_cast<std::size_t>(unknown)] = static_cast<int>(count / known);
  if (element_count(out) != count || (unknown >= 0 && known == 0)) {
    throw Error(fmt::format("cannot reshape {} to {}", shape_string(input), shape_string(new_shape)));
  }
  return out;
}

int normalized_axis(int axis, int rank) {
  const int out = axis < 0 ? axis + rank : axis;
  if (out < 0 || out >= rank) throw Error(fmt::format("axis {} of a rank-{} tensor", axis, rank));
  return out;
}

Shape concatenation_output(const std::vector<Shape>& inputs, int axis) {
  if (inputs.empty()) throw Error("concatenation of no tensors");
  const int rank = static_cast<int>(inputs[0].size());
  const auto a = static_cast<std::size_t>(normalized_axis(axis, rank));
  Shape out(inputs[0]);
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const Shape& s = inputs[i];
    bool fits = s.size() == out.size();
    for (std::size_t d = 0; fits && d < s.size(); ++d) fits = d == a || s[d] == out[d];
    if (!fits) {
      throw Error(fmt::format("cannot concatenate {} to {} along axis {}", shape_string(s), shape_string(inputs[0]),
                              axis));
    }
    const std::int64_t size = std::int64_t(out[a]) + s[a];
    if (size > std::numeric_limits<int>::max()) throw Error(fmt::format("concatenation to {} elements along axis {}", size, axis));
    out[a] = static_cast<int>(size);
  }
  return out;
}

}  // namespace gp::infer
