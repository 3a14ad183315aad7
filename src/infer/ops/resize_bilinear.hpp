#pragma once
// RESIZE_BILINEAR to the constant size (height, width) of input 1, TFLite's reference sampling.
#include <fmt/format.h>

#include "infer/ops/op_support.hpp"

namespace gp::infer::ops {

struct ResizeBilinear : BuiltinOperator<BuiltinOp::resize_bilinear> {
  static constexpr bool reads_ints = true;  // size
  static Shape shape(const ShapeArgs& a) {
    const auto size = a.ints(1);
    if (size.size() != 2) throw Error(fmt::format("size has {} values, expected 2", size.size()));
    return resize_output(a.nhwc(0), size[0], size[1]).shape();
  }
  static void cpu(const OpCall<float>& c) {
    cpu::resize_bilinear(c.in(0), c.nhwc(0), c.ints.at(0), c.ints.at(1), c.options<ResizeBilinearOptions>(), c.output);
  }
  template <class T>
  static GpuEnqueue gpu(const OpCall<T>& c, const GpuContext&) {
    return [o = c.template options<ResizeBilinearOptions>(), a = c.in(0), is = c.nhwc(0), h = c.ints.at(0),
            w = c.ints.at(1), out = c.output](cudaStream_t s) { launch::resize_bilinear_gpu(a, is, h, w, o, out, s); };
  }
};

}  // namespace gp::infer::ops
