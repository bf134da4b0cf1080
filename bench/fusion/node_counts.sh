#!/usr/bin/env bash
# Issue 10's comparison: for each generated model (ResNet-50, MobileNetV2, BERT-base layer, LLaMA block, PyTorch
# exporter style; static and symbolic batch), the nodes a runtime schedules after Kiln's O2 (a call of a fused
# function counts as one node) beside ONNX Runtime 1.30's `extended` level on the same file in the same run; whether
# Kiln's output passes onnx.checker (full_check), and whether `kiln verify` and ONNX Runtime (running Kiln's output
# against its own run of the input) reproduce the input's outputs. Also the fused functions Kiln wrote.
#   bench/fusion/node_counts.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-build}
kiln="$build/bin/kiln"
ort="$root/../shared/tools/ort/ort.js"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
py=/usr/bin/python3
count() { $py -c "import onnx,sys; m=onnx.load(sys.argv[1], load_external_data=False); print(len(m.graph.node), len(m.functions))" "$1"; }
check() { $py -c "import onnx,sys; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)" "$1" >/dev/null 2>&1 && echo ok || echo FAIL; }
same() { $py "$root/bench/models/compare_outputs.py" "$1" "$2" --rtol 1e-3 --atol 1e-4; }
printf '%-12s %-9s %6s %8s %9s %10s %8s %12s %10s\n' model batch input kiln_O2 functions ort_ext checker kiln_verify ort_run
for model in resnet50 mobilenetv2 bert llama; do
  for batch in static symbolic; do
    f="$work/$model-$batch.onnx"
    $py "$root/bench/models/gen_models.py" "$model" --batch "$batch" --out "$f" >/dev/null
    "$kiln" compile "$f" -o "$work/k.onnx" --oo.level=O2 --log-level=error 2>/dev/null
    read -r n_in _ < <(count "$f")
    read -r n_k n_f < <(count "$work/k.onnx")
    n_o="-"; run="-"
    if node "$ort" optimize "$f" "$work/o.onnx" --level extended >/dev/null 2>&1; then read -r n_o _ < <(count "$work/o.onnx"); fi
    if "$kiln" verify "$f" "$work/k.onnx" --dim batch=2 --seed 1 >/dev/null 2>&1; then v=match; else v=MISMATCH; fi
    rm -rf "$work/in" "$work/ref" "$work/got"
    $py "$root/bench/models/make_inputs.py" "$f" --out-dir "$work/in" --dim batch=2 >/dev/null
    if node "$ort" run "$f" --inputs-dir "$work/in" --output-dir "$work/ref" >/dev/null 2>&1 &&
       node "$ort" run "$work/k.onnx" --inputs-dir "$work/in" --output-dir "$work/got" >/dev/null 2>&1; then
      run=$(same "$work/ref" "$work/got")
    fi
    printf '%-12s %-9s %6s %8s %9s %10s %8s %12s %10s\n' "$model" "$batch" "$n_in" "$n_k" "$n_f" "$n_o" \
      "$(check "$work/k.onnx")" "$v" "$run"
  done
done
