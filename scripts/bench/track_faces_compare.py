#!/usr/bin/env python3
"""Compares two gpuproc track-faces JSON-lines files of the same video (e.g. the GPU and the CPU
path): per frame, faces are paired greedily by box IoU (highest first, IoU > 0.3); for each pair
the box IoU and, when both have landmarks, the mean distance between corresponding landmarks
(x, y, pixels). Pass: at least 95% of the pairs have IoU >= 0.95, and the mean landmark error over
all pairs is below 1 px. Faces only one side has are counted, not failed (tracks confirm a frame
apart when a score sits on a threshold).
  track_faces_compare.py A.jsonl B.jsonl [--json OUT.json]"""
import argparse
import json
import math
import sys


def frames_of(path):
    return {(d["camera"], d["frame"]): d["faces"] for d in (json.loads(l) for l in open(path) if l.strip())}


def iou(a, b):
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def pairs(fa, fb):
    cand = sorted(((iou(x["box"], y["box"]), i, j) for i, x in enumerate(fa) for j, y in enumerate(fb)), reverse=True)
    used_a, used_b, out = set(), set(), []
    for v, i, j in cand:
        if v <= 0.3 or i in used_a or j in used_b:
            continue
        used_a.add(i)
        used_b.add(j)
        out.append((fa[i], fb[j], v))
    return out


def compare(a_path, b_path):
    a, b = frames_of(a_path), frames_of(b_path)
    common = sorted(set(a) & set(b))
    ious, lm_errors, only_a, only_b = [], [], 0, 0
    for key in common:
        matched = pairs(a[key], b[key])
        only_a += len(a[key]) - len(matched)
        only_b += len(b[key]) - len(matched)
        for x, y, v in matched:
            ious.append(v)
            la, lb = x.get("landmarks"), y.get("landmarks")
            if la and lb and len(la) == len(lb):
                lm_errors.append(sum(math.hypot(p[0] - q[0], p[1] - q[1]) for p, q in zip(la, lb)) / len(la))
    share = sum(v >= 0.95 for v in ious) / len(ious) if ious else None
    mean_lm = sum(lm_errors) / len(lm_errors) if lm_errors else None
    return {
        "frames": {"a": len(a), "b": len(b), "common": len(common)},
        "pairs": len(ious), "faces_only_in_a": only_a, "faces_only_in_b": only_b,
        "box_iou": {"mean": round(sum(ious) / len(ious), 4) if ious else None, "min": round(min(ious), 4) if ious else None,
                    "share_at_least_0.95": round(share, 4) if share is not None else None},
        "landmarks_px": {"faces": len(lm_errors), "mean_error": round(mean_lm, 4) if mean_lm is not None else None,
                         "max_face_mean_error": round(max(lm_errors), 4) if lm_errors else None},
        "pass": bool(ious) and share >= 0.95 and (mean_lm is None or mean_lm < 1.0),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--json")
    args = ap.parse_args()
    result = compare(args.a, args.b)
    print(json.dumps(result, indent=1))
    if args.json:
        json.dump(result, open(args.json, "w"), indent=2)
    return 0 if result["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
