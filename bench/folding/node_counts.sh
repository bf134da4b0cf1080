#!/usr/bin/env bash
# Issue 6's comparison: for each generated model (ResNet-50, MobileNetV2, BERT-base layer, LLaMA block; static and
# symbolic batch), the node count of Kiln's O1 output beside ONNX Runtime's `basic` level (its only portable ONNX
# output), the Shape nodes left, and `kiln verify` between the model and its O1 output.
#   bench/folding/node_counts.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
kiln="$build/bin/kiln"
ort="$(cd "$here/../.." && pwd)/../shared/tools/ort/ort.js"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nodes() { /usr/bin/python3 -c "import onnx,sys; m=onnx.load(sys.argv[1], load_external_data=False); print(len(m.graph.node), sum(n.op_type=='Shape' for n in m.graph.node))" "$1"; }
printf '%-12s %-9s %7s %9s %8s %10s %s\n' model batch input kiln_O1 shapes ort_basic verify
for model in resnet50 mobilenetv2 bert llama; do
  for batch in static symbolic; do
    f="$work/$model-$batch.onnx"
    /usr/bin/python3 "$here/../models/gen_models.py" "$model" --batch "$batch" --out "$f" >/dev/null
    "$kiln" compile "$f" -o "$work/k.onnx" --oo.level=O1 --log-level=error 2>/dev/null
    read -r n_in _ < <(nodes "$f")
    read -r n_k shapes < <(nodes "$work/k.onnx")
    n_o="-"
    if node "$ort" optimize "$f" "$work/o.onnx" --level basic >/dev/null 2>&1; then read -r n_o _ < <(nodes "$work/o.onnx"); fi
    if "$kiln" verify "$f" "$work/k.onnx" --dim batch=2 --seed 1 >/dev/null 2>&1; then v=match; else v=MISMATCH; fi
    printf '%-12s %-9s %7s %9s %8s %10s %s\n' "$model" "$batch" "$n_in" "$n_k" "$shapes" "$n_o" "$v"
  done
done
