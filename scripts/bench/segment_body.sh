#!/usr/bin/env bash
# segment-body benchmark, for a GPU machine (issue 6). One after another:
#   (a) model only: gpuproc-bench-infer on selfie_segmentation (256x256) and _landscape (144x256),
#       batch 1, 8, 64, FP16 and FP32 (frames/s back to back; per-call latency p50/p99 at batch 1);
#   (b) a 1080p H.264 clip end to end to an FFV1 grey mask video (segment_body_bench.json:
#       general model FP16, letterbox, temporal + guided filter): throughput mode (batch 16), then
#       streaming mode (batch 1; the report's compute_latency_ms p50/p99: frame taken by the compute
#       stage -> mask on the host, the target's figure; latency_ms adds queue waits). The clip is made
#       once with the bundled ffmpeg from OpenCV's vtest.avi (pedestrians) when present, else the
#       repository's sample video: scaled to 1920x1080, BENCH_FRAMES frames (default 300, the
#       source looped), libx264 -preset medium -crf 20, yuv420p;
#   (c) the same job with --device cpu on the first BENCH_CPU_FRAMES frames (default 30);
#   (d) the codec limit with the same libav settings: decode only (ffmpeg -threads 0 -i clip -f null -)
#       and encode only (the masks of (b), decoded once to raw grey beforehand, encoded by ffmpeg's
#       ffv1 encoder into .mkv as gpuproc does). Decoding and encoding overlap in gpuproc, so the
#       limit is the slower of the two (the serial sum is in the JSON too).
#   (e) (b) and (d) again on a longer clip of BENCH_LONG_FRAMES frames (default 1500: 60 s at 25 fps;
#       0 skips it), made the same way: the start-up (CUDA context, model, first batch) costs a
#       fixed ~0.6 s that a 12 s clip shows as ~20% of its codec limit.
#   (f) BlazePose (issue 25; BENCH_POSE=0 skips it): model only for pose_landmark_full/lite and the
#       person detector (person ROIs/s = items/s of the landmark model); pose_full end to end on
#       the clip of (b) in throughput and streaming mode (compute latency p50/p99 per frame with the
#       clip's people); and on the source video itself (vtest.avi: 768x576, pedestrians 70-100 px
#       tall) the people found per frame and the distinct confirmed IDs, with the detector's tile
#       levels 0 (MediaPipe's whole frame), 1 (the default) and 2.
#   (g) many videos (BENCH_CLIPS, default 16; 0 skips it): that many different 1080p clips of
#       BENCH_FRAMES frames (the source from different start offsets, every other one mirrored), in one
#       gpuproc job (run.videos_in_flight automatic) against one clip alone, and the aggregate codec
#       limit: the same clips decoded and encoded to grey FFV1 by as many ffmpeg processes at once.
#       Targets: aggregate frames/s >= 4x one clip's; gpuproc's time within 1.3x of that limit.
# From (b)'s --trace: the start-up (first traced span -> first mask handed to the encoder), the
# encoder's window (its first span's start -> its last span's end) and that window over the encode
# limit (steady state).
# One JSON with rates (frames/s), times and ratios; targets: model only >= 2000 frames/s at batch
# 64 FP16, streaming p99 < 10 ms, end to end within 1.2x of the codec limit (time / limit time).
#
#   scripts/bench/segment_body.sh [RESULT.json]
#     default $OUT/segment_body.json, else ./segment_body-bench.json; a copy goes to
#     scripts/bench/results/segment_body-<host>-<date>.json.
# Environment:
#   GPUPROC_BUILD     build folder (default build-gpu)      GPUPROC_MODELS  models (default .models)
#   BENCH_DEVICE      device of (a), (b) (default cuda:0)   BENCH_FFMPEG    ffmpeg (default: ffmpeg in PATH)
#   BENCH_FRAMES      frames of the clip (default 300)      BENCH_CPU_FRAMES  frames of (c) (default 30)
#   BENCH_SOURCE      source video of the clip              BENCH_HOST      host name in the result's name
#   BENCH_LONG_FRAMES frames of (e)'s clip (default 1500; 0: no (e))
#   BENCH_POSE        1 (default) runs (f)
#   BENCH_CLIPS       clips of (g) (default 16; 0: no (g))
#   BENCH_IN_FLIGHT   (g) again with each of these run.videos_in_flight values (e.g. "4 6 8")
#   BENCH_KEEP=1      keep the work folder
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source "$root/scripts/bench/bench_common.sh"
device=${BENCH_DEVICE:-cuda:0}
frames=${BENCH_FRAMES:-300}
cpu_frames=${BENCH_CPU_FRAMES:-30}
long_frames=${BENCH_LONG_FRAMES:-1500}
ffmpeg=${BENCH_FFMPEG:-ffmpeg}
models=${GPUPROC_MODELS:-$root/.models}
bench_infer=$build/apps/bench-infer/gpuproc-bench-infer
config=$root/scripts/bench/segment_body_bench.json
result=${1:-${OUT:+$OUT/segment_body.json}}
result=${result:-./segment_body-bench.json}
mkdir -p "$(dirname "$result")" "$root/scripts/bench/results"
make_work_folder
export GPUPROC_MODELS=$models

if [[ -n ${BENCH_SOURCE:-} ]]; then source_video=$BENCH_SOURCE
elif [[ -f /usr/share/doc/opencv-doc/examples/data/vtest.avi ]]; then source_video=/usr/share/doc/opencv-doc/examples/data/vtest.avi
else source_video=$root/data-samples/video/moving_shapes.mp4
fi

echo "(a) model only"
for model in selfie_segmentation selfie_segmentation_landscape; do
  timed "a_$model" "$work/none" "$bench_infer" "$models/$model.tflite" --batch 1,8,64 --precision fp16,fp32 \
    --device "$device" --json "$work/infer-$model.json"
done

echo "clip: $frames frames of $source_video at 1920x1080"
clip=$work/clip1080.mp4
"$ffmpeg" -v error -y -stream_loop -1 -i "$source_video" -frames:v "$frames" -vf scale=1920:1080:flags=bicubic \
  -c:v libx264 -preset medium -crf 20 -pix_fmt yuv420p -an "$clip"
"$ffmpeg" -v error -y -i "$clip" -frames:v "$cpu_frames" -c copy "$work/clip_cpu.mp4"

job=(segment-body --config "$config" --progress none)
echo "(b) end to end on $device"
timed b_warmup "$work/b0" "$gpuproc" "${job[@]}" --device "$device" "$work/clip_cpu.mp4" --set output.dir="$work/b0"
timed b_gpu "$work/none" "$gpuproc" "${job[@]}" --device "$device" "$clip" --set output.dir="$work/b" \
  --report "$work/b_gpu.json" --trace "$work/b_gpu_trace.json"
timed b_streaming "$work/bs" "$gpuproc" "${job[@]}" --device "$device" "$clip" --set output.dir="$work/bs" \
  --set run.mode=streaming --report "$work/b_streaming.json"
echo "(c) end to end, --device cpu, $cpu_frames frames"
timed c_cpu "$work/c" "$gpuproc" "${job[@]}" --device cpu "$work/clip_cpu.mp4" --set output.dir="$work/c" \
  --report "$work/c_cpu.json"
# codec_limit SUFFIX CLIP MASK_VIDEO: d_decode$SUFFIX and d_encode$SUFFIX
codec_limit() {
  local suffix=$1 clip=$2 masks=$3
  timed "d_decode$suffix" "$work/none" "$ffmpeg" -v error -threads 0 -i "$clip" -f null -
  if [[ -f $masks ]]; then
    "$ffmpeg" -v error -y -i "$masks" -f rawvideo -pix_fmt gray "$work/masks.gray"
    timed "d_encode$suffix" "$work/d" bash -c "mkdir -p '$work/d' && '$ffmpeg' -v error -y -f rawvideo -pix_fmt gray \
      -s 1920x1080 -r 25 -i '$work/masks.gray' -c:v ffv1 -threads 0 '$work/d/masks.mkv'"
    rm -f "$work/masks.gray"
  else
    skip "d_encode$suffix" "no mask video from (b)"
  fi
}
echo "(d) codec limit"
codec_limit "" "$clip" "$work/b/clip1080_mask.mkv"
if ((long_frames > 0)); then
  echo "(e) $long_frames frames end to end and codec limit"
  long_clip=$work/long1080.mp4
  "$ffmpeg" -v error -y -stream_loop -1 -i "$source_video" -frames:v "$long_frames" -vf scale=1920:1080:flags=bicubic \
    -c:v libx264 -preset medium -crf 20 -pix_fmt yuv420p -an "$long_clip"
  timed e_gpu "$work/none" "$gpuproc" "${job[@]}" --device "$device" "$long_clip" --set output.dir="$work/e" \
    --report "$work/e_gpu.json"
  codec_limit _long "$long_clip" "$work/e/long1080_mask.mkv"
fi

if [[ ${BENCH_POSE:-1} == 1 ]]; then
  echo "(f) BlazePose"
  for model in pose_landmark_full pose_landmark_lite pose_detection; do
    timed "f_$model" "$work/none" "$bench_infer" "$models/$model.tflite" --batch 1,16,64 --precision fp16,fp32 \
      --device "$device" --json "$work/infer-$model.json"
  done
  pose=(--set model.variant=pose_full --set output.mask_video.codec=ffv1)
  timed f_pose_gpu "$work/none" "$gpuproc" "${job[@]}" "${pose[@]}" --device "$device" "$clip" --set output.dir="$work/f" \
    --report "$work/f_pose_gpu.json"
  timed f_pose_streaming "$work/none" "$gpuproc" "${job[@]}" "${pose[@]}" --device "$device" "$clip" \
    --set output.dir="$work/fs" --set run.mode=streaming --report "$work/f_pose_streaming.json"
  for tiles in 0 1 2; do
    timed "f_source_tiles_$tiles" "$work/none" "$gpuproc" "${job[@]}" "${pose[@]}" --device "$device" "$source_video" \
      --set output.dir="$work/f_source_$tiles" --set pose.detector_tiles=$tiles --report "$work/f_source_$tiles.json"
  done
  # The landmark smoothing's effect (tiles 1 again without it) and streaming mode with tiles 2 and
  # the annotated preview.
  timed f_source_unsmoothed "$work/none" "$gpuproc" "${job[@]}" "${pose[@]}" --device "$device" "$source_video" \
    --set output.dir="$work/f_source_unsmoothed" --set pose.smooth_landmarks=false
  timed f_source_streaming_preview "$work/none" "$gpuproc" "${job[@]}" "${pose[@]}" --device "$device" "$source_video" \
    --set output.dir="$work/f_source_streaming" --set pose.detector_tiles=2 --set run.mode=streaming \
    --set output.pose.preview=true --report "$work/f_source_streaming.json"
fi

clips=${BENCH_CLIPS:-16}
if ((clips > 0)); then
  echo "(g) $clips different clips at once"
  mkdir -p "$work/g_clips"
  many=()
  for ((k = 0; k < clips; ++k)); do
    flip=""; ((k % 2)) && flip=",hflip"
    "$ffmpeg" -v error -y -ss $((k * 3)) -stream_loop -1 -i "$source_video" -frames:v "$frames" \
      -vf "scale=1920:1080:flags=bicubic$flip" -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p -an \
      "$work/g_clips/clip$k.mp4" &
    many+=("$work/g_clips/clip$k.mp4")
  done
  wait
  timed g_one "$work/none" "$gpuproc" "${job[@]}" --device "$device" "${many[0]}" --set output.dir="$work/g1" \
    --report "$work/g_one.json"
  timed g_many "$work/none" "$gpuproc" "${job[@]}" --device "$device" "${many[@]}" --set output.dir="$work/gm" \
    --report "$work/g_many.json"
  for k in ${BENCH_IN_FLIGHT:-}; do
    timed "g_many_in_flight_$k" "$work/none" "$gpuproc" "${job[@]}" --device "$device" "${many[@]}" \
      --set output.dir="$work/gm$k" --set run.videos_in_flight="$k"
    rm -rf "$work/gm$k"
  done
  timed g_codec_limit "$work/none" bash -c "mkdir -p '$work/gc' && for c in ${many[*]}; do \
    '$ffmpeg' -v error -y -threads 0 -i \$c -vf format=gray -c:v ffv1 -threads 0 '$work/gc/'\$(basename \$c .mp4).mkv & done; wait"
fi

host=${BENCH_HOST:-$( (nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || true) | head -1 | awk '{print tolower($2)}')}
python3 - "$work" "$result" "$frames" "$cpu_frames" "$source_video" "$root/scripts/bench/results" "${host:-host}" \
  "$long_frames" <<'PY'
import json, os, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(sys.argv[6]), ""))
from bench_results import read_runs, ok_time, sh, gpu_figures
work, result, frames, cpu_frames, source, results_dir, host, long_frames = sys.argv[1:9]
frames, cpu_frames, long_frames = int(frames), int(cpu_frames), int(long_frames)
runs = read_runs(os.path.join(work, "runs.tsv"))

def load(name):
    p = os.path.join(work, name)
    return json.load(open(p)) if os.path.exists(p) else None

def rate(n, s):
    return round(n / s, 1) if s else None

out = {"benchmark": "segment-body (issue 6)", "gpu": sh("nvidia-smi --query-gpu=name,driver_version --format=csv,noheader"),
       "cpu": sh("lscpu | grep 'Model name' | cut -d: -f2"), "cores": os.cpu_count(),
       "clip": {"source": source, "frames": frames, "size": "1920x1080", "codec": "libx264 medium crf 20 yuv420p"},
       "runs": runs}
# (a) model only
model_only = {}
for m in ("selfie_segmentation", "selfie_segmentation_landscape"):
    j = load(f"infer-{m}.json")
    if j: model_only[m] = j
out["a_model_only"] = model_only
# (b) end to end
b, bs, c = load("b_gpu.json"), load("b_streaming.json"), load("c_cpu.json")
t_b, t_bs, t_c = ok_time(runs, "b_gpu"), ok_time(runs, "b_streaming"), ok_time(runs, "c_cpu")
out["b_gpu"] = {"wall_s": t_b, "frames_per_s": rate(frames, t_b),
                "frames_per_s_after_start": b["extra"].get("frames_per_s") if b else None,
                "stages": b.get("stages") if b else None, "extra": b.get("extra") if b else None,
                "gpu": gpu_figures(b)}
out["b_streaming"] = {"wall_s": t_bs, "frames_per_s": rate(frames, t_bs),
                      "latency_ms": bs["extra"].get("latency_ms") if bs else None,
                      "compute_latency_ms": bs["extra"].get("compute_latency_ms") if bs else None}
out["c_cpu"] = {"frames": cpu_frames, "wall_s": t_c, "frames_per_s": rate(cpu_frames, t_c),
                "frames_per_s_after_start": c["extra"].get("frames_per_s") if c else None}
# (d) codec limit
t_dec, t_enc = ok_time(runs, "d_decode"), ok_time(runs, "d_encode")
limit_s = max(t_dec, t_enc) if t_dec and t_enc else None
out["d_codec_limit"] = {"decode_s": t_dec, "encode_s": t_enc, "limit_s": limit_s, "serial_s": (t_dec + t_enc) if limit_s else None,
                        "frames_per_s": rate(frames, limit_s), "decode_frames_per_s": rate(frames, t_dec),
                        "encode_frames_per_s": rate(frames, t_enc)}
# (b)'s timeline: when the encoder got its first mask, and how long it then took for all of them.
trace = load("b_gpu_trace.json")
if trace:
    spans = [e for e in (trace["traceEvents"] if isinstance(trace, dict) else trace) if e.get("ph") == "X"]
    origin = min(e["ts"] for e in spans)
    enc = [e for e in spans if e["name"] == "encode+write"]
    if enc:
        first, last = min(e["ts"] for e in enc), max(e["ts"] + e["dur"] for e in enc)
        window = (last - first) / 1e6
        out["b_gpu"]["timeline"] = {"startup_s": round((first - origin) / 1e6, 3), "encoder_window_s": round(window, 3),
                                    "encoder_busy_s": round(sum(e["dur"] for e in enc) / 1e6, 3),
                                    "after_last_mask_s": round(t_b - (last - origin) / 1e6, 3) if t_b else None,
                                    "encoder_window_over_encode_limit": round(window / t_enc, 3) if t_enc else None,
                                    "note": "from the first traced span (driver init) of b_gpu's --trace; after_last_mask_s: "
                                            "process wall clock left after the last encode (teardown, process start before the first span)"}
# (e) the longer clip
if long_frames > 0:
    t_e, t_dec_l, t_enc_l = ok_time(runs, "e_gpu"), ok_time(runs, "d_decode_long"), ok_time(runs, "d_encode_long")
    limit_l = max(t_dec_l, t_enc_l) if t_dec_l and t_enc_l else None
    out["e_long_clip"] = {"frames": long_frames, "wall_s": t_e, "frames_per_s": rate(long_frames, t_e),
                          "decode_s": t_dec_l, "encode_s": t_enc_l, "limit_s": limit_l,
                          "e2e_over_codec_limit": round(t_e / limit_l, 3) if t_e and limit_l else None}
fp16_64 = None
j = model_only.get("selfie_segmentation")
if j:
    for r in j.get("results", j.get("runs", [])):
        if r.get("precision") == "fp16" and r.get("batch") == 64:
            fp16_64 = r.get("frames_per_s") or r.get("throughput", {}).get("frames_per_s")
# The GPU latency: the compute stage's (upload -> mask on the host); latency_ms adds the queue waits
# of a decoder running faster than real time and of the encoder, also in the JSON.
p99 = (bs or {}).get("extra", {}).get("compute_latency_ms", {}).get("p99")
ratio = round(t_b / limit_s, 3) if t_b and limit_s else None
out["ratios"] = {"e2e_over_codec_limit": ratio,
                 "e2e_over_codec_limit_long_clip": out.get("e_long_clip", {}).get("e2e_over_codec_limit"), "gpu_over_cpu_rate": round(rate(frames, t_b) / rate(cpu_frames, t_c), 1) if t_b and t_c else None}
out["targets"] = {"model_only_fp16_b64_frames_per_s": {"value": fp16_64, "target": ">= 2000", "met": fp16_64 is not None and fp16_64 >= 2000},
                  "streaming_p99_ms": {"value": p99, "target": "< 10", "met": p99 is not None and p99 < 10},
                  "e2e_over_codec_limit": {"value": ratio, "target": "<= 1.2", "met": ratio is not None and ratio <= 1.2}}
long_ratio = out["ratios"]["e2e_over_codec_limit_long_clip"]
if long_ratio is not None:
    out["targets"]["e2e_over_codec_limit_long_clip"] = {"value": long_ratio, "target": "<= 1.2", "met": long_ratio <= 1.2,
                                                        "frames": long_frames}
# (f) BlazePose
if load("infer-pose_landmark_full.json"):
    def fp16_rate(j, batch):
        for r in (j or {}).get("results", (j or {}).get("runs", [])):
            if r.get("precision") == "fp16" and r.get("batch") == batch:
                return r.get("frames_per_s") or r.get("throughput", {}).get("frames_per_s")
        return None
    f = {"model_only": {m: load(f"infer-{m}.json") for m in ("pose_landmark_full", "pose_landmark_lite", "pose_detection")}}
    t_f, t_fs = ok_time(runs, "f_pose_gpu"), ok_time(runs, "f_pose_streaming")
    fg, fs = load("f_pose_gpu.json"), load("f_pose_streaming.json")
    f["clip_pose_full"] = {"wall_s": t_f, "frames_per_s": rate(frames, t_f), "extra": (fg or {}).get("extra"),
                           "streaming_wall_s": t_fs, "streaming_compute_latency_ms": (fs or {}).get("extra", {}).get("compute_latency_ms")}
    def jitter(frames_people):
        # Mean second difference of the landmarks of each ID over three consecutive frames, in % of
        # the person's box height: what smoothing takes out (steady motion has none).
        total, n = 0.0, 0
        for a, b, c in zip(frames_people, frames_people[1:], frames_people[2:]):
            for pid, pc in c.items():
                if pid in a and pid in b:
                    pa, pb = a[pid], b[pid]
                    h = max(1.0, pc["box"][3] - pc["box"][1])
                    for la, lb, lc in zip(pa["landmarks"], pb["landmarks"], pc["landmarks"]):
                        total += 100 * (abs(lc[0] - 2 * lb[0] + la[0]) + abs(lc[1] - 2 * lb[1] + la[1])) / 2 / h
                        n += 1
        return round(total / n, 4) if n else None
    people = {}
    for name, run in (("tiles_0", "f_source_tiles_0"), ("tiles_1", "f_source_tiles_1"), ("tiles_2", "f_source_tiles_2"),
                      ("tiles_1_unsmoothed", "f_source_unsmoothed"), ("tiles_2_streaming", "f_source_streaming_preview")):
        folder = os.path.join(work, run.replace("f_source_tiles_", "f_source_").replace("_preview", ""))
        lines = [os.path.join(folder, n) for n in os.listdir(folder) if n.endswith("_pose.jsonl")] if os.path.isdir(folder) else []
        if not lines:
            continue
        counts, ids, by_id = [], set(), []
        for line in open(lines[0]):
            d = json.loads(line)
            counts.append(len(d["people"]))
            ids.update(p["id"] for p in d["people"] if p["id"] > 0)
            by_id.append({p["id"]: p for p in d["people"] if p["id"] > 0})
        csvs = [n for n in os.listdir(folder) if n.endswith("_pose.csv")]
        previews = [n for n in os.listdir(folder) if n.endswith("_pose_preview.mp4")]
        people[name] = {"frames": len(counts), "mean_people_per_frame": round(sum(counts) / max(1, len(counts)), 3),
                        "max_people_in_a_frame": max(counts or [0]), "frames_with_nobody": counts.count(0),
                        "distinct_confirmed_ids": len(ids), "landmark_jitter_pct_of_height": jitter(by_id),
                        "csv_rows": sum(1 for _ in open(os.path.join(folder, csvs[0]))) - 1 if csvs else None,
                        "preview_frames": int(sh(f"ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames -of csv=p=0 '{os.path.join(folder, previews[0])}'") or 0) if previews else None,
                        "wall_s": ok_time(runs, run)}
    f["source_video_people"] = people
    f["source_video_people_note"] = ("no annotation of the source's pedestrians is at hand: distinct IDs count tracks, which "
                                     "a person who is lost for over 30 frames or a false detection adds to")
    out["f_pose"] = f
    rois = fp16_rate(f["model_only"]["pose_landmark_full"], 64)
    p99_pose = (f["clip_pose_full"]["streaming_compute_latency_ms"] or {}).get("p99")
    out["targets"]["pose_full_fp16_b64_rois_per_s"] = {"value": rois, "target": ">= 3000", "met": rois is not None and rois >= 3000}
    out["targets"]["pose_streaming_p99_ms"] = {"value": p99_pose, "target": "< 10 (clip's people)", "met": p99_pose is not None and p99_pose < 10}
# (g) many clips at once
t_one, t_many, t_limit = ok_time(runs, "g_one"), ok_time(runs, "g_many"), ok_time(runs, "g_codec_limit")
if t_many:
    gm = load("g_many.json")
    n_clips = (gm or {}).get("extra", {}).get("videos")
    total = frames * (n_clips or 0)
    g = {"clips": n_clips, "frames_each": frames, "one_clip_s": t_one, "one_clip_frames_per_s": rate(frames, t_one),
         "many_s": t_many, "many_frames_per_s": rate(total, t_many), "videos_in_flight": (gm or {}).get("extra", {}).get("videos_in_flight"),
         "codec_limit_s": t_limit, "codec_limit_frames_per_s": rate(total, t_limit), "gpu": gpu_figures(gm)}
    g["aggregate_over_one"] = round(g["many_frames_per_s"] / g["one_clip_frames_per_s"], 2) if t_one else None
    g["many_over_codec_limit"] = round(t_many / t_limit, 3) if t_limit else None
    sweep = {name.rsplit("_", 1)[1]: ok_time(runs, name) for name in runs if name.startswith("g_many_in_flight_")}
    if sweep:  # BENCH_IN_FLIGHT: the same job with run.videos_in_flight set
        g["in_flight_sweep"] = {k: {"s": t, "frames_per_s": rate(total, t),
                                    "over_one": round(rate(total, t) / g["one_clip_frames_per_s"], 2) if t and t_one else None}
                                for k, t in sweep.items()}
    out["g_many_clips"] = g
    out["targets"]["many_clips_aggregate_over_one"] = {"value": g["aggregate_over_one"], "target": ">= 4",
                                                       "met": g["aggregate_over_one"] is not None and g["aggregate_over_one"] >= 4}
    out["targets"]["many_clips_over_codec_limit"] = {"value": g["many_over_codec_limit"], "target": "<= 1.3",
                                                     "met": g["many_over_codec_limit"] is not None and g["many_over_codec_limit"] <= 1.3}
text = json.dumps(out, indent=1)
open(result, "w").write(text + "\n")
open(os.path.join(results_dir, f"segment_body-{host}-{time.strftime('%Y%m%d')}.json"), "w").write(text + "\n")
print(json.dumps(out["targets"], indent=1))
PY
echo "result: $result"
