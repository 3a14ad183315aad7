#!/usr/bin/env bash
# stitch-360 benchmark, HDR phase (issue 27), for a GPU machine: N (default 20) 7680x3840 EXR half
# (zip) equirect panoramas -> the 6 cube faces of 2048x2048 as EXR half (zip), through
#   (x1) gpuproc on the GPU (mode cubemap, faces, output.format exr), the process's wall clock
#        after an untimed warm-up on 2 panoramas (first CUDA use on the machine);
#   (x2) gpuproc --device cpu on the first BENCH_HDR_CPU_N (default 4);
#   (x3) ffmpeg v360 doing the same, one process per panorama, T at a time: EXR decoded by
#        ffmpeg's exr decoder, v360=e:c6x1 (FFmpeg 5.1's v360 has no float formats: it negotiates
#        gbrp16le, so values are clipped at 1.0 inside it: its output is not HDR; timed as the peer
#        a user has), six crops, each written by ffmpeg's EXR encoder (half, zip16);
#   (x4) the EXR codec limit, gpuproc-bench-codec --exr-faces 2048: decode every panorama (OpenEXR,
#        T threads) and encode six 2048x2048 half zip EXRs of its content each, nothing else.
# The panoramas: gpuproc-make-samples' 8K bench panoramas (distinct scenes), made linear (sRGB
# decoded) and given an HDR range (x^2 x 8, a sun-like highlight region at up to ~8 + the sky's
# gradient), as half EXR with zip (oiiotool). Writes one JSON (the path given, default
# $OUT/bench_stitch_360_hdr.json) that stitch_360.sh merges into its own.
#   scripts/bench/stitch_360_hdr.sh [RESULT.json]
# Environment: GPUPROC_BUILD, BENCH_HDR_N (20), BENCH_HDR_W (7680), BENCH_HDR_FACE (2048),
#   BENCH_THREADS (nproc), BENCH_DEVICE (cuda:0), BENCH_HDR_CPU_N (4), BENCH_KEEP=1.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source "$root/scripts/bench/bench_common.sh"
bench_codec=$build/apps/bench-codec/gpuproc-bench-codec
n=${BENCH_HDR_N:-20} width=${BENCH_HDR_W:-7680} face=${BENCH_HDR_FACE:-2048}
threads=${BENCH_THREADS:-$(nproc)}
device=${BENCH_DEVICE:-cuda:0}
cpu_n=${BENCH_HDR_CPU_N:-4}
cpu_n=$((cpu_n < n ? cpu_n : n))
result=${1:-${OUT:-.}/bench_stitch_360_hdr.json}
mkdir -p "$(dirname "$result")"
make_work_folder

echo "HDR: $n EXR half ${width}x$((width / 2)) -> 6 faces ${face}x${face} EXR half; $threads threads"
timed hdr_generate "" "$make_samples" stitch-bench "$work/jpg" "$n" "$width"
mkdir -p "$work/exr"
find "$work/jpg" -name 'pano_*.jpg' | sort | xargs -P "$threads" -I{} sh -c \
  'oiiotool "$1" --colorconvert sRGB linear --powc 2 --mulc 8 -d half --compression zip -o "$2/$(basename "$1" .jpg).exr"' \
  _ {} "$work/exr"
rm -rf "$work/jpg"
exrs=("$work"/exr/pano_*.exr)
((${#exrs[@]} == n)) || { echo "stitch_360_hdr.sh: expected $n EXR panoramas, found ${#exrs[@]}" >&2; exit 1; }
printf '%s\n' "${exrs[@]:0:cpu_n}" >"$work/cpu.list"
printf '%s\n' "${exrs[@]:0:2}" >"$work/warmup.list"

has_gpu=0
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && has_gpu=1
run_gpuproc() {  # run_gpuproc NAME DEVICE INPUTS
  timed "$1" "$work/out-$1" "$gpuproc" stitch-360 "$3" --config configs/stitch-360.json --device "$2" \
    --threads "$threads" --set mode=cubemap --set cubemap.layout=faces --set cubemap.face_size="$face" \
    --set output.format=exr --set output.exr.type=half --set output.exr.compression=zip --set output.rig=false \
    --set output.name='{stem}_{view}.{ext}' --set output.dir="$work/out-$1" --progress none \
    --report "$work/report-$1.json" --trace "$work/trace-$1.json"
}
if ((has_gpu)); then
  run_gpuproc hdr_gpu_warmup "$device" "@$work/warmup.list"
  run_gpuproc hdr_gpu "$device" "$work/exr"
else
  skip hdr_gpu_warmup "no GPU"; skip hdr_gpu "no GPU"
fi
run_gpuproc hdr_cpu cpu "@$work/cpu.list"

# (x3) v360: the c6x1 strip, then each face cropped out and written as EXR.
ffmpeg_faces() {  # ffmpeg_faces PANORAMA.exr OUT_DIR
  local graph="[0:v]v360=e:c6x1:w=$((6 * face)):h=$face:interp=linear,split=6" k maps=()
  for ((k = 0; k < 6; k++)); do graph+="[s$k]"; done
  for ((k = 0; k < 6; k++)); do
    graph+=";[s$k]crop=$face:$face:$((k * face)):0,format=gbrpf32le[f$k]"
    maps+=(-map "[f$k]" -c:v exr -compression zip16 -format half -frames:v 1 "$2/$(basename "$1" .exr)_$k.exr")
  done
  ffmpeg -nostdin -v error -y -threads 1 -i "$1" -filter_complex "$graph" "${maps[@]}"
}
export -f ffmpeg_faces
export face
mkdir -p "$work/out-hdr_ffmpeg"
timed hdr_ffmpeg "$work/out-hdr_ffmpeg" bash -c \
  'printf "%s\n" "$@" | xargs -P '"$threads"' -I{} bash -c "ffmpeg_faces {} '"$work/out-hdr_ffmpeg"'"' _ "${exrs[@]}"
# (x4) the EXR codec limit.
timed hdr_codec_limit "$work/out-codec" "$bench_codec" --threads "$threads" --exr-faces "$face" \
  --exr-compression zip --out "$work/out-codec" "${exrs[@]}"

PYTHONPATH=$root/scripts/bench python3 - "$runs" "$result" "$n" "$cpu_n" "$width" "$face" "$threads" "$work" <<'PY'
import json, sys
from bench_results import read_runs, ok_time
runs_path, result, n, cpu_n, width, face, threads, work = sys.argv[1:]
n, cpu_n = int(n), int(cpu_n)
runs = read_runs(runs_path)
seconds = lambda name: ok_time(runs, name)
def report(name):
    try:
        return json.load(open(f"{work}/report-{name}.json"))
    except Exception:
        return None
codec = None
try:
    codec = json.load(open(f"{work}/logs/hdr_codec_limit.out"))
except Exception:
    pass
gpu_s, cpu_s, ff_s = seconds("hdr_gpu"), seconds("hdr_cpu"), seconds("hdr_ffmpeg")
rate = lambda count, s: count / s if s else None
out = {
    "panoramas": n, "panorama": f"{width}x{int(width) // 2} EXR half zip", "faces": f"6 x {face}x{face} EXR half zip",
    "threads": int(threads),
    "gpuproc_gpu": {"wall_s": gpu_s, "panoramas_per_s": rate(n, gpu_s),
                    "report_wall_s": (report("hdr_gpu") or {}).get("wall_s")},
    "gpuproc_cpu": {"panoramas": cpu_n, "wall_s": cpu_s, "panoramas_per_s": rate(cpu_n, cpu_s)},
    "ffmpeg_v360": {"wall_s": ff_s, "panoramas_per_s": rate(n, ff_s),
                    "note": "FFmpeg 5.1 v360 converts to gbrp16le (no float formats): values above 1 clipped inside it"},
    "exr_codec_limit": codec,
}
g = out["gpuproc_gpu"]["panoramas_per_s"]
f = out["ffmpeg_v360"]["panoramas_per_s"]
out["ratios"] = {
    "gpu_vs_ffmpeg": g / f if g and f else None,
    "gpu_wall_over_codec_limit": gpu_s / codec["codec_limit_s"] if gpu_s and codec else None,
}
out["runs"] = runs
json.dump(out, open(result, "w"), indent=2)
print(json.dumps(out["ratios"]))
PY
echo "wrote $result"
