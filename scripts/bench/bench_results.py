"""Shared by the benchmark scripts' JSON writers: the runs table that bench_common.sh's timed and
skip write, and shell output for the machine description."""
import subprocess


def sh(cmd):
    """A shell command's stdout, stripped, or None when it fails or prints nothing."""
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=30).stdout.strip() or None
    except Exception:
        return None


def read_runs(path):
    """runs.tsv (name, seconds, exit code, outputs, output bytes, note) as {name: {...}}."""
    runs = {}
    for line in open(path):
        name, seconds, rc, count, size, note = line.rstrip("\n").split("\t")
        runs[name] = ({"skipped": note} if note else
                      {"wall_s": float(seconds), "exit_code": int(rc), "outputs": int(count), "output_bytes": int(size)})
    return runs


def ok_time(runs, name):
    """The run's wall time when it exited 0, else None."""
    r = runs.get(name, {})
    return r["wall_s"] if r.get("exit_code") == 0 else None


def gpu_figures(report):
    """What NVML saw during a gpuproc run, from its --report (gpu_monitor): per device the mean and
    maximum utilisation and power, the energy; None when the run had no monitor figures."""
    monitor = (report or {}).get("gpu_monitor") or {}
    if not monitor.get("available"):
        return None
    return [{"device": d.get("device"), "samples": d.get("samples"), "gpu_utilization_pct": d.get("gpu_utilization_pct"),
             "power_w": d.get("power_w"), "energy_j": d.get("energy_j"), "memory_used_gib": d.get("memory_used_gib")}
            for d in monitor.get("devices", [])]
