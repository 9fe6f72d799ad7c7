#!/usr/bin/env python3
"""Histogram of the active_contacts column of a metrics.csv (load-bearing contacts per case,
metrics/metrics.h), one per solver, as text. Standard library only.

    scripts/active_hist.py OUT/metrics.csv [--bin 10] [--solvers canal,pgs] [--converged]

--converged keeps only the rows whose solve reached the tolerance (converged = 1). Prints, per
solver, the rows counted, min / median / max and one line per bin [lo, lo + bin) with the count
and a bar.
"""
import argparse
import csv
import statistics
import sys


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("metrics_csv")
    ap.add_argument("--bin", type=int, default=10, help="bin width in contacts (default 10)")
    ap.add_argument("--solvers", default="", help="comma-separated solvers (default: all)")
    ap.add_argument("--converged", action="store_true", help="only rows with converged = 1")
    a = ap.parse_args(argv)
    if a.bin < 1:
        ap.error("--bin must be >= 1")
    try:
        with open(a.metrics_csv, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        print(f"active_hist: cannot read {a.metrics_csv}: {e}", file=sys.stderr)
        return 2
    if rows and "active_contacts" not in rows[0]:
        print(f"active_hist: {a.metrics_csv} has no active_contacts column (written by an "
              "ncpbench older than the metric)", file=sys.stderr)
        return 2
    want = [s for s in a.solvers.split(",") if s]
    by = {}
    for r in rows:
        if want and r["solver"] not in want:
            continue
        if a.converged and r["converged"] != "1":
            continue
        try:
            n = float(r["active_contacts"])
        except ValueError:
            continue
        if n != n:  # NaN: a failed solve has no count
            continue
        by.setdefault(r["solver"], []).append(int(n))
    if not by:
        print("active_hist: no rows to count", file=sys.stderr)
        return 1
    for s in (want or sorted(by)):
        v = by.get(s, [])
        if not v:
            print(f"{s}: no rows")
            continue
        print(f"{s}: {len(v)} rows, active contacts min {min(v)}, median {statistics.median(v):g}, "
              f"max {max(v)}")
        lo = min(v) // a.bin * a.bin
        while lo <= max(v):
            c = sum(lo <= x < lo + a.bin for x in v)
            print(f"  [{lo:4d}, {lo + a.bin:4d})  {c:4d}  {'#' * c}")
            lo += a.bin
    return 0


if __name__ == "__main__":
    sys.exit(main())
