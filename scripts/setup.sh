#!/usr/bin/env bash
# Installs what gpuproc needs on Debian 12; safe to run again (installs only what is missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

mapfile -t packages < <(sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$root/scripts/debian-packages.txt")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo=sudo
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
if ! [[ -x $nvcc ]] && ! command -v nvcc >/dev/null; then
  echo "setup: the CUDA toolkit (nvcc) is needed to build; install CUDA 12.4+ to /usr/local/cuda" >&2
  exit 1
fi
echo "setup: dependencies present" >&2

# MediaPipe models for the inference engine (git-ignored .models/; offline once they are there).
"$root/scripts/fetch-models.sh"
