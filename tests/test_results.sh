#!/usr/bin/env bash
# The results tables of a run (issue 16; bench/output.h): summary.json "results_table",
# OUT/results.md and the index page's section, recomputed here with Python from metrics.csv and
# the budget (success rate with unsupported rows as failures, shifted geometric means with
# shifts 10 ms / 10 iterations and failures at the time budget or the slowest run and at
# max_iter, normalised to the best, rho(1) and rho(10) of the Dolan-More profile, median time),
# on a collection where al-trdogleg is unsupported on the FCLib files and apgd fails; with and without
# a time budget, for `solve` and `run`; a resumed run gives the table of its rebuilt outputs; the
# collection table of `ncpbench figures --profiles` (results.md, results.json) over one scene is
# that scene's run table.
. "$(dirname "$0")/shell_prologue.sh"

"$NCPBENCH" capture scenes/box-on-plane.json -o "$T/cap.h5" --quick > /dev/null || fail "capture"
"$NCPBENCH" export --fclib "$T/coll" "$T/cap.h5" > /dev/null || fail "export"
SOLVERS=pgs,nsn-nm,al-trdogleg,apgd
solve() { "$NCPBENCH" solve "$@" --solvers $SOLVERS --tol 1e-8 --max-iter 30 --no-progress; }

check() { # DIR [mixed]: the table of DIR/summary.json against metrics.csv; mixed: the
# collection has an unsupported solver (al-trdogleg) and a failing one (apgd)
"$PY" - "$1" "${2:-}" <<'PYEOF'
import csv, json, math, sys
d = sys.argv[1]
S = json.load(open(f"{d}/summary.json"))
R = S["results_table"]
B = S["budget"]
rows = list(csv.DictReader(open(f"{d}/metrics.csv")))
solvers = list(dict.fromkeys(r["solver"] for r in rows))
probs = list(dict.fromkeys(r["problem"] for r in rows))
cell = {(r["problem"], r["solver"]): r for r in rows}
tb = B["time_ms"] if B["time_ms"] is not None and B["time_ms"] > 0 else None
mi = B["max_iter"]
bad = []
def near(a, b, what, tol=1e-9):
    if a is None or b is None or not math.isfinite(b):
        if not (a is None and (b is None or not math.isfinite(b))):
            bad.append(f"{what}: {a} != {b}")
    elif abs(a - b) > tol * max(1.0, abs(b)):
        bad.append(f"{what}: {a} != {b}")
def sgm(x, sh):
    return math.exp(sum(math.log(v + sh) for v in x) / len(x)) - sh
def t(r):
    return float(r["setup_ms"]) + float(r["solve_ms"])
ok = {k: r["converged"] == "1" for k, r in cell.items()}
slow = {p: max(t(cell[(p, s)]) for s in solvers if (p, s) in cell) for p in probs}
fail_t = {p: tb if tb else slow[p] for p in probs}
tt = {s: [t(cell[(p, s)]) if ok.get((p, s)) else fail_t[p] for p in probs] for s in solvers}
it = {s: [int(cell[(p, s)]["iterations"]) if ok.get((p, s)) else mi for p in probs] for s in solvers}
st = {s: sgm(tt[s], 10.0) for s in solvers}
si = {s: sgm(it[s], 10.0) for s in solvers}
prof = {(p, s): max(t(cell[(p, s)]), 1e-6) if ok.get((p, s)) else math.inf
        for p in probs for s in solvers}
best = {p: min(prof[(p, s)] for s in solvers) for p in probs}
def rho(s, tau):
    return sum(1 for p in probs if prof[(p, s)] < math.inf and prof[(p, s)] <= tau * best[p]) / len(probs)
if R["problems"] != len(probs) or [x["solver"] for x in R["solvers"]] != solvers:
    bad.append(f"problems/solvers: {R['problems']} {[x['solver'] for x in R['solvers']]}")
if R["tol"] != B["tol"] or R["max_iter"] != mi or R["time_budget_ms"] != tb:
    bad.append(f"conditions: {R}")
for x in R["solvers"]:
    s = x["solver"]
    conv = sum(ok.get((p, s), False) for p in probs)
    uns = sum(1 for p in probs if cell.get((p, s), {}).get("status") == "unsupported")
    if x["converged"] != conv or x["unsupported"] != uns or x["problems"] != len(probs):
        bad.append(f"{s}: counts {x}")
    near(x["success_rate"], conv / len(probs), f"{s} success")
    near(x["success_rate_supported"], conv / (len(probs) - uns) if uns < len(probs) else None,
         f"{s} supported success")
    near(x["sgm_time_ms"], st[s], f"{s} sgm time")
    near(x["sgm_time_normalized"], st[s] / min(st.values()), f"{s} sgm time norm")
    near(x["sgm_iterations"], si[s], f"{s} sgm iter")
    near(x["sgm_iterations_normalized"], si[s] / min(si.values()), f"{s} sgm iter norm")
    near(x["rho_1"], rho(s, 1.0), f"{s} rho1", 1e-12)
    near(x["rho_10"], rho(s, 10.0), f"{s} rho10", 1e-12)
    solved = sorted(prof[(p, s)] for p in probs if prof[(p, s)] < math.inf)
    med = None
    if solved:
        n = len(solved)
        med = solved[n // 2] if n % 2 else 0.5 * (solved[n // 2 - 1] + solved[n // 2])
    near(x["median_time_ms"], med, f"{s} median")
# the table says something: al-trdogleg unsupported somewhere, apgd failing, someone the best
names = {x["solver"]: x for x in R["solvers"]}
if sys.argv[2] == "mixed" and (names["al-trdogleg"]["unsupported"] == 0 or names["apgd"]["converged"] == len(probs)):
    bad.append("the collection lacks an unsupported or a failing solver")
if min(x["sgm_time_normalized"] for x in R["solvers"]) != 1.0:
    bad.append("no solver at 1.0")
md = open(f"{d}/results.md").read()
for x in R["solvers"]:
    line = next((l for l in md.splitlines() if l.startswith(f"| {x['solver']} |")), None)
    if not line:
        bad.append(f"results.md lacks {x['solver']}")
        continue
    c = [v.strip() for v in line.strip("|").split("|")]
    if not c[2].startswith(f"{100 * x['success_rate']:.1f}% ({x['converged']}/{len(probs)}") \
       or not c[3].startswith(f"{x['sgm_time_normalized']:.2f} (") \
       or not c[4].startswith(f"{x['sgm_iterations_normalized']:.2f} (") \
       or c[5] != f"{x['rho_1']:.3f}" or c[6] != f"{x['rho_10']:.3f}":
        bad.append(f"results.md row {line} against {x}")
# the rank (README: success rate, then SGM time with untimed solvers after the timed, then SGM
# iterations, then first appearance), in summary.json and as the order of results.md's rows
def rkey(i):
    s = solvers[i]
    conv = sum(ok.get((p, s), False) for p in probs)
    return (-conv / len(probs), st[s] if math.isfinite(st[s]) else math.inf, si[s], i)
want_order = [solvers[i] for i in sorted(range(len(solvers)), key=rkey)]
if [x["solver"] for x in sorted(R["solvers"], key=lambda x: x["rank"])] != want_order:
    bad.append(f"ranks {[(x['solver'], x['rank']) for x in R['solvers']]}, want {want_order}")
md_order = [l.split("|")[1].strip() for l in md.splitlines()
            if l.startswith("| ") and l.split("|")[1].strip() in solvers]
if md_order != want_order:
    bad.append(f"results.md rows {md_order}, want {want_order}")
want = f"Tolerance: {B['tol']:g} on {B['stop_metric']}. Budget: {mi} iterations, " + \
       (f"{tb:g} ms per solve." if tb else "no time limit.")
if want not in md:
    bad.append(f"results.md does not state '{want}'")
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PYEOF
}

# ---- solve, no time budget; with figures: the index page ----
solve "$T/coll" "$T/cap.h5" --out "$T/A" > "$T/A.log" 2>&1 || { cat "$T/A.log"; fail "solve A"; }
check "$T/A" mixed || fail "solve A: table"
grep -q "^## Results" "$T/A/index.md" && grep -q "(results.md)" "$T/A/index.md" \
  && grep -q '<a href="results.md">' "$T/A/index.html" \
  && grep -q "^| al-trdogleg | .*; 100.0% of [0-9]* supported) |" "$T/A/index.md" \
  || fail "index page lacks the results section or its link (or gnuplot missing: $(head -c 300 "$T/A/index.md"))"
# ---- with a time budget: failures at the budget ----
solve "$T/coll" "$T/cap.h5" --budget-ms 5 --out "$T/B" --no-figures > "$T/B.log" 2>&1 \
  || { cat "$T/B.log"; fail "solve B"; }
check "$T/B" mixed || fail "solve B (--budget-ms 5): table"

# ---- resumed: the first run had the FCLib files only; the second adds cap.h5 ----
solve "$T/coll" --out "$T/R" --no-figures > /dev/null 2>&1 || fail "solve R (part)"
solve "$T/coll" "$T/cap.h5" --out "$T/R" --no-figures > "$T/R2.log" 2>&1 || fail "solve R (resumed)"
grep -q "resumed $T/R: 20 rows kept" "$T/R2.log" || { cat "$T/R2.log"; fail "R did not resume"; }
check "$T/R" mixed || fail "resumed run: table"
# the same command again keeps every row: the same table, results.md written anew
cp "$T/R/summary.json" "$T/R.summary.json"
rm "$T/R/results.md"
solve "$T/coll" "$T/cap.h5" --out "$T/R" --no-figures > "$T/R3.log" 2>&1 || fail "solve R again"
"$PY" -c "
import json, sys
a = json.load(open(sys.argv[1]))['results_table']; b = json.load(open(sys.argv[2]))['results_table']
sys.exit(a != b)" "$T/R.summary.json" "$T/R/summary.json" || fail "a rerun that kept every row changed the table"
[ -s "$T/R/results.md" ] || fail "results.md not rewritten by the resumed run"

# ---- run (a scene): the same table ----
"$NCPBENCH" run scenes/box-on-plane.json --quick --solvers pgs,nsn-nm,apgd --max-iter 30 \
  --out "$T/S" --no-progress --no-figures > "$T/S.log" 2>&1 || { cat "$T/S.log"; fail "run S"; }
check "$T/S" || fail "run S: table"

# ---- per collection: `figures --profiles` over one scene gives that scene's run table ----
"$NCPBENCH" figures --profiles --quick --scenes box-on-plane --out "$T/F" > "$T/F.log" 2>&1 \
  || { cat "$T/F.log"; fail "figures --profiles"; }
check "$T/F/profiles/box-on-plane" || fail "figures --profiles: the scene's table"
"$PY" - "$T/F/profiles" <<'PYEOF' || fail "figures --profiles: results.json is not the scene's table"
import json, sys
d = sys.argv[1]
C = json.load(open(f"{d}/results.json"))
R = json.load(open(f"{d}/box-on-plane/summary.json"))["results_table"]
ok = C["solvers"] == R["solvers"] and C["time_budget_ms"] == R["time_budget_ms"] == 20 \
     and C["max_iter"] == R["max_iter"] and len(C["solvers"]) > 5
md = open(f"{d}/results.md").read()
ok = ok and all(f"| {x['solver']} |" in md for x in C["solvers"]) and "20 ms per solve" in md
sys.exit(not ok)
PYEOF

[ "$fails" -eq 0 ] && echo "results: all checks passed"
exit "$fails"
