#!/usr/bin/env bash
# `ncpbench grade` (bench/grade.h, docs/answers.md): answers computed elsewhere graded by the
# metrics module. Independent checks: the built-in pgs's own answers, written into an answers
# file, grade to the metrics of its run (the same lambda, the same module); the Python example's
# natural map recomputed here with numpy; every bad input of docs/answers.md exits 2 naming the
# problem and the dataset. Skipped (77) without numpy + h5py.
. "$(dirname "$0")/shell_prologue.sh"
"$PY" -c 'import h5py, numpy' 2> /dev/null || { echo "SKIP: python3-h5py / python3-numpy missing"; exit 77; }
EX=examples/python/simple_solver.py

"$NCPBENCH" run scenes/box-on-plane.json --quick --solvers pgs --out "$T/run" --no-figures \
    --no-progress > /dev/null 2>&1 || { echo "FAIL: the capture run"; exit 1; }

# 1. the built-in pgs's answers (solutions.h5: r = lambda, v) graded again
"$PY" - "$T/run/solutions.h5" "$T/pgs.h5" <<'EOF' || fail "writing pgs answers"
import sys, h5py
with h5py.File(sys.argv[1], "r") as s, h5py.File(sys.argv[2], "w") as a:
    for name, g in s["solutions/pgs"].items():
        a["answers/%s/lambda" % name] = g["r"][()]
        if "v" in g: a["answers/%s/v" % name] = g["v"][()]
EOF
"$NCPBENCH" grade "$T/run/problems.h5" "$T/pgs.h5" --name pgs_file --out "$T/g1" --no-figures \
    > "$T/g1.out" 2>&1 || { fail "grading pgs answers"; cat "$T/g1.out"; }
"$PY" - "$T/run/metrics.csv" "$T/g1/metrics.csv" "$T/g1/summary.json" <<'EOF' || fail "pgs grades differ from its run"
import csv, json, math, re, sys
run = {r["problem"]: r for r in csv.DictReader(open(sys.argv[1])) if r["solver"] == "pgs"}
got = {r["problem"]: r for r in csv.DictReader(open(sys.argv[2]))}
assert set(run) == set(got) and run, (sorted(run), sorted(got))
cols = list(next(iter(got.values())).keys())
metrics = cols[cols.index("wall_ms") + 1:cols.index("note")]
assert "natural_map_rel_acary" in metrics and len(metrics) > 10, metrics
for p, g in got.items():
    r = run[p]
    assert g["solver"] == "pgs_file" and g["converged"] == r["converged"], (p, g, r)
    assert g["note"].startswith("self-timed"), g["note"]
    # v is pgs's: its distance to A^-1(b + J^T lambda) is round-off
    m = re.search(r"= ([-+0-9.e]+|nan)$", g["note"])
    assert m and float(m.group(1)) < 1e-12, g["note"]
    for c in metrics:
        a, b = float(g[c]), float(r[c])
        assert (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-12 * max(abs(a), abs(b)) + 1e-300, (p, c, a, b)
    assert g["setup_ms"] == g["solve_ms"] == g["wall_ms"] == "nan", g  # no time in the file
s = json.load(open(sys.argv[3]))
assert s["self_timed"] is True and s["graded"]["answers"] == len(got), s.get("graded")
print("pgs answers: %d problems x %d metrics equal to the run's" % (len(got), len(metrics)))
EOF

# 2. the Python example, converged: graded converged where the built-in pgs converged
"$PY" "$EX" "$T/run/problems.h5" "$T/py.h5" > /dev/null || fail "simple_solver.py"
"$NCPBENCH" grade "$T/run/problems.h5" "$T/py.h5" --out "$T/g2" > "$T/g2.out" 2>&1 \
    || { fail "grading the Python answers"; cat "$T/g2.out"; }
"$PY" - "$T/run/metrics.csv" "$T/g2" "$T/py.h5" <<'EOF' || fail "Python answers graded wrong"
import csv, sys, h5py, numpy as np
run = {r["problem"]: r for r in csv.DictReader(open(sys.argv[1])) if r["solver"] == "pgs"}
rows = {r["problem"]: r for r in csv.DictReader(open(sys.argv[2] + "/metrics.csv"))}
with h5py.File(sys.argv[3], "r") as a, h5py.File(sys.argv[2] + "/traces.h5", "r") as t:
    assert t["traces"].attrs["timing"].startswith(b"self-timed")
    for p, r in rows.items():
        g = a["answers/" + p]
        assert r["solver"] == "py_pgs" and r["note"].startswith("self-timed"), r
        assert run[p]["converged"] != "1" or r["converged"] == "1", (p, r)
        assert int(r["iterations"]) == int(g["iterations"][()]), (p, r["iterations"])
        assert abs(float(r["solve_ms"]) - g["time_ms"][()]) <= 1e-12 * g["time_ms"][()]
        d = t["traces/py_pgs/" + p]
        assert d.attrs["timing"].startswith(b"self-timed")
        assert np.array_equal(d[:, 0], g["trace_iter"][()]) and np.array_equal(d[:, 1], g["trace_time_ms"][()])
        # the trace's last row is the answer: its metrics are the row's
        cols = [c.decode() if isinstance(c, bytes) else c for c in t["traces"].attrs["columns"]]
        k = cols.index("natural_map_abs")
        assert np.isclose(d[-1, k], float(r["natural_map_abs"]), rtol=1e-12, atol=0), (p, d[-1, k], r["natural_map_abs"])
print("python answers: %d problems graded, %d converged" % (len(rows), sum(r["converged"] == "1" for r in rows.values())))
EOF
"$NCPBENCH" plot "$T/g2" > /dev/null 2>&1 || fail "ncpbench plot on a graded run"
[ -s "$T/g2/index.md" ] || fail "no index page for the graded run"

# 3. three iterations only (far from converged): the natural map recomputed with numpy
"$PY" "$EX" "$T/run/problems.h5" "$T/py3.h5" 3 > /dev/null || fail "simple_solver.py 3"
"$NCPBENCH" grade "$T/run/problems.h5" "$T/py3.h5" --out "$T/g3" --no-figures > /dev/null 2>&1 \
    || fail "grading 3-iteration answers"
PYTHONPATH=examples/python "$PY" - "$T/run/problems.h5" "$T/py3.h5" "$T/g3/metrics.csv" <<'EOF' || fail "natural map differs from numpy's"
import csv, sys, h5py, numpy as np
from simple_solver import problems, project
rows = {r["problem"]: r for r in csv.DictReader(open(sys.argv[3]))}
checked = 0
with h5py.File(sys.argv[2], "r") as a:
    for name, D, vf, blocks in problems(sys.argv[1]):
        lam = a["answers/%s/lambda" % name][()]
        u, F = D @ lam + vf, np.zeros(len(lam))
        for typ, r, mu, k, c, phi in blocks:  # F = lambda - Pi_K(lambda - (u + Gamma(u))) (metrics.h)
            r = int(r)
            assert typ == 2, "box-on-plane has contacts only"
            w = u[r:r + 3].copy()
            w[0] += mu * np.hypot(w[1], w[2])
            F[r:r + 3] = lam[r:r + 3] - project(lam[r:r + 3] - w, mu)
        want, got = np.linalg.norm(F), float(rows[name]["natural_map_abs"])
        assert abs(want - got) <= 1e-10 * max(want, 1e-300) or want == got == 0, (name, want, got)
        checked += want > 0
        st = rows[name]["status"]
        assert (st == "converged") == (float(rows[name]["natural_map_rel_acary"]) <= 1e-8), (name, st)
assert checked >= 2, checked
print("natural map of %d unconverged answers equal to numpy's" % checked)
EOF

# 4. a plain FCLib file (W, q, mu) through the same script
"$NCPBENCH" export --fclib "$T/fc" "$T/run/problems.h5" > /dev/null 2>&1 || fail "export --fclib"
FC=$(ls "$T"/fc/*.h5 "$T"/fc/*.hdf5 2> /dev/null | tail -n 1)
if [ -n "$FC" ]; then
    "$PY" "$EX" "$FC" "$T/fc_ans.h5" > /dev/null || fail "simple_solver.py on FCLib"
    "$NCPBENCH" grade "$FC" "$T/fc_ans.h5" --out "$T/g4" --no-figures > "$T/g4.out" 2>&1 \
        || { fail "grading FCLib answers"; cat "$T/g4.out"; }
    grep -q "1 of 1 problems answered, 1 converged" "$T/g4.out" || { fail "FCLib answer"; cat "$T/g4.out"; }
else
    fail "export --fclib wrote no file"
fi

# 5. bad input: exit 2 naming the problem and the dataset, nothing written
"$PY" - "$T/py.h5" "$T" <<'EOF' || fail "crafting bad answers"
import shutil, sys, h5py, numpy as np
src, d = sys.argv[1], sys.argv[2]
def variant(tag, edit):
    shutil.copy(src, "%s/bad_%s.h5" % (d, tag))
    with h5py.File("%s/bad_%s.h5" % (d, tag), "a") as f:
        edit(f["answers/000002"], f)
def resize(name, n):
    def e(g, f):
        x = g[name][()]
        del g[name]
        g[name] = np.resize(x, n)
    return e
def put(name, fn):
    def e(g, f):
        x = fn(g[name][()])
        del g[name]
        g[name] = x
    return e
variant("lambda_size", lambda g, f: resize("lambda", len(g["lambda"]) + 1)(g, f))
variant("v_size", lambda g, f: g.create_dataset("v", data=np.zeros(2)))
variant("trace_shape", put("trace_lambda", lambda x: x[:, :-1]))
variant("trace_time_size", put("trace_time_ms", lambda x: x[:-1]))
variant("trace_time_order", put("trace_time_ms", lambda x: x[::-1].copy()))
variant("lambda_nan", put("lambda", lambda x: np.where(np.arange(len(x)) == 1, np.nan, x)))
variant("trace_inf", put("trace_lambda", lambda x: np.where(np.arange(x.size).reshape(x.shape) == 4, np.inf, x)))
variant("unknown_problem", lambda g, f: f.copy(g, "answers/nosuch"))
variant("typo", lambda g, f: g.move("lambda", "lamda"))
variant("time_nan", put("time_ms", lambda x: np.nan))
variant("missing", lambda g, f: f["answers"].__delitem__("000003"))
with h5py.File(d + "/bad_nogroup.h5", "w") as f:
    f["results/000002/lambda"] = np.zeros(3)
open(d + "/bad_text.h5", "w").write("not hdf5\n")
open(d + "/bad_truncated.h5", "wb").write(open(src, "rb").read()[:3000])
EOF
expect2() { # PATTERN FILE [options]
    local pat=$1 f=$2; shift 2
    "$NCPBENCH" grade "$T/run/problems.h5" "$f" --out "$T/bad_out" --no-figures "$@" > "$T/err" 2>&1
    local rc=$?
    [ $rc -eq 2 ] || { fail "exit $rc (want 2): $f $*"; cat "$T/err"; return; }
    grep -qE -- "$pat" "$T/err" || { fail "message lacks /$pat/: $f"; cat "$T/err"; }
    grep -qE "AddressSanitizer|runtime error|Segmentation" "$T/err" && fail "crash: $f"
    [ -e "$T/bad_out" ] && { fail "output written on bad input: $f"; rm -rf "$T/bad_out"; }
    return 0
}
expect2 "000002/lambda.*entries, expected"           "$T/bad_lambda_size.h5"
expect2 "000002/v.*entries, expected"                "$T/bad_v_size.h5"
expect2 "000002/trace_lambda.*shape"                 "$T/bad_trace_shape.h5"
expect2 "000002/trace_time_ms.*entries, expected"    "$T/bad_trace_time_size.h5"
expect2 "000002/trace_time_ms.*nondecreasing"        "$T/bad_trace_time_order.h5"
expect2 "000002/lambda.*not finite"                  "$T/bad_lambda_nan.h5"
expect2 "000002/trace_lambda.*not finite"            "$T/bad_trace_inf.h5"
expect2 "000002/time_ms.*not finite"                 "$T/bad_time_nan.h5"
expect2 "answers/nosuch.*'nosuch'.*does not hold"    "$T/bad_unknown_problem.h5"
expect2 "000002/lamda.*not a dataset of an answer"   "$T/bad_typo.h5"
expect2 "answers.*missing group"                     "$T/bad_nogroup.h5"
expect2 "bad_text.h5 is not an HDF5 file"            "$T/bad_text.h5"
expect2 "bad_truncated.h5.*(damaged|truncated)"      "$T/bad_truncated.h5"
expect2 "000003.*no answer.*--strict"                "$T/bad_missing.h5" --strict
expect2 "--tol"                                      "$T/py.h5" --tol abc
# a missing answer without --strict: a failed row saying so, the others graded
"$NCPBENCH" grade "$T/run/problems.h5" "$T/bad_missing.h5" --out "$T/g5" --no-figures > /dev/null 2>&1 \
    || fail "missing answer without --strict"
grep -qE '^000003,py_pgs,0,0,failed,.*self-timed; no answer' "$T/g5/metrics.csv" \
    || { fail "no 'no answer' row"; cat "$T/g5/metrics.csv"; }
[ "$(grep -c ',py_pgs,' "$T/g5/metrics.csv")" -eq 5 ] || fail "rows of the missing-answer run"

[ $fails -eq 0 ] && echo "grade: all checks passed"
exit $((fails > 0))
