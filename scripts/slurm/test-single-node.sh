#!/usr/bin/env bash
# A real single-node Slurm cluster, in its own temporary configuration, runs scripts/slurm/submit.sh:
# a 4-task gpuproc tonemap-exr array over data-samples (--device cpu) and the dependent merge job.
# Checks: every task and the merge job COMPLETED with exit 0, each task wrote its report from a
# different shard, the merged report is ok and complete, every input was processed by exactly one
# shard, and the output folder holds exactly the outputs the reports list. Every daemon it starts
# (munged, slurmctld, slurmd) and every job process is stopped on exit, pass or fail.
#   scripts/slurm/test-single-node.sh GPUPROC_BINARY [SOURCE_DIR]
# Exit 0 pass, 1 fail, 77 skipped (not root, or slurmctld/slurmd/slurm-client/munge not installed).
# Runs as root (slurmd starts jobs as their user). Nothing outside a mktemp folder is written; the
# system's Slurm and munge (if any) are not used: own key, socket, ports, state and spool folders.
# GPUPROC_SLURM_TEST_TIMEOUT (seconds, default 180) bounds the wait for the jobs;
# GPUPROC_SLURM_TEST_KEEP=1 keeps the folder (logs, reports, outputs) for a look afterwards.
set -euo pipefail
usage="usage: test-single-node.sh GPUPROC_BINARY [SOURCE_DIR]"
gpuproc=$(realpath "${1:?$usage}")
src=$(cd "${2:-$(dirname "$0")/../..}" && pwd)
tasks=4
job_timeout=${GPUPROC_SLURM_TEST_TIMEOUT:-180}

skip() { echo "SKIP: $*"; exit 77; }
for tool in slurmctld slurmd sbatch munged munge squeue sinfo scontrol scancel; do
  command -v "$tool" >/dev/null || skip "$tool not installed (apt-get install munge slurmctld slurmd slurm-client)"
done
[[ $(id -u) == 0 ]] || skip "needs root (slurmd starts job steps as the submitting user)"

# Nothing from a surrounding Slurm job or cluster may leak in (this may itself run inside a job).
while read -r name; do unset "$name"; done < <(compgen -e | grep -E '^(SLURM|SBATCH|SALLOC|SRUN)_' || true)

work=$(mktemp -d "${TMPDIR:-/tmp}/gpuproc-slurm.XXXXXX")
chmod 755 "$work"  # munged wants every folder above its socket searchable by all
mkdir -m 700 "$work/munge"
mkdir -m 755 "$work/run" "$work/state" "$work/spool" "$work/log" "$work/job"
daemons=()  # PIDs of munged, slurmctld, slurmd (all run in the foreground as children of this shell)
ctld_pid=""
started=$(date +%s)

log_tails() {
  for f in "$work"/log/*.log "$work"/job/*.log; do
    [[ -f $f ]] && { echo "--- $f"; tail -n 25 "$f"; }
  done
}
# Processes whose working folder is inside $work: slurmstepd (it runs in the log folder) and the
# job scripts (they run in the submission folder). Found this way, not by name, so that nothing
# else on the machine (another Slurm, another run of this test) is touched.
our_job_processes() {
  local p cwd
  for p in /proc/[0-9]*; do
    cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
    [[ $cwd == "$work" || $cwd == "$work"/* ]] && echo "${p#/proc/}"
  done
  return 0
}
stop_all() {
  local rc=$?
  set +e
  cd /
  if ((${#daemons[@]})); then
    # Only while our slurmctld runs, SLURM_CONF pointing at its configuration: never another cluster.
    if [[ -n $ctld_pid && ${SLURM_CONF:-} == "$work/slurm.conf" ]] && kill -0 "$ctld_pid" 2>/dev/null; then
      timeout 10 scancel --quiet --full "--user=$(id -un)" 2>/dev/null
      for _ in $(seq 50); do [[ -z $(timeout 5 squeue -h 2>/dev/null) ]] && break; sleep 0.2; done
      timeout 10 scontrol shutdown >/dev/null 2>&1  # slurmctld and slurmd stop themselves
    fi
    for _ in $(seq 50); do
      alive=0; for p in "${daemons[@]:1}"; do kill -0 "$p" 2>/dev/null && alive=1; done
      ((alive)) || break; sleep 0.2
    done
    for p in "${daemons[@]}"; do kill -TERM "$p" 2>/dev/null; done  # munged (daemons[0]), and any left
    sleep 0.5
    for p in "${daemons[@]}"; do kill -KILL "$p" 2>/dev/null; done
    wait "${daemons[@]}" 2>/dev/null
  fi
  left=$(our_job_processes | paste -sd " ")
  if [[ -n $left ]]; then
    echo "killing job processes left behind: $left" >&2
    kill -KILL $left 2>/dev/null
  fi
  if ((rc != 0)); then log_tails; fi
  if [[ ${GPUPROC_SLURM_TEST_KEEP:-0} == 1 ]]; then echo "kept $work"; else rm -rf "$work"; fi
  exit $rc
}
trap stop_all EXIT
trap 'exit 130' INT TERM

fail() { echo "FAIL: $*"; exit 1; }
wait_for() {  # wait_for SECONDS WHAT COMMAND...: poll COMMAND until it succeeds
  local limit=$1 what=$2 t0=$SECONDS
  shift 2
  until "$@" >/dev/null 2>&1; do
    ((SECONDS - t0 < limit)) || fail "$what: not after ${limit}s"
    for p in "${daemons[@]}"; do kill -0 "$p" 2>/dev/null || fail "$what: a daemon (pid $p) exited"; done
    sleep 0.25
  done
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# munge: a key made for this test, its own socket.
dd if=/dev/urandom of="$work/munge/key" bs=1024 count=1 status=none
chmod 400 "$work/munge/key"
socket=$work/run/munge.socket
munged -F --key-file="$work/munge/key" --socket="$socket" --pid-file="$work/run/munged.pid" \
  --log-file="$work/log/munged.log" --seed-file="$work/munge/seed" 2>>"$work/log/munged.log" &
daemons+=($!)
wait_for 10 "munged answering on $socket" bash -c "munge -S '$socket' -n | unmunge -S '$socket'"

# slurm.conf: this machine as the only node, as slurmd itself describes it (CPUs, sockets, memory).
host=$(hostname -s)
node=$(slurmd -C | head -n 1)
node=${node#NodeName=* }
ctld_port=$(free_port)
slurmd_port=$(free_port)
while [[ $slurmd_port == "$ctld_port" ]]; do slurmd_port=$(free_port); done
export SLURM_CONF=$work/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=gpuproc-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
# Finished jobs stay visible to scontrol long enough to read their state and exit code.
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 $node State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -i -f "$SLURM_CONF" 2>>"$work/log/slurmctld.stderr" &
ctld_pid=$!
daemons+=($ctld_pid)
slurmd -D -f "$SLURM_CONF" 2>>"$work/log/slurmd.stderr" &
daemons+=($!)
wait_for 30 "slurmctld answering" scontrol ping
wait_for 30 "node $host idle" bash -c '[[ $(sinfo -h -n "$0" -o %T) == idle ]]' "$host"
echo "slurm up in $(($(date +%s) - started)) s (node: $node; ports $ctld_port, $slurmd_port)"

# The jobs: submit.sh as a user would run it, from the job folder (Slurm writes the job logs there).
# The array job's #SBATCH lines ask for a GPU, 16 CPUs and 32G: submit.sh's sbatch options (before
# TASKS) override them for a node without a GPU, as they would on a real cluster.
inputs=("$src"/data-samples/exr/*.exr "$src"/data-samples/hdr/*.hdr)
outdir=$work/job/out
cd "$work/job"
submitted=$(GPUPROC="$gpuproc" bash "$src/scripts/slurm/submit.sh" --gres=none --cpus-per-task=1 --mem=256M \
  "$tasks" tonemap-exr "$src/configs/tonemap-exr.json" "$outdir" \
  --device cpu --set thumbnail.size=64 "${inputs[@]}")
echo "$submitted"
[[ $submitted =~ array\ job\ ([0-9]+).*merge\ job\ ([0-9]+) ]] || fail "submit.sh printed no job ids"
array=${BASH_REMATCH[1]}
merge=${BASH_REMATCH[2]}
wait_for "$job_timeout" "jobs $array and $merge finished" bash -c '[[ -z $(squeue -h -j "$0,$1") ]]' "$array" "$merge"
echo "jobs done $(($(date +%s) - started)) s after the start"

# Each array task and the merge job: COMPLETED, exit 0.
states=$(scontrol -o show job "$array"; scontrol -o show job "$merge")
n_completed=$(grep -c 'JobState=COMPLETED .*ExitCode=0:0' <<<"$states" || true)
((n_completed == tasks + 1)) || { grep -oE '^JobId=[0-9]+|ArrayTaskId=[0-9]+|JobState=[A-Z_]+|ExitCode=[0-9:]+' <<<"$states" |
  paste -sd ' ' | sed 's/ JobId=/\nJobId=/g'; fail "$n_completed of $((tasks + 1)) jobs COMPLETED with exit 0"; }
# The merge job ran after the last array task ended (its afterany dependency held).
merge_start=$(grep "^JobId=$merge " <<<"$states" | grep -o 'StartTime=[^ ]*')
last_end=$(grep "ArrayJobId=$array " <<<"$states" | grep -o 'EndTime=[^ ]*' | sort | tail -n 1)
[[ ${merge_start#*=} > ${last_end#*=} || ${merge_start#*=} == "${last_end#*=}" ]] ||
  fail "merge job started at ${merge_start#*=}, before the array ended (${last_end#*=})"
for t in $(seq 0 $((tasks - 1))); do
  [[ -f $work/job/gpuproc-${array}_$t.log ]] || fail "no job log of array task $t"
done

# The reports and the outputs: every input by exactly one shard, every output once.
python3 - "$outdir" "$array" "$tasks" "${inputs[@]}" <<'PY' || fail "reports and outputs (above)"
import json, os, sys
outdir, job, tasks, inputs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
reports = os.path.join(outdir, "reports")
real = os.path.realpath
problems = []
per_shard = [json.load(open(os.path.join(reports, f"report-{job}-{t}.json"))) for t in range(tasks)]
merged = json.load(open(os.path.join(reports, f"merged-{job}.json")))

seen = {}  # input -> shards that processed it
listed_outputs = []
for t, r in enumerate(per_shard):
    if r.get("shard") != f"{t}/{tasks}":  # the array task picked its shard from Slurm's variables
        problems.append(f"report of array task {t}: shard {r.get('shard')}, expected {t}/{tasks}")
    if r["status"] != "ok" or r["device"]["used"] != "cpu":
        problems.append(f"shard {t}: status {r['status']}, device {r['device']['used']}")
    items = r["items"]
    if items["failed"] or items["skipped_complete"] or items["processed"] != len(r["inputs"]["files"]):
        problems.append(f"shard {t}: items {items} for {len(r['inputs']['files'])} inputs")
    for f in r["inputs"]["files"]:
        seen.setdefault(real(f), []).append(t)
    listed_outputs += [real(o) for o in r["outputs"]["files"]]
for f in inputs:
    if len(seen.get(real(f), [])) != 1:
        problems.append(f"{f}: processed by shards {seen.get(real(f), [])}, expected exactly one")
for f in set(seen) - {real(f) for f in inputs}:
    problems.append(f"{f}: processed but not an input")
if len([t for t, r in enumerate(per_shard) if r["inputs"]["files"]]) < min(tasks, len(inputs)):
    problems.append("some shards got no inputs: the array tasks did not each take their own shard")

if merged["status"] != "ok" or merged["shard_count"] != tasks or len(merged["shards"]) != tasks:
    problems.append(f"merged report: status {merged['status']}, {merged['shard_count']} shards, {len(merged['shards'])} listed")
if merged["inputs"]["count"] != len(inputs) or merged["items"]["processed"] != len(inputs) or merged["items"]["failed"]:
    problems.append(f"merged report: {merged['inputs']['count']} inputs, items {merged['items']}; expected {len(inputs)} processed")

on_disk = []
for d, dirs, files in os.walk(outdir):
    if real(d) == real(reports):
        dirs[:] = []; continue
    dirs[:] = [x for x in dirs if x != ".gpuproc"]  # the completion records, not outputs
    on_disk += [real(os.path.join(d, f)) for f in files]
if len(listed_outputs) != len(set(listed_outputs)):
    problems.append("an output is listed by two shards")
for f in sorted(set(on_disk) - set(listed_outputs)):
    problems.append(f"{f}: on disk, in no report")
for f in sorted(set(listed_outputs) - set(on_disk)):
    problems.append(f"{f}: in a report, not on disk")
for f in inputs:  # each input's image (the config's "{stem}.{ext}", PNG)
    image = real(os.path.join(outdir, os.path.splitext(os.path.basename(f))[0] + ".png"))
    if image not in on_disk:
        problems.append(f"{f}: no {image}")

print("\n".join(f"  {p}" for p in problems) or
      f"{len(inputs)} inputs over {tasks} shards {[len(r['inputs']['files']) for r in per_shard]}, each once; "
      f"{len(on_disk)} outputs, each listed once; merged report ok")
sys.exit(1 if problems else 0)
PY
echo "PASS: real Slurm ($tasks-task array + merge job) in $(($(date +%s) - started)) s"
