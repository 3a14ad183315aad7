#pragma once
// Turns a failed CUDA runtime call into a gp::GpuError naming the call, the source place and the
// caller's context (stage, sizes). nvcc-safe: no host libraries.
#include <cuda_runtime_api.h>

#include <string>

#include "core/error.hpp"

namespace gp {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line,
                                          const std::string& context) {
  std::string msg = std::string("CUDA error ") + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
                    ") in " + call + " at " + file + ":" + std::to_string(line);
  if (!context.empty()) msg += " [" + context + "]";
  if (err == cudaErrorMemoryAllocation) throw GpuOutOfMemory(msg, 0);
  throw GpuError(msg);
}

}  // namespace gp

// GP_CUDA_CHECK(cudaMemcpyAsync(...), "upload " + name) -- context is evaluated only on failure.
#define GP_CUDA_CHECK(call, context)                                          \
  do {                                                                        \
    cudaError_t gp_err_ = (call);                                             \
    if (gp_err_ != cudaSuccess) ::gp::throw_cuda_error(gp_err_, #call, __FILE__, __LINE__, (context)); \
  } while (0)

// After a kernel launch: launch-configuration errors surface here, not at the next sync.
#define GP_CUDA_CHECK_LAUNCH(context) GP_CUDA_CHECK(cudaGetLastError(), (context))
