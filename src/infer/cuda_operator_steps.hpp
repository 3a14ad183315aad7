#pragma once
// The GPU side of the operator registry: the CUDA engine's step for a registered operator, from
// the operator's gpu<T> in ops/ (float for the FP32 engine, __half for the FP16 engine).
#include "infer/operator.hpp"
#include "infer/ops/op_support.hpp"

namespace gp::infer {

// What to enqueue for `call`; gp::Error from the operator's own checks, and for an operator
// the registry has no GPU binding of (none: every listed operator has one).
template <class T>
ops::GpuEnqueue gpu_step(const OperatorDef& def, const OpCall<T>& call, const ops::GpuContext& context);

}  // namespace gp::infer
