#!/usr/bin/python3
"""Checks the outputs of `ncpbench figures --paper lee2025-rig` (OUT/lee2025-rig: Lee et al. 2025's
Fig. 11 and tasks, the simulations the declared study does not run yet; Figs. 7, 9 and Tables II,
III are the study's, checked by tests/check_study_lee2025.py) against an independent
recomputation from the raw files (code written here, not ncpbench's):

- fig11.dat's mean time per step and mean al_residual from fig11_pouring/N*/steps.csv (each
  solver's own simulation), and the fixed iteration counts (<= 5 for canal, <= 100 for the others);
- claims.md: every claim row has a verdict in {yes, partly, no, n/a}; the task claims' verdicts
  (TKa on the tight bolt-nut task, TKb on the dish stack, TKc on the pouring) from each solver's
  success in the task's task.json (the rule: CANAL and SubADMM succeed and PGS fails: yes; all
  three succeed: partly; else no), and TKa's row cites the tight task and the loose one beside it.
Exit status 1 on any mismatch or missing file; prints what it checked.
"""
import csv
import math
import os
import re
import sys

import numpy as np

bad = 0
checked = 0


def fail(msg):
    global bad
    print("check_fig_lee2025: " + msg)
    bad += 1


def close(a, b, rel=6e-3, what="", tol=1e-12):
    """a (as printed, maybe rounded) against b (recomputed): relative rel or absolute tol."""
    global checked
    checked += 1
    if a is None:
        fail(f"{what}: the file has no number")
        return
    if not (abs(a - b) <= rel * max(abs(a), abs(b)) + tol):
        fail(f"{what}: file says {a}, recomputed {b}")


def check(cond, msg):
    global checked
    checked += 1
    if not cond:
        fail(msg)


def nlog(r):
    return -math.log10(max(r, 1e-16))


def md_row(path, label):
    """Cells of the markdown row whose first cell is `label`."""
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells and cells[0] == label:
                return cells[1:]
    fail(f"{path}: no row '{label}'")
    return None


def num(cell):
    m = re.match(r"^-?[0-9.]+(e[-+]?[0-9]+)?", cell)
    return float(m.group(0)) if m else None


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def check_fig11(d):
    """fig11.dat against each solver's own simulation (fig11_pouring/N*/steps.csv): mean solve
    ms and mean al_residual over the steps with a contact solve, the fixed iteration counts."""
    dat = {}
    with open(f"{d}/fig11.dat") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            w = line.split()
            dat[(w[0], int(w[2]))] = [float(x) for x in w[3:]]
    if not dat:
        fail("fig11.dat has no data rows")
    for (solver, n), v in dat.items():
        rs = []
        for r in rows(f"{d}/fig11_pouring/N{n:02d}/steps.csv"):
            if r["solver"] != solver or r["status"] == "none":
                continue
            try:
                res = float(r["al_residual"])
            except ValueError:
                continue
            if math.isfinite(res):
                rs.append(r)
        if not rs:
            fail(f"fig11.dat: {solver} N={n} has no steps.csv rows")
            continue
        cap = 5 if solver == "canal" else 100
        if any(int(r["iterations"]) > cap for r in rs):
            fail(f"fig11: {solver} N={n} ran more than {cap} iterations")
        ms = np.mean([float(r["solve_ms"]) for r in rs])
        res = np.mean([float(r["al_residual"]) for r in rs])
        close(v[1], float(ms), 1e-6, f"fig11 {solver} N={n} mean ms")
        close(v[3], float(res), 1e-6, f"fig11 {solver} N={n} mean residual")
        if int(v[5]) != len(rs):
            fail(f"fig11 {solver} N={n}: {int(v[5])} steps, steps.csv has {len(rs)}")


def check_claims(d):
    n = 0
    with open(f"{d}/claims.md") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 7 and re.match(r"^11[a-d]$", cells[0]):
                n += 1
                if cells[4] not in ("yes", "partly", "no", "n/a"):
                    fail(f"claims.md: claim {cells[0]} has verdict '{cells[4]}'")
                if cells[4] != "n/a" and cells[3].startswith("not measured"):
                    fail(f"claims.md: claim {cells[0]} has a verdict but no measurement")
    if n != 4:
        fail(f"claims.md: {n} rows of Fig. 11's claims, expected 11a-11d")


TASKS = {"TKa": "task_boltnut-screw-tight-panda", "TKb": "task_dish-stack",
         "TKc": "task_pouring-g1"}


def check_tasks(d):
    """The task claims' verdicts from task.json (when the tasks part ran and was not --quick:
    a quick run truncates the simulations, and its verdict is still computed by the same rule)."""
    import json
    rows = {}
    with open(f"{d}/claims.md") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 7 and cells[0] in TASKS:
                rows[cells[0]] = cells
    for tk, sub in TASKS.items():
        fn = f"{d}/{sub}/task.json"
        if not os.path.isfile(fn):
            continue
        if tk not in rows:
            fail(f"claims.md: no {tk} row although {sub}/task.json exists")
            continue
        solvers = json.load(open(fn))["solvers"]
        ok = {s["solver"]: s["success"] for s in solvers}
        if tk == "TKc":  # Fig. 11's protocol: 5 CANAL iterations, 100 for the others, tol 0
            for s in solvers:
                want_it = 5 if s["solver"] == "canal" else 100
                check(s["max_iter"] == want_it and s["tol"] == 0,
                      f"{sub}: {s['solver']} ran max_iter {s['max_iter']} tol {s['tol']}, "
                      f"Fig. 11's protocol is {want_it} and 0")
            with open(f"{d}/{sub}/steps.csv") as f:
                for r in csv.DictReader(f):
                    cap = 5 if r["solver"] == "canal" else 100
                    check(int(r["iterations"]) <= cap,
                          f"{sub}/steps.csv: {r['solver']} step {r['step']} ran {r['iterations']} "
                          f"iterations (cap {cap})")
        need = ["canal", "subadmm", "pgs-decoupled"]
        if not all(s in ok for s in need):
            continue
        c, a, p = (ok[s] for s in need)
        want = "yes" if c and a and not p else "partly" if c and a else "no"
        check(rows[tk][4] == want, f"claims.md: {tk} verdict {rows[tk][4]}, task.json gives {want}")
        check(f"`{sub}/task.md`" in rows[tk][6], f"claims.md: {tk} does not cite {sub}/task.md")
    if "TKa" in rows and os.path.isfile(f"{d}/task_boltnut-screw-panda/task.json"):
        check("`task_boltnut-screw-panda/task.md`" in rows["TKa"][6] and "0.1 mm-clearance" in rows["TKa"][3],
              "claims.md: TKa does not report the loose task beside the tight one")


def main(d):
    for f in ["summary.md", "claims.md", "fig11.md", "fig11.dat"]:
        if not os.path.isfile(f"{d}/{f}") or os.path.getsize(f"{d}/{f}") == 0:
            fail(f"missing or empty {f}")
    if bad:
        return 1
    check_fig11(d)
    check_claims(d)
    check_tasks(d)
    print(f"check_fig_lee2025: {checked} numbers recomputed, {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
