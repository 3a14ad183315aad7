# stitch-360 benchmark, video phases (issue 27); sourced by stitch_360.sh after its still phases,
# with its work folder, runs table, helpers (timed, skip, phase, v360_graph, view_name) and settings.
# Every frame of a 360 video, each through
#   gpuproc   stitch-360 with input.video.select all on BENCH_DEVICE (after an untimed warm-up on
#             the video's first frames when the device is a GPU): process wall clock, durable
#             writes (fsync); and again with --no-fsync (as ffmpeg writes: the kernel flushes later);
#   ffmpeg    v360 doing the same in one ffmpeg process (decoder threads, filter and encoder
#             threads at ffmpeg's defaults), JPEG by mjpeg -q:v 2 as in (c);
#   decode    the CPU decode limit of that video: ffmpeg -threads 0 (one per core) decoding to null
#             (decode_limit: the target's reference), informational: the same plus the YUV to RGB
#             conversion gpuproc also makes on the CPU (ffmpeg -vf format=rgb24), and gpuproc's own
#             VideoReader through stitch-360 itself (select every 10^6: every frame decoded, in parts
#             as the job's, the first one alone projected and written); and, informational, stitch-360 with select
#             sharpest (interval 1 s): every frame decoded and scored (on the GPU on a GPU device);
# and from gpuproc's --trace the decoder's busy time ("decode video" spans, merged).
# (v1) an 8K (BENCH_VIDEO_W x W/2) H.264 equirect video -> ring8 views of BENCH_VIDEO_VIEW square
#      (default the bench config's 1920), JPEG q95 4:2:0; ffmpeg: split=8 and eight v360=e:flat.
# (v2) a 5.7K (BENCH_FISHEYE_W x W/2) H.264 dual-fisheye video, two 195-degree circles side by side
#      (v360's dfisheye layout: the front lens in the right half, the back lens, turned by yaw 180,
#      in the left) -> equirect of the same size, JPEG; gpuproc with its lenses set to that layout
#      (equidistant, v360's centres and radius) and its default 5-degree feathering of the lenses'
#      overlap (v360 takes each direction from one lens), ffmpeg v360=dfisheye:e:ih_fov=195:iv_fov=195.
# The videos: BENCH_VIDEO_S seconds at BENCH_VIDEO_FPS, made here by ffmpeg (libx264 veryfast crf 20,
# a key frame every 2 s) from three of gpuproc-make-samples' stitch-bench panoramas (rendered
# landscapes with sensor noise): the camera turns (ffmpeg scroll: each scene yawing at its own
# speed, 10-22 degrees/s at 30 fps), fresh sensor noise every frame (noise, temporal), and moves
# on from scene to scene (xfade, 0.5 s); the dual-fisheye video is the same frames through
# v360=e:dfisheye, encoded by the same ffmpeg process. Target: gpuproc within 1.2x of the decode
# limit (decode_limit_fps / gpuproc_fps <= 1.2), reported for both runs; every figure is reported
# whether or not it meets it.
# (x) HDR: 20 8K EXR half panoramas -> 6 cubemap faces of 2048x2048 EXR, against ffmpeg v360
#     (FFmpeg 5.1's has no float formats: 16-bit inside) and the EXR codec limit: phase x runs
#     scripts/bench/stitch_360_hdr.sh (whose header says what each figure is) into $work/hdr.json,
#     which the JSON carries as "hdr_exr_cubemap".
# Environment (beside stitch_360.sh's): BENCH_PHASES (default "stills v1 v2 x"), BENCH_VIDEO_S (6),
# BENCH_VIDEO_FPS (30), BENCH_VIDEO_W (7680), BENCH_FISHEYE_W (5760), BENCH_VIDEO_VIEW,
# BENCH_VIDEO_REPEATS (3: the decode limit, gpuproc and gpuproc --no-fsync each run that often, in
# turns; their medians are the figures).

video_s=${BENCH_VIDEO_S:-6} video_fps=${BENCH_VIDEO_FPS:-30} video_repeats=${BENCH_VIDEO_REPEATS:-3}
video_w=${BENCH_VIDEO_W:-7680} fisheye_w=${BENCH_FISHEYE_W:-5760}
video_view=${BENCH_VIDEO_VIEW:-$view_w}
fisheye_fov=195
video_device_ok=1  # gpuproc can run on BENCH_DEVICE here
[[ $device != cpu ]] && ((!has_gpu)) && video_device_ok=0
: >"$work/video_phases.tsv"  # phase, video file, frames, width, height

# The two videos from three rendered scenes, in one ffmpeg process.
make_videos() {
  local src=$work/video-src fade t1 k graph
  mkdir -p "$src"
  timed video_panoramas "" "$make_samples" stitch-bench "$src" 3 "$video_w" || return 1
  [[ -f $src/pano_00002.jpg ]] || return 1
  read -r fade t1 < <(python3 -c "d = min(0.5, $video_s / 4); print(d, ($video_s + 2 * d) / 3)")
  local speeds=(0.0009 -0.0006 0.0012)  # of the width per frame: 10, -6.5, 13 degrees/s at 30 fps
  local inputs=()
  graph=""
  for k in 0 1 2; do
    inputs+=(-loop 1 -framerate "$video_fps" -t "$t1" -i "$src/pano_0000$k.jpg")
    graph+="[$k:v]scroll=horizontal=${speeds[k]},noise=alls=3:allf=t,format=yuv420p,setsar=1[s$k];"
  done
  graph+="[s0][s1]xfade=transition=fade:duration=$fade:offset=$(python3 -c "print($t1 - $fade)")[x1];"
  graph+="[x1][s2]xfade=transition=fade:duration=$fade:offset=$(python3 -c "print(2 * $t1 - 2 * $fade)"),split[e][f];"
  graph+="[f]v360=e:dfisheye:h_fov=$fisheye_fov:v_fov=$fisheye_fov:w=$fisheye_w:h=$((fisheye_w / 2)):interp=linear[d]"
  local x264=(-c:v libx264 -preset veryfast -crf 20 -g $((2 * video_fps)) -pix_fmt yuv420p -movflags +faststart)
  timed video_generate "" ffmpeg -nostdin -v error -y "${inputs[@]}" -filter_complex "$graph" \
    -map "[e]" "${x264[@]}" "$work/v1_equirect.mp4" -map "[d]" "${x264[@]}" "$work/v2_dual_fisheye.mp4"
  [[ -s $work/v1_equirect.mp4 && -s $work/v2_dual_fisheye.mp4 ]]
}

video_frames() {  # video_frames FILE: its frame count (packets of the video stream)
  ffprobe -v error -select_streams v:0 -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$1"
}

# gpuproc on a video: video_run NAME DEVICE VIDEO [OPTION...]
video_run() {
  timed "$1" "$work/out-$1" "$gpuproc" stitch-360 "$3" --config "$config" --device "$2" --threads "$threads" \
    --set output.dir="$work/out-$1" --set run.gpu_workers="$gpu_workers" --set input.video.select=all \
    --progress none --report "$work/report-$1.json" --trace "$work/trace-$1.json" "${@:4}"
}

# One phase: video_phase PHASE VIDEO GPUPROC_OPTIONS_NAME FFMPEG_OUTPUT_ARGS_FUNCTION
#   $gpuproc_options (an array named by the caller) and ffmpeg_outputs_PHASE OUTDIR (prints args).
video_phase() {
  local p=$1 video=$2 frames
  local -n opts=$3
  frames=$(video_frames "$video")
  printf '%s\t%s\t%s\t%s\t%s\n' "$p" "$video" "$frames" \
    "$(ffprobe -v error -select_streams v:0 -show_entries stream=width -of csv=p=0 "$video")" \
    "$(ffprobe -v error -select_streams v:0 -show_entries stream=height -of csv=p=0 "$video")" >>"$work/video_phases.tsv"
  echo "$p: $(basename "$video"), $frames frames"
  # The decode limit, then gpuproc, then ffmpeg v360.
  timed "${p}_decode" "" ffmpeg -nostdin -v error -threads 0 -i "$video" -map 0:v:0 -f null -
  timed "${p}_decode_rgb" "" ffmpeg -nostdin -v error -threads 0 -i "$video" -map 0:v:0 -vf format=rgb24 -f null -
  if [[ -x $gpuproc ]] && ((video_device_ok)); then
    # First CUDA/nvJPEG use of this process kind on the machine: a few frames, not timed.
    if [[ $device != cpu ]]; then
      video_run "${p}_warmup" "$device" "$video" "${opts[@]}" --set input.video.end_s=0.2
    fi
    # The target's two figures again, taken in turns (runs of a few seconds vary by 5-10% on the
    # same machine): the JSON gives each one's median and every sample.
    local r
    for ((r = 2; r <= video_repeats; r++)); do
      timed "${p}_decode_$r" "" ffmpeg -nostdin -v error -threads 0 -i "$video" -map 0:v:0 -f null -
      video_run "${p}_gpuproc_$r" "$device" "$video" "${opts[@]}"
      video_run "${p}_gpuproc_no_fsync_$r" "$device" "$video" "${opts[@]}" --no-fsync
    done
    video_run "${p}_gpuproc_reader" "$device" "$video" "${opts[@]}" --set input.video.select=every \
      --set input.video.every=1000000
    # Informational: every frame decoded and scored for select sharpest (on the GPU with a GPU
    # device), the sharpest of each second projected: does scoring keep pace with decoding?
    video_run "${p}_gpuproc_sharpest" "$device" "$video" "${opts[@]}" --set input.video.select=sharpest \
      --set input.video.interval_s=1
    video_run "${p}_gpuproc" "$device" "$video" "${opts[@]}"
    video_run "${p}_gpuproc_no_fsync" "$device" "$video" "${opts[@]}" --no-fsync
  else
    local why="no GPU for BENCH_DEVICE=$device"
    [[ -x $gpuproc ]] || why="no $gpuproc"
    skip "${p}_gpuproc_reader" "$why"; skip "${p}_gpuproc_sharpest" "$why"; skip "${p}_gpuproc" "$why"; skip "${p}_gpuproc_no_fsync" "$why"
  fi
  mkdir -p "$work/out-${p}_ffmpeg"
  local outputs
  mapfile -t outputs < <("ffmpeg_outputs_$p" "$work/out-${p}_ffmpeg")
  timed "${p}_ffmpeg" "$work/out-${p}_ffmpeg" ffmpeg -nostdin -v error -y -threads 0 -i "$video" "${outputs[@]}"
  video_agreement "$p" "$video" "${opts[@]}"
  for kind in report trace; do
    [[ -f $work/$kind-${p}_gpuproc.json ]] && cp "$work/$kind-${p}_gpuproc.json" "${result%.json}.$kind-${p}_gpuproc.json"
  done
  return 0
}

# Agreement with ffmpeg v360 on the video's first frame, as PNG (informational; a wrong lens
# layout in (v2) would show here): video_agreement PHASE VIDEO [GPUPROC_OPTION...] -> psnr-PHASE.tsv
video_agreement() {
  local p=$1 video=$2 dir=$work/agree-$1 f ours db
  mkdir -p "$dir/ffmpeg"
  : >"$work/psnr-$p.tsv"
  ((video_device_ok)) && [[ -x $gpuproc ]] || return 0
  # Flat names, {view} last (the default is a folder per view), matched to ffmpeg's below.
  local name="{stem}_{frame:06}.{ext}"
  [[ $p == v1 ]] && name="{stem}_{frame:06}_{view}.{ext}"
  "$gpuproc" stitch-360 "$video" --config "$config" --device "$device" --set output.dir="$dir/gpuproc" \
    --set output.format=png --set input.video.select=all --set input.video.end_s="$(python3 -c "print(0.5 / $video_fps)")" \
    --progress none "${@:3}" --set output.rig=false --set output.video_name="$name" \
    >"$work/logs/agree-$p-gpuproc.log" 2>&1 || return 0
  local outputs
  mapfile -t outputs < <("ffmpeg_outputs_$p" "$dir/ffmpeg" | sed 's/%06d\(.*\)\.jpg$/frame\1.png/; s/^-q:v$/-frames:v/; s/^2$/1/')
  ffmpeg -nostdin -v error -y -i "$video" "${outputs[@]}" >"$work/logs/agree-$p-ffmpeg.log" 2>&1 || return 0
  for f in "$dir"/ffmpeg/frame*.png; do
    ours=$(ls "$dir"/gpuproc/*"$(basename "${f#"$dir"/ffmpeg/frame}")" 2>/dev/null | head -1)
    [[ -f $ours ]] || continue
    db=$(ffmpeg -nostdin -hide_banner -i "$ours" -i "$f" -lavfi "[0:v]format=rgb24[a];[1:v]format=rgb24[b];[a][b]psnr" \
      -f null - 2>&1 | grep -o 'average:[0-9.inf]*' | tail -1 | cut -d: -f2)
    printf '%s\t%s\n' "$(basename "$f" .png)" "${db:-}" >>"$work/psnr-$p.tsv"
  done
  echo "  $p agreement with v360, first frame: $(cut -f2 "$work/psnr-$p.tsv" | tr '\n' ' ')dB"
  rm -rf "$dir"
}

# (v1): the ring8 views of every frame.
ffmpeg_outputs_v1() {
  local k
  printf '%s\n' -filter_complex "$(v360_graph "" "$video_view" "$video_view")"
  for ((k = 0; k < views; k++)); do printf '%s\n' -map "[o$k]" -q:v 2 "$1/%06d_$(view_name $k).jpg"; done
}
v1_options=(--set views.width="$video_view" --set views.height="$video_view")
# (v2): v360's dual-fisheye layout (front lens in the right half), equirect as wide as the frame.
ffmpeg_outputs_v2() {
  printf '%s\n' -vf "v360=dfisheye:e:ih_fov=$fisheye_fov:iv_fov=$fisheye_fov:w=$fisheye_w:h=$((fisheye_w / 2)):interp=linear" \
    -q:v 2 "$1/%06d.jpg"
}
# The lenses exactly where v360 puts them (cuda/stitch/sphere.cpp's dual_fisheye_v360): in pixel
# coordinates (pixel centres at integers) each half ew = W/2 wide holds a circle of radius (ew - 1)/2
# centred at (ew - 1)/2 (+ ew for the front lens), (H - 1)/2; the config takes fractions of W and H.
read -r lens_front_x lens_back_x lens_y lens_r < <(python3 -c "
w, h = $fisheye_w, $fisheye_w // 2
ew = w / 2
print(*(f'{v:.9f}' for v in ((ew + (ew - 1) / 2) / w, (ew - 1) / 2 / w, (h - 1) / 2 / h, (ew - 1) / 2 / w)))")
v2_options=(--set mode=equirect_from_dual_fisheye --set fisheye.front.center_x="$lens_front_x"
  --set fisheye.back.center_x="$lens_back_x" --set fisheye.front.center_y="$lens_y" --set fisheye.back.center_y="$lens_y"
  --set fisheye.front.radius="$lens_r" --set fisheye.back.radius="$lens_r" --set fisheye.front.fov=$fisheye_fov
  --set fisheye.back.fov=$fisheye_fov --set equirect.width="$fisheye_w" --set output.video_name="{stem}_{frame:06}.{ext}")

if phase v1 || phase v2; then
  echo "videos: ${video_s} s at $video_fps fps: (v1) ${video_w}x$((video_w / 2)) equirect, (v2) ${fisheye_w}x$((fisheye_w / 2))" \
    "dual fisheye; gpuproc on $device"
  if make_videos; then
    if phase v1; then video_phase v1 "$work/v1_equirect.mp4" v1_options; fi
    if phase v2; then video_phase v2 "$work/v2_dual_fisheye.mp4" v2_options; fi
  else
    echo "  videos could not be made: see $work/logs/video_*.err"
  fi
fi

# ---- (x) HDR: 20 8K EXR half equirect panoramas -> 6 cubemap faces of 2048x2048 EXR ----------------
if phase x; then
  echo "(x) HDR EXR panoramas -> cube faces"
  BENCH_KEEP=0 bash "$root/scripts/bench/stitch_360_hdr.sh" "$work/hdr.json" >"$work/logs/hdr_phase.out" 2>&1 ||
    echo "  (x) failed: see $work/logs/hdr_phase.out"
  sed 's/^/  /' "$work/logs/hdr_phase.out" | tail -8
else
  skip hdr_phase "BENCH_PHASES"
fi
:  # this file is sourced under set -e: its status is its last command's
