#!/usr/bin/env bash
# End to end: run every shipped quick scene, check every output and its columns, recompute the
# natural map independently (tests/check_outputs.py), check W = H^T M^-1 H and
# q = w + H^T M^-1 f on the captures (tests/check_h5.py), capture -> export --fclib -> solve,
# and byte-identical captures for the same seed (h5diff).
set -u
NCPBENCH=${NCPBENCH:?}
PY=${PYTHON:-/usr/bin/python3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }

"$NCPBENCH" list solvers > "$T/list.txt" || fail "list"
grep -q "pgs" "$T/list.txt" || fail "list lacks pgs"
grep -q "nsn-nm" "$T/list.txt" || fail "list lacks nsn-nm"
"$NCPBENCH" list scenes | grep -q INVALID && fail "a shipped scene is invalid"

have_gnuplot=0; command -v gnuplot >/dev/null && have_gnuplot=1
for scene in box-on-plane incline sphere-stack; do
  out="$T/$scene"
  if ! "$NCPBENCH" run "scenes/$scene.json" --quick --out "$out" --no-progress > "$T/$scene.log" 2>&1; then
    cat "$T/$scene.log"; fail "run $scene"; continue
  fi
  for f in problems.h5 solutions.h5 metrics.csv traces.csv summary.json; do
    [ -s "$out/$f" ] || fail "$scene: missing $f"
  done
  if [ $have_gnuplot = 1 ]; then
    for f in residual_vs_time.png residual_vs_time.svg time_vs_iteration.png time_vs_iteration.svg; do
      [ -s "$out/$f" ] || fail "$scene: missing figure $f"
    done
  fi
  # one row per problem x solver
  nprob=$("$PY" -c "import h5py,sys; print(len(h5py.File(sys.argv[1])['problems']))" "$out/problems.h5")
  nsolv=$(grep -c '"solver":' "$out/summary.json")
  rows=$(($(wc -l < "$out/metrics.csv") - 1))
  [ "$rows" -eq $((nprob * nsolv)) ] || fail "$scene: $rows rows, expected $nprob x $nsolv"
  "$PY" tests/check_outputs.py "$out" || fail "$scene: natural map recomputation"
  "$PY" tests/check_h5.py "$out/problems.h5" > "$T/$scene.h5check" || { cat "$T/$scene.h5check"; fail "$scene: FCLib identities"; }
  # traces: at least one row per solve, header as documented
  head -1 "$out/traces.csv" | grep -q '^problem,solver,iteration,time_ms,al_residual' || fail "$scene: traces header"
done

# capture -> solve (our file) -> export --fclib -> solve (plain FCLib files)
"$NCPBENCH" capture scenes/sphere-stack.json -o "$T/cap1.h5" --quick --seed 7 > /dev/null || fail "capture"
"$NCPBENCH" capture scenes/sphere-stack.json -o "$T/cap2.h5" --quick --seed 7 > /dev/null || fail "capture 2"
# same seed -> identical problem data (h5diff compares every dataset and attribute)
h5diff "$T/cap1.h5" "$T/cap2.h5" > "$T/h5diff.txt" 2>&1 || { head "$T/h5diff.txt"; fail "captures differ for the same seed"; }
"$NCPBENCH" solve "$T/cap1.h5" --out "$T/solve1" --no-progress --no-figures > /dev/null || fail "solve our file"
"$NCPBENCH" export --fclib "$T/fclib" "$T/cap1.h5" > "$T/export.txt" || fail "export"
nf=$(ls "$T/fclib"/*.hdf5 2>/dev/null | wc -l)
[ "$nf" -ge 1 ] || fail "export wrote no FCLib file"
"$NCPBENCH" solve "$T"/fclib/*.hdf5 --out "$T/solve2" --no-progress --no-figures --solvers nsn-nm > /dev/null || fail "solve FCLib files"
# the exported problems are the same problems: nsn-nm converges on all of them
if [ -f "$T/solve2/metrics.csv" ]; then
  nconv=$(awk -F, 'NR>1 && $4==1' "$T/solve2/metrics.csv" | wc -l)
  [ "$nconv" -eq "$nf" ] || fail "nsn-nm converged on $nconv of $nf exported FCLib problems"
fi
# plot an existing directory again
if [ $have_gnuplot = 1 ]; then
  rm -f "$T/incline/residual_vs_time.png"
  "$NCPBENCH" plot "$T/incline" > /dev/null || fail "plot"
  [ -s "$T/incline/residual_vs_time.png" ] || fail "plot did not redraw"
fi
# gnuplot missing: figures skipped with one message, everything else written
PATH=/nonexistent "$NCPBENCH" run scenes/incline.json --quick --out "$T/nognuplot" --no-progress > "$T/ng.log" 2>&1 || fail "run without gnuplot"
grep -q "gnuplot" "$T/ng.log" || fail "no message about missing gnuplot"
[ -s "$T/nognuplot/metrics.csv" ] || fail "run without gnuplot lost metrics.csv"

# Ctrl-C: finished rows are kept, files are closed and readable, exit 130
( "$NCPBENCH" run scenes/sphere-stack.json --out "$T/intr" --tol 0 --max-iter 20000 --no-traces \
    --no-figures > "$T/intr.log" 2>&1; echo $? > "$T/intr.rc" ) &
for i in $(seq 1 600); do
  [ -f "$T/intr/metrics.csv" ] && [ "$(wc -l < "$T/intr/metrics.csv")" -ge 3 ] && break
  sleep 0.1
done
pkill -INT -f -- "--out $T/intr" || fail "could not interrupt the run"
wait
[ "$(cat "$T/intr.rc")" = 130 ] || fail "interrupted run exit $(cat "$T/intr.rc"), want 130"
grep -q '"interrupted":[[:space:]]*true' "$T/intr/summary.json" || fail "summary.json does not say interrupted"
rows=$(($(wc -l < "$T/intr/metrics.csv") - 1))
[ "$rows" -ge 2 ] || fail "interrupted run kept $rows rows"
"$PY" -c "
import h5py, sys
f = h5py.File(sys.argv[1], 'r')
n = sum(len(f['solutions'][s]) for s in f['solutions'])
sys.exit(0 if n == int(sys.argv[2]) else 1)" "$T/intr/solutions.h5" "$rows" || fail "solutions.h5 of the interrupted run does not hold its $rows rows"

echo "e2e: $fails failure(s)"
[ $fails -eq 0 ]
