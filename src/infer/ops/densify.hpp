#pragma once
// DENSIFY: a sparse constant (pruned weights, TFLite's SparsityParameters) to its dense shape.
// Its input is always a constant, so the planner folds it at load (load_time_values expands it
// with densified_floats); it never runs as a step.
#include "infer/ops/op_support.hpp"

namespace gp::infer::ops {

struct Densify : BuiltinOperator<BuiltinOp::densify> {
  static Shape shape(const ShapeArgs& a) {
    const Tensor& source = a.tensor(0);
    if (!source.is_constant() || !source.is_sparse) throw Error("DENSIFY of a tensor that is not a sparse constant");
    return source.shape;
  }
  static void cpu(const OpCall<float>&) { throw Error("DENSIFY runs at load, not as a step"); }
  template <class T>
  static GpuEnqueue gpu(const OpCall<T>&, const GpuContext&) {
    throw Error("DENSIFY runs at load, not as a step");
  }
};

}  // namespace gp::infer::ops
