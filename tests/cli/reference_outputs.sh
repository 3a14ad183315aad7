#!/usr/bin/env bash
# Pinned reference outputs (OpenImageIO's testsuite style): a few small outputs of each subcommand,
# made once on the CPU path and committed under tests/reference/<name>/, against which every run
# of the same small job is compared by `gpuproc compare` with the thresholds stated below. A change
# that moves results (a refactor, a new library version) fails here loudly, naming the file and the
# value; a deliberate change updates the references (--update) in the same commit, with the reason.
#   reference_outputs.sh GPUPROC_BINARY SOURCE_DIR [--update] [--device DEVICE]
# --device cuda:0 runs the jobs on a GPU against the same references (the GPU equals the CPU path
# within the thresholds). segment-body and track-faces need the models in .models
# (scripts/fetch-models.sh) and are skipped, saying so, without them.
#
# Thresholds (each job's `compare` options):
#   8-bit images and video frames: one 8-bit step (--tolerance 1/255);
#   JPEG outputs: also equal at 40 dB PSNR (a different JPEG encoder, nvJPEG on the GPU);
#   numbers in CSV, JSON, Statoil and COLMAP files: 1e-6 relative (--relative-tolerance), so a
#   float summed in another order passes and a changed result does not;
#   labels.nrrd: every voxel exact (integers; the relative tolerance never admits another label);
#   wall-clock and latency fields of JSON outputs: ignored.
set -uo pipefail
gpuproc=$1
src=$2
shift 2
update=0
device=cpu
while (($#)); do
  case $1 in
    --update) update=1 ;;
    --device) device=$2; shift ;;
    *) echo "reference_outputs.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$src"
source "$src/tests/cli/checks.sh"
models=${GPUPROC_MODELS:-.models}
reference=$src/tests/reference
image_options=(--tolerance 0.0039216)
number_options=(--relative-tolerance 1e-6)

# pinned NAME "FILES" [COMPARE OPTIONS...] -- SUBCOMMAND ARGS...: runs the job into $work/NAME,
# then compares each of FILES (paths in the output folder) with tests/reference/NAME/ (or, with
# --update, copies them there).
pinned() {
  local name=$1 files=$2 options=()
  shift 2
  while [[ $1 != -- ]]; do options+=("$1"); shift; done
  shift
  check "$name: run" 0 "$gpuproc" "$@" --device "$device" --progress none --set output.dir="$work/$name" || return 1
  local f
  for f in $files; do
    if ((update)); then
      mkdir -p "$(dirname "$reference/$name/$f")"
      cp "$work/$name/$f" "$reference/$name/$f"
      echo "updated tests/reference/$name/$f"
    elif [[ ! -f $reference/$name/$f ]]; then
      fail "$name: no reference $reference/$name/$f (run with --update and commit it)"
    else
      check "$name: $f equals its reference" 0 "$gpuproc" compare "${options[@]}" "$reference/$name/$f" "$work/$name/$f"
    fi
  done
}

start=$SECONDS

# tonemap-exr: a MIP level of the tonemapped PNG and the JPEG thumbnail.
pinned tonemap "sunset_half_zip_mip2.png sunset_half_zip_thumb.jpg" "${image_options[@]}" --min-psnr 40 -- \
  tonemap-exr -c configs/tonemap-exr.json data-samples/exr/sunset_half_zip.exr --set thumbnail.size=32

# segment-pnm, a 48^3 crop of the phantom: the labels, the pore and throat tables, a Statoil file.
pinned pnm "foam/labels.nrrd foam/pores.csv foam/throats.csv foam/network_node1.dat" "${number_options[@]}" -- \
  segment-pnm -c configs/segment-pnm.json --set input.crop.width=48 --set input.crop.height=48 --set input.crop.depth=48

# stitch-360: 64x64 views (JPEG, a folder per view) and the COLMAP rig.
pinned stitch "yaw000/equirect.jpg yaw090/equirect.jpg images.txt cameras.txt rig_config.json" "${image_options[@]}" --min-psnr 40 \
  "${number_options[@]}" -- stitch-360 -c configs/stitch-360.json --set views.width=64 --set views.height=64

# Short clips (the first frames, the bitstream copied, not re-encoded) keep the model-based
# subcommands quick.
mkdir -p "$work/clips"
ffmpeg -nostdin -v error -i data-samples/video/moving_shapes.mp4 -frames:v 8 -c copy "$work/clips/moving_shapes.mp4"
ffmpeg -nostdin -v error -i data-samples/faces/cam_front.mp4 -frames:v 12 -c copy "$work/clips/cam_front.mp4"

# segment-body: two PNG masks of the clip, from the selfie model.
if [[ -f $models/selfie_segmentation.tflite ]]; then
  pinned body "moving_shapes_mask/00001.png moving_shapes_mask/00006.png" "${image_options[@]}" -- \
    segment-body -c configs/segment-body.json "$work/clips/moving_shapes.mp4" --set mask.refine.subsample=4 \
    --set output.mask_png.enabled=all
else
  echo "segment-body: skipped (no models in $models; run scripts/fetch-models.sh)"
fi

# track-faces: the per-frame boxes, keypoints and tracks (JSON lines and CSV); positions within
# 0.05 px (the GPU path agrees with the CPU path to about 0.03 px).
if [[ -f $models/face_landmark.tflite && -f $models/face_detection_short_range.tflite ]]; then
  pinned faces "cam_front.jsonl cam_front.csv" --tolerance 0.05 -- \
    track-faces -c configs/track-faces.json "$work/clips/cam_front.mp4"
else
  echo "track-faces: skipped (no face models in $models; run scripts/fetch-models.sh)"
fi

echo "reference_outputs: $passes passed, $failures failed ($((SECONDS - start)) s)"
((failures == 0))
