#!/usr/bin/env bash
# A/B of two Kiln builds on one model: runs `kiln compile` with each in turn, RUNS times (alternating, so that the
# machine's drift falls on both alike), and prints each build's median, lowest quartile and minimum wall time and
# median max RSS (whole process), and whether the last outputs are byte-identical.
#   bench/compile/ab.sh OLD_BUILD NEW_BUILD MODEL [RUNS] [LEVEL] [-- extra kiln compile arguments]
#   e.g. bench/compile/ab.sh /tmp/before build /tmp/chain1000000.onnx 3 O2
# A build is a directory holding bin/kiln (its plugins beside it, as a build tree or an install has them); copy one
# aside (cp -r build/bin build/lib /tmp/before) before rebuilding. Each run is timed by either build's
# bin/bench_spawn_time (posix_spawn to wait4, to the microsecond: a small model's A/B is a question of a
# millisecond), else by GNU time (to 10 ms; Debian: apt-get install time). Models: bench/models/gen_models.py
# (e.g. `chain --nodes 1000000 --out F`).
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,11p' "$0"; exit 2; }
old=$1 new=$2 model=$3 runs=${4:-5} level=${5:-O2}
shift $(($# < 5 ? $# : 5))
[ "${1:-}" = "--" ] && shift
# One clock for both sides: both "SECONDS MAX_RSS_KB".
timer=()
for dir in "$new" "$old"; do
  [ -x "$dir/bin/bench_spawn_time" ] && { timer=("$dir/bin/bench_spawn_time" -o); break; }
done
if [ ${#timer[@]} -eq 0 ]; then
  [ -x /usr/bin/time ] || { echo "ab.sh: needs bin/bench_spawn_time in a build or /usr/bin/time (apt-get install time)" >&2; exit 2; }
  timer=(/usr/bin/time -f "%e %M" -o)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in $(seq "$runs"); do
  for side in old new; do
    dir=$old; [ $side = new ] && dir=$new
    rm -f "$work/$side.onnx"  # a new file each run: replacing one adds the old file's removal
    if ! "${timer[@]}" "$work/t" "$dir/bin/kiln" compile "$model" -o "$work/$side.onnx" \
        --oo.level="$level" "$@" >/dev/null 2>"$work/$side.err"; then
      echo "$side build failed:" >&2; cat "$work/$side.err" >&2; exit 1
    fi
    tail -n 1 "$work/t" >> "$work/$side.times"
  done
done
# Of column $2 of file $1: the median (the upper one of an even count), the lowest quartile and the minimum.
stats() {
  sort -g -k"$2","$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { printf "%s %s %s\n", v[int(NR / 2) + 1], v[int((NR + 3) / 4)], v[1] }'
}
for side in old new; do
  read -r t tq tmin < <(stats "$work/$side.times" 1)
  read -r m _ _ < <(stats "$work/$side.times" 2)
  awk -v s=$side -v t="$t" -v tq="$tq" -v tmin="$tmin" -v m="$m" -v n="$runs" 'BEGIN {
    printf "%s: wall median %.2f ms (lowest quartile %.2f, min %.2f)  max RSS median %.1f MB  runs %d\n",
           s, t * 1000, tq * 1000, tmin * 1000, m / 1024, n }'
done
cmp -s "$work/old.onnx" "$work/new.onnx" && echo "outputs identical" || echo "OUTPUTS DIFFER"
