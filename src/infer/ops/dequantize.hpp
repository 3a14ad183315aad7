#pragma once
// DEQUANTIZE of FLOAT16 (or FLOAT32) constants, which the planner folds into FLOAT32 constants at
// load (also after a DENSIFY); what runs is a DEQUANTIZE of a FLOAT32 activation: a copy.
#include <fmt/format.h>

#include "infer/ops/op_support.hpp"

namespace gp::infer::ops {

struct Dequantize : BuiltinOperator<BuiltinOp::dequantize> {
  static Shape shape(const ShapeArgs& a) {
    const Tensor& source = a.tensor(0);
    if (source.type != TensorType::float16 && source.type != TensorType::float32) {
      throw Error(fmt::format("DEQUANTIZE of {} (the engine dequantizes FLOAT16)", tensor_type_name(source.type)));
    }
    if (!a.known_at_load(0) && source.type != TensorType::float32) throw Error("DEQUANTIZE of a FLOAT16 activation");
    return a.shape(0);
  }
  static void cpu(const OpCall<float>& c) { cpu::copy(c.in(0), c.count(), c.output); }
  template <class T>
  static GpuEnqueue gpu(const OpCall<T>& c, const GpuContext&) {
    return [a = c.in(0), count = c.count(), out = c.output](cudaStream_t s) { launch::copy_gpu(a, count, out, s); };
  }
};

}  // namespace gp::infer::ops
