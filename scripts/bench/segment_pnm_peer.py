#!/usr/bin/env python3
"""The Python peer of `gpuproc segment-pnm`, for scripts/bench/segment_pnm.sh.

Usage:
  segment_pnm_peer.py INPUT.raw DIMS.json --out OUT.json [--stages pipeline,edt-cupy]
      [--threshold -300 | --otsu] [--subvolume N] [--max-seconds S] [--timeout-per-stage S]
      [--sigma 0.4] [--r-max 4] [--conn 26] [--watershed-mask pore|none] [--repeats 3]

INPUT.raw is a raw volume, x fastest, then y, then z, little endian; DIMS.json holds at least
{"dims": [nx, ny, nz], "spacing": [sx, sy, sz], "dtype": "int16"} -- or, as
`gpuproc-make-samples pnm-bench OUTDIR N` writes beside OUTDIR/foam-N.raw, "spacing_mm" and
"raw": {"dtype", "header_bytes"}; "slope" and "intercept" (HU = slope * stored + intercept), when
given, are applied to the threshold, which is in HU.

Stages (--stages, comma separated):
  pipeline  what a PoreSpy user runs (snow2 + regions_to_network), with scipy and scikit-image,
            each step timed on its own, on the CPU: threshold (value <= T is pore, or Otsu),
            fill holes (PoreSpy's fill_blind_pores: pore components not touching the border become
            solid), exact EDT (scipy.ndimage.distance_transform_edt with sampling=spacing; the edt
            package too when installed, reported beside it), gaussian_filter(sigma) of the distance
            map, find_peaks (maximum_filter with PoreSpy's ball of radius r_max), trim_saddle_points,
            trim_nearby_peaks, labelled markers, skimage.segmentation.watershed(-dt, markers, mask),
            and regions_to_network (find_objects, a per-region EDT and dilation for neighbours).
            With --subvolume N it runs on the central N^3 crop and scales the times by the voxel
            count; the JSON says so ("extrapolated").
  edt-cupy  cupyx.scipy.ndimage.distance_transform_edt on the same mask (threshold and fill holes,
            made on the GPU by the same rule), on the whole volume: the host->device copy timed
            alone, then the EDT after a warm-up run, with device synchronisation, best of --repeats.

Packages that are missing or fail (scipy, scikit-image, cupy, a GPU) are reported in the JSON as
"unavailable" with the error; the script then exits 0 so the bench goes on. The JSON is rewritten
after every stage, so a run stopped from outside (`timeout`) still leaves what it measured, with
"status": "running" and the stage it was in. --max-seconds and --timeout-per-stage stop the run
from inside (status "timed_out", exit 124); the measured total is then a lower bound.

Faithfulness notes (the point is to time what PoreSpy users run):
  * Markers follow porespy.filters.snow_partitioning (PoreSpy 2.x): find_peaks on the blurred map,
    trim_saddle_points and trim_nearby_peaks on the unblurred one, in voxel units.
  * PoreSpy floods without a mask and zeroes the solid afterwards; the default here floods inside
    the pore mask (the bench's brief, and what gpuproc does); --watershed-mask none gives PoreSpy's.
  * regions_to_network recomputes the EDT of the whole image; this peer reuses the one it already
    has (in voxel units), which makes the peer faster, so ratios against it are conservative.
    Nor does it add snow2's boundary regions (boundary_width=3), which cost PoreSpy more.
  * snow2's default (parallelization={}) runs snow_partitioning on 2x2x2 overlapping dask chunks on
    all cores; this peer runs it in one piece, as snow_partitioning does. "snow2_parallel_bound"
    gives an optimistic figure for the chunked way: the marker and watershed time divided by the 8
    chunks, with no cost for the overlap or the stitching.
"""

import argparse
import faulthandler
import json
import os
import platform
import sys
import threading
import time
import traceback

SNOW2_DEFAULT_CHUNKS = 8  # snow_partitioning_parallel's divs=2 in 3D
STAGE_TO_GPUPROC = {  # peer stage -> gpuproc's report stage (extra.stage_seconds)
    "threshold": "binarize",
    "fill_holes": "fill_holes",
    "edt": "distance",
    "dt_to_voxel_units": "distance",
    "gaussian": "markers",
    "find_peaks": "markers",
    "trim_saddle_points": "markers",
    "trim_nearby_peaks": "markers",
    "label_markers": "markers",
    "watershed": "watershed",
    "network": "network",
}
NUMPY_DTYPES = {"int16": "<i2", "uint16": "<u2", "uint8": "u1", "int8": "i1", "int32": "<i4",
                "uint32": "<u4", "float32": "<f4", "float64": "<f8"}


def error_text(e):
    return f"{type(e).__name__}: {e}"


class Report:
    """The result JSON, rewritten atomically after every change (a killed run leaves the last)."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.data = {"tool": "segment_pnm_peer", "status": "running", "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                     "unavailable": {}}

    def write(self):
        with self.lock:
            tmp = f"{self.path}.tmp{os.getpid()}"
            with open(tmp, "w") as f:
                json.dump(self.data, f, indent=2, default=_json_default)
                f.write("\n")
            os.replace(tmp, self.path)


def _json_default(o):
    if hasattr(o, "item"):  # numpy scalars
        return o.item()
    if hasattr(o, "tolist"):
        return o.tolist()
    return str(o)


class StageClock:
    """Times stages into section[key]; stops the run when a stage or the whole run is too long.

    A Python watchdog thread handles the limits when the running C code releases the GIL; where it
    does not, faulthandler's own thread (which needs no GIL) ends the process a little later, and
    the JSON on disk still names the stage that was running."""

    GRACE_S = 5.0

    def __init__(self, report, section, max_seconds, stage_timeout, on_timeout=None):
        self.report, self.section, self.on_timeout = report, section, on_timeout
        self.t0 = time.perf_counter()
        self.max_seconds, self.stage_timeout = max_seconds, stage_timeout
        self.stage, self.stage_start, self.deadline = None, None, None
        self.stop = threading.Event()
        threading.Thread(target=self._watch, daemon=True).start()

    def _limit_for_stage(self, now):
        limits = []
        if self.max_seconds:
            limits.append(self.t0 + self.max_seconds)
        if self.stage_timeout:
            limits.append(now + self.stage_timeout)
        return min(limits) if limits else None

    def begin(self, name):
        self.section["current_stage"] = name
        self.report.write()  # before the clock starts: the stage's time is the stage's work
        now = time.perf_counter()
        self.stage, self.stage_start, self.deadline = name, now, self._limit_for_stage(now)
        if self.deadline is not None:
            faulthandler.dump_traceback_later(max(self.deadline - now, 0) + self.GRACE_S, exit=True)

    def end(self):
        seconds = time.perf_counter() - self.stage_start
        faulthandler.cancel_dump_traceback_later()
        self.section["stages_s"][self.stage] = round(seconds, 4)
        self.section.pop("current_stage", None)
        self.stage = None
        self.report.write()
        return seconds

    def run(self, name, fn, *args, **kwargs):
        self.begin(name)
        result = fn(*args, **kwargs)
        self.end()
        return result

    def _watch(self):
        while not self.stop.wait(0.2):
            stage, start, deadline = self.stage, self.stage_start, self.deadline
            if stage is None or deadline is None or time.perf_counter() < deadline:
                continue
            elapsed = time.perf_counter() - start
            self.section["status"] = "timed_out"
            self.section["timed_out_stage"] = stage
            self.section["timed_out_after_s"] = round(elapsed, 3)
            self.section.pop("current_stage", None)
            self.report.data["status"] = "timed_out"
            try:
                if self.on_timeout:
                    self.on_timeout()
                self.report.write()
            except Exception:  # noqa: BLE001 (the main thread may be changing the dict: the last write stands)
                traceback.print_exc()
            sys.stderr.write(f"segment_pnm_peer: stage {stage} stopped after {elapsed:.1f} s\n")
            sys.stderr.flush()
            os._exit(124)


# ---- loading -------------------------------------------------------------------------------------

class RawMeta:
    """What the dims JSON says about the raw file: the brief's flat keys, or make-samples' own."""

    def __init__(self, path):
        with open(path) as f:
            meta = json.load(f)
        raw = meta.get("raw", {}) if isinstance(meta.get("raw"), dict) else {}
        self.dims = [int(v) for v in meta["dims"]]
        self.spacing = [float(v) for v in meta.get("spacing", meta.get("spacing_mm", [1.0, 1.0, 1.0]))]
        self.dtype = meta.get("dtype", raw.get("dtype", "int16"))
        self.header_bytes = int(meta.get("header_bytes", raw.get("header_bytes", 0)))
        self.slope = float(meta.get("slope", 1.0))
        self.intercept = float(meta.get("intercept", 0.0))
        if len(self.dims) != 3 or len(self.spacing) != 3 or self.dtype not in NUMPY_DTYPES or self.slope <= 0:
            raise ValueError(f"{path}: need dims [nx,ny,nz], spacing [sx,sy,sz], a dtype of {sorted(NUMPY_DTYPES)}"
                             " and a positive slope")

    def stored_value(self, hu):
        """The stored value that is `hu` HU."""
        return (hu - self.intercept) / self.slope


def load_volume(np, raw_path, meta, subvolume):
    """The volume as a C-ordered (z, y, x) array; the central subvolume^3 crop when asked."""
    nx, ny, nz = meta.dims
    mm = np.memmap(raw_path, dtype=np.dtype(NUMPY_DTYPES[meta.dtype]), mode="r", offset=meta.header_bytes,
                   shape=(nz, ny, nx))
    if subvolume:
        starts = [max((n - subvolume) // 2, 0) for n in (nz, ny, nx)]
        box = tuple(slice(s, s + min(subvolume, n)) for s, n in zip(starts, (nz, ny, nx)))
        vol = np.ascontiguousarray(mm[box])
    else:
        vol = np.array(mm)
    del mm
    return vol.astype(vol.dtype.newbyteorder("="), copy=False)


# ---- the PoreSpy pipeline (snow2 + regions_to_network), with scipy and scikit-image ---------------

class Pipeline:
    def __init__(self, np, spim, sptl, skseg, skfilters, ball):
        self.np, self.spim, self.sptl = np, spim, sptl
        self.skseg, self.skfilters, self.ball = skseg, skfilters, ball

    def threshold(self, vol, stored_value, otsu):
        """Pore where the stored value <= stored_value (or Otsu's threshold); returns it too."""
        if otsu:
            stored_value = float(self.skfilters.threshold_otsu(vol))
        return vol <= stored_value, stored_value

    def fill_holes(self, pore, conn):
        """porespy.filters.fill_blind_pores: label the pore phase, keep what touches the border."""
        np, spim = self.np, self.spim
        strel = np.ones((3, 3, 3), bool) if conn == 26 else spim.generate_binary_structure(3, 1)
        labels, _ = spim.label(pore, structure=strel)
        holes = self.skseg.clear_border(labels) > 0
        pore = pore.copy()
        pore[holes] = False
        return pore

    def edt(self, pore, spacing_zyx):
        return self.spim.distance_transform_edt(pore, sampling=spacing_zyx)

    def ps_round(self, r):
        """porespy.tools.ps_round(r, 3, smooth=True)."""
        np = self.np
        rad = int(np.ceil(r))
        other = np.ones((2 * rad + 1,) * 3, dtype=bool)
        other[(rad,) * 3] = False
        return self.spim.distance_transform_edt(other) < r

    @staticmethod
    def extend_slice(slices, shape, pad=1):
        """porespy.tools.extend_slice."""
        return tuple(slice(max(s.start - pad, 0), min(s.stop + pad, shape[i])) for i, s in enumerate(slices))

    def gaussian(self, dt, pore, sigma):
        return self.spim.gaussian_filter(dt, sigma=sigma) * pore

    def find_peaks(self, dt, r_max):
        """porespy.filters.find_peaks: voxels equal to the maximum over a ball; solid counts as 2."""
        im = dt > 0
        mx = self.spim.maximum_filter(dt + 2.0 * (~im), footprint=self.ps_round(r_max))
        return (dt == mx) * im

    def trim_saddle_points(self, peaks, dt, maxiter=20):
        """porespy.filters.trim_saddle_points (PoreSpy >= 2)."""
        np, spim = self.np, self.spim
        new_peaks = np.zeros_like(peaks, dtype=bool)
        cube = np.ones((3, 3, 3), dtype=bool)
        labels, _ = spim.label(peaks > 0)
        slices = spim.find_objects(labels)
        capped = 0
        for i, s in enumerate(slices):
            sx = self.extend_slice(s, peaks.shape, pad=maxiter)
            peaks_i = labels[sx] == i + 1
            dt_i = dt[sx]
            im_i = dt_i > 0
            iters = 0
            while iters < maxiter:
                iters += 1
                peaks_dil = spim.binary_dilation(input=peaks_i, structure=cube)
                peaks_max = peaks_dil * np.amax(dt_i * peaks_dil)
                peaks_extended = (peaks_max == dt_i) * im_i
                if np.all(peaks_extended == peaks_i):
                    new_peaks[sx] += peaks_i
                    break  # a true peak
                elif np.sum(peaks_extended * peaks_i) == 0:
                    break  # a saddle point
                peaks_i = peaks_extended
            capped += iters >= maxiter
        return new_peaks * peaks, capped

    def trim_nearby_peaks(self, peaks, dt, f=1.0):
        """porespy.filters.trim_nearby_peaks: of two peaks nearer each other than to the solid,
        drop the one nearer the solid."""
        np, spim = self.np, self.spim
        cube = np.ones((3, 3, 3), dtype=bool)
        labels, n = spim.label(peaks > 0, structure=cube)
        if n < 2:
            return peaks
        crds = spim.center_of_mass(peaks > 0, labels=labels, index=np.arange(1, n + 1))
        crds = np.vstack(crds).astype(int)
        dist_to_solid = dt[tuple(crds.T)]
        dist_to_solid = dist_to_solid + np.arange(len(dist_to_solid)) * 1e-6  # PoreSpy's tie-break
        tree = self.sptl.cKDTree(data=crds)
        dist, index = tree.query(x=crds, k=2)
        nearest, dist_to_neighbor = index[:, 1], dist[:, 1]
        hits = np.where(dist_to_neighbor <= f * dist_to_solid)[0]
        drop = np.where(dist_to_solid[hits] < dist_to_solid[nearest[hits]], hits, nearest[hits])
        drop = np.unique(drop)
        return ~np.isin(labels, drop + 1) * peaks

    def label_markers(self, peaks):
        return self.spim.label(peaks > 0, structure=self.np.ones((3, 3, 3), bool))

    def watershed(self, dt, markers, pore, masked):
        if masked:
            return self.skseg.watershed(-dt, markers=markers, mask=pore)
        return self.skseg.watershed(-dt, markers=markers) * pore  # snow_partitioning's way

    def regions_to_network(self, regions, dt, voxel_size):
        """porespy.networks.regions_to_network, accuracy='standard'. dt: of the pore phase, voxel units."""
        np, spim = self.np, self.spim
        im = self.skseg.relabel_sequential(regions)[0]  # make_contiguous
        phases = (im > 0).astype(int)
        strel = self.ball(1)
        slices = spim.find_objects(im)
        n_p = len(slices)
        p_coords_cm = np.zeros((n_p, 3))
        p_coords_dt = np.zeros((n_p, 3))
        p_coords_dt_global = np.zeros((n_p, 3))
        p_volume = np.zeros(n_p)
        p_dia_local = np.zeros(n_p)
        p_dia_global = np.zeros(n_p)
        p_label = np.zeros(n_p, dtype=int)
        p_area_surf = np.zeros(n_p, dtype=int)
        p_phase = np.zeros(n_p, dtype=int)
        t_conns, t_dia_inscribed, t_area, t_perimeter, t_coords = [], [], [], [], []
        for pore in range(n_p):
            i = pore + 1
            if slices[pore] is None:
                continue
            s = self.extend_slice(slices[pore], im.shape)
            sub_im = im[s]
            sub_dt = dt[s]
            pore_im = sub_im == i
            padded_mask = np.pad(pore_im, pad_width=1, mode="constant")
            pore_dt = spim.distance_transform_edt(padded_mask)
            s_offset = np.array([a.start for a in s])
            p_label[pore] = i
            p_coords_cm[pore, :] = spim.center_of_mass(pore_im) + s_offset
            temp = np.vstack(np.where(pore_dt == pore_dt.max()))[:, 0]
            p_coords_dt[pore, :] = temp - 1 + s_offset  # (PoreSpy forgets the 1-voxel pad here)
            p_phase[pore] = (phases[s] * pore_im).max()
            temp = np.vstack(np.where(sub_dt == sub_dt.max()))[:, 0]
            p_coords_dt_global[pore, :] = temp + s_offset
            p_volume[pore] = np.sum(pore_im)
            p_dia_local[pore] = 2 * np.amax(pore_dt)
            p_dia_global[pore] = 2 * np.amax(sub_dt)
            p_area_surf[pore] = np.sum(pore_dt == 1)
            im_w_throats = spim.binary_dilation(input=pore_im, structure=strel)
            im_w_throats = im_w_throats * sub_im
            neighbours = np.unique(im_w_throats)[1:] - 1
            for j in neighbours:
                if j > pore:
                    t_conns.append([pore, j])
                    vx = np.where(im_w_throats == (j + 1))
                    t_dia_inscribed.append(2 * np.amax(sub_dt[vx]))
                    t_perimeter.append(np.sum(sub_dt[vx] < 2))
                    t_area.append(np.size(vx[0]))
                    p_area_surf[pore] -= np.size(vx[0])
                    t_inds = tuple(a + b for a, b in zip(vx, s_offset))
                    temp = np.where(dt[t_inds] == np.amax(dt[t_inds]))[0][0]
                    t_coords.append(tuple(t_inds[k][temp] for k in range(3)))
        # The network dictionary, OpenPNM names, as regions_to_network builds it.
        v = voxel_size
        conns = np.array(t_conns, dtype=int).reshape(-1, 2)
        t_coords = np.array(t_coords, dtype=float).reshape(-1, 3)
        net = {"throat.conns": conns, "pore.coords": p_coords_cm * v, "pore.region_label": p_label,
               "pore.phase": p_phase, "pore.region_volume": p_volume * v ** 3,
               "pore.equivalent_diameter": 2 * (p_volume * v ** 3 / np.pi * 0.75) ** (1 / 3),
               "pore.local_peak": p_coords_dt * v, "pore.global_peak": p_coords_dt_global * v,
               "pore.geometric_centroid": p_coords_cm * v, "throat.global_peak": t_coords * v,
               "pore.inscribed_diameter": p_dia_local * v, "pore.extended_diameter": p_dia_global * v,
               "throat.inscribed_diameter": np.array(t_dia_inscribed) * v}
        pt1 = np.sqrt(np.sum(((p_coords_cm[conns[:, 0]] - t_coords) * v) ** 2, axis=1))
        pt2 = np.sqrt(np.sum(((p_coords_cm[conns[:, 1]] - t_coords) * v) ** 2, axis=1))
        net["throat.total_length"] = pt1 + pt2
        dist = (p_coords_cm[conns[:, 0]] - p_coords_cm[conns[:, 1]]) * v
        net["throat.direct_length"] = np.sqrt(np.sum(dist ** 2, axis=1))
        net["throat.perimeter"] = np.array(t_perimeter) * v
        net["pore.volume"] = p_volume * v ** 3
        net["pore.surface_area"] = p_area_surf * v ** 2
        area = np.array(t_area) * v ** 2
        net["throat.cross_sectional_area"] = area
        net["throat.equivalent_diameter"] = (4 * area / np.pi) ** 0.5
        return net


def run_pipeline(args, np, report, section, vol, meta, scale):
    try:
        import scipy
        import scipy.ndimage as spim
        import scipy.spatial as sptl
    except Exception as e:  # noqa: BLE001 (any import failure means: unavailable)
        report.data["unavailable"]["scipy"] = error_text(e)
        section["status"] = "unavailable"
        section["error"] = f"scipy: {error_text(e)}"
        return
    try:
        import skimage
        import skimage.filters as skfilters
        import skimage.segmentation as skseg
        from skimage.morphology import ball
    except Exception as e:  # noqa: BLE001
        report.data["unavailable"]["scikit-image"] = error_text(e)
        section["status"] = "unavailable"
        section["error"] = f"scikit-image: {error_text(e)}"
        return
    report.data["versions"].update(scipy=scipy.__version__, skimage=skimage.__version__)
    section["stages_s"] = {}
    clock = StageClock(report, section, args.max_seconds, args.timeout_per_stage,
                       on_timeout=lambda: summarise_pipeline(section, scale))
    try:
        pore = run_stages(args, np, spim, section, clock, Pipeline(np, spim, sptl, skseg, skfilters, ball),
                          vol, meta)
    finally:
        clock.stop.set()
        faulthandler.cancel_dump_traceback_later()
    if args.max_seconds and time.perf_counter() - clock.t0 > args.max_seconds:
        return
    # The edt package (what PoreSpy itself calls), beside scipy's, outside the total.
    try:
        import edt as edt_package
    except Exception as e:  # noqa: BLE001
        report.data["unavailable"]["edt"] = error_text(e)
    else:
        report.data["versions"]["edt"] = getattr(edt_package, "__version__", "?")
        timings = {}
        for name, parallel in (("parallel_1", 1), ("all_cores", -1)):
            t = time.perf_counter()
            edt_package.edt(pore, anisotropy=tuple(meta.spacing[::-1]), parallel=parallel)
            timings[name] = round(time.perf_counter() - t, 4)
        section["edt_package_s"] = timings


def run_stages(args, np, spim, section, clock, p, vol, meta):
    """The pipeline, stage by stage; returns the pore mask (after fill holes)."""
    spacing_zyx = meta.spacing[::-1]  # numpy axes are (z, y, x)
    voxel_units = min(spacing_zyx)  # PoreSpy's markers work in voxels; isotropic: exact

    pore, stored = clock.run("threshold", p.threshold, vol, meta.stored_value(args.threshold), args.otsu)
    section["threshold_used_hu"] = round(meta.slope * stored + meta.intercept, 3)
    section["porosity"] = round(float(pore.mean()), 6)
    pore = clock.run("fill_holes", p.fill_holes, pore, args.conn)
    section["porosity_connected"] = round(float(pore.mean()), 6)
    dt_phys = clock.run("edt", p.edt, pore, spacing_zyx)
    dt = clock.run("dt_to_voxel_units", lambda: dt_phys / voxel_units)
    del dt_phys
    dt_blurred = clock.run("gaussian", p.gaussian, dt, pore, args.sigma)
    peaks = clock.run("find_peaks", p.find_peaks, dt_blurred, args.r_max)
    del dt_blurred
    section["peaks_initial"] = int(spim.label(peaks)[1])
    peaks, capped = clock.run("trim_saddle_points", p.trim_saddle_points, peaks, dt)
    section["saddle_trim_iteration_cap_hits"] = int(capped)
    peaks = clock.run("trim_nearby_peaks", p.trim_nearby_peaks, peaks, dt)
    markers, n_markers = clock.run("label_markers", p.label_markers, peaks)
    section["markers"] = int(n_markers)
    del peaks
    regions = clock.run("watershed", p.watershed, dt, markers, pore, args.watershed_mask == "pore")
    del markers
    net = clock.run("network", p.regions_to_network, regions, dt, min(spacing_zyx))
    section["regions"] = int(len(net["pore.volume"]))
    section["throats"] = int(len(net["throat.conns"]))
    section["status"] = "complete"
    return pore


def summarise_pipeline(section, scale):
    stages = section.get("stages_s", {})
    if not stages:
        return
    total = sum(stages.values())
    lower_bound = section.get("status") != "complete"
    if section.get("status") == "timed_out":
        total += section.get("timed_out_after_s", 0.0)
    section["total_s"] = round(total, 4)
    section["total_is_lower_bound"] = lower_bound
    grouped = {}
    for name, seconds in stages.items():
        key = STAGE_TO_GPUPROC[name]
        grouped[key] = round(grouped.get(key, 0.0) + seconds, 4)
    section["gpuproc_stages_s"] = grouped
    snow = grouped.get("markers", 0.0) + grouped.get("watershed", 0.0)
    bound = total - snow * (1 - 1 / SNOW2_DEFAULT_CHUNKS)
    section["snow2_parallel_bound"] = {
        "total_s": round(bound, 4),
        "note": f"markers and watershed divided by snow2's {SNOW2_DEFAULT_CHUNKS} default chunks; overlap and stitching free"}
    if scale != 1:
        section["snow2_parallel_bound"]["total_extrapolated_s"] = round(bound * scale, 3)
        section["extrapolated"] = {
            "method": "measured on the central crop, times scaled by the voxel count (linear)",
            "scale": round(scale, 4),
            "total_s": round(total * scale, 3),
            "stages_s": {k: round(v * scale, 3) for k, v in stages.items()},
            "gpuproc_stages_s": {k: round(v * scale, 3) for k, v in grouped.items()},
        }


# ---- CuPy's EDT -----------------------------------------------------------------------------------

def run_cupy_edt(args, np, report, section, vol, meta, stored_threshold):
    try:
        import cupy as cp
        import cupyx.scipy.ndimage as cpnd
        cp.cuda.runtime.getDeviceCount()
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    except Exception as e:  # noqa: BLE001
        report.data["unavailable"]["cupy"] = error_text(e)
        section["status"] = "unavailable"
        section["error"] = f"cupy: {error_text(e)}"
        return
    report.data["versions"]["cupy"] = cp.__version__
    name = props.get("name", b"")
    section["device"] = name.decode() if isinstance(name, bytes) else str(name)
    stream = cp.cuda.get_current_stream()

    def timed(fn):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        t = time.perf_counter()
        start.record(stream)
        out = fn()
        end.record(stream)
        end.synchronize()
        return out, time.perf_counter() - t, cp.cuda.get_elapsed_time(start, end) / 1000.0

    # host -> device copy of the volume, alone (best of two: the first touches fresh pages)
    copies = []
    for _ in range(2):
        d_vol, wall, _gpu = timed(lambda: cp.asarray(vol))
        copies.append(wall)
    section["h2d_s"] = round(min(copies), 4)
    section["h2d_bytes"] = int(vol.nbytes)

    # The same mask as the peer's pipeline: threshold, then pore components off the border removed.
    def make_mask():
        pore = d_vol <= stored_threshold
        strel = cp.ones((3, 3, 3), bool) if args.conn == 26 else cp.asarray(
            [[[0, 0, 0], [0, 1, 0], [0, 0, 0]], [[0, 1, 0], [1, 1, 1], [0, 1, 0]], [[0, 0, 0], [0, 1, 0], [0, 0, 0]]], bool)
        labels, n = cpnd.label(pore, structure=strel)
        faces = cp.concatenate([labels[0].ravel(), labels[-1].ravel(), labels[:, 0].ravel(), labels[:, -1].ravel(),
                                labels[:, :, 0].ravel(), labels[:, :, -1].ravel()])
        touches_border = cp.zeros(int(n) + 1, dtype=bool)  # a table: cp.isin compares all pairs
        touches_border[faces] = True
        touches_border[0] = False
        return touches_border[labels]

    mask, wall, _gpu = timed(make_mask)
    section["mask_s"] = round(wall, 4)
    section["porosity_connected"] = round(float(mask.mean()), 6)
    del d_vol
    cp.get_default_memory_pool().free_all_blocks()

    import inspect
    params = inspect.signature(cpnd.distance_transform_edt).parameters
    variants = {"float64": {}}  # CuPy's default output
    if "float64_distances" in params:
        variants["float32"] = {"float64_distances": False}
    section["edt_s"] = {}
    section["edt_runs_s"] = {}
    for label, extra in variants.items():
        try:
            runs = []
            for k in range(args.repeats + 1):  # the first is the warm-up (kernel compilation, pools)
                dist, wall, gpu = timed(lambda: cpnd.distance_transform_edt(mask, sampling=tuple(meta.spacing[::-1]), **extra))
                del dist
                if k:
                    runs.append({"wall_s": round(wall, 4), "gpu_s": round(gpu, 4)})
            section["edt_runs_s"][label] = runs
            section["edt_s"][label] = min(r["wall_s"] for r in runs)
        except Exception as e:  # noqa: BLE001 (out of memory on a small GPU, say)
            section["edt_s"][label] = None
            section.setdefault("errors", {})[label] = error_text(e)
        cp.get_default_memory_pool().free_all_blocks()
    best = [v for v in section["edt_s"].values() if v is not None]
    section["edt_best_s"] = min(best) if best else None
    section["status"] = "complete" if best else "failed"


# ---- main -----------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("input", help="raw volume, x fastest")
    ap.add_argument("dims_json", help='JSON with "dims", "spacing", "dtype"')
    ap.add_argument("--out", required=True, help="result JSON")
    ap.add_argument("--stages", default="pipeline", help="comma list of: pipeline, edt-cupy")
    ap.add_argument("--threshold", type=float, default=-300.0, help="value <= this is pore (default -300 HU)")
    ap.add_argument("--otsu", action="store_true", help="threshold by skimage.filters.threshold_otsu instead")
    ap.add_argument("--conn", type=int, choices=(6, 26), default=26,
                    help="connectivity of pore components in fill holes (PoreSpy's default: 26)")
    ap.add_argument("--sigma", type=float, default=0.4, help="gaussian_filter sigma of the distance map (voxels)")
    ap.add_argument("--r-max", type=lambda v: int(float(v)), default=4, help="radius of find_peaks' ball (voxels)")
    ap.add_argument("--watershed-mask", choices=("pore", "none"), default="pore",
                    help="flood inside the pore mask (default), or everywhere then zero the solid (PoreSpy)")
    ap.add_argument("--subvolume", type=int, default=0,
                    help="run the pipeline on the central N^3 crop; times extrapolated by voxel count")
    ap.add_argument("--max-seconds", type=float, default=0, help="stop the pipeline after this long (0: no limit)")
    ap.add_argument("--timeout-per-stage", type=float, default=0, help="stop when one stage takes this long")
    ap.add_argument("--repeats", type=int, default=3, help="timed CuPy EDT runs after the warm-up")
    args = ap.parse_args()
    stages = [s for s in args.stages.split(",") if s]
    unknown = set(stages) - {"pipeline", "edt-cupy"}
    if unknown:
        ap.error(f"unknown stage(s): {', '.join(sorted(unknown))}")

    report = Report(args.out)
    report.data["versions"] = {"python": platform.python_version()}
    report.data["machine"] = {"host": platform.node(), "nproc": os.cpu_count()}
    report.data["settings"] = {k: v for k, v in vars(args).items() if k not in ("input", "dims_json", "out")}
    report.data["input"] = os.path.abspath(args.input)
    try:
        import numpy as np
    except Exception as e:  # noqa: BLE001
        report.data["unavailable"]["numpy"] = error_text(e)
        report.data["status"] = "unavailable"
        report.write()
        return 0
    report.data["versions"]["numpy"] = np.__version__
    meta = RawMeta(args.dims_json)
    dims = meta.dims
    full_voxels = dims[0] * dims[1] * dims[2]
    report.data.update(dims=dims, spacing=meta.spacing, dtype=meta.dtype, header_bytes=meta.header_bytes,
                       slope=meta.slope, intercept=meta.intercept)
    report.write()

    exit_code = 0
    if "edt-cupy" in stages:
        section = report.data["cupy_edt"] = {"status": "running"}
        vol = None
        try:
            t = time.perf_counter()
            vol = load_volume(np, args.input, meta, 0)
            section["load_s"] = round(time.perf_counter() - t, 3)
            stored = meta.stored_value(args.threshold)
            if args.otsu:  # the pipeline's rule; CuPy has no Otsu, so the host computes it (untimed)
                from skimage.filters import threshold_otsu
                stored = float(threshold_otsu(vol))
            section["threshold_used_hu"] = round(meta.slope * stored + meta.intercept, 3)
            run_cupy_edt(args, np, report, section, vol, meta, stored)
        except Exception as e:  # noqa: BLE001
            section["status"] = "failed"
            section["error"] = error_text(e)
            traceback.print_exc()
        del vol
        report.write()

    if "pipeline" in stages:
        section = report.data["pipeline"] = {"status": "running"}
        scale = 1.0
        try:
            t = time.perf_counter()
            sub = args.subvolume if args.subvolume and args.subvolume < max(dims) else 0
            vol = load_volume(np, args.input, meta, sub)
            section["load_s"] = round(time.perf_counter() - t, 3)
            section["measured_dims"] = [vol.shape[2], vol.shape[1], vol.shape[0]]
            scale = full_voxels / float(vol.size)
            section["scale_to_full_volume"] = round(scale, 4)
            report.write()
            run_pipeline(args, np, report, section, vol, meta, scale)
        except MemoryError as e:
            section["status"] = "failed"
            section["error"] = error_text(e) or "MemoryError"
        except Exception as e:  # noqa: BLE001
            section["status"] = "failed"
            section["error"] = error_text(e)
            traceback.print_exc()
        section.pop("current_stage", None)
        summarise_pipeline(section, scale)
        if section["status"] == "timed_out":
            exit_code = 124

    statuses = [report.data[k]["status"] for k in ("cupy_edt", "pipeline") if k in report.data]
    report.data["status"] = "complete" if all(s == "complete" for s in statuses) else ",".join(statuses)
    report.data["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    report.write()
    print(json.dumps({k: report.data.get(k) for k in ("status", "unavailable")}))
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
