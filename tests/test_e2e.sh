#!/usr/bin/env bash
# End to end: run every shipped quick scene, check every output and its columns, recompute the
# natural map independently (tests/check_outputs.py), check W = H^T M^-1 H and
# q = w + H^T M^-1 f on the captures (tests/check_h5.py), capture -> export --fclib -> solve,
# and byte-identical captures for the same seed (h5diff).
. "$(dirname "$0")/shell_prologue.sh"

"$NCPBENCH" list solvers > "$T/list.txt" || fail "list"
grep -q "pgs" "$T/list.txt" || fail "list lacks pgs"
grep -q "nsn-nm" "$T/list.txt" || fail "list lacks nsn-nm"
"$NCPBENCH" list scenes | grep -q INVALID && fail "a shipped scene is invalid"

have_gnuplot=0; command -v gnuplot >/dev/null && have_gnuplot=1
for scene in box-on-plane incline sphere-stack quadruped fourbar-free arm-pick; do
  out="$T/$scene"
  if ! "$NCPBENCH" run "scenes/$scene.json" --quick --out "$out" --no-progress > "$T/$scene.log" 2>&1; then
    cat "$T/$scene.log"; fail "run $scene"; continue
  fi
  for f in problems.h5 solutions.h5 metrics.csv traces.h5 summary.json index.md index.html; do
    [ -s "$out/$f" ] || fail "$scene: missing $f"
  done
  if [ $have_gnuplot = 1 ]; then
    for f in residual_vs_time.png residual_vs_time.svg time_vs_iteration.png time_vs_iteration.svg; do
      [ -s "$out/$f" ] || fail "$scene: missing figure $f"
    done
  fi
  # one row per problem x solver
  nprob=$("$PY" -c "import h5py,sys; print(len(h5py.File(sys.argv[1])['problems']))" "$out/problems.h5")
  nsolv=$("$PY" -c "import json,sys; print(len(json.load(open(sys.argv[1]))['solvers']))" "$out/summary.json")
  rows=$(($(wc -l < "$out/metrics.csv") - 1))
  [ "$rows" -eq $((nprob * nsolv)) ] || fail "$scene: $rows rows, expected $nprob x $nsolv"
  "$PY" tests/check_outputs.py "$out" || fail "$scene: natural map recomputation"
  "$PY" tests/check_h5.py "$out/problems.h5" > "$T/$scene.h5check" || { cat "$T/$scene.h5check"; fail "$scene: FCLib identities"; }
  # traces.h5 read with h5py: one trace per solve, the log sample exactly; no traces.csv unasked
  "$PY" tests/check_traces.py "$out" > "$T/$scene.traces" || { cat "$T/$scene.traces"; fail "$scene: traces.h5"; }
  [ -e "$out/traces.csv" ] && fail "$scene: traces.csv written without --traces-csv"
  # index.md links every figure file there is, and every file it links exists
  for fig in "$out"/*.png "$out"/*.svg; do
    [ -e "$fig" ] || continue
    grep -qF "]($(basename "$fig"))" "$out/index.md" || fail "$scene: index.md lacks $(basename "$fig")"
  done
  for link in $(grep -oE '\]\([^)]+\)' "$out/index.md" | sed 's/^](//; s/)$//'); do
    [ -e "$out/$link" ] || fail "$scene: index.md links a missing $link"
  done
  nsolv_index=$(grep -cE '^\| [a-z0-9-]+ \| .* \| [0-9]+ / [0-9]+ \| ' "$out/index.md")
  [ "$nsolv_index" -eq "$nsolv" ] || fail "$scene: index.md table has $nsolv_index solvers, want $nsolv"
done

# --traces-csv writes the same rows as text too; --trace-every stores every iteration
"$NCPBENCH" run scenes/sphere-stack.json --quick --solvers pgs,nsn-nm --out "$T/tcsv" --no-progress \
  --no-figures --traces-csv --trace-every > /dev/null || fail "run --traces-csv --trace-every"
"$PY" tests/check_traces.py "$T/tcsv" --csv > "$T/tcsv.txt" || { cat "$T/tcsv.txt"; fail "--traces-csv/--trace-every"; }
# an older run's traces.csv alone (no traces.h5) is still read by `ncpbench plot`
mv "$T/tcsv/traces.h5" "$T/tcsv/traces.h5.bak"
"$NCPBENCH" plot "$T/tcsv" > /dev/null 2>&1 || fail "plot from traces.csv"
[ -s "$T/tcsv/fig_time_iter.dat" ] || fail "plot from traces.csv: no fig_time_iter.dat"
# --no-traces: neither file
"$NCPBENCH" run scenes/sphere-stack.json --quick --solvers pgs --out "$T/notr" --no-progress \
  --no-traces --traces-csv > /dev/null || fail "run --no-traces"
ls "$T/notr" | grep -q '^traces' && fail "--no-traces wrote $(ls "$T/notr" | grep '^traces')"

# capture -> solve (our file) -> export --fclib -> solve (plain FCLib files)
"$NCPBENCH" capture scenes/sphere-stack.json -o "$T/cap1.h5" --quick --seed 7 > /dev/null || fail "capture"
"$NCPBENCH" capture scenes/sphere-stack.json -o "$T/cap2.h5" --quick --seed 7 > /dev/null || fail "capture 2"
# same seed -> identical problem data (h5diff compares every dataset and attribute)
h5diff "$T/cap1.h5" "$T/cap2.h5" > "$T/h5diff.txt" 2>&1 || { head "$T/h5diff.txt"; fail "captures differ for the same seed"; }
"$NCPBENCH" solve "$T/cap1.h5" --out "$T/solve1" --no-progress --no-figures > /dev/null || fail "solve our file"
"$NCPBENCH" export --fclib "$T/fclib" "$T/cap1.h5" > "$T/export.txt" || fail "export"
nf=$(ls "$T/fclib"/*.hdf5 2>/dev/null | wc -l)
# problems.h5 holds no D: docs/outputs.md's h5py example rebuilds D = J A^-1 J^T and v_f; they must match
# the W and q ncpbench computed and exported
"$PY" tests/check_doc_h5.py docs/outputs.md "$T/cap1.h5" "$T/fclib/cap1-000000.hdf5" > "$T/doc_h5.txt" \
  || { cat "$T/doc_h5.txt"; fail "docs/outputs.md problems.h5 example"; }
# --store-fclib keeps the FCLib groups in problems.h5: W = H^T M^-1 H, q = w + H^T M^-1 f
"$NCPBENCH" capture scenes/sphere-stack.json -o "$T/capf.h5" --quick --seed 7 --store-fclib > /dev/null || fail "capture --store-fclib"
"$PY" tests/check_h5.py "$T/capf.h5" --min-checked 1 > "$T/capf.txt" || { cat "$T/capf.txt"; fail "--store-fclib: FCLib identities"; }
"$PY" -c "import h5py,sys; g=h5py.File(sys.argv[1])['problems/000000']; sys.exit('fclib_local' in g or 'dual' in g)" "$T/cap1.h5" \
  || fail "problems.h5 without --store-fclib holds fclib_local or dual/"
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
  # results are journaled as they finish (metrics.csv is written at the end: bench/resume.h)
  [ "$("$PY" "$(dirname "$0")/check_same_results.py" --journal "$T/intr" 2> /dev/null || echo 0)" -ge 2 ] && break
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

# performance profiles from fresh quick captures (three small scenes keep CI fast; without
# --scenes the figure sweeps every shipped scene): the data file, the figures when gnuplot
# exists, and the profile recomputed here from the scenes' metrics.csv
prof="$T/figs/profiles"
if "$NCPBENCH" figures --profiles --quick --scenes box-on-plane,incline,sphere-stack \
     --out "$T/figs" > "$T/prof.log" 2>&1; then
  [ -s "$prof/perf_profiles.dat" ] || fail "profiles: no perf_profiles.dat"
  if [ $have_gnuplot = 1 ]; then
    for f in perf_profiles.png perf_profiles.svg; do [ -s "$prof/$f" ] || fail "profiles: missing $f"; done
  fi
  "$PY" - "$prof" box-on-plane incline sphere-stack <<'PYEOF' || fail "profiles: data file disagrees with metrics.csv"
import csv, math, re, sys
d, scenes = sys.argv[1], sys.argv[2:]
times = {}  # (scene, problem) -> {solver: time}
for sc in scenes:
    for r in csv.DictReader(open(f"{d}/{sc}/metrics.csv")):
        t = float(r["setup_ms"]) + float(r["solve_ms"]) if r["converged"] == "1" else math.inf
        times.setdefault((sc, r["problem"]), {})[r["solver"]] = max(t, 1e-6) if t < math.inf else t
solvers = sorted({s for row in times.values() for s in row})
def rho(s, tau):
    k = 0
    for row in times.values():
        best = min(row.values())
        k += row[s] < math.inf and row[s] / best <= tau
    return k / len(times)
text = open(f"{d}/perf_profiles.dat").read()
summ = dict((m[0], list(map(float, m[1:]))) for m in
            re.findall(r"^#\s+(\S+)\s+([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+)$", text, re.M))
blocks = re.findall(r"^# solver: (\S+)$", text, re.M)
ok = sorted(blocks) == solvers and sorted(summ) == solvers
for s in solvers:
    want = [rho(s, math.inf), rho(s, 1), rho(s, 10), rho(s, 100)]
    ok &= all(abs(a - b) <= 6e-5 for a, b in zip(summ.get(s, []), want))
for b in text.split("\n\n\n"):  # rho in [0, 1], non-decreasing, tau from 1 to 100
    rows = [list(map(float, l.split()[2:4])) for l in b.splitlines() if l and not l.startswith("#")]
    ok &= abs(rows[0][0] - 1) < 1e-12 and abs(rows[-1][0] - 100) < 1e-9
    ok &= all(0 <= r[1] <= 1 for r in rows) and all(a[1] <= b[1] for a, b in zip(rows, rows[1:]))
sys.exit(0 if ok else 1)
PYEOF
else
  cat "$T/prof.log"; fail "figures --profiles"
fi

# Lee et al. 2025's tasks alone (--parts: their values and verdicts, and Fig. 11's data file, are
# recomputed by tests/check_study_lee2025.py): the tasks' table per configuration, the other
# parts' claims "not run", Fig. 11 not simulated; an unknown part is refused
if "$NCPBENCH" figures --paper lee2025 --quick --parts tasks --out "$T/fig000" \
     > "$T/fig000.log" 2>&1; then
  for c in paper defaults; do
    d="$T/fig000/lee2025/$c"
    [ -s "$d/tasks/tasks.md" ] || fail "figures --paper lee2025 --parts tasks: no $c/tasks/tasks.md"
    ran=$(awk -F, '$6 != "not run" && NR > 1 { printf "%s ", $2 }' "$d/claims.csv")
    [ "$ran" = "TKa TKb " ] || fail "figures --parts tasks: $c claims run: $ran"
    [ ! -e "$d/fig11-N9-PGS" ] || fail "figures --parts tasks ran Fig. 11"
  done
else
  cat "$T/fig000.log"; fail "figures --paper lee2025 --parts tasks"
fi
"$NCPBENCH" figures --paper lee2025 --parts fig77 --out "$T/fig000q" > "$T/fig000q.log" 2>&1
[ $? -eq 2 ] && grep -q "no part 'fig77'" "$T/fig000q.log" || fail "figures --parts fig77 not refused"

# NCP report 2025 study (quick): the suite's data file and PNG per configuration (every value
# in them is recomputed from metrics.csv by tests/check_study_ncpreport2025.py)
if "$NCPBENCH" figures --paper ncpreport2025 --quick --out "$T/fig004" > "$T/fig004.log" 2>&1; then
  for c in paper defaults; do
    [ -s "$T/fig004/ncpreport2025/$c/suite/accuracy.dat" ] || fail "figures --paper ncpreport2025: no $c/suite/accuracy.dat"
    [ $have_gnuplot = 0 ] || [ -s "$T/fig004/ncpreport2025/$c/suite/ncpreport2025_accuracy.png" ] || fail "figures --paper ncpreport2025: no $c PNG"
  done
else
  cat "$T/fig004.log"; fail "figures --paper ncpreport2025"
fi

echo "e2e: $fails failure(s)"
[ $fails -eq 0 ]
