#!/usr/bin/python3
"""Independent checker of the NCP report 2025 study (src/figures/ncpreport2025/).

Runs `ncpbench figures --paper ncpreport2025 --quick` into a scratch folder (or checks OUT, the
study's folder OUT/ncpreport2025, given as the argument; results/ncpreport2025/ holds the full
run's raw results, scripts/compact_study.py, metrics.csv reduced to the columns the claims read:
problem, solver, converged) and recomputes, for each configuration, every
claim's values and verdict from the raw results the run kept: runs.csv (which folder and solver
holds each run), each folder's metrics.csv (converged, setup_ms, solve_ms and the §VII-D
metrics per solve) and config.json (the parameters the pipeline ran with). It never reads the
program's values, verdicts or counts to compute: claims.csv is read only at the end, to compare,
and the check fails when a value (relative 1e-9), a verdict or a rule's thresholds differ, or
when a solve of the "paper" configuration ran with other settings than the report's. The rules
below are this checker's own copy of the declaration (src/figures/ncpreport2025/claims.c).
Where the suite's tables are present (a run's output, not the compact copy), accuracy.dat and
time_accuracy.dat are recomputed from metrics.csv as well (median and p90, numpy's linear
percentile, NaN skipped; runs and converged counts; the pooled block).

With --mutate, also shows that every rule can fail and pass: for each claim, the raw solves of
its runs are replaced by synthetic ones beyond the rule's band on either side, and the checker's
verdict must follow ("yes" one way, "no" the other); and one raw file of a copy of the output is
perturbed (a metrics.csv; a config.json off the report's settings), after which the check must
fail. Exit status 1 on any mismatch.
"""
import gzip
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from study_check import (Checker, NotRun, num, rule_verdict, run_rows, same_num,  # noqa: E402
                         selected_parts)

NB = math.nan
SYSTEMS = ["box-on-plane", "boxes-fixed", "nunchuk", "fourbar-fixed", "fourbar-free", "arm7d",
           "quadruped", "ncpreport-bdx", "ncpreport-lima", "ncpreport-misha", "ncpreport-walker",
           "ncpreport-gazelle", "ncpreport-ironman"]
# Fig. 8's categories: Primitives, Robotics, Audio-Animatronic (Table II's order).
CATEGORIES = [SYSTEMS[0:5], SYSTEMS[5:9], SYSTEMS[9:13]]
NCP8 = ["pgs-ncp", "nbgs", "raisim", "raisim-ds", "raisim-ds-es", "admm-ncp-fp", "admm-ncp-la",
        "admm-ncp-sa"]
METRICS = ["penetration", "ncp_dual", "ncp_compl", "natural_map_inf"]

# Claim -> (yes conditions, partly conditions), each (value index, lo, hi); nan: no bound.
RULES = {
    "N1": ([(0, 0.9, NB)], [(1, 0.9, NB)]),
    "N2": ([(2, 0.05, NB)], [(2, 1e-9, NB)]),
    "N3": None,  # not testable
}

# The report's stated settings (§VI-F; src/figures/ncpreport2025/study.c cites where).
PAPER = {"admm-ncp-fp": {"rho": 1.0, "eta": 1e-6},
         "admm-ncp-la": {"eta": 1e-6, "mu_thr": 10.0, "tau_inc": 1.5, "tau_dec": 1.5},
         "admm-ncp-sa": {"eta": 1e-6, "mu_thr": 10.0, "p0": 0.2, "alpha": 0.05}}

CHECK = Checker("check_study_ncpreport2025", RULES)
fail = CHECK.fail


def check_paper_params(cdir, fdir, seen):
    params = json.load(open(os.path.join(fdir, "config.json")))["config"]["params"]
    for solver, want in PAPER.items():
        got = params.get(solver, {})
        for name, value in want.items():
            if name not in got or not same_num(float(got[name]), value):
                fail(f"{cdir} {os.path.basename(fdir)}: {solver}.{name} ran as "
                     f"{got.get(name)}, the report's setting is {value}")
    seen.add(fdir)


def load_config(cdir):
    """(system, solver) -> list of solves (dicts) in metrics.csv's order, None when the run
    did not run; the first row of a problem counts (a resumed run may repeat one)."""
    runs, checked_params = {}, set()
    for r, fdir, rows in run_rows(cdir):
        if (os.path.basename(cdir) == "paper" and fdir not in checked_params and
                os.path.exists(os.path.join(fdir, "config.json"))):
            check_paper_params(cdir, fdir, checked_params)
        solves = []
        for x in rows:
            conv = num(x["converged"])
            s = {"converged": int(not math.isnan(conv) and conv != 0),
                 "ms": num(x.get("setup_ms")) + num(x.get("solve_ms"))}
            for k in METRICS:  # the tables' (absent from the committed full run: nan)
                s[k] = num(x.get(k))
            solves.append(s)
        runs[(r["part"], r["label"])] = solves or None
    return runs


def fraction(runs, systems, solvers):
    """Converged solves over solves of the runs (system, solver); NotRun when one is missing."""
    conv = n = 0
    for s in systems:
        for v in solvers:
            solves = runs.get((s, v))
            if not solves:
                raise NotRun()
            n += len(solves)
            conv += sum(x["converged"] for x in solves)
    return conv / n if n else math.nan


def fmin(a, b):  # C's fmin: a NaN argument loses
    return b if math.isnan(a) else a if math.isnan(b) else min(a, b)


def values(cid, runs):
    if cid == "N1":
        each = [fraction(runs, [s], ["admm-ncp-fp"]) for s in SYSTEMS]
        return [min(each), fraction(runs, SYSTEMS, ["admm-ncp-fp"])]
    f = [fraction(runs, cat, NCP8) for cat in CATEGORIES]
    lower = fmin(f[0], f[1])
    return [f[2], lower, lower - f[2]]


def verdict(cid, runs):
    return rule_verdict(RULES[cid], lambda: values(cid, runs))


def check_config(cdir, quiet=False):
    runs = load_config(cdir)
    CHECK.compare_claims(cdir, lambda cid: verdict(cid, runs), quiet)
    if not quiet:
        check_tables(cdir, runs)
    return runs


# ---- the suite's tables (a run's output only) ----

def q(x, p):
    x = np.asarray([v for v in x if not math.isnan(v)])
    return float(np.percentile(x, p)) if len(x) else math.nan


def close(got, want):
    if math.isnan(want):
        return math.isnan(got)
    return abs(got - want) <= 1e-6 * abs(want) + 1e-300


def blocks(path):
    """[(scene, [row fields])] of a gnuplot file whose blocks start with '# scene: NAME'."""
    out = []
    for line in open(path):
        if line.startswith("# scene: "):
            out.append((line.split()[2], []))
        elif line.strip() and not line.startswith("#"):
            out[-1][1].append(line.split())
    return out


def check_row(where, f, solves, cols):
    CHECK.checked += 1
    conv = sum(x["converged"] for x in solves)
    if int(f[4]) != len(solves) or int(f[5]) != conv:
        fail(f"{where} {f[0]}: runs/converged {f[4]}/{f[5]}, metrics.csv {len(solves)}/{conv}")
    for i, col in enumerate(cols):
        for j, p in enumerate((50, 90)):
            g, w = float(f[6 + 2 * i + j]), q([x[col] for x in solves], p)
            if not close(g, w):
                fail(f"{where} {f[0]}: {col} p{p} {g:.6e}, recomputed {w:.6e}")


def check_tables(cdir, runs):
    suite = os.path.join(cdir, "suite")
    if not os.path.exists(os.path.join(suite, "accuracy.dat")):
        return  # the compact copy keeps the raw results only
    parts = selected_parts(os.path.dirname(os.path.abspath(cdir)))
    if parts is not None and "suite" not in parts:
        return  # an earlier run's tables: this one (--parts) did not reduce the suite
    acc = blocks(os.path.join(suite, "accuracy.dat"))
    ta = blocks(os.path.join(suite, "time_accuracy.dat"))
    if [b[0] for b in acc] != SYSTEMS or [b[0] for b in ta] != SYSTEMS + ["all"]:
        fail(f"{suite}: blocks {[b[0] for b in acc]} / {[b[0] for b in ta]}, expected the suite")
        return
    for scene, rows in acc:
        for f in rows:
            check_row(f"{suite}/accuracy.dat {scene}", f, runs.get((scene, f[0])) or [], METRICS)
    for scene, rows in ta:
        for f in rows:
            solves = [x for s in (SYSTEMS if scene == "all" else [scene])
                      for x in (runs.get((s, f[0])) or [])]
            check_row(f"{suite}/time_accuracy.dat {scene}", f, solves, ["ms", "natural_map_inf"])


# ---- mutations ----

def synth(n, converged):
    return [{"converged": converged, "ms": 1.0, **{k: 0.0 for k in METRICS}} for _ in range(n)]


def setting(runs, solvers, pick):
    """The runs of solvers on every system, replaced: converged = pick(system)."""
    return {(s, v): synth(len(runs.get((s, v)) or [0]), pick(s)) for s in SYSTEMS
            for v in solvers}


def mutations(runs):
    anim = set(CATEGORIES[2])
    return {
        "N1": {"yes": setting(runs, ["admm-ncp-fp"], lambda s: 1),
               "no": setting(runs, ["admm-ncp-fp"], lambda s: 0)},
        "N2": {"yes": setting(runs, NCP8, lambda s: int(s not in anim)),
               "no": setting(runs, NCP8, lambda s: int(s in anim))},
    }


def mutate(cdir, runs):
    muts = mutations(runs)
    for cid, m in muts.items():
        for want, repl in m.items():
            got, v = verdict(cid, {**runs, **repl})
            CHECK.checked += 1
            if got != want:
                fail(f"mutation {os.path.basename(cdir)} {cid} -> {want}: verdict {got} {v}")
    untested = [c for c, r in RULES.items() if r is not None and c not in muts]
    if untested:
        fail(f"claims without a mutation: {untested}")


def plain_csv(path):
    """path as a plain metrics.csv (a compact copy's .gz unpacked in place)."""
    if not os.path.exists(path):
        with gzip.open(path + ".gz", "rt") as f:
            text = f.read()
        open(path, "w").write(text)
        os.remove(path + ".gz")
    return path


def all_failed(copy):
    """As if admm-ncp-fp had failed every box-on-plane problem."""
    m = plain_csv(os.path.join(copy, "paper", "box-on-plane-0", "metrics.csv"))
    lines = open(m).read().split("\n")
    head = lines[0].split(",")
    si, ci = head.index("solver"), head.index("converged")
    for i in range(1, len(lines)):
        f = lines[i].split(",")
        if len(f) > ci and f[si] == "admm-ncp-fp":
            f[ci] = "0"
            lines[i] = ",".join(f)
    open(m, "w").write("\n".join(lines))


def off_paper(copy):
    """A solve of the paper's configuration with rho = 2, not the report's rho0 = 1."""
    cpath = os.path.join(copy, "paper", "nunchuk-0", "config.json")
    cfg = json.load(open(cpath))
    cfg["config"]["params"]["admm-ncp-fp"]["rho"] = 2.0
    json.dump(cfg, open(cpath, "w"))


def mutate_raw(out):
    CHECK.raw_mutations(out, "ncpreport2025", [("a perturbed metrics.csv", all_failed),
                                               ("a solve off the report's settings", off_paper)],
                        lambda copy: check_config(os.path.join(copy, "paper"), quiet=True))


sys.exit(CHECK.main("ncpreport2025", sys.argv, check_config, mutate, mutate_raw))
