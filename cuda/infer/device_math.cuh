#pragma once
// Shared pieces of the inference kernels: loads and stores of the two storage types, the fused
// activation written with the CPU reference's comparisons (std::min/std::max order, so NaN and -0
// behave the same), launch geometry of the element-wise kernels, and rank-8 shape descriptors
// passed by value.
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cfloat>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "cuda/common/cuda_check.hpp"
#include "cuda/infer/op_geometry.hpp"
#include "cuda/infer/op_options.hpp"

namespace gp::infer::gpu::detail {

// Storage types: each kernel is a template over float (FP32 engine) or __half (FP16 engine) and
// computes in float between these loads and stores, so the half variant rounds once per stored
// value, and the float variant is the plain FP32 kernel.
__device__ __forceinline__ float load(const float* p, std::int64_t i) { return p[i]; }
__device__ __forceinline__ float load(const __half* p, std::int64_t i) { return __half2float(p[i]); }
__device__ __forceinline__ void store(float* p, std::int64_t i, float v) { p[i] = v; }
__device__ __forceinline__ void store(__half* p, std::int64_t i, float v) { p[i] = __float2half_rn(v); }

template <typename T>
constexpr bool kIsHalf = std::is_same_v<T, __half>;

// Written after the operator's name in launch error contexts: " (fp16)" for half storage.
template <typename T>
const char* storage_suffix() {
  return kIsHalf<T> ? " (fp16)" : "";
}

// std::max / std::min exactly (argument order matters for NaN and signed zeros); callers pass
// the arguments in the CPU reference's order.
__device__ __forceinline__ float std_max(float a, float b) { return (a < b) ? b : a; }
__device__ __forceinline__ float std_min(float a, float b) { return (b < a) ? b : a; }

// cpu::activate on the device (sign_bit is rejected on the host by check_activation).
__device__ __forceinline__ float activate(float x, Activation activation) {
  float low = -FLT_MAX, high = FLT_MAX;
  switch (activation) {
    case Activation::none: break;
    case Activation::relu: low = 0.0f; break;
    case Activation::relu6: low = 0.0f, high = 6.0f; break;
    case Activation::relu_n1_to_1: low = -1.0f, high = 1.0f; break;
    case Activation::tanh: return tanhf(x);
    default: break;
  }
  return std_min(std_max(x, low), high);
}

inline void check_activation(Activation activation, const char* op) {
  if (activation == Activation::sign_bit) {
    throw Error(std::string(op) + ": fused activation " + activation_name(activation) + " is not supported");
  }
}

// Element-wise kernels: grid-stride loops over int64 counts.
constexpr int kThreads = 256;
inline unsigned blocks_for(std::int64_t count) {
  const std::int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 * 16 ? blocks : 65535 * 16);
}
__device__ __forceinline__ std::int64_t first_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::int64_t grid_stride() {
  return static_cast<std::int64_t>(gridDim.x) * blockDim.x;
}

// Up to rank-8 dimensions and strides, passed to kernels by value.
constexpr int kMaxRank = 8;
struct Dims {
  int rank = 0;
  int size[kMaxRank] = {};
  std::int64_t stride[kMaxRank] = {};
};

// Row-major strides of `shape`; Error beyond kMaxRank.
inline Dims dense_dims(const Shape& shape, const char* op) {
  if (shape.size() > static_cast<std::size_t>(kMaxRank)) {
    throw Error(std::string(op) + ": rank " + std::to_string(shape.size()) + " tensor " + shape_string(shape) +
                " (the CUDA kernels take rank 8 at most)");
  }
  Dims d;
  d.rank = static_cast<int>(shape.size());
  std::int64_t stride = 1;
  for (int i = d.rank; i-- > 0;) {
    d.size[i] = shape[static_cast<std::size_t>(i)];
    d.stride[i] = stride;
    stride *= shape[static_cast<std::size_t>(i)];
  }
  return d;
}

// "PAD 1x16x16x8" ("PAD (fp16) 1x16x16x8" for half storage) for launch error contexts.
template <typename T>
std::string context(const char* op, const Shape& shape) {
  return std::string(op) + storage_suffix<T>() + " " + shape_string(shape);
}

}  // namespace gp::infer::gpu::detail
