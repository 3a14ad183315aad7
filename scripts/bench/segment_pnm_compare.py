#!/usr/bin/env python3
"""Check `gpuproc segment-pnm` against scipy and scikit-image on one volume's outputs.

Usage:
  segment_pnm_compare.py OUTPUT_FOLDER [--json result.json] [--edt-tolerance 1e-4] [--min-ari 0.99]

OUTPUT_FOLDER is one volume's folder of a run with output.intermediates on: mask.nrrd (uint8,
1 = pore after filling holes), distance.nrrd (float32 EDT of the mask in physical units),
distance_smoothed.nrrd (float32, the map whose negation is flooded), markers.nrrd and labels.nrrd
(uint32).

Checks:
  EDT        scipy.ndimage.distance_transform_edt(mask, sampling=(sz, sy, sx)) against
             distance.nrrd; passes when |ours - scipy| <= tol * max(1, |scipy|) at every voxel.
  watershed  skimage.segmentation.watershed(-distance_smoothed, markers, mask, connectivity=1)
             against labels.nrrd; passes when the adjusted Rand index over the pore voxels is
             >= --min-ari. Both flood from the same markers with 6-connectivity, but they break
             ties (plateaus, equal levels) differently, so a few voxels may differ.

Exit status: 0 both pass, 1 a check fails, 2 the folder's files are missing or unreadable,
77 numpy, scipy or scikit-image cannot be imported (the message says which).
"""

import argparse
import gzip
import json
import os
import re
import sys
import time

NRRD_TYPES = {  # NRRD type names -> numpy dtype names (little-endian added from the header)
    "uint8": "u1", "uchar": "u1", "unsigned char": "u1", "uint8_t": "u1",
    "int8": "i1", "signed char": "i1", "int8_t": "i1",
    "uint16": "u2", "ushort": "u2", "unsigned short": "u2", "uint16_t": "u2",
    "int16": "i2", "short": "i2", "int16_t": "i2",
    "uint32": "u4", "uint": "u4", "unsigned int": "u4", "uint32_t": "u4",
    "int32": "i4", "int": "i4", "int32_t": "i4",
    "float": "f4", "double": "f8",
}


class InputError(Exception):
    """A file of the output folder is missing or not a NRRD this script reads."""


def import_packages():
    """numpy, scipy.ndimage and skimage.segmentation, or the names of those that fail to import."""
    modules, missing = {}, []
    for name in ("numpy", "scipy.ndimage", "skimage.segmentation"):
        try:
            modules[name] = __import__(name, fromlist=["_"])
        except Exception as e:  # ImportError, or a broken install raising something else
            missing.append(f"{name} ({type(e).__name__}: {e})")
    return modules, missing


def read_nrrd(path, np):
    """(array shaped (nz, ny, nx), spacing (sx, sy, sz)) of an attached-data NRRD, raw or gzip."""
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}")
    end = blob.find(b"\n\n")
    if not blob.startswith(b"NRRD") or end < 0:
        raise InputError(f"{path}: not a NRRD file (no NRRD magic or no blank line ending the header)")
    fields = {}
    for line in blob[:end].decode("latin-1").splitlines()[1:]:
        if line.startswith("#") or ":=" in line:
            continue  # comments and key/value pairs
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip().lower()] = value.strip()
    data = blob[end + 2:]

    def need(key):
        if key not in fields:
            raise InputError(f"{path}: header has no '{key}:' field")
        return fields[key]

    if "data file" in fields or "datafile" in fields:
        raise InputError(f"{path}: detached data files are not supported")
    type_name = need("type").lower()
    if type_name not in NRRD_TYPES:
        raise InputError(f"{path}: unsupported type '{type_name}'")
    sizes = [int(s) for s in need("sizes").split()]
    if len(sizes) != 3 or int(fields.get("dimension", "3")) != 3:
        raise InputError(f"{path}: expected a 3-D volume, got sizes '{fields['sizes']}'")
    dtype = np.dtype(NRRD_TYPES[type_name])
    if dtype.itemsize > 1:
        endian = need("endian").lower()
        if endian not in ("little", "big"):
            raise InputError(f"{path}: unknown endian '{endian}'")
        dtype = dtype.newbyteorder("<" if endian == "little" else ">")
    encoding = need("encoding").lower()
    if encoding in ("gzip", "gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as e:
            raise InputError(f"{path}: corrupt gzip data: {e}")
    elif encoding != "raw":
        raise InputError(f"{path}: unsupported encoding '{encoding}'")
    nx, ny, nz = sizes
    expected = nx * ny * nz * dtype.itemsize
    if len(data) != expected:
        raise InputError(f"{path}: {len(data)} data bytes, expected {expected} for sizes {nx} {ny} {nz}")
    volume = np.frombuffer(data, dtype=dtype).reshape(nz, ny, nx).astype(dtype.newbyteorder("="))

    if "space directions" in fields:
        vectors = re.findall(r"\(([^)]*)\)", fields["space directions"])
        if len(vectors) != 3:
            raise InputError(f"{path}: cannot parse space directions '{fields['space directions']}'")
        spacing = tuple(float(np.linalg.norm([float(c) for c in v.split(",")])) for v in vectors)
    elif "spacings" in fields:
        spacing = tuple(float(s) for s in fields["spacings"].split())
    else:
        spacing = (1.0, 1.0, 1.0)
    return volume, spacing


def adjusted_rand_index(a, b, np):
    """ARI of two labelings of the same voxels (1-D integer arrays), from their contingency table."""
    n = a.size
    if n < 2:
        return 1.0
    a = np.unique(a, return_inverse=True)[1].astype(np.int64)
    b = np.unique(b, return_inverse=True)[1].astype(np.int64)
    pairs, n_ij = np.unique(a * (int(b.max()) + 1) + b, return_counts=True)
    a_i = np.bincount(a)
    b_j = np.bincount(b)

    def pairs_in(counts):  # sum of C(count, 2), exact as a Python int
        counts = counts.astype(np.int64)
        return int((counts * (counts - 1) // 2).sum())

    index, sum_a, sum_b = pairs_in(n_ij), pairs_in(a_i), pairs_in(b_j)
    expected = sum_a * sum_b / (n * (n - 1) // 2)
    maximum = (sum_a + sum_b) / 2
    if maximum == expected:  # both labelings one cluster, or both all singletons: identical partitions
        return 1.0
    return (index - expected) / (maximum - expected)


def check_edt(mask, distance, spacing, tolerance, ndimage, np):
    sx, sy, sz = spacing
    t0 = time.perf_counter()
    reference = ndimage.distance_transform_edt(mask, sampling=(sz, sy, sx))
    seconds = time.perf_counter() - t0
    diff = np.abs(distance.astype(np.float64) - reference)
    allowed = tolerance * np.maximum(1.0, np.abs(reference))
    over = diff > allowed
    positive = reference > 0
    relative = diff[positive] / reference[positive]
    worst = np.unravel_index(int(np.argmax(diff)), diff.shape)
    return {
        "rule": "pass when |ours - scipy| <= tolerance * max(1, |scipy|) at every voxel",
        "tolerance": tolerance,
        "reference": "scipy.ndimage.distance_transform_edt(mask, sampling=(sz, sy, sx))",
        "max_abs_diff": float(diff.max()),
        "max_rel_diff": float(relative.max()) if relative.size else 0.0,
        "max_rel_diff_note": "over voxels where scipy's distance > 0",
        "worst_voxel_zyx": [int(i) for i in worst],
        "worst_ours": float(distance[worst]),
        "worst_scipy": float(reference[worst]),
        "voxels_over_tolerance": int(over.sum()),
        "nonzero_on_solid": int(np.count_nonzero(distance[mask == 0])),
        "max_distance_scipy": float(reference.max()),
        "scipy_seconds": round(seconds, 3),
        "pass": not bool(over.any()),
    }


def check_watershed(mask, smoothed, markers, labels, min_ari, segmentation, np):
    pore = mask.astype(bool)
    t0 = time.perf_counter()
    # int32 markers: scikit-image's label arrays are signed; K is far below 2^31.
    reference = segmentation.watershed(-smoothed, markers=markers.astype(np.int32), mask=pore, connectivity=1)
    seconds = time.perf_counter() - t0
    ours = labels[pore].astype(np.int64)
    theirs = reference[pore].astype(np.int64)
    ari = adjusted_rand_index(ours, theirs, np)
    # Same markers, so a region keeps its marker's label on both sides: compare labels directly.
    differing = ours != theirs
    # A tie rule that favours one label shows as differing voxels all on one side.
    ours_smaller = int(np.count_nonzero(ours[differing] < theirs[differing]))
    differing = int(np.count_nonzero(differing))
    marker_ids = np.unique(markers[markers != 0])
    return {
        "rule": "pass when the adjusted Rand index over the pore voxels >= min_ari",
        "min_ari": min_ari,
        "reference": "skimage.segmentation.watershed(-distance_smoothed, markers=markers, "
                     "mask=mask.astype(bool), connectivity=1)",
        "ari": ari,
        "pore_voxels": int(pore.sum()),
        "differing_voxels": differing,
        "differing_fraction": differing / max(1, ours.size),
        "differing_ours_smaller_fraction": ours_smaller / max(1, differing),
        "differing_ours_smaller_note": "of the differing voxels, those where our label is the smaller one "
                                       "(about 0.5 for unbiased ties, 0 or 1 for a tie rule favouring one side)",
        "markers": int(marker_ids.size),
        "markers_off_pore": int(np.count_nonzero(markers[~pore])),
        "regions_ours": int(np.unique(ours[ours != 0]).size),
        "regions_skimage": int(np.unique(theirs[theirs != 0]).size),
        "unlabelled_pore_ours": int(np.count_nonzero(ours == 0)),
        "unlabelled_pore_skimage": int(np.count_nonzero(theirs == 0)),
        "labels_off_pore_ours": int(np.count_nonzero(labels[~pore])),
        "skimage_seconds": round(seconds, 3),
        "pass": bool(ari >= min_ari),
    }


def compare(folder, tolerance, min_ari, modules):
    np = modules["numpy"]
    read = {}
    for name in ("mask", "distance", "distance_smoothed", "markers", "labels"):
        read[name] = read_nrrd(os.path.join(folder, name + ".nrrd"), np)
    shape, spacing = read["mask"][0].shape, read["mask"][1]
    for name, (volume, s) in read.items():
        if volume.shape != shape:
            raise InputError(f"{name}.nrrd: shape {volume.shape} differs from mask.nrrd's {shape}")
        if not np.allclose(s, spacing, rtol=1e-6, atol=0):
            raise InputError(f"{name}.nrrd: spacing {s} differs from mask.nrrd's {spacing}")
    mask = read["mask"][0]
    if not np.isin(mask, (0, 1)).all():
        raise InputError("mask.nrrd: values other than 0 and 1")
    result = {
        "folder": os.path.abspath(folder),
        "shape_zyx": list(shape),
        "spacing_xyz": list(spacing),
        "porosity": float(mask.mean()),
        "versions": {name.split(".")[0]: getattr(sys.modules[name.split(".")[0]], "__version__", "?")
                     for name in modules},
        "edt": check_edt(mask, read["distance"][0], spacing, tolerance, modules["scipy.ndimage"], np),
        "watershed": check_watershed(mask, read["distance_smoothed"][0], read["markers"][0], read["labels"][0],
                                     min_ari, modules["skimage.segmentation"], np),
    }
    result["status"] = "pass" if result["edt"]["pass"] and result["watershed"]["pass"] else "fail"
    return result


def summary(r):
    e, w = r["edt"], r["watershed"]
    nz, ny, nx = r["shape_zyx"]
    return "\n".join([
        f"volume {nx}x{ny}x{nz}, spacing {r['spacing_xyz']}, porosity {r['porosity']:.4f}",
        f"EDT vs scipy: max abs diff {e['max_abs_diff']:.3g}, max rel diff {e['max_rel_diff']:.3g}, "
        f"{e['voxels_over_tolerance']} voxels over tolerance {e['tolerance']:g} -> {'PASS' if e['pass'] else 'FAIL'}",
        f"watershed vs skimage: ARI {w['ari']:.6f} (min {w['min_ari']:g}), "
        f"{w['differing_voxels']} of {w['pore_voxels']} pore voxels differ ({100 * w['differing_fraction']:.3f}%; "
        f"ours the smaller label in {100 * w['differing_ours_smaller_fraction']:.1f}% of them), "
        f"regions {w['regions_ours']} ours / {w['regions_skimage']} skimage / {w['markers']} markers "
        f"-> {'PASS' if w['pass'] else 'FAIL'}",
        f"{r['status'].upper()}",
    ])


def write_json(path, result):
    if path:
        with open(path, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", help="one volume's output folder (with output.intermediates on)")
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--edt-tolerance", type=float, default=1e-4)
    parser.add_argument("--min-ari", type=float, default=0.99)
    args = parser.parse_args()

    modules, missing = import_packages()
    if missing:
        print("SKIPPED: cannot import " + "; ".join(missing) + f" with {sys.executable}", file=sys.stderr)
        write_json(args.json, {"status": "skipped", "python": sys.executable, "missing": missing})
        return 77
    try:
        result = compare(args.folder, args.edt_tolerance, args.min_ari, modules)
    except InputError as e:
        print(f"ERROR: {e}", file=sys.stderr)
        write_json(args.json, {"status": "error", "error": str(e)})
        return 2
    result["python"] = sys.executable
    print(summary(result))
    write_json(args.json, result)
    return 0 if result["status"] == "pass" else 1


if __name__ == "__main__":
    sys.exit(main())
