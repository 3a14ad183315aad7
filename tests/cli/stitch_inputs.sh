#!/usr/bin/env bash
# stitch-360's inputs as 360 users have them (issue 27), CPU path: a top/bottom stereo panorama
# gives each eye's views equal to those of that eye given alone, both eyes named apart; a VR180
# side-by-side pair gives front views like the panoramas' and black behind; a square
# panorama read as mono fails alone, naming the file and the setting, while the rest of the batch
# is done; a cubemap as six face files in a folder gives the same equirect as the same faces in
# v360's 3x2 sheet; a folder missing a face fails naming it; the rig files list every still and
# every selected video frame, whichever shard or --resume run did them. Videos: frame selection, a
# frame against the same frame as a still, bad videos (truncated, sound only, a frame size changing
# part-way) each failing alone, and 360 metadata in the file (stereo layout) checked against the job;
# on a GPU machine, select sharpest scored on the GPU against the CPU.
# usage: stitch_inputs.sh GPUPROC_BINARY SOURCE_DIR
set -uo pipefail
gpuproc=$1
src=$2
work=$(mktemp -d)
trap 'if [[ -n ${KEEP:-} ]]; then echo "kept: $work"; else rm -rf "$work"; fi' EXIT
source "$src/tests/cli/checks.sh"
cd "$src"
# Flat names (the rig's folder per view is tests/cli/colmap_rig.sh's): the file names below say it all.
st=(stitch-360 -c configs/stitch-360.json --device cpu --progress none --set views.width=192 --set views.height=192
  --set output.format=png --set output.rig=false --set "output.name={stem}_{view}.{ext}"
  --set "output.video_name={stem}_{frame:06}_{time}s_{view}.{ext}")
# The eyes: the sample panorama and its mirror image, as PNG (exact pixels), and the pair stacked.
ffmpeg -nostdin -v error -i data-samples/stitch/equirect.jpg "$work/left.png"
ffmpeg -nostdin -v error -i data-samples/stitch/equirect.jpg -vf hflip "$work/right.png"
ffmpeg -nostdin -v error -i "$work/left.png" -i "$work/right.png" -filter_complex vstack "$work/pair.png"
check "mono views of each eye" 0 "$gpuproc" "${st[@]}" "$work/left.png" "$work/right.png" --set output.dir="$work/mono"
check "left eye of the pair" 0 "$gpuproc" "${st[@]}" "$work/pair.png" --set input.stereo=top_bottom --set output.dir="$work/l"
check "right eye of the pair" 0 "$gpuproc" "${st[@]}" "$work/pair.png" --set input.stereo=top_bottom --set input.eye=right \
  --set output.dir="$work/r"
same=0
for f in "$work"/mono/left_*.png; do cmp -s "$f" "$work/l/pair_${f##*/left_}" || same=1; done
ok "the left eye's views equal the left panorama's" $same
same=0
for f in "$work"/mono/right_*.png; do cmp -s "$f" "$work/r/pair_${f##*/right_}" || same=1; done
ok "the right eye's views equal the right panorama's" $same
check "both eyes" 0 "$gpuproc" "${st[@]}" "$work/pair.png" --set input.stereo=top_bottom --set input.eye=both \
  --set output.dir="$work/both"
[[ $(ls "$work"/both/pair_*_left.png | wc -l) -eq 8 && $(ls "$work"/both/pair_*_right.png | wc -l) -eq 8 ]]
ok "both eyes: 8 views each, the eye in the name" $?
cmp -s "$work/both/pair_yaw090_right.png" "$work/r/pair_yaw090.png"; ok "both eyes: the right eye's view as alone" $?
# VR180: two square 180-degree eyes side by side (made with v360's hequirect from the panoramas).
ffmpeg -nostdin -v error -i "$work/left.png" -vf v360=e:hequirect:w=512:h=512 "$work/left180.png"
ffmpeg -nostdin -v error -i "$work/right.png" -vf v360=e:hequirect:w=512:h=512 "$work/right180.png"
ffmpeg -nostdin -v error -i "$work/left180.png" -i "$work/right180.png" -filter_complex hstack "$work/vr180.png"
check "VR180 side by side, both eyes" 0 "$gpuproc" "${st[@]}" "$work/vr180.png" --set input.stereo=side_by_side \
  --set input.eye=both --set output.dir="$work/vr180"
psnr() {  # psnr A B: ffmpeg's average PSNR (dB) of two images
  ffmpeg -nostdin -i "$1" -i "$2" -lavfi psnr -f null - 2>&1 | sed -n 's/.*average:\([0-9.inf]*\).*/\1/p' | tail -1
}
front=$(psnr "$work/vr180/vr180_yaw000_left.png" "$work/mono/left_yaw000.png")
python3 -c "import sys; sys.exit(0 if float('$front') >= 25 else 1)"
ok "VR180: the left eye's front view matches the panorama's (PSNR $front dB)" $?
python3 -c "import sys; sys.exit(0 if float('$(psnr "$work/vr180/vr180_yaw000_right.png" "$work/mono/right_yaw000.png")') >= 25 else 1)"
ok "VR180: the right eye's front view matches the mirrored panorama's" $?
ffmpeg -nostdin -v error -i "$work/vr180/vr180_yaw180_left.png" -f rawvideo -pix_fmt rgb24 - |
  python3 -c "import sys; b = sys.stdin.buffer.read(); sys.exit(0 if b and max(b) == 0 else 1)"
ok "VR180: the view behind the eye is black" $?
# The pair read as one panorama: refused alone, naming the file and the setting; the other input done.
check "a square panorama read as mono fails alone" 1 "$gpuproc" "${st[@]}" "$work/pair.png" "$work/left.png" \
  --set output.dir="$work/mixed" --report "$work/mixed.json"
json_check "the report names the file and /input/stereo" "$work/mixed.json" \
  "any(r['status']=='failed' and 'pair.png' in r['error']['message'] and '/input/stereo top_bottom' in r['error']['message'] for r in j['item_records']) and j['items']['succeeded']==1"
[[ ! -e $work/mixed/pair_yaw000.png && -s $work/mixed/left_yaw000.png ]]; ok "nothing of the refused input, the other's views" $?
# Cubemaps: the six faces as files in a folder, against the same faces in one 3x2 sheet.
cube=(stitch-360 -c configs/stitch-360.json --device cpu --progress none --set output.format=png --set cubemap.face_size=128)
check "six faces" 0 "$gpuproc" "${cube[@]}" --set mode=cubemap "$work/left.png" --set output.dir="$work/faces" \
  --set output.name="sky/{stem}_{view}.{ext}"
check "one 3x2 sheet" 0 "$gpuproc" "${cube[@]}" --set mode=cubemap --set cubemap.layout=3x2 "$work/left.png" \
  --set output.dir="$work/sheet" --set "output.name={stem}.{ext}"
check "equirect from the six files" 0 "$gpuproc" "${cube[@]}" --set mode=equirect_from_cubemap "$work/faces/sky" \
  --set output.dir="$work/eq_faces" --set "output.name={stem}.{ext}"
check "equirect from the sheet" 0 "$gpuproc" "${cube[@]}" --set mode=equirect_from_cubemap --set cubemap.layout=3x2 \
  "$work/sheet/left.png" --set output.dir="$work/eq_sheet" --set "output.name={stem}.{ext}"
cmp -s "$work/eq_faces/sky.png" "$work/eq_sheet/left.png"; ok "six face files give the sheet's equirect" $?
mkdir -p "$work/cubes/px_nz"
for f in px nx py ny pz; do cp "$work/faces/sky/left_$(case $f in px) echo right;; nx) echo left;; py) echo up;; ny) echo down;; pz) echo front;; esac).png" "$work/cubes/px_nz/cube_$f.png"; done
check "a folder without its back face" 1 "$gpuproc" "${cube[@]}" --set mode=equirect_from_cubemap "$work/cubes/px_nz" \
  --set output.dir="$work/eq_missing" --report "$work/missing.json"
json_check "the missing face is named" "$work/missing.json" \
  "'missing: back' in j['item_records'][0]['error']['message'] and j['item_records'][0]['status']=='failed'"
cp "$work/faces/sky/left_back.png" "$work/cubes/px_nz/cube_nz.png"
check "px..nz names" 0 "$gpuproc" "${cube[@]}" --set mode=equirect_from_cubemap "$work/cubes/px_nz" \
  --set output.dir="$work/eq_px" --set "output.name={stem}.{ext}"
cmp -s "$work/eq_px/px_nz.png" "$work/eq_sheet/left.png"; ok "px..nz files give the same equirect" $?

# Video inputs: a 2 s clip at 10 fps whose frames are blurred but for frames 3 and 14.
ffmpeg -nostdin -v error -i "$work/left.png" -vf scale=512:256 "$work/sharp.png"
ffmpeg -nostdin -v error -i "$work/sharp.png" -vf boxblur=4 "$work/blur.png"
for i in $(seq 0 19); do
  [[ $i == 3 || $i == 14 ]] && echo "file '$work/sharp.png'" || echo "file '$work/blur.png'"
  echo "duration 0.1"
done >"$work/frames.txt"
echo "file '$work/blur.png'" >>"$work/frames.txt"
ffmpeg -nostdin -v error -f concat -safe 0 -i "$work/frames.txt" -vf fps=10 -frames:v 20 -c:v libx264 -crf 10 \
  -pix_fmt yuv420p -g 20 "$work/clip.mp4"
vid=("${st[@]}" --set views.width=64 --set views.height=64)
frames_of() {  # frames_of FOLDER: the frame numbers of its yaw000 views
  ls "$1" | sed -n 's/^clip_\([0-9]*\)_[0-9.]*s_yaw000.png$/\1/p' | sed 's/^0*\([0-9]\)/\1/' | tr '\n' ' '
}
selects=("sharpest" "every --set input.video.every=7" "interval --set input.video.interval_s=0.5" \
  "all --set input.video.start_s=0.5 --set input.video.end_s=1.2")
expected=("3 14 " "0 7 14 " "0 5 10 15 " "5 6 7 8 9 10 11 ")
for k in "${!selects[@]}"; do
  rm -rf "$work/v"
  # shellcheck disable=SC2086
  "$gpuproc" "${vid[@]}" "$work/clip.mp4" --set input.video.select=${selects[$k]} --set output.dir="$work/v" >/dev/null 2>&1
  got=$(frames_of "$work/v")
  [[ $got == "${expected[$k]}" ]]; ok "video select ${selects[$k]%% *}: frames ${expected[$k]}(got $got)" $?
done
# A frame's views against the same frame as a still (decoded by ffmpeg: conversions may differ by a unit).
ffmpeg -nostdin -v error -i "$work/clip.mp4" -vf "select=eq(n\,14)" -frames:v 1 "$work/frame14.png"
"$gpuproc" "${vid[@]}" "$work/frame14.png" --set output.dir="$work/still14" >/dev/null 2>&1
"$gpuproc" "${vid[@]}" "$work/clip.mp4" --set input.video.select=sharpest --set output.dir="$work/v14" >/dev/null 2>&1
db=$(ffmpeg -nostdin -i "$work/v14/clip_000014_1.400s_yaw090.png" -i "$work/still14/frame14_yaw090.png" -lavfi psnr -f null - 2>&1 |
  sed -n 's/.*average:\([0-9.inf]*\).*/\1/p' | tail -1)
python3 -c "import sys; sys.exit(0 if float('$db') >= 40 else 1)"; ok "a video frame's views match the frame as a still (PSNR $db dB)" $?
# A 7 s clip with a key frame every second (x264: IDR pictures) decoded by three decoders at once,
# each on a part: the same files, byte for byte, as one decoder in order (select all and every).
ffmpeg -nostdin -v error -f lavfi -i "testsrc2=s=512x256:r=30" -t 7 -c:v libx264 -preset veryfast -crf 20 -g 30 \
  -pix_fmt yuv420p "$work/long.mp4"
for sel in "all" "every --set input.video.every=4"; do
  for d in 1 3; do
    # shellcheck disable=SC2086
    "$gpuproc" "${vid[@]}" "$work/long.mp4" --set input.video.select=$sel --set input.video.decoders=$d \
      --set output.dir="$work/parts$d" --report "$work/parts$d.json" >/dev/null 2>&1
  done
  json_check "decoders 3 (select ${sel%% *}): three parts, every frame decoded" "$work/parts3.json" \
    "j['extra']['videos'][0]['decoders'] == 3 and j['extra']['videos'][0]['frames_decoded'] == 210 and j['items']['succeeded'] == 1"
  [[ $(ls "$work/parts3" | wc -l) -eq $(ls "$work/parts1" | wc -l) && $(ls "$work/parts1" | wc -l) -gt 100 ]] &&
    diff -r "$work/parts1" "$work/parts3" >/dev/null
  ok "decoders 3 (select ${sel%% *}): the files of one decoder, byte for byte ($(ls "$work/parts3" | wc -l))" $?
  rm -rf "$work/parts1" "$work/parts3"
done
# Bad videos fail alone, leaving nothing; the still beside them is done.
ffmpeg -nostdin -v error -i "$work/clip.mp4" -c copy -movflags +faststart "$work/faststart.mp4"  # index first
head -c $(( $(stat -c %s "$work/faststart.mp4") * 6 / 10 )) "$work/faststart.mp4" >"$work/truncated.mp4"
ffmpeg -nostdin -v error -f lavfi -i sine=d=1 -c:a aac "$work/sound.mp4"
# A stream whose frame size changes part-way (two MPEG-TS segments of 2:1 frames, 512x256 then
# 256x128, one after the other: the decoder follows the new size).
ffmpeg -nostdin -v error -i "$work/clip.mp4" -frames:v 6 -c:v libx264 -pix_fmt yuv420p "$work/big.ts"
ffmpeg -nostdin -v error -i "$work/clip.mp4" -frames:v 6 -vf scale=256:128 -c:v libx264 -pix_fmt yuv420p \
  -output_ts_offset 0.6 "$work/small.ts"
cat "$work/big.ts" "$work/small.ts" >"$work/resized.ts"
check "bad videos fail alone" 1 "$gpuproc" "${vid[@]}" "$work/truncated.mp4" "$work/sound.mp4" "$work/resized.ts" \
  "$work/left.png" --set output.dir="$work/badv" --report "$work/badv.json" --set input.video.select=every \
  --set input.video.every=2
json_check "each bad video named, the still done" "$work/badv.json" \
  "sorted(r['status'] for r in j['item_records'])==['failed','failed','failed','ok'] and all(any(n in r['error']['message'] for n in ('truncated.mp4', 'sound.mp4', 'resized.ts')) for r in j['item_records'] if r['status']=='failed')"
json_check "the size change named: frame 6, 256x128 after 512x256" "$work/badv.json" \
  "any('resized.ts' in r['error']['message'] and 'frame 6 is 256x128, the frames before it 512x256' in r['error']['message'] for r in j['item_records'] if r['status']=='failed')"
[[ -z $(ls "$work/badv" | grep -E '^(truncated|sound|resized)_') && -s $work/badv/left_yaw000.png ]]
ok "nothing of the bad videos is left" $?
# A job of videos only opens its first video while the GPU starts: a first video that cannot be
# opened, or whose frames stop short, still fails alone.
check "bad videos fail alone (videos only)" 1 "$gpuproc" "${vid[@]}" "$work/sound.mp4" "$work/truncated.mp4" \
  "$work/clip.mp4" --set output.dir="$work/badvo" --report "$work/badvo.json" --set input.video.select=every \
  --set input.video.every=2
json_check "videos only: sound.mp4 and truncated.mp4 failed, clip.mp4 done" "$work/badvo.json" \
  "{r['input'].split('/')[-1]: r['status'] for r in j['item_records']} == {'sound.mp4': 'failed', 'truncated.mp4': 'failed', 'clip.mp4': 'ok'}"
[[ -z $(ls "$work/badvo" | grep -E '^(truncated|sound)_') && -n $(ls "$work/badvo" | grep -E '^clip_') ]]
ok "videos only: nothing of the bad videos is left, the good one written" $?
check "a truncated video first (videos only)" 1 "$gpuproc" "${vid[@]}" "$work/truncated.mp4" \
  --set output.dir="$work/badvt" --report "$work/badvt.json"
json_check "videos only: the truncated video failed, named" "$work/badvt.json" \
  "[r['status'] for r in j['item_records']] == ['failed'] and 'truncated.mp4' in j['item_records'][0]['error']['message']"

# 360 metadata in the file: a top/bottom stereo video (Matroska's StereoMode, and the same
# remuxed to MP4, whose st3d box FFmpeg writes at -strict unofficial) read as mono fails alone,
# naming /input/stereo; read as top_bottom it goes through and the report says what was found.
ffmpeg -nostdin -v error -i "$work/sharp.png" -i "$work/sharp.png" -filter_complex vstack=inputs=2,loop=2:1:0 -r 10 \
  -c:v libx264 -pix_fmt yuv420p -metadata:s:v:0 stereo_mode=top_bottom "$work/tb.mkv"
ffmpeg -nostdin -v error -i "$work/tb.mkv" -c copy -strict unofficial "$work/tb_mp4.mp4"
check "stereo metadata against a mono job" 1 "$gpuproc" "${vid[@]}" "$work/tb.mkv" "$work/tb_mp4.mp4" "$work/left.png" \
  --set output.dir="$work/meta" --report "$work/meta.json"
json_check "each stereo video fails naming /input/stereo top_bottom" "$work/meta.json" \
  "sorted(r['status'] for r in j['item_records'])==['failed','failed','ok'] and all('set /input/stereo top_bottom' in r['error']['message'] for r in j['item_records'] if r['status']=='failed')"
check "stereo metadata agreeing with the job" 0 "$gpuproc" "${vid[@]}" "$work/tb_mp4.mp4" --set input.stereo=top_bottom \
  --set output.dir="$work/meta2" --report "$work/meta2.json"
json_check "the report gives the stereo layout found" "$work/meta2.json" \
  "j['extra']['videos'][0]['metadata']['stereo']['layout']=='top and bottom' and j['extra']['videos'][0]['frames_selected']==j['extra']['videos'][0]['frames_decoded']>0"

# On a GPU (skipped, saying so, elsewhere): select sharpest scored on the GPU picks the CPU's frames,
# every frame scored there, and a frame's views match the CPU run's (PSNR >= 40 dB).
if "$gpuproc" info --json | python3 -c "import json,sys; sys.exit(0 if json.load(sys.stdin)['gpus'] else 1)"; then
  gvid=() prev=""
  for a in "${vid[@]}"; do [[ $prev == --device ]] && a=cuda:0; gvid+=("$a"); prev=$a; done  # vid's job on the GPU
  check "sharpest on the GPU" 0 "$gpuproc" "${gvid[@]}" "$work/clip.mp4" --set input.video.select=sharpest \
    --set output.dir="$work/vgpu" --report "$work/vgpu.json"
  got=$(frames_of "$work/vgpu")
  [[ $got == "3 14 " ]]; ok "GPU scores pick the CPU's frames: 3 14 (got $got)" $?
  json_check "every frame scored on the GPU" "$work/vgpu.json" \
    "j['extra']['videos'][0]['sharpness_on']=='GPU' and j['extra']['videos'][0]['frames_scored']==20"
  db=$(ffmpeg -nostdin -i "$work/vgpu/clip_000014_1.400s_yaw090.png" -i "$work/v14/clip_000014_1.400s_yaw090.png" -lavfi psnr \
    -f null - 2>&1 | sed -n 's/.*average:\([0-9.inf]*\).*/\1/p' | tail -1)
  # The GPU converts the frame's YUV with the frame kernels (bilinear chroma), the CPU path with
  # swscale's fast path: 42.5 dB apart on the H200, the same bound as a frame against its still.
  python3 -c "import sys; sys.exit(0 if float('$db') >= 40 else 1)"; ok "GPU frame views match the CPU's (PSNR $db dB)" $?
  # One GPU job of a JPEG still and two videos, JPEG views: the GPU workers made for the stills
  # serve each video's frames after them (set up once); the videos' frames need no JPEG decoder.
  ffmpeg -nostdin -v error -i "$work/left.png" -q:v 2 "$work/left.jpg"
  cp "$work/clip.mp4" "$work/clip2.mp4"
  check "a still and two videos in one GPU job, JPEG views" 0 "$gpuproc" "${gvid[@]}" "$work/left.jpg" "$work/clip.mp4" \
    "$work/clip2.mp4" --set input.video.select=every --set input.video.every=7 --set output.format=jpg \
    --set output.dir="$work/vmix" --report "$work/vmix.json"
  json_check "vmix: 3 items, the still's 8 views and 3 frames x 8 of each video" "$work/vmix.json" \
    "j['items']['succeeded'] == 3 and [v['frames_selected'] for v in j['extra']['videos']] == [3, 3] and j['extra']['jpeg_encode'] == 'nvJPEG (GPU)'"
  [[ $(ls "$work/vmix" | grep -c '^left_yaw') == 8 && $(ls "$work/vmix" | grep -c '^clip_0') == 24 && $(ls "$work/vmix" | grep -c '^clip2_0') == 24 ]]
  ok "vmix: every view written" $?
  db=$(ffmpeg -nostdin -i "$work/vmix/clip2_000014_1.400s_yaw090.jpg" -i "$work/v14/clip_000014_1.400s_yaw090.png" -lavfi psnr \
    -f null - 2>&1 | sed -n 's/.*average:\([0-9.inf]*\).*/\1/p' | tail -1)
  python3 -c "import sys; sys.exit(0 if float('$db') >= 35 else 1)"; ok "vmix: the second video's frame 14 is the CPU's (JPEG q95, PSNR $db dB)" $?
else
  echo "SKIPPED: no GPU: select sharpest on the GPU (run this script on the GPU machine)"
fi

# The rig (the default names: a folder per view) lists every still and every selected frame of a
# video, whichever run or shard did them (a video's frames from its completion record): two shards,
# then --resume with one more still, which alone is done.
rig=(stitch-360 -c configs/stitch-360.json --device cpu --progress none --set views.width=64 --set views.height=64
  --set input.video.select=every --set input.video.every=7 --set output.dir="$work/rig")
check "rig: shard 0 of 2" 0 "$gpuproc" "${rig[@]}" "$work/clip.mp4" "$work/left.png" --shard 0/2
check "rig: shard 1 of 2" 0 "$gpuproc" "${rig[@]}" "$work/clip.mp4" "$work/left.png" --shard 1/2
check "rig: --resume with one more still" 0 "$gpuproc" "${rig[@]}" "$work/clip.mp4" "$work/left.png" "$work/right.png" \
  --resume --report "$work/rig.json"
json_check "rig: --resume did only the new still" "$work/rig.json" \
  "j['items']['skipped_complete'] == 2 and j['items']['succeeded'] == 1 and j['extra']['rig_config'] == 'rig_config.json'"
json_check "rig: cameras.json lists the video's 3 frames and the 2 stills, 8 views each, all written" "$work/rig/cameras.json" \
  "[(c['input'].split('/')[-1], c.get('frame')) for c in j['captures']] == [('clip.mp4', 0), ('clip.mp4', 7), ('clip.mp4', 14), ('left.png', None), ('right.png', None)] and all(len(c['images']) == 8 and all(__import__('os').path.isfile('$work/rig/' + n) for n in c['images']) for c in j['captures']) and j['captures'][2]['images'][1] == 'yaw045/clip_000014_1.400s.jpg'"
json_check "rig: rig_config.json, a camera per view folder" "$work/rig/rig_config.json" \
  "len(j) == 1 and [c['image_prefix'] for c in j[0]['cameras']] == ['yaw000/', 'yaw045/', 'yaw090/', 'yaw135/', 'yaw180/', 'yaw225/', 'yaw270/', 'yaw315/'] and [c['camera_id'] for c in j[0]['cameras']] == list(range(1, 9))"

echo "stitch_inputs: $passes passed, $failures failed"
[[ $failures -eq 0 ]]
