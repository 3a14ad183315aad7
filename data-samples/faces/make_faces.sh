#!/usr/bin/env bash
# Regenerates the track-faces samples from OpenCV's Megamind.avi (Debian package opencv-doc: a
# real 720x528 clip, one face in nearly every frame) with ffmpeg: two "cameras" of 120 frames each,
# cam_front (frames 0-119) and cam_mirror (frames 60-179, mirrored, as a second camera facing the
# scene would see it differently), H.264 at 24 fps. Single-threaded and bit-exact: the same
# ffmpeg gives byte-identical files.
#   data-samples/faces/make_faces.sh [Megamind.avi]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-/usr/share/doc/opencv-doc/examples/data/Megamind.avi}
[[ -f $src ]] || { echo "make_faces.sh: no $src (apt-get install opencv-doc)" >&2; exit 2; }
encode=(-an -c:v libx264 -preset medium -crf 26 -pix_fmt yuv420p -threads 1 -fflags +bitexact -flags:v +bitexact
  -map_metadata -1 -r 24)
ffmpeg -nostdin -v error -y -i "$src" -vf "trim=start_frame=0:end_frame=120,setpts=PTS-STARTPTS" "${encode[@]}" \
  "$here/cam_front.mp4"
ffmpeg -nostdin -v error -y -i "$src" -vf "trim=start_frame=60:end_frame=180,setpts=PTS-STARTPTS,hflip" "${encode[@]}" \
  "$here/cam_mirror.mp4"
ls -la "$here"/*.mp4
