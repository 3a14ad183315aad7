#!/usr/bin/env bash
# (Re)writes the seed inputs of tests/fuzz/corpus/<target>/ (seed_* files; inputs the fuzzers
# found and saved there, crash_* and others, are kept). Small on purpose: real configs, two
# DICOM slices of the foam sample, tiny raw volumes and tiny .tflite models built with flatc.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
corpus=$root/tests/fuzz/corpus
mkdir -p "$corpus"/{config,tflite,dicom,raw_volume,templates,overrides,exr_blocks}
rm -f "$corpus"/*/seed_*

# config: the documented example configs, and two with --set assignments after a NUL byte
# (fuzz_config.cpp: one assignment per line).
for f in "$root"/configs/*.json; do cp "$f" "$corpus/config/seed_$(basename "$f")"; done
{ cat "$root/configs/segment-pnm.json"; printf '\0input.format=raw\n/input/raw/width=4\ninput.raw.height=3\ninput.raw.depth=2\noutput.statoil_prefix=net'; } \
  >"$corpus/config/seed_segment-pnm-overrides.json"
{ printf '{"command": "stitch-360", "inputs": ["a.jpg"]}'; printf '\0output.width=512\nrig.views=[]\n/rig/preset="ring8"'; } \
  >"$corpus/config/seed_stitch-360-overrides.json"

# templates: fuzz_templates.cpp's folder byte, then the template and the values of {stem} {name}
# {ext} {index} {level} {view} {frame} {camera} {output}, NUL-separated: the subcommands' default
# templates, padding, escapes, and names that try to leave the folder.
template_seed() {  # template_seed NAME FOLDER_BYTE TEMPLATE VALUE...
  local name=$1 folder=$2
  shift 2
  { printf "\\$(printf '%03o' "$folder")"; printf '%s' "$1"; shift; for v in "$@"; do printf '\0%s' "$v"; done; } \
    >"$corpus/templates/seed_$name"
}
template_seed tonemap 0 '{stem}.{ext}' frame_0001 frame_0001.exr png 0
template_seed mip 1 '{stem}_mip{level}.{ext}' city city.exr png 3 2
template_seed padded 2 'shot/{index:05}_{stem}.png' a a.exr exr 42
template_seed stitch 1 '{stem}_{view}.{ext}' pano pano.jpg jpg 7 0 front
template_seed mask 2 'masks/{output}.png' p p.jpg jpg 0 0 v 0 cam p_front.jpg
template_seed frames 0 '{stem}_mask/{frame:05}.png' clip clip.mp4 png 1 0 '' 12
template_seed camera 1 '{camera}_summary.json' '' '' '' 0 0 '' 0 cam0
template_seed braces 0 '{{literal}}_{stem}}}.txt' a
template_seed escape 2 'outside/../../{stem}' a
template_seed link 2 'outside/{stem}.png' a
template_seed dotdot 1 '{stem}/x.png' ..
template_seed absolute 0 '{stem}' /etc/passwd
template_seed unknown 0 '{nope}_{stem' a

# overrides: --set assignments, one per line (fuzz_overrides.cpp, on stitch-360's example).
printf '%s\n' 'output.dir=out/x' '/mask/enabled=true' 'mask.nadir=20' 'views.preset=custom' \
  'views.custom=["front:0:0"]' 'run.batch=4' >"$corpus/overrides/seed_stitch"
printf '%s\n' 'a.b.c=[1,{"d":[2]}]' '/x~1y/z~0=1' 'inputs=[]' 'inputs="a.jpg"' 'output.quality=1e999' \
  'output=5' 'output.quality=9' 'output.dir=' '=1' 'a..b=1' >"$corpus/overrides/seed_edges"
{ printf 'deep=%s%s\n' "$(printf '[%.0s' {1..120})" "$(printf ']%.0s' {1..120})"
  printf 'k'; printf '.k%.0s' {1..120}; printf '=1\n'; } >"$corpus/overrides/seed_deep"

# tflite: tiny models (conv + dequantize; depthwise, pool, add, reshape, concat; resize, pad,
# transpose conv, prelu, hard swish, mean).
python3 "$root/tests/fuzz/seeds/make_tflite_seeds.py" "$root/src/infer/tflite_schema.fbs" "$corpus/tflite"

# dicom: one slice, and a series of three slices joined by fuzz_dicom.cpp's separator.
foam=$root/data-samples/pnm/foam
cp "$foam/foam_0001.dcm" "$corpus/dicom/seed_slice.dcm"
separator=$'\n--gpuproc-fuzz-next-slice--\n'
{ cat "$foam/foam_0040.dcm"; printf '%s' "$separator"; cat "$foam/foam_0041.dcm"; printf '%s' "$separator"
  cat "$foam/foam_0042.dcm"; } >"$corpus/dicom/seed_series3.dcm"

# raw_volume: fuzz_raw_volume.cpp's 13 parameter bytes, then the file.
python3 - "$corpus/raw_volume" <<'PY'
import struct, sys
out = sys.argv[1]
def params(dtype, big=False, header=0, nx=1, ny=1, nz=0, crop_begin=(0, 0, 0), crop_size=(0, 0, 0), downsample=1, scale=0):
    return bytes([dtype | (0x10 if big else 0), header, nx - 1, ny - 1, nz] + list(crop_begin) + list(crop_size) + [downsample - 1, scale])
seeds = {
    # uint16 4x3x2, little endian, whole volume
    "seed_u16_4x3x2": params(2, nx=4, ny=3, nz=2) + struct.pack("<24H", *range(0, 2400, 100)),
    # float32 big endian after an 8-byte header, 4x4x4 cropped and downsampled by 2, slope -1
    "seed_f32be_crop_down": params(6, big=True, header=8, nx=4, ny=4, nz=4, crop_begin=(0, 0, 0), crop_size=(4, 4, 4),
                                   downsample=2, scale=1 | 0x40) + b"HEADER!!" + struct.pack(">64f", *[i * 0.5 for i in range(64)]),
    # int8 5x5, slices fitted to the file (nz 0), crop from (1, 1, 1)
    "seed_i8_fit_crop": params(1, nx=5, ny=5, nz=0, crop_begin=(1, 1, 1), scale=2 | (1 << 3)) + bytes(range(256 - 75, 256)),
    # float64 2x2x2, little endian
    "seed_f64": params(7, nx=2, ny=2, nz=2) + struct.pack("<8d", 1e300, -1e300, 0.0, -0.0, 1.5, 2.5, 1e-300, 3.0),
}
for name, data in seeds.items():
    open(f"{out}/{name}", "wb").write(data)
PY
# exr_blocks: fuzz_exr_blocks.cpp's 4 parameter bytes (compression index none/rle/zips/zip/piz,
# width - 1, lines - 1, channels - 1 | float bits << 2), then a block: real blocks of small EXRs
# written by oiiotool (24x16 RGBA: half; and RGB float) in each compression, as stored in the file.
tmp=$(mktemp -d)
for c in none rle zips zip piz; do
  oiiotool --pattern fill:topleft=0.1,0.2,0.3,1:bottomright=4,2,1,1 24x16 4 --noise:type=gaussian:stddev=0.05 -d half \
    --compression "$c" -o "$tmp/half_$c.exr"
  oiiotool --pattern fill:topleft=0.5,0.25,2:bottomright=8,1,0.1 24x16 3 -d float --compression "$c" -o "$tmp/float_$c.exr"
done
python3 - "$tmp" "$corpus/exr_blocks" <<'PY'
import struct, sys
tmp, out = sys.argv[1:]
index = {"none": 0, "rle": 1, "zips": 2, "zip": 3, "piz": 4}
lines_per_block = {0: 1, 1: 1, 2: 1, 3: 16, 4: 32}
for kind, channels, floats in (("half", 4, 0), ("float", 3, 7)):
    for name, k in index.items():
        b = open(f"{tmp}/{kind}_{name}.exr", "rb").read()
        pos, attrs = 8, {}
        while b[pos] != 0:  # the header's attributes, up to its terminating NUL
            e = b.index(b"\0", pos); key = b[pos:e].decode(); pos = e + 1
            e = b.index(b"\0", pos); pos = e + 1
            n = struct.unpack_from("<i", b, pos)[0]; pos += 4
            attrs[key] = b[pos:pos + n]; pos += n
        x0, y0, x1, y1 = struct.unpack("<iiii", attrs["dataWindow"])
        first = struct.unpack_from("<Q", b, pos + 1)[0]  # the first block's offset
        size = struct.unpack_from("<i", b, first + 4)[0]
        lines = min(lines_per_block[k], y1 - y0 + 1)
        params = bytes([k, x1 - x0, lines - 1, (channels - 1) | (floats << 2)])
        open(f"{out}/seed_{kind}_{name}", "wb").write(params + b[first + 8:first + 8 + size])
PY
rm -rf "$tmp"
du -sh "$corpus"
