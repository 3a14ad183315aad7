#pragma once
// RELU6: min(max(x, 0), 6).
#include "infer/ops/op_support.hpp"

namespace gp::infer::ops {

struct Relu6 : UnaryOperator<BuiltinOp::relu6, cpu::relu6> {
  template <class T>
  static GpuEnqueue gpu(const OpCall<T>& c, const GpuContext&) {
    return [a = c.in(0), count = c.count(), out = c.output](cudaStream_t s) { launch::relu6_gpu(a, count, out, s); };
  }
};

}  // namespace gp::infer::ops
