#!/usr/bin/env python3
"""Writes the pouring scenes (Lee et al. 2025 §VII-C): scenes/pouring.json (N = 45 particles) and
scenes/pouring-sweep/pouring-N.json for N in 9, 18, 27, 36, 45 (Fig. 11's sweep).

A bottle (Lee et al. 2025 App. B revolved profile O-A-B-C-D: 64 mm body, 33 mm neck opening, 1.5 mm
padding) is a static body with a prescribed motion: from t = 0.3 s to 2.3 s it turns by 2.4 rad
about the x axis through its mid-height (minimum-jerk profile, scenes/README.md "Prescribed
motion"), pouring its particles onto the ground. Particles: spheres of radius 5 mm and density
10 g/cm^3 (5.24 g), on a square grid of 10.5 mm in layers 10.5 mm apart inside the bottle, with
a deterministic 0.3 mm offset per layer so the layers do not stack exactly.

Usage: python3 scripts/make_pouring.py   (from the repository root; rewrites the files)"""
import json
import os

R_PART, RHO = 0.005, 10000.0
BOTTLE_Z = 0.03            # geometry origin (point O) of the bottle, world
PITCH = 0.0105


def grid_layer():
    pts = []
    for i in range(-2, 3):
        for j in range(-2, 3):
            x, y = i * PITCH, j * PITCH
            if (x * x + y * y) ** 0.5 <= 0.0245:
                pts.append((x, y))
    return pts  # 21 points, r <= 24.5 mm (inner wall at 30.5 mm)


def scene(n):
    layer = grid_layer()
    bodies = [
        {"name": "ground", "type": "static", "shapes": [{"type": "plane", "material": "plastic"}]},
        {"name": "bottle", "type": "static", "position": [0, 0, BOTTLE_Z],
         "motion": {"axis": [1, 0, 0], "point": [0, 0, BOTTLE_Z + 0.1], "angle": 2.4,
                    "start": 0.3, "end": 2.3},
         "shapes": [{"type": "sdf", "kind": "bottle", "spacing": 0.002, "material": "plastic"}]},
    ]
    k = 0
    z0 = BOTTLE_Z + 0.0015 + R_PART + 0.0003  # inner bottom + radius + 0.3 mm
    while k < n:
        lz = k // len(layer)
        off = 0.0003 * (lz % 2)
        for (x, y) in layer:
            if k >= n:
                break
            bodies.append({"name": "p%02d" % k, "type": "dynamic", "density": RHO,
                           "position": [round(x + off, 6), round(y - off, 6),
                                        round(z0 + lz * PITCH, 6)],
                           "shapes": [{"type": "sphere", "radius": R_PART, "material": "plastic"}]})
            k += 1
    return {
        "name": "pouring" if n == 45 else "pouring-%d" % n,
        "description": ("Lee et al. 2025 §VII-C pouring with %d particles (radius 5 mm, density 10 g/cm^3, "
                        "5.24 g each) in a bottle built like the dishes (App. B revolved profile "
                        "O-A-B-C-D: body radius 32 mm, shoulder at 150 mm, neck radius 18 mm, padding "
                        "1.5 mm). The bottle is driven kinematically (a static body with a prescribed "
                        "motion, until the dual-arm robot holds it): from 0.3 s to 2.3 s it turns by "
                        "2.4 rad about the x axis through its mid-height (the neck ends 5 cm above the "
                        "ground), minimum-jerk profile, and the particles pour onto the ground. System DOF = 6 N. Written by "
                        "scripts/make_pouring.py." % n),
        "timestep": 1.0 / 240.0,
        "duration": 3.0,
        "gravity": [0, 0, -9.81],
        "contact": {"margin": 0.005, "erp": 0.2, "max_recovery_velocity": 0.2},
        "materials": [{"name": "plastic", "friction": 0.5}],
        "bodies": bodies,
        "benchmark": {"capture": "trajectory", "skip": 0, "every": 24, "steps": 30,
                      "quick_steps": 5, "driver": "pgs",
                      "driver_budget": {"tol": 1e-6, "max_iter": 200},
                      "budget": {"tol": 1e-8, "max_iter": 500, "budget_ms": 200}},
    }


def write(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    os.makedirs("scenes/pouring-sweep", exist_ok=True)
    write("scenes/pouring.json", scene(45))
    for n in (9, 18, 27, 36, 45):
        write("scenes/pouring-sweep/pouring-%d.json" % n, scene(n))
