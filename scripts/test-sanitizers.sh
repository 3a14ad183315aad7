#!/usr/bin/env bash
# Builds unit tests with ASan+UBSan over the host C++ code (GPUPROC_SANITIZE; nvcc compiles the .cu
# files as usual) and runs them; any sanitizer report (or leak) fails the run.
# By default gpuproc_host_tests: the host-only tests of the config, the DICOM/raw volume readers,
# the .tflite reader and shape planning, the pore network and the face tracker (tests/CMakeLists.txt;
# the whole gpuproc_tests under ASan takes too long to build on a 2-core machine).
#   usage: scripts/test-sanitizers.sh [CATCH2 TEST SPEC...]   (default: every test of the executable)
#          e.g. scripts/test-sanitizers.sh "[config]" "[infer]"
#   env:   GPUPROC_SANITIZE_ALL=1 (build and run the whole gpuproc_tests instead),
#          GPUPROC_ASAN_BUILD_DIR (default build-asan), GPUPROC_CUDA_ARCHITECTURES (default as build.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUPROC_ASAN_BUILD_DIR:-$root/build-asan}

archs=${GPUPROC_CUDA_ARCHITECTURES:-}
if [[ -z $archs ]]; then
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then archs=native; else archs=75; fi
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# -O1 (as ASan recommends; builds much faster than -O3) with line tables (-g1): stack traces with file:line.
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS=-g1 -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
      -DGPUPROC_SANITIZE=ON -DCMAKE_CUDA_ARCHITECTURES="$archs" >/dev/null
tests=gpuproc_host_tests
[[ ${GPUPROC_SANITIZE_ALL:-0} == 1 ]] && tests=gpuproc_tests
cmake --build "$build" -j "$(nproc)" --target "$tests"

# DCMTK's codec registry (init_decoders/init_encoders register once per process) is never freed:
# a process-lifetime registration, not a leak of ours.
printf 'leak:DcmCodecList::registerCodec\n' >"$build/lsan.supp"
export LSAN_OPTIONS=suppressions=$build/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}
# protect_shadow_gap=0: the CUDA driver maps memory where ASan would otherwise reserve its gap.
export ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}
cd "$build"
./tests/"$tests" "$@"
