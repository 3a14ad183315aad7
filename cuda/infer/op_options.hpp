#pragma once
// The options of the operators the engine runs, as a .tflite model states them (the reader fills
// them, the shape rules, the CPU reference and the CUDA kernels read them). Plain data.
#include <vector>

namespace gp::infer {

enum class Padding { same, valid };
enum class Activation { none, relu, relu_n1_to_1, relu6, tanh, sign_bit };

struct Conv2DOptions {
  Padding padding = Padding::same;
  int stride_w = 1, stride_h = 1;
  int dilation_w = 1, dilation_h = 1;
  Activation activation = Activation::none;
};
struct DepthwiseConv2DOptions {
  Padding padding = Padding::same;
  int stride_w = 1, stride_h = 1;
  int dilation_w = 1, dilation_h = 1;
  int depth_multiplier = 1;  // redundant in current TFLite (output channels / input channels)
  Activation activation = Activation::none;
};
struct Pool2DOptions {  // AVERAGE_POOL_2D, MAX_POOL_2D
  Padding padding = Padding::same;
  int stride_w = 1, stride_h = 1;
  int filter_w = 1, filter_h = 1;
  Activation activation = Activation::none;
};
struct ActivationOptions {  // ADD, SUB, MUL
  Activation activation = Activation::none;
};
struct ConcatenationOptions {
  int axis = 0;  // may be negative (counted from the last dimension)
  Activation activation = Activation::none;
};
struct ResizeBilinearOptions {
  bool align_corners = false;
  bool half_pixel_centers = false;
};
struct ReshapeOptions {  // the target shape may instead come from the second input
  std::vector<int> new_shape;
};
struct DepthToSpaceOptions {
  int block_size = 1;  // > 0; the input's channels are a multiple of its square
};
struct ReducerOptions {  // MEAN
  bool keep_dims = false;
};
// MediaPipe's Convolution2DTransposeBias: custom options are TFLite's TfLiteTransposeConvParams
// as raw little-endian int32s {padding (1 same, 2 valid), stride_width, stride_height}.
struct TransposeConvBiasOptions {
  Padding padding = Padding::same;
  int stride_w = 1, stride_h = 1;
};
const char* padding_name(Padding padding);  // "SAME", "VALID"
const char* activation_name(Activation activation);  // "RELU6", ...

}  // namespace gp::infer
