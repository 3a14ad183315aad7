#!/usr/bin/env bash
# Startup and stderr checks (issue 22): `gpuproc --version`, a usage error and an unknown
# subcommand neither map cuBLAS nor grow past a resident-memory bound; a job whose inputs make
# libpng and libav complain keeps their lines off stderr (JSON progress: every line is JSON; other
# modes: one line per failed item and one per failure in the summary), --verbose and
# GPUPROC_LIBAV_LOG show them in the stream's format. A few seconds on 2 cores.
# usage: quiet_startup.sh GPUPROC_BINARY SOURCE_DIR
set -uo pipefail
gpuproc=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$src/tests/cli/checks.sh"
cd "$src"

expect() {  # expect NAME CONDITION-COMMAND...
  local name=$1
  shift
  if "$@"; then pass; else fail "$name"; fi
}
show_err() { sed 's/^/  | /' "$work/stderr" | head -20; }

# ---- startup: no cuBLAS, bounded RSS ------------------------------------------------------------
# cuBLAS is loaded by the FP16 inference engine on a GPU only (src/infer/cuda_gemm.hpp): not linked,
# and not mapped by a start that builds no engine. The dynamic loader's own log says what it maps.
expect "gpuproc does not link cuBLAS" bash -c '! ldd "$1" | grep -q libcublas' _ "$gpuproc"
# Peak RSS (KiB) of one run, from the kernel's rusage of the finished child.
max_rss_kib() {
  python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
# 36 MB here with the ~150 libraries gpuproc links (libav, DCMTK, OpenEXR...); cuBLAS mapped at
# start added 210 MB (246 MB in all). 120 MB leaves room for other builds of those libraries and
# for sanitizer runtimes, and still fails if cuBLAS (or OpenImageIO's 250 libraries) came back.
rss_bound_kib=$((120 * 1024))
for args in "--version" "tonemap-exr --bogus" "frobnicate"; do
  read -ra argv <<<"$args"
  rm -f "$work"/ld.*
  LD_DEBUG=libs LD_DEBUG_OUTPUT="$work/ld" "$gpuproc" "${argv[@]}" >/dev/null 2>&1
  if ! ls "$work"/ld.* >/dev/null 2>&1; then
    fail "gpuproc $args: no LD_DEBUG output"
  elif grep -q "libcublas" "$work"/ld.*; then
    fail "gpuproc $args maps cuBLAS:"; grep -h "libcublas" "$work"/ld.* | head -3
  else
    pass
  fi
  expect "gpuproc $args does not load OpenImageIO" bash -c '! grep -q libOpenImageIO "$@"' _ "$work"/ld.*
  rss=$(max_rss_kib "$gpuproc" "${argv[@]}")
  expect "gpuproc $args: peak RSS $((rss / 1024)) MB <= $((rss_bound_kib / 1024)) MB" test "$rss" -le "$rss_bound_kib"
done

# ---- library messages off stderr ----------------------------------------------------------------
# Inputs that make libpng complain (through OpenImageIO): a truncated PNG (an error libpng prints
# on its own) and one whose text chunk has a bad CRC (a warning; the image itself reads).
mkdir -p "$work/in"
python3 - "$work/in" <<'PY'
import struct, sys, zlib
def chunk(kind, data, crc=None):
    crc = zlib.crc32(kind + data) if crc is None else crc
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', crc & 0xffffffff)
w, h = 64, 32
rows = b''.join(b'\0' + bytes((x * 7 + y) % 256 for x in range(w * 3)) for y in range(h))
head = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
tail = chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b'')
open(sys.argv[1] + '/bad_crc.png', 'wb').write(head + chunk(b'tEXt', b'Comment\0hi', crc=1234) + tail)
whole = head + tail
open(sys.argv[1] + '/truncated.png', 'wb').write(whole[:len(whole) // 2])
PY
st=(stitch-360 --config configs/stitch-360.json --device cpu --set views.width=64 --set views.height=64
    "$work/in/bad_crc.png" "$work/in/truncated.png")

# Every stderr line is a JSON object with an "event".
all_json() {
  python3 -c 'import json, sys
lines = open(sys.argv[1]).read().splitlines()
bad = [l for l in lines if not (l.startswith("{") and "event" in json.loads(l))]
sys.exit(1 if bad or not lines else 0)' "$1" 2>/dev/null
}
# How many stderr lines are JSON events of this kind (and source).
json_events() {
  python3 -c 'import json, sys
n = 0
for l in open(sys.argv[1]):
    j = json.loads(l)
    n += j["event"] == sys.argv[2] and (len(sys.argv) < 4 or j.get("source") == sys.argv[3])
print(n)' "$@"
}

check "stitch-360, --progress json" 1 "$gpuproc" "${st[@]}" --progress json --set output.dir="$work/o1" --report "$work/r1.json"
if all_json "$work/stderr"; then pass; else fail "--progress json: a stderr line is not JSON:"; show_err; fi
expect "--progress json: one item_failed" test "$(json_events "$work/stderr" item_failed)" -eq 1
expect "the failure names the file" grep -q "truncated.png" "$work/stderr"
expect "the report counts libpng's messages" python3 -c '
import json, sys; sys.exit(json.load(open(sys.argv[1]))["library_messages"].get("libpng", 0) < 2)' "$work/r1.json"

check "stitch-360, --progress json --verbose" 1 "$gpuproc" "${st[@]}" --progress json --verbose --set output.dir="$work/o2"
if all_json "$work/stderr"; then pass; else fail "--progress json --verbose: a stderr line is not JSON:"; show_err; fi
expect "--verbose: libpng's error and warning as JSON lines" test "$(json_events "$work/stderr" library libpng)" -ge 2

# Not JSON: one "error:" line per failed item, the summary's header and one line per failure
# (OpenImageIO's error for the truncated PNG has three lines of its own), nothing else.
check "stitch-360, --progress none" 1 "$gpuproc" "${st[@]}" --progress none --set output.dir="$work/o3"
if [[ $(wc -l <"$work/stderr") -eq 3 && $(grep -c '^error: .*truncated.png: .*; PNG read error' "$work/stderr") -eq 1 &&
      $(grep -c '^stitch-360: 1 of 2 item(s) failed:$' "$work/stderr") -eq 1 &&
      $(grep -c '^  .*truncated.png: .*; PNG read error' "$work/stderr") -eq 1 ]]; then
  pass
else
  fail "--progress none: not one line per failure:"; show_err
fi

# libav (with the MediaPipe model segment-body needs: scripts/fetch-models.sh or GPUPROC_MODELS):
# a video without its index and one cut short after its first frames.
models=${GPUPROC_MODELS:-.models}
if [[ -f $models/selfie_segmentation.tflite ]] && command -v ffmpeg >/dev/null; then
  head -c 20000 data-samples/video/moving_shapes.mp4 >"$work/in/no_index.mp4"
  ffmpeg -v error -y -i data-samples/video/moving_shapes.mp4 -c copy -movflags +faststart "$work/faststart.mp4"
  head -c $(($(stat -c %s "$work/faststart.mp4") / 5)) "$work/faststart.mp4" >"$work/in/cut_short.mp4"
  sb=(segment-body --config configs/segment-body.json --device cpu --set mask.refine.subsample=4
      "$work/in/no_index.mp4" "$work/in/cut_short.mp4")
  check "segment-body, --progress json" 1 "$gpuproc" "${sb[@]}" --progress json --set output.dir="$work/o5" --report "$work/r5.json"
  if all_json "$work/stderr"; then pass; else fail "segment-body --progress json: a stderr line is not JSON:"; show_err; fi
  expect "segment-body: two item_failed" test "$(json_events "$work/stderr" item_failed)" -eq 2
  expect "the missing index: libav's reason in the item's error" grep -q 'no_index.mp4: open: .*(libav: .*moov atom not found)' "$work/stderr"
  expect "the report counts libav's messages" python3 -c '
import json, sys; sys.exit(json.load(open(sys.argv[1]))["library_messages"].get("libav", 0) < 2)' "$work/r5.json"
  rm -f "$work"/ld.*
  check "segment-body, --progress none" 1 env LD_DEBUG=libs LD_DEBUG_OUTPUT="$work/ld" "$gpuproc" "${sb[@]}" --progress none --set output.dir="$work/o6"
  expect "segment-body --progress none: 2 error lines + the summary's 3, nothing else" test "$(wc -l <"$work/stderr")" -eq 5
  expect "segment-body on the CPU path does not map cuBLAS" bash -c '! grep -q libcublas "$@"' _ "$work"/ld.*
  check "segment-body, --progress none --verbose" 1 "$gpuproc" "${sb[@]}" --progress none --verbose --set output.dir="$work/o6v"
  expect "--verbose without JSON: libav's lines prefixed" grep -q '^libav: error: ' "$work/stderr"
  check "segment-body, GPUPROC_LIBAV_LOG=warning" 1 env GPUPROC_LIBAV_LOG=warning "$gpuproc" "${sb[@]}" --progress json --set output.dir="$work/o7"
  if all_json "$work/stderr"; then pass; else fail "GPUPROC_LIBAV_LOG with --progress json: a line is not JSON:"; show_err; fi
  expect "GPUPROC_LIBAV_LOG shows libav's messages without --verbose" test "$(json_events "$work/stderr" library libav)" -ge 2
else
  echo "SKIPPED: libav checks (no $models/selfie_segmentation.tflite or no ffmpeg)"
fi

echo "quiet_startup: $passes passed, $failures failed"
[[ $failures -eq 0 ]]
