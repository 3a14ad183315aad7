#!/usr/bin/env bash
# End-to-end checks of the gpuproc CLI on data-samples: exit codes, config errors, outputs,
# resume, sharding, per-item errors, reports, progress lines and compare.
# usage: end_to_end.sh GPUPROC_BINARY SOURCE_DIR
set -uo pipefail
gpuproc=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$src"
source "$src/tests/cli/checks.sh"

cfg=configs/tonemap-exr.json
n_samples=$(ls data-samples/exr/*.exr | wc -l)
run=(tonemap-exr --config "$cfg" --device cpu --progress json --set thumbnail.size=64)

check "version" 0 "$gpuproc" --version
expect_text "version text" "$work/stdout" "gpuproc"
check "help" 0 "$gpuproc" tonemap-exr --help
check "no subcommand is a usage error" 2 "$gpuproc"
check "info" 0 "$gpuproc" info --json
check "validate example config" 0 "$gpuproc" validate "$cfg"

# Config errors: exit 2 before any work, message names the file and field.
check "wrong type" 2 "$gpuproc" "${run[@]}" --set output.quality='"high"' --set output.dir="$work/x"
expect_text "wrong type message" "$work/stderr" "$cfg: /output/quality: expected integer 1..100, got \"high\""
check "unknown key" 2 "$gpuproc" "${run[@]}" --set output.qualty=3 --set output.dir="$work/x"
expect_text "did you mean" "$work/stderr" 'did you mean "quality"'
check "escape from output dir" 2 "$gpuproc" "${run[@]}" --set output.name=../escape.png --set output.dir="$work/x"
check "absolute output name" 2 "$gpuproc" "${run[@]}" --set output.name=/tmp/abs.png --set output.dir="$work/x"
[[ ! -e $work/escape.png ]] && passes=$((passes + 1)) || { echo "FAIL: wrote outside the output dir"; failures=$((failures + 1)); }
check "missing input" 2 "$gpuproc" "${run[@]}" "$work/none.exr" --set output.dir="$work/x"
check "missing GPU index" 3 "$gpuproc" tonemap-exr --config "$cfg" --device cuda:99 --set output.dir="$work/x" --progress none

# --print-config is a complete, valid config once inputs are given.
"$gpuproc" tonemap-exr --print-config >"$work/printed.json"
check "printed config runs dry" 0 "$gpuproc" tonemap-exr --config "$work/printed.json" --dry-run data-samples/exr

# Dry run lists outputs and writes nothing.
check "dry run" 0 "$gpuproc" "${run[@]}" --dry-run --set output.dir="$work/dry"
expect_text "dry run lists outputs" "$work/stdout" "  -> $work/dry/"
[[ ! -e $work/dry ]] && passes=$((passes + 1)) || { echo "FAIL: dry run wrote files"; failures=$((failures + 1)); }

# A real run on the CPU path.
out=$work/cpu
check "cpu run" 0 "$gpuproc" "${run[@]}" --set output.dir="$out" --report "$work/report.json" --trace "$work/trace.json"
json_check "report status" "$work/report.json" "j['status']=='ok' and j['items']['succeeded']==$n_samples"
json_check "report stages" "$work/report.json" "all(s in j['stages'] for s in ('decode','compute','encode'))"
json_check "report outputs" "$work/report.json" "j['outputs']['count'] >= 3*$n_samples"
json_check "trace events" "$work/trace.json" "len(j['traceEvents']) > 10"
expect_text "json progress" "$work/stderr" '"event":"finish"'
[[ -z $(find "$out" -name '*.part-*') ]] && passes=$((passes + 1)) || { echo "FAIL: temporaries left"; failures=$((failures + 1)); }

# Resume: nothing left to do; a deleted output is redone.
check "resume all complete" 0 "$gpuproc" "${run[@]}" --set output.dir="$out" --resume --report "$work/resume.json"
json_check "resume skipped all" "$work/resume.json" "j['items']['skipped_complete']==$n_samples and j['items']['processed']==0"
rm "$(ls "$out"/*_thumb.jpg | head -1)"
check "resume one missing" 0 "$gpuproc" "${run[@]}" --set output.dir="$out" --resume --report "$work/resume2.json"
json_check "resume redid one" "$work/resume2.json" "j['items']['processed']==1"

# Same inputs and settings give identical images (compare exits 0), a changed one differs (1).
check "deterministic rerun" 0 "$gpuproc" "${run[@]}" --set output.dir="$work/cpu2" --progress none
check "compare identical folders" 0 "$gpuproc" compare "$out" "$work/cpu2"
check "another exposure" 0 "$gpuproc" "${run[@]}" --set output.dir="$work/cpu3" --set exposure.ev=1 --progress none
first=$(cd "$out" && ls *.png | head -1)
check "compare different images" 1 "$gpuproc" compare "$out/$first" "$work/cpu3/$first"

# kill -9 in the middle of a batch, then --resume: every file under its final name is whole (equal
# to a clean run's), and only the missing items are redone. 6 copies of the samples, so the kill
# lands while some are written and some are not.
mkdir -p "$work/many"
for k in 1 2 3 4 5 6; do for f in data-samples/exr/*.exr; do cp "$f" "$work/many/c${k}_$(basename "$f")"; done; done
n_many=$((6 * n_samples))
check "clean run of the copies" 0 "$gpuproc" "${run[@]}" "$work/many" --set output.dir="$work/many-clean" --progress none
"$gpuproc" "${run[@]}" "$work/many" --set output.dir="$work/many-killed" --progress none --threads 1 >/dev/null 2>&1 &
victim=$!
for _ in $(seq 1 300); do  # until some outputs are there (at most 30 s)
  (($(find "$work/many-killed" -name '*_thumb.jpg' 2>/dev/null | wc -l) >= 3)) && break
  sleep 0.1
done
kill -9 "$victim" 2>/dev/null; wait "$victim" 2>/dev/null
python3 - "$work/many-clean" "$work/many-killed" "$n_many" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: kill -9"; failures=$((failures + 1)); }
import filecmp, os, sys
clean, killed, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
final = [f for f in os.listdir(killed) if not f.startswith(".")]
done = [f for f in final if f.endswith("_thumb.jpg")]
assert 0 < len(done) < n, f"the kill should land mid-batch: {len(done)} of {n} thumbnails"
torn = [f for f in final if os.path.isfile(os.path.join(killed, f)) and not filecmp.cmp(os.path.join(clean, f), os.path.join(killed, f), shallow=False)]
assert not torn, f"files under their final names differ from the clean run: {torn}"
PY
check "resume after kill -9" 0 "$gpuproc" "${run[@]}" "$work/many" --set output.dir="$work/many-killed" --resume \
  --progress none --report "$work/many-resume.json"
json_check "resume redid only the missing items" "$work/many-resume.json" \
  "0 < j['items']['skipped_complete'] < $n_many and j['items']['processed'] + j['items']['skipped_complete'] == $n_many"
check "after resume: the same files as a clean run" 0 "$gpuproc" compare "$work/many-clean" "$work/many-killed"

# A full disk (a file-size limit, so writes fail with EFBIG as they would with ENOSPC): the items
# whose outputs do not fit fail, the error names the output file, nothing half-written is left
# (no temporaries; every file there equals a clean run's), the others complete.
# (check runs in a subshell here, so its counts are made outside.)
if (
  trap '' XFSZ
  ulimit -f 100
  check "output disk full" 1 "$gpuproc" "${run[@]}" --set output.dir="$work/full" --progress none --report "$work/full.json"
); then passes=$((passes + 1)); else failures=$((failures + 1)); fi
expect_text "disk full: the error names the output" "$work/stderr" "$work/full/"
expect_text "disk full: the reason" "$work/stderr" "File too large"
json_check "disk full: the small outputs completed" "$work/full.json" "j['items']['failed'] >= 1 and j['items']['succeeded'] >= 1"
python3 - "$out" "$work/full" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: disk full left partial files"; failures=$((failures + 1)); }
import filecmp, os, sys
clean, full = sys.argv[1:3]
names = [n for n in os.listdir(full) if n != ".gpuproc"]  # .gpuproc: the completion records
assert not [n for n in names if n.startswith(".")], f"temporaries left: {names}"
assert all(filecmp.cmp(os.path.join(clean, n), os.path.join(full, n), shallow=False) for n in names), names
PY

# Corrupt inputs of the other formats: a malformed JSON config (exit 2, file and line), a damaged
# PNG and TIFF among good panoramas, a truncated DICOM slice, a truncated .tflite model.
printf '{\n  "command": "tonemap-exr",\n  "inputs": ["x.exr"\n' >"$work/broken.json"
check "malformed config" 2 "$gpuproc" tonemap-exr --config "$work/broken.json" --device cpu
expect_text "malformed config: file and line" "$work/stderr" "$work/broken.json:4:1: invalid JSON"
mkdir -p "$work/bad-images"
python3 -c "
import sys
open(sys.argv[1] + '/bad.png', 'wb').write(b'\x89PNG\r\n\x1a\n' + bytes(100))
open(sys.argv[1] + '/bad_tiff.tif', 'wb').write(b'II*\x00\x08\x00\x00\x00' + bytes(50))" "$work/bad-images"
check "damaged png and tiff" 1 "$gpuproc" stitch-360 --config configs/stitch-360.json --device cpu --progress none \
  --set views.width=128 --set views.height=128 data-samples/stitch/equirect.jpg "$work/bad-images/bad.png" \
  "$work/bad-images/bad_tiff.tif" --set output.dir="$work/bad-images-out" --report "$work/bad-images.json"
expect_text "damaged png named" "$work/stderr" "bad.png"
expect_text "damaged tiff named" "$work/stderr" "bad_tiff.tif"
json_check "the good panorama completed" "$work/bad-images.json" "j['items']['succeeded']==1 and j['items']['failed']==2"
mkdir -p "$work/bad-dicom"
cp data-samples/pnm/foam/*.dcm "$work/bad-dicom/"
head -c 1000 data-samples/pnm/foam/foam_0010.dcm >"$work/bad-dicom/foam_0010.dcm"
check "truncated dicom slice" 1 "$gpuproc" segment-pnm --config configs/segment-pnm.json --device cpu --progress none \
  "$work/bad-dicom" --set output.dir="$work/bad-dicom-out"
expect_text "truncated dicom slice named" "$work/stderr" "foam_0010.dcm"
check "single dicom slice refused" 1 "$gpuproc" segment-pnm --config configs/segment-pnm.json --device cpu --progress none \
  data-samples/pnm/foam/foam_0010.dcm --set output.dir="$work/one-slice-out"
expect_text "single slice says why" "$work/stderr" "a pore network needs a 3D volume; got 1 slice from data-samples/pnm/foam/foam_0010.dcm"
if [[ -f ${GPUPROC_MODELS:-.models}/selfie_segmentation.tflite ]]; then
  head -c 5000 "${GPUPROC_MODELS:-.models}/selfie_segmentation.tflite" >"$work/broken.tflite"
  check "truncated tflite model" 2 "$gpuproc" segment-body --config configs/segment-body.json --device cpu \
    --progress none --set model.path="$work/broken.tflite" --set output.dir="$work/bad-model"
  expect_text "truncated model: field and file" "$work/stderr" "/model/path: $work/broken.tflite: corrupt TFLite"
fi

# A corrupt input among good ones: exit 1, the error names the file, the others complete.
mkdir -p "$work/mixed"
cp data-samples/exr/*.exr "$work/mixed/"
head -c 3000 "$(ls data-samples/exr/*.exr | head -1)" >"$work/mixed/truncated.exr"
echo "not an image" >"$work/mixed/text.exr"
check "corrupt inputs" 1 "$gpuproc" tonemap-exr --config "$cfg" --device cpu --progress json "$work/mixed" \
  --set output.dir="$work/mixed-out" --report "$work/mixed.json"
expect_text "error names file" "$work/stderr" "truncated.exr"
json_check "others completed" "$work/mixed.json" "j['items']['succeeded']==$n_samples and j['items']['failed']==2"
check "on_error fail stops" 1 "$gpuproc" tonemap-exr --config "$cfg" --device cpu --progress none "$work/mixed" \
  --set output.dir="$work/mixed-fail" --set run.on_error=fail --set run.load_threads=1 --set run.max_in_flight=1

# Shards cover every input exactly once; Slurm's variables pick the shard.
for i in 0 1; do
  check "shard $i" 0 "$gpuproc" "${run[@]}" --shard $i/2 --set output.dir="$work/shards" --report "$work/shard$i.json" --progress none
done
SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_COUNT=2 \
  check "slurm shard" 0 "$gpuproc" "${run[@]}" --dry-run --set output.dir="$work/shards"
python3 - "$work/shard0.json" "$work/shard1.json" "$n_samples" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: shards"; failures=$((failures + 1)); }
import json, sys
a, b = (json.load(open(p))["inputs"]["files"] for p in sys.argv[1:3])
assert not set(a) & set(b) and len(a) + len(b) == int(sys.argv[3]), (a, b)
PY
check "merge-reports of both shards" 0 "$gpuproc" merge-reports "$work/shard0.json" "$work/shard1.json" -o "$work/merged.json"
json_check "merged report covers every input once" "$work/merged.json" \
  "j['status']=='ok' and j['inputs']['count']==$n_samples and j['shard_count']==2 and len(j['shards'])==2"
check "merge-reports with a shard missing" 1 "$gpuproc" merge-reports "$work/shard0.json"
expect_text "merge-reports names the missing shard" "$work/stderr" "shard 1/2 missing"
check "merge-reports of a non-report" 2 "$gpuproc" merge-reports "$cfg"
# The Slurm scripts as an array of 3 tasks would run them (Slurm's variables, no scheduler), then
# the merge job: every input processed once.
for t in 0 1 2; do
  SLURM_ARRAY_JOB_ID=77 SLURM_ARRAY_TASK_ID=$t SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_COUNT=3 GPUPROC="$gpuproc" \
    check "slurm array task $t" 0 bash scripts/slurm/gpuproc-array.sbatch tonemap-exr "$cfg" "$work/slurm" \
    --device cpu --set thumbnail.size=64
done
GPUPROC="$gpuproc" check "slurm merge job" 0 bash scripts/slurm/merge-reports.sbatch "$work/slurm" 77
json_check "slurm: every input once over 3 shards" "$work/slurm/reports/merged-77.json" \
  "j['status']=='ok' and j['inputs']['count']==$n_samples and j['shard_count']==3 and j['items']['processed']==$n_samples"

# GPU path when a GPU is present: same images as the CPU path within 1 LSB.
has_gpu=0
"$gpuproc" info --json | python3 -c "import json,sys; sys.exit(0 if json.load(sys.stdin)['gpus'] else 1)" && has_gpu=1
if [[ $has_gpu == 1 ]]; then
  check "gpu run" 0 "$gpuproc" tonemap-exr --config "$cfg" --device cuda:0 --progress none --set thumbnail.size=64 \
    --set output.dir="$work/gpu" --report "$work/gpu.json"
  json_check "gpu stages timed" "$work/gpu.json" "j['stages']['tonemap']['gpu_s'] > 0"
  check "gpu equals cpu within 1 LSB" 0 "$gpuproc" compare "$out" "$work/gpu" --tolerance 0.0040
  check "gpu memory limit falls back" 0 "$gpuproc" tonemap-exr --config "$cfg" --device cuda:0 --progress none \
    --set output.dir="$work/gpu-small" --set run.batch=8 --gpu-memory-limit 8M --report "$work/small.json"
else
  echo "SKIPPED: GPU end-to-end checks (no GPU on this machine)"
fi

# segment-pnm on the DICOM phantom: outputs, recovered porosity, resume, GPU = CPU labels.
pnm=(segment-pnm --config configs/segment-pnm.json --progress none)
check "pnm validate example" 0 "$gpuproc" validate configs/segment-pnm.json
check "pnm cpu run" 0 "$gpuproc" "${pnm[@]}" --device cpu --set output.dir="$work/pnm" --report "$work/pnm.json"
for f in pores.csv throats.csv network.json network.vtp network_node1.dat network_link2.dat labels.nrrd quicklook.png summary.json; do
  [[ -s $work/pnm/foam/$f ]] && passes=$((passes + 1)) || { echo "FAIL: pnm output $f missing"; failures=$((failures + 1)); }
done
json_check "pnm porosity near the truth" "$work/pnm/foam/summary.json" \
  "abs(j['porosity'] - json.load(open('data-samples/pnm/foam-truth.json'))['porosity']) < 0.01"
json_check "pnm regions near the sphere count" "$work/pnm.json" \
  "0.8 < j['extra']['regions'] / json.load(open('data-samples/pnm/foam-truth.json'))['sphere_count'] < 1.1"
python3 - "$work/pnm/foam/summary.json" data-samples/pnm/foam-truth.json <<'PY' && passes=$((passes + 1)) || { echo "FAIL: pnm pore sizes"; failures=$((failures + 1)); }
# The pores' inscribed diameters follow the phantom's sphere diameters (d10, d50, d90 within 12%).
import json, sys
found = json.load(open(sys.argv[1]))["network"]["pore_size"]["inscribed_diameter"]
diameters = sorted(2 * s[3] for s in json.load(open(sys.argv[2]))["spheres"])
for key, q in (("d10", 0.1), ("d50", 0.5), ("d90", 0.9)):
    truth = diameters[int(q * (len(diameters) - 1))]
    assert abs(found[key] / truth - 1) < 0.12, (key, found[key], truth)
PY
json_check "pnm stage times reported" "$work/pnm.json" "set(j['extra']['stage_seconds']) >= {'binarize', 'distance', 'watershed', 'network'}"
# labels.nrrd as an input (NRRD reader): 3-D, spacing and LPS origin from its header.
check "pnm reads its own nrrd" 0 "$gpuproc" "${pnm[@]}" --device cpu --set output.dir="$work/pnm-nrrd" \
  --set segment.threshold=fixed --set segment.threshold_value=0.5 --set segment.pore=bright "$work/pnm/foam/labels.nrrd"
json_check "pnm nrrd input geometry (364 regions: uint16 labels)" "$work/pnm-nrrd/labels/summary.json" \
  "j['dims'] == [96, 96, 80] and j['source'].startswith('NRRD uint16 gzip') and abs(j['spacing'][2] - 0.025) < 1e-9"
check "pnm resume skips" 0 "$gpuproc" "${pnm[@]}" --device cpu --set output.dir="$work/pnm" --resume --report "$work/pnm-resume.json"
json_check "pnm resume skipped the volume" "$work/pnm-resume.json" "j['items']['skipped_complete'] == 1"
check "pnm missing raw size is a usage error" 2 "$gpuproc" "${pnm[@]}" --set input.format=raw --set output.dir="$work/pnm-x"
if [[ $has_gpu == 1 ]]; then
  check "pnm gpu run" 0 "$gpuproc" "${pnm[@]}" --device cuda:0 --set output.dir="$work/pnm-gpu"
  check "pnm gpu labels equal cpu" 0 cmp "$work/pnm/foam/labels.nrrd" "$work/pnm-gpu/foam/labels.nrrd"
  check "pnm gpu network equals cpu" 0 cmp "$work/pnm/foam/throats.csv" "$work/pnm-gpu/foam/throats.csv"
  # sigma 0: the unsmoothed distance map is flooded directly, on both paths alike.
  check "pnm cpu sigma 0" 0 "$gpuproc" "${pnm[@]}" --device cpu --set segment.sigma=0 --set output.dir="$work/pnm-s0-cpu"
  check "pnm gpu sigma 0" 0 "$gpuproc" "${pnm[@]}" --device cuda:0 --set segment.sigma=0 --set output.dir="$work/pnm-s0-gpu"
  check "pnm sigma 0 gpu labels equal cpu" 0 cmp "$work/pnm-s0-cpu/foam/labels.nrrd" "$work/pnm-s0-gpu/foam/labels.nrrd"
  # Out-of-core: a 6 MB cap (the in-core run needs about 35 MB plus the EDT's scratch) makes
  # every stage run in Z-slabs of a few slices; the results are the in-core ones.
  check "pnm gpu out-of-core" 0 "$gpuproc" "${pnm[@]}" --device cuda:0 --gpu-memory-limit 6M --set output.dir="$work/pnm-slabs" \
    --report "$work/pnm-slabs.json"
  json_check "pnm out-of-core ran in slabs on the GPU" "$work/pnm-slabs/foam/summary.json" \
    "j['device'] == 'gpu (out-of-core slabs)' and j['out_of_core']['watershed_slab_runs'] > 4"
  check "pnm out-of-core labels equal in-core" 0 cmp "$work/pnm-gpu/foam/labels.nrrd" "$work/pnm-slabs/foam/labels.nrrd"
  check "pnm out-of-core network equals in-core" 0 cmp "$work/pnm-gpu/foam/throats.csv" "$work/pnm-slabs/foam/throats.csv"
  check "pnm out-of-core pores equal in-core" 0 cmp "$work/pnm-gpu/foam/pores.csv" "$work/pnm-slabs/foam/pores.csv"
fi

# stitch-360 on the sample panorama: 8 views with EXIF and a COLMAP rig; a truncated JPEG fails
# alone, naming the file; GPU views equal the CPU's within one 8-bit step.
st=(stitch-360 --config configs/stitch-360.json --progress none --set views.width=256 --set views.height=256)
check "stitch validate example" 0 "$gpuproc" validate configs/stitch-360.json
check "stitch cpu run" 0 "$gpuproc" "${st[@]}" --device cpu --set output.dir="$work/st" --report "$work/st.json"
json_check "stitch 8 views and the rig" "$work/st.json" \
  "j['items']['succeeded']==1 and j['outputs']['count']==13 and j['extra']['outputs_per_panorama']==8 and j['extra']['rig_config']=='rig_config.json'"
expect_text "stitch images.txt lists the views" "$work/st/images.txt" "yaw090/equirect.jpg"
json_check "outputs flushed by default" "$work/st.json" "j['outputs_fsync'] is True"
check "stitch --no-fsync" 0 "$gpuproc" "${st[@]}" --device cpu --no-fsync --set output.dir="$work/st-nofsync" \
  --report "$work/st-nofsync.json"
json_check "--no-fsync reported, same outputs" "$work/st-nofsync.json" "j['outputs_fsync'] is False and j['outputs']['count']==13"
check "--no-fsync views equal the flushed ones" 0 "$gpuproc" compare "$work/st" "$work/st-nofsync"
check "stitch truncated jpeg" 1 "$gpuproc" "${st[@]}" --device cpu data-samples/stitch/equirect.jpg \
  data-samples/stitch/corrupt.jpg --set output.dir="$work/st-bad" --report "$work/st-bad.json"
expect_text "stitch error names the file" "$work/stderr" "corrupt.jpg"
json_check "stitch good panorama completed" "$work/st-bad.json" "j['items']['succeeded']==1 and j['items']['failed']==1"
check "stitch cubemap 3x2" 0 "$gpuproc" "${st[@]}" --device cpu --set mode=cubemap --set cubemap.layout=3x2 \
  --set output.dir="$work/st-cube"
check "stitch fisheye to equirect" 0 "$gpuproc" "${st[@]}" --device cpu data-samples/stitch/dual_fisheye.jpg \
  --set mode=equirect_from_dual_fisheye --set output.dir="$work/st-fish"
oiiotool data-samples/stitch/equirect.jpg -o "$work/equirect.png"
check "stitch png input" 0 "$gpuproc" "${st[@]}" --device cpu "$work/equirect.png" --set output.dir="$work/st-png"
check "stitch png views equal the jpeg's" 0 "$gpuproc" compare --tolerance 0.02 "$work/st/yaw090/equirect.jpg" \
  "$work/st-png/yaw090/equirect.jpg"
stm=(--set views.preset=ring8+zenith+nadir --set mask.enabled=true --set mask.nadir=30 --set mask.apply=true)
check "stitch masks" 0 "$gpuproc" "${st[@]}" "${stm[@]}" --device cpu --set output.format=png \
  --set output.dir="$work/st-mask" --report "$work/st-mask.json"
json_check "stitch 10 views, 10 masks and the rig" "$work/st-mask.json" "j['outputs']['count']==25"
check "stitch nadir mask written" 0 test -s "$work/st-mask/masks/nadir/equirect.png.png"
if [[ $has_gpu == 1 ]]; then
  # Batches of 4 on the GPU (nvJPEG decodes them together) with a truncated file among them.
  mkdir -p "$work/st-many"
  for k in 01 02 03 04 05 06 07 08 09 10 11 12; do cp data-samples/stitch/equirect.jpg "$work/st-many/p$k.jpg"; done
  cp data-samples/stitch/corrupt.jpg "$work/st-many/p06b.jpg"
  check "stitch gpu batches with a truncated jpeg" 1 "$gpuproc" "${st[@]}" --device cuda:0 "$work/st-many" \
    --set run.batch=4 --set output.dir="$work/st-many-out" --report "$work/st-many.json"
  expect_text "stitch gpu error names the file" "$work/stderr" "p06b.jpg"
  json_check "stitch gpu batch: the others completed" "$work/st-many.json" \
    "j['items']['succeeded']==12 and j['items']['failed']==1 and j['outputs']['count']==12*8+5"
  check "stitch gpu masks" 0 "$gpuproc" "${st[@]}" "${stm[@]}" --device cuda:0 --set output.format=png \
    --set output.dir="$work/st-mask-gpu"
  check "stitch gpu masks equal cpu" 0 cmp "$work/st-mask/masks/nadir/equirect.png.png" \
    "$work/st-mask-gpu/masks/nadir/equirect.png.png"
  check "stitch gpu masked nadir view equals cpu" 0 "$gpuproc" compare --min-psnr 38 \
    "$work/st-mask/nadir/equirect.png" "$work/st-mask-gpu/nadir/equirect.png"
  check "stitch gpu run" 0 "$gpuproc" "${st[@]}" --device cuda:0 --set output.dir="$work/st-gpu" --report "$work/st-gpu.json"
  json_check "stitch gpu wrote the views" "$work/st-gpu.json" "j['items']['succeeded']==1 and j['outputs']['count']==13"
  # Lossless outputs, so only decoding and the projection (GPU = CPU within one step) separate
  # them; nvJPEG and TurboJPEG upsample chroma differently, by tens of levels at the sample's
  # sharp coloured lines, hence a PSNR bound rather than a largest difference.
  check "stitch cpu png views" 0 "$gpuproc" "${st[@]}" --device cpu --set output.format=png --set output.dir="$work/st-cpu-png"
  check "stitch gpu png views" 0 "$gpuproc" "${st[@]}" --device cuda:0 --set output.format=png --set output.dir="$work/st-gpu-png"
  check "stitch gpu views equal cpu" 0 "$gpuproc" compare --min-psnr 38 "$work/st-cpu-png" "$work/st-gpu-png"
fi

# segment-body (needs the MediaPipe models: scripts/fetch-models.sh or GPUPROC_MODELS; skipped
# without them): the sample video to an FFV1 mask video and per-frame PNG masks; config errors;
# --resume; a truncated video fails alone (exit 1) while the good one completes.
if [[ -f ${GPUPROC_MODELS:-.models}/selfie_segmentation.tflite ]]; then
  sb=(segment-body --config configs/segment-body.json --progress none --set mask.refine.subsample=4)
  check "segment-body validate example" 0 "$gpuproc" validate configs/segment-body.json
  check "segment-body bad colour" 2 "$gpuproc" "${sb[@]}" --device cpu --set output.background.colour=red \
    --set output.dir="$work/sb-x"
  expect_text "segment-body error names the field" "$work/stderr" "/output/background/colour"
  check "segment-body ffv1 needs mkv" 2 "$gpuproc" "${sb[@]}" --device cpu --set output.mask_video.name=m.mp4 \
    --set output.dir="$work/sb-x"
  check "segment-body cpu video" 0 "$gpuproc" "${sb[@]}" --device cpu --set output.mask_png.enabled=all \
    --set output.dir="$work/sb" --report "$work/sb.json"
  json_check "segment-body 60 frames, mask video + 60 PNGs + manifest" "$work/sb.json" \
    "j['extra']['frames']==60 and j['outputs']['count']==62 and j['extra']['latency_ms']['frames']==60"
  check "segment-body mask video is 60 grey frames" 0 bash -c \
    "[[ \$(ffprobe -v error -count_frames -show_entries stream=nb_read_frames,pix_fmt -of csv=p=0 '$work/sb/moving_shapes_mask.mkv') == gray,60 ]]"
  check "segment-body resume" 0 "$gpuproc" "${sb[@]}" --device cpu --set output.mask_png.enabled=all \
    --set output.dir="$work/sb" --resume --report "$work/sb-resume.json"
  json_check "segment-body resume skipped the video" "$work/sb-resume.json" "j['items']['skipped_complete']==1"
  head -c 20000 data-samples/video/moving_shapes.mp4 >"$work/cut.mp4"
  check "segment-body truncated video fails alone" 1 "$gpuproc" "${sb[@]}" --device cpu \
    data-samples/video/moving_shapes.mp4 "$work/cut.mp4" --set output.dir="$work/sb-bad" --report "$work/sb-bad.json"
  expect_text "segment-body error names the file" "$work/stderr" "cut.mp4"
  json_check "segment-body good video completed" "$work/sb-bad.json" \
    "j['items']['succeeded']==1 and j['items']['failed']==1 and j['outputs']['count']==1"
  if [[ -f /usr/share/doc/opencv-doc/examples/data/messi5.jpg ]]; then
    check "segment-body cpu image with background" 0 "$gpuproc" "${sb[@]}" --device cpu \
      /usr/share/doc/opencv-doc/examples/data/messi5.jpg --set output.background.enabled=true \
      --set output.background.kind=blur --set output.dir="$work/sb-img"
    check "segment-body image outputs" 0 test -s "$work/sb-img/messi5_mask.png" -a -s "$work/sb-img/messi5_background.png"
  fi
  if [[ $has_gpu == 1 ]]; then
    check "segment-body gpu video" 0 "$gpuproc" "${sb[@]}" --device cuda:0 --set output.mask_png.enabled=all \
      --set output.dir="$work/sb-gpu" --report "$work/sb-gpu.json"
    json_check "segment-body gpu 60 frames" "$work/sb-gpu.json" "j['extra']['frames']==60 and j['extra']['path']=='gpu'"
    check "segment-body gpu streaming" 0 "$gpuproc" "${sb[@]}" --device cuda:0 --set run.mode=streaming \
      --set output.dir="$work/sb-gpu-s" --report "$work/sb-gpu-s.json"
    json_check "segment-body streaming latency reported" "$work/sb-gpu-s.json" "j['extra']['latency_ms']['p99'] > 0"
    check "segment-body gpu masks close to cpu" 0 "$gpuproc" compare --min-psnr 30 "$work/sb/moving_shapes_mask" \
      "$work/sb-gpu/moving_shapes_mask"
  fi
else
  echo "segment-body: skipped (no models in ${GPUPROC_MODELS:-.models}; run scripts/fetch-models.sh)"
fi

# track-faces (needs the MediaPipe face models; skipped without them): the two sample cameras on
# the CPU (JSON lines, CSV, summary, preview); the faces found and their tracks; --resume; a
# truncated video fails alone; config errors name the field; GPU against CPU where there is one.
if [[ -f ${GPUPROC_MODELS:-.models}/face_landmark.tflite && -f ${GPUPROC_MODELS:-.models}/face_detection_short_range.tflite ]]; then
  tf=(track-faces --config configs/track-faces.json --progress none)
  check "track-faces validate example" 0 "$gpuproc" validate configs/track-faces.json
  check "track-faces bad detector" 2 "$gpuproc" "${tf[@]}" --device cpu --set detector.model=huge --set output.dir="$work/tf-x"
  expect_text "track-faces error names the field" "$work/stderr" "/detector/model"
  check "track-faces bad offset" 2 "$gpuproc" "${tf[@]}" --device cpu --set 'cameras.time_offsets=["nobody=1"]' \
    --set output.dir="$work/tf-x"
  expect_text "track-faces offset error names the camera" "$work/stderr" "nobody"
  check "track-faces cpu, two cameras" 0 "$gpuproc" "${tf[@]}" --device cpu --set output.preview.enabled=true \
    --set output.landmarks=true --set 'cameras.time_offsets=["cam_mirror=2.5"]' --set output.dir="$work/tf" \
    --report "$work/tf.json"
  json_check "track-faces outputs: jsonl, csv, summary, preview per camera" "$work/tf.json" \
    "j['items']['succeeded']==2 and j['outputs']['count']==8 and j['extra']['frames']==240"
  json_check "track-faces: a face in most frames, a track per shot" "$work/tf.json" \
    "all(c['summary']['frames_with_faces'] >= 100 and 1 <= len(c['summary']['tracks']) <= 3 for c in j['extra']['per_camera'])"
  json_check "track-faces: one ID through the first shot" "$work/tf.json" \
    "j['extra']['per_camera'][0]['summary']['tracks'][0]['frames_seen'] >= 80"
  check "track-faces jsonl lines" 0 python3 -c "
import json, sys
lines = [json.loads(l) for l in open('$work/tf/cam_mirror.jsonl')]
assert len(lines) == 120 and [l['frame'] for l in lines] == list(range(120)), 'a line per frame'
assert abs(lines[0]['time_s'] - 2.5) < 1e-6, 'time offset'
faces = [f for l in lines for f in l['faces']]
assert faces and all(len(f['landmarks']) == 468 and len(f['keypoints']) == 6 for f in faces), 'landmarks'
"
  check "track-faces preview has every frame" 0 bash -c \
    "[[ \$(ffprobe -v error -count_frames -show_entries stream=nb_read_frames -of csv=p=0 '$work/tf/cam_front_preview.mp4') == 120 ]]"
  check "track-faces resume skips" 0 "$gpuproc" "${tf[@]}" --device cpu --set output.preview.enabled=true \
    --set output.landmarks=true --set output.dir="$work/tf" --resume --report "$work/tf-resume.json"
  json_check "track-faces resume: both complete" "$work/tf-resume.json" "j['items']['skipped_complete']==2"
  # run.realtime: frames released at the camera's pace (4 s of video; the CPU falls behind, which
  # the latency shows), every frame still processed, latency counted from the live camera.
  check "track-faces realtime" 0 "$gpuproc" "${tf[@]}" --device cpu --set run.realtime=true \
    --set output.dir="$work/tf-rt" --report "$work/tf-rt.json" data-samples/faces/cam_front.mp4
  json_check "track-faces realtime: every frame, latency from the camera, per second" "$work/tf-rt.json" \
    "j['extra']['frames']==120 and j['extra']['realtime'] and j['extra']['latency_ms']['from']=='when a live camera would deliver the frame' and j['extra']['latency_ms']['p50']>0 and sum(s['frames'] for s in j['extra']['latency_ms_per_second'])==120 and len(j['extra']['latency_ms_per_second'])>=4"
  # An image-sequence camera (a folder of PNGs, one per frame) finds what the same video finds:
  # the frames are the video's, through ffmpeg's RGB conversion rather than ours.
  mkdir -p "$work/seq/cam_front"
  ffmpeg -nostdin -v error -i data-samples/faces/cam_front.mp4 "$work/seq/cam_front/%04d.png"
  check "track-faces image-sequence camera" 0 "$gpuproc" "${tf[@]}" --device cpu --set output.landmarks=true \
    --set cameras.fps=30 --set output.dir="$work/tf-seq" --report "$work/tf-seq.json" "$work/seq"
  json_check "track-faces image sequence: one camera named after its folder, every frame" "$work/tf-seq.json" \
    "j['items']['succeeded']==1 and j['extra']['frames']==120 and j['extra']['per_camera'][0]['camera']=='cam_front'"
  python3 scripts/bench/track_faces_compare.py --json "$work/tf-seq-compare.json" "$work/tf-seq/cam_front.jsonl" \
    "$work/tf/cam_front.jsonl" >/dev/null || true
  json_check "track-faces image sequence agrees with the video" "$work/tf-seq-compare.json" \
    "j['frames']['common']==120 and j['faces_only_in_a']+j['faces_only_in_b']<=3 and j['box_iou']['mean']>=0.9 and j['landmarks_px']['mean_error']<1.0"
  mkdir -p "$work/seq-bad/cam_bad"
  cp "$work/seq/cam_front/000"[1-3].png "$work/seq-bad/cam_bad/"
  head -c 2000 "$work/seq/cam_front/0004.png" >"$work/seq-bad/cam_bad/0004.png"
  check "track-faces damaged image in a sequence fails that camera" 1 "$gpuproc" "${tf[@]}" --device cpu \
    --set output.dir="$work/tf-seq-bad" --report "$work/tf-seq-bad.json" data-samples/faces/cam_front.mp4 "$work/seq-bad"
  expect_text "track-faces sequence error names the image" "$work/stderr" "cam_bad/0004.png"
  head -c 60000 data-samples/faces/cam_mirror.mp4 >"$work/cam_broken.mp4"
  check "track-faces truncated camera fails alone" 1 "$gpuproc" "${tf[@]}" --device cpu data-samples/faces/cam_front.mp4 \
    "$work/cam_broken.mp4" --set output.dir="$work/tf-bad" --report "$work/tf-bad.json"
  expect_text "track-faces error names the file" "$work/stderr" "cam_broken.mp4"
  json_check "track-faces good camera completed" "$work/tf-bad.json" "j['items']['succeeded']==1 and j['items']['failed']==1"
  if [[ $has_gpu == 1 ]]; then
    check "track-faces gpu" 0 "$gpuproc" "${tf[@]}" --device cuda:0 --set run.precision=fp32 --set output.landmarks=true \
      --set run.workers=1 \
      --set output.dir="$work/tf-gpu" --report "$work/tf-gpu.json"
    json_check "track-faces gpu: same tracks as cpu" "$work/tf-gpu.json" \
      "[len(c['summary']['tracks']) for c in j['extra']['per_camera']] == [len(c['summary']['tracks']) for c in json.load(open('$work/tf.json'))['extra']['per_camera']]"
    check "track-faces gpu equals cpu" 0 python3 scripts/bench/track_faces_compare.py "$work/tf/cam_front.jsonl" \
      "$work/tf-gpu/cam_front.jsonl"
    check "track-faces two gpu runtimes" 0 "$gpuproc" "${tf[@]}" --device cuda:0,0 --set run.precision=fp32 \
      --set output.landmarks=true --set run.workers=1 --set output.dir="$work/tf-gpu2" --report "$work/tf-gpu2.json"
    json_check "track-faces two runtimes reported" "$work/tf-gpu2.json" \
      "j['extra']['compute_workers']==2 and j['extra']['frames']==240 and [d['items'] for d in j['device']['devices']]==[1,1]"
    check "track-faces two workers equal one" 0 python3 scripts/bench/track_faces_compare.py "$work/tf-gpu/cam_mirror.jsonl" \
      "$work/tf-gpu2/cam_mirror.jsonl"
  fi
else
  echo "track-faces: skipped (no face models in ${GPUPROC_MODELS:-.models}; run scripts/fetch-models.sh)"
fi

# Several GPUs in one process (--device cuda:0,1 / all): malformed lists are usage errors naming
# --device; a listed GPU that is missing is fatal. On a GPU, two runtimes on GPU 0 (cuda:0,0)
# write what one writes, the work spread.
for bad in "cuda:" "cuda:0," "cpu,cuda:0" "cuda:0,x" "cuda:all,1"; do
  check "device list '$bad' is a usage error" 2 "$gpuproc" tonemap-exr --config "$cfg" --device "$bad" --progress none \
    --set output.dir="$work/x"
  expect_text "device list '$bad' error names --device" "$work/stderr" "--device: expected auto, cpu, cuda:N, a list"
done
check "device list with --dry-run is still checked" 2 "$gpuproc" stitch-360 --config configs/stitch-360.json \
  --device cuda:0,,1 --dry-run
check "missing GPU in a device list" 3 "$gpuproc" tonemap-exr --config "$cfg" --device cuda:0,99 --progress none \
  --set output.dir="$work/x" --report "$work/list-missing.json"
json_check "missing GPU: both devices in the report" "$work/list-missing.json" \
  "j['device']['requested']=='cuda:0,99' and [d['used'] for d in j['device']['devices']][1]=='none'"
if [[ $has_gpu == 0 ]]; then
  check "device all without a GPU" 3 "$gpuproc" tonemap-exr --config "$cfg" --device all --progress none --set output.dir="$work/x"
  expect_text "device all error" "$work/stderr" "--device all: no CUDA device"
else
  check "tonemap two runtimes on gpu 0" 0 "$gpuproc" tonemap-exr --config "$cfg" --device cuda:0,0 --progress none \
    --set thumbnail.size=64 --set output.dir="$work/gpu-00" --report "$work/gpu-00.json"
  check "tonemap cuda:0,0 equals cuda:0" 0 diff -r -x .gpuproc "$work/gpu" "$work/gpu-00"
  json_check "tonemap cuda:0,0: two devices, every item once" "$work/gpu-00.json" \
    "len(j['device']['devices'])==2 and sum(d['items'] for d in j['device']['devices'])==$n_samples and len(j['memory']['per_device'])==2"
  check "stitch two runtimes on gpu 0" 0 "$gpuproc" "${st[@]}" --device cuda:0,0 --set output.dir="$work/st-gpu-00"
  check "stitch cuda:0,0 equals cuda:0" 0 diff -r -x .gpuproc "$work/st-gpu" "$work/st-gpu-00"
  check "stitch many two runtimes on gpu 0" 1 "$gpuproc" "${st[@]}" --device cuda:0,0 "$work/st-many" \
    --set run.batch=4 --set output.dir="$work/st-many-00" --report "$work/st-many-00.json"
  check "stitch many cuda:0,0 equals cuda:0" 0 diff -r -x .gpuproc "$work/st-many-out" "$work/st-many-00"
  json_check "stitch many cuda:0,0: both runtimes took panoramas" "$work/st-many-00.json" \
    "[d['items'] > 0 for d in j['device']['devices']] == [True, True] and j['items']['succeeded']==12"
  # Volumes are spread over the devices (one volume per GPU at a time): the phantom twice.
  mkdir -p "$work/pnm-two" && ln -s "$src/data-samples/pnm/foam" "$work/pnm-two/a" && ln -s "$src/data-samples/pnm/foam" "$work/pnm-two/b"
  check "pnm two volumes on two runtimes" 0 "$gpuproc" "${pnm[@]}" --device cuda:0,0 "$work/pnm-two/a" "$work/pnm-two/b" \
    --set output.dir="$work/pnm-00" --report "$work/pnm-00.json"
  for v in a b; do
    check "pnm cuda:0,0 volume $v labels equal cuda:0" 0 cmp "$work/pnm-gpu/foam/labels.nrrd" "$work/pnm-00/$v/labels.nrrd"
  done
  json_check "pnm cuda:0,0: one volume per runtime" "$work/pnm-00.json" "[d['items'] for d in j['device']['devices']] == [1, 1]"
  gpus=$("$gpuproc" info --json | python3 -c "import json,sys; print(len(json.load(sys.stdin)['gpus']))")
  if [[ $gpus -ge 2 ]]; then
    echo "$gpus GPUs: checking --device all against cuda:0"
    check "tonemap on every gpu" 0 "$gpuproc" tonemap-exr --config "$cfg" --device all --progress none \
      --set thumbnail.size=64 --set output.dir="$work/gpu-all" --report "$work/gpu-all.json"
    check "tonemap all equals cuda:0" 0 diff -r -x .gpuproc "$work/gpu" "$work/gpu-all"
    json_check "tonemap all: every gpu listed" "$work/gpu-all.json" "len(j['device']['devices'])==$gpus"
    check "stitch many on every gpu" 1 "$gpuproc" "${st[@]}" --device all "$work/st-many" \
      --set run.batch=4 --set output.dir="$work/st-many-all" --report "$work/st-many-all.json"
    check "stitch many all equals cuda:0" 0 diff -r -x .gpuproc "$work/st-many-out" "$work/st-many-all"
    json_check "stitch many all: every gpu took panoramas" "$work/st-many-all.json" \
      "all(d['items'] > 0 for d in j['device']['devices']) and j['items']['succeeded']==12"
    check "pnm two volumes on every gpu" 0 "$gpuproc" "${pnm[@]}" --device all "$work/pnm-two/a" "$work/pnm-two/b" \
      --set output.dir="$work/pnm-all" --report "$work/pnm-all.json"
    for v in a b; do
      check "pnm all volume $v labels equal cuda:0" 0 cmp "$work/pnm-gpu/foam/labels.nrrd" "$work/pnm-all/$v/labels.nrrd"
    done
    json_check "pnm all: one volume on each of the first two gpus" "$work/pnm-all.json" \
      "[d['items'] for d in j['device']['devices']][:2] == [1, 1]"
    if [[ -d $work/tf-gpu ]]; then
      check "track-faces cameras on every gpu" 0 "$gpuproc" "${tf[@]}" --device all --set run.precision=fp32 \
        --set output.landmarks=true --set run.workers=1 --set output.dir="$work/tf-all" --report "$work/tf-all.json"
      json_check "track-faces all: one camera on each of the first two gpus" "$work/tf-all.json" \
        "[d['items'] for d in j['device']['devices']][:2] == [1, 1] and j['extra']['frames']==240"
      for cam in cam_front cam_mirror; do
        check "track-faces all: $cam equals cuda:0" 0 python3 scripts/bench/track_faces_compare.py \
          "$work/tf-gpu/$cam.jsonl" "$work/tf-all/$cam.jsonl"
      done
    fi
  fi
fi

echo "cli end-to-end: $passes passed, $failures failed"
[[ $failures -eq 0 ]]
