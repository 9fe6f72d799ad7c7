#!/bin/bash
# `ncpbench describe` (app/cmd_describe.c, bench/labels.h): on the shared FCLib samples the
# labels agree with numpy's eigenvalues of W (tests/check_labels.py); CSV and JSON are written;
# a directory holding a bad file describes the others and exits 6 naming it; a bad file alone
# is exit 2 naming it; a `solve` writes labels.csv, summary.json "problem_labels" with the
# contact states at the best answer and "solved by k of n", the results.md section, and
# `figures --from DIR --split-by rank` splits its profiles; a solve over files labels its
# problems from the batches it read, as describe does from a read of its own.
set -u
fail=0
check() { if eval "$1"; then echo "ok: $2"; else echo "FAIL: $2"; fail=1; fi; }
FC=${FCLIB_SAMPLES:-/work/shared/fclib-samples}
if [ ! -f "$FC/Capsules-i125-1213.hdf5" ] || [ ! -f "$FC/Box_Stacks-i0122-82-5.hdf5" ]; then
  echo "skip: the FCLib samples are not in $FC (set FCLIB_SAMPLES)"
  exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$NCPBENCH" describe "$FC" --csv "$T/l.csv" --json "$T/l.json" > "$T/out" 2> "$T/err"
rc=$?
check '[ $rc -eq 0 ]' "describe the samples: exit 0 (got $rc)"
check 'grep -q "2 problems described" "$T/out"' "two problems described"
check '[ "$(head -1 "$T/l.csv" | cut -d, -f1-3)" = "problem,contacts,dofs" ] && [ $(wc -l < "$T/l.csv") -eq 3 ]' "CSV header and rows"
check '$PYTHON -c "import json,sys; a=json.load(open(sys.argv[1])); sys.exit(not (len(a)==2 and a[1][\"rank_exact\"] is True))" "$T/l.json"' "JSON array"
$PYTHON tests/check_labels.py "$T/l.csv" "$FC/Capsules-i125-1213.hdf5" "$FC/Box_Stacks-i0122-82-5.hdf5"
check '[ $? -eq 0 ]' "labels agree with numpy's eigenvalues of W"
# the estimate: rank an upper bound, cond lower bounds (below numpy's exact ones)
"$NCPBENCH" describe "$FC/Capsules-i125-1213.hdf5" --eig-max 100 --csv "$T/e.csv" > "$T/eout" 2>&1
check '[ $? -eq 0 ] && grep -q ",estimate," "$T/e.csv" && grep -q "<" "$T/eout"' "--eig-max 100: the estimate, marked"
check '$PYTHON -c "
import csv,sys
e=next(csv.DictReader(open(sys.argv[1]))); x=next(r for r in csv.DictReader(open(sys.argv[2])) if \"Capsules\" in r[\"problem\"])
sys.exit(not (int(e[\"rank\"])>=int(x[\"rank\"]) and float(e[\"cond_range\"])<=float(x[\"cond_range\"])*(1+1e-9) and abs(float(e[\"lambda_max\"])/float(x[\"lambda_max\"])-1)<1e-6))
" "$T/e.csv" "$T/l.csv"' "estimate: rank >= exact, cond_range <= exact, lambda_max to 1e-6"
# our captures: a box on a plane (one body, n = 6) touching at one corner or along an edge. One
# point contact: W = J A^-1 J^T with J = [I, -[r]x] in the contact frame has rank 3; two points
# r1 != r2 on the same body: rank 3 + rank([r1 - r2]x) = 5 of 6, so W is singular
"$NCPBENCH" capture scenes/box-on-plane.json -o "$T/box.h5" --quick > /dev/null 2>&1
"$NCPBENCH" describe "$T/box.h5" --csv "$T/box.csv" > /dev/null 2>&1
check '[ $? -eq 0 ] && $PYTHON -c "
import csv,sys
rows=list(csv.DictReader(open(sys.argv[1])))
ok=len(rows)>0 and {r[\"contacts\"] for r in rows} <= {\"1\",\"2\"} and all(int(r[\"dofs\"])==6 and int(r[\"rank\"])==(3 if r[\"contacts\"]==\"1\" else 5) and r[\"method\"]==\"eig\" and abs(float(r[\"contact_density\"])-int(r[\"contacts\"])/2)<1e-15 for r in rows)
sys.exit(not ok)
" "$T/box.csv"' "a capture: rank 3 for one contact, 5 of 6 for an edge"
# Siconos .dat problems (with -Dsiconos): described like the others
if "$NCPBENCH" describe tests/data/siconos --csv "$T/dat.csv" > "$T/datout" 2> "$T/daterr"; then
  check '[ $(wc -l < "$T/dat.csv") -eq 5 ] && grep -q "^siconos.GFC3D_TwoRods1,3,54,9," "$T/dat.csv"' "Siconos .dat problems described (global: dofs of M)"
else
  check 'grep -q "Dsiconos" "$T/daterr"' "without -Dsiconos: the option named"
fi
# a directory with a bad file
mkdir "$T/d"
cp "$FC/Box_Stacks-i0122-82-5.hdf5" "$T/d/"
# an FCLib file whose friction coefficients are negative: found as a problem file, refused
cp "$FC/Capsules-i125-1213.hdf5" "$T/d/Cut.hdf5"
chmod u+w "$T/d/Cut.hdf5"
$PYTHON -c "
import h5py,sys
with h5py.File(sys.argv[1], 'r+') as f:
    d = f['fclib_local/vectors/mu']; d[...] = -d[()]
" "$T/d/Cut.hdf5"
printf 'x y\n1 2\n' > "$T/d/notes.dat"
"$NCPBENCH" describe "$T/d" > "$T/dout" 2> "$T/derr"
rc=$?
check '[ $rc -eq 6 ]' "a directory with a bad file: exit 6 (got $rc)"
check 'grep -q "Box_Stacks" "$T/dout" && grep -q "1 problem described; 1 file failed" "$T/dout"' "the good file described"
check 'grep -q "Cut.hdf5 failed to load" "$T/derr" && grep -q "skipped .*notes.dat" "$T/derr"' "the bad file and the skipped one named"
"$NCPBENCH" describe "$T/d/Cut.hdf5" > /dev/null 2> "$T/cerr"
rc=$?
check '[ $rc -eq 2 ] && grep -q "Cut.hdf5" "$T/cerr"' "a bad file alone: exit 2 naming it (got $rc)"
"$NCPBENCH" describe --eig-max 0 "$FC" > /dev/null 2> "$T/uerr"
check '[ $? -eq 2 ] && grep -q "eig-max" "$T/uerr"' "bad option value: exit 2"
# a run's labels: the contact states at the best answer, solved by k of n
"$NCPBENCH" solve "$FC" --solvers nsn-fb,pgs --tol 1e-6 --max-iter 200 --out "$T/o" --fresh --no-traces --no-figures > "$T/sout" 2>&1
check '[ $? -eq 0 ] && [ -f "$T/o/labels.csv" ]' "solve writes labels.csv"
check '$PYTHON -c "
import json,sys
s=json.load(open(sys.argv[1])); L=s[\"problem_labels\"]
ok=len(L)==2 and all(l[\"nsolvers\"]==2 and 0<=l[\"solved_by\"]<=2 and l[\"answer_of\"] in (\"nsn-fb\",\"pgs\") and l[\"stick\"]+l[\"slide\"]+l[\"open\"]==l[\"contacts\"] for l in L)
sys.exit(not ok)
" "$T/o/summary.json"' "summary.json problem_labels: states sum to the contacts, solved by k of 2"
check 'grep -q "## Problems (hardness labels)" "$T/o/results.md"' "results.md Problems section"
"$NCPBENCH" figures --from "$T/o" --split-by rank > "$T/fout" 2>&1
check '[ $? -eq 0 ] && grep -q "rank-deficient" "$T/o/profiles-by-rank.md" && [ -f "$T/o/profiles-by-rank/1/perf_profiles.dat" ]' "figures --from --split-by rank"
# the labels of a solve over files come from the batches the run read (bench.h's batch hooks,
# no file read again): over two batches (the samples and 70 box captures: batches of at
# most 64 problems), the problem's own labels are describe's of the same files (a read of its own),
# and the answer's columns those of metrics.csv (the first row of the lowest stopping metric
# among the rows with an answer; converged rows; rows)
"$NCPBENCH" capture scenes/box-on-plane.json -o "$T/box70.h5" --steps 70 > /dev/null 2>&1
"$NCPBENCH" describe "$FC" "$T/box70.h5" --csv "$T/d70.csv" > /dev/null 2>&1
check '[ $? -eq 0 ]' "describe the samples and 70 box captures"
"$NCPBENCH" solve "$FC" "$T/box70.h5" --solvers pgs,nsn-fb --tol 1e-8 --max-iter 50 --out "$T/o70" --fresh --no-traces --no-figures > "$T/s70" 2>&1
rc=$?
n70=$(( $(wc -l < "$T/d70.csv") - 1 ))
check '[ $rc -eq 0 ] && [ $n70 -gt 64 ] && grep -q "labels: $n70 problems" "$T/s70"' "solve over two batches: $n70 problems labelled"
check '$PYTHON -c "
import csv,math,sys
d={r[\"problem\"]:r for r in csv.DictReader(open(sys.argv[1]))}
L=list(csv.DictReader(open(sys.argv[2])))
M=list(csv.DictReader(open(sys.argv[3])))
own=[\"contacts\",\"dofs\",\"rows\",\"contact_density\",\"rank\",\"rank_ratio\",\"rank_exact\",\"lambda_max\",\"lambda_min\",\"cond\",\"cond_range\",\"mu_min\",\"mu_max\",\"method\"]
bad=len(L)!=len(d) or len(d)<=64 or {l[\"problem\"] for l in L}!=set(d)
for l in L:
    p=l[\"problem\"]; bad|=any(l[c]!=d[p][c] for c in own)
    rows=[m for m in M if m[\"problem\"]==p]
    ans=[m for m in rows if m[\"status\"] not in (\"unsupported\",\"crashed\") and math.isfinite(float(m[\"natural_map_rel_acary\"]))]
    best=min(ans,key=lambda m:float(m[\"natural_map_rel_acary\"])) if ans else None
    bad|=int(l[\"nsolvers\"])!=len(rows) or int(l[\"solved_by\"])!=sum(int(m[\"converged\"]) for m in rows)
    bad|=l[\"answer_of\"]!=(best[\"solver\"] if best else \"\")
    bad|=bool(best) and float(l[\"answer_metric\"])!=float(best[\"natural_map_rel_acary\"])
    bad|=bool(best) and int(l[\"stick\"])+int(l[\"slide\"])+int(l[\"open\"])!=int(l[\"contacts\"])
sys.exit(bad)
" "$T/d70.csv" "$T/o70/labels.csv" "$T/o70/metrics.csv"' "a solve's labels from its batches: describe's own labels, metrics.csv's best answers"
# and no input file is opened again for them: a solve opens each file as often as describe
# does (its reading; strace -f counts the opens of the whole process tree)
if command -v strace > /dev/null && strace -f -o /dev/null true 2> /dev/null; then
  strace -f -e trace=openat -o "$T/st.solve" "$NCPBENCH" solve "$FC" "$T/box70.h5" --solvers pgs --max-iter 5 --out "$T/o71" --fresh --no-traces --no-figures > /dev/null 2>&1
  strace -f -e trace=openat -o "$T/st.describe" "$NCPBENCH" describe "$FC" "$T/box70.h5" > /dev/null 2>&1
  ns=$(grep -c 'box70.h5"' "$T/st.solve"); nd=$(grep -c 'box70.h5"' "$T/st.describe")
  check '[ "$nd" -gt 0 ] && [ "$ns" -eq "$nd" ]' "solve opens box70.h5 as often as describe ($ns, $nd)"
else
  echo "skip: strace (ptrace) not available: the count of opens not checked"
fi
"$NCPBENCH" figures --from "$T/o" --split-by colour > /dev/null 2> "$T/ferr"
check '[ $? -eq 2 ] && grep -q "unknown label" "$T/ferr"' "unknown split label: exit 2"
exit $fail
