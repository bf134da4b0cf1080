#!/usr/bin/env bash
# Issue 14's transpose count: for each generated transformer model (BERT-base layer, LLaMA block, PyTorch exporter
# style; static and symbolic batch), the Transposes in the input, after O1 and after O2 (main graph plus the bodies
# of the fused functions O2 writes), each with TransposePushPass switched off (--oo.disableOptimizations) and on;
# the pass's transposes_pushed counter at O2, and whether `kiln verify` reproduces the input's outputs. Then a small
# layout chain (Transposes around Add with a constant, Erf, ReduceMean, Mul, Concat, Pad, Slice) where every
# Transpose meets its inverse: the same columns, onnx.checker (full_check) on the O2 output, and ONNX Runtime running
# input and output on the same data (skipped when ../shared/tools/ort is not installed).
#   bench/layout/transposes.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-build}
kiln="$build/bin/kiln"
ort="$root/../shared/tools/ort/ort.js"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
py=/usr/bin/python3
# Transposes in the main graph and in the model-local functions' bodies.
count() { $py -c "
import onnx, sys
m = onnx.load(sys.argv[1], load_external_data=False)
print(sum(n.op_type == 'Transpose' for n in m.graph.node) + sum(n.op_type == 'Transpose' for f in m.functions for n in f.node))" "$1"; }
pushed() { $py -c "
import json, sys
r = json.load(open(sys.argv[1]))
print(sum(p.get('counters', {}).get('transposes_pushed', 0) for s in r['stages'] for p in s['passes']
          if p['name'] == 'TransposePushPass'))" "$1"; }
off=--oo.disableOptimizations=TransposePushPass
printf '%-8s %-9s %6s %7s %6s %7s %6s %7s %7s\n' model batch input O1_off O1 O2_off O2 pushed verify
for model in bert llama; do
  for batch in static symbolic; do
    f="$work/$model-$batch.onnx"
    $py "$root/bench/models/gen_models.py" "$model" --batch "$batch" --out "$f" >/dev/null
    row=("$(count "$f")")
    for level in O1 O2; do
      "$kiln" compile "$f" -o "$work/off.onnx" --oo.level=$level $off --log-level=error 2>/dev/null
      "$kiln" compile "$f" -o "$work/on.onnx" --oo.level=$level --report "$work/report.json" --log-level=error 2>/dev/null
      row+=("$(count "$work/off.onnx")" "$(count "$work/on.onnx")")
    done
    row+=("$(pushed "$work/report.json")")
    if "$kiln" verify "$f" "$work/on.onnx" --dim batch=2 --seed 1 >/dev/null 2>&1; then row+=(match); else row+=(MISMATCH); fi
    printf '%-8s %-9s %6s %7s %6s %7s %6s %7s %7s\n' "$model" "$batch" "${row[@]}"
  done
done

# The layout chain.
f="$work/chain.onnx"
$py - "$f" "$work/in" <<'PY'
import os, sys, numpy as np, onnx, onnx.parser, onnx.numpy_helper as nh
m = onnx.parser.parse_model('''<ir_version: 8, opset_import: ["" : 17]>
g (float[2,4,8,6] x, float[2,4,8,6] u, float[2,4,8,6] z) => (float[2,4,8,1] y, float[2,4,11,6] v)
  <float[6] b = {1, -1, 2, 0.5, 0, 3}, float k = {2}, int64[8] pads = {0, 1, 0, 0, 0, 2, 0, 0},
   int64[1] st = {1}, int64[1] en = {5}, int64[1] ax = {2}> {
  t = Transpose <perm = [0, 2, 1, 3]> (x)
  a = Add(t, b)
  e = Erf(a)
  s = ReduceMean <axes = [3], keepdims = 1> (e)
  d = Mul(s, k)
  r = Transpose <perm = [0, 2, 1, 3]> (d)
  y = Neg(r)
  t2 = Transpose <perm = [0, 2, 1, 3]> (u)
  q = Transpose <perm = [0, 2, 1, 3]> (z)
  c = Concat <axis = 2> (t2, q)
  p = Pad(c, pads)
  sl = Slice(p, st, en, ax)
  v2 = Transpose <perm = [0, 2, 1, 3]> (sl)
  v = Relu(v2)
}''')
onnx.checker.check_model(m, full_check=True)
onnx.save(m, sys.argv[1])
os.makedirs(sys.argv[2])
rng = np.random.default_rng(0)
for i in range(3):
    onnx.save_tensor(nh.from_array(rng.uniform(-2, 2, (2, 4, 8, 6)).astype(np.float32)), f"{sys.argv[2]}/input_{i}.pb")
PY
row=("$(count "$f")")
for level in O1 O2; do
  "$kiln" compile "$f" -o "$work/off.onnx" --oo.level=$level $off --log-level=error 2>/dev/null
  "$kiln" compile "$f" -o "$work/on.onnx" --oo.level=$level --report "$work/report.json" --log-level=error 2>/dev/null
  row+=("$(count "$work/off.onnx")" "$(count "$work/on.onnx")")
done
row+=("$(pushed "$work/report.json")")
if "$kiln" verify "$f" "$work/on.onnx" --seed 1 >/dev/null 2>&1; then row+=(match); else row+=(MISMATCH); fi
printf '%-8s %-9s %6s %7s %6s %7s %6s %7s %7s\n' chain static "${row[@]}"
checker=$($py -c "import onnx,sys; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)" "$work/on.onnx" \
  >/dev/null 2>&1 && echo ok || echo FAIL)
ortrun="not installed"
if node "$ort" run "$f" --inputs-dir "$work/in" --output-dir "$work/ref" >/dev/null 2>&1 &&
   node "$ort" run "$work/on.onnx" --inputs-dir "$work/in" --output-dir "$work/got" >/dev/null 2>&1; then
  ortrun=$($py "$root/bench/models/compare_outputs.py" "$work/ref" "$work/got")
fi
echo "chain at O2: onnx.checker $checker; ONNX Runtime, input against output: $ortrun"
