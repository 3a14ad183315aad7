// GPU tests run only where a CUDA device exists; elsewhere they say so and exit 77 (CTest: Skipped).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "core/gpu_runtime.hpp"

int main(int argc, char* argv[]) {
  if (gp::cuda_device_count() == 0) {
    std::printf("SKIPPED: no CUDA device on this machine; GPU tests run on the GPU machine\n");
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
