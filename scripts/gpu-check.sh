#!/usr/bin/env bash
# On the GPU machine: build natively, run every test (GPU tests included), compute-sanitizer over
# the GPU tests, and the benchmarks. Logs and results go to $1 (default $OUT or ./gpu-check).
# Expects the dependencies of scripts/debian-packages.txt (on the lent machine: the bundle from
# ../shared/device/make-bundle.sh, unpacked to /opt/gpuproc-deps).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-${OUT:-$root/gpu-check}}
mkdir -p "$out"
cd "$root"
[[ -f /opt/gpuproc-deps/env.sh ]] && source /opt/gpuproc-deps/env.sh
[[ -d /opt/torch/.venv/bin ]] && export PATH=$PATH:/opt/torch/.venv/bin
build=${GPUPROC_BUILD:-build-gpu}
step() { echo "== $* ($(date +%T))" | tee -a "$out/steps.log"; }

step configure
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
step build
timeout 400 cmake --build "$build" -j "$(nproc)" >"$out/build.log" 2>&1 || { grep -E "error|FAILED" "$out/build.log" | head -30; exit 1; }
step ctest
timeout 300 ctest --test-dir "$build" --output-on-failure -j 4 >"$out/ctest.log" 2>&1
echo "ctest exit $?" | tee -a "$out/steps.log"; tail -15 "$out/ctest.log"
if [[ ${GPU_CHECK_SANITIZER:-1} == 1 ]] && command -v compute-sanitizer >/dev/null; then
  # API errors are not reported: one test makes an allocation fail on purpose, and every CUDA
  # call is checked by the code and the tests anyway.
  sanitize() {  # sanitize TOOL LOG [TEST SPEC]
    local tool=$1 log=$2
    shift 2
    step "compute-sanitizer $tool $*"
    timeout "${GPU_CHECK_SANITIZER_TIMEOUT:-300}" compute-sanitizer --tool "$tool" --report-api-errors no \
      --error-exitcode 9 "$build/tests/gpuproc_gpu_tests" "$@" >"$out/$log" 2>&1
    echo "compute-sanitizer $tool $* exit $?" | tee -a "$out/steps.log"; tail -3 "$out/$log"
  }
  sanitize memcheck sanitizer-memcheck.log
  sanitize synccheck sanitizer-synccheck.log
  # racecheck checks shared-memory accesses only, and is too slow for the whole suite (8 test
  # cases in 280 s on the H100): it runs the kernel tests of each area whose kernels use shared
  # memory (block scans and reductions, tiles, staged rows), one area at a time. Catch splits a
  # spec at commas, so names with commas are given by a wildcard over the rest.
  racecheck_specs=(
    "png:fast PNG kernels match their CPU references byte for byte"
    "pnm-edt:[edt]~[.perf]"
    "pnm-denoise:[denoise]"
    "pnm-binarize:[binarize]"
    "pnm-components:[components]"
    "pnm-watershed:*peaks and watershed equal the CPU reference"
    "infer-conv:CUDA CONV_2D matches the CPU reference"
    "infer-depthwise:CUDA DEPTHWISE_CONV_2D matches the CPU reference"
    "infer-pool:CUDA AVERAGE_POOL_2D and MAX_POOL_2D match the CPU reference"
    "infer-fp16:CUDA FP16 CONV_2D (tiled) and the cuBLAS pointwise convolution match the CPU reference"
    "segment_body:*Gaussian blur and RGB -> YUV 4:2:0 GPU = CPU"
    "tonemap:auto_exposure_gpu matches the CPU"
    "track_faces:detect_faces GPU = CPU: short and full range*"
  )
  for entry in "${racecheck_specs[@]}"; do
    sanitize racecheck "sanitizer-racecheck-${entry%%:*}.log" "${entry#*:}"
  done
fi
if [[ ${GPU_CHECK_BENCH:-1} == 1 ]]; then
  for bench in scripts/bench/*.sh; do
    step "bench $bench"
    GPUPROC_BUILD=$build timeout 400 bash "$bench" "$out/$(basename "$bench" .sh).json" >"$out/$(basename "$bench" .sh).log" 2>&1
    echo "$bench exit $?" | tee -a "$out/steps.log"; tail -25 "$out/$(basename "$bench" .sh).log"
  done
fi
step done
