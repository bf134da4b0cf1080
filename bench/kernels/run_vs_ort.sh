#!/usr/bin/env bash
# Issue 5's executor benchmark: `kiln run` against ONNX Runtime on the same generated models, inputs and machine:
# ResNet-50 (batch 1, 224x224) and one BERT-base encoder layer (batch 1, 128 tokens), random weights. Kiln's
# time is the median in-process executor run of REPS (`kiln run --repeat`); ORT's is `ort.js time`'s median run
# (session creation excluded for both). Target: Kiln at most 5x ORT.
#   bench/kernels/run_vs_ort.sh [BUILD_DIR] [REPS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
reps=${2:-5}
ort="$here/../../../shared/tools/ort/ort.js"
[ -f "$ort" ] || ort="$(cd "$here/../.." && pwd)/../shared/tools/ort/ort.js"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-10s %12s %14s %14s %10s\n' model kiln_ms ort_all_ms ort_disabled_ms kiln/ort
for spec in "resnet50" "bert --layers 1"; do
  name=${spec%% *}
  /usr/bin/python3 "$here/../models/gen_models.py" $spec --batch static --out "$work/$name.onnx" >/dev/null
  /usr/bin/python3 "$here/../models/make_inputs.py" "$work/$name.onnx" --out-dir "$work/$name.in" --seed 1 >/dev/null
  k=$("$build/bin/kiln" run "$work/$name.onnx" --inputs-dir "$work/$name.in" --output-dir "$work/$name.out" \
        --repeat "$reps" 2>&1 | sed -n 's/.* nodes in \([0-9.e-]*\) s.*/\1/p')
  oa=$(node "$ort" time "$work/$name.onnx" --level all --reps "$reps" --inputs-dir "$work/$name.in" 2>&1 |
         sed -n 's/.*run_ms_median=\([0-9.]*\).*/\1/p' | head -1)
  od=$(node "$ort" time "$work/$name.onnx" --level disabled --reps "$reps" --inputs-dir "$work/$name.in" 2>&1 |
         sed -n 's/.*run_ms_median=\([0-9.]*\).*/\1/p' | head -1)
  awk -v n="$name" -v k="$k" -v a="$oa" -v d="$od" 'BEGIN { printf "%-10s %12.1f %14.1f %14.1f %10.2f\n", n, k * 1000, a, d, k * 1000 / a }'
done
