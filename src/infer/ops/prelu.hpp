#pragma once
// PRELU: x >= 0 ? x : x * alpha, alpha broadcast to the input's shape.
#include "infer/ops/op_support.hpp"

namespace gp::infer::ops {

struct Prelu : BuiltinOperator<BuiltinOp::prelu> {
  static Shape shape(const ShapeArgs& a) {
    if (broadcast_shape(a.shape(0), a.shape(1)) != a.shape(0)) {
      throw Error("alpha does not broadcast to the input's shape");
    }
    return a.shape(0);
  }
  static void cpu(const OpCall<float>& c) { cpu::prelu(c.in(0), c.shape(0), c.in(1), c.shape(1), c.output); }
  template <class T>
  static GpuEnqueue gpu(const OpCall<T>& c, const GpuContext&) {
    return [a = c.in(0), as = c.shape(0), alpha = c.in(1), alpha_shape = c.shape(1), out = c.output](cudaStream_t s) {
      launch::prelu_gpu(a, as, alpha, alpha_shape, out, s);
    };
  }
};

}  // namespace gp::infer::ops
