#pragma once
// LOGISTIC: TFLite's reference sigmoid (1 above 16.619047, exp(x) below -9).
#include "infer/ops/op_support.hpp"

namespace gp::infer::ops {

struct Logistic : UnaryOperator<BuiltinOp::logistic, cpu::logistic> {
  template <class T>
  static GpuEnqueue gpu(const OpCall<T>& c, const GpuContext&) {
    return [a = c.in(0), count = c.count(), out = c.output](cudaStream_t s) { launch::logistic_gpu(a, count, out, s); };
  }
};

}  // namespace gp::infer::ops
