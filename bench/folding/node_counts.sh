#!/usr/bin/env bash
# Issue 6's and 12's comparison: for each generated model (ResNet-50, MobileNetV2, BERT-base layer, LLaMA block as
# PyTorch's exporter writes them, and an ERNIE-style encoder as Paddle2ONNX writes it, with int32 shape chains and
# an If whose branches have shape chains of their own), static batch, symbolic batch, and for the transformers
# symbolic batch and sequence: the node count of Kiln's O1 output (subgraph nodes included) beside ONNX Runtime's
# `basic` level (its only portable ONNX output) on the same file, the Shape nodes Kiln left, and `kiln verify`
# between the model and its O1 output (symbolic dims: batch=2, sequence/seq_len=100).
#   bench/folding/node_counts.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
kiln="$build/bin/kiln"
ort="$(cd "$here/../.." && pwd)/../shared/tools/ort/ort.js"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nodes() { /usr/bin/python3 - "$1" <<'PY'
import sys, onnx
def count(g):
    n = s = 0
    for node in g.node:
        n += 1; s += node.op_type == 'Shape'
        for a in node.attribute:
            for sub in ([a.g] if a.HasField('g') else []) + list(a.graphs):
                dn, ds = count(sub); n += dn; s += ds
    return n, s
print(*count(onnx.load(sys.argv[1], load_external_data=False).graph))
PY
}
printf '%-12s %-16s %7s %9s %8s %10s %s\n' model batch input kiln_O1 shapes ort_basic verify
for model in resnet50 mobilenetv2 bert llama ernie; do
  variants="static symbolic"
  case $model in bert|llama|ernie) variants="static symbolic symbolic+seq" ;; esac
  for variant in $variants; do
    args=(--batch "${variant%%+*}")
    [ "$variant" = symbolic+seq ] && args+=(--dynamic-seq)
    f="$work/$model-$variant.onnx"
    /usr/bin/python3 "$here/../models/gen_models.py" "$model" "${args[@]}" --out "$f" >/dev/null
    "$kiln" compile "$f" -o "$work/k.onnx" --oo.level=O1 --log-level=error 2>/dev/null
    read -r n_in _ < <(nodes "$f")
    read -r n_k shapes < <(nodes "$work/k.onnx")
    n_o="-"
    if node "$ort" optimize "$f" "$work/o.onnx" --level basic >/dev/null 2>&1; then read -r n_o _ < <(nodes "$work/o.onnx"); fi
    if "$kiln" verify "$f" "$work/k.onnx" --dim batch=2 --dim sequence=100 --dim seq_len=100 --seed 1 >/dev/null 2>&1
    then v=match; else v=MISMATCH; fi
    printf '%-12s %-16s %7s %9s %8s %10s %s\n' "$model" "$variant" "$n_in" "$n_k" "$shapes" "$n_o" "$v"
  done
done
