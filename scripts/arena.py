#!/usr/bin/env python3
"""The arena table (results/REPORT.md, issue 29 item 6; scripts/arena.sh runs it): from two
`ncpbench solve` runs of the same solvers on the same problems, one at 1e-4 and one at 1e-8,
per peer family and solver, per problem set (the shipped scenes' captures, the FCLib samples,
the Siconos .dat samples) and over all:

  success   converged rows / problems (an unsupported, failed, crashed or missing row is a
            failure of the set, as in the results tables of bench/output.h); unsupported: the
            problems the solver (every solver of the family) declined, among the failures
  SGM time  shifted geometric mean of setup_ms + solve_ms over every problem, a failure counted
            at the time budget, shift 10 ms (bench/output.h, qpbenchmark's convention), in ms
  gap       medians over the rows with an answer (not unsupported, failed, crashed, timeout) of
            the box-friction LCP residual boxlcp_residual and of the Coulomb residual
            natural_map_rel_acary ("own / Coulomb"): an engine that solves its own model to 1e-10
            and reads 1e-2 on Coulomb's has a formulation gap, not a solver error

A family's own row ("any of the family") counts a problem solved when one of its solvers solved
it, at the time of the fastest, so that families of different sizes compare. When the runs wrote
labels.csv (bench/labels.h), a last table gives each family's success split by the rank of W
(full rank | rank-deficient) at both tolerances.

usage: arena.py RUN_1e-4 RUN_1e-8 BUDGET_MS"""
import csv
import math
import statistics
import sys

FAMILY = {}
for s in ("pgs", "nbgs", "admm", "nsn-fb", "canal", "apgd", "sap"):
    FAMILY[s] = "ours"
for s in ("siconos-nsgs", "siconos-nsn-ac", "siconos-admm", "siconos-nsn-fb", "siconos-nsn-nm",
          "siconos-prox", "siconos-vi-eg"):
    FAMILY[s] = "Siconos"
for s in ("bullet-pgs", "bullet-dantzig", "bullet-lemke"):
    FAMILY[s] = "Bullet"
for s in ("dart-pgs", "dart-dantzig", "ode-dantzig"):
    FAMILY[s] = "DART/ODE"
SETS = (("scenes", "captures"), ("fclib-samples", "FCLib"), ("siconos-dat-samples", "Siconos .dat"))
NO_ANSWER = ("failed", "unsupported", "crashed", "timeout")
SHIFT = 10.0


def problem_set(name):
    head = name.split(".", 1)[0]
    for key, label in SETS:
        if head == key:
            return label
    return "other"


def load(run):
    rows = list(csv.DictReader(open(f"{run}/metrics.csv")))
    return rows


def sgm(times):
    return math.exp(sum(math.log(t + SHIFT) for t in times) / len(times)) - SHIFT


def med(vals):
    vals = [v for v in vals if not math.isnan(v)]
    return f"{statistics.median(vals):.1e}" if vals else "-"


def table(rows, budget, tol):
    problems = {}
    for r in rows:
        problems.setdefault(r["problem"], problem_set(r["problem"]))
    solvers = list(dict.fromkeys(r["solver"] for r in rows))
    cell = {(r["problem"], r["solver"]): r for r in rows}
    labels = [label for _, label in SETS]
    counts = {lab: sum(1 for s in problems.values() if s == lab) for lab in labels}
    out = [f"**tol {tol}** ({len(problems)} problems: "
           + ", ".join(f"{counts[lab]} {lab}" for lab in labels) + ")", "",
           "| family | solver | success: " + " | ".join(labels) + " | all | unsupported | "
           "SGM time (ms) | gap: own / Coulomb |",
           "| --- | --- |" + " ---: |" * (len(labels) + 3) + " --- |"]

    def solved_time(p, ss):
        best = math.inf
        for s in ss:
            r = cell.get((p, s))
            if r and r["converged"] == "1":
                best = min(best, float(r["setup_ms"]) + float(r["solve_ms"]))
        return best

    def line(fam, name, ss, gap):
        succ = []
        for lab in labels + ["all"]:
            ps = [p for p, s in problems.items() if lab == "all" or s == lab]
            k = sum(1 for p in ps if solved_time(p, ss) < math.inf)
            succ.append(f"{k}/{len(ps)}" if ps else "-")
        times = [min(solved_time(p, ss), budget) for p in problems]
        # problems no solver of ss could take (every one of them unsupported there)
        unsup = sum(1 for p in problems
                    if all((cell.get((p, s)) or {}).get("status") == "unsupported" for s in ss))
        gcell = "-"
        if gap:
            ans = [r for (p, s), r in cell.items() if s in ss and r["status"] not in NO_ANSWER]
            gcell = (med([float(r["boxlcp_residual"]) for r in ans]) + " / "
                     + med([float(r["natural_map_rel_acary"]) for r in ans]))
        out.append(f"| {fam} | {name} | " + " | ".join(succ)
                   + f" | {unsup} | {sgm(times):.3g} | {gcell} |")

    for fam in ("ours", "Siconos", "Bullet", "DART/ODE"):
        ss = [s for s in solvers if FAMILY.get(s) == fam]
        if not ss:
            continue
        line(fam, "any of the family", ss, True)
        for s in ss:
            line("", s, [s], True)
    return "\n".join(out)


def by_rank(runs):
    """Success per family, split by the rank of W (labels.csv of the 1e-8 run)."""
    try:
        labels = list(csv.DictReader(open(f"{runs[1][0]}/labels.csv")))
    except OSError:
        return None
    cls = {r["problem"]: "rank-deficient" if int(r["rank"]) < int(r["rows"]) else "full rank"
           for r in labels}
    classes = ("full rank", "rank-deficient")
    n = {c: sum(1 for v in cls.values() if v == c) for c in classes}
    out = ["| family | " + " | ".join(f"{c} ({n[c]}) at {tol}" for tol in ("1e-4", "1e-8")
                                     for c in classes) + " |",
           "| --- |" + " ---: |" * 4]
    rows = [load(run) for run, _ in runs]
    for fam in ("ours", "Siconos", "Bullet", "DART/ODE"):
        cells = []
        for rs in rows:
            solved = {r["problem"] for r in rs if FAMILY.get(r["solver"]) == fam
                      and r["converged"] == "1"}
            for c in classes:
                k = sum(1 for p in solved if cls.get(p) == c)
                cells.append(f"{k}/{n[c]}")
        out.append(f"| {fam} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    budget = float(sys.argv[3])
    runs = ((sys.argv[1], "1e-4"), (sys.argv[2], "1e-8"))
    for run, tol in runs:
        print(table(load(run), budget, tol))
        print()
    split = by_rank(runs)
    if split:
        print("**by the rank of W** (labels.csv; problems solved by any solver of the family)")
        print()
        print(split)


main()
