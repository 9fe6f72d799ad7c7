#!/usr/bin/env python3
"""Writes the pouring scenes (Lee et al. 2025 §VII-C): scenes/pouring.json (N = 45 particles, the
bottle driven by a prescribed motion), scenes/pouring-sweep/pouring-N.json for N in 9, 18, 27, 36,
45 (Fig. 11's sweep) and the task scene scenes/tasks/pouring-g1.json (N = 45), both with the bottle
held by the G1 upper body (scenes/robots/g1-upper.json): the paper's solvers each drive their own
simulation with the robot (issue 11, finding 5).

A bottle (Lee et al. 2025 App. B revolved profile O-A-B-C-D: 64 mm body, 33 mm neck opening, 1.5 mm
padding) is a static body with a prescribed motion: from t = 0.3 s to 2.3 s it turns by 2.4 rad
about the x axis through its mid-height (minimum-jerk profile, scenes/README.md "Prescribed
motion"), pouring its particles onto the ground. Particles: spheres of radius 5 mm and density
10 g/cm^3 (5.24 g), on a square grid of 10.5 mm in layers 10.5 mm apart inside the bottle, with
a deterministic 0.3 mm offset per layer so the layers do not stack exactly.

Usage: python3 scripts/make_pouring.py   (from the repository root; rewrites the files)"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import robot_kin as rk  # noqa: E402

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


def particles(n, origin):
    """n particles on the layered grid inside an upright bottle whose point O is at origin."""
    layer = grid_layer()
    out = []
    k = 0
    z0 = origin[2] + 0.0015 + R_PART + 0.0003  # inner bottom + radius + 0.3 mm
    while k < n:
        lz = k // len(layer)
        off = 0.0003 * (lz % 2)
        for (x, y) in layer:
            if k >= n:
                break
            out.append({"name": "p%02d" % k, "type": "dynamic", "density": RHO,
                        "position": [round(origin[0] + x + off, 6), round(origin[1] + y - off, 6),
                                     round(z0 + lz * PITCH, 6)],
                        "shapes": [{"type": "sphere", "radius": R_PART, "material": "plastic"}]})
            k += 1
    return out


def scene(n):
    bodies = [
        {"name": "ground", "type": "static", "shapes": [{"type": "plane", "material": "plastic"}]},
        {"name": "bottle", "type": "static", "position": [0, 0, BOTTLE_Z],
         "motion": {"axis": [1, 0, 0], "point": [0, 0, BOTTLE_Z + 0.1], "angle": 2.4,
                    "start": 0.3, "end": 2.3},
         "shapes": [{"type": "sdf", "kind": "bottle", "spacing": 0.002, "material": "plastic"}]},
    ]
    bodies += particles(n, [0, 0, BOTTLE_Z])
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


# ---------------------------------------------------------------------------------------------
# The G1 upper body holding the bottle (Lee et al. 2025 §VII-C, Fig. 10)

G1 = os.path.join("scenes", "robots", "g1-upper.json")
PELVIS_Z = 0.8                     # the pelvis (fixed base) in the world
LEFT = ["left_shoulder_pitch", "left_shoulder_roll", "left_shoulder_yaw", "left_elbow",
        "left_wrist_roll", "left_wrist_pitch", "left_wrist_yaw"]
RIGHT = [j.replace("left", "right") for j in LEFT]
WAIST = ["waist_yaw", "waist_roll", "torso"]
FINGERS = ["left_finger_a", "left_finger_b", "right_finger_a", "right_finger_b"]
GRASP = 0.106                      # bottle axis along the gripper x: the pads (x 0.06..0.11) touch it, the gripper box (to x 0.07) stays 2 mm off
PAD_INNER = 0.025                  # pad inner face at |y| = 0.025 - q (q the finger joint)
BOTTLE_R = 0.032 + 0.0015          # bottle body radius + padding
GRIP_L = [0.33, 0.0, PELVIS_Z + 0.16]   # left grasp centre on the bottle axis (pivot of the tilt)
GRIP_DZ = 0.07                     # the right hand holds 7 cm lower
BOTTLE_O = [GRIP_L[0], GRIP_L[1], GRIP_L[2] - 0.11]   # bottle point O (outer bottom centre)
YAW_L, YAW_R = -0.5, -0.4          # the grippers approach from the robot's sides
TILT_T0, TILT_T1, DURATION = 0.3, 2.3, 3.2


def tilt_angle():
    return TILT


def grip_pose(center, yaw, tilt):
    """Gripper pose (x towards the bottle axis, yawed about the world z) holding the bottle at
    center, after the bottle turned by tilt about the world x through GRIP_L."""
    r = rk.rot_axis([0, 0, 1], yaw)
    p = [center[i] - r[i][0] * GRASP for i in range(3)]
    rt = rk.rot_axis([1, 0, 0], tilt)
    rel = [p[i] - GRIP_L[i] for i in range(3)]
    return rk.mat_mul(rt, r), [GRIP_L[i] + rk.mat_vec(rt, rel)[i] for i in range(3)]


def g1_plan():
    """Joint samples of the pour: both grippers follow the bottle, which turns by -TILT about x
    through the left grasp (minimum-jerk in time, sampled every 0.1 s; linear between samples)."""
    g1 = rk.Robot(G1, (rk.identity()[0], [0.0, 0.0, PELVIS_Z]))
    right_c = [GRIP_L[0], GRIP_L[1], GRIP_L[2] - GRIP_DZ]
    q = {}
    samples = []
    nseg = int(round((TILT_T1 - TILT_T0) / 0.1))
    for i in range(nseg + 1):
        tau = i / nseg
        s = 10 * tau ** 3 - 15 * tau ** 4 + 6 * tau ** 5
        th = -TILT * s
        q = g1.ik(q, "left_gripper", rk.identity(), grip_pose(GRIP_L, YAW_L, th), LEFT)
        q = g1.ik(q, "right_gripper", rk.identity(), grip_pose(right_c, YAW_R, th), RIGHT)
        samples.append((TILT_T0 + tau * (TILT_T1 - TILT_T0), dict(q)))
    return g1, samples


_PLAN = None


def robot_scene(n, name, task=False):
    global _PLAN
    if _PLAN is None:
        _PLAN = g1_plan()
    g1, samples = _PLAN
    q0 = samples[0][1]
    fing_l = round(PAD_INNER - BOTTLE_R, 6)            # left pads on the bottle
    fing_r = round(PAD_INNER - BOTTLE_R - 0.0005, 6)   # right pads 0.5 mm off (the weld holds)
    joints = WAIST + LEFT + RIGHT + FINGERS

    def qv(q):
        return [0.0, 0.0, 0.0] + [round(q[j], 6) for j in LEFT + RIGHT] + [fing_l, fing_l, fing_r, fing_r]

    wps = [{"time": 0.0, "q": qv(q0)}] + [{"time": round(t, 6), "q": qv(q)} for t, q in samples]
    # the bottle's frame (point O, upright) in the left gripper's frame at q0
    lg = g1.fk(q0)["left_gripper"]
    rel = rk.compose(rk.inverse(lg), (rk.identity()[0], BOTTLE_O))
    right_c = [GRIP_L[0], GRIP_L[1], GRIP_L[2] - GRIP_DZ]
    # bowl: static, App. B preset, under the stream (the neck ends 6 cm to +y and 7 cm below the pivot)
    bowl_o = [GRIP_L[0], GRIP_L[1] + 0.075, GRIP_L[2] - 0.1705]
    table_top = bowl_o[2] - 0.0025
    bodies = [
        {"name": "ground", "type": "static", "shapes": [{"type": "plane", "material": "plastic"}]},
        {"name": "table", "type": "static", "position": [0.45, 0.0, table_top / 2],
         "shapes": [{"type": "box", "half_extents": [0.2, 0.4, table_top / 2], "material": "plastic"}]},
        {"name": "bowl", "type": "static", "position": [round(c, 6) for c in bowl_o],
         "shapes": [{"type": "sdf", "kind": "bowl", "material": "plastic"}]},
    ] + particles(n, BOTTLE_O)
    sc = {
        "name": name,
        "description": (
            "Lee et al. 2025 §VII-C pouring with %d particles (radius 5 mm, density 10 g/cm^3, 5.24 g each) "
            "from the App. B bottle (as pouring.json; 0.1 kg) held by the G1 upper body "
            "(scenes/robots/g1-upper.json, pelvis fixed %.2f m above the ground; 21 joint DOF): the bottle "
            "is a link welded to the left gripper (its pads on the bottle), the right gripper holds it "
            "7 cm lower through a weld constraint. From %.1f to %.1f s both arms turn the bottle by %.2f "
            "rad about the world x axis through the left grasp (minimum-jerk; joint targets are inverse "
            "kinematics of both grippers every 0.1 s, linear in between: scripts/make_pouring.py) and "
            "the particles pour into a static App. B bowl on the table; joint impedance with gravity "
            "compensation. System DOF = 21 + 6 N = %d." % (
                n, PELVIS_Z, TILT_T0, TILT_T1, TILT, 21 + 6 * n)),
        "timestep": 1.0 / 240.0,
        "duration": DURATION,
        "gravity": [0, 0, -9.81],
        "contact": {"margin": 0.005, "erp": 0.2, "max_recovery_velocity": 0.2},
        "materials": [{"name": "plastic", "friction": 0.5}, {"name": "rubber", "friction": 1.0}],
        "bodies": bodies,
        "robots": [
            {"name": "g1", "model": os.path.relpath(G1, os.path.dirname(name_path(name))),
             "base": "fixed", "position": [0.0, 0.0, PELVIS_Z],
             "q0": {j: v for j, v in zip(joints, qv(q0))},
             "controller": {"joints": joints,
                            "kp": [300, 300, 300] + [100, 100, 100, 100, 40, 40, 40] * 2 + [200] * 4,
                            "kd": [10, 10, 10] + [5, 5, 5, 5, 2, 2, 2] * 2 + [5] * 4,
                            "gravity_compensation": True, "interpolation": "linear", "waypoints": wps}},
            {"name": "bottle", "attach": "g1/left_gripper", "position": [round(c, 9) for c in rel[1]],
             "quat": [round(c, 12) for c in rk.rot_to_quat(rel[0])],
             "links": [{"name": "bottle", "mass": 0.1,
                        "shapes": [{"type": "sdf", "kind": "bottle", "spacing": 0.002, "max_contacts": 16,
                                    "material": "plastic"}]}]},
        ],
        "constraints": [{"name": "right-grasp", "type": "weld", "bodies": ["g1/right_gripper", "bottle/bottle"],
                         "anchor": [round(c, 6) for c in right_c]}],
        "benchmark": {"capture": "trajectory", "skip": 0, "every": 24, "steps": int(DURATION * 240) // 24,
                      "quick_steps": 5, "driver": "canal",
                      "driver_budget": {"tol": 1e-8, "max_iter": 50},
                      "budget": {"tol": 1e-8, "max_iter": 500, "budget_ms": 200}},
    }
    if task:
        half = 0.075
        sc_task = {
            "description": "pour at least 90 %% of the %d particles into the bowl" % n,
            "step_budget_ms": 1.0,
            "solvers": ["canal", "subadmm", "pgs"],
            "tol": 1e-8, "max_iter": 1000,
            "criteria": [
                {"type": "in_region", "prefix": "p",
                 "min": [round(bowl_o[0] - half, 6), round(bowl_o[1] - half, 6), round(bowl_o[2] - 0.005, 6)],
                 "max": [round(bowl_o[0] + half, 6), round(bowl_o[1] + half, 6), round(bowl_o[2] + 0.06, 6)],
                 "fraction": 0.9},
                {"type": "penetration", "max": 0.001},
            ],
        }
        return sc, sc_task
    return sc


def name_path(name):
    return "scenes/tasks/x.json" if name.endswith("-g1") else "scenes/pouring-sweep/x.json"


TILT = float(os.environ.get("POUR_TILT", "2.2"))   # 2.4 (pouring.json) leaves the right wrist range

if __name__ == "__main__":
    os.makedirs("scenes/pouring-sweep", exist_ok=True)
    os.makedirs("scenes/tasks", exist_ok=True)
    write("scenes/pouring.json", scene(45))
    for n in (9, 18, 27, 36, 45):
        write("scenes/pouring-sweep/pouring-%d.json" % n, robot_scene(n, "pouring-%d" % n))
    sc, task = robot_scene(45, "pouring-g1", task=True)
    sc["task"] = task
    write("scenes/tasks/pouring-g1.json", sc)
