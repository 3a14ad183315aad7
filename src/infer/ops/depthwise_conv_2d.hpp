#pragma once
// DEPTHWISE_CONV_2D: filter 1 x H x W x (C * multiplier), optional bias, fused activation.
#include "infer/ops/op_support.hpp"

namespace gp::infer::ops {

struct DepthwiseConv2D : BuiltinOperator<BuiltinOp::depthwise_conv_2d> {
  static Shape shape(const ShapeArgs& a) {
    return depthwise_conv2d_output(a.nhwc(0), a.nhwc(1), a.options<DepthwiseConv2DOptions>()).shape();
  }
  static void cpu(const OpCall<float>& c) {
    cpu::depthwise_conv2d(c.in(0), c.nhwc(0), c.in(1), c.nhwc(1), c.optional(2),
                          c.options<DepthwiseConv2DOptions>(), c.output);
  }
  template <class T>
  static GpuEnqueue gpu(const OpCall<T>& c, const GpuContext&) {
    return [o = c.template options<DepthwiseConv2DOptions>(), a = c.in(0), is = c.nhwc(0), w = c.in(1),
            fs = c.nhwc(1), b = c.optional(2), out = c.output](cudaStream_t s) {
      launch::depthwise_conv2d_gpu(a, is, w, fs, b, o, out, s);
    };
  }
};

}  // namespace gp::infer::ops
