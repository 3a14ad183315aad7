#!/usr/bin/env bash
# Submits a gpuproc job array of TASKS tasks and the merge job that runs after it.
#   scripts/slurm/submit.sh [SBATCH_OPTION...] TASKS SUBCOMMAND CONFIG OUTPUT_DIR [GPUPROC_ARGS...]
# SBATCH_OPTIONs (--name=value form, before TASKS) go to the array job's sbatch and override the
# #SBATCH lines of gpuproc-array.sbatch, e.g. --cpus-per-task=8 --mem=16G --gres=gpu:a100:1 (or
# --gres=none with --device cpu). Options for both jobs go in sbatch's environment variables
# (SBATCH_PARTITION, SBATCH_ACCOUNT, ...). Prints the two job ids on the last line.
set -euo pipefail
usage="usage: submit.sh [SBATCH_OPTION...] TASKS SUBCOMMAND CONFIG OUTPUT_DIR [GPUPROC_ARGS...]"
array_options=()
while [[ ${1:-} == -* ]]; do array_options+=("$1"); shift; done
tasks=${1:?$usage}
outdir=${4:?$usage}
[[ $tasks =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: TASKS must be a positive number, got '$tasks'" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
array=$(sbatch --parsable "${array_options[@]}" --array=0-$((tasks - 1)) "$here/gpuproc-array.sbatch" "${@:2}")
array=${array%%;*}  # "JOBID;CLUSTER" on federated clusters
merge=$(sbatch --parsable --dependency=afterany:"$array" "$here/merge-reports.sbatch" "$outdir" "$array")
echo "array job $array ($tasks tasks), merge job ${merge%%;*}: $outdir/reports/merged-$array.json"
