#!/usr/bin/env bash
# Issue 14's transpose count: for each generated transformer model (BERT-base layer, LLaMA block, PyTorch exporter
# style; static and symbolic batch), the Transposes in the input, after O1 and after O2 (main graph plus the bodies
# of the fused functions O2 writes), each with TransposePushPass switched off (--oo.disableOptimizations) and on;
# the pass's transposes_pushed counter at O2, and whether `kiln verify` reproduces the input's outputs.
#   bench/layout/transposes.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-build}
kiln="$build/bin/kiln"
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
