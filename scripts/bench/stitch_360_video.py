"""stitch_360.sh's video phases (stitch_360_video.sh) in its JSON: per phase the video, the times and
frame rates of gpuproc, ffmpeg v360 and the decode limit, their ratios, the target, the decoder's
busy time from gpuproc's trace, and the HDR phase (x) (stitch_360_hdr.sh's JSON)."""
import json
import os
import statistics

from bench_results import ok_time

PHASES = {
    "v1": ("video_8k_ring8", "H.264 equirect video, every frame -> ring8 views (JPEG)"),
    "v2": ("dual_fisheye_5k7_equirect", "H.264 dual-fisheye video (two 195-degree lenses), every frame -> equirect (JPEG)"),
}


def _merged_seconds(spans):
    """Total time covered by (start, end) intervals, overlaps counted once."""
    total, end = 0.0, None
    for s, e in sorted(spans):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def _decoder_busy(trace_path):
    """The "decode video" spans of a gpuproc --trace (one per call of the decoder; calls take turns,
    a waiting call's span covers the turn it waits for): count, sum, and the time they cover."""
    try:
        events = json.load(open(trace_path)).get("traceEvents", [])
    except (OSError, ValueError):
        return None
    spans = [(e["ts"] / 1e6, (e["ts"] + e["dur"]) / 1e6) for e in events
             if e.get("ph") == "X" and e.get("name") == "decode video" and e.get("pid", 1) == 1]
    rgb = [e["dur"] / 1e6 for e in events if e.get("ph") == "X" and e.get("name") == "video frame to rgb"]
    if not spans:
        return None
    return {"decode_spans": len(spans), "decode_span_sum_s": round(sum(e - s for s, e in spans), 3),
            "decoder_busy_s": round(_merged_seconds(spans), 3),
            "rgb_conversions": len(rgb), "rgb_conversion_sum_s": round(sum(rgb), 3)}


def _samples(runs, name):
    """The times of a run and its repeats (NAME, NAME_2, NAME_3, ...), in the order they ran."""
    names = [name] + sorted((n for n in runs if n.startswith(name + "_") and n[len(name) + 1:].isdigit()),
                            key=lambda n: int(n[len(name) + 1:]))
    return [ok_time(runs, n) for n in names if n in runs]


def video_results(runs, work, device, threads):
    rate = lambda count, seconds: round(count / seconds, 3) if count and seconds else None
    ratio = lambda x, y: round(x / y, 3) if x is not None and y else None
    target = lambda value, goal, passed: {"value": value, "target": goal, "pass": None if value is None else passed(value)}
    videos = {}
    tsv = os.path.join(work, "video_phases.tsv")
    if os.path.exists(tsv):
        for line in open(tsv):
            phase, path, frames, width, height = line.rstrip("\n").split("\t")
            videos[phase] = {"file": os.path.basename(path), "frames": int(frames) if frames else None,
                             "width": int(width) if width else None, "height": int(height) if height else None,
                             "bytes": os.path.getsize(path) if os.path.exists(path) else None}
    out = {}
    for phase, (key, what) in PHASES.items():
        v = videos.get(phase)
        if v is None:
            out[key] = {"skipped": "not in BENCH_PHASES, or the videos could not be made"}
            continue
        frames = v["frames"]
        t = {name: ok_time(runs, f"{phase}_{name}") for name in
             ("gpuproc", "gpuproc_no_fsync", "ffmpeg", "decode", "decode_rgb", "gpuproc_reader", "gpuproc_sharpest")}
        # The target's figures ran BENCH_VIDEO_REPEATS times in turns: their medians (a failed run: None).
        samples = {name: _samples(runs, f"{phase}_{name}") for name in ("decode", "gpuproc", "gpuproc_no_fsync")}
        for name, values in samples.items():
            t[name] = None if not values or None in values else statistics.median(values)
        fps = {name: rate(frames, seconds) for name, seconds in t.items()}
        report_path = os.path.join(work, f"report-{phase}_gpuproc.json")
        report = json.load(open(report_path)) if os.path.exists(report_path) else None
        sharpest_path = os.path.join(work, f"report-{phase}_gpuproc_sharpest.json")
        sharpest = json.load(open(sharpest_path)).get("extra", {}).get("videos") if os.path.exists(sharpest_path) else None
        busy = _decoder_busy(os.path.join(work, f"trace-{phase}_gpuproc.json"))
        views = 8 if phase == "v1" else 1
        gpuproc_extra = 1 + (6 if phase == "v1" else 0)  # the completion record; the rig files and rig.lock
        agreement = {}
        psnr_path = os.path.join(work, f"psnr-{phase}.tsv")
        if os.path.exists(psnr_path):
            for line in open(psnr_path):
                name, db = line.rstrip("\n").split("\t")
                agreement[name] = float(db) if db not in ("", "inf") else None
        outputs = lambda name: (runs.get(f"{phase}_{name}") or {}).get("outputs")
        out[key] = {
            "what": what,
            "video": {**v, "seconds": float(os.environ.get("BENCH_VIDEO_S", 6)), "fps": int(os.environ.get("BENCH_VIDEO_FPS", 30)),
                      "codec": "H.264 (libx264 veryfast crf 20, yuv420p, key frame every 2 s)",
                      "content": "3 rendered landscapes with sensor noise, each turning (scroll), temporal noise, "
                                 "cross-faded from one to the next"},
            "device": device,
            "threads": threads,
            "outputs_per_frame": views,
            "what_each_figure_includes": {
                "gpuproc": f"gpuproc stitch-360 --device {device}, input.video.select all: process wall clock (start-up, "
                           "decode on CPU threads (in parts at IDR key frames, input.video.decoders: report.extra.videos"
                           "[].decoders), YUV->RGB, project, JPEG encode, EXIF, atomic writes with fsync)",
                "gpuproc_no_fsync": "the same with --no-fsync (outputs renamed into place, not flushed: as ffmpeg writes)",
                "ffmpeg": "one ffmpeg process: decode (-threads 0), v360 (split=8 and eight v360=e:flat for v1; "
                          "v360=dfisheye:e for v2), mjpeg -q:v 2, image2 files",
                "decode": "the decode limit: ffmpeg -threads 0 (one thread per core) decoding the video to null",
                "decode_rgb": "informational: the same plus the YUV to RGB24 conversion (-vf format=rgb24) gpuproc also "
                              "makes on the CPU",
                "gpuproc_reader": "informational: gpuproc's own VideoReader(s) through stitch-360 (select every 1000000: "
                                  "every frame decoded, by as many decoders as the job's, the first one alone projected "
                                  "and written), process wall clock",
                "gpuproc_sharpest": "informational: select sharpest, interval 1 s: every frame decoded and scored (sharpness_on "
                                    "says where), the best of each second projected and written; frames of the video / wall clock",
                "trace": "from gpuproc's --trace: 'decode video' spans (the decoder's turns, merged: its busy time) and "
                         "'video frame to rgb' spans (the load threads' conversions)",
            },
            "times_s": t,
            "samples_s": samples,
            "samples_note": "decode, gpuproc and gpuproc_no_fsync ran in turns, each as often as listed; times_s gives their medians",
            "frames_per_s": fps,
            "ratios": {"gpuproc_over_ffmpeg": ratio(fps["gpuproc"], fps["ffmpeg"]),
                       "gpuproc_no_fsync_over_ffmpeg": ratio(fps["gpuproc_no_fsync"], fps["ffmpeg"]),
                       "decode_limit_over_gpuproc": ratio(fps["decode"], fps["gpuproc"]),
                       "decode_limit_over_gpuproc_no_fsync": ratio(fps["decode"], fps["gpuproc_no_fsync"]),
                       "gpuproc_reader_over_decode_limit": ratio(fps["gpuproc_reader"], fps["decode"]),
                       "gpuproc_sharpest_over_gpuproc_reader": ratio(fps["gpuproc_sharpest"], fps["gpuproc_reader"])},
            "targets": {
                "within_1.2x_of_decode_limit": target(ratio(fps["decode"], fps["gpuproc"]),
                                                      "decode limit fps / gpuproc fps <= 1.2 (durable writes)", lambda x: x <= 1.2),
                "within_1.2x_of_decode_limit_no_fsync": target(ratio(fps["decode"], fps["gpuproc_no_fsync"]),
                                                               "decode limit fps / gpuproc --no-fsync fps <= 1.2", lambda x: x <= 1.2)},
            "outputs": {"expected": frames * views if frames else None, "gpuproc": outputs("gpuproc"),
                        "gpuproc_no_fsync": outputs("gpuproc_no_fsync"), "ffmpeg": outputs("ffmpeg"),
                        "note": "gpuproc's count includes the video's completion record (.gpuproc/complete/*.json) and, "
                                "for v1 (mode views), the 5 rig files (cameras.json, COLMAP cameras.txt, images.txt, "
                                "points3D.txt, rig_config.json) and .gpuproc/complete/rig.lock"},
            "outputs_complete": {name: None if outputs(name) is None or not frames else outputs(name) == frames * views + extra
                                 for name, extra in (("gpuproc", gpuproc_extra), ("gpuproc_no_fsync", gpuproc_extra),
                                                     ("ffmpeg", 0))},
            "agreement_with_v360": {
                "first_frame_psnr_db": agreement,
                "min_db": min(agreement.values()) if agreement and None not in agreement.values() else None,
                "note": "informational: the first frame by gpuproc (PNG) against ffmpeg v360 (PNG), ffmpeg psnr average; v2: v360 "
                        "takes each direction from one lens, gpuproc feathers the lenses' overlap (fisheye.blend)"},
            "sharpest_run": sharpest and [{k: v.get(k) for k in ("frames_decoded", "frames_scored", "sharpness_on", "frames_selected")}
                                          for v in sharpest],
            "decoder_in_gpuproc": busy and {**busy, "decode_fps_while_busy": rate(frames, busy["decoder_busy_s"])},
            "report": report and {"wall_s": report.get("wall_s"), "extra": report.get("extra"), "stages": report.get("stages")},
        }
    try:  # (x): stitch_360_hdr.sh's JSON
        out["hdr_exr_cubemap"] = json.load(open(os.path.join(work, "hdr.json")))
    except (OSError, ValueError):
        out["hdr_exr_cubemap"] = {"status": "not run (BENCH_PHASES) or failed: see logs/hdr_phase.out"}
    return out
