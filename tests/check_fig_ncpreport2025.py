#!/usr/bin/python3
"""Runs `ncpbench figures --paper ncpreport2025 --quick` into a scratch folder (or checks OUT, the
set's output folder OUT/ncpreport2025, given as the argument) and checks its aggregate view
against a recomputation from each system's metrics.csv (code written here, not ncpbench's):

- accuracy.dat and time_accuracy.dat hold the whole suite: the seven scenes and the six
  stand-ins (ncpreport-bdx ... ncpreport-ironman), in Table II's order;
- time_accuracy.dat, per system and solver: runs and converged counts; median and 90th
  percentile (linear, Hyndman-Fan type 7) of the solve time setup_ms + solve_ms over the runs
  that have one, and of natural_map_inf over its finite values; the last block pools every
  sample of the suite per solver and is recomputed from all systems' rows together;
- table_time_accuracy.md has one row per solver that ran, with its pooled conv = converged/runs.
Exit status 1 on any mismatch; prints what it checked.
"""
import csv
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

SCENES = ["box-on-plane", "boxes-fixed", "nunchuk", "fourbar-fixed", "fourbar-free", "arm7d",
          "quadruped", "ncpreport-bdx", "ncpreport-lima", "ncpreport-misha", "ncpreport-walker",
          "ncpreport-gazelle", "ncpreport-ironman"]
bad = 0
checked = 0


def fail(msg):
    global bad
    bad += 1
    print("check_fig_ncpreport2025: " + msg)


def close(got, want):
    if math.isnan(want):
        return math.isnan(got)
    return abs(got - want) <= 1e-6 * abs(want) + 1e-300


def q(x, p):
    x = np.asarray([v for v in x if not math.isnan(v)])
    return float(np.percentile(x, p)) if len(x) else float("nan")


def blocks(path):
    """[(scene, [row fields])] of a gnuplot file whose blocks start with '# scene: NAME'."""
    out = []
    for line in open(path):
        if line.startswith("# scene: "):
            out.append((line.split()[2], []))
        elif line.strip() and not line.startswith("#"):
            out[-1][1].append(line.split())
    return out


def main():
    global checked
    if len(sys.argv) > 1:
        d = sys.argv[1]
    else:
        tmp = tempfile.mkdtemp(prefix="fig004_")
        exe = os.environ.get("NCPBENCH", "build/ncpbench")
        r = subprocess.run([exe, "figures", "--paper", "ncpreport2025", "--quick", "--out", tmp],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            print(r.stdout)
            fail("ncpbench figures --paper ncpreport2025 --quick exited %d" % r.returncode)
            return
        d = os.path.join(tmp, "ncpreport2025")
    acc = [b[0] for b in blocks(os.path.join(d, "accuracy.dat"))]
    if acc != SCENES:
        fail("accuracy.dat blocks %s, expected the suite %s" % (acc, SCENES))
    ta = blocks(os.path.join(d, "time_accuracy.dat"))
    if [b[0] for b in ta] != SCENES + ["all"]:
        fail("time_accuracy.dat blocks %s, expected the suite then 'all'" % [b[0] for b in ta])
        return
    pooled = {}
    for scene, rows in ta[:-1]:
        metrics = list(csv.DictReader(open(os.path.join(d, scene, "metrics.csv"))))
        for f in rows:
            mine = [r for r in metrics if r["solver"] == f[0]]
            t = [float(r["setup_ms"]) + float(r["solve_ms"]) for r in mine]
            nat = [float(r["natural_map_inf"]) for r in mine]
            conv = sum(r["converged"] == "1" for r in mine)
            p = pooled.setdefault(f[0], [[], [], 0, 0])
            p[0] += t
            p[1] += nat
            p[2] += len(mine)
            p[3] += conv
            want = [q(t, 50), q(t, 90), q(nat, 50), q(nat, 90)]
            got = [float(x) for x in f[6:10]]
            checked += 1
            if int(f[4]) != len(mine) or int(f[5]) != conv:
                fail("%s %s: runs/converged %s/%s, metrics.csv %d/%d"
                     % (scene, f[0], f[4], f[5], len(mine), conv))
            for name, g, w in zip(("time_med", "time_p90", "nat_med", "nat_p90"), got, want):
                if not close(g, w):
                    fail("%s %s: %s %.6e, recomputed %.6e" % (scene, f[0], name, g, w))
    table = open(os.path.join(d, "table_time_accuracy.md")).read()
    for f in ta[-1][1]:
        t, nat, runs, conv = pooled.get(f[0], [[], [], 0, 0])
        checked += 1
        if int(f[4]) != runs or int(f[5]) != conv:
            fail("pooled %s: runs/converged %s/%s, recomputed %d/%d" % (f[0], f[4], f[5], runs, conv))
        want = [q(t, 50), q(t, 90), q(nat, 50), q(nat, 90)]
        for name, g, w in zip(("time_med", "time_p90", "nat_med", "nat_p90"),
                              [float(x) for x in f[6:10]], want):
            if not close(g, w):
                fail("pooled %s: %s %.6e, recomputed %.6e" % (f[0], name, g, w))
        row = "| %s%s | %d/%d |" % (f[0], " *" if f[2] == "1" else "", conv, runs)
        if runs and row not in table:
            fail("table_time_accuracy.md has no row starting '%s'" % row)
        if not runs and ("| %s |" % f[0]) in table:
            fail("table_time_accuracy.md lists %s, which did not run" % f[0])


main()
print("check_fig_ncpreport2025: %d solver x system cells and pooled rows checked, %d failure(s)"
      % (checked, bad))
sys.exit(1 if bad or not checked else 0)
