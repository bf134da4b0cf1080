#!/usr/bin/env bash
# Issue 12's fuzz figure: shape inference over mutated ONNX node models (tests/shape/shape_fuzz.cc), in JOBS
# processes of ITERATIONS/JOBS models each with different seeds; any crash or hang fails the run. Prints each
# process's summary and the total.
#   bench/shape_fuzz/run.sh [BUILD_DIR] [ITERATIONS] [JOBS]     (defaults: build, 1000000, 2; SEED_BASE=K seeds K+1..)
set -euo pipefail
build=${1:-build}
total=${2:-1000000}
jobs=${3:-2}
per=$(( (total + jobs - 1) / jobs ))
pids=()
for j in $(seq 1 "$jobs"); do
  timeout 7200 "$build/tests/shape/shape_fuzz" "$per" "$(( ${SEED_BASE:-0} + j ))" > "/tmp/shape_fuzz.$j.log" 2>&1 & pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=$?; done
cat /tmp/shape_fuzz.*.log
[ "$rc" -eq 0 ] && echo "total: $(( per * jobs )) mutated models, no crash" || echo "FAILED (exit $rc)"
exit "$rc"
