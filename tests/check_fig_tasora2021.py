#!/usr/bin/python3
"""Runs `ncpbench figures --paper tasora2021 --quick` into a scratch folder (or checks OUT given as
the argument) and checks its outputs against a recomputation from its data files (code written
here, not ncpbench's):

- fig2/, fig3_5/, fig4/, fig6/ tasora2021_iter.dat: the expected runs, iterations 1..n without
  gaps, finite non-negative values; a run shorter than the budget ended converged (its last
  natural map <= the tolerance) and a run that did not converge used the whole budget;
- claims.md: ten rows, each verdict in {yes, partly, no, n/a}; the verdicts of T1 (admm's
  iterations on 1.A), T2 (first iteration from which the violation stays <= 1e-9 m/s), T3
  (Jacobi) and T7 (n_s sweep) recomputed from the curves by the rules claims.md states;
- test2/ (TEST 2, the wrecking ball, quick scene): fig8's sampled curves (increasing iterations
  ending at the run's count, finite non-negative values), time_per_step.dat, and the verdicts
  W1-W3 recomputed from them by claims.md's rules (W4: the four solver families ran).
Exit status 1 on any mismatch; prints what it checked.
"""
import math
import os
import re
import subprocess
import sys
import tempfile

bad = 0
checked = 0


def fail(msg):
    global bad
    bad += 1
    print("check_fig_tasora2021: " + msg)


def read_dat(path):
    """{label: [(iteration, natural map, violation)]}, tol, max_iter"""
    text = open(path).read()
    m = re.search(r"tol (\S+) on natural_map_rel_acary, max_iter (\d+)", text)
    tol, max_iter = float(m.group(1)), int(m.group(2))
    runs = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        f = line.split()
        runs.setdefault(f[0], []).append((int(f[1]), float(f[2]), float(f[3])))
    return runs, tol, max_iter


EXPECT = {
    "fig2": ["P-ADMM", "ADMM", "P-FADMM(rho=0.05)", "FADMM(rho=0.05)", "Jacobi", "P-SPG-FB",
             "SPG-FB", "APGD(not_in_paper)", "PGS(not_in_paper)"],
    "fig3_5": ["n_s=1", "n_s=2", "n_s=5", "n_s=10"],
    "fig4": ["P-ADMM(n_s=5)", "ADMM(n_s=5)", "P-FADMM(rho=0.05)", "FADMM(rho=0.05)"],
    "fig6": ["rho=0.001", "rho=0.01", "rho=0.05", "rho=0.1", "rho=0.5"],
}


def main():
    global checked
    if len(sys.argv) > 1:
        out = sys.argv[1]
    else:
        tmp = tempfile.mkdtemp(prefix="t21-")
        exe = os.environ.get("NCPBENCH", "./build/ncpbench")
        r = subprocess.run([exe, "figures", "--paper", "tasora2021", "--quick", "--out", tmp],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stdout + r.stderr)
            fail(f"ncpbench figures --paper tasora2021 exited {r.returncode}")
            return
        out = os.path.join(tmp, "tasora2021")
    data = {}
    for fig, labels in EXPECT.items():
        runs, tol, max_iter = read_dat(os.path.join(out, fig, "tasora2021_iter.dat"))
        data[fig] = runs
        if sorted(runs) != sorted(labels):
            fail(f"{fig}: runs {sorted(runs)}, expected {sorted(labels)}")
        for lab, rows in runs.items():
            checked += 1
            if [r[0] for r in rows] != list(range(1, len(rows) + 1)):
                fail(f"{fig} {lab}: iterations are not 1..{len(rows)}")
            if not all(math.isfinite(v) and v >= 0 for r in rows for v in r[1:]):
                fail(f"{fig} {lab}: a value is negative or not finite")
            conv = rows[-1][1] <= tol
            if len(rows) < max_iter and not conv:
                fail(f"{fig} {lab}: stopped at {len(rows)} < {max_iter} without converging")
            if not conv and len(rows) != max_iter:
                fail(f"{fig} {lab}: not converged but ran {len(rows)} of {max_iter}")

    def cost(fig, lab):
        rows = data[fig][lab]
        return len(rows) if rows[-1][1] <= tol else max_iter + 1

    def viol_iter(fig, lab):
        rows, k = data[fig][lab], 0
        for r in reversed(rows):
            if r[2] > 1e-9:
                break
            k = r[0]
        return k if k else max_iter + 1

    text = open(os.path.join(out, "claims.md")).read()
    rows = re.findall(r"^\| (T\d+) \|[^|]*\|[^|]*\|[^|]*\| (\S+) \|", text, re.M)
    verdict = dict(rows)
    checked += 1
    if len(rows) != 10 or any(v not in ("yes", "partly", "no", "n/a") for _, v in rows):
        fail(f"claims.md: rows {rows}")
    a = cost("fig3_5", "n_s=5")
    want = {"T1": "yes" if a < 20 else "partly" if a <= 40 else "no"}
    va, vj, vs = (viol_iter("fig2", x) for x in ("P-ADMM", "Jacobi", "P-SPG-FB"))
    want["T2"] = "yes" if va < vj and va < vs else "partly" if va < vj or va < vs else "no"
    j, p = cost("fig2", "Jacobi"), cost("fig2", "P-ADMM")
    want["T3"] = "yes" if j >= 10 * p or j > max_iter else "no"
    it = [cost("fig3_5", f"n_s={n}") for n in (1, 2, 5, 10)]
    want["T7"] = ("yes" if all(x <= y for x, y in zip(it, it[1:]))
                  else "partly" if it[0] <= it[3] else "no")
    for k, v in want.items():
        checked += 1
        if verdict.get(k) != v:
            fail(f"claims.md {k}: verdict {verdict.get(k)}, recomputed {v}")
    check_test2(os.path.join(out, "test2"))


def check_test2(out):
    """TEST 2 (the wrecking ball, quick scene): sampled curves, the time table, and W1-W3
    recomputed by claims.md's rule from them."""
    global checked
    runs, tol, max_iter = read_dat(os.path.join(out, "fig8", "tasora2021_iter.dat"))
    final = {}
    for line in open(os.path.join(out, "time_per_step.dat")):
        if line.startswith("#"):
            continue
        f = line.split()
        final[f[0]] = (f[2], int(f[3]), float(f[7]), float(f[8]))  # status, iters, nat, viol
    for lab in ("P-ADMM", "ADMM", "Jacobi", "P-SPG-FB", "PGS(not_in_paper)", "APGD(not_in_paper)"):
        checked += 1
        if lab not in runs or lab not in final:
            fail(f"test2: run {lab} missing")
            return
        its = [r[0] for r in runs[lab]]
        if its[0] != 1 or any(b <= a for a, b in zip(its, its[1:])) or its[-1] != final[lab][1]:
            fail(f"test2 {lab}: sampled iterations {its[:3]}...{its[-1:]} (ran {final[lab][1]})")
        if not all(math.isfinite(v) and v >= 0 for r in runs[lab] for v in r[1:]):
            fail(f"test2 {lab}: a value is negative or not finite")
        if final[lab][1] > max_iter or final[lab][0] in ("unsupported", "failed"):
            fail(f"test2 {lab}: {final[lab]}")

    def viol_iter(lab):
        k = 0
        for r in reversed(runs[lab]):
            if r[2] > 1e-3:
                break
            k = r[0]
        return k if k else max_iter + 1

    def beats(a, b):
        va, vb = viol_iter(a), viol_iter(b)
        viol = va < vb or (va == vb and final[a][3] < final[b][3])
        nat = final[a][2] < final[b][2]
        return "yes" if viol and nat else "partly" if viol or nat else "no"

    text = open(os.path.join(out, "claims.md")).read()
    verdict = dict(re.findall(r"^\| (W\d+) \|[^|]*\|[^|]*\|[^|]*\| (\S+) \|", text, re.M))
    want = {"W1": beats("P-ADMM", "Jacobi"), "W2": beats("P-ADMM", "P-SPG-FB"),
            "W3": beats("P-ADMM", "ADMM"), "W4": "yes"}
    for k, v in want.items():
        checked += 1
        if verdict.get(k) != v:
            fail(f"test2 claims.md {k}: verdict {verdict.get(k)}, recomputed {v}")


main()
print(f"check_fig_tasora2021: {checked} checks, {bad} mismatches")
sys.exit(1 if bad else 0)
