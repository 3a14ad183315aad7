#!/usr/bin/env bash
# track-faces' results streamed out while the run goes on (issue 26), end to end on the CPU path:
# a ZeroMQ subscriber (python3-zmq) that the run waits for receives every frame of both sample
# cameras in order, each the same JSON as the camera's JSON lines file, with their latency; the same
# lines on stdout; a listener that does not read makes the run drop and count, never wait.
# usage: result_stream.sh GPUPROC_BINARY SOURCE_DIR
set -uo pipefail
gpuproc=$1
src=$2
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
source "$src/tests/cli/checks.sh"
cd "$src"
models=${GPUPROC_MODELS:-.models}
skip_without_face_models result_stream
# The subscriber needs pyzmq: Debian's python3-zmq (scripts/debian-packages.txt) is in the system
# Python, which another python3 earlier in PATH (pyenv, a venv) may hide.
zmq_python=""
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c "import zmq" 2>/dev/null; then zmq_python=$candidate; break; fi
done
if [[ -z $zmq_python ]]; then
  echo "result_stream: FAIL: no Python with pyzmq (python3-zmq, scripts/debian-packages.txt)"
  exit 1
fi
port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
tf=(track-faces -c configs/track-faces.json --device cpu --progress none)
cams=(data-samples/faces/cam_front.mp4 data-samples/faces/cam_mirror.mp4)

# 1. A subscriber the run waits for: every frame, in order, the same JSON as the files.
"$zmq_python" - "$port" "$work/received.json" <<'PY' &
import json, sys, time, zmq
ctx = zmq.Context()
sub = ctx.socket(zmq.SUB)
sub.connect(f"tcp://127.0.0.1:{sys.argv[1]}")
sub.setsockopt(zmq.SUBSCRIBE, b"")
got, deadline = [], time.time() + 120
while len(got) < 240 and time.time() < deadline:
    if sub.poll(1000):
        topic, body = sub.recv_multipart()
        got.append([topic.decode(), body.decode()])
json.dump(got, open(sys.argv[2], "w"))
PY
listener=$!
check "stream to a subscriber and stdout" 0 "$gpuproc" "${tf[@]}" "${cams[@]}" --set output.dir="$work/out" \
  --set output.stream.zmq="tcp://127.0.0.1:$port" --set output.stream.wait_subscribers=1 --set output.stream.stdout=true \
  --report "$work/report.json"
cp "$work/stdout" "$work/stdout.jsonl"
wait "$listener"
python3 - "$work" <<'PY'; ok "subscriber: every frame of both cameras in order, as in the files; stdout the same" $?
import json, sys
work = sys.argv[1]
got = json.load(open(f"{work}/received.json"))
files = {cam: [l.rstrip("\n") for l in open(f"{work}/out/{cam}.jsonl")] for cam in ("cam_front", "cam_mirror")}
for cam, lines in files.items():
    mine = [body for topic, body in got if topic == cam]
    assert mine == lines, (cam, len(mine), len(lines))
    assert [json.loads(b)["frame"] for b in mine] == list(range(120))
stdout = [l.rstrip("\n") for l in open(f"{work}/stdout.jsonl")]
assert sorted(stdout) == sorted(files["cam_front"] + files["cam_mirror"]), len(stdout)
r = json.load(open(f"{work}/report.json"))["extra"]["stream"]
assert r["published"] == 240 and r["dropped_queue_full"] == 0 and r["dropped_listener_slow"] == 0, r
assert r["subscribers_seen"] >= 1 and r["latency_ms"]["p99"] > 0, r
PY

# 2. A listener that does not read (stdout into a pipe nobody empties for a while, a queue of 4):
# the run goes on, dropping and counting what does not fit.
"$gpuproc" "${tf[@]}" "${cams[@]}" --set output.dir="$work/slow" --set output.stream.stdout=true \
  --set output.stream.queue=4 --set output.landmarks=true --report "$work/slow.json" | (sleep 4; cat >/dev/null)
json_check "a slow listener: messages dropped and counted, none lost unsaid" "$work/slow.json" \
  "j['extra']['stream']['dropped_queue_full'] > 0 and j['extra']['stream']['published'] + j['extra']['stream']['dropped_queue_full'] == 240 and j['items']['succeeded'] == 2"
[[ $(wc -l <"$work/slow/cam_front.jsonl") -eq 120 ]]; ok "a slow listener: the files are complete" $?

# 3. An endpoint that cannot be bound is a usage error naming the field, before any work.
check "a bad endpoint" 2 "$gpuproc" "${tf[@]}" "${cams[@]}" --set output.dir="$work/bad" --set output.stream.zmq=nonsense://x
expect_text "the bad endpoint's field" "$work/stderr" "/output/stream/zmq: cannot bind \"nonsense://x\""
[[ ! -e $work/bad/cam_front.jsonl ]]; ok "a bad endpoint: nothing written" $?

echo "result_stream: $passes passed, $failures failed"
[[ $failures -eq 0 ]]
