#pragma once
// CONCATENATION of every input along one axis, fused activation.
#include "infer/ops/op_support.hpp"

namespace gp::infer::ops {

struct Concatenation : BuiltinOperator<BuiltinOp::concatenation> {
  static Shape shape(const ShapeArgs& a) {
    const auto& o = a.options<ConcatenationOptions>();
    std::vector<Shape> shapes;
    for (std::size_t i = 0; i < a.input_count(); ++i) shapes.push_back(a.shape(i));
    const int rank = shapes.empty() ? 0 : static_cast<int>(shapes[0].size());
    a.no_batch_axis(normalized_axis(o.axis, rank) == 0, "CONCATENATION joins along");
    return concatenation_output(shapes, o.axis);
  }
  static void cpu(const OpCall<float>& c) {
    const auto& o = c.options<ConcatenationOptions>();
    cpu::concatenation(c.inputs, c.input_shapes, o.axis, o.activation, c.output);
  }
  template <class T>
  static GpuEnqueue gpu(const OpCall<T>& c, const GpuContext&) {
    return [o = c.template options<ConcatenationOptions>(), sources = c.inputs, shapes = c.input_shapes,
            out = c.output](cudaStream_t s) { launch::concatenation_gpu(sources, shapes, o.axis, o.activation, out, s); };
  }
};

}  // namespace gp::infer::ops
