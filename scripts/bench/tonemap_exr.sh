#!/usr/bin/env bash
# tonemap-exr benchmark, for a GPU machine: N generated EXR frames (half RGBA, ZIP and PIZ) through
#   (a) gpuproc on the GPU (after an untimed warm-up run, whose time is reported too), EXR decoded
#       on the GPU (run.exr_decode auto); also with run.exr_decode cpu (OpenEXR, the default),
#   (b) gpuproc's CPU path,
#   (c) oiiotool doing the same work per frame (exposure, a Reinhard curve, sRGB, 8-bit PNG at zlib
#       level 1, every MIP level as a file, box filter), T frames at a time,
#   (d) gpuproc-bench-codec: decode + encode alone with T threads (the codec floor): gpuproc's
#       EXR decode (OpenEXR Core, T/4 files at a time on 4 threads each) plus the PNG encoder (a) uses (the GPU fast path at png_compression 1), and the
#       same with the CPU encoder (the floor of (b)),
#   (e) gpuproc-bench-codec --gpu-decode: the GPU EXR decoder alone, GB/s per compression,
# then (a) and (c) again on N frames of sensor-like noise alone (the codecs' worst case),
# each timed by wall clock, and writes one JSON with the times, ratios, targets and the machine.
#   scripts/bench/tonemap_exr.sh [RESULT.json]   (default: $OUT/bench_tonemap_exr.json, else ./bench_tonemap_exr.json)
# Environment:
#   GPUPROC_BUILD    build folder, absolute or relative to the repository (default build-gpu)
#   BENCH_N, BENCH_W, BENCH_H   frames and their size (default 20, 3840x2160)
#   BENCH_THREADS    CPU threads for (b), (c) and (d) (default: nproc)
#   BENCH_DEVICE     device of (a) (default cuda:0)
#   BENCH_MAKETX=1   also time maketx making a tiled MIP-mapped TIFF per frame (informational)
#   BENCH_NOISE=0    leave out the noise frames
#   BENCH_KEEP=1     keep the work folder (frames, outputs, logs)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source "$root/scripts/bench/bench_common.sh"
bench_codec=$build/apps/bench-codec/gpuproc-bench-codec
config=$root/scripts/bench/tonemap_exr_bench.json
n=${BENCH_N:-20} width=${BENCH_W:-3840} height=${BENCH_H:-2160}
threads=${BENCH_THREADS:-$(nproc)}
device=${BENCH_DEVICE:-cuda:0}
result=${1:-${OUT:-.}/bench_tonemap_exr.json}
mkdir -p "$(dirname "$result")"

make_work_folder

# Settings shared with the baseline, read from the bench config (// comment lines stripped).
read -r ev png_level < <(python3 - "$config" <<'PY'
import json, re, sys
c = json.loads("\n".join(l for l in open(sys.argv[1]) if not re.match(r"\s*//", l)))
print(c.get("exposure", {}).get("ev", 0), c.get("output", {}).get("png_compression", 6))
PY
)


[[ -x $make_samples ]] || { echo "tonemap_exr.sh: $make_samples not built" >&2; exit 2; }
echo "frames: $n x ${width}x${height}, $threads threads, work folder on $(df -h "$work" | awk 'NR==2{print $1}')"
timed generate "" "$make_samples" bench "$work/in" "$n" "$width" "$height"
frames=("$work"/in/*.exr)
[[ -f ${frames[0]} ]] || { echo "tonemap_exr.sh: no frames generated" >&2; cat "$work/logs/generate.err" >&2; exit 1; }

# (a) and (b): gpuproc. Inputs go before the options (--set takes several values).
gpuproc_run() {  # gpuproc_run NAME DEVICE [INPUT_DIR [--set ...]]
  local name=$1 dev=$2 input=${3:-$work/in}
  shift $(($# < 3 ? $# : 3))
  timed "$name" "$work/out-$name" "$gpuproc" tonemap-exr "$input" --config "$config" --device "$dev" \
    --threads "$threads" --set output.dir="$work/out-$name" --progress none --report "$work/report-$name.json" \
    --trace "$work/trace-$name.json" "$@"
}
# The fixed cost of a process (loading OpenImageIO and its dependencies, exit), best of three.
if [[ -x $gpuproc ]]; then
  for k in 1 2 3; do timed "startup_$k" "" "$gpuproc" --version; done
fi
has_gpu=0
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && has_gpu=1
if [[ ! -x $gpuproc ]]; then
  skip gpu_warmup "no $gpuproc"; skip gpu "no $gpuproc"; skip cpu "no $gpuproc"
else
  if ((has_gpu)); then
    gpuproc_run gpu_warmup "$device"  # first CUDA launch (context, module loading) is not timed
    gpuproc_run gpu "$device" "$work/in" --set run.exr_decode=auto
    gpuproc_run gpu_openexr "$device" "$work/in" --set run.exr_decode=cpu
  else
    skip gpu_warmup "no GPU"; skip gpu "no GPU"
  fi
  gpuproc_run cpu cpu
fi

# (c) oiiotool: one process per frame, T at a time, single-threaded each. The tone curve is
# Reinhard, x/(1+x) on RGB (alpha divided by 1); each level is resized from the previous float
# level, then converted to sRGB and written as 8-bit PNG.
oiiotool_run() {  # oiiotool_run NAME FRAME...
  local name=$1 frame stem cmd w h level out
  shift
  local gain save
  gain=$(python3 -c "print(2 ** $ev)")
  save="--colorconvert linear sRGB --attrib png:compressionLevel $png_level -o"
  for frame in "$@"; do
    stem=$(basename "$frame" .exr)
    cmd="oiiotool --threads 1 $frame --ch R,G,B,A --mulc $gain,$gain,$gain,1 --dup --addc 1,1,1,0 --ch R,G,B,A=1.0 --div -d uint8"
    w=$width h=$height level=0
    while :; do
      out=$work/out-$name/$stem$([[ $level == 0 ]] || echo "_mip$level").png
      if ((w == 1 && h == 1)); then cmd+=" $save $out"; break; fi
      cmd+=" --dup $save $out --pop"
      w=$((w / 2 > 1 ? w / 2 : 1)) h=$((h / 2 > 1 ? h / 2 : 1)) level=$((level + 1))
      cmd+=" --resize:filter=box ${w}x${h}"
    done
    echo "$cmd"
  done >"$work/$name-commands.txt"
  mkdir -p "$work/out-$name"
  # Each line is one shell command: xargs hands it to sh -c, T at a time.
  timed "$name" "$work/out-$name" xargs -P "$threads" -d '\n' -n 1 sh -c <"$work/$name-commands.txt"
}
if command -v oiiotool >/dev/null; then
  oiiotool_run oiiotool "${frames[@]}"
  if [[ ${BENCH_MAKETX:-0} == 1 ]] && command -v maketx >/dev/null; then
    mkdir -p "$work/out-maketx"
    for frame in "${frames[@]}"; do
      echo "maketx --threads 1 --filter box $frame -o $work/out-maketx/$(basename "$frame" .exr).tx"
    done >"$work/maketx-commands.txt"
    timed maketx "$work/out-maketx" xargs -P "$threads" -d '\n' -n 1 sh -c <"$work/maketx-commands.txt"
  fi
else
  skip oiiotool "no oiiotool on PATH"
fi

# (d) the codec floor, through gp::io like gpuproc.
if [[ -x $bench_codec ]]; then
  timed codec "$work/out-codec" "$bench_codec" --threads "$threads" --png-compression "$png_level" \
    --out "$work/out-codec" "${frames[@]}"
  # With the GPU fast PNG encoder that (a) uses at png_compression 1.
  if ((has_gpu)) && [[ $png_level == 1 ]]; then
    timed codec_gpu "$work/out-codec-gpu" "$bench_codec" --threads "$threads" --png-compression 1 --gpu \
      --out "$work/out-codec-gpu" "${frames[@]}"
  fi
  # The same without fsync and rename (informational: what atomic, durable writes cost).
  timed codec_direct "$work/out-codec-direct" "$bench_codec" --threads "$threads" --png-compression "$png_level" \
    --direct --out "$work/out-codec-direct" "${frames[@]}"
  # (e) the GPU EXR decoder alone.
  if ((has_gpu)); then
    timed gpu_decode "" "$bench_codec" --gpu-decode "${frames[@]}"
  else
    skip gpu_decode "no GPU"
  fi
else
  skip codec "no $bench_codec"
fi

# The same job on frames of noise alone: the worst case for every codec.
if [[ ${BENCH_NOISE:-1} == 1 ]]; then
  timed generate_noise "" "$make_samples" bench-noise "$work/noise" "$n" "$width" "$height"
  if ((has_gpu)) && [[ -x $gpuproc ]]; then
    gpuproc_run gpu_noise "$device" "$work/noise" --set run.exr_decode=auto
    gpuproc_run gpu_noise_openexr "$device" "$work/noise" --set run.exr_decode=cpu
  fi
  if command -v oiiotool >/dev/null; then oiiotool_run oiiotool_noise "$work"/noise/*.exr; fi
  [[ -x $bench_codec ]] && ((has_gpu)) && timed gpu_decode_noise "" "$bench_codec" --gpu-decode "$work"/noise/*.exr
fi

# Reports and traces (chrome://tracing, ui.perfetto.dev) beside the result, for the timeline.
for r in gpu cpu gpu_noise; do
  for kind in report trace; do
    [[ -f $work/$kind-$r.json ]] && cp "$work/$kind-$r.json" "${result%.json}.$kind-$r.json"
  done
done

python3 - "$runs" "$work/logs/codec.out" "$result" "$work/logs/codec_direct.out" "$work/logs/codec_gpu.out" \
  "$work/logs/gpu_decode.out" "$work/logs/gpu_decode_noise.out" <<PY
import json, os, platform, sys
runs_path, codec_path, result_path = sys.argv[1:4]

sys.path.insert(0, "$root/scripts/bench")
from bench_results import read_runs, sh, ok_time as run_time

runs = read_runs(runs_path)
ok_time = lambda name: run_time(runs, name)

codec = None
if os.path.exists(codec_path) and runs.get("codec", {}).get("exit_code") == 0:
    codec = json.load(open(codec_path))
direct_path = sys.argv[4]
def codec_result(name, path):
    return json.load(open(path)) if os.path.exists(path) and runs.get(name, {}).get("exit_code") == 0 else None
codec_direct = codec_result("codec_direct", direct_path)
codec_gpu = codec_result("codec_gpu", sys.argv[5])
gpu_decode = codec_result("gpu_decode", sys.argv[6])
gpu_decode_noise = codec_result("gpu_decode_noise", sys.argv[7])
rate = lambda decode, name: round(decode[name]["gb_per_s"], 2) if decode and name in decode else None
a, b, c = ok_time("gpu"), ok_time("cpu"), ok_time("oiiotool")
a_noise, c_noise = ok_time("gpu_noise"), ok_time("oiiotool_noise")
startups = [t for t in (ok_time(f"startup_{k}") for k in (1, 2, 3)) if t is not None]
def report_wall(name):
    path = "$work/report-" + name + ".json"
    return json.load(open(path)).get("wall_s") if os.path.exists(path) else None
# The codec limit of (a): gpuproc's decode (OpenEXR Core) plus the encoder (a) uses -- the GPU fast PNG path when
# it ran, else the CPU one. d_cpu (both codecs on the CPU) is what (b) is bound by.
d_cpu = codec["codec_limit_s"] if codec else None
d = codec_gpu["codec_limit_s"] if codec_gpu else d_cpu
ratio = lambda x, y: round(x / y, 3) if x is not None and y else None
target = lambda value, goal, passed: {"value": value, "target": goal, "pass": None if value is None else passed(value)}

frames = [f for f in os.listdir("$work/in") if f.endswith(".exr")]
result = {
    "benchmark": "tonemap-exr",
    "frames": {"count": len(frames), "width": $width, "height": $height, "type": "half RGBA, ZIP and PIZ alternating",
               "bytes": sum(os.path.getsize(os.path.join("$work/in", f)) for f in frames)},
    "threads": $threads,
    "config": os.path.relpath("$config", "$root"),
    "times_s": {"generate": ok_time("generate"), "gpu_warmup": ok_time("gpu_warmup"), "a_gpu": a,
                "a_gpu_openexr_decode": ok_time("gpu_openexr"), "b_cpu": b,
                "c_oiiotool": c, "d_codec_limit": d and round(d, 3), "d_codec_limit_cpu": d_cpu and round(d_cpu, 3),
                "maketx": ok_time("maketx"), "noise_a_gpu": a_noise,
                "noise_a_gpu_openexr_decode": ok_time("gpu_noise_openexr"), "noise_c_oiiotool": c_noise},
    # Each compression's frames in one batch, then all the frames in one (as (a) decodes them).
    "gpu_decode_gb_per_s": {"zip": rate(gpu_decode, "zip"), "piz": rate(gpu_decode, "piz"), "all": rate(gpu_decode, "all"),
                            "noise_zip": rate(gpu_decode_noise, "zip"), "noise_piz": rate(gpu_decode_noise, "piz"),
                            "noise_all": rate(gpu_decode_noise, "all")},
    "ratios": {"c_over_a": ratio(c, a), "a_over_d": ratio(a, d), "b_over_a": ratio(b, a), "b_over_d_cpu": ratio(b, d_cpu),
               "a_openexr_decode_over_a": ratio(ok_time("gpu_openexr"), a), "noise_c_over_a": ratio(c_noise, a_noise)},
    "targets": {"a_under_0.4s": target(a, "< 0.4 s", lambda v: v < 0.4),
                "a_below_d": target(ratio(a, d), "< 1 (a below the codec limit)", lambda v: v < 1),
                "c_over_a_at_least_25": target(ratio(c, a), ">= 25", lambda v: v >= 25),
                "gpu_decode_zip_at_least_5_gb_per_s": target(rate(gpu_decode, "zip"), ">= 5 GB/s", lambda v: v >= 5),
                "gpu_decode_piz_at_least_3_gb_per_s": target(rate(gpu_decode, "piz"), ">= 3 GB/s", lambda v: v >= 3)},
    # Where (a)'s time goes: the process's fixed cost (gpuproc --version) and the job itself as
    # its report measures it (from the runtime's start to the last output).
    # d is measured inside one process (decode phase + encode phase), (a) from outside, with its
    # start and exit: a_in_process_over_d compares like with like.
    "process": {"startup_and_exit_s": min(startups) if startups else None,
                "a_report_wall_s": report_wall("gpu"), "b_report_wall_s": report_wall("cpu"),
                "a_in_process_over_d": ratio(report_wall("gpu"), d)},
    "runs": runs,
    "codec": codec,
    "codec_direct": codec_direct,
    "codec_gpu": codec_gpu,
    "gpu_decode": gpu_decode,
    "gpu_decode_noise": gpu_decode_noise,
    "machine": {"gpu": sh("nvidia-smi --query-gpu=name --format=csv,noheader"),
                "driver": sh("nvidia-smi --query-gpu=driver_version --format=csv,noheader"),
                "cpu": sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"),
                "nproc": os.cpu_count(), "host": platform.node(),
                "oiiotool": sh("oiiotool --version"), "gpuproc": sh("'$gpuproc' --version")},
}
json.dump(result, open(result_path, "w"), indent=2)
print(json.dumps({"times_s": result["times_s"], "ratios": result["ratios"], "gpu_decode_gb_per_s": result["gpu_decode_gb_per_s"],
                  "targets": {k: v["pass"] for k, v in result["targets"].items()}}, indent=2))
print("wrote", result_path)
PY
