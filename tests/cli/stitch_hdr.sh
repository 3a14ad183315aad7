#!/usr/bin/env bash
# stitch-360's float path (issue 27), CPU path: EXR (half, zip, with alpha) and Radiance .hdr
# panoramas to cubemap faces as EXR and views as .hdr, values far above 1 kept; an equirect ->
# cubemap -> equirect round trip in float keeping the mean radiance; EXR sample type and
# compression as asked; tone-mapped 8-bit previews; an HDR input with an 8-bit format refused
# alone (never clipped), an EXR without R, G, B refused alone, the rest of the batch done.
# usage: stitch_hdr.sh GPUPROC_BINARY SOURCE_DIR
set -uo pipefail
gpuproc=$1
src=$2
work=$(mktemp -d)
trap 'if [[ -n ${KEEP:-} ]]; then echo "kept: $work"; else rm -rf "$work"; fi' EXIT
source "$src/tests/cli/checks.sh"
cd "$src"
if ! command -v oiiotool >/dev/null; then
  echo "stitch_hdr: skipped (no oiiotool: Debian's openimageio-tools)"
  exit 0
fi
exr=data-samples/exr/sunset_half_zip.exr
hdr=data-samples/hdr/sunset_sky.hdr
st=(stitch-360 -c configs/stitch-360.json --device cpu --progress none --set output.rig=false
  --set output.name={stem}_{view}.{ext} --set output.video_name={stem}_{frame:06}_{view}.{ext})
# stat FILE WHICH: oiiotool's per-channel statistic (Max, Min, Avg) as "r g b"
stat() { oiiotool --stats "$1" | sed -n "s/.*Stats $2: *\([-0-9.e+]* [-0-9.e+]* [-0-9.e+]*\).*/\1/p" | head -1; }
largest() { python3 -c "import sys; print(max(float(v) for a in sys.argv[1:] for v in a.split()))" "$@"; }

check "EXR and .hdr panoramas to EXR cube faces with previews" 0 "$gpuproc" "${st[@]}" "$exr" "$hdr" \
  --set mode=cubemap --set output.format=exr --set output.preview.enabled=true --set output.dir="$work/cube"
[[ $(ls "$work"/cube/*.exr | wc -l) -eq 12 && $(ls "$work"/cube/previews/*.jpg | wc -l) -eq 12 ]]
ok "12 faces and 12 previews" $?
source_max=$(largest "$(stat $exr Max)")
faces_max=$(largest $(for f in "$work"/cube/sunset_half_zip_*.exr; do stat "$f" Max; done))
python3 -c "import sys; sys.exit(0 if $faces_max > 100 and $faces_max <= $source_max * 1.001 else 1)"
ok "the faces keep the sun's range (max $faces_max, source $source_max), nothing clipped" $?
iinfo -v "$work/cube/sunset_half_zip_front.exr" | grep -q "half" ; ok "EXR faces stored as half" $?
python3 -c "import sys; sys.exit(0 if $(largest $(for f in "$work"/cube/sunset_sky_*.exr; do stat "$f" Max; done)) > 1 else 1)"
ok "the .hdr panorama's faces keep values above 1" $?
[[ $(ffprobe -v error -show_entries stream=width,height -of csv=p=0 "$work/cube/previews/sunset_half_zip_front.exr.jpg") == 128,128 ]]
ok "a preview has its face's size" $?

# Round trip in float: faces (float, piz) back to an equirect of the source's size.
check "EXR faces as float with piz" 0 "$gpuproc" "${st[@]}" "$exr" --set mode=cubemap --set output.format=exr \
  --set output.exr.type=float --set output.exr.compression=piz --set cubemap.face_size=256 --set output.dir="$work/f"
iinfo -v "$work/f/sunset_half_zip_front.exr" | grep -q 'float' && iinfo -v "$work/f/sunset_half_zip_front.exr" |
  grep -q 'compression: "piz"'
ok "float samples, piz compression" $?
mkdir -p "$work/faces/pano"
for face in right left up down front back; do cp "$work/f/sunset_half_zip_$face.exr" "$work/faces/pano/pano_$face.exr"; done
check "the faces back to an equirect" 0 "$gpuproc" "${st[@]}" "$work/faces/pano" --set mode=equirect_from_cubemap \
  --set cubemap.layout=faces --set output.format=exr --set output.exr.type=float --set equirect.width=512 \
  --set output.name=round_trip.exr --set output.dir="$work/rt"
before=$(stat $exr Avg) after=$(stat "$work/rt/round_trip.exr" Avg)
python3 -c "
import sys
b = [float(v) for v in '$before'.split()]; a = [float(v) for v in '$after'.split()]
sys.exit(0 if all(abs(x / y - 1) < 0.02 for x, y in zip(a, b)) else 1)"
ok "round trip keeps the mean radiance within 2% per channel ($before -> $after)" $?
python3 -c "import sys; sys.exit(0 if $(largest "$(stat "$work/rt/round_trip.exr" Max)") > 100 else 1)"
ok "round trip keeps values far above 1" $?

check "views as Radiance .hdr" 0 "$gpuproc" "${st[@]}" "$hdr" --set output.format=hdr --set views.width=64 \
  --set views.height=64 --set output.dir="$work/rgbe"
[[ $(ls "$work"/rgbe/*.hdr | wc -l) -eq 8 ]] && iinfo "$work/rgbe/sunset_sky_yaw000.hdr" | grep -q "float hdr"
ok "8 .hdr views" $?

# Refusals: an HDR input with an 8-bit format, an EXR without R, G, B; the JPEG beside them done.
oiiotool "$exr" --ch Z=R -o "$work/depth.exr"
check "HDR input with jpg output fails alone" 1 "$gpuproc" "${st[@]}" "$exr" data-samples/stitch/equirect.jpg \
  --set views.width=64 --set views.height=64 --set output.dir="$work/clip" --report "$work/clip.json"
json_check "the report names the file and /output/format" "$work/clip.json" \
  "any(r['status']=='failed' and 'sunset_half_zip.exr' in r['error']['message'] and '/output/format exr or hdr' in r['error']['message'] for r in j['item_records']) and j['items']['succeeded']==1"
[[ -z $(ls "$work"/clip/sunset_half_zip_* 2>/dev/null) && -s $work/clip/equirect_yaw000.jpg ]]
ok "nothing of the refused input, the JPEG's views" $?
check "EXR without R, G, B fails alone" 1 "$gpuproc" "${st[@]}" "$work/depth.exr" "$exr" --set output.format=exr \
  --set views.width=64 --set views.height=64 --set output.dir="$work/norgb" --report "$work/norgb.json"
json_check "the report names the file and its channel" "$work/norgb.json" \
  "any(r['status']=='failed' and 'depth.exr' in r['error']['message'] and 'no R, G, B channels' in r['error']['message'] for r in j['item_records']) and j['items']['succeeded']==1"
check "previews of 8-bit outputs: a usage error" 2 "$gpuproc" "${st[@]}" "$exr" --set output.preview.enabled=true \
  --set output.dir="$work/usage"
expect_text "it names the field" "$work/stderr" "/output/preview/enabled"

echo "stitch_hdr: $passes passed, $failures failed"
[[ $failures -eq 0 ]]
