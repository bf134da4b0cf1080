#!/usr/bin/env bash
# Issue 2's driver benchmark: a generated 100,000-node graph compiled with `kiln compile --oo.level=O0
# --verify-each` and a no-op node pass (load, walk, verify, write). Prints each whole-process time and the
# median of RUNS runs. Target: median under 1 s on the project's 2-core machine.
#   bench/driver/run.sh [BUILD_DIR] [RUNS] [NODES]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
runs=${2:-5}
nodes=${3:-100000}
kiln="$build/bin/kiln"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$here/../models/gen_models.py" chain --nodes "$nodes" --out "$work/chain.onnx" >/dev/null
"$kiln" info "$work/chain.onnx" | sed -n 's/^nodes: /graph nodes: /p'
times=()
for i in $(seq "$runs"); do
  start=$(date +%s.%N)
  "$kiln" compile "$work/chain.onnx" -o "$work/out.onnx" --pipeline "$here/noop_o0.yaml" --verify-each \
    --log-level=error 2>/dev/null
  end=$(date +%s.%N)
  t=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
  times+=("$t")
  printf 'run %d: %.3f s\n' "$i" "$t"
done
median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
printf 'median of %d runs: %.3f s (target < 1 s)\n' "$runs" "$median"
