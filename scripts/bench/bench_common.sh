# Shared by the benchmark scripts (sourced after `set -euo pipefail` and `root=...`): the GPU
# machine's dependency bundle, the build's executables, and for the scripts that record runs in
# $work/runs.tsv, the work folder and the skip/timed helpers.

if [[ -f /opt/gpuproc-deps/env.sh ]]; then
  # (env.sh ends on a test that may be false; that is not a failure)
  set +eu; source /opt/gpuproc-deps/env.sh; set -eu
fi

build=${GPUPROC_BUILD:-build-gpu}
[[ $build == /* ]] || build=$root/$build
gpuproc=$build/apps/gpuproc/gpuproc
make_samples=$build/apps/make-samples/gpuproc-make-samples

# A temporary work folder (kept with BENCH_KEEP=1), its logs/, and runs.tsv: name, seconds, exit
# code, outputs, output bytes, note.
make_work_folder() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/gpuproc-bench.XXXXXX")
  if [[ ${BENCH_KEEP:-0} == 1 ]]; then echo "work folder: $work"; else trap 'rm -rf "$work"' EXIT; fi
  mkdir -p "$work/logs"
  runs=$work/runs.tsv
  : >"$runs"
}

skip() { printf '%s\t\t\t\t\t%s\n' "$1" "$2" >>"$runs"; echo "  $1: skipped ($2)"; }

# timed NAME OUTPUT_DIR COMMAND...: runs it (stdout in logs/NAME.out, stderr in logs/NAME.err),
# records the wall time, exit code and what it wrote under OUTPUT_DIR, then removes OUTPUT_DIR.
timed() {
  local name=$1 outdir=$2 start end rc=0 count=0 bytes=0
  shift 2
  start=$(date +%s.%N)
  "$@" >"$work/logs/$name.out" 2>"$work/logs/$name.err" || rc=$?
  end=$(date +%s.%N)
  if [[ -d $outdir ]]; then
    count=$(find "$outdir" -type f | wc -l)
    bytes=$(du -sb "$outdir" | cut -f1)
    rm -rf "$outdir"
  fi
  local seconds
  seconds=$(python3 -c "print(round($end - $start, 3))")
  printf '%s\t%s\t%s\t%s\t%s\t\n' "$name" "$seconds" "$rc" "$count" "$bytes" >>"$runs"
  echo "  $name: ${seconds}s, exit $rc, $count files"
  if ((rc != 0)); then tail -5 "$work/logs/$name.err" | sed 's/^/    | /'; fi
  return 0
}
