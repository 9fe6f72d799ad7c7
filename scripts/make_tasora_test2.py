#!/usr/bin/env python3
"""Writes scenes/tasora-test2.json: Tasora et al. 2021 TEST 2 (the wrecking ball, §8.2).

Four parallel walls of 10 rows x 15 bricks (600 bricks); brick length 3.96 m (x), height 2 m (z),
width 4 m (y), 100 kg/m^3; a ball of 8 m diameter, 8000 kg/m^3, impacting horizontally; mu 0.4,
h 0.02 s (all from the paper). Ours: the layout (bricks on a 4 m module along the wall, so a row's
bricks stand 0.04 m apart and do not touch; running bond, every other row shifted by half a module;
walls 4 m apart), the ball hanging from a 30 m pendulum (a point constraint to the world) at the
bottom of its swing, 0.1 m in front of the first wall at its mid-height (at least 0.1 m above the ground), moving at 10 m/s towards
it. Every brick starts resting (phi = 0 on the ground and between rows): contacts from step 1.

Usage: python3 scripts/make_tasora_test2.py [rows cols walls [name]] > scenes/tasora-test2.json
(the defaults 10 15 4 give the paper's scene); the --quick figure's scene:
  python3 scripts/make_tasora_test2.py 4 5 2 tasora-test2-quick > scenes/tasora-test2-quick.json
"""
import json
import sys

L, H, W = 3.96, 2.0, 4.0  # brick length (x), height (z), width (y), m
MODULE = 4.0              # brick pitch along the wall
WALL_GAP = 4.0            # free space between walls (y)
R = 4.0                   # ball radius (8 m diameter)
PEND = 30.0               # pendulum length
V0 = 10.0                 # ball speed at impact, m/s


def scene(rows=10, cols=15, walls=4, name="tasora-test2", steps=100):
    bodies = [{"name": "ground", "type": "static",
               "shapes": [{"type": "plane", "material": "brick"}]}]
    for w in range(walls):
        y = w * (W + WALL_GAP)
        for r in range(rows):
            shift = 0.5 * MODULE if r % 2 else 0.0
            for c in range(cols):
                x = (c - (cols - 1) / 2) * MODULE + shift
                bodies.append({"name": "b%d_%02d_%02d" % (w, r, c), "type": "dynamic",
                               "density": 100.0,
                               "position": [round(x, 6), y, H / 2 + r * H],
                               "shapes": [{"type": "box", "half_extents": [L / 2, W / 2, H / 2],
                                           "material": "brick"}]})
    zc = max(rows * H / 2, R + 0.1)  # mid-height, and clear of the ground for low walls
    yb = -(W / 2 + 0.1 + R)
    bodies.append({"name": "ball", "type": "dynamic", "density": 8000.0,
                   "position": [0.0, yb, zc], "velocity": [0.0, V0, 0.0],
                   "shapes": [{"type": "sphere", "radius": R, "material": "brick"}]})
    desc = ("Tasora et al. 2021 TEST 2 (the wrecking ball, section 8.2): %d walls of %d rows x %d "
            "bricks (%d bricks; 3.96 x 2 x 4 m, 100 kg/m^3 = 3168 kg), a ball of 8 m diameter and "
            "8000 kg/m^3 (2.14e6 kg) impacting horizontally, mu 0.4, h 0.02 s (the paper's). Ours "
            "(the paper shows only a snapshot): bricks on a 4 m module along each wall (0.04 m "
            "apart in a row, not touching), running bond (every other row shifted by 2 m), walls "
            "4 m apart; the ball hangs from a 30 m pendulum (point constraint to the world) at the "
            "bottom of its swing, 0.1 m in front of the first wall at its mid-height (at least 0.1 m above the ground), moving at "
            "10 m/s towards it. Every brick starts resting (phi = 0): contacts from step 1. "
            "Written by scripts/make_tasora_test2.py."
            % (walls, rows, cols, walls * rows * cols))
    return {
        "name": name,
        "description": desc,
        "timestep": 0.02,
        "steps": steps,
        "gravity": [0, 0, -9.81],
        "contact": {"margin": 0.01},
        "materials": [{"name": "brick", "friction": 0.4}],
        "bodies": bodies,
        "constraints": [{"name": "cable", "type": "point", "bodies": ["world", "ball"],
                         "anchor": [0.0, yb, zc + PEND]}],
        "benchmark": {"capture": "trajectory", "steps": steps, "quick_steps": 5,
                      "driver": "pgs", "driver_budget": {"tol": 1e-6, "max_iter": 30},
                      "solvers": ["admm", "admm-ccp", "jacobi", "spg", "pgs", "apgd"],
                      "budget": {"tol": 1e-6, "max_iter": 500}},
    }


if __name__ == "__main__":
    a = [int(x) for x in sys.argv[1:4]]
    name = sys.argv[4] if len(sys.argv) > 4 else "tasora-test2-%dx%dx%d" % tuple(a) if a else \
        "tasora-test2"
    s = scene(*a, name=name) if a else scene()
    json.dump(s, sys.stdout, indent=1)
    sys.stdout.write("\n")
