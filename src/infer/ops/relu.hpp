#pragma once
// RELU: max(x, 0).
#include "infer/ops/op_support.hpp"

namespace gp::infer::ops {

struct Relu : UnaryOperator<BuiltinOp::relu, cpu::relu> {
  template <class T>
  static GpuEnqueue gpu(const OpCall<T>& c, const GpuContext&) {
    return [a = c.in(0), count = c.count(), out = c.output](cudaStream_t s) { launch::relu_gpu(a, count, out, s); };
  }
};

}  // namespace gp::infer::ops
