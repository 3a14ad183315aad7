#pragma once
// MAX_POOL_2D.
#include "infer/ops/op_support.hpp"

namespace gp::infer::ops {

struct MaxPool2D : BuiltinOperator<BuiltinOp::max_pool_2d> {
  static Shape shape(const ShapeArgs& a) { return pool2d_output(a.nhwc(0), a.options<Pool2DOptions>()).shape(); }
  static void cpu(const OpCall<float>& c) { cpu::max_pool2d(c.in(0), c.nhwc(0), c.options<Pool2DOptions>(), c.output); }
  template <class T>
  static GpuEnqueue gpu(const OpCall<T>& c, const GpuContext&) {
    return [o = c.template options<Pool2DOptions>(), a = c.in(0), is = c.nhwc(0), out = c.output](cudaStream_t s) {
      launch::max_pool2d_gpu(a, is, o, out, s);
    };
  }
};

}  // namespace gp::infer::ops
