#!/usr/bin/env bash
# Regenerates the committed samples (data-samples/exr/*.exr, data-samples/hdr/*.hdr, the
# segment-pnm sample data-samples/pnm/, the stitch-360 samples data-samples/stitch/ and the video
# sample data-samples/video/) with
# gpuproc-make-samples; the output is byte-identical run to run. Builds nothing itself.
#   data-samples/generate.sh [PATH_TO_gpuproc-make-samples]
# The binary: the argument, else $GPUPROC_MAKE_SAMPLES, else build/apps/make-samples/gpuproc-make-samples.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
make_samples=${1:-${GPUPROC_MAKE_SAMPLES:-$root/build/apps/make-samples/gpuproc-make-samples}}
if [[ ! -x $make_samples ]]; then
  echo "generate.sh: no gpuproc-make-samples at $make_samples (build it, or pass its path)" >&2
  exit 2
fi

# Write into a fresh folder first, so a failed run leaves the committed samples untouched.
staging=$(mktemp -d "$here/.generate.XXXXXX")
trap 'rm -rf "$staging"' EXIT
"$make_samples" samples "$staging"
"$make_samples" pnm-samples "$staging"
"$make_samples" stitch-samples "$staging"
"$make_samples" video-samples "$staging"
for kind in exr hdr pnm stitch video; do
  rm -rf "${here:?}/$kind"
  mv "$staging/$kind" "$here/$kind"
done
du -ch "$here"/exr/* "$here"/hdr/* "$here"/pnm/* "$here"/stitch/* "$here"/video/* | sed 's/^/  /'
