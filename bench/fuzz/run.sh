#!/usr/bin/env bash
# Runs Kiln's libFuzzer harnesses (tests/fuzz) from a fuzz build and prints each one's execution count.
#
#   bench/fuzz/run.sh [HARNESS...]        (default: all four; `make fuzz` builds them first)
#
# Environment:
#   FUZZ_BUILD=build-fuzz   the fuzz build folder (cmake -DKILN_FUZZ=ON with clang)
#   FUZZ_SECONDS=300        how long each harness runs (-max_total_time)
#   FUZZ_PARALLEL=1         how many harnesses run at once (each is one process: the machine may be shared)
#   FUZZ_ARGS=              more libFuzzer flags
#
# Seed corpora are made under $FUZZ_BUILD/fuzz/seeds/: the ONNX test data's models of 64 KiB or less (model
# loader, differential compile), configs/pipelines/*.yaml (pipeline loader), configs/fusion/*.yaml (fusion packs),
# plus each harness's regression inputs (tests/fuzz/regressions/). The corpora libFuzzer grows stay in
# $FUZZ_BUILD/fuzz/corpus/ between runs; crashes go to $FUZZ_BUILD/fuzz/artifacts/<harness>/, logs to
# $FUZZ_BUILD/fuzz/logs/<harness>.log. Exits 1 when a harness found something (its log names the input).
set -euo pipefail
cd "$(dirname "$0")/../.."
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-300}
FUZZ_PARALLEL=${FUZZ_PARALLEL:-1}
FUZZ_ARGS=${FUZZ_ARGS:-}
TESTDATA=/usr/share/libonnx-testdata/data
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(model_loader pipeline_loader fusion_pack compile_diff)

work=$FUZZ_BUILD/fuzz
mkdir -p "$work"/{seeds,corpus,artifacts,logs}

# Seeds, rebuilt each run (cheap): one file per source, named after its path.
seed() {  # seed HARNESS FILE...
  local dir=$work/seeds/$1
  shift
  rm -rf "$dir" && mkdir -p "$dir"
  for f in "$@"; do
    local name=${f//\//_}
    cp "$f" "$dir/${name##_}"
  done
}
mapfile -t models < <(find "$TESTDATA" -name model.onnx -size -65k | sort)
for h in "${harnesses[@]}"; do
  case $h in
    model_loader | compile_diff) seed "$h" "${models[@]}" ;;
    pipeline_loader) seed "$h" configs/pipelines/*.yaml ;;
    fusion_pack) seed "$h" configs/fusion/*.yaml ;;
    *) echo "unknown harness $h" >&2; exit 2 ;;
  esac
  cp tests/fuzz/regressions/"$h"/* "$work/seeds/$h/" 2>/dev/null || true
done

# ASan: big allocations fail (std::bad_alloc, which the harnesses treat as "too large") instead of ending the
# run; leaks are reported. UBSan: every report is fatal, with a stack.
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:max_allocation_size_mb=1024:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_one() {
  local h=$1 bin=$FUZZ_BUILD/tests/fuzz/${1}_fuzzer
  mkdir -p "$work/corpus/$h" "$work/artifacts/$h"
  local start=$(date +%s)
  set +e
  "$bin" "$work/corpus/$h" "$work/seeds/$h" -max_total_time="$FUZZ_SECONDS" -timeout=30 -rss_limit_mb=4096 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/artifacts/$h/" $FUZZ_ARGS >"$work/logs/$h.log" 2>&1
  local rc=$?
  set -e
  local runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/logs/$h.log" | grep -o '[0-9]*$' | tail -1)
  echo "$h: ${runs:-?} executions in $(( $(date +%s) - start )) s, exit $rc (log $work/logs/$h.log)"
  return $rc
}

status=0
running=0
for h in "${harnesses[@]}"; do
  run_one "$h" || echo "$h: FOUND SOMETHING, see $work/logs/$h.log and $work/artifacts/$h/" &
  running=$((running + 1))
  if [ "$running" -ge "$FUZZ_PARALLEL" ]; then wait -n || status=1; running=$((running - 1)); fi
done
wait || status=1
for h in "${harnesses[@]}"; do
  grep -l 'ERROR: libFuzzer\|SUMMARY: \(Address\|Undefined\|Leak\)Sanitizer\|==ERROR' "$work/logs/$h.log" && status=1
done
exit $status
