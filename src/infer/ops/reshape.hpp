#pragma once
// RESHAPE: the target from the options or a constant second input, resolved at batch 1 against the
// model's own input shape, then scaled to the batch. Moves no data: a copy.
#include "infer/ops/op_support.hpp"

namespace gp::infer::ops {

struct Reshape : BuiltinOperator<BuiltinOp::reshape> {
  static Shape shape(const ShapeArgs& a) {
    const bool from_tensor = a.input_count() > 1 && a.op().inputs[1] >= 0;
    const Shape target = from_tensor ? a.ints(1) : a.options<ReshapeOptions>().new_shape;
    const Shape& declared_input = a.tensor(0).shape;
    Shape resolved = reshape_output(declared_input, target);
    if (a.batch() > 1) {
      a.no_batch_axis(resolved.empty() || resolved[0] != 1 || declared_input[0] != 1, "RESHAPE folds");
      resolved[0] = a.batch();
    }
    if (element_count(resolved) != element_count(a.shape(0))) throw Error("element counts differ");
    return resolved;
  }
  static void cpu(const OpCall<float>& c) { cpu::copy(c.in(0), c.count(), c.output); }
  template <class T>
  static GpuEnqueue gpu(const OpCall<T>& c, const GpuContext&) {
    return [a = c.in(0), count = c.count(), out = c.output](cudaStream_t s) { launch::copy_gpu(a, count, out, s); };
  }
};

}  // namespace gp::infer::ops
