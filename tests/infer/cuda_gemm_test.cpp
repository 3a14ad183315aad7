// cuBLAS is loaded, not linked (infer/cuda_gemm.hpp): where it is looked for, and the error when
// it is not there. Loading needs no GPU; the GEMM itself is tested in cuda_ops_fp16_gpu_test.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "infer/cuda_gemm.hpp"

using Catch::Matchers::Contains;

TEST_CASE("cuBLAS: GPUPROC_CUBLAS replaces the search path", "[infer][cublas]") {
  const char* saved = std::getenv("GPUPROC_CUBLAS");
  const std::string kept = saved ? saved : "";
  ::setenv("GPUPROC_CUBLAS", "/opt/cuda/lib64/libcublas.so.13", 1);
  CHECK(gp::infer::cublas_search_paths() == std::vector<std::string>{"/opt/cuda/lib64/libcublas.so.13"});
  ::unsetenv("GPUPROC_CUBLAS");
  const auto paths = gp::infer::cublas_search_paths();
  REQUIRE(paths.size() == 2);
  CHECK_THAT(paths[0], Catch::Matchers::StartsWith("libcublas.so."));  // the dynamic loader's search
  CHECK_THAT(paths[1], Catch::Matchers::EndsWith("/" + paths[0]));     // the toolkit's folder
  if (saved) ::setenv("GPUPROC_CUBLAS", kept.c_str(), 1);
}

TEST_CASE("cuBLAS that cannot be loaded is an error naming each place and what needs it", "[infer][cublas]") {
  try {
    gp::infer::load_cublas({"/nonexistent/libcublas.so.13", "libm.so.6"});
    FAIL("no error");
  } catch (const gp::GpuError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Contains("cannot load cuBLAS (libcublas.so."));
    CHECK_THAT(what, Contains("/nonexistent/libcublas.so.13: "));
    CHECK_THAT(what, Contains("libm.so.6: no cublasCreate_v2 in it"));  // a library, but not cuBLAS
    CHECK_THAT(what, Contains("/model/precision"));
    CHECK_THAT(what, Contains("/run/precision"));
    CHECK_THAT(what, Contains("--device cpu"));
    CHECK_THAT(what, Contains("GPUPROC_CUBLAS"));
    CHECK(what.find('\n') == std::string::npos);  // one line, for the one-line-per-failure summary
  }
}

TEST_CASE("cuBLAS loads from the search path where the CUDA toolkit is installed", "[infer][cublas]") {
  std::string path;
  try {
    path = gp::infer::load_cublas();
  } catch (const gp::GpuError& e) {
    WARN("no cuBLAS on this machine: " << e.what());
    return;
  }
  const auto paths = gp::infer::cublas_search_paths();
  CHECK(std::find(paths.begin(), paths.end(), path) != paths.end());
}
