#!/usr/bin/env bash
# Whether two Kiln builds give the same result on every model at hand: both compile each of the libonnx-testdata
# models (/usr/share/libonnx-testdata/data/*/*/model.onnx) and the models given, at LEVEL; the exit codes must be
# equal and, where both wrote a model, the files byte-identical. Prints each model that differs, then the count;
# exits 1 when any does. For a change meant to leave every output as it was (a data-structure change, a faster pass).
#   bench/compile/same_outputs.sh OLD_BUILD NEW_BUILD LEVEL [MODEL.onnx ...]
# A build is a directory holding bin/kiln, as for ab.sh. About two minutes a level on 2 cores.
set -uo pipefail
[ $# -ge 3 ] || { sed -n '2,7p' "$0"; exit 2; }
old=$1 new=$2 level=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 differ=0
for f in /usr/share/libonnx-testdata/data/*/*/model.onnx "$@"; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  rm -f "$work/a.onnx" "$work/b.onnx"
  "$old/bin/kiln" compile "$f" -o "$work/a.onnx" --oo.level="$level" >/dev/null 2>&1; ra=$?
  "$new/bin/kiln" compile "$f" -o "$work/b.onnx" --oo.level="$level" >/dev/null 2>&1; rb=$?
  if [ $ra != $rb ]; then
    differ=$((differ + 1)); echo "exit code $ra -> $rb: $f"
  elif [ -f "$work/a.onnx" ] && ! cmp -s "$work/a.onnx" "$work/b.onnx"; then
    differ=$((differ + 1)); echo "output differs: $f"
  fi
done
echo "$level: $n models, $differ differ"
[ $differ = 0 ]
