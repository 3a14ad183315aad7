#!/usr/bin/env python3
"""Agreement of `gpuproc track-faces` detections with the OpenCV/dlib peer (issue 7).

  face_agreement.py TRACK_FACES.jsonl PEER.jsonl [--camera ID] [--stream I] [--every N]
                    [--iou 0.3] [--detected-only] [--out FILE.json]

TRACK_FACES.jsonl: gpuproc's lines, one per camera frame:
  {"camera":..,"frame":n,"faces":[{"track":..,"box":[x0,y0,x1,y1],"score":..,"detected":..},...]}
(all its faces by default; --detected-only keeps those with "detected": true, i.e. found by the
detector on that frame rather than followed from the previous frame's landmarks).
PEER.jsonl: gpuproc-face-peer's lines {"video":..,"stream":i,"frame":n,"haar":[[x0,y0,x1,y1],..],
"hog":[..]} (its summary line is ignored).

Frames are paired by camera/stream and frame number; only frames present on both sides are
compared (with --every N, only those whose number is a multiple of N: the frames the peer ran
--every N on). In each frame the two sets of boxes are matched one to one by the Hungarian
algorithm (scipy), which takes the most pairs that meet the criterion, then the largest total IoU:
  iou:    IoU >= --iou (0.3 by default);
  centre: each box's centre lies inside the other box (Haar boxes are squarer and larger than
          BlazeFace's, so IoU understates their agreement).
Per peer detector and criterion, with G = gpuproc's faces, P = the peer's, M = matched pairs:
  agreement = M / (G + P - M)  (matched pairs over the union of both sets, a pair counted once);
  gpuproc_vs_peer: precision M/G, recall M/P (the peer as reference);
  peer_vs_gpuproc: precision M/P, recall M/G (gpuproc as reference);
  mean_iou: mean IoU of the matched pairs (null when none).
Prints the JSON and writes it to --out when given.
"""
import argparse
import json
import sys

import numpy as np
from scipy.optimize import linear_sum_assignment

PEER_DETECTORS = ("haar", "hog")


def iou(a, b):
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    inter = max(w, 0) * max(h, 0)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def centre_inside(a, b):
    x, y = (a[0] + a[2]) / 2, (a[1] + a[3]) / 2
    return b[0] <= x <= b[2] and b[1] <= y <= b[3]


def admissible(a, b, criterion, iou_min):
    if criterion == "iou":
        return iou(a, b) >= iou_min
    return centre_inside(a, b) and centre_inside(b, a)


def match(ours, theirs, criterion, iou_min):
    """IoUs of the matched pairs: most pairs first, then the largest total IoU."""
    if not ours or not theirs:
        return []
    # Weight n+1+IoU per admissible pair: one more pair always outweighs any IoU gain.
    bonus = min(len(ours), len(theirs)) + 1
    weight = np.zeros((len(ours), len(theirs)))
    for i, a in enumerate(ours):
        for j, b in enumerate(theirs):
            if admissible(a, b, criterion, iou_min):
                weight[i, j] = bonus + iou(a, b)
    rows, cols = linear_sum_assignment(weight, maximize=True)
    return [weight[i, j] - bonus for i, j in zip(rows, cols) if weight[i, j] > 0]


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as e:
                    sys.exit(f"{path}:{number}: not JSON: {e}")


def pick(values, wanted, what, option):
    """The one source to compare: the asked one, else the only one present."""
    if wanted is not None:
        if wanted not in values:
            sys.exit(f"no {what} {wanted!r} (present: {sorted(values, key=str)})")
        return wanted
    if len(values) != 1:
        sys.exit(f"{len(values)} {what}s present ({sorted(values, key=str)}): choose one with {option}")
    return next(iter(values))


def load_gpuproc(path, camera, detected_only):
    frames = {}
    for line in read_lines(path):
        if isinstance(line.get("faces"), list) and "frame" in line:
            boxes = [face["box"] for face in line["faces"] if face.get("detected", True) or not detected_only]
            frames.setdefault(str(line.get("camera")), {})[line["frame"]] = boxes
    if not frames:
        sys.exit(f"{path}: no track-faces frame lines")
    camera = pick(frames, camera, "camera", "--camera")
    return camera, frames[camera]


def load_peer(path, stream):
    frames = {}
    for line in read_lines(path):
        if "frame" in line and "summary" not in line:
            frames.setdefault(line.get("stream", 0), {})[line["frame"]] = line
    if not frames:
        sys.exit(f"{path}: no gpuproc-face-peer frame lines")
    stream = pick(frames, stream, "stream", "--stream")
    return stream, frames[stream]


def ratio(num, den):
    return num / den if den else None


def compare(gpuproc, peer, detector, frames, iou_min):
    faces_gpuproc = sum(len(gpuproc[f]) for f in frames)
    faces_peer = sum(len(peer[f][detector]) for f in frames)
    result = {"frames": len(frames), "faces_gpuproc": faces_gpuproc, "faces_peer": faces_peer,
              "frames_with_face_gpuproc": sum(1 for f in frames if gpuproc[f]),
              "frames_with_face_peer": sum(1 for f in frames if peer[f][detector])}
    for criterion in ("iou", "centre"):
        ious = [v for f in frames for v in match(gpuproc[f], peer[f][detector], criterion, iou_min)]
        m = len(ious)
        result[criterion] = {
            "matched": m,
            "agreement": ratio(m, faces_gpuproc + faces_peer - m),
            "gpuproc_vs_peer": {"precision": ratio(m, faces_gpuproc), "recall": ratio(m, faces_peer)},
            "peer_vs_gpuproc": {"precision": ratio(m, faces_peer), "recall": ratio(m, faces_gpuproc)},
            "mean_iou": ratio(sum(ious), m),
        }
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("gpuproc", help="track-faces JSON lines")
    parser.add_argument("peer", help="gpuproc-face-peer JSON lines")
    parser.add_argument("--camera", help="track-faces camera id (default: the only one)")
    parser.add_argument("--stream", type=int, help="peer stream index (default: the only one)")
    parser.add_argument("--every", type=int, default=1, help="compare only frames that are multiples of N")
    parser.add_argument("--iou", type=float, default=0.3, help="IoU a match needs (iou criterion)")
    parser.add_argument("--detected-only", action="store_true",
                        help="only gpuproc's faces detected on that frame (not those followed by landmarks)")
    parser.add_argument("--out", help="write the JSON here too")
    args = parser.parse_args()
    if args.every < 1:
        parser.error("--every must be >= 1")

    camera, gpuproc = load_gpuproc(args.gpuproc, args.camera, args.detected_only)
    stream, peer = load_peer(args.peer, args.stream)
    frames = sorted(f for f in gpuproc.keys() & peer.keys() if f % args.every == 0)
    report = {"camera": camera, "stream": stream, "every": args.every, "iou_min": args.iou,
              "detected_only": args.detected_only,
              "frames_gpuproc_only": len(gpuproc.keys() - peer.keys()),
              "frames_peer_only": len(peer.keys() - gpuproc.keys()),
              "agreement_is": "matched / (faces_gpuproc + faces_peer - matched)"}
    detectors = [d for d in PEER_DETECTORS if frames and all(d in peer[f] for f in frames)]
    if not detectors:
        sys.exit("no frame in common with a haar or hog result on every frame")
    for detector in detectors:
        report[detector] = compare(gpuproc, peer, detector, frames, args.iou)
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
