#pragma once
// PAD with zeros; paddings (rank x (before, after)) from the constant input 1.
#include "infer/ops/op_support.hpp"

namespace gp::infer::ops {

struct Pad : BuiltinOperator<BuiltinOp::pad> {
  static constexpr bool reads_ints = true;  // paddings
  static Shape shape(const ShapeArgs& a) {
    const auto paddings = a.ints(1);
    a.no_batch_axis(paddings.size() >= 2 && (paddings[0] != 0 || paddings[1] != 0), "PAD pads");
    return pad_output(a.shape(0), paddings);
  }
  static void cpu(const OpCall<float>& c) { cpu::pad(c.in(0), c.shape(0), c.ints, c.output); }
  template <class T>
  static GpuEnqueue gpu(const OpCall<T>& c, const GpuContext&) {
    return [a = c.in(0), as = c.shape(0), paddings = c.ints, out = c.output](cudaStream_t s) {
      launch::pad_gpu(a, as, paddings, out, s);
    };
  }
};

}  // namespace gp::infer::ops
