#!/usr/bin/env bash
# track-faces reading live cameras over the network protocols users' cameras speak (issue 26), on
# the CPU path: a real RTSP server (GStreamer's gst-rtsp-server, over RTP/TCP and RTP/UDP), SRT,
# TCP and HTTP MPEG-TS streams sent by ffmpeg (the sender listens, track-faces connects as a
# camera client would). Three cameras in one run: the RTSP server is killed mid-run; its camera
# is named as lost and retried while the others go on to the end of their streams; the run ends
# at run.duration_s with exit 0 and every output complete.
# usage: live_protocols.sh GPUPROC_BINARY SOURCE_DIR
set -uo pipefail
gpuproc=$1
src=$2
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; if [[ -n ${KEEP:-} ]]; then echo "kept: $work"; else rm -rf "$work"; fi' EXIT
source "$src/tests/cli/checks.sh"
cd "$src"
models=${GPUPROC_MODELS:-.models}
skip_without_face_models live_protocols
# Debian's python3-gi is in /usr/bin/python3 (a python3 earlier in PATH may not have it).
py=/usr/bin/python3
[[ -x $py ]] || py=python3
free_port() { python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"; }
# 48 frames (2 s at 24 fps), a key frame every 6, no B-frames: a receiver can start anywhere.
ffmpeg -nostdin -v error -i data-samples/faces/cam_front.mp4 -frames:v 48 -an -c:v libx264 -preset veryfast -g 6 -bf 0 \
  "$work/send.mp4"
send() {  # send URL [OPTION...]: the clip at half real time as MPEG-TS; ffmpeg listens until a camera connects
  local url=$1
  shift
  timeout 40 ffmpeg -nostdin -v error -readrate 0.5 -i "$work/send.mp4" -c copy -muxdelay 0 -muxpreload 0 "$@" \
    -f mpegts "$url" &
}
rtsp_server() {  # rtsp_server PORT: serves send.mp4 at rtsp://127.0.0.1:PORT/cam; its pid in $rtsp_pid
  "$py" tests/cli/rtsp_server.py "$work/send.mp4" "$1" >"$work/rtsp-$1.log" 2>&1 &
  rtsp_pid=$!
  for _ in $(seq 1 100); do
    grep -q ready "$work/rtsp-$1.log" && return 0
    kill -0 "$rtsp_pid" 2>/dev/null || break
    sleep 0.1
  done
  return 1
}
tf=(track-faces -c configs/track-faces.json --device cpu --progress json --set cameras.live.stall_timeout_s=2)
# frames processed and dropped, faces found, of camera ID in REPORT
camera_check() {  # camera_check WHAT REPORT ID PYTHON-CONDITION-ON-c
  json_check "$1" "$2" "[c for c in j['extra']['per_camera'] if c['camera']=='$3' and ($4)]"
}
rtsp_port=$(free_port)
if ! rtsp_server "$rtsp_port"; then
  echo "live_protocols: RTSP skipped (no GStreamer RTSP server: gir1.2-gst-rtsp-server-1.0, gstreamer1.0-plugins-good)"
  rtsp_ok=0
else
  rtsp_ok=1
fi
srt_port=$(free_port)
http_port=$(free_port)
send "srt://127.0.0.1:$srt_port?mode=listener"
send "http://127.0.0.1:$http_port/cam.ts" -listen 1
sleep 0.5
cams=("srt://127.0.0.1:$srt_port" "http://127.0.0.1:$http_port/cam.ts")
((rtsp_ok)) && cams+=("rtsp://127.0.0.1:$rtsp_port/cam")
"$gpuproc" "${tf[@]}" "${cams[@]}" --set output.dir="$work/three" --set cameras.live.rtsp_transport=tcp \
  --set run.duration_s=9 --report "$work/three.json" 2>"$work/three.log" &
pid=$!
if ((rtsp_ok)); then
  sleep 1.2
  kill "$rtsp_pid"  # the RTSP camera goes away mid-stream
fi
wait "$pid"
ok "three live cameras end at run.duration_s with exit 0 (got $?)" $?
srt_id=srt_127.0.0.1_$srt_port
http_id=http_127.0.0.1_${http_port}_cam.ts
camera_check "SRT: frames arrived, faces found" "$work/three.json" "$srt_id" \
  "c['frames']>=8 and c['frames']+c['dropped_behind']>=24 and c['summary']['faces']>=8"
camera_check "HTTP MPEG-TS: frames arrived, faces found" "$work/three.json" "$http_id" \
  "c['frames']>=8 and c['frames']+c['dropped_behind']>=24 and c['summary']['faces']>=8"
json_check "every camera complete, the run ok" "$work/three.json" \
  "j['status']=='ok' and j['items']['succeeded']==len(j['extra']['per_camera'])"
if ((rtsp_ok)); then
  rtsp_id=rtsp_127.0.0.1_${rtsp_port}_cam
  camera_check "RTSP over TCP: frames arrived before the server went, then reconnection attempts" "$work/three.json" \
    "$rtsp_id" "c['frames']>=3 and c['reconnects']>=1"
  expect_text "the RTSP camera's loss is named" "$work/three.log" "camera $rtsp_id: lost ("
  [[ -s $work/three/$rtsp_id.jsonl && -s $work/three/$srt_id.jsonl && -s $work/three/$http_id.jsonl ]]
  ok "each camera's results in place" $?
  # RTSP with RTP over UDP, and a TCP MPEG-TS stream, in one run.
  rtsp_port=$(free_port)
  rtsp_server "$rtsp_port"
  tcp_port=$(free_port)
  send "tcp://127.0.0.1:$tcp_port?listen=1"
  sleep 0.5
  check "RTSP over UDP and TCP MPEG-TS" 0 "$gpuproc" "${tf[@]}" "rtsp://127.0.0.1:$rtsp_port/cam" "tcp://127.0.0.1:$tcp_port" \
    --set output.dir="$work/two" --set cameras.live.rtsp_transport=udp --set run.duration_s=6 --report "$work/two.json"
  camera_check "RTSP over UDP: frames arrived, faces found" "$work/two.json" "rtsp_127.0.0.1_${rtsp_port}_cam" \
    "c['frames']>=8 and c['summary']['faces']>=8"
  camera_check "TCP MPEG-TS: frames arrived, faces found" "$work/two.json" "tcp_127.0.0.1_$tcp_port" \
    "c['frames']>=8 and c['summary']['faces']>=8"
fi

echo "live_protocols: $passes passed, $failures failed"
[[ $failures -eq 0 ]]
