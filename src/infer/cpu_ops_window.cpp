// Sliding-window operators: CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, MAX_POOL_2D and
// MediaPipe's Convolution2DTransposeBias, each parallel over output rows (batch x height).
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/parallel_for.hpp"
#include "infer/cpu_ops.hpp"

namespace gp::infer::cpu {

float activate(float x, Activation activation) {
  // TFLite's ActivationFunctionWithMinMax over CalculateActivationRange's bounds (NONE too:
  // [lowest, max], which turns an infinity into the largest finite float).
  float low = std::numeric_limits<float>::lowest(), high = std::numeric_limits<float>::max();
  switch (activation) {
    case Activation::none: break;
    case Activation::relu: low = 0.0f; break;
    case Activation::relu6: low = 0.0f, high = 6.0f; break;
    case Activation::relu_n1_to_1: low = -1.0f, high = 1.0f; break;
    case Activation::tanh: return std::tanh(x);
    case Activation::sign_bit:
      throw Error(std::string("fused activation ") + activation_name(activation) + " is not supported");
  }
  return std::min(std::max(x, low), high);
}

namespace {

// Element offset of (n, y, x, c) in an NHWC tensor.
inline std::int64_t at(const Nhwc& s, int n, int y, int x, int c) {
  return ((std::int64_t{n} * s.h + y) * s.w + x) * s.c + c;
}

// Rows of the output (n * h + y) in parallel; body(n, y).
template <class Body>
void for_each_row(const Nhwc& out, Body&& body) {
  parallel_for(
      std::int64_t{out.n} * out.h,
      [&](long begin, long end) {
        for (long row = begin; row < end; ++row) body(static_cast<int>(row / out.h), static_cast<int>(row % out.h));
      },
      1);
}

}  // namespace

void conv2d(const float* input, const Nhwc& in, const float* filter, const Nhwc& f, const float* bias,
            const Conv2DOptions& o, float* output) {
  const Nhwc out = conv2d_output(in, f, o);
  const WindowAxis ay = window_axis(o.padding, in.h, f.h, o.stride_h, o.dilation_h);
  const WindowAxis ax = window_axis(o.padding, in.w, f.w, o.stride_w, o.dilation_w);
  for_each_row(out, [&](int n, int y) {
    const int in_y0 = y * o.stride_h - ay.pad_before;
    for (int x = 0; x < out.w; ++x) {
      const int in_x0 = x * o.stride_w - ax.pad_before;
      float* dst = output + at(out, n, y, x, 0);
      for (int oc = 0; oc < out.c; ++oc) {
        float total = 0.0f;
        for (int fy = 0; fy < f.h; ++fy) {
          const int iy = in_y0 + fy * o.dilation_h;
          if (iy < 0 || iy >= in.h) continue;
          for (int fx = 0; fx < f.w; ++fx) {
            const int ix = in_x0 + fx * o.dilation_w;
            if (ix < 0 || ix >= in.w) continue;
            const float* src = input + at(in, n, iy, ix, 0);
            const float* w = filter + at(f, oc, fy, fx, 0);
            for (int ic = 0; ic < in.c; ++ic) total += src[ic] * w[ic];
          }
        }
        dst[oc] = activate(total + (bias ? bias[oc] : 0.0f), o.activation);
      }
    }
  });
}

void depthwise_conv2d(const float* input, const Nhwc& in, const float* filter, const Nhwc& f, const float* bias,
                      const DepthwiseConv2DOptions& o, float* output) {
  const Nhwc out = depthwise_conv2d_output(in, f, o);
  const int multiplier = f.c / in.c;
  const WindowAxis ay = window_axis(o.padding, in.h, f.h, o.stride_h, o.dilation_h);
  const WindowAxis ax = window_axis(o.padding, in.w, f.w, o.stride_w, o.dilation_w);
  for_each_row(out, [&](int n, int y) {
    const int in_y0 = y * o.stride_h - ay.pad_before;
    for (int x = 0; x < out.w; ++x) {
      const int in_x0 = x * o.stride_w - ax.pad_before;
      for (int ic = 0; ic < in.c; ++ic) {
        for (int m = 0; m < multiplier; ++m) {
          const int oc = ic * multiplier + m;
          float total = 0.0f;
          for (int fy = 0; fy < f.h; ++fy) {
            const int iy = in_y0 + fy * o.dilation_h;
            if (iy < 0 || iy >= in.h) continue;
            for (int fx = 0; fx < f.w; ++fx) {
              const int ix = in_x0 + fx * o.dilation_w;
              if (ix < 0 || ix >= in.w) continue;
              total += input[at(in, n, iy, ix, ic)] * filter[at(f, 0, fy, fx, oc)];
            }
          }
          output[at(out, n, y, x, oc)] = activate(total + (bias ? bias[oc] : 0.0f), o.activation);
        }
      }
    }
  });
}

namespace {

// The in-bounds part [begin, end) of a window starting at origin (TFLite's filter_x_start/end).
struct Span {
  int begin, end;
};
inline Span clip(int origin, int filter, int size) {
  return {std::max(0, -origin), std::min(filter, size - origin)};
}

}  // namespace

void average_pool2d(const float* input, const Nhwc& in, const Pool2DOptions& o, float* output) {
  const Nhwc out = pool2d_output(in, o);
  const WindowAxis ay = window_axis(o.padding, in.h, o.filter_h, o.stride_h);
  const WindowAxis ax = window_axis(o.padding, in.w, o.filter_w, o.stride_w);
  for_each_row(out, [&](int n, int y) {
    const int in_y0 = y * o.stride_h - ay.pad_before;
    const Span sy = clip(in_y0, o.filter_h, in.h);
    for (int x = 0; x < out.w; ++x) {
      const int in_x0 = x * o.stride_w - ax.pad_before;
      const Span sx = clip(in_x0, o.filter_w, in.w);
      for (int c = 0; c < in.c; ++c) {
        float total = 0.0f;
        int count = 0;
        for (int fy = sy.begin; fy < sy.end; ++fy) {
          for (int fx = sx.begin; fx < sx.end; ++fx) {
            total += input[at(in, n, in_y0 + fy, in_x0 + fx, c)];
            ++count;
          }
        }
        // window_axis guarantees every window overlaps the input, so count > 0.
        output[at(out, n, y, x, c)] = activate(total / static_cast<float>(count), o.activation);
      }
    }
  });
}

void max_pool2d(const float* input, const Nhwc& in, const Pool2DOptions& o, float* output) {
  const Nhwc out = pool2d_output(in, o);
  const WindowAxis ay = window_axis(o.padding, in.h, o.filter_h, o.stride_h);
  const WindowAxis ax = window_axis(o.padding, in.w, o.filter_w, o.stride_w);
  for_each_row(out, [&](int n, int y) {
    const int in_y0 = y * o.stride_h - ay.pad_before;
    const Span sy = clip(in_y0, o.filter_h, in.h);
    for (int x = 0; x < out.w; ++x) {
      const int in_x0 = x * o.stride_w - ax.pad_before;
      const Span sx = clip(in_x0, o.filter_w, in.w);
      for (int c = 0; c < in.c; ++c) {
        float largest = std::numeric_limits<float>::lowest();
        for (int fy = sy.begin; fy < sy.end; ++fy) {
          for (int fx = sx.begin; fx < sx.end; ++fx) {
            largest = std::max(largest, input[at(in, n, in_y0 + fy, in_x0 + fx, c)]);
          }
        }
        output[at(out, n, y, x, c)] = activate(largest, o.activation);
      }
    }
  });
}

void transpose_conv_bias(const float* input, const Nhwc& in, const float* weights, const Nhwc& f, const float* bias,
                         const TransposeConvBiasOptions& o, float* output) {
  const Nhwc out = transpose_conv_bias_output(in, f, o);
  const int pad_y = transpose_conv_axis(o.padding, in.h, f.h, o.stride_h).pad_before;
  const int pad_x = transpose_conv_axis(o.padding, in.w, f.w, o.stride_w).pad_before;
  // MediaPipe scatters input (iy, ix, ic) to outputs (iy * stride - pad + fy, ...). Gathered per
  // output, the contributing inputs are those with 0 <= y + pad - iy * stride < filter, and adding
  // them in increasing (iy, ix, ic) keeps MediaPipe's order for every output element.
  for_each_row(out, [&](int n, int y) {
    const int iy_first = std::max(0, (y + pad_y - f.h) / o.stride_h);  // a lower bound; the loop checks
    for (int x = 0; x < out.w; ++x) {
      const int ix_first = std::max(0, (x + pad_x - f.w) / o.stride_w);
      for (int oc = 0; oc < out.c; ++oc) {
        float total = bias[oc];
        for (int iy = iy_first; iy < in.h; ++iy) {
          const int fy = y + pad_y - iy * o.stride_h;
          if (fy < 0) break;
          if (fy >= f.h) continue;
          for (int ix = ix_first; ix < in.w; ++ix) {
            const int fx = x + pad_x - ix * o.stride_w;
            if (fx < 0) break;
            if (fx >= f.w) continue;
            const float* src = input + at(in, n, iy, ix, 0);
            const float* w = weights + at(f, oc, fy, fx, 0);
            for (int ic = 0; ic < in.c; ++ic) total += src[ic] * w[ic];
          }
        }
        output[at(out, n, y, x, oc)] = total;
      }
    }
  });
}

}  // namespace gp::infer::cpu
