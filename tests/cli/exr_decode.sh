#!/usr/bin/env bash
# tonemap-exr's EXR decoders (run.exr_decode, issue 28): our block decoder (its CPU references
# under --device cpu, its kernels on a GPU) gives the same outputs as OpenEXR, byte for byte; the
# report says which decoder each file took; a file it does not decode, or a damaged block, fails
# that file alone, named.
# usage: exr_decode.sh GPUPROC_BINARY SOURCE_DIR
set -uo pipefail
gpuproc=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$src"
source "$src/tests/cli/checks.sh"

cfg=configs/tonemap-exr.json
# The samples our decoder takes (every one but the DWAA file).
mkdir -p "$work/in"
for f in data-samples/exr/*.exr; do [[ $f == *dwaa* ]] || cp "$f" "$work/in/"; done
n=$(ls "$work/in" | wc -l)
run() {  # run NAME DEVICE EXPECTED_EXIT INPUT [--set ...]
  local name=$1 device=$2 expected=$3 input=$4
  shift 4
  check "$name" "$expected" "$gpuproc" tonemap-exr "$input" --config "$cfg" --device "$device" --progress none \
    --set thumbnail.size=64 --set output.dir="$work/out-$name" --report "$work/$name.json" "$@"
}
decoders() {  # decoders NAME REPORT EXPECTED_DECODER COUNT: every succeeded record names it
  json_check "$1" "$2" "sum(1 for r in j['item_records'] if r['status']=='ok' and r['details']['decoder']=='$3')==$4"
}

run cpu-openexr cpu 0 "$work/in" --set run.exr_decode=cpu
decoders "exr_decode cpu: OpenEXR" "$work/cpu-openexr.json" cpu "$n"
run cpu-blocks cpu 0 "$work/in" --set run.exr_decode=gpu
decoders "exr_decode gpu on the CPU: the block decoder's references" "$work/cpu-blocks.json" cpu-blocks "$n"
check "the block decoder's outputs are OpenEXR's, byte for byte" 0 diff -r -x .gpuproc "$work/out-cpu-openexr" "$work/out-cpu-blocks"
run cpu-default cpu 0 "$work/in"
decoders "exr_decode by default: OpenEXR" "$work/cpu-default.json" cpu "$n"
run cpu-auto cpu 0 "$work/in" --set run.exr_decode=auto
decoders "exr_decode auto on the CPU: OpenEXR" "$work/cpu-auto.json" cpu "$n"

# A file the block decoder does not take, with exr_decode gpu: that file fails, named, with the setting.
cp data-samples/exr/*dwaa*.exr "$work/in/"
run gpu-dwaa cpu 1 "$work/in" --set run.exr_decode=gpu
expect_text "the DWAA file is named" "$work/stderr" "dusk_half_dwaa_tiled.exr"
expect_text "the setting is named" "$work/stderr" 'run.exr_decode is "gpu"'
json_check "the others complete" "$work/gpu-dwaa.json" "j['items']['succeeded']==$n and j['items']['failed']==1"

# A damaged ZIP block: the file fails, naming the block; the others complete.
mkdir -p "$work/damaged"
cp "$work/in"/*.exr "$work/damaged/"
rm "$work/damaged"/*dwaa*.exr
python3 - "$work/damaged/sunset_half_zip.exr" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
for k in range(len(b) // 2, len(b) // 2 + 64): b[k] ^= 0x5A  # inside the blocks' data
open(p, "wb").write(b)
PY
run damaged cpu 1 "$work/damaged" --set run.exr_decode=gpu
expect_text "the damaged file and block are named" "$work/stderr" "sunset_half_zip.exr"
expect_text "the block is named" "$work/stderr" "the block at x "
json_check "the others complete despite the damaged one" "$work/damaged.json" \
  "j['items']['succeeded']==$((n - 1)) and j['items']['failed']==1"

has_gpu=0
"$gpuproc" info --json | python3 -c "import json,sys; sys.exit(0 if json.load(sys.stdin)['gpus'] else 1)" && has_gpu=1
if [[ $has_gpu == 1 ]]; then
  rm "$work/in"/*dwaa*.exr
  run gpu-openexr cuda:0 0 "$work/in" --set run.exr_decode=cpu
  run gpu-blocks cuda:0 0 "$work/in" --set run.exr_decode=gpu
  decoders "exr_decode gpu: the GPU decoder" "$work/gpu-blocks.json" gpu "$n"
  check "GPU-decoded outputs equal OpenEXR-decoded ones, byte for byte" 0 diff -r -x .gpuproc "$work/out-gpu-openexr" "$work/out-gpu-blocks"
  # auto: OpenEXR for the files read before the GPU is ready, the GPU decoder after.
  run gpu-auto cuda:0 0 "$work/in" --set run.exr_decode=auto
  json_check "exr_decode auto on the GPU: either decoder" "$work/gpu-auto.json" \
    "sum(1 for r in j['item_records'] if r['details']['decoder'] in ('gpu', 'cpu'))==$n"
  check "auto: the same outputs" 0 diff -r -x .gpuproc "$work/out-gpu-blocks" "$work/out-gpu-auto"
  run gpu-one-at-a-time cuda:0 0 "$work/in" --set run.exr_decode=gpu --set run.exr_decode_batch=1
  check "batches of one decode the same" 0 diff -r -x .gpuproc "$work/out-gpu-blocks" "$work/out-gpu-one-at-a-time"
  run gpu-small cuda:0 0 "$work/in" --set run.exr_decode=gpu --set run.batch=8 --gpu-memory-limit 8M
  check "out of memory together, one at a time: the same" 0 diff -r -x .gpuproc "$work/out-gpu-blocks" "$work/out-gpu-small"
  run gpu-damaged cuda:0 1 "$work/damaged" --set run.exr_decode=gpu
  expect_text "GPU: the damaged block is named" "$work/stderr" "the block at x "
  json_check "GPU: the others complete" "$work/gpu-damaged.json" "j['items']['succeeded']==$((n - 1)) and j['items']['failed']==1"
else
  echo "SKIPPED: GPU decoder checks (no GPU on this machine)"
fi

echo "exr_decode: $passes passed, $failures failed"
[[ $failures == 0 ]]
