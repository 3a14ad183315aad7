#!/usr/bin/env bash
# Install and packaging checks (issue 8): `cmake --install` into a temporary prefix (the layout,
# the installed gpuproc runs and names its revision and features, the man page renders without
# warnings and covers the CLI), then `cpack -G DEB` (control fields, Depends from dpkg-shlibdeps,
# the same files as the install, the packaged binary runs). Nothing is installed on the system.
# usage: package.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
passes=0

pass() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect() {  # expect NAME CONDITION-COMMAND...
  local name=$1
  shift
  if "$@"; then pass; else fail "$name"; fi
}

for tool in cpack dpkg-deb dpkg-shlibdeps man file col; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (scripts/debian-packages.txt)"; exit 77; }
done

# ---- cmake --install --------------------------------------------------------------------------
prefix=$work/prefix
if ! cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1; then
  fail "cmake --install"; sed 's/^/  | /' "$work/install.log" | tail -20
  exit 1
fi
pass

expect "bin/gpuproc is executable" test -x "$prefix/bin/gpuproc"
expect "only gpuproc in bin/ (the bench and sample tools are not installed)" \
  test "$(ls "$prefix/bin")" = gpuproc
expect "OpenImageIO module in lib/gpuproc" test -f "$prefix/lib/gpuproc/libgpuproc_oiio.so"
for config in "$src"/configs/*.json; do
  expect "example config $(basename "$config")" cmp -s "$config" "$prefix/share/gpuproc/configs/$(basename "$config")"
done
expect "man page" test -f "$prefix/share/man/man1/gpuproc.1.gz"
expect "README" cmp -s "$src/README.md" "$prefix/share/doc/gpuproc/README.md"
for script in gpuproc-array.sbatch merge-reports.sbatch submit.sh; do
  expect "Slurm example $script" test -x "$prefix/share/doc/gpuproc/examples/slurm/$script"
done
if ls "$src"/.models/*.tflite >/dev/null 2>&1; then
  expect "models installed with their notice" test -f "$prefix/share/doc/gpuproc/MODELS"
  for model in "$src"/.models/*.tflite; do
    expect "model $(basename "$model")" cmp -s "$model" "$prefix/share/gpuproc/models/$(basename "$model")"
  done
fi
for elf in "$prefix/bin/gpuproc" "$prefix/lib/gpuproc/libgpuproc_oiio.so"; do
  if ldd "$elf" | grep -q "not found"; then fail "libraries of $elf:"; ldd "$elf" | grep "not found"; else pass; fi
done

# The installed binary: --version names a real commit of this repository and the features.
gp=$prefix/bin/gpuproc
if ! "$gp" --version >"$work/version" 2>&1; then fail "installed gpuproc --version"; cat "$work/version"; fi
version_line=$(sed -n 1p "$work/version")
features_line=$(sed -n 2p "$work/version")
project_version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[[ -n $project_version ]] || project_version=$(sed -n 's/.*gpuproc VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
revision_re='^gpuproc ([0-9.]+) \(revision ([0-9a-f]{12}|unknown)(-dirty)?, '
if [[ $version_line =~ $revision_re ]]; then
  pass
  expect "--version shows the project version $project_version" test "${BASH_REMATCH[1]}" = "$project_version"
  revision=${BASH_REMATCH[2]}
  if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
    expect "revision $revision is a commit of the source tree" git -C "$src" cat-file -e "$revision^{commit}"
  fi
else
  fail "--version line 1: '$version_line' does not match $revision_re"
fi
features_re='^features: nvJPEG GPU JPEG codec (yes|no); gpuproc-face-peer \(OpenCV Haar \+ dlib HOG\) (yes|no); subcommands '
if [[ $features_line =~ $features_re ]]; then
  pass
  peer_built=no
  [[ -x $build/apps/face-peer/gpuproc-face-peer ]] && peer_built=yes
  expect "--version: face peer '${BASH_REMATCH[2]}' = built '$peer_built'" test "${BASH_REMATCH[2]}" = "$peer_built"
else
  fail "--version line 2: '$features_line' does not match $features_re"
fi

# Every subcommand of --help is in --version's list, in the man page and in the installed configs
# (batch subcommands) or documented there (the others).
"$gp" --help >"$work/help" 2>&1
subcommands=$(sed -n '/^Subcommands:/,$p' "$work/help" | sed -n 's/^  \([a-z0-9-]*\) .*/\1/p')
[[ -n $subcommands ]] || fail "no subcommands parsed from gpuproc --help"

# ---- man page ---------------------------------------------------------------------------------
page=$prefix/share/man/man1/gpuproc.1.gz
# lintian's check: groff and man-db warnings go to stderr.
LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" >/dev/null 2>"$work/man.warnings"
if [[ $? -eq 0 && ! -s $work/man.warnings ]]; then pass; else fail "man page warnings:"; sed 's/^/  | /' "$work/man.warnings"; fi
LC_ALL=C.UTF-8 MANWIDTH=200 man -E ascii -l "$page" 2>/dev/null | col -b >"$work/man.txt"
expect "man page renders" test -s "$work/man.txt"
expect "man page has the project version" grep -q "gpuproc $project_version" "$work/man.txt"
for section in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" ENVIRONMENT FILES EXAMPLES; do
  expect "man page section $section" grep -q "^$section" "$work/man.txt"
done
expect "man page: Slurm variables" grep -q SLURM_ARRAY_TASK_ID "$work/man.txt"
expect "man page: files under the install prefix" grep -q "$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")/share/gpuproc/configs" "$work/man.txt"
for sub in $subcommands; do
  expect "man page names subcommand $sub" grep -qw -- "$sub" "$work/man.txt"
  expect "--version lists $sub" bash -c '[[ $2 == *" $1"* || $1 =~ ^(info|validate|compare|merge-reports)$ ]]' _ "$sub" "$features_line"
  # Every option the subcommand takes is documented.
  "$gp" "$sub" --help 2>&1 | grep -o -- '--[a-z][a-z0-9-]*' | sort -u | grep -vx -- '--help' >"$work/options"
  while read -r option; do
    expect "man page documents $sub $option" grep -q -- "$option" "$work/man.txt"
  done <"$work/options"
done
sed -n '/^EXIT STATUS/,/^[A-Z]/p' "$work/man.txt" >"$work/man.exit"
for code in 0 1 2 3; do
  expect "man page exit status $code" grep -Eq "^ +$code +[A-Z]" "$work/man.exit"
done

# ---- cpack .deb -------------------------------------------------------------------------------
if ! cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/deb" >"$work/cpack.log" 2>&1; then
  fail "cpack -G DEB"; sed 's/^/  | /' "$work/cpack.log" | tail -20
  echo "package: $passes passed, $failures failed"
  exit 1
fi
pass
debs=("$work"/deb/*.deb)
expect "one .deb" test ${#debs[@]} -eq 1 -a -f "${debs[0]}"
deb=${debs[0]}
field() { dpkg-deb -f "$deb" "$1"; }
expect "Package: gpuproc" test "$(field Package)" = gpuproc
expect "Version: $project_version" test "$(field Version)" = "$project_version"
expect "Architecture: $(dpkg --print-architecture)" test "$(field Architecture)" = "$(dpkg --print-architecture)"
expect "Section" test -n "$(field Section)"
expect "Maintainer (name <address>)" bash -c '[[ $1 =~ ^.+\ \<.+@.+\>$ ]]' _ "$(field Maintainer)"
expect "Description" test "$(dpkg-deb -f "$deb" Description | wc -l)" -gt 2
depends=$(field Depends)
# From dpkg-shlibdeps: the C library, and what the binary and the OpenImageIO module link.
# Only where the libraries come from Debian packages: dpkg-shlibdeps names the packages that own
# them (on a machine with the libraries unpacked elsewhere, e.g. a dependency bundle, none does).
avcodec_lib=$(ldd "$build/apps/gpuproc/gpuproc" | awk '/libavcodec/ {print $3; exit}')
[[ -n $avcodec_lib ]] && avcodec_lib=$(realpath "$avcodec_lib")
if [[ -n $avcodec_lib ]] && dpkg -S "$avcodec_lib" >/dev/null 2>&1; then
  for dep in libc6 libstdc++6 libavcodec libopenexr libopenimageio; do
    expect "Depends has $dep ($depends)" grep -q "$dep" <<<"$depends"
  done
else
  echo "SKIPPED: Depends of the libraries ($avcodec_lib belongs to no Debian package here)"
fi
dpkg-deb -I "$deb" >"$work/info" && pass || fail "dpkg-deb -I"
# The package holds exactly what cmake --install put in place, under the same prefix.
package_prefix=$(sed -n 's/^set(CPACK_PACKAGING_INSTALL_PREFIX "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | sed "s#^\./${package_prefix#/}/##" | sort >"$work/deb.files"
(cd "$prefix" && find . -type f | sed 's#^\./##' | sort) >"$work/install.files"
if diff "$work/install.files" "$work/deb.files" >"$work/files.diff"; then pass; else
  fail "the .deb's files differ from cmake --install's (under $package_prefix):"; sed 's/^/  | /' "$work/files.diff"; fi
# The packaged (stripped) binary runs.
dpkg-deb -x "$deb" "$work/unpacked"
expect "packaged gpuproc --version" cmp -s <("$work/unpacked$package_prefix/bin/gpuproc" --version) "$work/version"

echo "package: $passes passed, $failures failed"
[[ $failures -eq 0 ]]
