#!/usr/bin/env bash
# segment-pnm on the DICOM phantom against scipy's EDT and scikit-image's watershed (same markers):
# runs gpuproc with output.intermediates on, then scripts/bench/segment_pnm_compare.py.
# usage: scipy_compare.sh GPUPROC_BINARY SOURCE_DIR
# Device: auto (the GPU path where there is one); PNM_COMPARE_DEVICE=cpu|cuda:N overrides it.
# Exit 77 (skipped) when no python3 imports numpy, scipy and scikit-image.
set -uo pipefail
gpuproc=$1
src=$2
device=${PNM_COMPARE_DEVICE:-auto}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$src"
compare=scripts/bench/segment_pnm_compare.py

# python3 from PATH when it has the packages (the GPU machine's venv comes first), else Debian's.
python=
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null &&
    "$candidate" -c "import numpy, scipy.ndimage, skimage.segmentation" 2>/dev/null; then
    python=$candidate
    break
  fi
done
if [[ -z $python ]]; then
  fallback=python3
  [[ -x /usr/bin/python3 ]] && fallback=/usr/bin/python3
  "$fallback" "$compare" "$work"  # exits 77 and names the packages it cannot import
  exit 77
fi

"$gpuproc" segment-pnm --config configs/segment-pnm.json --device "$device" --progress none \
  --set output.dir="$work/out" --set output.intermediates=true \
  --set output.csv=false --set output.json=false --set output.vtp=false --set output.statoil=false \
  --set output.quicklook=false --report "$work/report.json" >"$work/stdout" 2>"$work/stderr"
rc=$?
if [[ $rc -ne 0 ]]; then
  echo "FAIL: gpuproc segment-pnm exited $rc"
  sed 's/^/  | /' "$work/stderr" | head -20
  exit 1
fi
"$python" -c "import json,sys; d=json.load(open(sys.argv[1]))['device']; print('segment-pnm device:', d.get('used'), d.get('name', ''))" \
  "$work/report.json"

"$python" "$compare" "$work/out/foam" --json "$work/compare.json"
rc=$?
[[ $rc -eq 1 ]] && sed 's/^/  | /' "$work/compare.json"
exit $rc
