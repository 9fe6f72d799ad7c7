#!/usr/bin/python3
"""Prints a Markdown table from the summary.json of one or more output directories
(used to write results/REPORT.md; stdlib only).

usage: scripts/summary_table.py results/incline results/sphere-stack ...
"""
import json
import sys


def fmt(x, spec):
    return "n/a" if x is None else format(x, spec)


def main(dirs):
    print("| scene | solver | problems | converged | median iter | median solve ms "
          "| median al_residual | median natural_map_rel_acary | max penetration (m) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for d in dirs:
        with open(f"{d}/summary.json") as f:
            s = json.load(f)
        for so in s["solvers"]:
            print(f"| {s['scene']} | {so['solver']} | {so['problems']} | {so['converged']} "
                  f"| {fmt(so['median_iterations'], '.0f')} | {fmt(so['median_solve_ms'], '.4f')} "
                  f"| {fmt(so['median']['al_residual'], '.2e')} "
                  f"| {fmt(so['median']['natural_map_rel_acary'], '.2e')} "
                  f"| {fmt(so['max']['penetration'], '.2e')} |")


if __name__ == "__main__":
    main(sys.argv[1:])
