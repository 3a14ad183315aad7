#pragma once
// The operators the engines run: adding one is its header in this folder and a line here.
#include "infer/ops/add.hpp"
#include "infer/ops/average_pool_2d.hpp"
#include "infer/ops/concatenation.hpp"
#include "infer/ops/conv_2d.hpp"
#include "infer/ops/densify.hpp"
#include "infer/ops/depth_to_space.hpp"
#include "infer/ops/depthwise_conv_2d.hpp"
#include "infer/ops/dequantize.hpp"
#include "infer/ops/hard_swish.hpp"
#include "infer/ops/logistic.hpp"
#include "infer/ops/max_pool_2d.hpp"
#include "infer/ops/mean.hpp"
#include "infer/ops/mul.hpp"
#include "infer/ops/pad.hpp"
#include "infer/ops/prelu.hpp"
#include "infer/ops/relu.hpp"
#include "infer/ops/relu6.hpp"
#include "infer/ops/reshape.hpp"
#include "infer/ops/resize_bilinear.hpp"
#include "infer/ops/transpose_conv_bias.hpp"

namespace gp::infer::ops {

template <class... Operators>
struct OperatorList {};

using AllOperators =
    OperatorList<Add, AveragePool2D, Concatenation, Conv2D, Densify, DepthToSpace, DepthwiseConv2D, Dequantize,
                 HardSwish, Logistic, MaxPool2D, Mean, Mul, Pad, Prelu, Relu, Relu6, Reshape, ResizeBilinear,
                 TransposeConvBias>;

}  // namespace gp::infer::ops
