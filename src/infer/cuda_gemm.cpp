#include "infer/cuda_gemm.hpp"

#include <cublas_v2.h>
#include <fmt/format.h>

#include <limits>

#include "core/error.hpp"

namespace gp::infer {
namespace {

cublasHandle_t as_handle(void* handle) { return static_cast<cublasHandle_t>(handle); }

void check(cublasStatus_t status, const char* call, const std::string& context) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw GpuError(fmt::format("cuBLAS error {} ({}) in {} [{}]", cublasGetStatusName(status),
                               cublasGetStatusString(status), call, context));
  }
}

}  // namespace

CublasGemm::CublasGemm(void* workspace, std::size_t workspace_bytes)
    : workspace_(workspace), workspace_bytes_(workspace_bytes) {
  cublasHandle_t handle = nullptr;
  check(cublasCreate(&handle), "cublasCreate", "start cuBLAS");
  handle_ = handle;
  try {
    check(cublasSetWorkspace(handle, workspace, workspace_bytes), "cublasSetWorkspace", "set the workspace");
  } catch (...) {
    cublasDestroy(handle);
    throw;
  }
}

CublasGemm::~CublasGemm() {
  if (handle_) cublasDestroy(as_handle(handle_));
}

void CublasGemm::pointwise_fp16(const __half* input, std::int64_t m, int k, const __half* filter, int n,
                                __half* output, cudaStream_t stream) {
  if (m > std::numeric_limits<int>::max()) throw Error(fmt::format("pointwise GEMM of {} rows: too many", m));
  if (m == 0 || n == 0) return;
  const std::string context = fmt::format("pointwise convolution {}x{} by {}x{}", m, k, n, k);
  cublasHandle_t handle = as_handle(handle_);
  check(cublasSetStream(handle, stream), "cublasSetStream", context);
  // cublasSetStream puts the default workspace back; ours again, so nothing is allocated (a CUDA
  // graph may be being captured).
  check(cublasSetWorkspace(handle, workspace_, workspace_bytes_), "cublasSetWorkspace", context);
  // Column-major view: output^T (n x m, ld n) = filter (k x n, ld k)^T * input^T (k x m, ld k).
  const float alpha = 1.0f, beta = 0.0f;
  check(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, static_cast<int>(m), k, &alpha, filter, CUDA_R_16F, k,
                     input, CUDA_R_16F, k, &beta, output, CUDA_R_16F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx", context);
}

}  // namespace gp::infer
