#!/usr/bin/env bash
# Extracts chosen frames of a video to PNG (by 0-based decode index), for annotating them by eye:
#   scripts/annotate/extract_frames.sh VIDEO OUT_DIR INDEX...
# e.g. scripts/annotate/extract_frames.sh /usr/share/doc/opencv-doc/examples/data/vtest.avi /tmp/vtest 0 150 300
# writes OUT_DIR/frame_000150.png etc. Index = count of decoded frames (ffmpeg's select on n),
# the same numbering as gp::io::VideoReader's VideoFrame::index().
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 VIDEO OUT_DIR INDEX..." >&2
  exit 2
fi
video=$1
out=$2
shift 2
mkdir -p "$out"
for index in "$@"; do
  name=$(printf 'frame_%06d.png' "$index")
  ffmpeg -v error -y -i "$video" -vf "select=eq(n\\,$index)" -vsync 0 -frames:v 1 "$out/$name"
  echo "$out/$name"
done
