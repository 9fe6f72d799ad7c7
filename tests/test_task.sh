#!/usr/bin/env bash
# `ncpbench task` and `--step-budget-ms`: outputs that parse, a budget that bounds every
# step's solve, bad task sections rejected with file and JSON path (exit 2, nothing written),
# an interrupt that exits 130.
. "$(dirname "$0")/shell_prologue.sh"

SC=tests/task_incline.json

# 1. the task under a generous budget: both solvers slide the block 1/2 a t^2 down the slope
"$NCPBENCH" task "$SC" --out "$T/t1" --no-figures > "$T/log1" 2>&1 || { fail "task run"; cat "$T/log1"; }
"$PY" - "$T/t1" <<'PYEOF' || fail "task outputs"
import csv, json, math, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/steps.csv")))
cols = ["solver", "step", "t", "contacts", "rows", "solve_ms", "wall_ms", "iterations", "status",
        "stop_metric", "al_residual", "penetration", "active_contacts", "kinetic", "potential"]
assert list(rows[0].keys()) == cols, rows[0].keys()
assert len(rows) == 2 * 120, len(rows)
for r in rows:
    for c in cols[1:8] + cols[9:]:
        float(r[c])          # every numeric column parses
    assert r["status"] in ("converged", "none"), r
    if r["status"] == "converged":   # the block rests on the slope: some contact carries load
        assert 1 <= float(r["active_contacts"]) <= int(r["contacts"]), r
j = json.load(open(d + "/task.json"))
assert [s["solver"] for s in j["solvers"]] == ["nsn-nm", "pgs"]
a = 9.81 * (math.sin(0.3) - 0.2 * math.cos(0.3))
for s in j["solvers"]:
    assert s["success"] is True and s["steps"] == 120, s
    c0 = s["criteria"][0]
    assert c0["type"] == "displacement" and abs(c0["value"] - 0.5 * a * 0.25) < 0.015 * 0.128, c0
    assert c0["min"] == 0.12 and c0["max"] == 0.14 and c0["pass"] is True
    q = s["solve_ms"]
    assert q["p50"] <= q["p90"] <= q["p99"] <= q["max"]
assert len(j["load_average"]) == 3
md = open(d + "/task.md").read()
assert "| nsn-nm | **yes** | 120/120 |" in md and "load" in md.lower()
PYEOF

# 2. a budget below any setup time: every solve stops at the budget (timeout, <= 1 iteration,
# solve_ms >= budget), the simulation goes on, and the block sinks: the task fails (exit 0:
# a verdict, not an error)
"$NCPBENCH" task "$SC" --solvers pgs,canal --step-budget-ms 1e-6 --out "$T/t2" --no-figures > "$T/log2" 2>&1 \
  || { fail "task with a tiny budget"; cat "$T/log2"; }
"$PY" - "$T/t2" <<'PYEOF' || fail "tiny budget bounds every solve"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/steps.csv")))
solved = [r for r in rows if r["status"] != "none"]
assert len(rows) == 240 and len(solved) > 200, (len(rows), len(solved))
for r in solved:
    assert r["status"] == "timeout" and int(r["iterations"]) <= 1 and float(r["solve_ms"]) >= 1e-6, r
j = json.load(open(sys.argv[1] + "/task.json"))
for s in j["solvers"]:
    assert s["success"] is False and s["timeouts"] == s["solves"] == s["steps_over_budget"], s
    assert s["max_penetration"] > 0.01, s
PYEOF

# 3. figures (when gnuplot is there)
if command -v gnuplot > /dev/null; then
  "$NCPBENCH" task "$SC" --solvers pgs --quick --out "$T/t3" > "$T/log3" 2>&1 || { fail "task with figures"; cat "$T/log3"; }
  for f in task_timeseries.png task_timeseries.svg task_solve_hist.png task_solve_hist.svg; do
    [ -s "$T/t3/$f" ] || fail "figure $f missing"
  done
  [ "$(tail -n +2 "$T/t3/steps.csv" | wc -l)" -eq 5 ] || fail "--quick: 5 steps"
fi

# 4. --step-budget-ms reaches the trajectory driver of capture: with it the block sinks into
# the incline (the captured gaps), without it it stays on the surface
"$NCPBENCH" capture scenes/incline.json --steps 30 -o "$T/c1.h5" > /dev/null 2>&1 || fail "capture"
"$NCPBENCH" capture scenes/incline.json --steps 30 --step-budget-ms 1e-6 -o "$T/c2.h5" > /dev/null 2>&1 || fail "capture with budget"
"$PY" - "$T/c1.h5" "$T/c2.h5" <<'PYEOF' || fail "capture --step-budget-ms"
import sys, h5py
def deepest(fn):
    f = h5py.File(fn, "r")
    return min(float(f["problems"][k]["contacts"]["gap"][()].min()) for k in f["problems"])
d1, d2 = deepest(sys.argv[1]), deepest(sys.argv[2])
assert d1 > -1e-4 and d2 < -0.01, (d1, d2)
PYEOF

# 5. bad input: exit 2, the file and the JSON path in the message, nothing written
"$PY" - "$SC" "$T" <<'PYEOF' || fail "could not write the bad scenes"
import json, sys
d = json.load(open(sys.argv[1]))
def bad(name, edit):
    x = json.loads(json.dumps(d)); edit(x["task"]); json.dump(x, open(sys.argv[2] + "/" + name, "w"))
bad("badbody.json", lambda t: t["criteria"][0].update(body="blok"))
bad("badtype.json", lambda t: t["criteria"][1].update(type="levitate"))
bad("badbudget.json", lambda t: t.update(step_budget_ms=-1))
bad("badkey.json", lambda t: t["criteria"][2].update(fractoin=1))
x = json.loads(json.dumps(d)); del x["task"]; json.dump(x, open(sys.argv[2] + "/notask.json", "w"))
PYEOF
expect2() {
  local pat=$1; shift
  "$@" > "$T/out" 2> "$T/err"; local rc=$?
  [ $rc -eq 2 ] || { fail "exit $rc (want 2): $*"; cat "$T/err"; return; }
  grep -qE -- "$pat" "$T/err" || { fail "message lacks /$pat/: $*"; cat "$T/err"; }
}
expect2 "badbody.json: task.criteria\[0\].body: unknown body \"blok\"" "$NCPBENCH" task "$T/badbody.json" --out "$T/b1"
expect2 "badtype.json: task.criteria\[1\].type: must be one of" "$NCPBENCH" task "$T/badtype.json" --out "$T/b2"
expect2 "badbudget.json: task.step_budget_ms: must be a positive number" "$NCPBENCH" task "$T/badbudget.json" --out "$T/b3"
expect2 "badkey.json: task.criteria\[2\].fractoin: unknown key" "$NCPBENCH" task "$T/badkey.json" --out "$T/b4"
expect2 "badbody.json: task.criteria\[0\].body" "$NCPBENCH" run "$T/badbody.json" --quick --out "$T/b5"
expect2 "notask.json has no \"task\" section" "$NCPBENCH" task "$T/notask.json" --out "$T/b6"
expect2 "unknown solver" "$NCPBENCH" task "$SC" --solvers pgs,nope --out "$T/b7"
expect2 "--step-budget-ms" "$NCPBENCH" task "$SC" --step-budget-ms 0 --out "$T/b8"
expect2 "option --tol does not apply to .task." "$NCPBENCH" task "$SC" --tol 1e-3 --out "$T/b9"
for d in b1 b2 b3 b4 b5 b6 b7 b8 b9; do [ -e "$T/$d" ] && fail "output $d left behind after bad input"; done

# 6. an interrupt exits 130 and keeps only finished solvers (none here: the one solver spends
# 20 ms on each of 14400 steps)
"$PY" - "$SC" "$T/long.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["duration"] = 60; d["benchmark"]["steps"] = 100
d["task"].update(step_budget_ms=20, tol=0, max_iter=1000000000, solvers=["pgs"])
json.dump(d, open(sys.argv[2], "w"))
PYEOF
"$NCPBENCH" task "$T/long.json" --out "$T/t6" --no-figures > "$T/log6" 2>&1 &
pid=$!
sleep 2
kill -INT $pid
wait $pid; rc=$?
[ $rc -eq 130 ] || { fail "interrupted task: exit $rc (want 130)"; cat "$T/log6"; }
[ -e "$T/t6/steps.csv" ] && fail "an unfinished solver's rows were written"

# 7. --param reaches the driving solver (an out-of-range value is refused by the solver itself,
# at its first step: the task records pgs's simulation as failed, with the solver's reason) and
# an undocumented one is refused before any step
"$NCPBENCH" task "$SC" --solvers pgs --param pgs.omega=5 --out "$T/t7" --no-figures > "$T/log7" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "parameter omega = 5 must lie in" "$T/t7/task.md" ||
  { fail "task --param pgs.omega=5 did not reach pgs: exit $rc"; cat "$T/log7"; }
# merged with the scene's benchmark.params: --param's value wins, the scene's other keys stay
"$PY" - "$SC" "$T/p1.json" "$T/p2.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["benchmark"]["params"] = {"pgs": {"omega": 0.5}}
json.dump(d, open(sys.argv[2], "w"))
d["benchmark"]["params"] = {"pgs": {"omega": 7}}
json.dump(d, open(sys.argv[3], "w"))
PYEOF
"$NCPBENCH" task "$T/p1.json" --solvers pgs --param pgs.omega=5 --steps 2 --out "$T/t7c" --no-figures > "$T/log7c" 2>&1
grep -q "parameter omega = 5 must lie in" "$T/t7c/task.md" || { fail "task --param did not override the scene's omega"; cat "$T/log7c"; }
"$NCPBENCH" task "$T/p2.json" --solvers pgs --param pgs.local_iter=2 --steps 2 --out "$T/t7d" --no-figures > "$T/log7d" 2>&1
grep -q "parameter omega = 7 must lie in" "$T/t7d/task.md" || { fail "task --param dropped the scene's omega"; cat "$T/log7d"; }
"$NCPBENCH" task "$SC" --solvers pgs --param pgs.bogus=1 --out "$T/t7b" --no-figures > "$T/log7b" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "no parameter 'bogus'" "$T/log7b" || { fail "task --param pgs.bogus=1: exit $rc"; cat "$T/log7b"; }
[ -e "$T/t7b/steps.csv" ] && fail "a refused --param wrote results"

echo "task_cli: $fails failure(s)"
[ $fails -eq 0 ]
