#!/usr/bin/env bash
# stitch-360 benchmark, for a GPU machine: N 7680x3840 q95 JPEG panoramas -> 8 perspective
# views of 1920x1920, 90 degrees (ring8: yaw 0, 45, ... 315, pitch 0), JPEG q95 4:2:0. The inputs:
# min(N, U) distinct panoramas made by gpuproc-make-samples (pano_XXXXX.jpg), and the rest, up to N,
# hard links to them in the same folder, cycling over them (round k >= 1: rK_pano_XXXXX.jpg), so a
# job of the issue's size (1920) costs U panoramas of generation; decoding the same bytes again is
# the same work (each input is read and decoded anew; the page cache holds the inputs either way).
# Through
#   (a) gpuproc on the GPU, all N panoramas, after an untimed warm-up run on a few of them. The time
#       is the process's wall clock: start-up (CUDA context, nvJPEG set-up), reading, decoding,
#       projecting, encoding, EXIF, the COLMAP rig files and the atomic writes of every view. The
#       job's own report (wall_s from the runtime's start to the last output) is given beside it.
#       Steady state, from its --trace: start-up ends where the first "gpu encode" span ends (the
#       first GPU batch done, after CUDA context, nvJPEG and encoder-state set-up); the steady rate
#       is the "write" spans (one per panorama) that start after that, over the time from then to
#       the end of the last "write". Per-span counts, totals and means of (a) and (b) are listed.
#   (b) gpuproc --device cpu on the first BENCH_CPU_N panoramas (an @list file), same config.
#   (c) ffmpeg v360 making the same 8 views, one ffmpeg process per panorama (-threads 1, one
#       filter graph: split=8 and eight v360=e:flat:yaw=Y:pitch=0:h_fov=90:v_fov=90:w=1920:h=1920:
#       interp=linear, yaws past 180 written as Y - 360, which v360 requires), T processes at a time
#       (xargs -P), on the first BENCH_FFMPEG_N panoramas. JPEG by ffmpeg's mjpeg encoder at -q:v 2:
#       its tables are the MPEG-1 intra matrix x 2/8 (one table for luma and chroma; libjpeg's
#       q95 is the JPEG tables x 0.1). Measured on a bench panorama (view yaw000, each output
#       against its own pre-compression view): q:v 2 46.0 dB, gpuproc q95 4:2:0 45.3 dB, q:v 1
#       47.8 dB; q:v 2 is the closer, and is what the brief named. Its files are ~2.7x smaller
#       (optimal Huffman tables, coarser high frequencies on this noisy content): see output_bytes.
#       ffmpeg works in the JPEG's own YCbCr 4:2:0 from decode to encode (no RGB conversion).
#   (d) the codec limit, gpuproc-bench-jpeg: decode every panorama and encode 8 1920x1920 tiles
#       of it, nothing else, files already in memory, outputs kept in memory; with --gpu (nvJPEG,
#       the workers and batch size (a) uses) over all N, and on the CPU (TurboJPEG, T threads) over
#       (b)'s panoramas (the floor of (b)). Its figures are in-process (no start-up: each worker
#       warms up untimed; no reads, no writes); it also times decode alone and encode alone (which
#       side bounds the codec). It holds all its inputs in memory: N x ~4.7 MB at 7680x3840.
#   (e) agreement with ffmpeg v360 before JPEG compression: the first panorama converted once to an
#       RGB PNG (ffmpeg), projected by gpuproc (GPU when there is one; --set output.format=png) and
#       by v360 (rgb24, PNG out); PSNR of each view by ffmpeg's psnr filter (its "average"). Target
#       >= 40 dB (bilinear). Also, informational: both starting from the JPEG (gpuproc decodes to
#       RGB; ffmpeg projects the YCbCr 4:2:0 planes and converts the views to RGB).
# Then the video phases (stitch_360_video.sh, whose header says what each figure is): (v1) an 8K
# H.264 equirect video, every frame to ring8 views, and (v2) a 5.7K dual-fisheye video, every frame
# to equirect, each against ffmpeg v360 in the same run and the CPU decode limit of the video
# (target: within 1.2x of it); and (x), HDR EXR panoramas to cubemap faces (stitch_360_hdr.sh).
# Panoramas per second are count / wall time of that run, so the subsets of (b) and (c) compare
# with (a) fairly. The targets on (a) (>= 150 panoramas/s, >= 0.85 x the GPU codec limit) are each
# evaluated twice: on the whole run and on the steady state. Writes one JSON with the times, rates,
# ratios, targets, the trace analysis and the machine.
#   scripts/bench/stitch_360.sh [RESULT.json]   (default: $OUT/bench_stitch_360.json, else ./bench_stitch_360.json)
# Environment:
#   GPUPROC_BUILD      build folder, absolute or relative to the repository (default build-gpu)
#   BENCH_N, BENCH_W   panoramas and their width (height = width / 2) (default 1024, 7680)
#   BENCH_UNIQUE       distinct panoramas generated; the others are hard links to them (default 256)
#   BENCH_THREADS      CPU threads for (b), (c) and the CPU codec limit (default: nproc)
#   BENCH_DEVICE       device of (a) and (e) (default cuda:0)
#   BENCH_CPU_N        panoramas for (b) and the CPU codec limit (default min(N, 48))
#   BENCH_FFMPEG_N     panoramas for (c) (default min(N, 48))
#   BENCH_GPU_WORKERS  GPU workers of (a) and (d) (default: the bench config's run.gpu_workers)
#   BENCH_KEEP=1       keep the work folder (panoramas, logs)
#   BENCH_PHASES       which of stills, v1, v2, x run (default "stills v1 v2 x"); the others are reported skipped
#   BENCH_VIDEO_S, BENCH_VIDEO_FPS, BENCH_VIDEO_W, BENCH_FISHEYE_W, BENCH_VIDEO_VIEW: the videos'
#                      length and rate, the widths of (v1) and (v2), (v1)'s view size (6, 30, 7680, 5760,
#                      the config's); a CPU smoke test: BENCH_DEVICE=cpu BENCH_N=2 BENCH_W=512
#                      BENCH_VIDEO_S=1 BENCH_VIDEO_FPS=10 BENCH_VIDEO_W=512 BENCH_FISHEYE_W=384 BENCH_VIDEO_VIEW=128
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source "$root/scripts/bench/bench_common.sh"
bench_jpeg=$build/apps/bench-jpeg/gpuproc-bench-jpeg
config=$root/scripts/bench/stitch_360_bench.json
n=${BENCH_N:-1024} width=${BENCH_W:-7680}
unique=${BENCH_UNIQUE:-256}
((n >= 1 && unique >= 1)) || { echo "stitch_360.sh: BENCH_N and BENCH_UNIQUE must be at least 1" >&2; exit 2; }
unique=$((unique < n ? unique : n))
threads=${BENCH_THREADS:-$(nproc)}
device=${BENCH_DEVICE:-cuda:0}
cpu_n=${BENCH_CPU_N:-$((n < 48 ? n : 48))}
ffmpeg_n=${BENCH_FFMPEG_N:-$((n < 48 ? n : 48))}
cpu_n=$((cpu_n < n ? cpu_n : n)) ffmpeg_n=$((ffmpeg_n < n ? ffmpeg_n : n))
result=${1:-${OUT:-.}/bench_stitch_360.json}
phases=" ${BENCH_PHASES:-stills v1 v2 x} "
phase() { [[ $phases == *" $1 "* ]]; }
mkdir -p "$(dirname "$result")"

make_work_folder

# Settings shared with the peers, read from the bench config (// comment lines stripped).
read -r view_w view_h hfov quality chroma batch config_workers < <(python3 - "$config" <<'PY'
import json, re, sys
c = json.loads("\n".join(l for l in open(sys.argv[1]) if not re.match(r"\s*//", l)))
v, o, r = c["views"], c["output"], c.get("run", {})
assert c["mode"] == "views" and v["preset"] == "ring8", "the ffmpeg peer makes ring8's views"
print(v["width"], v["height"], v["hfov"], o["quality"], o["chroma"], r.get("batch", 16), r.get("gpu_workers", 2))
PY
)
gpu_workers=${BENCH_GPU_WORKERS:-$config_workers}
views=8  # ring8


[[ -x $make_samples ]] || { echo "stitch_360.sh: $make_samples not built" >&2; exit 2; }
has_gpu=0
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && has_gpu=1

# (a) and (b): gpuproc. Inputs go before the options.
gpuproc_run() {  # gpuproc_run NAME DEVICE INPUTS [OPTION...]
  timed "$1" "$work/out-$1" "$gpuproc" stitch-360 "$3" --config "$config" --device "$2" --threads "$threads" \
    --set output.dir="$work/out-$1" --set run.gpu_workers="$gpu_workers" --progress none \
    --report "$work/report-$1.json" --trace "$work/trace-$1.json" "${@:4}"
}

# The ring8 views as one ffmpeg filter graph: [o0] .. [o7] from input 0 (after PREFIX, e.g. format=rgb24,),
# W x H each (default: the bench config's view size).
v360_graph() {
  local prefix=$1 w=${2:-$view_w} h=${3:-$view_h} graph k yaw
  graph="[0:v]${prefix}split=$views"
  for ((k = 0; k < views; k++)); do graph+="[s$k]"; done
  for ((k = 0; k < views; k++)); do
    yaw=$((k * 45)); ((yaw > 180)) && yaw=$((yaw - 360))  # v360 takes yaw in -180..180
    graph+=";[s$k]v360=e:flat:yaw=$yaw:pitch=0:h_fov=$hfov:v_fov=$hfov:w=$w:h=$h:interp=linear[o$k]"
  done
  echo "$graph"
}
view_name() { printf 'yaw%03d' $(($1 * 45)); }  # ring8's view names in gpuproc's output names

# ---- Still panoramas: (a) .. (e) above.
if phase stills; then
  echo "panoramas: $n ($unique distinct) x ${width}x$((width / 2)) -> $views views ${view_w}x${view_h};" \
    "(b) $cpu_n, (c) $ffmpeg_n; $threads threads; work folder on $(df -h "$work" | awk 'NR==2{print $1}')"
  timed generate "" "$make_samples" stitch-bench "$work/in" "$unique" "$width"
  distinct=("$work"/in/pano_*.jpg)
  [[ -f ${distinct[0]} ]] && ((${#distinct[@]} == unique)) || {
    echo "stitch_360.sh: expected $unique generated panoramas, found ${#distinct[@]}" >&2; cat "$work/logs/generate.err" >&2; exit 1
  }
  # The rest of the N inputs: hard links cycling over the distinct ones (round k: rK_pano_XXXXX.jpg).
  for ((i = unique; i < n; i++)); do
    src=${distinct[i % unique]}
    ln "$src" "$work/in/r$((i / unique))_$(basename "$src")"
  done
  panos=("$work"/in/*.jpg)  # pano_* sort before r*_pano_*: the subsets below start with distinct ones
  ((${#panos[@]} == n)) || { echo "stitch_360.sh: expected $n inputs, found ${#panos[@]}" >&2; exit 1; }
  printf '%s\n' "${panos[@]:0:cpu_n}" >"$work/cpu.list"
  warmup_n=$((n < gpu_workers * batch ? n : gpu_workers * batch))  # a batch per GPU worker
  printf '%s\n' "${panos[@]:0:warmup_n}" >"$work/warmup.list"

  if [[ -x $gpuproc ]]; then
    # The fixed cost of a process (gpuproc --version: no CUDA context), best of three.
    for k in 1 2 3; do timed "startup_$k" "" "$gpuproc" --version; done
    if ((has_gpu)); then
      gpuproc_run gpu_warmup "$device" "@$work/warmup.list"  # first CUDA/nvJPEG use on the machine: not timed
      gpuproc_run gpu "$device" "$work/in"
      # The disk's sustained write rate with a flush at the end (the floor of (a)'s durable writes),
      # then (a) again with --no-fsync: writes land in the page cache and the kernel flushes later.
      timed disk_write "" dd if=/dev/zero of="$work/disk-write.bin" bs=16M count=256 conv=fdatasync status=none
      rm -f "$work/disk-write.bin"
      gpuproc_run gpu_no_fsync "$device" "$work/in" --no-fsync
    else
      skip gpu_warmup "no GPU"; skip gpu "no GPU"; skip disk_write "no GPU"; skip gpu_no_fsync "no GPU"
    fi
    gpuproc_run cpu cpu "@$work/cpu.list"
  else
    skip gpu_warmup "no $gpuproc"; skip gpu "no $gpuproc"; skip gpu_no_fsync "no $gpuproc"; skip cpu "no $gpuproc"
  fi


  # (c) ffmpeg v360: one process per panorama, single-threaded (decoder, filter graph, encoders), T at a time.
  if command -v ffmpeg >/dev/null; then
    graph=$(v360_graph "")
    mkdir -p "$work/out-ffmpeg"
    for pano in "${panos[@]:0:ffmpeg_n}"; do
      stem=$(basename "$pano" .jpg)
      cmd="ffmpeg -nostdin -v error -y -threads 1 -i '$pano' -filter_complex_threads 1 -filter_complex '$graph'"
      for ((k = 0; k < views; k++)); do
        cmd+=" -map '[o$k]' -threads 1 -q:v 2 '$work/out-ffmpeg/${stem}_$(view_name $k).jpg'"
      done
      echo "$cmd"
    done >"$work/ffmpeg-commands.txt"
    # Each line is one shell command: xargs hands it to sh -c, T at a time.
    timed ffmpeg "$work/out-ffmpeg" xargs -P "$threads" -d '\n' -n 1 sh -c <"$work/ffmpeg-commands.txt"
  else
    skip ffmpeg "no ffmpeg on PATH"
  fi

  # (d) the codec limit, through gp::io like gpuproc: GPU over all N, CPU over (b)'s panoramas.
  # A GPU run is made once more where nvJPEG's hardware decoder failed inside itself
  # (NVJPEG_STATUS_ALLOCATOR_FAILURE in nvjpegDecodeBatched with none of our allocator's calls
  # failing: twice on an H100, once in six runs on the H200 (a --project run of 1024; at most 23 of
  # its 139 GB in use in the same runs: not the memory running out); the failed attempt stays in
  # the runs table as NAME_failed.
  timed_codec() {
    local name=$1
    shift
    timed "$name" "" "$@"
    if [[ $(awk -F'\t' -v n="$name" '$1 == n {rc = $3} END {print rc}' "$runs") != 0 ]] &&
      grep -q NVJPEG_STATUS_ALLOCATOR_FAILURE "$work/logs/$name.err"; then
      mv "$work/logs/$name.err" "$work/logs/${name}_failed.err"
      mv "$work/logs/$name.out" "$work/logs/${name}_failed.out"
      sed -i "s/^$name\t/${name}_failed\t/" "$runs"
      timed "$name" "" "$@"
    fi
  }
  if [[ -x $bench_jpeg ]]; then
    codec_args=(--views "$views" --size "$view_w" --quality "$quality" --chroma "$chroma")
    if ((view_w != view_h)); then echo "  (codec limit: square tiles of $view_w, the views are ${view_w}x$view_h)"; fi
    if ((has_gpu)); then
      timed_codec codec_gpu "$bench_jpeg" --gpu --device "$device" --workers "$gpu_workers" --batch "$batch" \
        "${codec_args[@]}" "${panos[@]}"
      # Informational: the same with ring views projected instead of tiles (codec + projection, no pipeline).
      timed_codec codec_gpu_project "$bench_jpeg" --gpu --project --device "$device" --workers "$gpu_workers" \
        --batch "$batch" "${codec_args[@]}" "${panos[@]}"
    else
      skip codec_gpu "no GPU"; skip codec_gpu_project "no GPU"
    fi
    timed codec_cpu "" "$bench_jpeg" --threads "$threads" "${codec_args[@]}" "${panos[@]:0:cpu_n}"
  else
    skip codec_gpu "no $bench_jpeg"; skip codec_cpu "no $bench_jpeg"
  fi

  # (e) PSNR against ffmpeg v360 on the first panorama, before JPEG compression.
  psnr_device=cpu
  ((has_gpu)) && psnr_device=$device
  psnr_tsv=$work/psnr.tsv  # input kind, view, dB
  : >"$psnr_tsv"
  psnr_of() {  # psnr_of A.png B.png: ffmpeg psnr's average over R, G, B
    ffmpeg -nostdin -hide_banner -i "$1" -i "$2" -lavfi "[0:v]format=rgb24[a];[1:v]format=rgb24[b];[a][b]psnr" -f null - 2>&1 |
      grep -o 'average:[0-9.inf]*' | tail -1 | cut -d: -f2
  }
  compare_views() {  # compare_views KIND INPUT: gpuproc and v360 views of INPUT as PNG, PSNR per view
    local kind=$1 input=$2 stem k v db
    stem=$(basename "${input%.*}")
    "$gpuproc" stitch-360 "$input" --config "$config" --device "$psnr_device" --set output.dir="$work/psnr-$kind/gpuproc" \
      --set output.format=png --progress none >"$work/logs/psnr-$kind-gpuproc.log" 2>&1 || return 1
    local maps=() fmt=""
    [[ $kind == rgb ]] && fmt="format=rgb24,"
    for ((k = 0; k < views; k++)); do maps+=(-map "[o$k]" -pix_fmt rgb24 "$work/psnr-$kind/ffmpeg/$(view_name $k).png"); done
    mkdir -p "$work/psnr-$kind/ffmpeg"
    ffmpeg -nostdin -v error -y -i "$input" -filter_complex "$(v360_graph "$fmt")" "${maps[@]}" \
      >"$work/logs/psnr-$kind-ffmpeg.log" 2>&1 || return 1
    for ((k = 0; k < views; k++)); do
      v=$(view_name $k)
      db=$(psnr_of "$work/psnr-$kind/gpuproc/$v/$stem.png" "$work/psnr-$kind/ffmpeg/$v.png")
      printf '%s\t%s\t%s\n' "$kind" "$v" "${db:-}" >>"$psnr_tsv"
    done
    echo "  psnr ($kind input, gpuproc on $psnr_device): $(awk -F'\t' -v k="$kind" '$1 == k {printf "%s ", $3}' "$psnr_tsv")dB"
  }
  if command -v ffmpeg >/dev/null && [[ -x $gpuproc ]]; then
    ffmpeg -nostdin -v error -y -i "${panos[0]}" -pix_fmt rgb24 "$work/psnr-panorama.png"
    compare_views rgb "$work/psnr-panorama.png" || echo "  psnr (rgb input) failed: see $work/logs/psnr-rgb-*.log"
    compare_views jpeg "${panos[0]}" || echo "  psnr (jpeg input) failed: see $work/logs/psnr-jpeg-*.log"
  else
    echo "  psnr: skipped (needs ffmpeg and $gpuproc)"
  fi
else
  mkdir -p "$work/in"; : >"$work/psnr.tsv"; psnr_device=cpu
  for r in generate gpu_warmup gpu disk_write gpu_no_fsync cpu ffmpeg codec_gpu codec_gpu_project codec_cpu; do skip "$r" "BENCH_PHASES"; done
fi

source "$root/scripts/bench/stitch_360_video.sh"  # (v1), (v2) and (x)

# Reports and traces (chrome://tracing, ui.perfetto.dev) beside the result, for the timeline.
for r in gpu cpu; do
  for kind in report trace; do
    [[ -f $work/$kind-$r.json ]] && cp "$work/$kind-$r.json" "${result%.json}.$kind-$r.json"
  done
done

python3 - "$runs" "$result" <<PY
import json, os, platform, sys
runs_path, result_path = sys.argv[1:3]
work, n, cpu_n, ffmpeg_n, views = "$work", $n, $cpu_n, $ffmpeg_n, $views

sys.path.insert(0, "$root/scripts/bench")
from bench_results import read_runs, sh, ok_time as run_time
from stitch_360_video import video_results

runs = read_runs(runs_path)
ok_time = lambda name: run_time(runs, name)

def load(path, run):
    return json.load(open(path)) if os.path.exists(path) and runs.get(run, {}).get("exit_code") == 0 else None

def report(name):
    path = f"{work}/report-{name}.json"
    return json.load(open(path)) if os.path.exists(path) else None

codec_gpu = load(f"{work}/logs/codec_gpu.out", "codec_gpu")
codec_gpu_project = load(f"{work}/logs/codec_gpu_project.out", "codec_gpu_project")
codec_cpu = load(f"{work}/logs/codec_cpu.out", "codec_cpu")
rate = lambda count, seconds: round(count / seconds, 3) if seconds else None
ratio = lambda x, y: round(x / y, 3) if x is not None and y else None
target = lambda value, goal, passed: {"value": value, "target": goal, "pass": None if value is None else passed(value)}

a, b, c = ok_time("gpu"), ok_time("cpu"), ok_time("ffmpeg")
a_rate, b_rate, c_rate = rate(n, a), rate(cpu_n, b), rate(ffmpeg_n, c)
a_no_fsync = ok_time("gpu_no_fsync")
a_no_fsync_rate = rate(n, a_no_fsync)
# The disk: dd wrote 4 GiB and flushed it; (a)'s outputs at that rate are its durable floor.
disk_s = ok_time("disk_write")
disk_gb_s = disk_s and round(256 * 16 * 2**20 / disk_s / 1e9, 3)
a_bytes = runs.get("gpu", {}).get("output_bytes")
a_disk_floor_s = round(a_bytes / 1e9 / disk_gb_s, 3) if a_bytes and disk_gb_s else None
d_gpu_rate = codec_gpu and round(codec_gpu["panoramas_per_s"], 3)
d_cpu_rate = codec_cpu and round(codec_cpu["panoramas_per_s"], 3)
rep_a, rep_b = report("gpu"), report("cpu")
a_report_rate = rep_a and rate(n, rep_a.get("wall_s"))
startups = [t for t in (ok_time(f"startup_{k}") for k in (1, 2, 3)) if t is not None]

# A run's --trace (Chrome JSON, "X" spans in microseconds since the process started): per-span
# count, total and mean, and for a GPU run the steady state. Start-up ends where the first
# "gpu encode" span ends (the first GPU batch done); the steady rate is the "write" spans (one per
# panorama) starting after that, over the time from then to the end of the last "write". A CPU
# run's trace has no "gpu encode" (its figures are null), nor has a missing or failed run (all null).
def trace_analysis(name):
    path = f"{work}/trace-{name}.json"
    if runs.get(name, {}).get("exit_code") != 0 or not os.path.exists(path):
        return None
    try:
        events = json.load(open(path)).get("traceEvents", [])
    except ValueError:
        return None
    spans = [e for e in events if e.get("ph") == "X" and "ts" in e and "dur" in e]
    # GPU-stream tracks (pid 2) are told apart from host spans of the same name.
    key = lambda e: e["name"] if e.get("pid", 1) == 1 else "stream: " + e["name"]
    table = {}
    for e in spans:
        row = table.setdefault(key(e), {"count": 0, "total_ms": 0.0})
        row["count"] += 1
        row["total_ms"] += e["dur"] / 1000
    for row in table.values():
        row["mean_ms"] = round(row["total_ms"] / row["count"], 3)
        row["total_ms"] = round(row["total_ms"], 3)
    host = [e for e in spans if e.get("pid", 1) == 1]
    encodes = [e["ts"] + e["dur"] for e in host if e["name"] == "gpu encode"]
    writes = [e for e in host if e["name"] == "write"]
    startup_us = min(encodes) if encodes else None
    after = [e for e in writes if startup_us is not None and e["ts"] >= startup_us]
    end_us = max((e["ts"] + e["dur"] for e in after), default=None)
    window_s = (end_us - startup_us) / 1e6 if after else None
    return {"startup_s": None if startup_us is None else round(startup_us / 1e6, 3),
            "steady_state_pano_s": round(len(after) / window_s, 3) if window_s else None,
            "steady_window_s": None if window_s is None else round(window_s, 3),
            "writes": len(writes), "writes_after_startup": len(after) if startup_us is not None else None,
            "spans": dict(sorted(table.items()))}
trace_a, trace_b = trace_analysis("gpu"), trace_analysis("cpu")
a_steady = trace_a and trace_a["steady_state_pano_s"]

# Every view written, plus cameras.json, cameras.txt, images.txt, points3D.txt and rig_config.json,
# and the job's bookkeeping under .gpuproc/complete: a completion record per panorama and rig.lock.
def complete(name, count):
    r = runs.get(name, {})
    return None if "outputs" not in r else r["outputs"] == count * views + 5 + count + 1

psnr = {}
for line in open(f"{work}/psnr.tsv"):
    kind, view, db = line.rstrip("\n").split("\t")
    psnr.setdefault(kind, {})[view] = None if db in ("", "inf") else float(db)
def psnr_summary(kind):
    values = psnr.get(kind, {})
    known = [v for v in values.values() if v is not None]
    return {"views_db": values, "min_db": min(known) if len(known) == views else None,
            "mean_db": round(sum(known) / len(known), 3) if known else None}
psnr_rgb = psnr_summary("rgb")

panos = sorted(f for f in os.listdir(f"{work}/in") if f.endswith(".jpg"))
distinct = [f for f in panos if f.startswith("pano_")]
d_gpu_setup_rate = codec_gpu and round(n / (codec_gpu["warmup_s"] + codec_gpu["wall_s"]), 3)
result = {
    "benchmark": "stitch-360",
    "panoramas": {"count": len(panos), "unique": len(distinct), "unique_over_count": round(len(distinct) / len(panos), 4) if panos else None,
                  "width": $width, "height": $width // 2, "type": "JPEG q95 4:2:0, textured scenes with sensor noise",
                  "inputs": "the unique ones generated (pano_XXXXX.jpg), the rest hard links cycling over them (rK_pano_XXXXX.jpg)",
                  "bytes": sum(os.path.getsize(os.path.join(f"{work}/in", f)) for f in panos),
                  "unique_bytes": sum(os.path.getsize(os.path.join(f"{work}/in", f)) for f in distinct)},
    "views": {"preset": "ring8", "count": views, "width": $view_w, "height": $view_h, "hfov": $hfov,
              "jpeg_quality": $quality, "chroma": "$chroma", "interpolation": "bilinear"},
    "threads": $threads,
    "gpu_workers": $gpu_workers,
    "batch": $batch,
    "subsets": {"a_gpu": n, "b_cpu": cpu_n, "c_ffmpeg": ffmpeg_n, "d_codec_gpu": n, "d_codec_cpu": cpu_n},
    "config": os.path.relpath("$config", "$root"),
    "what_each_figure_includes": {
        "a_gpu": "gpuproc stitch-360 --device $device: process wall clock (start-up, CUDA context, read, nvJPEG decode, "
                 "project, nvJPEG encode, EXIF, rig files, atomic writes); panoramas_per_s.a_report uses the job report's wall_s instead (no process start and exit)",
        "a_steady_state": "from a's trace: 'write' spans starting after the end of the first 'gpu encode' span (start-up: CUDA context, "
                          "nvJPEG set-up, first batch), over the time from then to the end of the last 'write'; comparable with d_codec_gpu, "
                          "which excludes its own warm-up",
        "a_gpu_no_fsync": "a_gpu again with --no-fsync: outputs still written to a temporary and renamed, not flushed to disk "
                          "(the kernel writes them back after the process ends, as for ffmpeg's outputs)",
        "disk": "dd of 4 GiB of zeros with fdatasync into the work folder: the disk's sustained write rate; a_disk_floor_s = "
                "a_gpu's output bytes at that rate, the least time its durable writes can take",
        "b_cpu": "the same job with --device cpu (TurboJPEG, CPU projection), process wall clock",
        "c_ffmpeg": "ffmpeg v360 + mjpeg -q:v 2, one single-threaded process per panorama, $threads at a time (xargs -P), wall clock of all",
        "d_codec_gpu": "gpuproc-bench-jpeg --gpu: nvJPEG decode of every panorama + encode of 8 1920x1920 tiles each, in-process, "
                       "inputs in memory, outputs not written, after a warm-up batch per worker",
        "d_codec_cpu": "the same with TurboJPEG on $threads threads (the floor of b)",
        "d_codec_gpu_with_setup": "d_codec_gpu with its own set-up counted, as a codec-only process would pay it: nvJPEG handle, "
                                  "decoder and encoder states and a first batch per worker (its warmup_s) + wall_s; still without "
                                  "reading files or the CUDA context; comparable with a_gpu's whole run",
        "d_codec_gpu_project": "informational: d_codec_gpu encoding the 8 ring views projected on the GPU (bilinear, antialiasing) "
                               "instead of tiles: codec + projection without the pipeline",
        "psnr": "first panorama as an RGB PNG, gpuproc (output.format=png) vs ffmpeg v360 (rgb24, interp=linear), ffmpeg psnr average per view",
    },
    "disk": {"write_gb_per_s": disk_gb_s, "a_output_gb": a_bytes and round(a_bytes / 1e9, 3), "a_disk_floor_s": a_disk_floor_s},
    "times_s": {"generate": ok_time("generate"), "gpu_warmup": ok_time("gpu_warmup"), "a_gpu": a,
                "a_gpu_no_fsync": a_no_fsync, "b_cpu": b,
                "c_ffmpeg": c, "d_codec_gpu": codec_gpu and round(codec_gpu["wall_s"], 3),
                "d_codec_cpu": codec_cpu and round(codec_cpu["wall_s"], 3)},
    "panoramas_per_s": {"a_gpu": a_rate, "a_gpu_no_fsync": a_no_fsync_rate, "a_report": a_report_rate, "a_steady_state": a_steady, "b_cpu": b_rate,
                        "c_ffmpeg": c_rate, "d_codec_gpu": d_gpu_rate, "d_codec_gpu_with_setup": d_gpu_setup_rate,
                        "d_codec_cpu": d_cpu_rate,
                        "d_codec_gpu_project": codec_gpu_project and round(codec_gpu_project["panoramas_per_s"], 3)},
    "ratios": {"a_over_c": ratio(a_rate, c_rate), "a_over_d_gpu": ratio(a_rate, d_gpu_rate),
               "a_report_over_d_gpu": ratio(a_report_rate, d_gpu_rate), "a_steady_over_d_gpu": ratio(a_steady, d_gpu_rate),
               "a_over_d_gpu_with_setup": ratio(a_rate, d_gpu_setup_rate),
               "a_no_fsync_over_d_gpu_with_setup": ratio(a_no_fsync_rate, d_gpu_setup_rate),
               "a_over_b": ratio(a_rate, b_rate), "b_over_d_cpu": ratio(b_rate, d_cpu_rate)},
    "targets": {"a_at_least_150_pano_s_whole_run": target(a_rate, ">= 150 panoramas/s, process wall clock", lambda v: v >= 150),
                "a_at_least_150_pano_s_steady_state": target(a_steady, ">= 150 panoramas/s, after start-up", lambda v: v >= 150),
                "a_over_c_at_least_5": target(ratio(a_rate, c_rate), ">= 5", lambda v: v >= 5),
                "a_over_d_gpu_at_least_0.85_whole_run": target(ratio(a_rate, d_gpu_rate), ">= 0.85, process wall clock", lambda v: v >= 0.85),
                "a_over_d_gpu_with_setup_at_least_0.85_whole_run": target(ratio(a_rate, d_gpu_setup_rate), ">= 0.85, process wall clock against the codec limit with its set-up", lambda v: v >= 0.85),
                "a_over_d_gpu_at_least_0.85_steady_state": target(ratio(a_steady, d_gpu_rate), ">= 0.85, after start-up", lambda v: v >= 0.85),
                "psnr_vs_v360_at_least_40_db": target(psnr_rgb["min_db"], ">= 40 dB (min over the views)", lambda v: v >= 40)},
    "outputs_complete": {"a_gpu": complete("gpu", n), "a_gpu_no_fsync": complete("gpu_no_fsync", n),
                         "b_cpu": complete("cpu", cpu_n)},
    "output_bytes_per_view": {name: runs[name]["output_bytes"] // (count * views) if runs.get(name, {}).get("exit_code") == 0 and runs[name]["outputs"] else None
                              for name, count in (("gpu", n), ("cpu", cpu_n), ("ffmpeg", ffmpeg_n))},
    "psnr_vs_v360": {"rgb_input": psnr_rgb, "jpeg_input": psnr_summary("jpeg"), "gpuproc_device": "$psnr_device",
                     "jpeg_input_note": "informational: ffmpeg projects the JPEG's YCbCr 4:2:0 planes, gpuproc decoded RGB"},
    "process": {"startup_and_exit_s": min(startups) if startups else None,
                "a_report_wall_s": rep_a and rep_a.get("wall_s"), "b_report_wall_s": rep_b and rep_b.get("wall_s"),
                "a_report_stages": rep_a and rep_a.get("stages"), "a_report_extra": rep_a and rep_a.get("extra")},
    "trace_analysis": {"a_gpu": trace_a, "b_cpu": trace_b,
                       "note": "spans from each run's --trace (host spans by name; GPU-stream spans, if any, as 'stream: NAME'); "
                               "startup_s = end of the first 'gpu encode' span, null without one (CPU run)"},
    "runs": runs,
    "codec_gpu": codec_gpu,
    "codec_gpu_project": codec_gpu_project,
    "codec_cpu": codec_cpu,
    "machine": {"gpu": sh("nvidia-smi --query-gpu=name --format=csv,noheader"),
                "driver": sh("nvidia-smi --query-gpu=driver_version --format=csv,noheader"),
                "cpu": sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"),
                "nproc": os.cpu_count(), "host": platform.node(),
                "ffmpeg": sh("ffmpeg -hide_banner -version | head -1"),
                "gpuproc": sh("'$gpuproc' --version"), "gpuproc_info": sh("'$gpuproc' info")},
}
result.update(video_results(runs, work, "$device", $threads))  # (v1), (v2), and (x)
json.dump(result, open(result_path, "w"), indent=2)
print(json.dumps({"panoramas_per_s": result["panoramas_per_s"], "ratios": result["ratios"], "disk": result["disk"],
                  "startup_s": trace_a and trace_a["startup_s"],
                  "targets": {k: v["pass"] for k, v in result["targets"].items()},
                  "videos": {k: {"frames_per_s": v.get("frames_per_s"), "ratios": v.get("ratios"),
                                 "targets": {t: x["pass"] for t, x in v.get("targets", {}).items()}}
                             for k, v in result.items() if k in ("video_8k_ring8", "dual_fisheye_5k7_equirect")}}, indent=2))
print("wrote", result_path)
PY
