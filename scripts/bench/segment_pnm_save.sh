#!/usr/bin/env bash
# segment-pnm's whole process and its save stage, per output file, for each labels.nrrd setting.
# For a GPU machine (any device works: BENCH_DEVICE=cpu). On an N^3 int16 foam
# (gpuproc-make-samples pnm-bench), after one untimed warm-up run, it runs
#   default   gzip level 1, smallest type (uint8/16/32 by the region count)
#   raw       encoding raw, smallest type
#   level6    gzip level 6, uint32: the labels.nrrd of earlier versions
# each BENCH_REPEAT times (default 2), and prints per run the process's wall time (from the file on
# disk to every output written and flushed), load, compute, save, the save stage's spans (one per
# output file, from the run report's stages) and labels.nrrd's size. Raw results in
# OUTDIR/segment_pnm_save.json.
#
#   scripts/bench/segment_pnm_save.sh [OUTDIR] [N]     (defaults: $OUT/segment_pnm_save, 1024)
# Environment: GPUPROC_BUILD (default build-gpu), BENCH_DEVICE (default cuda:0), BENCH_VOLUMES
# (a folder with foam-N.raw already made), BENCH_REPEAT, BENCH_THREADS (default nproc).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source "$root/scripts/bench/bench_common.sh"
outdir=${1:-${OUT:-.}/segment_pnm_save}
n=${2:-1024}
device=${BENCH_DEVICE:-cuda:0}
repeat=${BENCH_REPEAT:-2}
threads=${BENCH_THREADS:-$(nproc)}
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuproc-bench-pnm-save.XXXXXX")
trap 'rm -rf "$work"' EXIT

volumes=${BENCH_VOLUMES:-$work/vol}
if [[ ! -f $volumes/foam-$n.raw ]]; then
  echo "generating foam-$n ($(date +%T))"
  "$make_samples" pnm-bench "$volumes" "$n" >"$outdir/generate.log"
fi

# run NAME [--set ...]: one timed process; its report in OUTDIR/NAME.json, its outputs removed.
run() {
  local name=$1 start end
  shift
  sync
  start=$(date +%s.%N)
  "$gpuproc" segment-pnm "$volumes/foam-$n.raw" --config configs/segment-pnm.json --device "$device" \
    --threads "$threads" --progress none --set input.format=raw --set input.raw.width="$n" \
    --set input.raw.height="$n" --set input.raw.depth="$n" --set input.raw.dtype=int16 \
    --set input.spacing.x=0.02 --set input.spacing.y=0.02 --set input.spacing.z=0.02 \
    --set output.dir="$work/out" --report "$outdir/$name.json" "$@" >"$outdir/$name.log" 2>&1
  end=$(date +%s.%N)
  python3 - "$outdir/$name.json" "$start" "$end" "$work/out/foam-$n/labels.nrrd" <<'PY'
import json, os, sys
path, start, end, labels = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
r = json.load(open(path))
r["process_wall_s"] = end - start
r["labels_bytes"] = os.path.getsize(labels)
with open(labels, "rb") as f:
    head = f.read(400).decode("latin-1")
r["labels_header"] = [l for l in head.split("\n") if l.startswith(("type:", "encoding:"))]
json.dump(r, open(path, "w"), indent=1)
PY
  rm -rf "$work/out"
}

echo "foam-$n on $device, $threads threads: warm-up ($(date +%T))"
run warmup
for k in $(seq 1 "$repeat"); do
  run "default-$k"
  run "raw-$k" --set output.labels_encoding=raw
  run "level6-$k" --set output.labels_gzip_level=6 --set output.labels_type=uint32
done

python3 - "$outdir" "$repeat" "$n" <<'PY'
import json, sys
outdir, repeat, n = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows, table = [], []
for k in range(1, repeat + 1):
    for name in ("default", "raw", "level6"):
        r = json.load(open(f"{outdir}/{name}-{k}.json"))
        stages = {s: v["wall_s"] for s, v in r["stages"].items()}
        v = r["extra"]["volumes"][0]
        row = {"run": f"{name}-{k}", "process_s": round(r["process_wall_s"], 3), "load_s": v["seconds_load"],
               "after_load_s": v["seconds_after_load"], "save_s": round(stages.get("save", 0), 3),
               "labels": " ".join(r["labels_header"]), "labels_bytes": r["labels_bytes"],
               "save_spans_s": {s: round(t, 3) for s, t in sorted(stages.items()) if s.startswith("save.")}}
        rows.append(row)
        print(f"{row['run']:10s} process {row['process_s']:7.3f} s  load {row['load_s']:6.3f}  after load "
              f"{row['after_load_s']:6.3f}  save {row['save_s']:6.3f}  labels {row['labels_bytes'] / 1e6:8.1f} MB "
              f"({row['labels']})")
        print("           " + "  ".join(f"{s[5:]} {t}" for s, t in row["save_spans_s"].items()))
json.dump({"size": n, "runs": rows}, open(f"{outdir}/segment_pnm_save.json", "w"), indent=1)
PY
