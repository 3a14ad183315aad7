#pragma once
// MEAN over the constant axes of input 1, keeping the reduced dimensions or not.
#include "infer/ops/op_support.hpp"

namespace gp::infer::ops {

struct Mean : BuiltinOperator<BuiltinOp::mean> {
  static constexpr bool reads_ints = true;  // axes
  static Shape shape(const ShapeArgs& a) {
    const auto axes = a.ints(1);
    const auto reduced = normalized_axes(axes, static_cast<int>(a.shape(0).size()));
    a.no_batch_axis(!reduced.empty() && reduced[0] == 0, "MEAN reduces");
    return mean_output(a.shape(0), axes, a.options<ReducerOptions>().keep_dims);
  }
  static void cpu(const OpCall<float>& c) { cpu::mean(c.in(0), c.shape(0), c.ints, c.output); }
  template <class T>
  static GpuEnqueue gpu(const OpCall<T>& c, const GpuContext&) {
    return [a = c.in(0), as = c.shape(0), axes = c.ints, out = c.output](cudaStream_t s) {
      launch::mean_gpu(a, as, axes, out, s);
    };
  }
};

}  // namespace gp::infer::ops
