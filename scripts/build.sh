#!/usr/bin/env bash
# Configures and builds gpuproc.  usage: scripts/build.sh [BUILD_DIR] [BUILD_TYPE]
# CUDA architectures: $GPUPROC_CUDA_ARCHITECTURES if set; else "native" when a GPU is present;
# else one architecture in CI (to save time) and Turing..Hopper elsewhere.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
type=${2:-Release}

archs=${GPUPROC_CUDA_ARCHITECTURES:-}
if [[ -z $archs ]]; then
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then archs=native
  elif [[ ${CI:-} == true ]]; then archs=75
  fi
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE="$type" \
      ${archs:+-DCMAKE_CUDA_ARCHITECTURES="$archs"} >/dev/null
cmake --build "$build" -j "$(nproc)"
