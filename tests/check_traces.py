#!/usr/bin/python3
"""Checks OUT/traces.h5 of a benchmark run with h5py, against metrics.csv and an independent
statement of the sampling rule (code written here, not ncpbench's):

- /traces attrs: columns = iter, time_ms, then the metric columns of metrics.csv (in order);
- one dataset per (solver, problem) row of metrics.csv that ran (status not unsupported), its
  attribute iterations = the row's iterations, its last stored iteration = that count;
- sampling "log": the stored iterations are exactly {1..20} U {ceil(10^(j/20)) : j >= 0} U {N}
  within 1..N (N = the row's iterations) for every trace starting at iteration 1; "every": all
  of 1..N;
- datasets deflate-compressed (--uncompressed-ok allows otherwise);
- with --csv: OUT/traces.csv holds exactly the same rows, value for value.
Usage: check_traces.py OUT [--csv] [--uncompressed-ok]
"""
import csv
import math
import sys

import h5py
import numpy as np


def expected_log(n):
    keep = set(range(1, min(n, 20) + 1))
    j = 0
    while True:
        k = math.ceil(10 ** (j / 20) - 1e-9)  # 10^(j/20) is an integer only for j = 20 m
        if k > n:
            break
        keep.add(k)
        j += 1
    keep.add(n)
    return sorted(keep)


def main():
    out = sys.argv[1]
    want_csv = "--csv" in sys.argv
    bad = []
    with open(f"{out}/metrics.csv", newline="") as f:
        rd = csv.reader(f)
        header = next(rd)
        mrows = list(rd)
    metric_cols = header[header.index("wall_ms") + 1:header.index("note")]
    iters = {(r[1], r[0]): int(r[2]) for r in mrows if r[4] != "unsupported"}
    f = h5py.File(f"{out}/traces.h5", "r")
    T = f["traces"]
    cols = [str(c) for c in T.attrs["columns"]]
    if cols != ["iter", "time_ms"] + metric_cols:
        bad.append(f"columns {cols}")
    sampling = T.attrs["sampling"].decode()
    if sampling not in ("log", "every"):
        bad.append(f"sampling {sampling}")
    pairs = {(s, p) for s in T for p in T[s]}
    if pairs != set(iters):
        bad.append(f"{len(pairs)} traces, metrics.csv has {len(iters)} rows that ran: "
                   f"{sorted(pairs ^ set(iters))[:4]}")
    checked = 0
    for (s, p) in sorted(pairs & set(iters)):
        ds = T[s][p]
        n = iters[(s, p)]
        if ds.shape[1] != len(cols):
            bad.append(f"{s}/{p}: {ds.shape[1]} columns")
            continue
        if ds.compression != "gzip" and "--uncompressed-ok" not in sys.argv:
            bad.append(f"{s}/{p}: not compressed ({ds.compression})")
        it = [int(x) for x in ds[:, 0]]
        if int(ds.attrs["iterations"]) != n or it[-1] != n:
            bad.append(f"{s}/{p}: iterations attr {ds.attrs['iterations']}, last {it[-1]}, "
                       f"metrics.csv {n}")
        if any(b <= a for a, b in zip(it, it[1:])):
            bad.append(f"{s}/{p}: iterations not increasing")
        if it[0] == 1:
            want = expected_log(n) if sampling == "log" else list(range(1, n + 1))
            if it != want:
                bad.append(f"{s}/{p}: stored {it[:30]}..., want {want[:30]}...")
            checked += 1
    if checked == 0:
        bad.append("no trace starting at iteration 1 was checked")
    if want_csv:
        got = {}
        with open(f"{out}/traces.csv", newline="") as fc:
            rd = csv.reader(fc)
            h = next(rd)
            if h != ["problem", "solver", "iteration", "time_ms"] + metric_cols:
                bad.append(f"traces.csv header {h}")
            for r in rd:
                got.setdefault((r[1], r[0]), []).append([float(x) for x in r[2:]])
        if set(got) != pairs:
            bad.append(f"traces.csv has {len(got)} traces, traces.h5 {len(pairs)}")
        for k in sorted(set(got) & pairs):
            a, b = np.array(got[k]), T[k[0]][k[1]][:]
            if a.shape != b.shape or not np.array_equal(a, b, equal_nan=True):
                bad.append(f"{k}: traces.csv and traces.h5 differ")
                break
    for b in bad[:20]:
        print("FAIL:", b)
    print(f"check_traces {out}: {len(pairs)} traces, sampling {sampling}, {checked} checked "
          f"against the rule{', traces.csv identical' if want_csv and not bad else ''}")
    sys.exit(1 if bad else 0)


main()
