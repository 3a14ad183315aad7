#!/usr/bin/env bash
# Batches that never lose or hide work (issue 22), checked end to end on the CPU path: output
# collisions across and inside inputs for every subcommand (exit 2 before any work) and the ways
# out ({parent}, output.mirror_inputs); no stub under a final name after a failure and --resume
# trusting only completion records; SIGINT/SIGTERM mid-batch (report, no temporaries, exit
# 130/143, resume byte-exact); an unwritable --report; the small wrong results of point 9.
# usage: batch_safety.sh GPUPROC_BINARY SOURCE_DIR
set -uo pipefail
gpuproc=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$src/tests/cli/checks.sh"
cd "$src"
models=${GPUPROC_MODELS:-.models}
no_temporaries() {  # no_temporaries NAME DIR
  local left
  left=$(find "$2" -name '.*.part-*' 2>/dev/null)
  [[ -z $left ]]; ok "$1: no temporaries ($left)" $?
}

# ---- 1. Output collisions: same-stem inputs in two folders, for every subcommand -----------------
mkdir -p "$work/exr/shot_a" "$work/exr/shot_b"
cp data-samples/exr/sunset_half_zip.exr "$work/exr/shot_a/frame_0001.exr"
cp data-samples/exr/noon_float_piz.exr "$work/exr/shot_b/frame_0001.exr"
tm=(tonemap-exr --config configs/tonemap-exr.json --device cpu --progress none)
check "tonemap same stems collide" 2 "$gpuproc" "${tm[@]}" "$work/exr" --set input.recursive=true --set output.dir="$work/tm-x"
expect_text "tonemap collision names both inputs" "$work/stderr" "shot_a/frame_0001.exr and $work/exr/shot_b/frame_0001.exr"
expect_text "tonemap collision names the template" "$work/stderr" '/output/name = "{stem}.{ext}"'
expect_text "tonemap collision names the way out" "$work/stderr" "mirror_inputs"
[[ ! -e $work/tm-x ]]; ok "tonemap collision: nothing written" $?
check "tonemap collision in a dry run" 2 "$gpuproc" "${tm[@]}" "$work/exr" --set input.recursive=true --dry-run --set output.dir="$work/tm-x"
check "tonemap mirror_inputs" 0 "$gpuproc" "${tm[@]}" "$work/exr" --set input.recursive=true --set output.mirror_inputs=true \
  --set mip.enabled=true --set output.dir="$work/tm-mirror" --report "$work/tm-mirror.json"
json_check "tonemap mirror: every output listed exists" "$work/tm-mirror.json" \
  "j['items']['succeeded']==2 and all(__import__('os').path.exists(f) for f in j['outputs']['files'])"
[[ -s $work/tm-mirror/shot_a/frame_0001.png && -s $work/tm-mirror/shot_b/frame_0001_mip8.png ]]; ok "tonemap mirror: per-shot folders" $?
check "tonemap {parent} in the names" 0 "$gpuproc" "${tm[@]}" "$work/exr" --set input.recursive=true \
  --set 'output.name={parent}_{stem}.{ext}' --set 'mip.name={parent}_{stem}_mip{level}.{ext}' \
  --set 'thumbnail.name={parent}_{stem}_thumb.jpg' --set output.dir="$work/tm-parent"
[[ -s $work/tm-parent/shot_a_frame_0001.png && -s $work/tm-parent/shot_b_frame_0001.png ]]; ok "tonemap {parent} names" $?
# Inside one input.
check "tonemap mip.name without {level}" 2 "$gpuproc" "${tm[@]}" data-samples/exr/sunset_half_zip.exr --set mip.enabled=true \
  --set 'mip.name={stem}_mip.png' --set output.dir="$work/tm-x"
expect_text "mip.name needs {level}" "$work/stderr" "{level}"
check "tonemap thumbnail named as the image" 2 "$gpuproc" "${tm[@]}" data-samples/exr/sunset_half_zip.exr \
  --set thumbnail.size=32 --set 'thumbnail.name={stem}.png' --set output.dir="$work/tm-x"
expect_text "thumbnail collision says twice" "$work/stderr" "twice"
check "tonemap output replacing its input" 2 "$gpuproc" "${tm[@]}" "$work/exr/shot_a/frame_0001.exr" \
  --set output.format=tif --set 'output.name={stem}.exr' --set output.dir="$work/exr/shot_a"

pnm=(segment-pnm --config configs/segment-pnm.json --device cpu --progress none)
mkdir -p "$work/pnm/a" "$work/pnm/b"
ln -s "$(pwd)/data-samples/pnm/foam" "$work/pnm/a/foam"
ln -s "$(pwd)/data-samples/pnm/foam" "$work/pnm/b/foam"
check "pnm same series names collide" 2 "$gpuproc" "${pnm[@]}" "$work/pnm/a/foam" "$work/pnm/b/foam" --set output.dir="$work/pnm-x"
expect_text "pnm collision names both" "$work/stderr" "$work/pnm/b/foam"
check "pnm '..' in the name is a usage error" 2 "$gpuproc" "${pnm[@]}" --set 'output.name=../{stem}' --set output.dir="$work/pnm-x"
[[ ! -e $work/pnm-x ]]; ok "pnm: nothing written" $?

st=(stitch-360 --config configs/stitch-360.json --device cpu --progress none --set views.width=64 --set views.height=64)
mkdir -p "$work/pano/a" "$work/pano/b"
cp data-samples/stitch/equirect.jpg "$work/pano/a/pano.jpg"
cp data-samples/stitch/equirect.jpg "$work/pano/b/pano.jpg"
check "stitch same stems collide" 2 "$gpuproc" "${st[@]}" "$work/pano/a/pano.jpg" "$work/pano/b/pano.jpg" --set output.dir="$work/st-x"
check "stitch mirror_inputs" 0 "$gpuproc" "${st[@]}" "$work/pano/a/pano.jpg" "$work/pano/b/pano.jpg" \
  --set output.mirror_inputs=true --set output.dir="$work/st-mirror"
python3 - "$work/st-mirror/cameras.json" <<'PY'; ok "stitch rig: 2 captures of 8 views, 16 names" $?
import json, sys
j = json.load(open(sys.argv[1]))
names = [n for c in j["captures"] for n in c["images"]]
assert len(j["captures"]) == 2 and len(names) == 16 and len(set(names)) == 16, names
PY
# Each view in two folders (a/yaw000/, b/yaw000/): COLMAP would make two cameras of it, so no rig
# configuration, and the report and a warning say why.
[[ ! -e $work/st-mirror/rig_config.json ]]; ok "stitch mirror_inputs: no rig_config.json" $?
expect_text "stitch mirror_inputs: the warning says why" "$work/stderr" "lie in several folders"

sb=(segment-body --config configs/segment-body.json --device cpu --progress none)
if [[ -f $models/selfie_segmentation.tflite ]]; then
  mkdir -p "$work/img/a" "$work/img/b"
  cp data-samples/stitch/equirect.jpg "$work/img/a/person.jpg"
  cp data-samples/stitch/dual_fisheye.jpg "$work/img/b/person.jpg"
  check "segment-body same stems collide" 2 "$gpuproc" "${sb[@]}" "$work/img/a/person.jpg" "$work/img/b/person.jpg" \
    --set output.dir="$work/sb-x"
  check "segment-body rgba named as the mask" 2 "$gpuproc" "${sb[@]}" "$work/img/a/person.jpg" --set output.rgba_png.enabled=images \
    --set 'output.rgba_png.name={stem}_mask.png' --set output.dir="$work/sb-x"
  expect_text "rgba over mask says twice" "$work/stderr" "twice"
  check "segment-body mirror_inputs" 0 "$gpuproc" "${sb[@]}" "$work/img/a/person.jpg" "$work/img/b/person.jpg" \
    --set output.mirror_inputs=true --set output.dir="$work/sb-mirror"
  [[ -s $work/sb-mirror/a/person_mask.png && -s $work/sb-mirror/b/person_mask.png ]]; ok "segment-body mirror: both masks" $?
else
  echo "segment-body: skipped (no models in $models)"
fi

tf=(track-faces --config configs/track-faces.json --device cpu --progress none)
if [[ -f $models/face_landmark.tflite && -f $models/face_detection_short_range.tflite ]]; then
  mkdir -p "$work/cams/a" "$work/cams/b"
  cp data-samples/faces/cam_front.mp4 "$work/cams/a/cam.mp4"
  cp data-samples/faces/cam_mirror.mp4 "$work/cams/b/cam.mp4"
  check "track-faces same camera names refused" 2 "$gpuproc" "${tf[@]}" "$work/cams/a/cam.mp4" "$work/cams/b/cam.mp4" \
    --set output.dir="$work/tf-x"
fi

# ---- 3. A failed run leaves no stub; --resume trusts completion records, not files --------------
if [[ -f $models/face_landmark.tflite && -f $models/face_detection_short_range.tflite ]]; then
  head -c 3000 "$models/face_landmark.tflite" >"$work/broken.tflite"
  check "track-faces with a broken model" 2 "$gpuproc" "${tf[@]}" data-samples/faces/cam_front.mp4 \
    --set landmarks.path="$work/broken.tflite" --set output.dir="$work/tf-stub"
  left=$(find "$work/tf-stub" -type f ! -path '*/.gpuproc/*' 2>/dev/null)
  [[ -z $left ]]; ok "track-faces failure leaves no stub ($left)" $?
  check "track-faces --resume with the right model does the work" 0 "$gpuproc" "${tf[@]}" data-samples/faces/cam_front.mp4 \
    --set output.dir="$work/tf-stub" --resume --report "$work/tf-stub.json"
  json_check "track-faces resume processed the camera" "$work/tf-stub.json" \
    "j['items']['succeeded']==1 and j['items']['skipped_complete']==0"
  [[ $(wc -l <"$work/tf-stub/cam_front.jsonl") -eq 120 ]]; ok "track-faces results complete" $?
  # A preview has the camera's frame rate: a 24 fps camera's preview lasts as long as the camera.
  ffmpeg -nostdin -v error -i data-samples/faces/cam_front.mp4 -vf setpts=N/24/TB -r 24 -c:v libx264 -preset ultrafast \
    "$work/cam24.mp4"
  check "track-faces 24 fps preview" 0 "$gpuproc" "${tf[@]}" "$work/cam24.mp4" --set output.preview.enabled=true \
    --set output.dir="$work/tf-24"
  [[ $(ffprobe -v error -select_streams v -show_entries stream=r_frame_rate -of csv=p=0 "$work/tf-24/cam24_preview.mp4") == 24/1 ]]
  ok "track-faces preview at 24 fps" $?
fi
# A stale file under a final name is not taken for a finished item.
check "tonemap one image" 0 "$gpuproc" "${tm[@]}" data-samples/exr/sunset_half_zip.exr --set output.dir="$work/tm-stub"
printf '' >"$work/tm-stub/noon_float_piz.png"
check "tonemap resume with a stub" 0 "$gpuproc" "${tm[@]}" data-samples/exr/sunset_half_zip.exr data-samples/exr/noon_float_piz.exr \
  --set output.dir="$work/tm-stub" --resume --report "$work/tm-stub.json"
json_check "resume: the stub's item was done, the finished one skipped" "$work/tm-stub.json" \
  "j['items']['succeeded']==1 and j['items']['skipped_complete']==1"
[[ -s $work/tm-stub/noon_float_piz.png ]]; ok "the stub was replaced" $?
if [[ -f $models/selfie_segmentation.tflite ]]; then
  # A video that fails part-way leaves none of its per-frame PNGs.
  head -c 20000 data-samples/video/moving_shapes.mp4 >"$work/cut.mp4"
  check "segment-body truncated video" 1 "$gpuproc" "${sb[@]}" "$work/cut.mp4" --set output.mask_png.enabled=all \
    --set output.dir="$work/sb-cut"
  left=$(find "$work/sb-cut" -type f ! -path '*/.gpuproc/*' 2>/dev/null)
  [[ -z $left ]]; ok "segment-body failed video leaves no frame files ($left)" $?
  # Bad inputs of every kind in one batch (issue 25): each fails alone, naming its file; the good
  # video and the 10000x10000 photo are done; the failed ones leave nothing.
  mkdir -p "$work/bad"
  ffmpeg -nostdin -v error -f lavfi -i sine=frequency=440:duration=1 -c:a aac "$work/bad/audio_only.mp4"
  : >"$work/bad/empty.mp4"
  printf 'YUV4MPEG2 W64 H64 F10:1 Ip A1:1 C420jpeg\n' >"$work/bad/no_frames.y4m"  # a video stream, no frame
  ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=10000x10000:rate=1 -frames:v 1 -q:v 5 "$work/bad/huge.jpg"
  check "segment-body bad inputs" 1 "$gpuproc" "${sb[@]}" "$work/bad/audio_only.mp4" "$work/bad/empty.mp4" \
    "$work/bad/no_frames.y4m" "$work/cut.mp4" "$work/bad/huge.jpg" data-samples/video/moving_shapes.mp4 \
    --set output.mask_png.enabled=all --set output.dir="$work/sb-bad" --report "$work/sb-bad.json"
  expect_text "segment-body: audio only" "$work/stderr" "$work/bad/audio_only.mp4: open: no video stream"
  expect_text "segment-body: empty file" "$work/stderr" "$work/bad/empty.mp4: open:"
  expect_text "segment-body: no frames" "$work/stderr" "$work/bad/no_frames.y4m: decode: no frame could be decoded"
  expect_text "segment-body: truncated" "$work/stderr" "$work/cut.mp4: "
  json_check "segment-body bad inputs: 4 failed, the video and the huge photo done" "$work/sb-bad.json" \
    "j['items']['failed']==4 and j['items']['succeeded']==2"
  left=$(cd "$work/sb-bad" && find . -type f ! -path './.gpuproc/*' | sort | grep -v -e '^./moving_shapes' -e '^./huge_mask.png$')
  [[ -z $left ]]; ok "segment-body bad inputs leave nothing of theirs ($left)" $?
  [[ $(python3 -c "import struct,sys; d=open(sys.argv[1],'rb').read(24); print(*struct.unpack('>II', d[16:24]))" \
    "$work/sb-bad/huge_mask.png") == "10000 10000" ]]; ok "segment-body: the 10000x10000 mask" $?
  rm -f "$work/bad/huge.jpg"
  # A model file that is not the expected model: a usage error naming the field and the file, before any work.
  if [[ -f $models/face_detection_short_range.tflite ]]; then
    check "segment-body: a detector as the selfie model" 2 "$gpuproc" "${sb[@]}" data-samples/video/moving_shapes.mp4 \
      --set model.path="$models/face_detection_short_range.tflite" --set output.dir="$work/sb-model"
    expect_text "segment-body: wrong model named" "$work/stderr" \
      "/model/path: $models/face_detection_short_range.tflite is not a selfie segmentation model"
    [[ ! -e $work/sb-model ]]; ok "segment-body wrong model: nothing written" $?
  fi
  if [[ -f $models/pose_detection.tflite && -f $models/pose_landmark_lite.tflite ]]; then
    check "segment-body: the selfie model as a pose model" 2 "$gpuproc" "${sb[@]}" data-samples/video/moving_shapes.mp4 \
      --set model.variant=pose_lite --set model.path="$models/selfie_segmentation.tflite" --set output.dir="$work/sb-model"
    expect_text "segment-body: not a BlazePose landmark model" "$work/stderr" "is not a BlazePose landmark model"
    check "segment-body: a landmark model as the person detector" 2 "$gpuproc" "${sb[@]}" data-samples/video/moving_shapes.mp4 \
      --set model.variant=pose_lite --set pose.detector_path="$models/pose_landmark_lite.tflite" --set output.dir="$work/sb-model"
    expect_text "segment-body: not the person detector" "$work/stderr" \
      "/pose/detector_path: $models/pose_landmark_lite.tflite is not BlazePose's person detector"
  fi
fi

# ---- 6. SIGINT / SIGTERM mid-batch ----------------------------------------------------------------
mkdir -p "$work/many"
for k in $(seq -w 1 12); do for f in data-samples/exr/sunset_half_zip.exr data-samples/exr/noon_float_piz.exr; do
  cp "$f" "$work/many/c${k}_$(basename "$f")"; done; done
batch=(tonemap-exr --config configs/tonemap-exr.json --device cpu "$work/many" --set thumbnail.size=64 --set mip.enabled=true)
check "clean run of the batch" 0 "$gpuproc" "${batch[@]}" --progress none --set output.dir="$work/sig-clean"
interrupt() {  # interrupt SIGNAL OUT [EXTRA...]: starts the batch, signals it after its first item; sets rc
  local signal=$1 out=$2
  shift 2
  "$gpuproc" "${batch[@]}" --threads 1 --set run.load_threads=1 --set run.save_threads=1 --progress json \
    --set output.dir="$out" --report "$out.json" "$@" 2>"$out.log" &
  local pid=$!
  for _ in $(seq 1 600); do grep -q '"event":"item"' "$out.log" 2>/dev/null && break; sleep 0.05; done
  kill -"$signal" "$pid"
  [[ ${SECOND_SIGNAL:-0} == 1 ]] && { sleep 0.05; kill -"$signal" "$pid" 2>/dev/null; }
  wait "$pid"
  rc=$?
}
for sig in TERM INT; do
  expected=$([[ $sig == TERM ]] && echo 143 || echo 130)
  interrupt "$sig" "$work/sig-$sig"
  ok "SIG$sig: exit $expected (got $rc)" $((rc != expected))
  json_check "SIG$sig: report says cancelled, with per-item records" "$work/sig-$sig.json" \
    "j['status']=='cancelled' and j['cancelled'] and j['signal']=='SIG$sig' and j['items']['succeeded']>=1 and j['items']['not_started']+j['items']['cancelled']>=1 and len(j['item_records'])==24"
  json_check "SIG$sig: finished items' outputs listed and present" "$work/sig-$sig.json" \
    "all(__import__('os').path.exists(f) for r in j['item_records'] if r['status']=='ok' for f in r['outputs'])"
  expect_text "SIG$sig: stopping message" "$work/sig-$sig.log" "SIG$sig: stopping"
  python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$work/sig-$sig.log"; ok "SIG$sig: progress is pure JSON lines" $?
  no_temporaries "SIG$sig" "$work/sig-$sig"
  check "SIG$sig: resume" 0 "$gpuproc" "${batch[@]}" --progress none --set output.dir="$work/sig-$sig" --resume \
    --report "$work/sig-$sig-resume.json"
  json_check "SIG$sig: resume skipped the finished items" "$work/sig-$sig-resume.json" \
    "j['items']['skipped_complete']>=1 and j['items']['skipped_complete']+j['items']['succeeded']==24"
  json_check "SIG$sig: the report gives the peak host memory" "$work/sig-$sig-resume.json" \
    "j['memory']['host_peak_rss_bytes'] > 1000000"
  check "SIG$sig: after resume, byte-exact with a clean run" 0 diff -r -x .gpuproc "$work/sig-clean" "$work/sig-$sig"
done
# A second signal, or no grace at all, abandons the running items at once: still a report, no temporaries.
SECOND_SIGNAL=1 interrupt TERM "$work/sig-twice"
ok "second SIGTERM: exit 143 (got $rc)" $((rc != 143))
json_check "second SIGTERM: report written" "$work/sig-twice.json" "j['status']=='cancelled'"
no_temporaries "second SIGTERM" "$work/sig-twice"
interrupt TERM "$work/sig-now" --stop-timeout 0
ok "--stop-timeout 0: exit 143 (got $rc)" $((rc != 143))
json_check "--stop-timeout 0: report lists what was not finished" "$work/sig-now.json" \
  "j['status']=='cancelled' and j['items']['cancelled']>=1"
no_temporaries "--stop-timeout 0" "$work/sig-now"
check "abandoned run: resume" 0 "$gpuproc" "${batch[@]}" --progress none --set output.dir="$work/sig-now" --resume
check "abandoned run: after resume, byte-exact" 0 diff -r -x .gpuproc "$work/sig-clean" "$work/sig-now"
# merge-reports: a cancelled shard is named and the merge is not ok.
"$gpuproc" "${batch[@]}" --progress none --set output.dir="$work/sig-shards" --shard 0/2 --report "$work/shard0.json" >/dev/null 2>&1
cp "$work/sig-TERM.json" "$work/shard1.json"
python3 - "$work/shard1.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); j["shard"] = "1/2"; json.dump(j, open(sys.argv[1], "w"))
PY
check "merge-reports with a cancelled shard" 1 "$gpuproc" merge-reports "$work/shard0.json" "$work/shard1.json" -o "$work/merged.json"
expect_text "merge-reports names the cancelled shard" "$work/stderr" "was stopped by SIGTERM"
json_check "merged status cancelled" "$work/merged.json" "j['status']=='cancelled'"

# ---- 8. An unwritable --report fails before any work ------------------------------------------------
check "unwritable report" 2 "$gpuproc" "${tm[@]}" data-samples/exr/sunset_half_zip.exr --set output.dir="$work/rep-x" \
  --report /proc/gpuproc-report.json
expect_text "unwritable report named" "$work/stderr" "--report /proc/gpuproc-report.json"
[[ ! -e $work/rep-x ]]; ok "unwritable report: nothing written" $?

# ---- 9. Smaller ones --------------------------------------------------------------------------------
long=$(printf 'n%.0s' $(seq 1 236))
cp data-samples/exr/sunset_half_zip.exr "$work/$long.exr"
check "a 240-character name" 0 "$gpuproc" "${tm[@]}" "$work/$long.exr" --set output.dir="$work/long"
[[ -s $work/long/$long.png ]]; ok "240-character output written" $?
check "output.name without an extension" 2 "$gpuproc" "${tm[@]}" --set 'output.name={stem}' --set output.dir="$work/x"
expect_text "no extension: the reason" "$work/stderr" "no extension"
check "output.name with another format's extension" 2 "$gpuproc" "${tm[@]}" --set 'output.name={stem}.jpg' --set output.dir="$work/x"
expect_text "mismatched extension: names the format" "$work/stderr" "/output/format is png"
check "stitch output.name with another extension" 2 "$gpuproc" "${st[@]}" --set 'output.name={stem}_{view}.png' --set output.dir="$work/x"
mkdir -p "$work/dither"
cp data-samples/exr/sunset_half_zip.exr "$work/dither/m.exr"
check "dither: alone" 0 "$gpuproc" "${tm[@]}" "$work/dither/m.exr" --set output.dir="$work/dither-1"
cp data-samples/exr/noon_float_piz.exr "$work/dither/a.exr"
check "dither: with another file before it" 0 "$gpuproc" "${tm[@]}" "$work/dither" --set output.dir="$work/dither-2"
check "dither does not depend on the batch" 0 cmp "$work/dither-1/m.png" "$work/dither-2/m.png"
# A tiled MIP EXR holds linear light (its main level equals the PNG decoded from sRGB), tagged so.
check "tiled MIP exr" 0 "$gpuproc" "${tm[@]}" data-samples/exr/sunset_half_zip.exr --set output.alpha=drop --set mip.enabled=true --set mip.layout=tiled \
  --set 'mip.tiled_name={stem}.mip.exr' --set output.dir="$work/mip-exr"
oiiotool --info -v "$work/mip-exr/sunset_half_zip.mip.exr" >"$work/mip-info.txt" 2>&1
expect_text "tiled MIP exr tagged linear" "$work/mip-info.txt" 'oiio:ColorSpace: "Linear"'
exr_mean=$(oiiotool "$work/mip-exr/sunset_half_zip.mip.exr" --ch R,G,B --printstats 2>/dev/null | awk '/Stats Avg/ {print $3; exit}')
png_mean=$(oiiotool "$work/mip-exr/sunset_half_zip.png" --ch R,G,B --colorconvert sRGB linear --printstats 2>/dev/null | awk '/Stats Avg/ {print $3; exit}')
python3 -c "import sys; e, p = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if abs(e - p) <= 0.01 * max(p, 1e-3) + 1e-3 else 1)" \
  "${exr_mean:-nan}" "${png_mean:-nan}"
ok "tiled MIP exr is the PNG in linear light (exr $exr_mean, png $png_mean)" $?
check "huge --gpu-memory-limit" 2 "$gpuproc" "${tm[@]}" --gpu-memory-limit 99999999999999999999T --set output.dir="$work/x"
check "unknown subcommand" 2 "$gpuproc" frobnicate
expect_text "unknown subcommand named" "$work/stderr" 'unknown subcommand "frobnicate"'
check "misspelt subcommand" 2 "$gpuproc" tonemap-ex
expect_text "misspelt subcommand: did you mean" "$work/stderr" 'did you mean "tonemap-exr"'
if ! nvidia-smi -L >/dev/null 2>&1 || [[ $(nvidia-smi -L | wc -l) -lt 8 ]]; then
  check "a missing GPU" 3 "$gpuproc" tonemap-exr --config configs/tonemap-exr.json --device cuda:7 --progress json \
    --set output.dir="$work/x"
  ! grep -q '"item_failed"\|worker failed' "$work/stderr"; ok "a missing GPU blames no input" $?
fi
mkdir -p "$work/fail"
cp data-samples/exr/sunset_half_zip.exr "$work/fail/a.exr"
head -c 5000 data-samples/exr/noon_float_piz.exr >"$work/fail/b.exr"
for k in c d e f; do cp data-samples/exr/sunset_half_zip.exr "$work/fail/$k.exr"; done
check "on_error fail" 1 "$gpuproc" "${tm[@]}" "$work/fail" --set run.on_error=fail --set run.load_threads=1 --set run.batch=1 \
  --set output.dir="$work/fail-out" --report "$work/fail.json"
expect_text "on_error fail says what was not done" "$work/stderr" "run.on_error is fail"
json_check "on_error fail: counts add up" "$work/fail.json" \
  "j['items']['failed']==1 and j['items']['succeeded']+j['items']['failed']+j['items']['not_started']+j['items']['cancelled']==6"

echo "batch_safety: $passes passed, $failures failed"
((failures == 0))
