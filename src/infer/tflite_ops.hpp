#pragma once
// TFLite operator codes and names (the BuiltinOperator numbering of the model format).
#include <cstdint>
#include <string_view>

namespace gp::infer {

// The builtin operators the engine refers to by name; any other code is still read and named
// (builtin_op_name) so that an unsupported operator can be reported.
enum class BuiltinOp : std::int32_t {
  add = 0,
  average_pool_2d = 1,
  concatenation = 2,
  conv_2d = 3,
  depthwise_conv_2d = 4,
  depth_to_space = 5,
  dequantize = 6,
  logistic = 14,
  max_pool_2d = 17,
  mul = 18,
  relu = 19,
  relu6 = 21,
  reshape = 22,
  resize_bilinear = 23,
  custom = 32,
  pad = 34,
  mean = 40,
  sub = 41,
  prelu = 54,
  padv2 = 60,
  hard_swish = 117,
  densify = 124,
};

// TFLite's name of a builtin code ("CONV_2D"); empty when the code is unknown to this reader.
std::string_view builtin_op_name(std::int32_t code);
inline std::string_view builtin_op_name(BuiltinOp op) {
  return builtin_op_name(static_cast<std::int32_t>(op));
}

// MediaPipe's custom transposed convolution with bias (selfie segmentation's decoder).
inline constexpr std::string_view kConvolution2DTransposeBias = "Convolution2DTransposeBias";

}  // namespace gp::infer
