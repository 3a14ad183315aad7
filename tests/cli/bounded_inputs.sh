#!/usr/bin/env bash
# Configs, lists, inputs and auxiliary files that must be refused quickly with exit 2 naming the
# file (issue 22, points 2, 4 and 5), for every batch subcommand: a config nested 100,000 levels
# deep (crashed with SIGSEGV), /dev/zero and FIFOs as config, @list, input and each auxiliary
# file a config names (read without end, or blocked), an empty folder and "inputs": [] (exit 0
# with nothing done); and a large zero-filled image, which OpenImageIO's DICOM reader took 40 s
# per 100 MB to refuse. Every run is under `timeout 20`: a hang shows as exit 124.
# usage: bounded_inputs.sh GPUPROC_BINARY SOURCE_DIR
set -uo pipefail
gpuproc=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$src"
source "$src/tests/cli/checks.sh"

# expect_exit NAME CODE TEXT COMMAND...: exit CODE within the timeout, TEXT on stderr.
expect_exit() {
  local name=$1 code=$2 text=$3
  shift 3
  timeout 20 "$@" >"$work/stdout" 2>"$work/stderr" </dev/null
  local rc=$?
  if [[ $rc -ne $code ]]; then
    fail "$name: exit $rc, expected $code"; sed 's/^/  | /' "$work/stderr" | head -10
  elif ! grep -qF -- "$text" "$work/stderr"; then
    fail "$name: '$text' not on stderr:"; sed 's/^/  | /' "$work/stderr" | head -10
  else
    pass
  fi
}
expect_usage() { expect_exit "$1" 2 "${@:2}"; }  # expect_usage NAME TEXT COMMAND...

python3 -c "print('[' * 100000 + ']' * 100000)" >"$work/deep.json"
deep_value=$(python3 -c "print('[' * 10000 + ']' * 10000)")  # one argument holds at most 128 KiB
mkfifo "$work/fifo" "$work/fifo.json" "$work/fifo.txt"
mkdir "$work/empty"
deep_text="$work/deep.json: nested more than 100 levels deep"

for cmd in tonemap-exr segment-pnm stitch-360 segment-body track-faces; do
  cfg=configs/$cmd.json
  run=("$gpuproc" "$cmd" --device cpu --progress none --set output.dir="$work/out/$cmd")
  expect_usage "$cmd: 100k-deep config" "$deep_text" "${run[@]}" -c "$work/deep.json"
  expect_usage "$cmd: -c /dev/zero" "config file: /dev/zero is a character device, not a regular file" \
    "${run[@]}" -c /dev/zero
  expect_usage "$cmd: FIFO config" "config file: $work/fifo.json is a FIFO" "${run[@]}" -c "$work/fifo.json"
  expect_usage "$cmd: @/dev/zero" "list file: /dev/zero is a character device" "${run[@]}" -c "$cfg" @/dev/zero
  expect_usage "$cmd: FIFO list" "list file: $work/fifo.txt is a FIFO" "${run[@]}" -c "$cfg" "@$work/fifo.txt"
  expect_usage "$cmd: /dev/zero input" "input: /dev/zero is a character device, not a regular file" \
    "${run[@]}" -c "$cfg" /dev/zero
  expect_usage "$cmd: FIFO input" "input: $work/fifo is a FIFO" "${run[@]}" -c "$cfg" "$work/fifo"
  expect_usage "$cmd: deep --set" "--set x=[[[[" "${run[@]}" -c "$cfg" --set "x=$deep_value"
  expect_usage "$cmd: inputs []" "no inputs: give files, folders, globs or @lists" \
    "${run[@]}" -c "$cfg" --set 'inputs=[]'
  if [[ $cmd == segment-pnm ]]; then
    expect_usage "$cmd: empty folder" "$work/empty: no file in the folder itself (segment-pnm reads each folder as one item" \
      "${run[@]}" -c "$cfg" "$work/empty"
  else
    expect_usage "$cmd: empty folder" "$work/empty: no file of the kinds $cmd reads (" "${run[@]}" -c "$cfg" "$work/empty"
  fi
done

# Auxiliary files named in a config: /dev/zero and a FIFO, refused at config-check time.
aux() {  # aux COMMAND FIELD SETTING...
  local cmd=$1 field=$2
  shift 2
  for file in /dev/zero "$work/fifo"; do
    local what="a character device"
    [[ $file == /dev/zero ]] || what="a FIFO (named pipe)"
    expect_usage "$cmd: $field $file" "$field: $file is $what, not a regular file" \
      "$gpuproc" "$cmd" -c "configs/$cmd.json" --device cpu --progress none --set output.dir="$work/out/$cmd" \
      --set "$field=$file" "$@"
  done
}
aux stitch-360 /mask/image --set mask.enabled=true
aux segment-body /model/path
aux segment-body /output/background/image --set output.background.enabled=true --set output.background.kind=image
aux track-faces /detector/path
aux track-faces /landmarks/path

# A zero-filled (sparse) 300 MB image: an item that fails at once, read by its extension's reader.
truncate -s 300M "$work/zero.exr" "$work/zero.png"
expect_exit "tonemap-exr: zero-filled .exr" 1 "$work/zero.exr: decode:" \
  "$gpuproc" tonemap-exr -c configs/tonemap-exr.json --device cpu --progress none --set output.dir="$work/out/z" "$work/zero.exr"
expect_exit "stitch-360: zero-filled .png" 1 "$work/zero.png: decode:" \
  "$gpuproc" stitch-360 -c configs/stitch-360.json --device cpu --progress none --set output.dir="$work/out/z" "$work/zero.png"

# segment-pnm: a scan whose labels cannot fit the output disk is refused before any work (issue
# 23): a sparse 1 TB raw volume (2^40 uint8 voxels) whose raw uint32 labels would take 4 TiB.
truncate -s 1T "$work/huge.raw"
if (( $(df -Pk "$work" | awk 'NR == 2 {print $4}') < 4 * 1024 * 1024 * 1024 )); then
  expect_exit "segment-pnm: labels over the output disk" 1 "this volume's labels need at least 4096.0 GiB" \
    "$gpuproc" segment-pnm -c configs/segment-pnm.json --device cpu --progress none --set output.dir="$work/out/huge" \
    --set input.format=raw --set input.raw.width=16384 --set input.raw.height=8192 --set input.raw.depth=8192 \
    --set input.raw.dtype=uint8 --set output.labels_encoding=raw --set output.labels_type=uint32 "$work/huge.raw"
else
  echo "  skipped: the labels check needs a disk with less than 4 TiB free"
fi
rm -f "$work/huge.raw"

# The tools that read configs and reports.
expect_usage "validate: 100k-deep config" "$deep_text" "$gpuproc" validate "$work/deep.json"
expect_usage "validate: /dev/zero" "config file: /dev/zero is a character device" "$gpuproc" validate /dev/zero
expect_usage "validate: FIFO" "config file: $work/fifo.json is a FIFO" "$gpuproc" validate "$work/fifo.json"
expect_usage "merge-reports: 100k-deep report" "$deep_text" "$gpuproc" merge-reports "$work/deep.json"
expect_usage "merge-reports: /dev/zero" "report: /dev/zero is a character device" "$gpuproc" merge-reports /dev/zero
expect_usage "merge-reports: FIFO" "report: $work/fifo.json is a FIFO" "$gpuproc" merge-reports "$work/fifo.json"

echo "bounded_inputs: $passes passed, $failures failed"
[[ $failures -eq 0 ]]
