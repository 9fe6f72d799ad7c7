#!/usr/bin/python3
"""Independent recomputation of the natural map from an output directory.

Reads DIR/problems.h5 (D, v_f, blocks; D = J A^-1 J^T and v_f = J A^-1 b + e rebuilt here with
numpy from primal/ when the file stores no dual/), DIR/solutions.h5 (every solver's final
lambda) and DIR/metrics.csv, recomputes u = D lambda + v_f and the natural map
F = lambda - Pi_K(lambda - (u + Gamma(u))) per block with numpy (code written here, not
ncpbench's), and checks natural_map_abs, natural_map_inf and natural_map_rel_siconos of every
row of metrics.csv. Also checks that metrics.csv has the documented columns (the metric columns,
then note, problem_title, problem_description last), that u stored in solutions.h5 equals
D lambda + v_f, that v stored there equals A^-1 (b + J^T lambda) (numpy's solve) wherever the problem
has dense primal data, whatever velocity the solver iterated on, and that an unsupported row (the problem lacks what the solver needs) has a
reason in its note, NaN metrics and no answer in solutions.h5. Exit status 1 on any mismatch.

    check_outputs.py DIR [--solver-v S1,S2,...] [--graded]
--solver-v: those solvers' entries must also hold their own velocity, v_solver (nv).
--graded: the rows are `ncpbench grade`'s (self-timed: the profile and clock checks skipped).
"""
import csv
import json
import re
import sys

import h5py
import numpy as np
import scipy.sparse

REQUIRED = ["problem", "solver", "iterations", "converged", "setup_ms", "solve_ms", "wall_ms",
            "al_residual", "natural_map_abs", "natural_map_rel_acary",
            "natural_map_rel_siconos", "natural_map_rel_fclib", "ncp_primal", "ncp_dual",
            "ncp_compl", "penetration"]
TAIL = ["note", "problem_title", "problem_description"]


def proj_cone(mu, x):
    xn, xt = x[0], x[1:]
    s = np.linalg.norm(xt)
    if s <= mu * xn:
        return x.copy()
    if mu * s <= -xn:
        return np.zeros(3)
    a = (xn + mu * s) / (1 + mu * mu)
    return np.concatenate(([a], mu * a * xt / s))


def natural_map(blocks, lam, u):
    F = np.zeros_like(lam)
    for (typ, row, mu, k, c, phi) in blocks:
        if typ == 0:      # bilateral: lambda free, u = 0
            F[row] = u[row]
        elif typ == 1:    # unilateral
            F[row] = min(lam[row], u[row])
        elif typ == 2:    # contact, De Saxce-corrected
            uu = u[row:row + 3]
            w = uu + np.array([mu * np.linalg.norm(uu[1:]), 0, 0])
            F[row:row + 3] = lam[row:row + 3] - proj_cone(mu, lam[row:row + 3] - w)
        elif typ == 3:    # soft: residual of lambda = -k phi - c u
            F[row] = lam[row] + k * phi + c * u[row]
    return F


def dual(g):
    """D, v_f: stored, or rebuilt from the primal data by LU (numpy; ncpbench uses Cholesky)."""
    if "dual" in g:
        return np.array(g["dual/D"]), np.array(g["dual/vf"])
    A, b, e = (np.array(g["primal/" + k]) for k in ("A", "b", "e"))
    J = scipy.sparse.csr_matrix((g["primal/J/x"][()], g["primal/J/i"][()], g["primal/J/p"][()]),
                                shape=(len(e), len(b)))
    X = np.linalg.solve(A, np.column_stack([J.T.toarray(), b]))
    return J @ X[:, :-1], J @ X[:, -1] + e


def check_profile(d, rows):
    """summary.json "profile": its solver time is the sum of the rows' setup_ms + solve_ms (an
    independent sum over metrics.csv), its parts are >= 0, its overhead is their ratio."""
    with open(f"{d}/summary.json") as f:
        s = json.load(f)
    p = s.get("profile")
    if p is None:
        print("summary.json has no profile")
        return 1
    bad = 0
    for k in ("capture_ms", "load_ms", "solve_wall_ms", "solver_ms", "monitor_ms", "harness_ms",
              "write_ms", "figures_ms"):
        if not (isinstance(p.get(k), (int, float)) and p[k] >= 0):
            print(f"profile.{k} = {p.get(k)!r}, want a number >= 0")
            bad += 1
    if bad or s.get("kept_from_earlier_run"):
        return bad  # kept rows were solved by an earlier run: not in this run's profile
    want = sum(float(r["setup_ms"]) + float(r["solve_ms"]) for r in rows
               if r["status"] != "unsupported")
    if not abs(p["solver_ms"] - want) <= 1e-9 * max(1.0, want):
        print(f"profile.solver_ms {p['solver_ms']} != sum of setup_ms + solve_ms {want}")
        bad += 1
    if p["solver_ms"] > 0:
        ratio = (p["monitor_ms"] + p["harness_ms"]) / p["solver_ms"]
        if not abs(p["harness_overhead"] - ratio) <= 1e-12 * max(1.0, ratio):
            print(f"profile.harness_overhead {p['harness_overhead']} != {ratio}")
            bad += 1
    # the solve phase holds every solve (-j 1): its wall time bounds the sums of its parts
    if s.get("jobs") == 1 and p["solver_ms"] + p["monitor_ms"] > p["solve_wall_ms"] * 1.001 + 1:
        print(f"profile: solver + monitor {p['solver_ms'] + p['monitor_ms']} ms exceed the solve "
              f"phase's wall time {p['solve_wall_ms']} ms")
        bad += 1
    return bad


def check_clock(d, rows):
    """summary.json names the clock, the machine and the problem set's checksum; every row that
    ran has its wall time beside the time on that clock (and equal to it under the wall clock)."""
    with open(f"{d}/summary.json") as f:
        s = json.load(f)
    bad = 0
    m = s.get("machine") or {}
    la = m.get("load_average_at_start")
    if s.get("clock") not in ("cpu", "wall") or not isinstance(m.get("cpu"), str) or \
            not (isinstance(m.get("cores"), int) and m["cores"] >= 1) or \
            not (isinstance(la, list) and len(la) == 3) or \
            not re.fullmatch(r"[0-9a-f]{16}", s.get("problem_set_checksum", "")) or \
            not s.get("blas"):
        print(f"summary.json: clock {s.get('clock')!r}, machine {m!r}, checksum "
              f"{s.get('problem_set_checksum')!r}, blas {s.get('blas')!r}")
        bad += 1
    for r in rows:
        if r["status"] == "unsupported":
            continue
        t, w = float(r["setup_ms"]) + float(r["solve_ms"]), float(r["wall_ms"])
        if not w >= 0 or (s.get("clock") == "wall" and abs(t - w) > 1e-9 * max(1.0, w)):
            print(f"{r['problem']} {r['solver']}: wall_ms {w} beside setup_ms + solve_ms {t} "
                  f"({s.get('clock')} clock)")
            bad += 1
        lo, hi = float(r["time_min_ms"]), float(r["time_max_ms"])
        if not lo <= t * (1 + 1e-12) + 1e-12 or not t <= hi * (1 + 1e-12) + 1e-12 or \
                (s.get("repeat") == 1 and lo != hi):
            print(f"{r['problem']} {r['solver']}: time {t} outside [{lo}, {hi}] "
                  f"(repeat {s.get('repeat')})")
            bad += 1
    return bad


def check_v(name, g, s):
    """v = A^-1 (b + J^T lambda) for dense primal data (numpy; ncpbench uses Cholesky)."""
    if "primal/A" not in g:
        return 0
    A, b = np.array(g["primal/A"]), np.array(g["primal/b"])
    J = scipy.sparse.csr_matrix((g["primal/J/x"][()], g["primal/J/i"][()], g["primal/J/p"][()]),
                                shape=(len(g["primal/e"]), len(b)))
    if "v" not in s:
        print(f"{name}: no v in solutions.h5 though the problem has primal data")
        return 1
    rhs = b + J.T @ np.array(s["r"])
    want = np.linalg.solve(A, rhs)
    # rounding relative to the right-hand side's terms through A^-1 (a diverged lambda)
    scale = np.abs(np.linalg.solve(A, np.abs(b) + abs(J.T) @ np.abs(np.array(s["r"]))))
    err = np.abs(np.array(s["v"]) - want)
    if not np.all(err <= 1e-9 * (np.linalg.norm(scale, np.inf) + np.abs(want) + 1e-300) + 1e-14):
        print(f"{name}: stored v != A^-1 (b + J^T lambda): max |diff| {err.max():.3e}")
        return 1
    return 0


def main(d, solver_v=(), graded=False):
    bad = 0
    with open(f"{d}/metrics.csv", newline="") as f:
        rows = list(csv.DictReader(f))
        header = rows[0].keys() if rows else []
    for col in REQUIRED:
        if col not in header:
            print(f"metrics.csv lacks column {col}")
            bad += 1
    if list(header)[-3:] != TAIL:
        print(f"metrics.csv does not end with the columns {TAIL}")
        bad += 1
    P = h5py.File(f"{d}/problems.h5", "r")
    S = h5py.File(f"{d}/solutions.h5", "r")
    checked = 0
    for r in rows:
        if r["status"] == "unsupported":
            answered = r["solver"] in S["solutions"] and r["problem"] in S["solutions"][r["solver"]]
            if not r["note"] or r["natural_map_abs"] != "nan" or answered:
                print(f"{r['problem']} {r['solver']}: unsupported row without its reason, "
                      "with metrics or with an answer")
                bad += 1
            continue
        g = P["problems"][r["problem"]]
        D, vf = dual(g)
        bl = g["blocks"]
        blocks = list(zip(bl["type"][()], bl["row"][()], bl["mu"][()], bl["k"][()],
                          bl["c"][()], bl["phi"][()]))
        s = S["solutions"][r["solver"]][r["problem"]]
        lam = np.array(s["r"])
        u = D @ lam + vf
        # rounding is relative to the terms summed, |D| |lambda| + |v_f|, not to u: a diverged
        # iterate (|lambda| ~ 1e14) leaves u with cancellation errors far above 1e-12 |u|
        scale = np.abs(D) @ np.abs(lam) + np.abs(vf)
        if not np.all(np.abs(np.array(s["u"]) - u) <= 1e-12 * (scale + 1.0)):
            print(f"{r['problem']} {r['solver']}: stored u != D lambda + v_f")
            bad += 1
        bad += check_v(f"{r['problem']} {r['solver']}", g, s)
        if r["solver"] in solver_v and ("v_solver" not in s or "v" in s and
                                        s["v_solver"].shape != s["v"].shape):
            print(f"{r['problem']} {r['solver']}: no v_solver (the solver's own velocity)")
            bad += 1
        F = natural_map(blocks, lam, u)
        want = {"natural_map_abs": np.linalg.norm(F),
                "natural_map_inf": np.abs(F).max() if F.size else 0.0,
                "natural_map_rel_siconos": np.linalg.norm(F) / max(np.linalg.norm(vf),
                                                                   np.linalg.norm(lam),
                                                                   np.linalg.norm(u))}
        for k, v in want.items():
            got = float(r[k])
            # absolute agreement near zero, relative otherwise (different summation orders); F
            # inherits u's rounding, relative to |D| |lambda| (a diverged iterate in D's null
            # space: |lambda| 1e46, |u| 1e32)
            if not abs(got - v) <= 1e-9 * max(1.0, abs(v)) + 1e-13 + 1e-11 * scale.max(initial=0):
                print(f"{r['problem']} {r['solver']}: {k} csv {got:.6e} recomputed {v:.6e}")
                bad += 1
        checked += 1
    if not graded:
        bad += check_profile(d, rows)
        bad += check_clock(d, rows)
    print(f"check_outputs: {checked} rows recomputed, {bad} mismatches")
    return 1 if bad or checked == 0 else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    sv = ()
    if "--solver-v" in args:
        i = args.index("--solver-v")
        sv = tuple(args[i + 1].split(","))
        del args[i:i + 2]
    graded = "--graded" in args
    args = [a for a in args if a != "--graded"]
    sys.exit(main(args[0], sv, graded))
