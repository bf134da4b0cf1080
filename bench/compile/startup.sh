#!/usr/bin/env bash
# Where a small model's whole-process `kiln compile` goes (issue 12: whole process <= 0.5 x ORT's session creation,
# which is timed inside ORT's process and so pays no process start). Each line adds one step to the one above and
# prints its median wall time over RUNS rounds (every command in turn in each round, so drift reaches all alike)
# and what the step added:
#   empty program       a C++ program whose main returns at once (exec, the C and C++ runtimes, exit)
#   + kiln's libraries  the same program linked with every library `kiln` needs (its NEEDED entries: ONNX,
#                       protobuf, yaml-cpp, spdlog, mimalloc...): their loading, relocation and static constructors
#   kiln --version      Kiln's own executable: its static constructors and command-line set-up
#   compile 1 node O0   the O0 pipeline: its plugins loaded, a one-node model read, passed through and written
#   compile 1 node O1   the O1 pipeline: the folding plugin and the plugin search path, shape inference
#   compile 1 node O2   the O2 pipeline: the fusion and memory plugins, the fusion packs
# Then, for each MODEL (default: the generated ERNIE layer and MobileNetV2), the whole process at O2 beside the
# compile alone (the report's seconds.total: load, passes, write), and what lies outside it.
#   bench/compile/startup.sh [BUILD_DIR] [RUNS] [MODEL...]     defaults: build, 21; MODEL a file or a bench model name
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
runs=${2:-21}
shift $(($# < 2 ? $# : 2))
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(ernie mobilenetv2)
kiln="$build/bin/kiln"
spawn="$build/bin/bench_spawn_time"
for f in "$kiln" "$spawn"; do
  [ -x "$f" ] || { echo "startup.sh: $f not found (build first)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gen=/usr/bin/python3
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# The two empty programs, the second linked (--no-as-needed) with exactly the libraries kiln's executable needs.
echo 'int main() { return 0; }' > "$work/empty.cc"
needed=$(readelf -d "$kiln" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/-l:\1/p' | tr '\n' ' ')
g++ -O2 "$work/empty.cc" -o "$work/empty"
# shellcheck disable=SC2086  # one word per library
g++ -O2 "$work/empty.cc" -o "$work/empty_libs" -Wl,--no-as-needed $needed

"$gen" "$here/../models/gen_models.py" chain --nodes 1 --out "$work/one.onnx" >/dev/null
files=()
for m in "${models[@]}"; do
  if [ -f "$m" ]; then
    files+=("$m")
  else
    "$gen" "$here/../models/gen_models.py" "$m" --out "$work/$m.onnx" >/dev/null
    files+=("$work/$m.onnx")
  fi
done

steps=("empty program" "+ kiln's libraries" "kiln --version"
       "compile 1 node O0" "compile 1 node O1" "compile 1 node O2")
commands=("$work/empty" "$work/empty_libs" "$kiln --version"
          "$kiln compile $work/one.onnx -o $work/one_O0.onnx --oo.level=O0"
          "$kiln compile $work/one.onnx -o $work/one_O1.onnx --oo.level=O1"
          "$kiln compile $work/one.onnx -o $work/one_O2.onnx --oo.level=O2")
declare -A wall compile
# Runs the command twice in a row and prints the second run's wall seconds: a process started just after a different
# one (kiln --version after the empty program, an O0 compile after --version) was measured up to 3 ms slower or
# faster than after itself, by what the one before left to the kernel. Each command writes its own output: replacing
# another model's output would add the removal of that file.
twice() {
  for pass in 1 2; do
    "$spawn" -o "$work/t" "$@" >/dev/null 2>&1 || { echo "startup.sh: failed: $*" >&2; exit 1; }
  done
  cut -d' ' -f1 "$work/t"
}
for ((r = 0; r < runs; r++)); do
  for i in "${!commands[@]}"; do
    # shellcheck disable=SC2086  # the command's words
    wall[$i]+="$(twice ${commands[$i]}) "
  done
  for j in "${!files[@]}"; do
    wall[m$j]+="$(twice "$kiln" compile "${files[$j]}" -o "$work/out$j.onnx" --oo.level=O2 \
      --report "$work/r.json") "
    compile[$j]+="$("$gen" -c 'import json,sys; print(json.load(open(sys.argv[1]))["seconds"]["total"])' \
      "$work/r.json") "
  done
done

ms() { awk -v s="$(med "$@")" 'BEGIN {printf "%.2f", s * 1000}'; }  # the median of seconds, in ms
echo "$(uname -r), $(nproc) CPUs, $runs rounds; medians in ms"
printf '%-22s %9s %9s\n' step wall_ms added_ms
prev=-
for i in "${!steps[@]}"; do
  # shellcheck disable=SC2086
  t=$(ms ${wall[$i]}) add=-
  [ "$prev" = - ] || add=$(awk -v a="$t" -v b="$prev" 'BEGIN {printf "%+.2f", a - b}')
  printf '%-22s %9s %9s\n' "${steps[$i]}" "$t" "$add"
  prev=$t
done
echo
printf '%-22s %9s %9s %9s\n' "model (O2)" wall_ms compile_ms outside
for j in "${!files[@]}"; do
  # shellcheck disable=SC2086
  w=$(ms ${wall[m$j]}) c=$(ms ${compile[$j]})
  outside=$(awk -v a="$w" -v b="$c" 'BEGIN {printf "%.2f", a - b}')
  printf '%-22s %9s %9s %9s\n' "$(basename "${files[$j]}" .onnx)" "$w" "$c" "$outside"
done
