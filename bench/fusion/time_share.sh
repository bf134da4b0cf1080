#!/usr/bin/env bash
# Issue 10's time budget: the generated 100,000-node chain compiled at O2, whole process, RUNS times; prints each
# run's total and the fusion passes' seconds (PatternFusionPass + AutoFusionPass from the report), and the medians
# with fusion's share of the compile (target: under 10%).
#   bench/fusion/time_share.sh [BUILD_DIR] [RUNS] [NODES]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
runs=${2:-5}
nodes=${3:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$here/../models/gen_models.py" chain --nodes "$nodes" --out "$work/chain.onnx" >/dev/null
totals=(); fusions=()
for i in $(seq "$runs"); do
  start=$(date +%s.%N)
  "$build/bin/kiln" compile "$work/chain.onnx" -o "$work/out.onnx" --report "$work/r.json" --log-level=error 2>/dev/null
  end=$(date +%s.%N)
  t=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
  f=$(/usr/bin/python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))
print(sum(p['seconds'] for s in r['stages'] for p in s['passes'] if p['name'] in ('PatternFusionPass','AutoFusionPass')))" "$work/r.json")
  totals+=("$t"); fusions+=("$f")
  printf 'run %d: compile %.3f s, fusion %.3f s\n' "$i" "$t" "$f"
done
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mt=$(med "${totals[@]}"); mf=$(med "${fusions[@]}")
awk -v t="$mt" -v f="$mf" -v n="$runs" 'BEGIN { printf "median of %d runs: compile %.3f s, fusion %.3f s (%.1f%% of the compile; target < 10%%)\n", n, t, f, 100 * f / t }'
