#!/usr/bin/env bash
# Issue 14's target formats and intermediate memory: the generated ResNet-50 and MobileNetV2 (static batch 1) with
# the Ascend target ascend910b1, compiled at O0 (plus a memory plan: a pipeline extending O0 with the Build stage)
# and at O3 with TargetFormatPass switched off (--oo.targetFormats=false) and on. For each: the bytes the
# intermediates take each in memory of its own and the planned arena (MemoryPlanningPass), against O0; the target's
# tasks and bytes through HBM between tasks (its trace summary); the format conversions written (kiln.format To/From
# calls) and the ops running blocked; onnx.checker (full_check); `kiln verify` against the input; and ONNX Runtime
# running input and output on the same data (skipped when ../shared/tools/ort is not installed).
#   bench/layout/formats.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-build}
kiln="$build/bin/kiln"
ort="$root/../shared/tools/ort/ort.js"
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target=ascend910b1

cat >"$work/O0-plan.yaml" <<'YAML'
extends: O0
plugins: [memory]
stages:
  - name: Build
    passes: [InferShapePass, MemoryPlanningPass]
YAML

plan() { $py -c "
import json, sys
p = json.load(open(sys.argv[1]))
print(p['intermediate_bytes'], p['arena_bytes'])" "$1"; }
formats() { $py -c "
import onnx, sys
m = onnx.load(sys.argv[1], load_external_data=False)
conv = sum(n.domain == 'kiln.format' and (n.op_type.startswith('To') or n.op_type.startswith('From'))
           for n in m.graph.node)
blocked = sum(n.domain == 'kiln.format' for n in m.graph.node) - conv
print(conv, blocked)" "$1"; }
checker() { $py -c "import onnx,sys; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)" "$1" \
  >/dev/null 2>&1 && echo ok || echo FAIL; }
same() { $py "$root/bench/models/compare_outputs.py" "$1" "$2" --rtol 1e-4 --atol 1e-4; }

printf '%-12s %-10s %14s %7s %12s %7s %6s %12s %6s %7s %7s %7s %7s\n' model config intermediates vs_O0 arena vs_O0 \
  tasks hbm_bytes conv blocked checker verify ort
for model in resnet50 mobilenetv2; do
  f="$work/$model.onnx"
  $py "$root/bench/models/gen_models.py" "$model" --out "$f" >/dev/null
  $py "$root/bench/models/make_inputs.py" "$f" --out-dir "$work/in" --seed 1 >/dev/null
  have_ort=no
  if node "$ort" run "$f" --inputs-dir "$work/in" --output-dir "$work/ref" >/dev/null 2>&1; then have_ort=yes; fi
  read -r inter0 arena0 < <(
    "$kiln" compile "$f" -o "$work/o0.onnx" --pipeline "$work/O0-plan.yaml" --memory-plan "$work/plan.json" \
      --target "$target" --log-level=error >/dev/null 2>&1
    plan "$work/plan.json")
  for config in O0 O3 O3+formats; do
    case $config in
      O0) args=(--pipeline "$work/O0-plan.yaml") ;;
      O3) args=(--oo.level=O3 --oo.targetFormats=false) ;;
      O3+formats) args=(--oo.level=O3) ;;
    esac
    summary=$("$kiln" compile "$f" -o "$work/out.onnx" "${args[@]}" --target "$target" --memory-plan "$work/plan.json" \
      --log-level=error 2>&1 | grep "target $target:" || true)
    tasks=$(sed -E 's/.*: ([0-9]+) tasks.*/\1/' <<<"$summary")
    hbm=$(sed -E 's/.* ([0-9]+) bytes through HBM.*/\1/' <<<"$summary")
    read -r inter arena < <(plan "$work/plan.json")
    read -r conv blocked < <(formats "$work/out.onnx")
    verify=$("$kiln" verify "$f" "$work/out.onnx" --seed 1 >/dev/null 2>&1 && echo match || echo MISMATCH)
    ortrun="-"
    if [ "$have_ort" = yes ]; then
      rm -rf "$work/got"
      ortrun=$(node "$ort" run "$work/out.onnx" --inputs-dir "$work/in" --output-dir "$work/got" >/dev/null 2>&1 &&
        same "$work/ref" "$work/got" || echo FAIL)
    fi
    printf '%-12s %-10s %14d %+6.0f%% %12d %+6.0f%% %6s %12s %6s %7s %7s %7s %7s\n' "$model" "$config" "$inter" \
      "$($py -c "print(100.0 * ($inter - $inter0) / $inter0)")" "$arena" \
      "$($py -c "print(100.0 * ($arena - $arena0) / $arena0)")" "$tasks" "$hbm" "$conv" "$blocked" \
      "$(checker "$work/out.onnx")" "$verify" "$ortrun"
  done
done
echo
echo "intermediates: every intermediate of the schedule in memory of its own (blocked tensors at their padded size);"
echo "arena: the memory plan's; hbm_bytes: bytes between the target's tasks; conv: To/From conversion calls;"
echo "blocked: ops running in NC1HWC0."
echo "seed 001 (ResNet-50, graph-autofusion): intermediate memory -66%"
