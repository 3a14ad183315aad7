// Element-wise, broadcasting and layout operators: ADD, MUL, PRELU, RELU, HARD_SWISH, LOGISTIC,
// DEQUANTIZE, MEAN, PAD, RESIZE_BILINEAR, CONCATENATION, RESHAPE.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/parallel_for.hpp"
#include "infer/cpu_ops.hpp"
#include "cuda/common/half.hpp"

namespace gp::infer::cpu {
namespace {

constexpr long kElementChunk = 1 << 14;  // elements per thread at least, for the cheap loops

template <class F>
void for_each_element(std::int64_t count, F&& f) {
  parallel_for(
      count, [&](long begin, long end) {
        for (long i = begin; i < end; ++i) f(i);
      },
      kElementChunk);
}

// Strides of `shape` seen as a tensor of `out`'s rank, 0 along broadcast (size-1) dimensions.
std::vector<std::int64_t> broadcast_strides(const Shape& shape, const Shape& out) {
  std::vector<std::int64_t> strides(out.size(), 0);
  std::int64_t stride = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    const std::size_t o = i + (out.size() - shape.size());
    strides[o] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
  return strides;
}

// out[i] = f(a[...], b[...]) over the broadcast shape, parallel over rows (all but the last axis).
template <class F>
void broadcast_binary(const float* a, const Shape& a_shape, const float* b, const Shape& b_shape, float* output, F&& f) {
  Shape out = broadcast_shape(a_shape, b_shape);
  if (out.empty()) out = {1};
  const auto sa = broadcast_strides(a_shape, out);
  const auto sb = broadcast_strides(b_shape, out);
  const std::size_t rank = out.size();
  const int inner = out.back();
  const std::int64_t rows = element_count(out) / std::max(inner, 1);
  parallel_for(
      rows,
      [&](long begin, long end) {
        for (long row = begin; row < end; ++row) {
          std::int64_t ia = 0, ib = 0, rest = row;
          for (std::size_t d = rank - 1; d-- > 0;) {
            const std::int64_t coordinate = rest % out[d];
            rest /= out[d];
            ia += coordinate * sa[d];
            ib += coordinate * sb[d];
          }
          float* dst = output + row * inner;
          for (int x = 0; x < inner; ++x) dst[x] = f(a[ia + x * sa[rank - 1]], b[ib + x * sb[rank - 1]]);
        }
      },
      std::max<long>(1, kElementChunk / std::max(inner, 1)));
}

}  // namespace

void add(const float* a, const Shape& a_shape, const float* b, const Shape& b_shape, Activation activation,
         float* output) {
  broadcast_binary(a, a_shape, b, b_shape, output, [&](float x, float y) { return activate(x + y, activation); });
}

void mul(const float* a, const Shape& a_shape, const float* b, const Shape& b_shape, Activation activation,
         float* output) {
  broadcast_binary(a, a_shape, b, b_shape, output, [&](float x, float y) { return activate(x * y, activation); });
}

void prelu(const float* input, const Shape& input_shape, const float* alpha, const Shape& alpha_shape, float* output) {
  if (broadcast_shape(input_shape, alpha_shape) != input_shape) {
    throw Error("PRELU alpha " + shape_string(alpha_shape) + " does not broadcast to the input " +
                shape_string(input_shape));
  }
  broadcast_binary(input, input_shape, alpha, alpha_shape, output,
                   [](float x, float a) { return x >= 0.0f ? x : x * a; });
}

void relu(const float* input, std::int64_t count, float* output) {
  for_each_element(count, [&](long i) { output[i] = std::max(input[i], 0.0f); });
}

void relu6(const float* input, std::int64_t count, float* output) {
  for_each_element(count, [&](long i) { output[i] = std::min(std::max(input[i], 0.0f), 6.0f); });
}

void hard_swish(const float* input, std::int64_t count, float* output) {
  for_each_element(count, [&](long i) {
    const float x = input[i];
    output[i] = x * std::min(6.0f, std::max(0.0f, x + 3.0f)) / 6.0f;
  });
}

void logistic(const float* input, std::int64_t count, float* output) {
  // TFLite's reference_ops::Logistic: 1 above its upper cutoff, exp(x) below -9.
  const float cutoff_upper = 16.619047164916992188f, cutoff_lower = -9.0f;
  for_each_element(count, [&](long i) {
    const float x = input[i];
    output[i] = x > cutoff_upper ? 1.0f : x < cutoff_lower ? std::exp(x) : 1.0f / (1.0f + std::exp(-x));
  });
}

void dequantize_fp16(const std::uint16_t* input, std::int64_t count, float* output) {
  for_each_element(count, [&](long i) { output[i] = half_to_float(input[i]); });
}

void copy(const float* input, std::int64_t count, float* output) {
  std::memcpy(output, input, static_cast<std::size_t>(count) * sizeof(float));
}

void mean(const float* input, const Shape& input_shape, const std::vector<int>& axes, float* output) {
  const int rank = static_cast<int>(input_shape.size());
  const auto reduced = normalized_axes(axes, rank);
  std::vector<std::int64_t> strides(input_shape.size(), 1);
  for (int d = rank - 1; d-- > 0;) strides[d] = strides[d + 1] * input_shape[d + 1];
  std::vector<int> kept;
  std::int64_t reduced_count = 1;
  for (int d = 0; d < rank; ++d) {
    if (std::binary_search(reduced.begin(), reduced.end(), d)) {
      reduced_count *= input_shape[d];
    } else {
      kept.push_back(d);
    }
  }
  std::int64_t out_count = 1;
  for (const int d : kept) out_count *= input_shape[d];
  parallel_for(
      out_count,
      [&](long begin, long end) {
        std::vector<int> coordinate(reduced.size());
        for (long o = begin; o < end; ++o) {
          std::int64_t base = 0, rest = o;
          for (std::size_t k = kept.size(); k-- > 0;) {
            base += (rest % input_shape[kept[k]]) * strides[kept[k]];
            rest /= input_shape[kept[k]];
          }
          // The reduced coordinates as an odometer (last axis fastest) visit the input in order.
          std::fill(coordinate.begin(), coordinate.end(), 0);
          float total = 0.0f;
          for (std::int64_t r = 0; r < reduced_count; ++r) {
            std::int64_t offset = base;
            for (std::size_t k = 0; k < reduced.size(); ++k) offset += coordinate[k] * strides[reduced[k]];
            total += input[offset];
            for (std::size_t k = reduced.size(); k-- > 0;) {
              if (++coordinate[k] < input_shape[reduced[k]]) break;
              coordinate[k] = 0;
            }
          }
          output[o] = total / static_cast<float>(reduced_count);
        }
      },
      1);
}

void depth_to_space(const float* input, const Nhwc& in, int block_size, float* output) {
  const Nhwc out = depth_to_space_output(in, block_size);
  const int b = block_size;
  parallel_for(
      std::int64_t{out.n} * out.h,
      [&](long begin, long end) {
        for (long row = begin; row < end; ++row) {  // output row (n, y)
          const int n = int(row / out.h), y = int(row % out.h);
          const float* in_row = input + (std::int64_t{n} * in.h + y / b) * in.w * std::int64_t{in.c};
          float* dst = output + row * std::int64_t{out.w} * out.c;
          for (int x = 0; x < out.w; ++x) {
            const float* src = in_row + std::int64_t{x / b} * in.c + std::int64_t{(y % b) * b + x % b} * out.c;
            std::copy(src, src + out.c, dst + std::int64_t{x} * out.c);
          }
        }
      },
      1);
}

void pad(const float* input, const Shape& input_shape, const std::vector<int>& paddings, float* output) {
  const Shape out = pad_output(input_shape, paddings);
  const std::size_t rank = out.size();
  if (rank == 0) {
    output[0] = input[0];
    return;
  }
  const int inner = out.back(), inner_in = input_shape.back(), before = paddings[2 * (rank - 1)];
  const std::int64_t rows = element_count(out) / std::max(inner, 1);
  parallel_for(
      rows,
      [&](long begin, long end) {
        for (long row = begin; row < end; ++row) {
          float* dst = output + row * inner;
          // The input row this output row copies, if every outer coordinate is inside the input.
          std::int64_t source_row = 0, stride = 1, rest = row;
          bool inside = true;
          for (std::size_t d = rank - 1; d-- > 0;) {
            const int c = static_cast<int>(rest % out[d]) - paddings[2 * d];
            rest /= out[d];
            inside = inside && c >= 0 && c < input_shape[d];
            source_row += std::int64_t{c} * stride;
            stride *= input_shape[d];
          }
          std::fill(dst, dst + inner, 0.0f);
          if (inside) std::copy(input + source_row * inner_in, input + (source_row + 1) * inner_in, dst + before);
        }
      },
      64);
}

void resize_bilinear(const float* input, const Nhwc& in, int out_h, int out_w, const ResizeBilinearOptions& options,
                     float* output) {
  const Nhwc out = resize_output(in, out_h, out_w);
  float height_scale = static_cast<float>(in.h) / static_cast<float>(out.h);
  float width_scale = static_cast<float>(in.w) / static_cast<float>(out.w);
  if (options.align_corners && out.h > 1) height_scale = static_cast<float>(in.h - 1) / static_cast<float>(out.h - 1);
  if (options.align_corners && out.w > 1) width_scale = static_cast<float>(in.w - 1) / static_cast<float>(out.w - 1);
  // TFLite's ComputeInterpolationValues: the source coordinate and its two neighbours, clamped
  // to the input (the coordinate itself is not clamped, so its weights may leave [0, 1]).
  struct Source {
    float value;
    int lower, upper;
  };
  auto source = [&](int index, float scale, int size) {
    Source s;
    s.value = options.half_pixel_centers ? (static_cast<float>(index) + 0.5f) * scale - 0.5f
                                         : static_cast<float>(index) * scale;
    s.lower = std::max(static_cast<int>(std::floor(s.value)), 0);
    s.upper = std::min(static_cast<int>(std::ceil(s.value)), size - 1);
    return s;
  };
  parallel_for(
      std::int64_t{out.n} * out.h,
      [&](long begin, long end) {
        for (long row = begin; row < end; ++row) {
          const int n = static_cast<int>(row / out.h), y = static_cast<int>(row % out.h);
          const Source sy = source(y, height_scale, in.h);
          const float dy = sy.value - static_cast<float>(sy.lower);
          const float* row0 = input + (std::int64_t{n} * in.h + sy.lower) * in.w * in.c;
          const float* row1 = input + (std::int64_t{n} * in.h + sy.upper) * in.w * in.c;
          for (int x = 0; x < out.w; ++x) {
            const Source sx = source(x, width_scale, in.w);
            const float dx = sx.value - static_cast<float>(sx.lower);
            float* dst = output + ((std::int64_t{n} * out.h + y) * out.w + x) * out.c;
            for (int c = 0; c < in.c; ++c) {
              const float top_left = row0[std::int64_t{sx.lower} * in.c + c];
              const float bottom_left = row1[std::int64_t{sx.lower} * in.c + c];
              const float top_right = row0[std::int64_t{sx.upper} * in.c + c];
              const float bottom_right = row1[std::int64_t{sx.upper} * in.c + c];
              // TFLite's expression, term by term and left to right.
              dst[c] = top_left * (1 - dy) * (1 - dx) + bottom_left * dy * (1 - dx) + top_right * (1 - dy) * dx +
                       bottom_right * dy * dx;
            }
          }
        }
      },
      1);
}

void concatenation(const std::vector<const float*>& inputs, const std::vector<Shape>& shapes, int axis,
                   Activation activation, float* output) {
  const Shape out = concatenation_output(shapes, axis);
  const auto a = static_cast<std::size_t>(normalized_axis(axis, static_cast<int>(out.size())));
  std::int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < a; ++d) outer *= out[d];
  for (std::size_t d = a + 1; d < out.size(); ++d) inner *= out[d];
  const std::int64_t out_block = out[a] * inner;
  parallel_for(
      outer,
      [&](long begin, long end) {
        for (long o = begin; o < end; ++o) {
          float* dst = output + o * out_block;
          for (std::size_t i = 0; i < inputs.size(); ++i) {
            const std::int64_t block = shapes[i][a] * inner;
            const float* src = inputs[i] + o * block;
            if (activation == Activation::none) {
              std::copy(src, src + block, dst);
            } else {
              for (std::int64_t k = 0; k < block; ++k) dst[k] = activate(src[k], activation);
            }
            dst += block;
          }
        }
      },
      1);
}

}  // namespace gp::infer::cpu
