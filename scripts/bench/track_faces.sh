#!/usr/bin/env bash
# track-faces benchmark, for a GPU machine: K concurrent 720p 30 fps camera streams end to end.
# The stream: OpenCV's Megamind.avi (opencv-doc; a real clip) four times in a 2x2 grid at
# 1280x720 (tiles 640x360, started 0, 60, 120 and 180 frames apart, two mirrored), BENCH_FRAMES
# frames at 30 fps, H.264 crf 20 with a key frame every 2 s as IP cameras send: four faces per
# frame. Ten encodings of it differ only in where their key frames fall (frame 0, then every 60
# frames at a phase of its own, 6 frames apart), as independent cameras' encoders do; camera k is a hard link to
# encoding k mod 10 (decoding the same bytes again is the same work). The frames of all cameras
# are due at the same instants (genlocked cameras: the hardest case for latency).
#   (a') the same with every camera's key frames on the same frames (BENCH_ALIGNED_KS, default 96):
#       the worst case, where every decoder meets a key frame in the same 33 ms.
#   (a) real time, GPU: for each K in BENCH_KS, gpuproc track-faces with run.realtime (each camera's
#       frames released at 30 fps, as live cameras deliver them); latency per frame from when the
#       camera delivered it to its results written (JSON lines). K streams are real time when every
#       frame was processed and p99 latency < 33 ms. The largest such K is the figure.
#   (b) throughput, GPU: BENCH_THROUGHPUT_K streams unpaced: frames/s, and compute (upload, detect,
#       landmarks, tracking) per frame = GPU time per frame.
#   (c) --device cpu: one stream unpaced, BENCH_CPU_FRAMES frames: frames/s -> real-time streams.
#   (d) the OpenCV/dlib CPU pipeline (gpuproc-face-peer: libavcodec decode + OpenCV Haar cascade,
#       and + dlib HOG) on BENCH_PEER_STREAMS streams of BENCH_CPU_FRAMES frames, one thread each:
#       frames/s -> real-time streams (frames/s / 30), its per-frame times.
#   (e) agreement with Haar and HOG on Megamind.avi (all frames): scripts/bench/face_agreement.py.
#   (g) the machine's decode limit: ffmpeg -threads 1 decoding the stream, nproc at a time (xargs
#       -P), frames/s over all: the most 720p frames/s any CPU-decoding pipeline gets on this host.
#   (f) GPU against CPU on Megamind.avi with landmarks: boxes IoU >= 0.95 and landmarks mean error
#       < 1 px (scripts/bench/track_faces_compare.py).
#   scripts/bench/track_faces.sh [RESULT.json]   (default $OUT/track_faces.json)
# Environment: GPUPROC_BUILD (default build-gpu), BENCH_KS (default "16 32 64 80 90 96 104 112"),
#   BENCH_FRAMES (default 300), BENCH_THROUGHPUT_K (64), BENCH_CPU_FRAMES (60),
#   BENCH_PEER_STREAMS (default nproc), BENCH_DEVICE (cuda:0), BENCH_KEEP=1 keeps the work folder,
#   BENCH_SET ("key=value ..." applied to the GPU runs with --set, e.g. "run.workers=4"),
#   BENCH_GPU_ONLY=1 (only (a), (b) and (h): to compare settings quickly),
#   BENCH_LIVE_STREAMS (default 32; 0 skips (h)), BENCH_LIVE_SECONDS (20).
#   (h) live: BENCH_LIVE_STREAMS UDP MPEG-TS streams sent in real time by as many ffmpeg processes
#       on this machine, read live by one track-faces job with results published on ZeroMQ:
#       frames, dropped, reconnects, latency from arrival to results written and to the ZeroMQ
#       send (target p99 < 40 ms, nothing dropped), NVML figures.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source "$root/scripts/bench/bench_common.sh"
device=${BENCH_DEVICE:-cuda:0}
ks=${BENCH_KS:-16 32 64 80 90 96 104 112}
frames=${BENCH_FRAMES:-300}
throughput_k=${BENCH_THROUGHPUT_K:-64}
cpu_frames=${BENCH_CPU_FRAMES:-60}
peer_streams=${BENCH_PEER_STREAMS:-$(nproc)}
peer=$build/apps/face-peer/gpuproc-face-peer
config=$root/scripts/bench/track_faces_bench.json
megamind=/usr/share/doc/opencv-doc/examples/data/Megamind.avi
result=${1:-${OUT:+$OUT/track_faces.json}}
result=${result:-./track_faces-bench.json}
mkdir -p "$(dirname "$result")"
make_work_folder
export GPUPROC_MODELS=${GPUPROC_MODELS:-$root/.models}
[[ -f $megamind ]] || { echo "track_faces.sh: no $megamind (opencv-doc)" >&2; exit 2; }

echo "stream: 2x2 Megamind at 1280x720, $frames frames at 30 fps"
clip=$work/stream.mp4
tile() {  # tile START MIRROR
  local f="trim=start_frame=$1,setpts=PTS-STARTPTS,scale=640:-2,crop=640:360"
  [[ $2 == 1 ]] && f+=",hflip"
  echo "$f"
}
ffmpeg -nostdin -v error -y -stream_loop -1 -i "$megamind" -filter_complex \
  "[0:v]split=4[a][b][c][d];[a]$(tile 0 0)[a1];[b]$(tile 60 1)[b1];[c]$(tile 120 1)[c1];[d]$(tile 180 0)[d1];[a1][b1][c1][d1]xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0,fps=30" \
  -frames:v "$frames" -c:v ffv1 -an "$work/source.mkv"
key_phases=10
for ((v = 0; v < key_phases; v++)); do  # key frames at 0 and every 60 from about 6v (no scene-cut ones)
  ffmpeg -nostdin -v error -y -i "$work/source.mkv" -c:v libx264 -preset medium -crf 20 -pix_fmt yuv420p -g 1000 \
    -sc_threshold 0 -force_key_frames "expr:eq(n,0)+gte(n,$((6 * v)))*eq(mod(n-$((6 * v)),60),0)" -an "$work/stream_$v.mp4" &
done
wait
clip=$work/stream_0.mp4
ffmpeg -nostdin -v error -y -i "$clip" -frames:v "$cpu_frames" -c copy "$work/stream_cpu.mp4"
aligned_ks=${BENCH_ALIGNED_KS:-96}
max_k=$(for k in $ks $aligned_ks $throughput_k $peer_streams; do echo "$k"; done | sort -n | tail -1)
mkdir -p "$work/cams" "$work/cams_aligned" "$work/cams_cpu"
for ((i = 0; i < max_k; i++)); do
  ln "$work/stream_$((i % key_phases)).mp4" "$work/cams/cam_$(printf %03d $i).mp4"
  ln "$clip" "$work/cams_aligned/cam_$(printf %03d $i).mp4"
  ln "$work/stream_cpu.mp4" "$work/cams_cpu/cam_$(printf %03d $i).mp4"
done
cams() { for ((i = 0; i < $1; i++)); do echo "$2/cam_$(printf %03d $i).mp4"; done; }

job=(track-faces --config "$config" --progress none)
gpu_set=()
for kv in ${BENCH_SET:-}; do gpu_set+=(--set "$kv"); done
run_job() {  # run_job NAME K FOLDER DEVICE [OPTION...]
  local name=$1 k=$2 folder=$3 dev=$4
  shift 4
  cams "$k" "$folder" >"$work/$name.list"
  timed "$name" "$work/out-$name" "$gpuproc" "${job[@]}" "@$work/$name.list" --device "$dev" \
    --set output.dir="$work/out-$name" --report "$work/report-$name.json" "$@"
}

if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  run_job gpu_warmup 4 "$work/cams_cpu" "$device"
  for k in $ks; do
    echo "(a) $k real-time streams"
    run_job "rt_$k" "$k" "$work/cams" "$device" "${gpu_set[@]}"
  done
  for k in $aligned_ks; do
    echo "(a') $k real-time streams, key frames aligned"
    run_job "aligned_$k" "$k" "$work/cams_aligned" "$device" "${gpu_set[@]}"
  done
  echo "(b) $throughput_k streams unpaced"
  run_job "throughput" "$throughput_k" "$work/cams" "$device" --set run.realtime=false --trace "$work/trace-throughput.json" "${gpu_set[@]}"
else
  echo "no GPU: (a) and (b) skipped"
fi
live_streams=${BENCH_LIVE_STREAMS:-32}
live_s=${BENCH_LIVE_SECONDS:-20}
if ((live_streams > 0)) && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "(h) $live_streams live UDP streams (MPEG-TS from ffmpeg -re on this machine), ${live_s} s"
  ffmpeg -nostdin -v error -y -i "$clip" -an -c:v libx264 -preset veryfast -crf 20 -g 15 -bf 0 "$work/live.mp4"
  urls=()
  for ((i = 0; i < live_streams; i++)); do urls+=("udp://127.0.0.1:$((46000 + 2 * i))"); done
  (
    sleep 3  # the cameras are open (they wait for data); each sender loops the clip in real time
    for url in "${urls[@]}"; do
      timeout $((live_s + 2)) ffmpeg -nostdin -v error -re -stream_loop -1 -i "$work/live.mp4" -c copy -f mpegts \
        "$url?pkt_size=1316" &
    done
    wait
  ) &
  senders=$!
  timed live "$work/out-live" "$gpuproc" "${job[@]}" "${urls[@]}" --device "$device" --set run.realtime=false \
    --set run.duration_s=$((live_s + 3)) --set output.stream.zmq=tcp://127.0.0.1:45998 --set output.dir="$work/out-live" \
    --report "$work/report-live.json" "${gpu_set[@]}"
  wait "$senders" || true
fi
# (g) in every run: the figure (a) is held against.
decode_n=$(nproc)
decode_files=$((3 * decode_n))
echo "(g) decode limit: ffmpeg -threads 1, $decode_n at a time, $decode_files streams"
for ((i = 0; i < decode_files; i++)); do echo "$work/cams/cam_$(printf %03d $((i % max_k))).mp4"; done >"$work/decode.list"
timed decode_limit "" xargs -P "$decode_n" -I{} ffmpeg -nostdin -v error -threads 1 -i {} -f null - <"$work/decode.list"
if [[ ${BENCH_GPU_ONLY:-0} == 1 ]]; then
  echo "BENCH_GPU_ONLY=1: (c)-(g) skipped"
else
echo "(c) --device cpu, one stream of $cpu_frames frames"
run_job cpu 1 "$work/cams_cpu" cpu --set run.realtime=false
if [[ -x $peer ]]; then
  echo "(d) OpenCV Haar / dlib HOG, $peer_streams streams"
  cams "$peer_streams" "$work/cams_cpu" >"$work/peer.list"
  # opencv-data's cascade; on the GPU machine it comes with the dependency bundle.
  cascade=/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml
  [[ -f $cascade ]] || cascade=/opt/gpuproc-deps/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml
  for det in haar hog; do
    timed "peer_$det" "" "$peer" --detector "$det" --haar-cascade "$cascade" --threads "$peer_streams" \
      --out "$work/peer-$det.jsonl" $(cat "$work/peer.list")
  done
  echo "(e) agreement on Megamind.avi"
  timed peer_megamind "" "$peer" --detector both --haar-cascade "$cascade" --out "$work/peer-megamind.jsonl" "$megamind"
else
  echo "no $peer: (d) and (e) skipped"
fi
mega_job() {  # mega_job NAME DEVICE
  timed "$1" "" "$gpuproc" "${job[@]}" "$megamind" --device "$2" --set run.realtime=false \
    --set detector.model=short --set output.landmarks=true --set run.precision=fp32 --set output.dir="$work/$1" \
    --report "$work/report-$1.json"
}
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then mega_job mega_gpu "$device"; fi
mega_job mega_cpu cpu
fi
[[ -f $work/mega_gpu/Megamind.jsonl && -f $work/peer-megamind.jsonl ]] &&
  python3 scripts/bench/face_agreement.py "$work/mega_gpu/Megamind.jsonl" "$work/peer-megamind.jsonl" \
    --out "$work/agreement.json" >"$work/logs/agreement.txt" 2>&1 || true
[[ -f $work/mega_gpu/Megamind.jsonl && -f $work/mega_cpu/Megamind.jsonl ]] &&
  python3 scripts/bench/track_faces_compare.py "$work/mega_gpu/Megamind.jsonl" "$work/mega_cpu/Megamind.jsonl" \
    --json "$work/gpu_vs_cpu.json" >"$work/logs/gpu_vs_cpu.txt" 2>&1 || true

python3 - "$runs" "$result" <<PY
import json, os, sys
sys.path.insert(0, "$root/scripts/bench")
from bench_results import read_runs, sh, gpu_figures
runs_path, result_path = sys.argv[1:3]
work, frames, cpu_frames = "$work", $frames, $cpu_frames
runs = read_runs(runs_path)

def report(name):
    path = f"{work}/report-{name}.json"
    return json.load(open(path)) if os.path.exists(path) else None

def load(path):
    return json.load(open(path)) if os.path.exists(path) else None

def job_figures(name, k, expected_frames):
    r = report(name)
    if not r or runs.get(name, {}).get("exit_code") != 0:
        return {"streams": k, "ok": False, "exit_code": runs.get(name, {}).get("exit_code")}
    x = r["extra"]
    done = x["frames"] == k * expected_frames
    fig = {"streams": k, "ok": True, "frames": x["frames"], "all_frames": done, "frames_per_s": x["frames_per_s"],
           "latency_ms": x["latency_ms"], "compute_ms_per_frame": x["compute_ms_per_frame"], "wall_s": r.get("wall_s"),
           "faces_per_frame": round(sum(c.get("summary", {}).get("faces", 0) for c in x["per_camera"]) / max(1, x["frames"]), 3),
           "tracks_per_camera": [len(c.get("summary", {}).get("tracks", [])) for c in x["per_camera"]][:4]}
    fig["real_time"] = bool(done and x["latency_ms"]["p99"] < 33.0)
    fig["compute_workers"] = x.get("compute_workers")
    fig["latency_ms_per_second"] = x.get("latency_ms_per_second")
    fig["stages"] = r.get("stages")
    fig["cpu"] = x.get("cpu")  # the host's cores: process, decoders, compute workers, writers
    fig["gpu"] = gpu_figures(r)  # NVML: utilisation, power, energy during the run
    return fig

ks = [int(k) for k in "$ks".split()]
realtime = [job_figures(f"rt_{k}", k, frames) for k in ks]
aligned = [job_figures(f"aligned_{k}", k, frames) for k in [int(k) for k in "$aligned_ks".split()]]
largest = max([f["streams"] for f in realtime if f.get("real_time")], default=0)
throughput = job_figures("throughput", $throughput_k, frames)
cpu = job_figures("cpu", 1, cpu_frames)

def peer(det):
    lines = []
    path = f"{work}/peer-{det}.jsonl"
    if os.path.exists(path):
        lines = [json.loads(l) for l in open(path) if l.strip()]
    summary = next((l["summary"] for l in lines if "summary" in l), None)
    return summary

peers = {det: peer(det) for det in ("haar", "hog")}

def live_figures():
    r = report("live")
    if not r:
        return None
    x = r["extra"]
    cams = x["per_camera"]
    return {"streams": len(cams), "exit_code": runs.get("live", {}).get("exit_code"), "frames": x["frames"],
            "dropped_behind": sum(c.get("dropped_behind", 0) for c in cams),
            "reconnects": sum(c.get("reconnects", 0) for c in cams),
            "latency_ms_arrival_to_written": x["latency_ms"], "zeromq": x.get("stream"), "gpu": gpu_figures(r),
            "target_p99_publish_under_40_ms_no_drop": bool((x.get("stream") or {}).get("latency_ms", {}).get("p99", 1e9) < 40
                                                            and sum(c.get("dropped_behind", 0) for c in cams) == 0)}
def peer_fps(s):
    if not s: return None
    for key in ("frames_per_s", "fps"):
        if isinstance(s.get(key), (int, float)): return s[key]
    return round(s["frames"] / s["seconds"], 3) if s.get("seconds") else None

result_decode_streams = (int($decode_files * frames / runs["decode_limit"]["wall_s"] // 30)
                         if runs.get("decode_limit", {}).get("exit_code") == 0 else None)
result = {
    "benchmark": "track-faces",
    "stream": {"source": "$megamind", "layout": "2x2 tiles 640x360 (starts 0/60/120/180, two mirrored)",
               "size": "1280x720", "fps": 30, "frames": frames,
               "codec": "H.264 crf 20, a key frame every 60 frames; camera k's at its own phase (6 (k mod 10) frames apart)"},
    "config": "scripts/bench/track_faces_bench.json",
    "gpu_settings": "${BENCH_SET:-}",
    "what_each_figure_includes": {
        "real_time": "gpuproc track-faces with run.realtime: every camera's frames released at 30 fps; latency from the "
                     "moment a live camera would have delivered a frame to its JSON line written; real time = all frames "
                     "processed and p99 < 33 ms",
        "throughput": "the same unpaced: frames/s over all cameras; compute_ms_per_frame = the compute thread's time "
                      "(upload, detection, landmarks, tracking) / frames: the GPU time per frame",
        "cpu": "--device cpu, one stream unpaced (CPU engine, fp32)",
        "peer": "gpuproc-face-peer: libavcodec decode + OpenCV Haar cascade (haar) or dlib HOG (hog), one thread per stream",
    },
    "gpu_real_time": realtime,
    "gpu_real_time_key_frames_aligned": aligned,
    "largest_real_time_streams": largest,
    "gpu_throughput": throughput,
    "cpu": cpu,
    "cpu_real_time_streams": (cpu.get("frames_per_s") or 0) // 30 if cpu.get("ok") else None,
    "peer": {det: {"summary": s, "frames_per_s": peer_fps(s),
                   "real_time_streams": (peer_fps(s) or 0) // 30 if s else None} for det, s in peers.items()},
    "decode_limit": {"frames_per_s": round($decode_files * frames / runs["decode_limit"]["wall_s"], 1)
                     if runs.get("decode_limit", {}).get("exit_code") == 0 else None,
                     "real_time_streams": int($decode_files * frames / runs["decode_limit"]["wall_s"] // 30)
                     if runs.get("decode_limit", {}).get("exit_code") == 0 else None},
    "live_udp": live_figures(),
    "agreement_vs_haar_hog": load(f"{work}/agreement.json"),
    "gpu_vs_cpu_megamind": load(f"{work}/gpu_vs_cpu.json"),
    "targets": {"real_time_streams_at_least_64": {"value": largest, "pass": largest >= 64},
                "real_time_streams_at_least_90": {"value": largest, "pass": largest >= 90},
                "real_time_streams_vs_decode_limit": {"value": largest, "decode_limit_streams": result_decode_streams,
                                                      "pass": result_decode_streams is not None and largest >= min(90, result_decode_streams)},
                "p99_latency_under_33_ms_at_64": {"value": next((f["latency_ms"]["p99"] for f in realtime if f["streams"] == 64 and f.get("ok")), None),
                                                  "pass": any(f["streams"] == 64 and f.get("real_time") for f in realtime)}},
    "runs": runs,
    "machine": {"gpu": sh("nvidia-smi --query-gpu=name --format=csv,noheader"), "nproc": os.cpu_count(),
                "cpu": sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"), "gpuproc": sh("'$gpuproc' --version")},
}
json.dump(result, open(result_path, "w"), indent=2)
print(json.dumps({"largest_real_time_streams": largest,
                  "gpu_real_time": [{k: f.get(k) for k in ("streams", "real_time", "frames_per_s", "latency_ms", "compute_ms_per_frame")} for f in realtime],
                  "gpu_throughput": {k: throughput.get(k) for k in ("frames_per_s", "compute_ms_per_frame", "latency_ms")},
                  "cpu_frames_per_s": cpu.get("frames_per_s"), "decode_limit": result["decode_limit"], "peer_frames_per_s": {d: v["frames_per_s"] for d, v in result["peer"].items()},
                  "agreement": result["agreement_vs_haar_hog"], "gpu_vs_cpu": result["gpu_vs_cpu_megamind"]}, indent=1, default=str))
print("wrote", result_path)
PY
