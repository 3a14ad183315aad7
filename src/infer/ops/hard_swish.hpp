#pragma once
// HARD_SWISH: x * min(max(x + 3, 0), 6) / 6.
#include "infer/ops/op_support.hpp"

namespace gp::infer::ops {

struct HardSwish : UnaryOperator<BuiltinOp::hard_swish, cpu::hard_swish> {
  template <class T>
  static GpuEnqueue gpu(const OpCall<T>& c, const GpuContext&) {
    return [a = c.in(0), count = c.count(), out = c.output](cudaStream_t s) { launch::hard_swish_gpu(a, count, out, s); };
  }
};

}  // namespace gp::infer::ops
