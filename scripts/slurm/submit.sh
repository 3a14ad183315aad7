#!/usr/bin/env bash
# Submits a gpuproc job array of TASKS tasks and the merge job that runs after it.
#   scripts/slurm/submit.sh TASKS SUBCOMMAND CONFIG OUTPUT_DIR [GPUPROC_ARGS...]
set -euo pipefail
usage="usage: submit.sh TASKS SUBCOMMAND CONFIG OUTPUT_DIR [GPUPROC_ARGS...]"
tasks=${1:?$usage}
outdir=${4:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
array=$(sbatch --parsable --array=0-$((tasks - 1)) "$here/gpuproc-array.sbatch" "${@:2}")
array=${array%%;*}  # "JOBID;CLUSTER" on federated clusters
merge=$(sbatch --parsable --dependency=afterany:"$array" "$here/merge-reports.sbatch" "$outdir" "$array")
echo "array job $array ($tasks tasks), merge job ${merge%%;*}: $outdir/reports/merged-$array.json"
