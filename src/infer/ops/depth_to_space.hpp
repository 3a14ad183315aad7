#pragma once
// DEPTH_TO_SPACE: blocks of b x b pixels from groups of channels (TFLite's DCR order; BlazePose's
// person detector upsamples with it).
#include "infer/ops/op_support.hpp"

namespace gp::infer::ops {

struct DepthToSpace : BuiltinOperator<BuiltinOp::depth_to_space> {
  static Shape shape(const ShapeArgs& a) {
    return depth_to_space_output(a.nhwc(0), a.options<DepthToSpaceOptions>().block_size).shape();
  }
  static void cpu(const OpCall<float>& c) {
    cpu::depth_to_space(c.in(0), c.nhwc(0), c.options<DepthToSpaceOptions>().block_size, c.output);
  }
  template <class T>
  static GpuEnqueue gpu(const OpCall<T>& c, const GpuContext&) {
    return [b = c.template options<DepthToSpaceOptions>().block_size, a = c.in(0), is = c.nhwc(0),
            out = c.output](cudaStream_t s) { launch::depth_to_space_gpu(a, is, b, out, s); };
  }
};

}  // namespace gp::infer::ops
