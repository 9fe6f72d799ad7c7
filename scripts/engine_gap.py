#!/usr/bin/env python3
"""The engine peers' formulation gap from a solve's metrics.csv (results/REPORT.md, "Engine
peers"; scripts/engine_gap.sh runs it): per problem set and solver, the median over the problems
of the own-model residual (boxlcp_residual: the box-friction LCP that Bullet, DART and ODE
solve, at the answer) and of the Coulomb residual (natural_map_rel_acary) over the rows with an answer, and in
parentheses the count of rows without one (failed, unsupported, crashed, timeout). Prints a markdown table; writes DAT (one block per solver: own,
Coulomb, problem) for scripts/engine_gap.gp.

usage: engine_gap.py RUN/metrics.csv DAT"""
import csv
import math
import re
import statistics
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
# rows without an answer of the solver's: the engine rejected the problem or died (failed),
# declined it (unsupported), or was killed at the time budget (timeout: the start point)
NO_ANSWER = ("failed", "unsupported", "crashed", "timeout")
solvers = list(dict.fromkeys(r["solver"] for r in rows))


def group(problem):
    # `solve DIR` names a problem FOLDER.FILE (FCLib) or FOLDER.FILE-NNNNNN (a capture's case):
    # one set per scene or FCLib file
    name = problem.split(".", 1)[-1]
    if re.fullmatch(r".*-\d{6}", name):
        return name[:-7]
    return name.split("-i")[0]


sets = list(dict.fromkeys(group(r["problem"]) for r in rows))


def med(vals):
    vals = [v for v in vals if not math.isnan(v)]
    return f"{statistics.median(vals):.1e}" if vals else "-"


print("| problems | " + " | ".join(solvers) + " |")
print("| --- |" + " --- |" * len(solvers))
for key in sets + ["all"]:
    rs = [r for r in rows if key == "all" or group(r["problem"]) == key]
    n = len({r["problem"] for r in rs})
    cells = []
    for s in solvers:
        sr = [r for r in rs if r["solver"] == s]
        ok = [r for r in sr if r["status"] not in NO_ANSWER]
        bad = len(sr) - len(ok)
        own = med([float(r["boxlcp_residual"]) for r in ok])
        coul = med([float(r["natural_map_rel_acary"]) for r in ok])
        cells.append(f"{own} / {coul}" + (f" ({bad})" if bad else ""))
    print(f"| {key} ({n}) | " + " | ".join(cells) + " |")

with open(sys.argv[2], "w") as f:
    f.write("# engine_gap.py: per solver block: boxlcp_residual natural_map_rel_acary problem\n"
            "# (rows with an answer: not failed, unsupported, crashed or timeout; values floored at 1e-17"
            " for the log axes)\n")
    for s in solvers:
        f.write(f"# {s}\n")
        for r in rows:
            if r["solver"] != s or r["status"] in NO_ANSWER:
                continue
            own, coul = float(r["boxlcp_residual"]), float(r["natural_map_rel_acary"])
            if math.isnan(own) or math.isnan(coul):
                continue
            f.write(f"{max(own, 1e-17):.6e} {max(coul, 1e-17):.6e} {r['problem']}\n")
        f.write("\n\n")
