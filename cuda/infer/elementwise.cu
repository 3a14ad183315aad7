// ADD, MUL, PRELU (broadcasting), RELU, RELU6, HARD_SWISH, LOGISTIC and DEQUANTIZE (fp16), and the
// float <-> half conversions at the FP16 engine's inputs and outputs: one thread per output
// element, each computing the CPU reference's expression in its order (in float for half
// storage too, rounded to half once).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "cuda/infer/device_math.cuh"
#include "cuda/infer/ops.hpp"
#include "cuda/common/half.hpp"

namespace gp::infer::gpu {
namespace {

using detail::load;
using detail::std_max;
using detail::std_min;
using detail::store;

enum class BinaryOp { add, mul, prelu };

// Output dimensions with each operand's strides (0 along its broadcast axes).
struct BroadcastGeometry {
  detail::Dims out;
  std::int64_t stride_a[detail::kMaxRank];
  std::int64_t stride_b[detail::kMaxRank];
};

template <BinaryOp kOp, typename T>
__global__ void broadcast_binary_kernel(const T* __restrict__ a, const T* __restrict__ b, BroadcastGeometry g,
                                        std::int64_t count, Activation activation, T* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) {
    std::int64_t ia = 0, ib = 0, rest = i;
    for (int d = g.out.rank; d-- > 0;) {
      const std::int64_t coordinate = rest % g.out.size[d];
      rest /= g.out.size[d];
      ia += coordinate * g.stride_a[d];
      ib += coordinate * g.stride_b[d];
    }
    const float x = load(a, ia), y = load(b, ib);
    if (kOp == BinaryOp::add) store(output, i, detail::activate(x + y, activation));
    if (kOp == BinaryOp::mul) store(output, i, detail::activate(x * y, activation));
    if (kOp == BinaryOp::prelu) store(output, i, x >= 0.0f ? x : x * y);
  }
}

// Strides of `shape` seen at `out`'s rank, 0 where it is broadcast (cpu_ops_tensor.cpp's
// broadcast_strides).
void broadcast_strides(const Shape& shape, const Shape& out, std::int64_t* strides) {
  for (std::size_t i = 0; i < out.size(); ++i) strides[i] = 0;
  std::int64_t stride = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    const std::size_t o = i + (out.size() - shape.size());
    strides[o] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
}

template <BinaryOp kOp, typename T>
void broadcast_binary(const T* a, const Shape& a_shape, const T* b, const Shape& b_shape, Activation activation,
                      T* output, cudaStream_t stream, const char* op) {
  detail::check_activation(activation, op);
  Shape out = broadcast_shape(a_shape, b_shape);
  if (out.empty()) out = {1};
  BroadcastGeometry g;
  g.out = detail::dense_dims(out, op);
  broadcast_strides(a_shape, out, g.stride_a);
  broadcast_strides(b_shape, out, g.stride_b);
  const std::int64_t count = element_count(out);
  if (count == 0) return;
  broadcast_binary_kernel<kOp, T><<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(a, b, g, count,
                                                                                              activation, output);
  GP_CUDA_CHECK_LAUNCH(detail::context<T>(op, a_shape) + " and " + shape_string(b_shape));
}

enum class UnaryOp { relu, relu6, hard_swish, logistic };

template <UnaryOp kOp, typename T>
__global__ void unary_kernel(const T* __restrict__ input, std::int64_t count, T* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) {
    const float x = load(input, i);
    if (kOp == UnaryOp::relu) store(output, i, std_max(x, 0.0f));
    if (kOp == UnaryOp::relu6) store(output, i, std_min(std_max(x, 0.0f), 6.0f));
    if (kOp == UnaryOp::hard_swish) store(output, i, x * std_min(6.0f, std_max(0.0f, x + 3.0f)) / 6.0f);
    if (kOp == UnaryOp::logistic) {
      // TFLite's reference cutoffs, as cpu::logistic.
      const float cutoff_upper = 16.619047164916992188f, cutoff_lower = -9.0f;
      store(output, i, x > cutoff_upper ? 1.0f : x < cutoff_lower ? expf(x) : 1.0f / (1.0f + expf(-x)));
    }
  }
}

template <UnaryOp kOp, typename T>
void unary(const T* input, std::int64_t count, T* output, cudaStream_t stream, const char* op) {
  if (count <= 0) return;
  unary_kernel<kOp, T><<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(input, count, output);
  GP_CUDA_CHECK_LAUNCH(std::string(op) + detail::storage_suffix<T>() + " of " + std::to_string(count) + " elements");
}

__global__ void dequantize_fp16_kernel(const std::uint16_t* __restrict__ input, std::int64_t count,
                                       float* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) {
    output[i] = half_to_float(input[i]);  // exact, NaN payloads as stored
  }
}

// Element-wise storage conversion (float -> half rounds to nearest even; half -> float is exact).
template <typename From, typename To>
__global__ void convert_kernel(const From* __restrict__ input, std::int64_t count, To* __restrict__ output) {
  for (std::int64_t i = detail::first_index(); i < count; i += detail::grid_stride()) store(output, i, load(input, i));
}

template <typename From, typename To>
void convert(const From* input, std::int64_t count, To* output, cudaStream_t stream, const char* what) {
  if (count <= 0) return;
  convert_kernel<<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(input, count, output);
  GP_CUDA_CHECK_LAUNCH(std::string(what) + " of " + std::to_string(count) + " elements");
}

template <typename T>
void prelu(const T* input, const Shape& input_shape, const T* alpha, const Shape& alpha_shape, T* output,
           cudaStream_t stream) {
  if (broadcast_shape(input_shape, alpha_shape) != input_shape) {
    throw Error("PRELU alpha " + shape_string(alpha_shape) + " does not broadcast to the input " +
                shape_string(input_shape));
  }
  broadcast_binary<BinaryOp::prelu>(input, input_shape, alpha, alpha_shape, Activation::none, output, stream,
                                    "PRELU");
}

}  // namespace

void add_gpu(const float* a, const Shape& a_shape, const float* b, const Shape& b_shape, Activation activation,
             float* output, cudaStream_t stream) {
  broadcast_binary<BinaryOp::add>(a, a_shape, b, b_shape, activation, output, stream, "ADD");
}

void mul_gpu(const float* a, const Shape& a_shape, const float* b, const Shape& b_shape, Activation activation,
             float* output, cudaStream_t stream) {
  broadcast_binary<BinaryOp::mul>(a, a_shape, b, b_shape, activation, output, stream, "MUL");
}

void prelu_gpu(const float* input, const Shape& input_shape, const float* alpha, const Shape& alpha_shape,
               float* output, cudaStream_t stream) {
  prelu(input, input_shape, alpha, alpha_shape, output, stream);
}

void relu_gpu(const float* input, std::int64_t count, float* output, cudaStream_t stream) {
  unary<UnaryOp::relu>(input, count, output, stream, "RELU");
}

void relu6_gpu(const float* input, std::int64_t count, float* output, cudaStream_t stream) {
  unary<UnaryOp::relu6>(input, count, output, stream, "RELU6");
}

void hard_swish_gpu(const float* input, std::int64_t count, float* output, cudaStream_t stream) {
  unary<UnaryOp::hard_swish>(input, count, output, stream, "HARD_SWISH");
}

void logistic_gpu(const float* input, std::int64_t count, float* output, cudaStream_t stream) {
  unary<UnaryOp::logistic>(input, count, output, stream, "LOGISTIC");
}

void dequantize_fp16_gpu(const std::uint16_t* input, std::int64_t count, float* output, cudaStream_t stream) {
  if (count <= 0) return;
  dequantize_fp16_kernel<<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(input, count, output);
  GP_CUDA_CHECK_LAUNCH("DEQUANTIZE of " + std::to_string(count) + " fp16 elements");
}

namespace fp16 {

void add_gpu(const __half* a, const Shape& a_shape, const __half* b, const Shape& b_shape, Activation activation,
             __half* output, cudaStream_t stream) {
  broadcast_binary<BinaryOp::add>(a, a_shape, b, b_shape, activation, output, stream, "ADD");
}

void mul_gpu(const __half* a, const Shape& a_shape, const __half* b, const Shape& b_shape, Activation activation,
             __half* output, cudaStream_t stream) {
  broadcast_binary<BinaryOp::mul>(a, a_shape, b, b_shape, activation, output, stream, "MUL");
}

void prelu_gpu(const __half* input, const Shape& input_shape, const __half* alpha, const Shape& alpha_shape,
               __half* output, cudaStream_t stream) {
  prelu(input, input_shape, alpha, alpha_shape, output, stream);
}

void relu_gpu(const __half* input, std::int64_t count, __half* output, cudaStream_t stream) {
  unary<UnaryOp::relu>(input, count, output, stream, "RELU");
}

void relu6_gpu(const __half* input, std::int64_t count, __half* output, cudaStream_t stream) {
  unary<UnaryOp::relu6>(input, count, output, stream, "RELU6");
}

void hard_swish_gpu(const __half* input, std::int64_t count, __half* output, cudaStream_t stream) {
  unary<UnaryOp::hard_swish>(input, count, output, stream, "HARD_SWISH");
}

void logistic_gpu(const __half* input, std::int64_t count, __half* output, cudaStream_t stream) {
  unary<UnaryOp::logistic>(input, count, output, stream, "LOGISTIC");
}

void float_to_half_gpu(const float* input, std::int64_t count, __half* output, cudaStream_t stream) {
  convert(input, count, output, stream, "float to half");
}

void half_to_float_gpu(const __half* input, std::int64_t count, float* output, cudaStream_t stream) {
  convert(input, count, output, stream, "half to float");
}

}  // namespace fp16

}  // namespace gp::infer::gpu
