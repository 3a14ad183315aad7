#!/usr/bin/env bash
# `gpuproc compare` on what every subcommand writes (issue 22): two runs of the same job on the CPU
# path compare equal (exit 0); one value changed in one output of each kind (NRRD voxel, VTP
# number, Statoil number, CSV cell, JSON value, PNG pixel, a pixel of one mask-video frame, EXR
# value...) is a difference (exit 1) named in the output; a damaged file with a known extension
# and a missing path cannot be compared (exit 2). segment-body and track-faces need the models in
# .models (scripts/fetch-models.sh) and are skipped, saying so, without them.
# usage: compare_outputs.sh GPUPROC_BINARY SOURCE_DIR
set -uo pipefail
gpuproc=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$src"
source "$src/tests/cli/checks.sh"
models=${GPUPROC_MODELS:-.models}

# twice NAME SUBCOMMAND ARGS...: the same job twice, moved to $work/NAME-1 and $work/NAME-2, which
# must compare equal (extra compare options in $compare_options). Both runs write to the same
# folder, as a CI job writes today's outputs where the reference was made: outputs may record their
# own paths (segment-body's frame manifest does).
compare_options=()
twice() {
  local name=$1
  shift
  for run in 1 2; do
    check "$name: run $run" 0 "$gpuproc" "$@" --device cpu --progress none --set output.dir="$work/out" || return 1
    mv "$work/out" "$work/$name-$run"
  done
  check "$name: two runs compare equal" 0 "$gpuproc" compare "${compare_options[@]}" "$work/$name-1" "$work/$name-2"
  expect_text "$name: equal within tolerance" "$work/stdout" "equal within tolerance"
}

# changed NAME FILE WHAT COMMAND...: one value of FILE changed by COMMAND ({} stands for the file)
# in $work/NAME-changed, a copy of run 1.
changes=()
changed() {
  local name=$1 file=$2 what=$3
  shift 3
  [[ -d $work/$name-changed ]] || cp -r "$work/$name-1" "$work/$name-changed"
  if "${@//\{\}/$work/$name-changed/$file}"; then changes+=("$file"); else
    fail "$name: changing $what in $file failed"; fi
}

# differs NAME: the changed copy differs from run 1 (exit 1) in exactly the changed files, each with
# one line naming it. (One compare for all of a subcommand's changes: each gpuproc start costs.)
differs() {
  local name=$1
  check "$name: the changed values differ" 1 "$gpuproc" compare --json "${compare_options[@]}" "$work/$name-1" "$work/$name-changed"
  python3 - "$work/stdout" "${changes[@]}" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
details = json.JSONDecoder().raw_decode(text)[0]  # the JSON, then the difference lines
found = sorted(name for name, f in details["files"].items() if not f["equal"])
if found != sorted(sys.argv[2:]):
    sys.exit(f"FAIL: differing files {found}, changed {sorted(sys.argv[2:])}")
lines = text[text.rindex("\n}\n") + 3:].splitlines()
for name in sys.argv[2:]:
    if sum(line.startswith(name + ": ") for line in lines) != 1:
        sys.exit(f"FAIL: not one difference line for {name}: {lines}")
PY
  ok "$name: exactly the changed files differ, one line each" $?
  changes=()
}

# bump FILE MARKER: the first number after the first MARKER in FILE grows by 1 (text files).
bump() {
  python3 - "$1" "$2" <<'PY'
import re, sys
path, marker = sys.argv[1], sys.argv[2]
text = open(path, encoding="utf-8").read()
m = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?").search(text, text.index(marker) + len(marker))
old = m.group(0)
new = str(int(old) + 1) if re.fullmatch(r"-?\d+", old) else repr(float(old) + 1)
open(path, "w", encoding="utf-8").write(text[:m.start()] + new + text[m.end():])
PY
}

# nrrd_voxel FILE: one voxel (the middle one) of a gzip NRRD volume of uint8/16/32 samples grows by 1.
nrrd_voxel() {
  python3 - "$1" <<'PY'
import gzip, re, struct, sys
path = sys.argv[1]
data = open(path, "rb").read()
end = data.index(b"\n\n") + 2
code = {"uint8": "B", "uint16": "H", "uint32": "I"}[re.search(rb"\ntype: (\w+)", data[:end]).group(1).decode()]
size = struct.calcsize(code)
voxels = bytearray(gzip.decompress(data[end:]))
at = len(voxels) // size // 2 * size
struct.pack_into("<" + code, voxels, at, struct.unpack_from("<" + code, voxels, at)[0] + 1)
open(path, "wb").write(data[:end] + gzip.compress(bytes(voxels)))
PY
}

# video_pixel IN OUT FRAME: a grey video re-encoded losslessly (FFV1) with pixel x=3 y=2 of frame
# FRAME inverted (none for -1); nearest-neighbour geq leaves every other pixel as it was.
video_pixel() {
  ffmpeg -nostdin -y -v error -i "$1" -c:v ffv1 -pix_fmt gray \
    -vf "geq=lum='if(eq(N\,$3)*eq(X\,3)*eq(Y\,2)\,255-lum(X\,Y)\,lum(X\,Y))':i=n" "$2.new.mkv" && mv "$2.new.mkv" "$2"
}

# pixel FILE: one pixel (x=3, y=2; every MIP level that has it) set to a colour it is unlikely to have.
pixel() { oiiotool -a "$1" --fill:color=0.123,0.456,0.789,1 1x1+3+2 -o "$1.new.${1##*.}" && mv "$1.new.${1##*.}" "$1"; }

start=$SECONDS

# tonemap-exr: PNG, JPEG thumbnail and a tiled MIP-mapped EXR.
twice tonemap tonemap-exr -c configs/tonemap-exr.json data-samples/exr/sunset_half_zip.exr --set thumbnail.size=32 \
  --set mip.layout=tiled --set 'mip.tiled_name={stem}.mip.exr'
changed tonemap sunset_half_zip.png "a pixel" pixel {}
changed tonemap sunset_half_zip.mip.exr "a value" pixel {}
differs tonemap
expect_text "tonemap: the EXR difference names the level" "$work/stdout" "sunset_half_zip.mip.exr: subimage 0 MIP level 0: 1 of"

# segment-pnm (a 48^3 crop of the phantom): NRRD labels, VTP, Statoil, CSV, JSON, the quick-look
# PNG. summary.json holds wall-clock times, which --ignore-key leaves out.
compare_options=(--ignore-key seconds_load --ignore-key seconds_after_load --ignore-key stage_seconds)
twice pnm segment-pnm -c configs/segment-pnm.json --set input.crop.width=48 --set input.crop.height=48 \
  --set input.crop.depth=48
changed pnm foam/labels.nrrd "a voxel" nrrd_voxel {}
changed pnm foam/network.vtp "a number" bump {} 'Name="pore.volume" NumberOfComponents="1" format="ascii">'
changed pnm foam/network_node2.dat "a number" bump {} ' '
changed pnm foam/pores.csv "a cell" bump {} $'\n'
changed pnm foam/network.json "a value" bump {} '"pore.volume": ['
changed pnm foam/summary.json "the porosity" bump {} '"porosity"'
changed pnm foam/quicklook.png "a pixel" pixel {}
differs pnm
expect_text "pnm: the NRRD difference names the voxel" "$work/stdout" "foam/labels.nrrd: voxel (x, y, z) = ("
expect_text "pnm: the VTP difference names the array" "$work/stdout" "foam/network.vtp: PointData/pore.volume: tuple 0, component 0:"
expect_text "pnm: the Statoil difference names line and column" "$work/stdout" "foam/network_node2.dat: line 1, column 1:"
expect_text "pnm: the CSV difference names the cell" "$work/stdout" "foam/pores.csv: row 1, column 1"
expect_text "pnm: the JSON difference names the value" "$work/stdout" "foam/network.json: first difference at /pore.volume/0:"
compare_options=()

# stitch-360: JPEG views, COLMAP text files, cameras.json.
twice stitch stitch-360 -c configs/stitch-360.json --set views.width=64 --set views.height=64
changed stitch images.txt "a number" bump {} $'\n1 '
changed stitch cameras.json "a focal length" bump {} '"fx":'
changed stitch yaw090/equirect.jpg "a pixel" pixel {}
differs stitch
expect_text "stitch: the COLMAP difference names line and column" "$work/stdout" "images.txt: line 5, column 2:"
expect_text "stitch: the JSON difference names the value" "$work/stdout" "cameras.json: first difference at /views/0/fx:"

# Short clips keep the model-based subcommands quick.
mkdir -p "$work/clips"
ffmpeg -nostdin -v error -i data-samples/video/moving_shapes.mp4 -frames:v 8 -c:v libx264 -preset ultrafast \
  "$work/clips/moving_shapes.mp4"
ffmpeg -nostdin -v error -i data-samples/faces/cam_front.mp4 -frames:v 12 -c:v libx264 -preset ultrafast \
  "$work/clips/cam_front.mp4"

# segment-body: the FFV1 mask video, per-frame PNG masks, the frames manifest.
if [[ -f $models/selfie_segmentation.tflite ]]; then
  twice body segment-body -c configs/segment-body.json "$work/clips/moving_shapes.mp4" --set mask.refine.subsample=4 \
    --set output.mask_png.enabled=all
  changed body moving_shapes_mask/00003.png "a pixel" pixel {}
  changed body moving_shapes_mask.mkv "a pixel of frame 5" video_pixel {} {} 5
  changed body moving_shapes_frames.json "the frame count" bump {} '"frames"'
  differs body
  expect_text "body: the video difference names the frame" "$work/stdout" "moving_shapes_mask.mkv: frame 5: 1 of"
else
  echo "segment-body: skipped (no models in $models; run scripts/fetch-models.sh)"
fi

# track-faces: JSON lines, CSV, summary and the H.264 preview.
if [[ -f $models/face_landmark.tflite && -f $models/face_detection_short_range.tflite ]]; then
  twice faces track-faces -c configs/track-faces.json "$work/clips/cam_front.mp4" --set output.preview.enabled=true
  changed faces cam_front.jsonl "a box coordinate" bump {} '"box":['
  changed faces cam_front.csv "a frame number" bump {} $'\n'
  differs faces
else
  echo "track-faces: skipped (no face models in $models; run scripts/fetch-models.sh)"
fi

# What cannot be compared: exit 2, never 1, naming the file.
mkdir -p "$work/bad"
printf 'not an image' >"$work/bad/sunset_half_zip.png"
check "garbage png cannot be compared" 2 "$gpuproc" compare "$work/tonemap-1/sunset_half_zip.png" "$work/bad/sunset_half_zip.png"
expect_text "the garbage file is named" "$work/stderr" "$work/bad/sunset_half_zip.png"
mkdir -p "$work/bad-a" "$work/bad-b"
cp "$work/pnm-1/foam/labels.nrrd" "$work/pnm-1/foam/pores.csv" "$work/bad-a/"
cp "$work/pnm-1/foam/pores.csv" "$work/bad-b/"
head -c 200 "$work/pnm-1/foam/labels.nrrd" >"$work/bad-b/labels.nrrd"
check "a damaged NRRD in a folder cannot be compared" 2 "$gpuproc" compare --json "$work/bad-a" "$work/bad-b"
expect_text "the damaged file is named" "$work/stderr" "cannot compare $work/bad-b/labels.nrrd: "
expect_text "the JSON details say why" "$work/stdout" '"error": "'
check "missing path" 2 "$gpuproc" compare "$work/pnm-1" "$work/nowhere"
check "file against folder" 2 "$gpuproc" compare "$work/pnm-1/foam/pores.csv" "$work/pnm-1"

echo "compare_outputs: $passes passed, $failures failed ($((SECONDS - start)) s)"
[[ $failures -eq 0 ]]
