#!/usr/bin/python3
"""Prints a solver x scene Markdown matrix from the summary.json of output directories:
each cell "converged/problems, median iterations" (stdlib only; used for results/REPORT.md).

usage: scripts/summary_matrix.py results/incline results/sphere-stack ...
"""
import json
import sys


def main(dirs):
    sums = []
    for d in dirs:
        with open(f"{d}/summary.json") as f:
            sums.append(json.load(f))
    solvers = [so["solver"] for so in sums[0]["solvers"]]
    print("| solver | " + " | ".join(s["scene"] for s in sums) + " |")
    print("|---|" + "---|" * len(sums))
    for name in solvers:
        cells = []
        for s in sums:
            so = next((x for x in s["solvers"] if x["solver"] == name), None)
            if so is None:
                cells.append("–")
                continue
            it = so["median_iterations"]
            cells.append(f"{so['converged']}/{so['problems']}, {it:.0f}" if it is not None
                         else f"{so['converged']}/{so['problems']}")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
