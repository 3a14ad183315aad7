#pragma once
// MUL: broadcasting, fused activation.
#include "infer/ops/op_support.hpp"

namespace gp::infer::ops {

struct Mul : BuiltinOperator<BuiltinOp::mul> {
  static Shape shape(const ShapeArgs& a) { return broadcast_shape(a.shape(0), a.shape(1)); }
  static void cpu(const OpCall<float>& c) {
    cpu::mul(c.in(0), c.shape(0), c.in(1), c.shape(1), c.options<ActivationOptions>().activation, c.output);
  }
  template <class T>
  static GpuEnqueue gpu(const OpCall<T>& c, const GpuContext&) {
    return [act = c.template options<ActivationOptions>().activation, a = c.in(0), as = c.shape(0), b = c.in(1),
            bs = c.shape(1), out = c.output](cudaStream_t s) { launch::mul_gpu(a, as, b, bs, act, out, s); };
  }
};

}  // namespace gp::infer::ops
