#!/usr/bin/env bash
# Sets up, builds and runs every test. GPU tests report "Skipped" on machines without a GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUPROC_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$build" Release
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
