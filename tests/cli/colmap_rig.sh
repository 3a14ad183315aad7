#!/usr/bin/env bash
# stitch-360's rig in Debian's COLMAP 3.8 (issue 27), CPU path; skipped (exit 77) without colmap,
# a test-only dependency (scripts/debian-packages.txt):
# - one panorama: COLMAP reads the text model stitch-360 writes (cameras.txt, images.txt,
#   points3D.txt): model_analyzer counts its 8 views registered, and the poses read back equal;
# - a 360 video with parallax (gpuproc-make-samples rig-scene: 4 frames of 2048x1024, the camera
#   moving 0.3 m and turning 4 degrees between frames in a textured room with boxes): its views,
#   a folder per view, imported by feature_extractor (PINHOLE with the views' intrinsics, a camera
#   per folder) get the camera ids of cameras.json and rig_config.json; matched (CPU SIFT, the
#   pairs that overlap: neighbouring views and the same view in other frames) and reconstructed by
#   the mapper, every image posed on its own, they give frame by frame the views' rotations
#   relative to the first view: within 1 degree of rig_config.json's rel_qvec (the inverse
#   convention is 30+ degrees off on average, so the check can fail); rig_bundle_adjuster refining
#   our rig keeps them within 0.5 degree; with our rig held fixed its reprojection error stays
#   within 10% of the free reconstruction's, with one view turned 3 degrees it at least doubles.
# usage: colmap_rig.sh GPUPROC_BINARY SOURCE_DIR MAKE_SAMPLES_BINARY
set -uo pipefail
gpuproc=$1
src=$2
make_samples=$3
if ! command -v colmap >/dev/null; then
  echo "colmap_rig: skipped (no colmap: apt-get install colmap, see scripts/debian-packages.txt)"
  exit 77
fi
work=$(mktemp -d)
trap 'if [[ -n ${KEEP:-} ]]; then echo "kept: $work"; else rm -rf "$work"; fi' EXIT
source "$src/tests/cli/checks.sh"
cd "$src"
export QT_QPA_PLATFORM=offscreen  # COLMAP's command line needs no display
threads=$(nproc)
st=(stitch-360 -c configs/stitch-360.json --device cpu --progress none)

# The rig's checks (python3, no numpy): model: a COLMAP text model; rig: rig_config.json.
cat >"$work/rig_check.py" <<'PY'
import json, math, sys

def rot(q):  # COLMAP's (w, x, y, z) -> 3x3 rotation (Hamilton, as Eigen)
    w, x, y, z = q
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]

def mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]

def t(a):
    return [[a[j][i] for j in range(3)] for i in range(3)]

def angle(a, b):  # degrees of a b^T
    m = mul(a, t(b))
    return math.degrees(math.acos(max(-1.0, min(1.0, (m[0][0] + m[1][1] + m[2][2] - 1) / 2))))

def images(model):  # name -> (camera id, R world-to-camera)
    out, lines = {}, [l for l in open(model + "/images.txt") if not l.startswith("#")]
    for line in lines[0::2]:
        w = line.split()
        if len(w) >= 10:
            out[w[9]] = (int(w[8]), rot([float(v) for v in w[1:5]]))
    return out

def reprojection_error(model):  # mean, pixels, over every observation of a text model
    cams, points, total, count = {}, {}, 0.0, 0
    for w in (l.split() for l in open(model + "/cameras.txt") if not l.startswith("#")):
        if w:
            cams[int(w[0])] = [float(v) for v in w[4:8]]  # PINHOLE fx fy cx cy
    for w in (l.split() for l in open(model + "/points3D.txt") if not l.startswith("#")):
        if w:
            points[int(w[0])] = [float(v) for v in w[1:4]]
    lines = [l for l in open(model + "/images.txt") if not l.startswith("#")]
    for head, observed in zip(lines[0::2], lines[1::2]):
        w = head.split()
        r, t = rot([float(v) for v in w[1:5]]), [float(v) for v in w[5:8]]
        fx, fy, cx, cy = cams[int(w[8])]
        o = observed.split()
        for k in range(0, len(o), 3):
            if int(o[k + 2]) in points:
                x = points[int(o[k + 2])]
                c = [sum(r[i][j] * x[j] for j in range(3)) + t[i] for i in range(3)]
                total += math.hypot(fx * c[0] / c[2] + cx - float(o[k]), fy * c[1] / c[2] + cy - float(o[k + 1]))
                count += 1
    return total / count

def relative_errors(model, rigs, inverse=False):
    """Per snapshot and non-reference camera: the angle between the reconstruction's relative
    rotation R_image R_reference^T and the rig's rel_qvec (its transpose with inverse)."""
    errors, imgs = [], images(model)
    for rig in rigs:
        cams = {c["camera_id"]: c for c in rig["cameras"]}
        snapshots = {}
        for name, (cam, r) in imgs.items():
            if cam in cams and cams[cam]["image_prefix"] in name:
                suffix = name[name.rfind(cams[cam]["image_prefix"]) + len(cams[cam]["image_prefix"]):]
                snapshots.setdefault(suffix, {})[cam] = r
        for views in snapshots.values():
            ref = views.get(rig["ref_camera_id"])
            if ref is None:
                continue
            for cam, r in views.items():
                if cam == rig["ref_camera_id"]:
                    continue
                want = rot(cams[cam]["rel_qvec"])
                errors.append(angle(mul(r, t(ref)), t(want) if inverse else want))
    return errors

if __name__ == "__main__":
    what, model, rig_path = sys.argv[1:4]
    if what == "reprojection":  # reprojection MODEL REFERENCE_MODEL LOW HIGH: error / reference's in [LOW, HIGH]
        e, ref = reprojection_error(model), reprojection_error(rig_path)
        print(f"{e:.3f} px against {ref:.3f} px")
        sys.exit(0 if float(sys.argv[4]) <= e / ref <= float(sys.argv[5]) else 1)
    if what == "pairs":  # pairs CAMERAS_JSON - OUT: neighbouring views of a frame and the next, a view in every frame
        caps = [c["images"] for c in json.load(open(model))["captures"]]
        n, pairs = len(caps[0]), set()
        for f in range(len(caps)):
            for g in range(f, len(caps)):
                for v in range(n):
                    for w in range(n):
                        near = (w - v) % n in (1, n - 1)
                        if (g == f and v < w and near) or (g == f + 1 and (v == w or near)) or (g > f + 1 and v == w):
                            pairs.add((caps[f][v], caps[g][w]))
        open(sys.argv[4], "w").write("".join(f"{a} {b}\n" for a, b in sorted(pairs)))
        sys.exit(0)
    rigs = json.load(open(rig_path))
    if what == "relative":  # relative MODEL RIG MAX_DEGREES MIN_PAIRS
        e = relative_errors(model, rigs)
        inv = relative_errors(model, rigs, inverse=True)
        print(f"{len(e)} view pairs: max {max(e):.3f} mean {sum(e) / len(e):.3f} degrees; "
              f"against the inverse convention: mean {sum(inv) / len(inv):.1f} degrees")
        sys.exit(0 if len(e) >= int(sys.argv[5]) and max(e) <= float(sys.argv[4]) and sum(inv) / len(inv) >= 30 else 1)
    if what == "turn":  # turn MODEL RIG OUT DEGREES: one camera's rel_qvec turned about y
        a = math.radians(float(sys.argv[5]) / 2)
        cam = rigs[0]["cameras"][1]
        w, x, y, z = cam["rel_qvec"]
        qw, qy = math.cos(a), math.sin(a)  # (qw, 0, qy, 0) * q
        cam["rel_qvec"] = [qw * w - qy * y, qw * x + qy * z, qw * y + qy * w, qw * z - qy * x]
        json.dump(rigs, open(sys.argv[4], "w"))
PY

# 1. One panorama: the text model as COLMAP reads it.
check "one panorama" 0 "$gpuproc" "${st[@]}" data-samples/stitch/equirect.jpg --set views.width=256 --set views.height=256 \
  --set output.dir="$work/one"
check "model_analyzer reads the model" 0 colmap model_analyzer --path "$work/one"
expect_text "model_analyzer: 8 views registered" "$work/stdout" "Registered images: 8"
mkdir -p "$work/one_back"
check "model_converter writes it back" 0 colmap model_converter --input_path "$work/one" --output_path "$work/one_back" \
  --output_type TXT
python3 - "$work/one/images.txt" "$work/one_back/images.txt" <<'PY'; ok "the poses read back equal" $?
import sys
def poses(p):
    lines = [l.split() for l in open(p) if not l.startswith("#")][0::2]
    return sorted((w[9], w[8], [round(float(v), 9) for v in w[1:8]]) for w in lines if len(w) >= 10)
a, b = poses(sys.argv[1]), poses(sys.argv[2])
sys.exit(0 if len(a) == 8 and a == b else 1)
PY
[[ -f $work/one/rig_config.json ]]; ok "one panorama: a rig configuration too" $?

# 2. A 360 video with parallax: views of its 4 frames, reconstructed.
start=$(date +%s)
check "the scene's video" 0 "$make_samples" rig-scene "$work/scene"
check "views of every frame" 0 "$gpuproc" "${st[@]}" "$work/scene/rig_scene.mp4" --set views.width=512 \
  --set views.height=512 --set output.dir="$work/views" --report "$work/views.json"
json_check "the report names the rig configuration" "$work/views.json" "j['extra']['rig_config'] == 'rig_config.json'"
json_check "cameras.json lists 4 frames of 8 views" "$work/views/cameras.json" \
  "len(j['captures']) == 4 and all(len(c['images']) == 8 for c in j['captures']) and [c['frame'] for c in j['captures']] == [0, 1, 2, 3]"
[[ $(grep -vc '^#' "$work/views/images.txt") -eq 0 ]]; ok "images.txt claims no poses for the moving camera" $?
params=$(python3 -c "import json; v = json.load(open('$work/views/cameras.json'))['views'][0]; print(f\"{v['fx']},{v['fy']},{v['cx']},{v['cy']}\")")
check "feature_extractor" 0 colmap feature_extractor --database_path "$work/db" --image_path "$work/views" \
  --ImageReader.camera_model PINHOLE --ImageReader.camera_params "$params" --ImageReader.single_camera_per_folder 1 \
  --SiftExtraction.use_gpu 0 --SiftExtraction.num_threads "$threads" --SiftExtraction.max_num_features 1024 \
  --SiftExtraction.first_octave 0
python3 - "$work/db" "$work/views/cameras.json" <<'PY'; ok "COLMAP's camera ids are cameras.json's" $?
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
ids = {c["image_prefix"]: c["colmap_camera_id"] for c in json.load(open(sys.argv[2]))["cameras"]}
rows = db.execute("select name, camera_id from images").fetchall()
bad = [(n, c) for n, c in rows if ids.get(n[:n.rfind("/") + 1]) != c]
print(f"{len(rows)} images, {len(bad)} with another camera id: {bad[:3]}")
sys.exit(0 if len(rows) == 32 and not bad else 1)
PY
python3 "$work/rig_check.py" pairs "$work/views/cameras.json" - "$work/pairs.txt"
check "matches_importer ($(wc -l <"$work/pairs.txt") pairs)" 0 colmap matches_importer --database_path "$work/db" \
  --match_list_path "$work/pairs.txt" --match_type pairs --SiftMatching.use_gpu 0 --SiftMatching.num_threads "$threads"
mkdir -p "$work/sparse"
check "mapper" 0 colmap mapper --database_path "$work/db" --image_path "$work/views" --output_path "$work/sparse" \
  --Mapper.num_threads "$threads" --Mapper.ba_refine_focal_length 0 --Mapper.ba_refine_extra_params 0
check "the reconstruction as text" 0 colmap model_converter --input_path "$work/sparse/0" --output_path "$work/sparse" \
  --output_type TXT
python3 "$work/rig_check.py" relative "$work/sparse" "$work/views/rig_config.json" 1.0 28
ok "the reconstruction's relative rotations are the rig's (1 degree)" $?

# rig_bundle_adjuster with our rig: refined from ours, and held fixed; then one view turned 3 degrees, held fixed.
rig_ba() {  # rig_ba NAME RIG_CONFIG REFINE: the adjusted model, as text, in $work/NAME
  mkdir -p "$work/$1"
  check "rig_bundle_adjuster: $1" 0 colmap rig_bundle_adjuster --input_path "$work/sparse/0" --output_path "$work/$1" \
    --rig_config_path "$2" --estimate_rig_relative_poses 0 --RigBundleAdjustment.refine_relative_poses "$3" \
    --BundleAdjustment.refine_focal_length 0 --BundleAdjustment.refine_extra_params 0 &&
    expect_text "rig_bundle_adjuster: $1: 4 snapshots of our rig" "$work/stdout" "Snapshots: 4" &&
    check "rig_bundle_adjuster: $1 as text" 0 colmap model_converter --input_path "$work/$1" --output_path "$work/$1" \
      --output_type TXT
}
rig_ba refined "$work/views/rig_config.json" 1
python3 "$work/rig_check.py" relative "$work/refined" "$work/views/rig_config.json" 0.5 28
ok "refining our rig keeps its relative rotations (0.5 degree)" $?
rig_ba fixed "$work/views/rig_config.json" 0
python3 "$work/rig_check.py" reprojection "$work/fixed" "$work/sparse" 0.9 1.1
ok "our rig held fixed: the reprojection error of the free reconstruction (within 10%)" $?
python3 "$work/rig_check.py" turn - "$work/views/rig_config.json" "$work/turned.json" 3
rig_ba turned "$work/turned.json" 0
python3 "$work/rig_check.py" reprojection "$work/turned" "$work/sparse" 2 1e9
ok "one view turned 3 degrees in the rig: the reprojection error at least doubles" $?
echo "colmap_rig: the video part took $(($(date +%s) - start)) s"

echo "colmap_rig: $passes passed, $failures failed"
[[ $failures -eq 0 ]]
