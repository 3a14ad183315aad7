#!/usr/bin/env bash
# Sets up, builds (Release) and runs a real tonemap-exr job over data-samples/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUPROC_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$build" Release
cd "$root"
out=out/demo/tonemap-exr
rm -rf "$out"
"$build/apps/gpuproc/gpuproc" info
"$build/apps/gpuproc/gpuproc" tonemap-exr --config configs/tonemap-exr.json --set output.dir="$out" \
  --report "$out/report.json" --trace "$out/trace.json" --progress "${GPUPROC_PROGRESS:-auto}"
echo
echo "outputs: $root/$out ($(find "$out" -type f -name '*.png' -o -type f -name '*.jpg' -o -type f -name '*.tif' | wc -l) images)"
echo "report:  $root/$out/report.json"
echo "trace:   $root/$out/trace.json (open in https://ui.perfetto.dev or chrome://tracing)"
