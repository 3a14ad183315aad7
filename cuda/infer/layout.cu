// PAD, RESIZE_BILINEAR, DEPTH_TO_SPACE, CONCATENATION and RESHAPE's copy for float and half storage: one thread
// per output element. Copies without arithmetic (PAD, CONCATENATION without activation) move
// the stored value itself, so half NaN payloads survive as they do in float.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "core/stream_ops.hpp"
#include "cuda/infer/device_math.cuh"
#include "cuda/infer/ops.hpp"

namespace gp::infer::gpu {
namespace {

using detail::load;
using detail::store;

struct PadGeometry {
  detail::Dims out;
  detail::Dims in;
  int before[detail::kMaxRank];
};

template <typename T>
__global__ void pad_kernel(const T* __restrict__ input, PadGeometry g, std::int64_t count, T* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) {
    std::int64_t rest = i, source = 0;
    bool inside = true;
    for (int d = g.out.rank; d-- > 0;) {
      const int c = static_cast<int>(rest % g.out.size[d]) - g.before[d];
      rest /= g.out.size[d];
      inside = inside && c >= 0 && c < g.in.size[d];
      source += std::int64_t{c} * g.in.stride[d];
    }
    output[i] = inside ? input[source] : T(0.0f);
  }
}

// DEPTH_TO_SPACE: output element (n, y, x, c) reads input (n, y / b, x / b, ((y % b) * b + x % b) * C + c).
struct DepthToSpaceGeometry {
  int in_h, in_w, in_c;
  int out_h, out_w, out_c;
  int block;
};

template <typename T>
__global__ void depth_to_space_kernel(const T* __restrict__ input, DepthToSpaceGeometry g, std::int64_t count,
                                      T* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) {
    std::int64_t rest = i;
    const int c = static_cast<int>(rest % g.out_c);
    rest /= g.out_c;
    const int x = static_cast<int>(rest % g.out_w);
    rest /= g.out_w;
    const int y = static_cast<int>(rest % g.out_h);
    const std::int64_t n = rest / g.out_h;
    const int in_c = ((y % g.block) * g.block + x % g.block) * g.out_c + c;
    output[i] = input[((n * g.in_h + y / g.block) * g.in_w + x / g.block) * g.in_c + in_c];
  }
}

struct ResizeGeometry {
  int in_h, in_w, c;
  int out_h, out_w;
  float height_scale, width_scale;
  bool half_pixel_centers;
};

// TFLite's ComputeInterpolationValues (cpu::resize_bilinear's `source`).
struct Source {
  float value;
  int lower, upper;
};
__device__ __forceinline__ Source source_of(int index, float scale, int size, bool half_pixel_centers) {
  Source s;
  s.value = half_pixel_centers ? (static_cast<float>(index) + 0.5f) * scale - 0.5f : static_cast<float>(index) * scale;
  s.lower = max(static_cast<int>(floorf(s.value)), 0);
  s.upper = min(static_cast<int>(ceilf(s.value)), size - 1);
  return s;
}

template <typename T>
__global__ void resize_bilinear_kernel(const T* __restrict__ input, ResizeGeometry g, std::int64_t count,
                                       T* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) {
    const int c = static_cast<int>(i % g.c);
    std::int64_t rest = i / g.c;
    const int x = static_cast<int>(rest % g.out_w);
    rest /= g.out_w;
    const int y = static_cast<int>(rest % g.out_h);
    const std::int64_t n = rest / g.out_h;
    const Source sy = source_of(y, g.height_scale, g.in_h, g.half_pixel_centers);
    const Source sx = source_of(x, g.width_scale, g.in_w, g.half_pixel_centers);
    const float dy = sy.value - static_cast<float>(sy.lower);
    const float dx = sx.value - static_cast<float>(sx.lower);
    const T* row0 = input + (n * g.in_h + sy.lower) * g.in_w * g.c;
    const T* row1 = input + (n * g.in_h + sy.upper) * g.in_w * g.c;
    const float top_left = load(row0, std::int64_t{sx.lower} * g.c + c);
    const float bottom_left = load(row1, std::int64_t{sx.lower} * g.c + c);
    const float top_right = load(row0, std::int64_t{sx.upper} * g.c + c);
    const float bottom_right = load(row1, std::int64_t{sx.upper} * g.c + c);
    store(output, i,
          top_left * (1 - dy) * (1 - dx) + bottom_left * dy * (1 - dx) + top_right * (1 - dy) * dx +
              bottom_right * dy * dx);
  }
}

// One input's blocks into the output: outer blocks of `block` elements, placed `offset` into
// each output block of `out_block` elements.
template <typename T>
__global__ void concatenate_kernel(const T* __restrict__ input, std::int64_t block, std::int64_t out_block,
                                   std::int64_t offset, std::int64_t count, bool apply_activation,
                                   Activation activation, T* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) {
    const std::int64_t to = (i / block) * out_block + offset + i % block;
    if (apply_activation) {
      store(output, to, detail::activate(load(input, i), activation));
    } else {
      output[to] = input[i];
    }
  }
}

template <typename T>
void copy_elements(const T* input, std::int64_t count, T* output, cudaStream_t stream) {
  if (count <= 0) return;
  stream_ops::copy(output, input, static_cast<std::size_t>(count), stream,
                   std::string("RESHAPE") + detail::storage_suffix<T>() + " copy of " + std::to_string(count) + " elements");
}

template <typename T>
void pad(const T* input, const Shape& input_shape, const std::vector<int>& paddings, T* output, cudaStream_t stream) {
  const Shape out = pad_output(input_shape, paddings);
  if (out.empty()) {  // a scalar: PAD copies it
    copy_elements(input, 1, output, stream);
    return;
  }
  PadGeometry g;
  g.out = detail::dense_dims(out, "PAD");
  g.in = detail::dense_dims(input_shape, "PAD");
  for (std::size_t d = 0; d < out.size(); ++d) g.before[d] = paddings[2 * d];
  const std::int64_t count = element_count(out);
  if (count == 0) return;
  pad_kernel<T><<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(input, g, count, output);
  GP_CUDA_CHECK_LAUNCH(detail::context<T>("PAD", input_shape));
}

template <typename T>
void resize_bilinear(const T* input, const Nhwc& in, int out_h, int out_w, const ResizeBilinearOptions& options,
                     T* output, cudaStream_t stream) {
  const Nhwc out = resize_output(in, out_h, out_w);
  // The scales on the host, as cpu::resize_bilinear computes them.
  float height_scale = static_cast<float>(in.h) / static_cast<float>(out.h);
  float width_scale = static_cast<float>(in.w) / static_cast<float>(out.w);
  if (options.align_corners && out.h > 1) height_scale = static_cast<float>(in.h - 1) / static_cast<float>(out.h - 1);
  if (options.align_corners && out.w > 1) width_scale = static_cast<float>(in.w - 1) / static_cast<float>(out.w - 1);
  const std::int64_t count = out.count();
  if (count == 0) return;
  ResizeGeometry g{in.h, in.w, in.c, out.h, out.w, height_scale, width_scale, options.half_pixel_centers};
  resize_bilinear_kernel<T><<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(input, g, count, output);
  GP_CUDA_CHECK_LAUNCH(detail::context<T>("RESIZE_BILINEAR", in.shape()) + " -> " + shape_string(out.shape()));
}

template <typename T>
void depth_to_space(const T* input, const Nhwc& in, int block_size, T* output, cudaStream_t stream) {
  const Nhwc out = depth_to_space_output(in, block_size);
  const std::int64_t count = out.count();
  if (count == 0) return;
  const DepthToSpaceGeometry g{in.h, in.w, in.c, out.h, out.w, out.c, block_size};
  depth_to_space_kernel<T><<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(input, g, count, output);
  GP_CUDA_CHECK_LAUNCH(detail::context<T>("DEPTH_TO_SPACE", in.shape()) + " block " + std::to_string(block_size));
}

template <typename T>
void concatenation(const std::vector<const T*>& inputs, const std::vector<Shape>& shapes, int axis,
                   Activation activation, T* output, cudaStream_t stream) {
  detail::check_activation(activation, "CONCATENATION");
  if (inputs.size() != shapes.size()) throw Error("CONCATENATION: pointer and shape counts differ");
  const Shape out = concatenation_output(shapes, axis);
  const auto a = static_cast<std::size_t>(normalized_axis(axis, static_cast<int>(out.size())));
  std::int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < a; ++d) outer *= out[d];
  for (std::size_t d = a + 1; d < out.size(); ++d) inner *= out[d];
  const std::int64_t out_block = out[a] * inner;
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::int64_t block = shapes[i][a] * inner, count = outer * block;
    if (count > 0) {
      concatenate_kernel<T><<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(
          inputs[i], block, out_block, offset, count, activation != Activation::none, activation, output);
      GP_CUDA_CHECK_LAUNCH(std::string("CONCATENATION") + detail::storage_suffix<T>() + " input " +
                           std::to_string(i) + " " + shape_string(shapes[i]));
    }
    offset += block;
  }
}

}  // namespace

void pad_gpu(const float* input, const Shape& input_shape, const std::vector<int>& paddings, float* output,
             cudaStream_t stream) {
  pad(input, input_shape, paddings, output, stream);
}

void resize_bilinear_gpu(const float* input, const Nhwc& in, int out_h, int out_w, const ResizeBilinearOptions& options,
                         float* output, cudaStream_t stream) {
  resize_bilinear(input, in, out_h, out_w, options, output, stream);
}

void depth_to_space_gpu(const float* input, const Nhwc& in, int block_size, float* output, cudaStream_t stream) {
  depth_to_space(input, in, block_size, output, stream);
}

void concatenation_gpu(const std::vector<const float*>& inputs, const std::vector<Shape>& shapes, int axis,
                       Activation activation, float* output, cudaStream_t stream) {
  concatenation(inputs, shapes, axis, activation, output, stream);
}

void copy_gpu(const float* input, std::int64_t count, float* output, cudaStream_t stream) {
  copy_elements(input, count, output, stream);
}

namespace fp16 {

void pad_gpu(const __half* input, const Shape& input_shape, const std::vector<int>& paddings, __half* output,
             cudaStream_t stream) {
  pad(input, input_shape, paddings, output, stream);
}

void resize_bilinear_gpu(const __half* input, const Nhwc& in, int out_h, int out_w,
                         const ResizeBilinearOptions& options, __half* output, cudaStream_t stream) {
  resize_bilinear(input, in, out_h, out_w, options, output, stream);
}

void depth_to_space_gpu(const __half* input, const Nhwc& in, int block_size, __half* output, cudaStream_t stream) {
  depth_to_space(input, in, block_size, output, stream);
}

void concatenation_gpu(const std::vector<const __half*>& inputs, const std::vector<Shape>& shapes, int axis,
                       Activation activation, __half* output, cudaStream_t stream) {
  concatenation(inputs, shapes, axis, activation, output, stream);
}

void copy_gpu(const __half* input, std::int64_t count, __half* output, cudaStream_t stream) {
  copy_elements(input, count, output, stream);
}

}  // namespace fp16

}  // namespace gp::infer::gpu
