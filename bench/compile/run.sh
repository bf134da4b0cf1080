#!/usr/bin/env bash
# Issue 12's scaling benchmark: whole-process `kiln compile` at O0..O3 on generated chains of 1k..1M nodes and on
# the bench models, beside ONNX Runtime's session creation at `basic` and `all` on the same files in the same run.
# For each model and level: median wall seconds of RUNS, microseconds per node of the whole process and of the
# compile alone (the report's total, without the process's start and plugin loading), InferShapePass's share of the
# compile (from the report), peak RSS against the model file's bytes (target: <= 1.5 x file + 200 MB). At the end,
# for each generated family and level run at two sizes or more, how far each size's time per node lies from the
# median (target: within +-50% from 1k to 1M nodes).
#   bench/compile/run.sh [BUILD_DIR] [RUNS] [SIZES] [LEVELS]
#   defaults: build, 3, "1000 10000 100000 1000000", "O0 O1 O2 O3"; SKIP_ORT=1 leaves the ORT columns out,
#   MODELS="resnet50 bert" overrides the bench models (empty: chains only), CHAINS the generated graphs (default
#   "chain foldchain": the second has a quarter of its nodes folded, bench/models/README.md).
# Beside the whole process, warm_s is the median build of the same model compiled RUNS more times inside one process
# through the embedding API (bench_warm_compile, after a first build reported apart): like ORT's session creation it
# leaves out the process's start, which `kiln compile` pays on every file. Left out ("-") above WARM_MAX_NODES
# nodes (default 200000) and with WARM=0. KILN_ARGS adds arguments to every `kiln compile` (the warm column is
# left out then): KILN_ARGS=--fusion.mode=auto with LEVELS O3 times AutoFusionPass alone on the chains.
# Under each model's line, per level: the median seconds of the report's load, optimize and write phases and of the
# PASS_TOP (default 6) passes that took the most, with their share of the whole process; then, from the last run's
# report, the resident memory after load, the peak, and the four steps that raised the peak most.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
runs=${2:-3}
sizes=${3:-1000 10000 100000 1000000}
levels=${4:-O0 O1 O2 O3}
models=${MODELS-resnet50 mobilenetv2 bert llama ernie}
chains=${CHAINS-chain foldchain}
ort="$here/../../../shared/tools/ort/ort.js"
[ -f "$ort" ] || ort=/work/shared/tools/ort/ort.js
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gen=/usr/bin/python3
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

files=()
declare -A family  # a generated chain's file -> its family, for the flatness summary
for c in $chains; do
  for n in $sizes; do
    "$gen" "$here/../models/gen_models.py" "$c" --nodes "$n" --out "$work/$c$n.onnx" >/dev/null
    files+=("$work/$c$n.onnx")
    family[$work/$c$n.onnx]=$c
  done
done
for m in $models; do
  "$gen" "$here/../models/gen_models.py" "$m" --out "$work/$m.onnx" >/dev/null
  files+=("$work/$m.onnx")
done

printf '%-16s %9s %7s %5s %9s %8s %8s %7s %9s %9s %9s %7s %8s %7s\n' model nodes MB level kiln_s us/node c_us/node \
  shape% rss_MB rss_cap ort_all_s ratio warm_s w_ratio
: > "$work/per_node"
for f in "${files[@]}"; do
  name=$(basename "$f" .onnx)
  bytes=$(stat -c %s "$f")
  nodes=$("$build/bin/kiln" info "$f" 2>/dev/null | awk '/^nodes/ {print $2; exit}')
  [ -n "$nodes" ] || nodes=$("$gen" -c "import onnx,sys; print(len(onnx.load(sys.argv[1], load_external_data=False).graph.node))" "$f")
  ort_all=-; ort_basic=-
  if [ -z "${SKIP_ORT:-}" ] && [ -f "$ort" ]; then
    # ORT's median session creation in seconds, or "-" with its message on stderr (not set up, a model it refuses).
    ort_time() {
      local out ms
      if ! out=$(node "$ort" time "$f" --level "$1" --reps "$runs" 2>&1); then
        echo "ort.js time $name --level $1 failed: $(printf '%s' "$out" | tail -1)" >&2
        echo -; return
      fi
      ms=$(printf '%s\n' "$out" | sed -n 's/.*create_ms_median=\([0-9.]*\).*/\1/p')
      [ -n "$ms" ] && awk -v m="$ms" 'BEGIN { printf "%.3f", m / 1000 }' || echo -
    }
    ort_all=$(ort_time all)
    ort_basic=$(ort_time basic)
  fi
  for lvl in $levels; do
    ts=(); rss=(); shares=(); compiles=(); : > "$work/passes.jsonl"
    for i in $(seq "$runs"); do
      # The previous run's output is removed first, untimed: replacing a file frees its blocks, which on a
      # filesystem mounted with `discard` (this VM's ext4) costs about 50 ms per 100 MB, the filesystem's work
      # and not the compile's (ORT's session creation writes nothing).
      rm -f "$work/out.onnx"
      # Wall seconds and peak RSS (KB) of the kiln process alone, from posix_spawn to wait4 (bench_spawn_time: a
      # clock in bash also counted bash's fork of itself and GNU time's start, bench/compile/spawn_time.cc).
      # shellcheck disable=SC2086  # KILN_ARGS is a list of arguments
      "$build/bin/bench_spawn_time" -o "$work/time" "$build/bin/kiln" compile "$f" -o "$work/out.onnx" \
        --oo.level="$lvl" --report "$work/r.json" --log-level=error ${KILN_ARGS-} >/dev/null 2>"$work/err" ||
        { echo "kiln compile $name $lvl failed:"; cat "$work/err"; exit 1; }
      read -r t m < "$work/time"
      ts+=("$t"); rss+=("$m")
      # From the report: InferShapePass's share of the whole process, and the compile alone (its total: load,
      # passes, write, without the process's start and plugins); every pass's seconds (and the load, optimize and
      # write phases) appended to passes.jsonl for the per-pass line below.
      read -r share compile <<< "$("$gen" -c "
import json,sys; r=json.load(open(sys.argv[1]))
per={}
for s in r['stages']:
    for p in s['passes']: per[p['name']]=per.get(p['name'],0)+p['seconds']
for k in ('load','optimize','write'): per['['+k+']']=r['seconds'].get(k,0)
open(sys.argv[3],'a').write(json.dumps(per)+'\\n')
print(100*per.get('InferShapePass',0)/float(sys.argv[2]) if float(sys.argv[2])>0 else 0, r['seconds']['total'])" \
        "$work/r.json" "$t" "$work/passes.jsonl")"
      shares+=("$share"); compiles+=("$compile")
    done
    mt=$(med "${ts[@]}"); mr=$(med "${rss[@]}"); ms=$(med "${shares[@]}"); mc=$(med "${compiles[@]}")
    warm=-
    if [ "${WARM:-1}" != 0 ] && [ -z "${KILN_ARGS-}" ] && [ "$nodes" -le "${WARM_MAX_NODES:-200000}" ]; then
      out=$("$build/bin/bench_warm_compile" "$f" "$((runs + 1))" "$lvl" 2>"$work/err") ||
        { echo "bench_warm_compile $name $lvl failed:"; cat "$work/err"; exit 1; }
      warm=$(printf '%s\n' "$out" | sed -n 's/.*warm_median_ms=\([0-9.]*\).*/\1/p' |
        awk '{ printf "%.4f", $1 / 1000 }')
    fi
    awk -v n="$name" -v nodes="$nodes" -v b="$bytes" -v l="$lvl" -v t="$mt" -v r="$mr" -v s="$ms" -v o="$ort_all" \
      -v w="$warm" -v c="$mc" '
      BEGIN { cap = 1.5 * b / 1048576 + 200; ratio = (o == "-" || o == 0) ? "-" : sprintf("%.2f", t / o)
              wratio = (o == "-" || o == 0 || w == "-") ? "-" : sprintf("%.2f", w / o)
              printf "%-16s %9d %7.1f %5s %9.3f %8.2f %8.2f %7.1f %9.0f %9.0f %9s %7s %8s %7s\n", n, nodes,
                     b / 1048576, l, t, 1e6 * t / nodes, 1e6 * c / nodes, s, r / 1024, cap, o, ratio, w, wratio }'
    # Per pass: the median seconds over the runs of the phases and of the passes that took the most, with their
    # share of the whole process (PASS_TOP of them, default 6).
    "$gen" -c "
import json,sys,statistics
runs=[json.loads(l) for l in open(sys.argv[1]) if l.strip()]
names=set().union(*runs)
med={n: statistics.median(r.get(n,0) for r in runs) for n in names}
whole=float(sys.argv[2]); top=int(sys.argv[3])
phases=' '.join('%s %.3f s'%(k[1:-1],med[k]) for k in ('[load]','[optimize]','[write]') if k in med)
passes=sorted((n for n in names if not n.startswith('[')), key=lambda n: -med[n])[:top]
print('  %s: %s | %s'%(sys.argv[4], phases, ', '.join('%s %.3f s (%.0f%%)'%(n,med[n],100*med[n]/whole) for n in passes)))
" "$work/passes.jsonl" "$mt" "${PASS_TOP:-6}" "$lvl"
    # Memory, from the last run's report: resident after load, the peak, and the steps that raised the peak most.
    "$gen" -c "
import json,sys
r=json.load(open(sys.argv[1])); mem=r.get('memory')
if mem:
    MB=lambda b: b/1048576
    steps=[(s['bytes'],'+'.join(s['passes'])) for st in r['stages'] for s in st.get('peak_rss_raised_by',[])]
    steps.sort(reverse=True)
    print('  %s memory: %.0f MB after load, peak %.0f MB | raised by %s'%(sys.argv[2], MB(mem['rss_bytes']['load']),
          MB(mem['peak_rss_bytes']['write']), ', '.join('%s +%.0f MB'%(n,MB(b)) for b,n in steps[:4]) or 'none'))
" "$work/r.json" "$lvl"
    # A generated chain's figures per node, for the flatness summary below.
    [ -z "${family[$f]-}" ] || printf '%s %s %s %s %s\n' "${family[$f]}" "$lvl" "$nodes" "$mt" "$mc" >> "$work/per_node"
  done
  [ "$ort_basic" = - ] || printf '%-16s ORT basic session creation %s s\n' "$name" "$ort_basic"
done
# Time per node across the sizes of each generated family and level (target: flat within +-50%): the spread of the
# whole process's and of the compile's microseconds per node around their median.
"$gen" -c "
import sys,statistics,collections
rows=collections.defaultdict(list)
for line in open(sys.argv[1]):
    fam,lvl,n,t,c=line.split(); rows[(fam,lvl)].append((int(n),1e6*float(t)/int(n),1e6*float(c)/int(n)))
for (fam,lvl),r in sorted(rows.items()):
    if len(r)<2: continue
    r.sort()
    def spread(k):
        v=[x[k] for x in r]; m=statistics.median(v)
        return '%.1f..%.1f us/node, %+.0f%%..%+.0f%% of the median %.1f'%(min(v),max(v),100*(min(v)/m-1),100*(max(v)/m-1),m)
    print('%s %s, %d..%d nodes: whole process %s; compile %s'%(fam,lvl,r[0][0],r[-1][0],spread(1),spread(2)))
" "$work/per_node"
echo "ratio = kiln whole process / ORT session creation at 'all' (target at O2: <= 0.5); rss_cap = 1.5 x file + 200 MB"
echo "c_us/node = the compile alone per node (the report's load, passes and write; no process start or plugins)"
echo "warm_s = median build inside one process (embedding API, bench_warm_compile); w_ratio = warm_s / ORT at 'all'"
