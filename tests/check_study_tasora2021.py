#!/usr/bin/python3
"""Independent checker of the Tasora et al. 2021 study (src/figures/tasora2021/).

Runs `ncpbench figures --paper tasora2021 --quick` into a scratch folder (or checks OUT, the
study's folder OUT/tasora2021, given as the argument) and recomputes, for each configuration,
every claim's values and verdict from the raw results the run kept: runs.csv (which folder and
solver holds each run), each folder's metrics.csv (status, iterations, final metrics),
traces.csv (every iterate of TEST 1, the log sample of TEST 2) and config.json (the budget the
pipeline ran with), and the scenes' time step (scenes/*.json); traces.csv.gz in place of
traces.csv in the compact copies of scripts/compact_study.py (results/tasora2021/). It never reads the program's
values, verdicts, .dat files or counts to compute: claims.csv is read only at the end, to
compare, and the check fails when a value (relative 1e-9), a verdict or a rule's thresholds
differ, or when a solve of the "paper" configuration ran with other settings than the paper's. The rules below are this checker's own copy of the declaration
(src/figures/tasora2021/claims.c).

With --mutate, also shows that every rule can fail and pass: for each claim, the raw input of
its runs is replaced by a synthetic run placed beyond the rule's band on either side, and the
checker's verdict must follow ("yes" one way, "no" the other); and one raw file of a copy of the
output is perturbed (a metrics.csv; a config.json off the paper's settings), after which the
check must fail.
Exit status 1 on any mismatch.
"""
import csv
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from study_check import Checker, NotRun, num, read_csv, rule_verdict, same_num  # noqa: E402

SRC = os.environ.get("SRCDIR", ".")
VIOL_LEVEL = 1e-9  # m/s, TEST 1
TOL1, TOL2 = 1e-10, 1e-8
BELOW1 = 0.999999
NB = math.nan

# Claim -> (yes conditions, partly conditions), each (value index, lo, hi); nan: no bound.
RULES = {
    "T1": ([(0, 1, 19)], [(0, 1, 40)]),
    "T2a": ([(0, 0, 0.5)], [(0, 0, BELOW1)]),
    "T2b": ([(0, 0, BELOW1)], []),
    "T3": ([(0, 3, NB)], [(1, 3, NB)]),
    "T4": ([(0, 0, 2)], [(1, 1, 1)]),
    "T5": ([(0, 1.5, NB)], [(0, 1.000001, NB)]),
    "T6": ([(0, 1, 1), (1, 1.000001, NB)], [(0, 1, 1)]),
    "T7": ([(0, 0, 0), (1, 0, BELOW1)], [(1, 0, 1)]),
    "T8": ([(0, 1, 2), (1, 1, 1)], []),
    "T9": ([(0, 10, NB), (1, 0, 1.0 / 3.0)], [(0, 10, NB)]),
    "T10": None,  # not testable
    "W1": ([(0, 0, 0.5), (1, 0, 0.5)], [(0, 0, 0.5)]),
    "W3": ([(0, 0, 0.5), (1, 0, 0.5)], [(0, 0, 0.5)]),
    "W4": ([(0, NB, 0)], [(0, NB, 3)]),
}
PART_SCENE = {"fig2": "tasora-test1b.json", "fig4": "tasora-test1b.json",
              "fig3_5": "tasora-test1a.json", "fig6": "tasora-test1a.json", "fig8": None}

CHECK = Checker("check_study_tasora2021", RULES)
fail = CHECK.fail


class Run:
    """One run's raw result: metrics.csv row, trace rows, the budget it ran under."""

    def __init__(self, ran, iterations=0, converged=False, final=None, trace=None,
                 max_iter=0, tol=0.0, status=""):
        self.ran, self.iterations, self.converged = ran, iterations, converged
        self.final = final or {}
        self.trace = trace  # dict: iteration -> np.array, metric -> np.array
        self.max_iter, self.tol, self.status = max_iter, tol, status


# The paper's stated settings (src/figures/tasora2021/study.c cites where): what the pipeline
# must have run every solve of the "paper" configuration with (config.json), beside the run's own.
PAPER = {"admm": {"rho": 0.1, "rho_sqrt": 0, "max_rho_changes": 1000000},
         "fadmm": {"rho": 0.05, "restart_eps": 0.999}}


def check_paper_params(cdir, r, fdir):
    params = json.load(open(os.path.join(fdir, "config.json")))["config"]["params"]
    got = params.get(r["solver"], {})
    own = dict(kv.split("=") for kv in r["params"].split(";") if kv)
    for name, want in PAPER.get(r["solver"], {}).items():
        if name == "rho" and r["part"] == "fig6":
            want = float(own["rho"])  # Fig. 6's sweep sets its own fixed step
        if name not in got or not same_num(float(got[name]), want):
            fail(f"{cdir} {r['part']}/{r['label']}: {r['solver']}.{name} ran as "
                 f"{got.get(name)}, the paper's setting is {want}")


def load_config(cdir, h_of):
    """{(part, label): Run} from runs.csv and the run folders."""
    runs = {}
    folders = {}
    for r in read_csv(os.path.join(cdir, "runs.csv")):
        key = (r["part"], r["label"])
        fdir = os.path.join(cdir, r["folder"])
        if r.get("ran", "1") == "0":  # its folder may be an earlier run's (study_check.run_rows)
            runs[key] = Run(False)
            continue
        if os.path.basename(cdir) == "paper" and os.path.exists(os.path.join(fdir, "config.json")):
            check_paper_params(cdir, r, fdir)
        if r["folder"] not in folders:
            m = os.path.join(fdir, "metrics.csv")
            if not os.path.exists(m):
                folders[r["folder"]] = None
            else:
                cfg = json.load(open(os.path.join(fdir, "config.json")))["config"]
                folders[r["folder"]] = (read_csv(m), read_csv(os.path.join(fdir, "traces.csv")),
                                        cfg["budget"]["max_iter"], cfg["budget"]["tol"])
        fo = folders[r["folder"]]
        rows = [x for x in fo[0] if x["solver"] == r["solver"]] if fo else []
        if not rows:
            runs[key] = Run(False)
            continue
        row = rows[0]
        tr = [x for x in fo[1] if x["solver"] == r["solver"] and x["problem"] == row["problem"]]
        trace = {k: np.array([num(x[k]) for x in tr]) for k in
                 ("iteration", "natural_map_rel_acary", "penetration", "ncp_dual")}
        h = h_of(r["part"])
        trace["viol"] = trace["ncp_dual"] if h is None else trace["penetration"] / h
        final = {k: num(row[k]) for k in ("natural_map_rel_acary", "ncp_dual")}
        run = Run(True, int(num(row["iterations"])), bool(int(row["converged"])), final, trace,
                  fo[2], fo[3], row["status"])
        # the converged flag is the harness's: natural map <= tol at the last iterate
        if run.converged != (final["natural_map_rel_acary"] <= fo[3]):
            fail(f"{cdir} {key}: converged {run.converged} but final natural map "
                 f"{final['natural_map_rel_acary']} against tol {fo[3]}")
        runs[key] = run
    return runs


def get(R, part, label):
    r = R[(part, label)]
    if not r.ran:
        raise NotRun()
    return r


def cost(r):
    return r.iterations if r.converged else r.max_iter + 1


def viol_iter(r):
    it, vi = r.trace["iteration"], r.trace["viol"]
    k = 0
    for i in range(len(it) - 1, -1, -1):
        if it[i] < 1 or not vi[i] <= VIOL_LEVEL:
            break
        k = it[i]
    return k if k > 0 else r.max_iter + 1


def trail(R, part, admm, jac):
    a, j = get(R, part, admm), get(R, part, jac)
    k = a.iterations
    sel = j.trace["natural_map_rel_acary"][j.trace["iteration"] <= k]
    nj = sel[-1] if len(sel) else math.nan
    return math.log10(nj / max(a.final["natural_map_rel_acary"], TOL1))


def ratio8(R, a, b):
    ra, rb = get(R, "fig8", a), get(R, "fig8", b)
    return [ra.final["ncp_dual"] / rb.final["ncp_dual"],
            ra.final["natural_map_rel_acary"] / rb.final["natural_map_rel_acary"]]


NS = [("n_s=1", 1), ("n_s=2", 2), ("n_s=5", 5), ("n_s=10", 10)]


def values(cid, R):
    """The claim's values, recomputed from the raw runs (NotRun when a run is missing)."""
    if cid == "T1":
        return [cost(get(R, "fig3_5", "n_s=5"))]
    if cid in ("T2a", "T2b"):
        other = "Jacobi" if cid == "T2a" else "P-SPG-FB"
        return [viol_iter(get(R, "fig2", "P-ADMM")) / viol_iter(get(R, "fig2", other))]
    if cid == "T3":
        da = trail(R, "fig3_5", "n_s=5", "Jacobi(text_only)")
        db = trail(R, "fig2", "P-ADMM", "Jacobi")
        return [min(da, db), max(da, db)]
    if cid == "T4":
        f, a = get(R, "fig4", "P-FADMM"), get(R, "fig4", "P-ADMM(n_s=5)")
        return [cost(f) / cost(a) if f.converged else math.inf, 1.0 if f.converged else 0.0]
    if cid == "T5":
        return [cost(get(R, "fig4", "FADMM")) / cost(get(R, "fig4", "P-FADMM"))]
    if cid == "T6":
        p, a = get(R, "fig4", "P-ADMM(n_s=5)"), get(R, "fig4", "ADMM(n_s=5)")
        return [1.0 if p.converged else 0.0, cost(a) / cost(p)]
    if cid == "T7":
        it = [cost(get(R, "fig3_5", lab)) for lab, _ in NS]
        return [float(sum(1 for i in range(1, 4) if it[i] < it[i - 1])), it[0] / it[3]]
    if cid == "T8":
        rs = [get(R, "fig3_5", lab) for lab, _ in NS]
        upd = [cost(r) / n for r, (_, n) in zip(rs, NS)]
        return [max(upd) / min(upd), 1.0 if all(r.converged for r in rs) else 0.0]
    if cid == "T9":
        r05 = cost(get(R, "fig6", "rho=0.05"))
        best = min(cost(get(R, "fig6", x)) for x in ("rho=0.001", "rho=0.01", "rho=0.1",
                                                        "rho=0.5"))
        return [r05 / cost(get(R, "fig3_5", "n_s=5")), best / r05]
    if cid == "W1":
        return ratio8(R, "P-ADMM", "Jacobi")
    if cid == "W3":
        return ratio8(R, "P-ADMM", "ADMM")
    if cid == "W4":
        return [math.log10(get(R, "fig8", "P-ADMM").final["natural_map_rel_acary"] / TOL2)]
    raise KeyError(cid)


def verdict(cid, R):
    return rule_verdict(RULES[cid], lambda: values(cid, R))


def h_of_part(part):
    scene = PART_SCENE[part]
    if scene is None:
        return None
    return json.load(open(os.path.join(SRC, "scenes", scene)))["timestep"]


def check_config(cdir, quiet=False):
    R = load_config(cdir, h_of_part)
    CHECK.compare_claims(cdir, lambda cid: verdict(cid, R), quiet)
    return R


# ---- mutations ----

def synth(n, converged, max_iter, viol_from=None, nat_end=None, viol_end=None, tol=TOL1):
    """A synthetic run of n iterations: natural map falling geometrically from 1 to nat_end
    (tol / 10 when converged, 1 otherwise), violation 1 before viol_from and 0 from it."""
    nat_end = nat_end if nat_end is not None else (tol / 10 if converged else 1.0)
    it = np.arange(1, n + 1, dtype=float)
    nat = np.geomspace(1.0, nat_end, n) if nat_end > 0 else np.zeros(n)
    viol = np.ones(n) if viol_from is None else np.where(it >= viol_from, 0.0, 1.0)
    if viol_end is not None:
        viol[-1] = viol_end
    trace = {"iteration": it, "natural_map_rel_acary": nat, "viol": viol,
             "penetration": viol, "ncp_dual": viol}
    return Run(True, n, converged, {"natural_map_rel_acary": nat[-1], "ncp_dual": viol[-1]},
               trace, max_iter, tol, "converged" if converged else "max_iter")


def mutations(R):
    """claim -> {"yes": {run: Run}, "no": {run: Run}}: raw inputs beyond the band each way."""
    M = R[("fig2", "P-ADMM")].max_iter
    M8 = R[("fig8", "P-ADMM")].max_iter

    def conv(n):
        return synth(n, True, M)

    def stuck():
        return synth(M, False, M)

    def w(a, b):
        good = synth(M8, False, M8, nat_end=1e-6, viol_end=1e-6, tol=TOL2)
        poor = synth(M8, False, M8, nat_end=1.0, viol_end=1.0, tol=TOL2)
        return {"yes": {("fig8", a): good, ("fig8", b): poor},
                "no": {("fig8", a): poor, ("fig8", b): good}}

    fast = synth(20, True, M, viol_from=10)
    return {
        "T1": {"yes": {("fig3_5", "n_s=5"): conv(10)}, "no": {("fig3_5", "n_s=5"): stuck()}},
        "T2a": {"yes": {("fig2", "P-ADMM"): fast, ("fig2", "Jacobi"): stuck()},
                "no": {("fig2", "P-ADMM"): stuck(), ("fig2", "Jacobi"): fast}},
        "T2b": {"yes": {("fig2", "P-ADMM"): fast, ("fig2", "P-SPG-FB"): stuck()},
                "no": {("fig2", "P-ADMM"): stuck(), ("fig2", "P-SPG-FB"): fast}},
        "T3": {"yes": {("fig3_5", "n_s=5"): conv(20), ("fig2", "P-ADMM"): conv(20),
                       ("fig3_5", "Jacobi(text_only)"): stuck(), ("fig2", "Jacobi"): stuck()},
               "no": {("fig3_5", "n_s=5"): conv(20), ("fig2", "P-ADMM"): conv(20),
                      ("fig3_5", "Jacobi(text_only)"): conv(5), ("fig2", "Jacobi"): conv(5)}},
        "T4": {"yes": {("fig4", "P-FADMM"): conv(10), ("fig4", "P-ADMM(n_s=5)"): conv(20)},
               "no": {("fig4", "P-FADMM"): stuck(), ("fig4", "P-ADMM(n_s=5)"): conv(20)}},
        "T5": {"yes": {("fig4", "FADMM"): stuck(), ("fig4", "P-FADMM"): conv(10)},
               "no": {("fig4", "FADMM"): conv(10), ("fig4", "P-FADMM"): conv(10)}},
        "T6": {"yes": {("fig4", "P-ADMM(n_s=5)"): conv(10), ("fig4", "ADMM(n_s=5)"): stuck()},
               "no": {("fig4", "P-ADMM(n_s=5)"): stuck(), ("fig4", "ADMM(n_s=5)"): conv(10)}},
        "T7": {"yes": {("fig3_5", lab): conv(10 * (i + 1)) for i, (lab, _) in enumerate(NS)},
               "no": {("fig3_5", lab): conv(10 * (4 - i)) for i, (lab, _) in enumerate(NS)}},
        "T8": {"yes": {("fig3_5", lab): conv(10 * n) for lab, n in NS},
               "no": {("fig3_5", lab): conv(10) for lab, _ in NS}},
        "T9": {"yes": {("fig6", "rho=0.05"): stuck(), ("fig6", "rho=0.001"): conv(10),
                       ("fig3_5", "n_s=5"): conv(5)},
               "no": {("fig6", "rho=0.05"): conv(5), ("fig3_5", "n_s=5"): conv(5)}},
        "W1": w("P-ADMM", "Jacobi"),
        "W3": w("P-ADMM", "ADMM"),
        "W4": {"yes": {("fig8", "P-ADMM"): synth(30, True, M8, tol=TOL2)},
               "no": {("fig8", "P-ADMM"): synth(M8, False, M8, nat_end=1.0, tol=TOL2)}},
    }


def mutate(cdir, R):
    for cid, muts in mutations(R).items():
        for want, repl in muts.items():
            R2 = dict(R)
            R2.update(repl)
            got, v = verdict(cid, R2)
            CHECK.checked += 1
            if got != want:
                fail(f"mutation {os.path.basename(cdir)} {cid} -> {want}: verdict {got} {v}")
    untested = [c for c, r in RULES.items() if r is not None and c not in mutations(R)]
    if untested:
        fail(f"claims without a mutation: {untested}")


def not_converged(copy):
    """n_s = 5 of T1 as if it had not converged."""
    path = os.path.join(copy, "paper", "fig3_5-2", "metrics.csv")
    rows = read_csv(path)
    fields = list(rows[0].keys())
    for r in rows:
        r["converged"], r["iterations"] = "0", str(int(num(r["iterations"])) + 1000)
        r["natural_map_rel_acary"] = "1"
    with open(path, "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=fields)
        wr.writeheader()
        wr.writerows(rows)


def off_paper(copy):
    """The paper's configuration run with our step rule instead of the paper's."""
    cpath = os.path.join(copy, "paper", "fig2-0", "config.json")
    cfg = json.load(open(cpath))
    cfg["config"]["params"]["admm"]["rho_sqrt"] = 1
    json.dump(cfg, open(cpath, "w"))


def mutate_raw(out):
    CHECK.raw_mutations(out, "tasora2021", [("a perturbed metrics.csv", not_converged),
                                            ("a solve off the paper's settings", off_paper)],
                        lambda copy: check_config(os.path.join(copy, "paper"), quiet=True))


sys.exit(CHECK.main("tasora2021", sys.argv, check_config, mutate, mutate_raw))
