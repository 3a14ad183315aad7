#!/usr/bin/env bash
# Fetches the MediaPipe .tflite models that gpuproc's inference engine runs, checked by SHA-256.
#   usage: scripts/fetch-models.sh [DIR]      (DIR defaults to <repo>/.models, git-ignored)
#
# Packages (npm pack <name>@<version>; the tarballs are kept in DIR/npm/):
#   @mediapipe/selfie_segmentation 0.1.1675465747
#     mediapipe-selfie_segmentation-0.1.1675465747.tgz
#     7767b33eaa68990ee06c28bbb89f39a13a47ebb07ff0f1fd4947d9e817bb9bf9
#   @mediapipe/face_detection 0.4.1657300184
#     mediapipe-face_detection-0.4.1657300184.tgz
#     a118cde74923dc4435257fbfbb613464a0f58d115dff6314d4ff96c8aebf6419
#   @mediapipe/face_mesh 0.4.1657299874
#     mediapipe-face_mesh-0.4.1657299874.tgz
#     c08a7e0742a326285da666cf81d77c8b6f3a181a2ee948cadaf166008e0d3bc7
#   @mediapipe/pose 0.5.1675469404 (BlazePose)
#     mediapipe-pose-0.5.1675469404.tgz
#     8bb349a7b3a3ba699df23be804ddd3b3eab810b50b15406894be257859388a84
#   (the registry's own sha1 "shasum" of each tarball was checked once against these files)
#
# Models written to DIR:
#   selfie_segmentation.tflite             8d13b7fae74af625c641226813616a2117bd6bca19eb3b75574621fc08557f27
#   selfie_segmentation_landscape.tflite   4aafe6223bb8dac6fac8ca8ed56852870a33051ef3f6238822d282a109962894
#   face_detection_short_range.tflite      3bc182eb9f33925d9e58b5c8d59308a760f4adea8f282370e428c51212c26633
#   face_detection_full_range.tflite       99bf9494d84f50acc6617d89873f71bf6635a841ea699c17cb3377f9507cfec3
#   face_detection_full_range_sparse.tflite 671dd2f9ed11a78436fc21cc42357a803dfc6f73e9fb86541be942d5716c2dce
#   face_landmark.tflite                   c603fa6149219a3e9487dc9abd7a0c24474c77263273d24868378cdf40aa26d1
#   pose_detection.tflite                  a63c614bef30d35947f13be361820b1e4e3bec9cfeebf4d11216a18373108e85
#   pose_landmark_lite.tflite              f17bfbecadb61c3be1baa8b8d851cc6619c870a87167b32848ad20db306b9d61
#   pose_landmark_full.tflite              e9a5c5cb17f736fafd4c2ec1da3b3d331d6edbe8a0d32395855aeb2cdfd64b9f
#   pose_landmark_heavy.tflite             59e42d71bcd44cbdbabc419f0ff76686595fd265419566bd4009ef703ea8e1fe
# The first five are plain files in the tarballs. face_landmark.tflite is bytes 2495952..3737848
# of face_mesh's face_mesh_solution_packed_assets.data, as listed by the loadPackage({...}) call
# in face_mesh_solution_packed_assets_loader.js beside it (the same .data also holds
# face_landmark_with_attention.tflite, whose custom operators the engine does not run, and a
# copy of face_detection_short_range.tflite identical to the face_detection package's).
# pose_detection.tflite (BlazePose's person detector) is the whole of pose's
# pose_solution_packed_assets.data (bytes 0..2962288, the loader's only file); the three pose
# landmark models are plain files of that package.
#
# Idempotent: files already present with the right hash are kept, so with every model in place
# nothing touches the network. Any hash mismatch stops the script with the file named.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/.models}

# package name, version, tarball SHA-256
packages=(
  "selfie_segmentation 0.1.1675465747 7767b33eaa68990ee06c28bbb89f39a13a47ebb07ff0f1fd4947d9e817bb9bf9"
  "face_detection 0.4.1657300184 a118cde74923dc4435257fbfbb613464a0f58d115dff6314d4ff96c8aebf6419"
  "face_mesh 0.4.1657299874 c08a7e0742a326285da666cf81d77c8b6f3a181a2ee948cadaf166008e0d3bc7"
  "pose 0.5.1675469404 8bb349a7b3a3ba699df23be804ddd3b3eab810b50b15406894be257859388a84"
)
# model file, SHA-256, package, where in the package ("file" or "packed")
models=(
  "selfie_segmentation.tflite 8d13b7fae74af625c641226813616a2117bd6bca19eb3b75574621fc08557f27 selfie_segmentation file"
  "selfie_segmentation_landscape.tflite 4aafe6223bb8dac6fac8ca8ed56852870a33051ef3f6238822d282a109962894 selfie_segmentation file"
  "face_detection_short_range.tflite 3bc182eb9f33925d9e58b5c8d59308a760f4adea8f282370e428c51212c26633 face_detection file"
  "face_detection_full_range.tflite 99bf9494d84f50acc6617d89873f71bf6635a841ea699c17cb3377f9507cfec3 face_detection file"
  "face_detection_full_range_sparse.tflite 671dd2f9ed11a78436fc21cc42357a803dfc6f73e9fb86541be942d5716c2dce face_detection file"
  "face_landmark.tflite c603fa6149219a3e9487dc9abd7a0c24474c77263273d24868378cdf40aa26d1 face_mesh packed"
  "pose_detection.tflite a63c614bef30d35947f13be361820b1e4e3bec9cfeebf4d11216a18373108e85 pose packed"
  "pose_landmark_lite.tflite f17bfbecadb61c3be1baa8b8d851cc6619c870a87167b32848ad20db306b9d61 pose file"
  "pose_landmark_full.tflite e9a5c5cb17f736fafd4c2ec1da3b3d331d6edbe8a0d32395855aeb2cdfd64b9f pose file"
  "pose_landmark_heavy.tflite 59e42d71bcd44cbdbabc419f0ff76686595fd265419566bd4009ef703ea8e1fe pose file"
)

say() { echo "fetch-models: $*" >&2; }
sha256_of() { sha256sum "$1" | cut -d' ' -f1; }
has_hash() { [[ -f $1 ]] && [[ $(sha256_of "$1") == "$2" ]]; }
# Fails loudly, naming the file, when its hash is not the pinned one.
require_hash() {
  local file=$1 want=$2 got
  got=$(sha256_of "$file")
  if [[ $got != "$want" ]]; then
    say "SHA-256 mismatch for $file: expected $want, got $got"
    exit 1
  fi
}

missing=()
for entry in "${models[@]}"; do
  read -r file hash package where <<<"$entry"
  if [[ -f $dir/$file ]]; then
    require_hash "$dir/$file" "$hash"  # a changed file is an error, not something to overwrite
  else
    missing+=("$entry")
  fi
done
if ((${#missing[@]} == 0)); then
  say "all ${#models[@]} models present and verified in $dir"
  exit 0
fi

command -v npm >/dev/null || { say "npm is needed to fetch the models (not found)"; exit 1; }
mkdir -p "$dir/npm"
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuproc-models.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Prints the verified tarball path of a package, fetching it when it is not already in DIR/npm.
tarball_of() {
  local name=$1 entry pname version hash tgz
  for entry in "${packages[@]}"; do
    read -r pname version hash <<<"$entry"
    [[ $pname == "$name" ]] || continue
    tgz=$dir/npm/mediapipe-$pname-$version.tgz
    if ! has_hash "$tgz" "$hash"; then
      say "npm pack @mediapipe/$pname@$version"
      mkdir -p "$work/pack"
      (cd "$work/pack" && npm pack --silent "@mediapipe/$pname@$version" >/dev/null)
      require_hash "$work/pack/mediapipe-$pname-$version.tgz" "$hash"
      mv "$work/pack/mediapipe-$pname-$version.tgz" "$tgz"
    fi
    echo "$tgz"
    return
  done
  say "internal error: no package $name"
  exit 1
}

# Writes the file at DIR/<file> from <source> once its hash checks out (never a partial file).
install_model() {
  local source=$1 file=$2 hash=$3
  require_hash "$source" "$hash"
  cp "$source" "$dir/$file.tmp"
  chmod 644 "$dir/$file.tmp"
  mv "$dir/$file.tmp" "$dir/$file"
  say "$file verified"
}

for entry in "${missing[@]}"; do
  read -r file hash package where <<<"$entry"
  tgz=$(tarball_of "$package")
  unpacked=$work/$package
  if [[ ! -d $unpacked ]]; then
    mkdir -p "$unpacked"
    tar -xzf "$tgz" -C "$unpacked"
  fi
  if [[ $where == file ]]; then
    [[ -f $unpacked/package/$file ]] || { say "$file is not in $(basename "$tgz")"; exit 1; }
    install_model "$unpacked/package/$file" "$file" "$hash"
  else
    # The emscripten loader lists each packed file as {"filename", "start", "end"}.
    python3 - "$unpacked/package" "$file" "$work/$file" <<'PY'
import json, os, re, sys
folder, wanted, out = sys.argv[1:4]
loaders = [f for f in os.listdir(folder) if f.endswith("_packed_assets_loader.js")]
if len(loaders) != 1:
    sys.exit(f"fetch-models: expected one *_packed_assets_loader.js in {folder}, found {loaders}")
text = open(os.path.join(folder, loaders[0]), encoding="utf-8").read()
match = re.search(r"loadPackage\((\{.*?\})\);", text, re.S)
if not match:
    sys.exit(f"fetch-models: no loadPackage({{...}}) in {loaders[0]}")
meta = json.loads(match.group(1))
data_path = os.path.join(folder, loaders[0].replace("_loader.js", ".data"))
data = open(data_path, "rb").read()
if len(data) != meta["remote_package_size"]:
    sys.exit(f"fetch-models: {data_path} has {len(data)} bytes, the loader says {meta['remote_package_size']}")
entries = [f for f in meta["files"] if f["filename"].rsplit("/", 1)[-1] == wanted]
if len(entries) != 1:
    sys.exit(f"fetch-models: {wanted} listed {len(entries)} times in {loaders[0]}")
start, end = entries[0]["start"], entries[0]["end"]
if not 0 <= start < end <= len(data):
    sys.exit(f"fetch-models: byte range {start}..{end} of {wanted} is outside {data_path}")
open(out, "wb").write(data[start:end])
PY
    install_model "$work/$file" "$file" "$hash"
  fi
done
say "models ready in $dir"
