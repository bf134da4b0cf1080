#!/usr/bin/env bash
# A/B of two Kiln builds on one model: runs `kiln compile` with each in turn, RUNS times (alternating, so that the
# machine's drift falls on both alike), and prints each build's median and minimum wall seconds and median max RSS
# (whole process, from GNU time), and whether the last outputs are byte-identical.
#   bench/compile/ab.sh OLD_BUILD NEW_BUILD MODEL [RUNS] [LEVEL] [-- extra kiln compile arguments]
#   e.g. bench/compile/ab.sh /tmp/before build /tmp/chain1000000.onnx 3 O2
# A build is a directory holding bin/kiln (its plugins beside it, as a build tree or an install has them); copy one
# aside (cp -r build/bin build/lib /tmp/before) before rebuilding. Needs /usr/bin/time (Debian: apt-get install
# time). Models: bench/models/gen_models.py (e.g. `chain --nodes 1000000 --out F`).
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,9p' "$0"; exit 2; }
old=$1 new=$2 model=$3 runs=${4:-5} level=${5:-O2}
shift $(($# < 5 ? $# : 5))
[ "${1:-}" = "--" ] && shift
[ -x /usr/bin/time ] || { echo "ab.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in $(seq "$runs"); do
  for side in old new; do
    dir=$old; [ $side = new ] && dir=$new
    rm -f "$work/$side.onnx"
    if ! /usr/bin/time -f "%e %M" -o "$work/t" "$dir/bin/kiln" compile "$model" -o "$work/$side.onnx" \
        --oo.level="$level" "$@" >/dev/null 2>"$work/$side.err"; then
      echo "$side build failed:" >&2; cat "$work/$side.err" >&2; exit 1
    fi
    tail -n 1 "$work/t" >> "$work/$side.times"
  done
done
# The median of column $2 of file $1 (the upper one of an even count), and its minimum.
median() { sort -n -k"$2","$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { printf "%s %s\n", v[int(NR / 2) + 1], v[1] }'; }
for side in old new; do
  read -r t tmin < <(median "$work/$side.times" 1)
  read -r m _ < <(median "$work/$side.times" 2)
  awk -v s=$side -v t="$t" -v tmin="$tmin" -v m="$m" -v n="$runs" \
    'BEGIN { printf "%s: wall median %.3f s (min %.3f)  max RSS median %.1f MB  runs %d\n", s, t, tmin, m / 1024, n }'
done
cmp -s "$work/old.onnx" "$work/new.onnx" && echo "outputs identical" || echo "OUTPUTS DIFFER"
