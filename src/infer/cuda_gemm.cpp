#include "infer/cuda_gemm.hpp"

#include <cublas_v2.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <type_traits>

#include "core/error.hpp"

namespace gp::infer {
namespace {

// The cuBLAS entry points used here, typed as its header declares them: the static_asserts check
// that without naming the symbols in code, so nothing links cuBLAS.
using CreateFn = cublasStatus_t (*)(cublasHandle_t*);
using DestroyFn = cublasStatus_t (*)(cublasHandle_t);
using SetWorkspaceFn = cublasStatus_t (*)(cublasHandle_t, void*, size_t);
using SetStreamFn = cublasStatus_t (*)(cublasHandle_t, cudaStream_t);
using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                    const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                                    cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
using StatusTextFn = const char* (*)(cublasStatus_t);
static_assert(std::is_same_v<decltype(&cublasCreate_v2), CreateFn>);
static_assert(std::is_same_v<decltype(&cublasDestroy_v2), DestroyFn>);
static_assert(std::is_same_v<decltype(&cublasSetWorkspace_v2), SetWorkspaceFn>);
static_assert(std::is_same_v<decltype(&cublasSetStream_v2), SetStreamFn>);
static_assert(std::is_same_v<decltype(static_cast<GemmExFn>(&cublasGemmEx)), GemmExFn>);  // the overload exists
static_assert(std::is_same_v<decltype(&cublasGetStatusName), StatusTextFn>);
static_assert(std::is_same_v<decltype(&cublasGetStatusString), StatusTextFn>);

const std::string kSoname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);

struct Cublas {
  CreateFn create = nullptr;
  DestroyFn destroy = nullptr;
  SetWorkspaceFn set_workspace = nullptr;
  SetStreamFn set_stream = nullptr;
  GemmExFn gemm_ex = nullptr;
  StatusTextFn status_name = nullptr, status_string = nullptr;
};

std::mutex load_mutex;
std::atomic<const Cublas*> loaded{nullptr};  // the first library load_cublas found; never unloaded

// Opens `path` and finds every entry point; the reason when it cannot.
std::string open_cublas(const std::string& path, Cublas& api) {
  // RTLD_LOCAL: cuBLAS's symbols stay out of the global scope.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    std::string why = dlerror();
    if (why.compare(0, path.size() + 2, path + ": ") == 0) why.erase(0, path.size() + 2);  // named by the caller
    return why;
  }
  std::string missing;
  auto bind = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
    if (!fn && missing.empty()) missing = name;
  };
  bind(api.create, "cublasCreate_v2");
  bind(api.destroy, "cublasDestroy_v2");
  bind(api.set_workspace, "cublasSetWorkspace_v2");
  bind(api.set_stream, "cublasSetStream_v2");
  bind(api.gemm_ex, "cublasGemmEx");
  bind(api.status_name, "cublasGetStatusName");
  bind(api.status_string, "cublasGetStatusString");
  if (missing.empty()) return {};
  dlclose(handle);
  return "no " + missing + " in it";
}

const Cublas& cublas() {
  if (const Cublas* api = loaded.load(std::memory_order_acquire)) return *api;
  load_cublas();
  return *loaded.load(std::memory_order_acquire);
}

void check(cublasStatus_t status, const char* call, const std::string& context) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw GpuError(fmt::format("cuBLAS error {} ({}) in {} [{}]", cublas().status_name(status),
                               cublas().status_string(status), call, context));
  }
}

}  // namespace

std::vector<std::string> cublas_search_paths() {
  if (const char* path = std::getenv("GPUPROC_CUBLAS"); path && *path) return {path};
  return {kSoname, std::string(GPUPROC_CUDA_LIBRARY_DIR) + "/" + kSoname};
}

std::string load_cublas(const std::vector<std::string>& paths) {
  std::lock_guard<std::mutex> lock(load_mutex);
  std::string tried;
  for (const std::string& path : paths) {
    Cublas api;
    const std::string why = open_cublas(path, api);
    if (why.empty()) {
      if (!loaded.load()) loaded.store(new Cublas(api), std::memory_order_release);
      return path;
    }
    tried += fmt::format("; {}: {}", path, why);
  }
  throw GpuError(fmt::format(
      "cannot load cuBLAS ({} of the CUDA {} toolkit), which the FP16 inference engine uses on a GPU (precision "
      "\"fp16\": segment-body's /model/precision, track-faces' /run/precision; \"fp32\" or --device cpu run "
      "without it). Tried {}. Install the toolkit's cuBLAS or set GPUPROC_CUBLAS to its path",
      kSoname, CUBLAS_VER_MAJOR, tried.empty() ? std::string("nothing") : tried.substr(2)));
}

CublasGemm::CublasGemm(void* workspace, std::size_t workspace_bytes)
    : workspace_(workspace), workspace_bytes_(workspace_bytes) {
  const Cublas& api = cublas();
  cublasHandle_t handle = nullptr;
  check(api.create(&handle), "cublasCreate", "start cuBLAS");
  handle_ = handle;
  try {
    check(api.set_workspace(handle, workspace, workspace_bytes), "cublasSetWorkspace", "set the workspace");
  } catch (...) {
    api.destroy(handle);
    throw;
  }
}

CublasGemm::~CublasGemm() {
  if (handle_) cublas().destroy(static_cast<cublasHandle_t>(handle_));
}

void CublasGemm::pointwise_fp16(const __half* input, std::int64_t m, int k, const __half* filter, int n,
                                __half* output, cudaStream_t stream) {
  if (m > std::numeric_limits<int>::max()) throw Error(fmt::format("pointwise GEMM of {} rows: too many", m));
  if (m == 0 || n == 0) return;
  const std::string context = fmt::format("pointwise convolution {}x{} by {}x{}", m, k, n, k);
  const Cublas& api = cublas();
  auto handle = static_cast<cublasHandle_t>(handle_);
  check(api.set_stream(handle, stream), "cublasSetStream", context);
  // cublasSetStream puts the default workspace back; ours again, so nothing is allocated (a CUDA
  // graph may be being captured).
  check(api.set_workspace(handle, workspace_, workspace_bytes_), "cublasSetWorkspace", context);
  // Column-major view: output^T (n x m, ld n) = filter (k x n, ld k)^T * input^T (k x m, ld k).
  const float alpha = 1.0f, beta = 0.0f;
  check(api.gemm_ex(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, static_cast<int>(m), k, &alpha, filter, CUDA_R_16F, k,
                    input, CUDA_R_16F, k, &beta, output, CUDA_R_16F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx", context);
}

}  // namespace gp::infer
