#!/usr/bin/env python3
"""Writes the scaling family scenes/scaling/*.json (issue 27, benchmarks/README.md "Scaling"):
wrecking-ball walls of Tasora et al. 2021 TEST 2 (scripts/make_tasora_test2.py, the same bricks,
ball, pendulum and running bond) from about 10^2 to 10^4 contacts, 5 captured steps each. Every
brick starts resting at phi = 0, so every step's problem is the whole wall in contact (about 7
contacts per brick), not a free fall.

Usage: python3 scripts/make_scaling.py [OUTDIR]       the committed family (default scenes/scaling)
       python3 scripts/make_scaling.py --huge [OUTDIR] also the 10^5-contact wall wall-1e5.json
                                                      (4 MB, written on demand, not committed)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_tasora_test2 import scene  # noqa: E402

STEPS = 5
# (name, rows, cols, walls): about 6.5-7.4 contacts per brick
FAMILY = [("wall-1e2", 4, 4, 1),      # 16 bricks
          ("wall-3e2", 5, 8, 1),      # 40
          ("wall-1e3", 8, 10, 2),     # 160
          ("wall-3e3", 10, 15, 3),    # 450
          ("wall-1e4", 16, 25, 4)]    # 1600
HUGE = ("wall-1e5", 40, 50, 8)        # 16000 bricks


def write(outdir, name, rows, cols, walls):
    s = scene(rows, cols, walls, name=name, steps=STEPS)
    s["description"] = ("Scaling family (issue 27; scripts/make_scaling.py): " + s["description"])
    s["benchmark"]["quick_steps"] = 1
    path = os.path.join(outdir, name + ".json")
    with open(path, "w") as f:
        json.dump(s, f, separators=(",", ":"))
        f.write("\n")
    print(path)


def main(argv):
    huge = "--huge" in argv
    args = [a for a in argv if a != "--huge"]
    outdir = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                               "scenes", "scaling")
    os.makedirs(outdir, exist_ok=True)
    for spec in FAMILY + ([HUGE] if huge else []):
        write(outdir, *spec)


if __name__ == "__main__":
    main(sys.argv[1:])
