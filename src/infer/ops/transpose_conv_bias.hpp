#pragma once
// MediaPipe's custom Convolution2DTransposeBias (selfie segmentation's decoder): weights OHWI,
// bias[O] required.
#include <fmt/format.h>

#include "infer/ops/op_support.hpp"

namespace gp::infer::ops {

struct TransposeConvBias {
  static std::string_view name() { return kConvolution2DTransposeBias; }
  static constexpr bool reads_ints = false;
  static Shape shape(const ShapeArgs& a) {
    const Nhwc weights = a.nhwc(1);
    if (element_count(a.shape(2)) != weights.n) throw Error("bias size differs from the output channels");
    return transpose_conv_bias_output(a.nhwc(0), weights, a.options<TransposeConvBiasOptions>()).shape();
  }
  static void cpu(const OpCall<float>& c) {
    cpu::transpose_conv_bias(c.in(0), c.nhwc(0), c.in(1), c.nhwc(1), c.in(2), c.options<TransposeConvBiasOptions>(),
                             c.output);
  }
  template <class T>
  static GpuEnqueue gpu(const OpCall<T>& c, const GpuContext&) {
    return [o = c.template options<TransposeConvBiasOptions>(), a = c.in(0), as = c.nhwc(0), w = c.in(1),
            ws = c.nhwc(1), b = c.in(2), out = c.output](cudaStream_t s) {
      launch::transpose_conv_bias_gpu(a, as, w, ws, b, o, out, s);
    };
  }
};

}  // namespace gp::infer::ops
