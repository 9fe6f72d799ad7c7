#!/usr/bin/env bash
# `ncpbench grade PROBLEMS ANSWERS.h5 --into RUN` (bench/grade.h, docs/answers.md) and a run's
# folder rerun with a subset of its solvers (bench/resume.h). Independent checks: the graded
# rows added to a run equal a plain grade of the same answers (a separate computation into
# another folder); the run's own rows are left bit for bit; the results table's SGM of
# iterations is recomputed from metrics.csv with the documented rule; "self-timed" stands
# beside the graded solver's times; refused cases exit 2 and leave the journal untouched; a
# subset rerun solves nothing (the journal's bytes unchanged) and shows the requested rows with
# their stored times. Skipped (77) without numpy + h5py.
. "$(dirname "$0")/shell_prologue.sh"
"$PY" -c 'import h5py, numpy' 2> /dev/null || { echo "SKIP: python3-h5py / python3-numpy missing"; exit 77; }
EX=examples/python/simple_solver.py
R=$T/run
"$NCPBENCH" run scenes/box-on-plane.json --quick --solvers pgs,nsn-nm,apgd --out "$R" \
    --no-progress > /dev/null 2>&1 || { echo "FAIL: the run"; exit 1; }
cp "$R/metrics.csv" "$T/before.csv"
"$PY" "$EX" "$R/problems.h5" "$T/py.h5" > /dev/null || fail "simple_solver.py"
"$PY" "$EX" "$R/problems.h5" "$T/py3.h5" 3 > /dev/null || fail "simple_solver.py 3"

# the same answers graded alone (no --into): the reference of the graded rows
"$NCPBENCH" grade "$R/problems.h5" "$T/py.h5" --out "$T/plain" > "$T/plain.out" 2>&1 \
    || { fail "plain grade"; cat "$T/plain.out"; }
"$NCPBENCH" grade "$R/problems.h5" "$T/py3.h5" --out "$T/plain3" --name py_pgs > /dev/null 2>&1 \
    || fail "plain grade of 3 iterations"

# refused, nothing written: other problems (one friction coefficient changed), a name of the
# run's, options that --into takes from the run, a plain grade over the run's folder
"$PY" - "$R/problems.h5" "$T/other.h5" <<'EOF' || fail "crafting other problems"
import shutil, sys, h5py
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "a") as f:
    mu = f["problems/000002/blocks/mu"]
    mu[0] = mu[0] * 0.5
EOF
sum0=$(md5sum < "$R/journal.ncpj")
refused() { # PATTERN ARGS...
    local pat=$1; shift
    "$NCPBENCH" grade "$@" > "$T/err" 2>&1
    local rc=$?
    [ $rc -eq 2 ] || { fail "exit $rc (want 2): grade $*"; cat "$T/err"; return; }
    grep -qE -- "$pat" "$T/err" || { fail "message lacks /$pat/: grade $*"; cat "$T/err"; }
    [ "$(md5sum < "$R/journal.ncpj")" = "$sum0" ] || fail "the journal changed: grade $*"
    cmp -s "$R/metrics.csv" "$T/before.csv" || fail "metrics.csv changed: grade $*"
}
refused "not the problems of the run.*checksum" "$T/other.h5" "$T/py.h5" --into "$R"
refused "'pgs' is one of the solvers of the run.*--name" "$R/problems.h5" "$T/py.h5" --into "$R" --name pgs
refused "leave out --tol" "$R/problems.h5" "$T/py.h5" --into "$R" --tol 1e-4
refused "leave out --out" "$R/problems.h5" "$T/py.h5" --into "$R" --out "$T/x"
refused "holds a run's results.*--into" "$R/problems.h5" "$T/py.h5" --out "$R"
refused "no such folder" "$R/problems.h5" "$T/py.h5" --into "$T/nosuch"

# graded into the run: first the 3-iteration answers, then the converged ones replace them
"$NCPBENCH" grade "$R/problems.h5" "$T/py3.h5" --into "$R" --name py_pgs > /dev/null 2>&1 \
    || fail "grade --into"
cp "$R/metrics.csv" "$T/into3.csv"
"$NCPBENCH" grade "$R/problems.h5" "$T/py.h5" --into "$R" > "$T/into.out" 2>&1 \
    || { fail "grade --into again"; cat "$T/into.out"; }
"$PY" - "$T/before.csv" "$R" "$T/plain/metrics.csv" "$T/into3.csv" "$T/plain3/metrics.csv" <<'EOF' || fail "the merged run"
import csv, json, math, sys, h5py
before, R, plain, into3, plain3 = sys.argv[1:]
rows = lambda f: list(csv.DictReader(open(f)))
run, got = rows(before), rows(R + "/metrics.csv")
solvers = []
for r in got:
    if r["solver"] not in solvers: solvers.append(r["solver"])
assert solvers == ["pgs", "nsn-nm", "apgd", "py_pgs"], solvers
# the run's own rows are untouched
mine = [r for r in got if r["solver"] != "py_pgs"]
assert mine == run, "the run's rows changed"
# the graded rows equal a grade of the same answers on their own (both: last grade wins)
def same(a, b, what):
    a = {r["problem"]: r for r in rows(a) if r["solver"] == "py_pgs"}
    b = {r["problem"]: r for r in rows(b) if r["solver"] == "py_pgs"}
    assert a and set(a) == set(b), (what, sorted(a), sorted(b))
    for p in a:
        for k in a[p]:
            x, y = a[p][k], b[p][k]
            if x == y: continue
            fx, fy = float(x), float(y)
            assert math.isnan(fx) and math.isnan(fy), (what, p, k, x, y)
    return a
g = same(R + "/metrics.csv", plain, "converged answers")
same(into3, plain3, "3-iteration answers")
assert all(r["note"].startswith("self-timed") for r in g.values())
# the SGM of iterations, recomputed: shift 10, a failure at the run's max_iter
cfg = json.load(open(R + "/config.json"))["config"]
assert cfg["graded"] == ["py_pgs"] and cfg["solvers"][-1] == "py_pgs", cfg
mi, S = cfg["budget"]["max_iter"], json.load(open(R + "/summary.json"))
tab = {s["solver"]: s for s in S["results_table"]["solvers"]}
assert list(tab) == solvers, list(tab)
for s in solvers:
    x = [int(r["iterations"]) if r["converged"] == "1" else mi for r in got if r["solver"] == s]
    sgm = math.exp(sum(math.log(v + 10) for v in x) / len(x)) - 10
    assert abs(sgm - tab[s]["sgm_iterations"]) <= 1e-9 * sgm, (s, sgm, tab[s]["sgm_iterations"])
assert tab["py_pgs"]["family"] == "graded" and tab["py_pgs"].get("self_timed") is True, tab["py_pgs"]
assert not any(tab[s].get("self_timed") for s in solvers[:3])
so = {s["solver"]: s for s in S["solvers"]}
assert so["py_pgs"]["self_timed"] is True and so["py_pgs"]["graded"]["answers_file"].endswith("py.h5")
assert S["scene"] == "box-on-plane", S["scene"]
# self-timed wherever its times are shown
md = open(R + "/results.md").read()
line = [l for l in md.splitlines() if l.startswith("| py_pgs ")]
assert len(line) == 1 and line[0].count("self-timed") == 2, line
assert "Self-timed" in md and "py_pgs" in md.split("| solver |")[0], md[:400]
html = open(R + "/index.html").read()
assert html.count("self-timed") >= 3, html.count("self-timed")
assert "budget 500 iterations" in html
# the traces: the graded solver's marked, the others' not; in the figures' data beside the others
with h5py.File(R + "/traces.h5", "r") as t:
    assert set(t["traces"]) == set(solvers), list(t["traces"])
    for p, d in t["traces/py_pgs"].items():
        assert d.attrs["timing"].startswith(b"self-timed"), p
    assert "timing" not in t["traces/pgs/000001"].attrs and "timing" not in t["traces"].attrs
fam = open(R + "/fig_families.dat").read()
assert "\tgraded (self-timed)\tpy_pgs" in fam, fam
dat = open(R + "/fig_residual_time.dat").read()
assert "py_pgs" in dat and "nsn-nm" in dat
# the overview overlays the best of each family: the graded solver is its family's only one
import os
if os.path.exists(R + "/overview.svg"):  # gnuplot present
    svg = open(R + "/overview.svg").read()
    assert "py_pgs" in svg and "nsn-nm" in svg, "the overview lacks the graded solver"
    assert 'src="overview.png"' in html
print("merged: %d rows of %s; graded rows equal a plain grade" % (len(got), ", ".join(solvers)))
EOF
grep -q "budget no iteration limit" "$T/plain3/index.html" || fail "a plain grade's budget"
"$PY" - "$T/plain3" <<'EOF' || fail "a plain grade's SGM of iterations"
import csv, json, math, sys
d = sys.argv[1]
x = [int(r["iterations"]) for r in csv.DictReader(open(d + "/metrics.csv"))]
t = json.load(open(d + "/summary.json"))["results_table"]["solvers"][0]
sgm = math.exp(sum(math.log(v + 10) for v in x) / len(x)) - 10
assert x and abs(t["sgm_iterations"] - sgm) <= 1e-9 * sgm and t["family"] == "graded", (x, t)
EOF

# the folder rerun with a subset of its solvers: nothing solved, the stored rows shown (the
# graded solver kept: a run cannot solve it); then with all of them: the merged run again
sum1=$(md5sum < "$R/journal.ncpj")
cp "$R/metrics.csv" "$T/merged.csv"
"$NCPBENCH" run scenes/box-on-plane.json --quick --solvers apgd,pgs --out "$R" --no-progress \
    --no-figures > "$T/sub.out" 2>&1 || { fail "subset rerun"; cat "$T/sub.out"; }
[ "$(md5sum < "$R/journal.ncpj")" = "$sum1" ] || fail "the subset rerun wrote to the journal"
grep -q "5 rows of the folder's other solvers stay in its journal" "$T/sub.out" || { fail "subset message"; cat "$T/sub.out"; }
grep -qE "^py_pgs +self-timed" "$T/sub.out" || { fail "the run's table does not say py_pgs is self-timed"; cat "$T/sub.out"; }
"$PY" - "$T/merged.csv" "$R/metrics.csv" <<'EOF' || fail "the subset's rows"
import csv, sys
m = list(csv.DictReader(open(sys.argv[1])))
s = list(csv.DictReader(open(sys.argv[2])))
order = ["apgd", "pgs", "py_pgs"]
want = sorted([r for r in m if r["solver"] in order], key=lambda r: (r["problem"], order.index(r["solver"])))
assert want == s, "rows differ"
EOF
"$NCPBENCH" run scenes/box-on-plane.json --quick --solvers pgs,nsn-nm,apgd --out "$R" \
    --no-progress --no-figures > /dev/null 2>&1 || fail "full rerun"
cmp -s "$R/metrics.csv" "$T/merged.csv" || fail "the full rerun's metrics.csv differs from the merged run's"
[ "$(md5sum < "$R/journal.ncpj")" = "$sum1" ] || fail "the full rerun wrote to the journal"
# a solver the folder does not hold is another configuration
"$NCPBENCH" run scenes/box-on-plane.json --quick --solvers pgs,jacobi --out "$R" --no-progress \
    --no-figures > "$T/err" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "'jacobi' is not one of the run's" "$T/err" || { fail "new solver: exit $rc"; cat "$T/err"; }

[ $fails -eq 0 ] && echo "grade --into: all checks passed"
exit $((fails > 0))
