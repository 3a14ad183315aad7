#!/usr/bin/env bash
# track-faces' face signals (head pose, eye and mouth openness) on real frames, end to end on the
# CPU path: the sample camera (OpenCV's Megamind.avi), its mirror image and the same turned 15
# degrees counter-clockwise in the image plane, each re-encoded alike. Mirrored: yaw and roll
# change sign, pitch and the openings stay; turned: roll grows by 15 degrees, the rest stays; the
# clip's head turn (frames 78-94) shows as a falling yaw. Signals in JSON lines, CSV and summary.
# usage: face_signals.sh GPUPROC_BINARY SOURCE_DIR
set -uo pipefail
gpuproc=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$src/tests/cli/checks.sh"
cd "$src"
models=${GPUPROC_MODELS:-.models}
skip_without_face_models face_signals
enc=(-an -c:v libx264 -preset veryfast -crf 16 -pix_fmt yuv420p -threads 1)
ffmpeg -nostdin -v error -i data-samples/faces/cam_front.mp4 "${enc[@]}" "$work/plain.mp4"
ffmpeg -nostdin -v error -i data-samples/faces/cam_front.mp4 -vf hflip "${enc[@]}" "$work/mirrored.mp4"
ffmpeg -nostdin -v error -i data-samples/faces/cam_front.mp4 -vf "rotate=-15*PI/180:fillcolor=black" "${enc[@]}" \
  "$work/turned.mp4"
check "track-faces on the three clips" 0 "$gpuproc" track-faces -c configs/track-faces.json --device cpu --progress none \
  --set output.dir="$work/out" "$work/plain.mp4" "$work/mirrored.mp4" "$work/turned.mp4"
python3 - "$work/out" <<'PY'; ok "signals: mirror, in-plane turn, head turn, CSV and summary" $?
import csv, json, statistics, sys
out = sys.argv[1]
def series(cam):
    s = {}
    for line in open(f"{out}/{cam}.jsonl"):
        r = json.loads(line)
        faces = [f for f in r["faces"] if "head_pose" in f]
        if len(faces) == 1:
            f = faces[0]
            s[r["frame"]] = (f["head_pose"]["yaw"], f["head_pose"]["pitch"], f["head_pose"]["roll"],
                             f["eye_openness"][0], f["eye_openness"][1], f["mouth_openness"])
    return s
plain, mirrored, turned = series("plain"), series("mirrored"), series("turned")
def median_abs(pairs):
    return statistics.median(abs(a - b) for a, b in pairs)
common = sorted(set(plain) & set(mirrored))
assert len(common) >= 90, len(common)
m = {"yaw": median_abs((plain[k][0], -mirrored[k][0]) for k in common),
     "pitch": median_abs((plain[k][1], mirrored[k][1]) for k in common),
     "roll": median_abs((plain[k][2], -mirrored[k][2]) for k in common),
     # the subject's right eye is the mirror image's left
     "eyes": median_abs((plain[k][3], mirrored[k][4]) for k in common),
     "mouth": median_abs((plain[k][5], mirrored[k][5]) for k in common)}
common_t = sorted(set(plain) & set(turned))
assert len(common_t) >= 90, len(common_t)
roll_gain = statistics.median(turned[k][2] - plain[k][2] for k in common_t)
t = {"yaw": median_abs((plain[k][0], turned[k][0]) for k in common_t),
     "pitch": median_abs((plain[k][1], turned[k][1]) for k in common_t)}
turn = [plain[k][0] for k in range(78, 95) if k in plain]
print("mirror median |differences|:", {k: round(v, 3) for k, v in m.items()}, "turned: roll +", round(roll_gain, 2),
      {k: round(v, 2) for k, v in t.items()}, "head turn yaw:", turn)
ok = (m["yaw"] < 3 and m["pitch"] < 3 and m["roll"] < 3 and m["eyes"] < 0.04 and m["mouth"] < 0.04 and
      abs(roll_gain - 15) < 1.5 and t["yaw"] < 3 and t["pitch"] < 3)
# The head turns from the subject's left back towards the camera: yaw falls by over 15 degrees,
# each third of the turn lower than the one before.
thirds = [statistics.mean(turn[i * len(turn) // 3:(i + 1) * len(turn) // 3]) for i in range(3)]
ok = ok and len(turn) >= 15 and thirds[0] > thirds[1] > thirds[2] and turn[0] - turn[-1] > 15
rows = list(csv.DictReader(open(f"{out}/plain.csv")))
ok = ok and sum(r["yaw"] != "" for r in rows) >= 90 and abs(float(rows[-1]["yaw"]) - plain[max(plain)][0]) < 0.01
summary = json.load(open(f"{out}/plain_summary.json"))
sig = summary["tracks"][0]["signals"]
ok = ok and sig["frames"] >= 90 and sig["yaw"]["min"] <= sig["yaw"]["mean"] <= sig["yaw"]["max"]
sys.exit(0 if ok else 1)
PY
echo "face_signals: $passes passed, $failures failed"
[[ $failures -eq 0 ]]
