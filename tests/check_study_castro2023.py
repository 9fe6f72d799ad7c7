#!/usr/bin/python3
"""Independent checker of the Castro et al. 2023 study (src/figures/castro2023/).

Runs `ncpbench figures --paper castro2023 --quick` into a scratch folder (or checks OUT, the
study's folder OUT/castro2023, given as the argument; results/castro2023/ holds the full run's
raw results, scripts/compact_study.py) and recomputes, for each configuration, every claim's
values and verdict from the raw results the run kept: runs.csv (which folder and solver holds
each run), each folder's metrics.csv (iterations, setup_ms, solve_ms, sap_momentum, sap_compl
per solve), fig10's traces.csv (sap_momentum per iterate), config.json (the parameters the
pipeline ran with), the captures' capture.txt (the contact count of each scaling point), and
the simulations' sims.csv, steps.csv and task.json (the slip sweep: slip, mu, iterations and
the Hessian's condition number per step; the spring-cylinder: energies and x per step). It never reads the program's values,
verdicts, .dat files or counts to compute: claims.csv is read only at the end, to compare, and
the check fails when a value (relative 1e-9), a verdict or a rule's thresholds differ, or when
a solve of the "paper" configuration ran with other settings than the paper's. The rules below
are this checker's own copy of the declaration (src/figures/castro2023/claims.c).

With --mutate, also shows that every rule can fail and pass: for each claim, the raw solves of
its runs are replaced by synthetic ones placed beyond the rule's band on either side, and the
checker's verdict must follow ("yes" one way, "no" the other); and one raw file of a copy of the
output is perturbed (a metrics.csv; a config.json off the paper's settings; a steps.csv), after
which the check must fail. An output of `figures --parts` is checked on what it ran.
Exit status 1 on any mismatch.
"""
import csv
import gzip
import json
import math
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from study_check import (Checker, NotRun, figures_complete, num, read_csv,  # noqa: E402
                         rule_verdict, run_rows, same_num, sim_rows)

NB = math.nan
ABOVE1, BELOW1 = 1.000001, 0.999999
SCALE_N = [8, 16, 24, 32, 40, 80, 120, 160, 200]
SMALL_N, BIG_N, QUICK_N = 40, 80, 8
CCP = ["admm", "apgd", "pgs-ccp", "admm-ccp"]
IPM = "coneqp"  # scripts/ipm_sap.py graded in sap's parts: the reference of the speedups
SIGMA = [1e-5, 1e-4, 1e-3, 1e-2, 1e-1]
G = 9.81
CYL_DT = [0.02, 0.01, 0.005, 0.0025, 0.00125, 0.000625]
CYL_REF, CYL_NFIT = 8, 3
BELOW0 = -1e-12

# Claim -> (yes conditions, partly conditions), each (value index, lo, hi); nan: no bound.
RULES = {
    "C1": ([(0, 2, 4)], [(0, 1.5, 6)]),
    "C2": ([(0, ABOVE1, NB)], []),
    "C3": ([(0, 0.5, 2), (1, ABOVE1, NB)], [(0, 0.5, 2)]),
    "C4": ([(0, NB, 1e-5)], [(0, NB, 1e-4)]),
    "C5": ([(0, NB, 1e-10)], []),
    "C6": ([(0, 1, 1)], [(0, 0.500001, 1)]),
    "C7": ([(0, 25.0 / 3, 75), (1, 50.0 / 3, 150), (2, ABOVE1, NB)], [(2, ABOVE1, NB)]),
    "C8": ([(0, ABOVE1, NB), (1, 0, BELOW1)], [(2, 0, BELOW1)]),
    "C16": ([(0, 10.0 / 3, 30), (1, 10.0 / 3, 30)], [(0, ABOVE1, NB)]),
    "C17": ([(0, 1, 1)], [(0, 0.500001, 1)]),
    "C18": ([(0, NB, 1e-5)], [(0, NB, 1e-3)]),
    "C9": ([(0, 0.7, 1.3)], [(0, 0.4, 1.6)]),
    "C10": ([(0, 0.81, NB), (1, 0.81, NB)], [(0, 0.5, NB), (1, 0.5, NB)]),
    "C11": ([(0, NB, 1e-2), (1, 0.1, BELOW1), (2, 4, NB)], [(0, NB, 1e-2), (2, 4, NB)]),
    "C12": ([(0, -1.3, -0.7), (1, -1.3, -0.7)], [(0, NB, BELOW0), (1, NB, BELOW0)]),
    "C13": ([(0, 0.16 / 3, 0.48), (1, NB, 0.1)], [(1, NB, 0.1)]),
    "C14": ([(0, 1.7, 2.3), (1, 0.7, 1.3)], [(0, 1.7, 2.3)]),
    "C15": ([(0, 1, 1)], [(0, 0.500001, 1)]),
}

# The paper's stated settings of sap (src/figures/castro2023/study.c cites where).
PAPER = {"sap": {"rel_tol": 1e-5, "abs_tol": 1e-16, "sigma": 1e-3, "beta": 1.0}}

CHECK = Checker("check_study_castro2023", RULES)
fail = CHECK.fail


class Data:
    """runs: (part, label) -> list of solves (dicts: iterations, ms, e_m, e_mu, and trace: the
    e_m of each traced iterate for part fig10) in metrics.csv's order, None when the run's
    solver did not run; contacts: capture id -> contact count; quick: the run was --quick;
    sims: (part, label) -> steps.csv's rows (dicts of floats), None when the sim did not run or
    did not complete (task.json)."""

    def __init__(self, runs, contacts, quick, sims):
        self.runs, self.contacts, self.quick, self.sims = runs, contacts, quick, sims


def check_paper_params(cdir, r, fdir):
    params = json.load(open(os.path.join(fdir, "config.json")))["config"]["params"]
    got = params.get(r["solver"], {})
    for name, want in PAPER.get(r["solver"], {}).items():
        if name not in got or not same_num(float(got[name]), want):
            fail(f"{cdir} {r['part']}/{r['label']}: {r['solver']}.{name} ran as "
                 f"{got.get(name)}, the paper's setting is {want}")


def load_config(cdir):
    runs, ran_parts = {}, set()
    for r, fdir, rows in run_rows(cdir):
        if rows:
            ran_parts.add(r["part"])
        if os.path.basename(cdir) == "paper" and os.path.exists(os.path.join(fdir, "config.json")):
            check_paper_params(cdir, r, fdir)
        solves = []
        for x in rows:
            solves.append({"iterations": int(num(x["iterations"])),
                           "ms": num(x["setup_ms"]) + num(x["solve_ms"]),
                           "e_m": num(x["sap_momentum"]), "e_mu": num(x["sap_compl"])})
        if r["part"] == "fig10" and solves:
            traces = {}
            for t in read_csv(os.path.join(fdir, "traces.csv")):
                if t["solver"] == r["solver"]:
                    traces.setdefault(t["problem"], []).append(num(t["sap_momentum"]))
            for x, row in zip(solves, rows):
                x["trace"] = traces.get(row["problem"], [])
        runs[(r["part"], r["label"])] = solves or None
    sims = {}
    for r, fdir, rows, summary in sim_rows(cdir):
        ok = rows and summary is not None and summary["completed"] and len(rows) > 1
        sims[(r["part"], r["label"])] = [{k: num(v) if k not in ("solver", "status") else v
                                          for k, v in x.items()} for x in rows] if ok else None
    caps = os.path.join(os.path.dirname(cdir), "captures")
    contacts, quick = {}, False
    for cid in os.listdir(caps) if os.path.isdir(caps) else []:  # none: sims alone (--parts)
        if not any(p.startswith(cid + "_") for p in ran_parts):
            continue  # scaling capture cid is its parts' (cid_sap, cid_ccp): none ran here, it
            # is an earlier run's (--parts into the same folder), this run did not make it
        text = open(os.path.join(caps, cid, "capture.txt")).read()
        fields = text.split("\n")[1].split()
        contacts[cid] = int(fields[fields.index("contacts") + 1])
        quick = quick or " quick 1 " in text
    return Data(runs, contacts, quick, sims)


def solves(D, part, label):
    s = D.runs.get((part, label))
    if not s:
        raise NotRun()
    return s


def fmax(a, b):  # C's fmax: a NaN argument loses
    return b if math.isnan(a) else a if math.isnan(b) else max(a, b)


def fmin(a, b):
    return b if math.isnan(a) else a if math.isnan(b) else min(a, b)


def mean(s, key):
    return float(np.mean([x[key] for x in s])) if s else math.nan


def pid(walls, n, sap):
    return f"{'w' if walls else 'n'}{n:03d}_{'sap' if sap else 'ccp'}"


def speedup(D, walls, n):
    """The IPM's mean time per step over sap's (its ms: self-timed, setup_ms 0)."""
    part = pid(walls, n, True)
    return mean(solves(D, part, IPM), "ms") / mean(solves(D, part, "sap"), "ms")


def scale_means(D, label, key):
    return [mean(solves(D, pid(w, n, True), label), key) for w in (1, 0) for n in SCALE_N]


def fifths(D):
    s = solves(D, "fig9_sap", "sap")
    n = len(s)
    k = max(1, n // 5)
    return mean(s[:k], "iterations"), mean(s[n - k:], "iterations")


# ---- sims (slip sweep, spring-cylinder) and Fig. 10's traces ----

def sim(D, part, label):
    r = D.sims.get((part, label))
    if not r:
        raise NotRun()
    return r


def slip_label(walls, k):
    return f"{'walls' if walls else 'nowalls'}_{SIGMA[k]:g}"


def slip_point(D, walls, k):
    """(slip, estimate, mean iterations, cond) of one sigma: the last step's slip against
    sigma mu h g, the mean iterations over the steps with a solve, the last step's cond."""
    r = sim(D, "slip", slip_label(walls, k))
    n = len(r)
    h = (r[-1]["t"] - r[0]["t"]) / (n - 1)
    its = [x["iterations"] for x in r if x["rows"] > 0]
    return (r[-1]["slip"], SIGMA[k] * r[-1]["mu"] * h * G,
            sum(its) / len(its) if its else math.nan, r[-1]["cond"])


def slip_all(D):
    return {w: [slip_point(D, w, k) for k in range(len(SIGMA))] for w in (1, 0)}


def loglog_slope(x, y):
    pts = [(math.log(a), math.log(b)) for a, b in zip(x, y)
           if a > 0 and b > 0 and math.isfinite(b)]
    if len(pts) < 2:
        return math.nan
    a = np.array(pts)
    k = len(pts)
    sx, sy = a[:, 0].sum(), a[:, 1].sum()
    sxx, sxy = (a[:, 0] ** 2).sum(), (a[:, 0] * a[:, 1]).sum()
    den = k * sxx - sx * sx
    return (k * sxy - sx * sy) / den if den > 0 else math.nan


def r2_ln(iters):
    x, y = np.log(np.array(SIGMA)), np.array(iters, dtype=float)
    n = len(x)
    cxy = n * (x * y).sum() - x.sum() * y.sum()
    cxx, cyy = n * (x * x).sum() - x.sum() ** 2, n * (y * y).sum() - y.sum() ** 2
    return float(cxy * cxy / (cxx * cyy)) if cxx > 0 and cyy > 0 else math.nan


def energy(r):
    return [x["kinetic"] + x["potential"] + x["spring"] + x["contact"] - r[0]["potential"] -
            r[0]["contact"] for x in r]


def ptp(D, integrator):
    e = [x for x in energy(sim(D, "cylinder", "energy_" + integrator)) if not math.isnan(x)]
    return (max(e) - min(e)) / energy(sim(D, "cylinder", "energy_" + integrator))[0]


def e_q(D, integrator, j):
    s, ref = sim(D, "cylinder", f"{integrator}_{j + 1}"), sim(D, "cylinder", "ref")
    h, href = CYL_DT[j], CYL_DT[-1] / CYL_REF
    stride = int(math.floor(h / href + 0.5))
    se = 0.0
    for k in range(1, len(s)):
        if k * stride >= len(ref):
            break
        d = s[k]["x"] - ref[k * stride]["x"]
        se += d * d * h
    return math.sqrt(se / (len(s) * h))


def newton(D):
    """C11's values at the paper's step 60, the fig10 capture's last problem."""
    x = solves(D, "fig10", "sap")[-1]
    em = x["trace"]
    m = len(em) - 1
    h = m // 2
    ratios = [em[j + 1] / em[j] for j in range(h)]
    ratios = [q for q in ratios if not math.isnan(q)]
    return [em[m] / em[m - 1] if m >= 1 else math.nan,
            float(np.median(ratios)) if ratios else math.nan, float(x["iterations"])]


def values(cid, D):
    if cid == "C1":
        return [fifths(D)[1]]
    if cid == "C2":
        a, b = fifths(D)
        return [a / b]
    if cid == "C3":
        s, i = solves(D, "fig9_sap", "sap"), solves(D, "fig9_sap", IPM)
        k = max(1, len(s) // 5)
        return [mean(s, "ms") / mean(i, "ms"), mean(s[:k], "iterations") /
                mean(i[:k], "iterations")]
    if cid == "C17":
        s, i = scale_means(D, "sap", "e_m"), scale_means(D, IPM, "e_m")
        return [sum(a > b for a, b in zip(i, s)) / len(s)]
    if cid == "C18":
        m = -math.inf
        for x in scale_means(D, IPM, "e_mu"):
            m = fmax(m, x)
        return [m]
    if cid == "C4":
        m = -math.inf
        for w in (1, 0):
            for n in SCALE_N:
                m = fmax(m, mean(solves(D, pid(w, n, True), "sap"), "e_m"))
        return [m]
    if cid == "C5":
        m = -math.inf
        for (part, label) in D.runs:
            if label == "sap":
                for x in solves(D, part, label):
                    m = fmax(m, x["e_mu"])
        return [m]
    if cid == "C6":
        if any(f"{w}{n:03d}" not in D.contacts for w in "wn" for n in SCALE_N):
            raise NotRun()  # not captured (figures --parts)
        more = sum(D.contacts[f"n{n:03d}"] > D.contacts[f"w{n:03d}"] for n in SCALE_N)
        return [more / len(SCALE_N)]
    if cid == "C7":
        v = [-math.inf, -math.inf, math.inf]
        sw = [speedup(D, 1, n) for n in SCALE_N]
        sn = [speedup(D, 0, n) for n in SCALE_N]
        for k, n in enumerate(SCALE_N):
            if n <= SMALL_N:
                v[0], v[1] = fmax(v[0], sw[k]), fmax(v[1], sn[k])
                v[2] = fmin(v[2], fmin(sn[k], sw[k]))
        return v
    if cid == "C8":
        s = [speedup(D, 1, n) for n in SCALE_N]
        lo = [x for x, n in zip(s, SCALE_N) if n <= SMALL_N]
        hi = [x for x, n in zip(s, SCALE_N) if n > BIG_N]
        a, b = math.inf, -math.inf
        for x in lo:
            a = fmin(a, x)
        for x in hi:
            b = fmax(b, x)
        return [a, b, s[-1] / s[0]]
    if cid == "C16":
        s = [speedup(D, 0, n) for n in SCALE_N if n > BIG_N]
        a, b = math.inf, -math.inf
        for x in s:
            a, b = fmin(a, x), fmax(b, x)
        return [a, b]
    if cid == "C9":
        return [loglog_slope(SIGMA, [q[0] for q in slip_all(D)[1]])]
    if cid == "C10":
        q = slip_all(D)
        return [r2_ln([x[2] for x in q[1]]), r2_ln([x[2] for x in q[0]])]
    if cid == "C12":
        q = slip_all(D)
        return [loglog_slope(SIGMA, [x[3] for x in q[1]]),
                loglog_slope(SIGMA, [x[3] for x in q[0]])]
    if cid == "C15":
        q = slip_all(D)
        below = sum(x[0] / x[1] < 1 for w in (0, 1) for x in q[w])
        return [below / (2 * len(SIGMA))]
    if cid == "C13":
        th, mp = ptp(D, "theta"), ptp(D, "midpoint")
        return [100 * mp, mp / th]
    if cid == "C14":
        e = {i: [e_q(D, i, j) for j in range(len(CYL_DT))] for i in ("theta", "midpoint")}
        a = len(CYL_DT) - CYL_NFIT
        return [loglog_slope(CYL_DT[a:], e["midpoint"][a:]),
                loglog_slope(CYL_DT[a:], e["theta"][a:])]
    if cid == "C11":
        return newton(D)
    raise KeyError(cid)


def verdict(cid, D):
    return rule_verdict(RULES[cid], lambda: values(cid, D))


# Claims measured since the sims and Fig. 10's traces (study_sim.c): a run made before them
# (no sims.csv, e.g. an older committed copy) declared them "not run" without a rule.
SINCE_SIMS = ("C9", "C10", "C11", "C12", "C13", "C14", "C15")


def fig13_rows(D, walls):
    """Fig. 13's data recomputed: per N, the mean e_m of sap and the IPM, the mean e_mu of the
    IPM and sap (nan: not run), as C4, C17 and C18 take them."""
    def m(label, key, n):
        s = D.runs.get((pid(walls, n, True), label))
        return mean(s, key) if s else math.nan
    return [[float(QUICK_N if D.quick else n), m("sap", "e_m", n), m(IPM, "e_m", n),
             m(IPM, "e_mu", n), m("sap", "e_mu", n)] for n in SCALE_N]


def same_rel(a, b):
    """Equal to 1e-9 relative at any scale (same_num's floor of 1 would pass any two errors
    of 1e-10); the file prints 12 digits."""
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
        return same_num(a, b)
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def check_fig13(cdir, part, D):
    """castro2023_fig13.dat of a part that ran (its folder exists: a compact copy keeps none)
    holds the recomputed rows, with fig.md beside it."""
    path = os.path.join(cdir, part, "castro2023_fig13.dat")
    if not os.path.exists(path):
        fail(f"{path}: missing (its part ran)")
        return
    got = [[num(x) for x in line.split()] for line in open(path) if not line.startswith("#")]
    want = fig13_rows(D, part[0] == "w")
    CHECK.checked += 1
    if len(got) != len(want):
        fail(f"{path}: {len(got)} rows, recomputed {len(want)}")
    for g, w in zip(got, want):
        if len(g) != len(w) or not all(same_rel(a, b) for a, b in zip(g, w)):
            fail(f"{path}: row {g}, recomputed {w}")
    if not os.path.exists(os.path.join(cdir, part, "fig.md")):
        fail(f"{cdir}/{part}: no fig.md beside Fig. 13")


def check_config(cdir, quiet=False):
    D = load_config(cdir)
    old = () if os.path.exists(os.path.join(cdir, "sims.csv")) else SINCE_SIMS
    CHECK.compare_claims(cdir, lambda cid: verdict(cid, D), quiet, undeclared=old)
    # a part's folder is this run's when its sap ran (--parts into a folder of an earlier run
    # leaves that run's part folders)
    for part in ("w200_sap", "n200_sap"):
        if os.path.isdir(os.path.join(cdir, part)) and D.runs.get((part, "sap")):
            check_fig13(cdir, part, D)
    # Figs. 9, 11-13 drawn beside their data (a compact copy keeps neither)
    for part, name in (("fig9_sap", "castro2023_fig9"), ("w200_sap", "castro2023_fig12"),
                       ("n200_sap", "castro2023_fig12"), ("w200_sap", "castro2023_fig13"),
                       ("n200_sap", "castro2023_fig13")):
        stem = os.path.join(cdir, part, name)
        if os.path.exists(stem + ".dat") and D.runs.get((part, "sap")):
            CHECK.checked += figures_complete(stem, CHECK.fail)
    return D


# ---- mutations ----

def synth(n, iterations=3, ms=1.0, e_m=1e-8, e_mu=0.0):
    return [{"iterations": iterations, "ms": ms, "e_m": e_m, "e_mu": e_mu} for _ in range(n)]


def timed(walls, pick):
    """Scaling runs of one scene: sap at pick(n)[0] ms, the IPM at pick(n)[1]."""
    out = {}
    for n in SCALE_N:
        ts, tc = pick(n)
        out[(pid(walls, n, True), "sap")] = synth(3, ms=ts)
        out[(pid(walls, n, True), IPM)] = synth(3, ms=tc)
    return out


def both(label, **kw):
    return {(pid(w, n, True), label): synth(3, **kw) for w in (1, 0) for n in SCALE_N}


def all_sap(D, **kw):
    return {k: synth(len(v or [0]), **kw) for k, v in D.runs.items() if k[1] == "sap"}


def slip_sims(slip, iters, cond):
    """Synthetic slip sims: slip(w, sigma), iters(w, sigma), cond(w, sigma) at h 0.01, mu 1."""
    out = {}
    for w in (1, 0):
        for k, sg in enumerate(SIGMA):
            row = {"t": 0.0, "rows": 6.0, "iterations": iters(w, sg), "slip": slip(w, sg),
                   "mu": 1.0, "cond": cond(w, sg)}
            out[("slip", slip_label(w, k))] = [row, dict(row, t=0.01)]
    return out


def est(sg):
    return sg * 0.01 * G


def cyl_sims(mid_ptp, p_mid, p_theta):
    """Synthetic cylinder sims: energies (theta decays to 0; the midpoint rule varies by
    mid_ptp of E0) and positions whose error against the reference is h^p over 0.1 s."""
    out = {}
    for name, e in (("theta", [1.0 - k / 99 for k in range(100)]),
                    ("midpoint", [1.0 - mid_ptp * (k % 2) for k in range(100)])):
        out[("cylinder", "energy_" + name)] = [
            {"kinetic": x, "potential": 0.0, "spring": 0.0, "contact": 0.0} for x in e]
    href = CYL_DT[-1] / CYL_REF
    out[("cylinder", "ref")] = [{"x": math.cos(k * href)} for k in range(int(0.1 / href))]
    for name, p in (("theta", p_theta), ("midpoint", p_mid)):
        for j, h in enumerate(CYL_DT):
            n = int(round(0.1 / h))
            out[("cylinder", f"{name}_{j + 1}")] = [{"x": math.cos(k * h) + h ** p}
                                                    for k in range(n)]
    return out


def trace_solves(trace):
    return [{"iterations": len(trace), "ms": 1.0, "e_m": 1e-8, "e_mu": 0.0, "trace": trace}]


def one(w, sg):
    return 1.0


def mutations(D):
    """claim -> {"yes": replacement, "no": replacement}; a replacement maps (part, label) to
    solves, "contacts" to a capture id -> count map, or "sims" to (part, label) -> rows."""
    fig9, fig9i = ("fig9_sap", "sap"), ("fig9_sap", IPM)
    transient = synth(2, iterations=10) + synth(8, iterations=3)
    return {
        "C3": {"yes": {fig9: transient, fig9i: synth(10, iterations=5, ms=1.5)},
               "no": {fig9: transient, fig9i: synth(10, iterations=5, ms=10)}},
        "C17": {"yes": {**both("sap", e_m=1e-8), **both(IPM, e_m=1e-6)},
                "no": {**both("sap", e_m=1e-6), **both(IPM, e_m=1e-8)}},
        "C18": {"yes": both(IPM, e_mu=1e-7), "no": both(IPM, e_mu=1e-2)},
        "C1": {"yes": {fig9: synth(10, iterations=3)}, "no": {fig9: synth(10, iterations=10)}},
        "C2": {"yes": {fig9: transient}, "no": {fig9: synth(10, iterations=3)}},
        "C4": {"yes": all_sap(D, e_m=1e-7), "no": all_sap(D, e_m=1e-3)},
        "C5": {"yes": all_sap(D, e_mu=0.0), "no": all_sap(D, e_mu=1e-6)},
        "C6": {"yes": {"contacts": {**{f"w{n:03d}": 10 for n in SCALE_N},
                                    **{f"n{n:03d}": 20 for n in SCALE_N}}},
               "no": {"contacts": {**{f"w{n:03d}": 20 for n in SCALE_N},
                                   **{f"n{n:03d}": 10 for n in SCALE_N}}}},
        "C7": {"yes": {**timed(1, lambda n: (1, 25)), **timed(0, lambda n: (1, 50))},
               "no": {**timed(1, lambda n: (10, 1)), **timed(0, lambda n: (10, 1))}},
        "C8": {"yes": timed(1, lambda n: (1, 5) if n <= SMALL_N else (5, 1)),
               "no": timed(1, lambda n: (1, 5))},
        "C16": {"yes": timed(0, lambda n: (1, 10)), "no": timed(0, lambda n: (10, 1))},
        "C9": {"yes": {"sims": slip_sims(lambda w, sg: 0.1 * est(sg), lambda w, sg: 3, one)},
               "no": {"sims": slip_sims(lambda w, sg: 1e-6, lambda w, sg: 3, one)}},
        "C10": {"yes": {"sims": slip_sims(lambda w, sg: 1e-6, lambda w, sg: 2 - math.log(sg),
                                          one)},
                "no": {"sims": slip_sims(lambda w, sg: 1e-6,
                                         lambda w, sg: 3 + 2 * (SIGMA.index(sg) % 2), one)}},
        "C12": {"yes": {"sims": slip_sims(lambda w, sg: 1e-6, lambda w, sg: 3,
                                          lambda w, sg: 1 / sg)},
                "no": {"sims": slip_sims(lambda w, sg: 1e-6, lambda w, sg: 3,
                                         lambda w, sg: sg)}},
        "C15": {"yes": {"sims": slip_sims(lambda w, sg: 0.1 * est(sg), lambda w, sg: 3, one)},
                "no": {"sims": slip_sims(lambda w, sg: 10 * est(sg), lambda w, sg: 3, one)}},
        "C13": {"yes": {"sims": cyl_sims(1e-3, 2, 1)}, "no": {"sims": cyl_sims(0.5, 2, 1)}},
        "C14": {"yes": {"sims": cyl_sims(1e-3, 2, 1)}, "no": {"sims": cyl_sims(1e-3, 1, 1)}},
        "C11": {"yes": {("fig10", "sap"): trace_solves([1, 0.5, 0.25, 0.125, 0.0625, 1e-4,
                                                         1e-9])},
                "no": {("fig10", "sap"): trace_solves([1, 0.5, 0.25, 0.125])}},
    }


def mutate(cdir, D):
    for cid, muts in mutations(D).items():
        for want, repl in muts.items():
            runs, sims = dict(D.runs), dict(D.sims)
            runs.update({k: v for k, v in repl.items() if k not in ("contacts", "sims")})
            sims.update(repl.get("sims", {}))
            D2 = Data(runs, repl.get("contacts", D.contacts), D.quick, sims)
            got, v = verdict(cid, D2)
            CHECK.checked += 1
            if got != want:
                fail(f"mutation {os.path.basename(cdir)} {cid} -> {want}: verdict {got} {v}")
    untested = [c for c, r in RULES.items()
                if r is not None and c not in mutations(D)]
    if untested:
        fail(f"claims without a mutation: {untested}")


def rewrite(path, change):
    rows = read_csv(path)
    fields = list(rows[0].keys())
    for r in rows:
        change(r)
    with open(path, "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=fields)
        wr.writeheader()
        wr.writerows(rows)


def plain(path):
    """path as a plain file (a compact copy's path.gz unpacked in place)."""
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        with gzip.open(path + ".gz", "rt") as f:
            text = f.read()
        open(path, "w").write(text)
        os.remove(path + ".gz")
    return path


def more(r):  # C1: as if sap had needed 10 more Newton iterations a step
    r["iterations"] = str(int(num(r["iterations"])) + 10)


def faster(r):  # C9: the largest sigma's slip 1000 times larger
    r["slip"] = repr(num(r["slip"]) * 1000)


def scale_last_row(path):  # Fig. 13: sap's e_m at the largest N doubled
    lines = open(path).read().splitlines(True)
    x = lines[-1].split()
    x[1] = repr(2 * float(x[1]))
    lines[-1] = " ".join(x) + "\n"
    open(path, "w").writelines(lines)


def off_paper(copy):
    cpath = os.path.join(copy, "paper", "fig9_sap-0", "config.json")
    cfg = json.load(open(cpath))
    cfg["config"]["params"]["sap"]["rel_tol"] = 1e-6  # our default, not the paper's
    json.dump(cfg, open(cpath, "w"))


def mutate_raw(out):
    """Perturbs one raw file of a fresh copy at a time (those the output has: a run with
    --parts has some): the comparison must then fail."""
    perturbs = []
    if os.path.isdir(os.path.join(out, "paper", "fig9_sap-0")):
        perturbs += [("a perturbed metrics.csv", lambda c: rewrite(
            plain(os.path.join(c, "paper", "fig9_sap-0", "metrics.csv")), more)),
            ("a solve off the paper's settings", off_paper)]
    if os.path.isdir(os.path.join(out, "paper", "slip-walls_0.1")):
        perturbs.append(("a perturbed steps.csv", lambda c: rewrite(
            plain(os.path.join(c, "paper", "slip-walls_0.1", "steps.csv")), faster)))
    fig13 = os.path.join("paper", "w200_sap", "castro2023_fig13")
    if os.path.exists(os.path.join(out, fig13 + ".dat")):
        perturbs.append(("a scaled row of castro2023_fig13.dat", lambda c: scale_last_row(
            os.path.join(c, fig13 + ".dat"))))
        if shutil.which("gnuplot"):  # without it the run draws nothing (figures_complete)
            perturbs.append(("a removed Fig. 13 figure",
                             lambda c: os.remove(os.path.join(c, fig13 + ".png"))))
    if not perturbs:
        fail(f"{out}: no raw file to perturb")
    CHECK.raw_mutations(out, "castro2023", perturbs, expect_failure_of)


def expect_failure_of(copy):
    check_config(os.path.join(copy, "paper"), quiet=True)


sys.exit(CHECK.main("castro2023", sys.argv, check_config, mutate, mutate_raw))
