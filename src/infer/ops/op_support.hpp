#pragma once
// What the operator headers of this folder share: the registry's types, both backends' launch
// declarations and the context a CUDA step is built in. An operator header defines one struct:
//   name or code     builtin code (BuiltinOp) or custom name
//   reads_ints       whether input 1 is a constant INT32 vector its steps read
//   shape(args)      the output shape (the rule both engines plan with)
//   cpu(call)        the CPU reference on float tensors
//   gpu<T>(call, g)  a CUDA step for float or __half storage: what to enqueue on a stream
// and is listed in operator_list.hpp. The structs are compiled where they are instantiated: the
// registry (host, shape rules and CPU bindings) and the CUDA engine (GPU bindings), so the host
// library never links the kernels.
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <functional>
#include <string_view>
#include <type_traits>

#include "cuda/infer/ops.hpp"
#include "infer/cpu_ops.hpp"
#include "infer/operator.hpp"
#include "infer/tflite_ops.hpp"

namespace gp::infer {

class CublasGemm;

namespace ops {

// The FP32 launchers and their FP16 overloads as one overload set, so that a step template calls
// launch::conv2d_gpu(...) for either element type.
namespace launch {
using namespace gpu;
using namespace gpu::fp16;
}  // namespace launch

// What a CUDA step enqueues (graph-capturable: no allocation, no synchronisation).
using GpuEnqueue = std::function<void(cudaStream_t)>;

// What the CUDA engine offers its operators' steps besides the tensors.
struct GpuContext {
  CublasGemm* gemm = nullptr;  // FP16 engines with tensor cores: cuBLAS for pointwise convolutions
};

template <BuiltinOp Code>
struct BuiltinOperator {
  static constexpr BuiltinOp code = Code;
  static std::string_view name() { return builtin_op_name(Code); }
  static constexpr bool reads_ints = false;
};

// Operators whose output has their first input's shape.
struct SameShape {
  static Shape shape(const ShapeArgs& a) { return a.shape(0); }
};

// Element-wise operators of one input: cpu::F(input, count, output) and its GPU launcher.
template <BuiltinOp Code, void (*Cpu)(const float*, std::int64_t, float*)>
struct UnaryOperator : BuiltinOperator<Code>, SameShape {
  static void cpu(const OpCall<float>& c) { Cpu(c.in(0), c.count(), c.output); }
};

}  // namespace ops
}  // namespace gp::infer
