#!/bin/bash
# Development check, not part of ctest (ONNX Runtime is not available in CI): ONNX Runtime 1.30 on the function
# models of gen_function_models.py, on Kiln's O0 and O2 outputs of each, on those models inlined and outlined by
# Kiln (function_models_test's files) and on the outlined bench models (outline_bench_test's); prints Markdown
# tables. Build the tests first; the script runs both tests itself so that their files are current.
#
#   tests/functions/check_with_ort.sh [BUILD_DIR] [WORK_DIR]      (defaults: build, a fresh temporary folder)
#
# Function models, every variant (the generated model, `kiln compile --oo.level=O0` and `--oo.level=O2` of it,
# Kiln's inlined and outlined forms): ORT at its `disabled` and `all` levels on every data set, against the numpy
# expected outputs (rtol 1e-5, atol 1e-6). Outlined bench models (outline_bench_test with KILN_KEEP_OUTLINED=1,
# which leaves about 800 MB in BUILD_DIR/tests/functions/bench): ORT on the outlined model against ORT on the
# original, same level and inputs (rtol 1e-4, atol 1e-5). A cell is "ok", "MISMATCH" (with the first difference)
# or "ORT FAILED" (ORT's message). Needs node and ../shared/tools/ort (run its setup.sh once); KILN_ORT_JS
# overrides the driver's path.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd) || { echo "no build folder ${1:-$ROOT/build}" >&2; exit 2; }
WORK=${2:-$(mktemp -d /tmp/kiln_ort_functions.XXXXXX)}
ORT_JS=${KILN_ORT_JS:-$ROOT/../shared/tools/ort/ort.js}
[ -f "$ORT_JS" ] || ORT_JS=/work/shared/tools/ort/ort.js
PY=/usr/bin/python3
KILN=$BUILD/bin/kiln
[ -x "$KILN" ] || { echo "no kiln binary at $KILN (build the kiln target)" >&2; exit 2; }
[ -f "$ORT_JS" ] || { echo "no ORT driver at $ORT_JS" >&2; exit 2; }
mkdir -p "$WORK"

# ort_cell MODEL INPUTS_DIR EXPECTED_DIR LEVEL OUT_DIR RTOL ATOL: prints one table cell.
ort_cell() {
  local model=$1 inputs=$2 expected=$3 level=$4 out=$5 rtol=$6 atol=$7 log
  rm -rf "$out"
  if ! log=$(node "$ORT_JS" run "$model" --inputs-dir "$inputs" --output-dir "$out" --level "$level" 2>&1); then
    echo "ORT FAILED: $(echo "$log" | grep -v '^\s*$' | tail -1 | sed 's/^Load model from .* failed://' | cut -c1-120)"
    return
  fi
  if log=$($PY "$HERE/function_model_check.py" compare "$expected" "$out" --rtol "$rtol" --atol "$atol"); then
    echo "ok"
  else
    echo "MISMATCH: $(echo "$log" | grep MISMATCH | head -1 | cut -c1-140)"
  fi
}

echo "## Function models (expected outputs from numpy; rtol 1e-5, atol 1e-6)"
echo
echo "| model | data set | variant | ORT disabled | ORT all |"
echo "|---|---|---|---|---|"
$PY "$HERE/gen_function_models.py" "$WORK/models" > "$WORK/gen.log" 2>&1 || { cat "$WORK/gen.log"; exit 1; }
for name in $($PY "$HERE/gen_function_models.py" --list); do
  src=$WORK/models/$name/model.onnx
  declare -A variant=([input]=$src)
  for level in O0 O2; do
    dst=$WORK/kiln/$name.$level.onnx
    mkdir -p "$WORK/kiln"
    if "$KILN" compile "$src" --oo.level=$level -o "$dst" > "$WORK/kiln/$name.$level.log" 2>&1; then
      variant[$level]=$dst
    else
      echo "| $name | | $level | kiln compile failed: $(tail -1 "$WORK/kiln/$name.$level.log") | |"
    fi
  done
  for set in "$WORK/models/$name"/test_data_set_*; do
    s=$(basename "$set")
    for v in input O0 O2; do
      [ -n "${variant[$v]:-}" ] || continue
      a=$(ort_cell "${variant[$v]}" "$set" "$set" disabled "$WORK/ort/$name/$s/$v.disabled" 1e-5 1e-6)
      b=$(ort_cell "${variant[$v]}" "$set" "$set" all "$WORK/ort/$name/$s/$v.all" 1e-5 1e-6)
      echo "| $name | ${s#test_data_set_} | $v | $a | $b |"
    done
  done
  unset variant
done

# The inlined and outlined models come from the two tests; run them so that they are there and current.
INLINED=$BUILD/tests/functions/work
$PY "$HERE/gen_function_models.py" "$BUILD/tests/functions/models" > /dev/null 2>&1
"$BUILD/tests/functions/function_models_test" > "$WORK/function_models_test.log" 2>&1 ||
  echo "(function_models_test failed: see $WORK/function_models_test.log)"
KILN_KEEP_OUTLINED=1 "$BUILD/tests/functions/outline_bench_test" > "$WORK/outline_bench_test.log" 2>&1 ||
  echo "(outline_bench_test failed: see $WORK/outline_bench_test.log)"
echo
echo "## Function models inlined and outlined by Kiln (function_models_test's files; rtol 1e-5, atol 1e-6)"
echo
shopt -s nullglob
rewritten=("$INLINED"/*.inlined.onnx "$INLINED"/*.outlined_*.onnx)
if [ ${#rewritten[@]} -eq 0 ]; then
  echo "(none in $INLINED)"
else
  echo "| model | variant | data set | ORT disabled | ORT all |"
  echo "|---|---|---|---|---|"
  for f in "${rewritten[@]}"; do
    base=$(basename "$f" .onnx)
    name=${base%%.*}
    v=${base#*.}
    for set in "$WORK/models/$name"/test_data_set_*; do
      s=$(basename "$set")
      a=$(ort_cell "$f" "$set" "$set" disabled "$WORK/ort/$name/$s/$v.disabled" 1e-5 1e-6)
      b=$(ort_cell "$f" "$set" "$set" all "$WORK/ort/$name/$s/$v.all" 1e-5 1e-6)
      echo "| $name | $v | ${s#test_data_set_} | $a | $b |"
    done
  done
fi

BENCH=$BUILD/tests/functions/bench
echo
echo "## Outlined bench models (ORT on the outlined model against ORT on the original; rtol 1e-4, atol 1e-5)"
echo
outlined=("$BENCH"/*.*.onnx)
if [ ${#outlined[@]} -eq 0 ]; then
  echo "(none in $BENCH)"
  exit 0
fi
echo "| model | functions | ORT disabled | ORT all |"
echo "|---|---|---|---|"
for model in resnet50 bert; do
  [ -f "$BENCH/$model.onnx" ] || continue
  for level in disabled all; do
    ref=$WORK/bench/$model.$level
    rm -rf "$ref"
    node "$ORT_JS" run "$BENCH/$model.onnx" --inputs-dir "$BENCH/${model}_inputs" --output-dir "$ref" --level $level \
      > "$WORK/bench.$model.$level.log" 2>&1 || echo "| $model | | ORT failed on the original ($level) | |"
  done
  for f in "$BENCH/$model".*.onnx; do
    label=$(basename "$f" .onnx)
    count=$($PY -c "import onnx, sys; print(len(onnx.load(sys.argv[1], load_external_data=False).functions))" "$f")
    a=$(ort_cell "$f" "$BENCH/${model}_inputs" "$WORK/bench/$model.disabled" disabled "$WORK/bench/$label.disabled" 1e-4 1e-5)
    b=$(ort_cell "$f" "$BENCH/${model}_inputs" "$WORK/bench/$model.all" all "$WORK/bench/$label.all" 1e-4 1e-5)
    echo "| $label | $count | $a | $b |"
  done
done
