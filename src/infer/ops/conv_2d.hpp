#pragma once
// CONV_2D: filter OHWI, optional bias[O], fused activation. FP16 pointwise convolutions (1x1,
// stride 1) go to cuBLAS when the engine has it: a GEMM of the pixel matrix with the filter, then
// bias and activation.
#include "infer/cuda_gemm.hpp"
#include "infer/ops/op_support.hpp"

namespace gp::infer::ops {

struct Conv2D : BuiltinOperator<BuiltinOp::conv_2d> {
  static Shape shape(const ShapeArgs& a) {
    return conv2d_output(a.nhwc(0), a.nhwc(1), a.options<Conv2DOptions>()).shape();
  }
  static void cpu(const OpCall<float>& c) {
    cpu::conv2d(c.in(0), c.nhwc(0), c.in(1), c.nhwc(1), c.optional(2), c.options<Conv2DOptions>(), c.output);
  }
  template <class T>
  static GpuEnqueue gpu(const OpCall<T>& c, const GpuContext& g) {
    const Conv2DOptions o = c.template options<Conv2DOptions>();
    const Nhwc is = c.nhwc(0), fs = c.nhwc(1);
    const T *a = c.in(0), *w = c.in(1), *b = c.optional(2);
    T* const out = c.output;
    if constexpr (std::is_same_v<T, __half>) {
      const bool pointwise = fs.h == 1 && fs.w == 1 && o.stride_h == 1 && o.stride_w == 1;
      if (g.gemm && pointwise) {
        conv2d_output(is, fs, o);  // the shape checks conv2d_gpu would make
        // The input is the M x C matrix of pixels; out = input x filter^T, then bias and activation.
        CublasGemm* gemm = g.gemm;
        const std::int64_t m = std::int64_t{is.n} * is.h * is.w;
        return [=](cudaStream_t s) {
          gemm->pointwise_fp16(a, m, is.c, w, fs.n, out, s);
          launch::bias_activation_gpu(out, m, fs.n, b, o.activation, s);
        };
      }
    }
    return [=](cudaStream_t s) { launch::conv2d_gpu(a, is, w, fs, b, o, out, s); };
  }
};

}  // namespace gp::infer::ops
