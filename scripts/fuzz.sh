#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang, host code only) and runs each for a bounded
# time over its corpus; fails when any target crashes (ASan/UBSan finding, uncaught exception,
# timeout, out-of-memory).
#   usage: scripts/fuzz.sh [TARGET...]   (default: config tflite dicom raw_volume templates overrides exr_blocks)
#   env:   FUZZ_SECONDS (per target; default 30, and 15 for templates and overrides, whose small
#          code is covered within seconds), GPUPROC_FUZZ_BUILD_DIR (default build-fuzz),
#          FUZZ_OUT (new inputs and crash artifacts; default $build/fuzz-out)
# New corpus inputs go to $FUZZ_OUT/<target>/corpus, not into the repository; a crash's input is
# $FUZZ_OUT/<target>/crash-* (reproduce: $build/tests/fuzz/fuzz_<target> FILE). Once fixed,
# copy it into tests/fuzz/corpus/<target>/ so that every later run replays it first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUPROC_FUZZ_BUILD_DIR:-$root/build-fuzz}
out=${FUZZ_OUT:-$build/fuzz-out}
targets=("$@")
((${#targets[@]})) || targets=(config tflite dicom raw_volume templates overrides exr_blocks)
seconds_for() {
  if [[ -n ${FUZZ_SECONDS:-} ]]; then echo "$FUZZ_SECONDS"
  elif [[ $1 == templates || $1 == overrides ]]; then echo 15
  else echo 30; fi
}

cxx=${FUZZ_CXX:-$(command -v clang++ || command -v clang++-14 || true)}
[[ -n $cxx ]] || { echo "fuzz: clang++ is needed (Debian: clang, libclang-rt-14-dev)" >&2; exit 2; }
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DGPUPROC_FUZZ=ON -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${targets[@]/#/fuzz_}"

failed=()
for t in "${targets[@]}"; do
  work=$out/$t
  seconds=$(seconds_for "$t")
  mkdir -p "$work/corpus"
  echo "fuzz: $t for ${seconds}s" >&2
  # The first corpus folder receives new inputs; the repository's is only read (replayed first).
  if ! (cd "$work" && "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
          -artifact_prefix="$work/" -print_final_stats=1 "$work/corpus" "$root/tests/fuzz/corpus/$t" \
          >"$work/log.txt" 2>&1); then
    failed+=("$t")
    echo "fuzz: $t FAILED; log $work/log.txt, inputs:" >&2
    ls "$work"/{crash,leak,timeout,oom,slow-unit}-* >&2 2>/dev/null || true
    grep -m1 -A30 -E "^==[0-9]+==ERROR|runtime error|deadly signal|out-of-memory|timeout" "$work/log.txt" >&2 || tail -30 "$work/log.txt" >&2
  else
    grep -E "^stat::number_of_executed_units|^stat::new_units_added" "$work/log.txt" | tr '\n' ' ' >&2
    echo >&2
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: crashes in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: ${targets[*]}: no crash" >&2
