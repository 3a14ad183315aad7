# The checks of the CLI test scripts, sourced after `work` (a scratch folder) is set: each counts
# into $passes or $failures and says what failed.
failures=0
passes=0

pass() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() {  # ok NAME CONDITION_EXIT_STATUS
  if [[ $2 -eq 0 ]]; then pass; else fail "$1"; fi
}
check() {  # check NAME EXPECTED_EXIT COMMAND...
  local name=$1 expected=$2
  shift 2
  "$@" >"$work/stdout" 2>"$work/stderr"
  local rc=$?
  if [[ $rc -ne $expected ]]; then
    echo "FAIL: $name: exit $rc, expected $expected"; sed 's/^/  | /' "$work/stderr" "$work/stdout" | head -20
    failures=$((failures + 1))
    return 1
  fi
  passes=$((passes + 1))
}
expect_text() {  # expect_text NAME FILE TEXT
  if grep -qF -- "$3" "$2"; then passes=$((passes + 1)); else
    echo "FAIL: $1: '$3' not in output:"; sed 's/^/  | /' "$2" | head -20; failures=$((failures + 1)); fi
}
json_check() {  # json_check NAME FILE PYTHON_EXPR (j = the parsed JSON)
  if python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($3) else 1)" "$2"; then
    passes=$((passes + 1)); else echo "FAIL: $1: $3 is false for $2"; failures=$((failures + 1)); fi
}

# skip_without_face_models NAME: the script ends here, skipped, when track-faces' models are not in
# $models (scripts/fetch-models.sh fetches them).
skip_without_face_models() {
  if [[ ! -f $models/face_landmark.tflite || ! -f $models/face_detection_short_range.tflite ]]; then
    echo "$1: skipped (no face models in $models)"
    exit 0
  fi
}
