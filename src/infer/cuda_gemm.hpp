#pragma once
// cuBLAS for the FP16 engine's pointwise convolutions: a CONV_2D with a 1x1 filter and stride 1
// is a GEMM of the M x C pixel matrix (NHWC rows) with the O x C filter, which cuBLAS runs on
// tensor cores (half inputs and output, float accumulation). The workspace is the caller's, set
// again after every cublasSetStream, so that cuBLAS allocates nothing while a CUDA graph is
// captured.
//
// Why cuBLAS rather than own WMMA/mma kernels: the pointwise convolutions are 60-80% of the
// MediaPipe models' arithmetic and are plain GEMMs (no im2col needed), for which cuBLAS has
// kernels tuned per architecture (Turing to Hopper) and any shape (M up to 64 x 128 x 128, K and
// O from 8 to 384, not all multiples of 8); an own tensor-core kernel would have to match that
// and could not be tried on a GPU where it was written. The first layer (3x3 or 5x5 over 3
// channels: K = 27 or 75, 4-24% of the arithmetic, 16-32 outputs) is too narrow for tensor-core
// tiles to pay and stays on the FP16 tiled kernel with the other non-1x1 convolutions.
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gp::infer {

// Where cuBLAS is looked for, in order: $GPUPROC_CUBLAS alone when set; else libcublas.so.N (N:
// the toolkit's major version) through the dynamic loader (LD_LIBRARY_PATH, the program's run
// path, ldconfig's cache), then in the library folder of the CUDA toolkit this was built with.
std::vector<std::string> cublas_search_paths();

// Loads cuBLAS from the first of `paths` that opens and has every entry point used here, and
// returns that path; a GpuError naming each path tried and why, and what needs cuBLAS, when none
// does. The first library loaded is the one CublasGemm uses, loaded by its first constructor
// otherwise (thread-safe; never unloaded).
std::string load_cublas(const std::vector<std::string>& paths = cublas_search_paths());

class CublasGemm {
 public:
  // cuBLAS's recommendation for Hopper (32 MiB); less on older GPUs is enough.
  static constexpr std::size_t kWorkspaceBytes = std::size_t(32) << 20;

  // GpuError when cuBLAS cannot be loaded (see load_cublas) or fails to start.
  CublasGemm(void* workspace, std::size_t workspace_bytes);
  ~CublasGemm();
  CublasGemm(const CublasGemm&) = delete;
  CublasGemm& operator=(const CublasGemm&) = delete;

  // output[m x n] = input[m x k] * filter[n x k]^T, all row-major half; enqueued on `stream`.
  void pointwise_fp16(const __half* input, std::int64_t m, int k, const __half* filter, int n, __half* output,
                      cudaStream_t stream);

 private:
  void* handle_ = nullptr;  // cublasHandle_t (cublas_v2.h stays in the .cpp)
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
};

}  // namespace gp::infer
