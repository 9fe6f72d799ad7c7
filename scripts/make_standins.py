#!/usr/bin/env python3
"""Writes the stand-ins for the six proprietary systems of the NCP report 2025's benchmark suite
(Table II: BDX, LIMA, Misha, Walker, Gazelle, IronMan): scenes/robots/standin-<key>.json and
scenes/ncpreport-<key>.json (issue 15 item 3).

The report gives only each system's dimensions (base, bodies, joints, total / passive / actuated
DoFs, constraint rows in maximal coordinates, mass ratio) and a sentence per category (§VII-A):
robots (BDX, LIMA) are articulated without loops, with primitive or small convex collision shapes
and joint limits; Audio-Animatronic figures (Misha, Walker, Gazelle, IronMan) have several loop
closures and passive joints, are fixed to the world except Walker, and collide with raw meshes
(many contact points per pair). The stand-ins are built to those numbers, not to the figures'
geometry, which is not published.

Counting conventions (tests/test_standins.c counts the loaded models the same way):
- bodies = the robot's links (the root included); joints = tree joints other than a floating
  base (a fixed base is one unary FIXED joint, 6 rows) + loop closures;
- total DoFs = the joints' DoFs (+ 6 for a floating base); revolute 1, spherical 3; a hinge
  closure 1, a point (ball) closure 3;
- constraint rows (maximal coordinates) = sum over joints of 6 - DoFs (hinge closure 5, point 3);
- actuated = joints under the joint-impedance controller; passive = total - actuated;
- mass ratio = max / min link mass.

Loops are parallelograms (crank, coupler, rocker on the tree, closed by a hinge or ball joint at
the fourth corner): crank angle th gives coupler -th and rocker +th exactly, so the
controller's targets of actuated loop joints never fight the closure.

Usage: python3 scripts/make_standins.py   (from the repository root; rewrites the files)"""
import json
import math
import os

H = 1.0 / 240.0
DURATION = 2.0
WP_DT = 0.05          # waypoint spacing of the sampled joint trajectories (linear interpolation)
RAMP = 0.3            # s: amplitudes ramp in so that the targets start at q0 = 0
PI = math.pi


def r(x):
    return round(x, 9)


def ramp(t):
    return min(1.0, t / RAMP)


QUAT = {  # capsule axis (local z) onto a direction
    "z": [1, 0, 0, 0],
    "x": [0.7071067811865476, 0, 0.7071067811865476, 0],
    "y": [0.7071067811865476, 0.7071067811865476, 0, 0],
}


def capsule(d, length, radius):
    """Capsule from the link origin along the unit direction d (an axis vector) of `length`."""
    ax = "x" if d[0] else ("y" if d[1] else "z")
    hl = max(length / 2.0 - radius, 0.0)
    return {"type": "capsule", "radius": radius, "half_length": r(hl),
            "position": [r(length / 2.0 * c) for c in d], "quat": QUAT[ax]}


def sphere_grid(center, nx, ny, dx, dy, radius, material="pad"):
    """A raw-mesh-like contact pad: nx x ny spheres in a plane (one contact each against a
    plane or a wall: many coplanar contact points per pair, NCP report 2025 §VII-A)."""
    out = []
    for i in range(nx):
        for j in range(ny):
            out.append({"type": "sphere", "radius": radius, "material": material,
                        "position": [r(center[0] + (i - (nx - 1) / 2.0) * dx),
                                     r(center[1] + (j - (ny - 1) / 2.0) * dy), r(center[2])]})
    return out


def wall_grid(center, ny, nz, dy, dz, radius, material="pad"):
    """The same pad in a y-z plane (a hand facing a side wall), ny x nz spheres."""
    out = []
    for i in range(ny):
        for j in range(nz):
            out.append({"type": "sphere", "radius": radius, "material": material,
                        "position": [r(center[0] + (i - (ny - 1) / 2.0) * dy), r(center[1]),
                                     r(center[2] + (j - (nz - 1) / 2.0) * dz)]})
    return out


class Robot:
    def __init__(self, name):
        self.name = name
        self.links = []
        self.loops = []
        self.pos = {}          # link frame origin in the root frame at q0 = 0 (no rotations)
        self.act = []          # (link, kp, kd, trajectory function of t)
        self.counts = {"rev": 0, "sph": 0, "hinge": 0, "point": 0}
        self.q0 = {}           # initial joint positions other than 0 (links not under a loop)

    def root(self, name, mass, shapes):
        self.links.append({"name": name, "mass": r(mass), "shapes": shapes})
        self.pos[name] = (0.0, 0.0, 0.0)

    def link(self, name, parent, origin, mass, shapes, jtype="revolute", axis=(0, 1, 0),
             limits=None, damping=0.0, act=None):
        j = {"type": jtype, "origin": [r(c) for c in origin]}
        if jtype == "revolute":
            j["axis"] = list(axis)
            self.counts["rev"] += 1
        else:
            self.counts["sph"] += 1
        if limits:
            j["limits"] = [r(limits[0]), r(limits[1])]
        if damping:
            j["damping"] = damping
        self.links.append({"name": name, "parent": parent, "joint": j, "mass": r(mass),
                           "shapes": shapes})
        p = self.pos[parent]
        self.pos[name] = (p[0] + origin[0], p[1] + origin[1], p[2] + origin[2])
        if act:
            self.act.append((name,) + tuple(act))

    def chain(self, prefix, parent, origin, d, specs):
        """Serial revolute links along the unit direction d at q0 = 0; specs: dicts with name,
        axis, length, mass, radius, shapes (extra), limits, damping, act (kp, kd, f)."""
        prev, o = parent, origin
        for s in specs:
            name = prefix + s["name"]
            shapes = []
            if s["length"] > 2.5 * s["radius"]:
                shapes.append(capsule(d, s["length"], s["radius"]))
            else:
                shapes.append({"type": "sphere", "radius": s["radius"],
                               "position": [r(s["length"] / 2.0 * c) for c in d]})
            shapes += s.get("shapes", [])
            self.link(name, prev, o, s["mass"], shapes, axis=s["axis"], limits=s.get("limits"),
                      damping=s.get("damping", 0.0), act=s.get("act"))
            prev, o = name, tuple(s["length"] * c for c in d)
        return prev

    def loop(self, prefix, parent, origin, a, b, masses, closure, act, th, kp=8.0, kd=0.2,
             damping=0.01):
        """Parallelogram A-B-C-D in the parent's x-z plane through origin A: crank A->B down
        (length a), coupler B->C along +x (length b), rocker C->D up (a); closed at D = A + b x.
        act: which of crank, coupler, rocker are actuated; th(t) the crank angle."""
        signs = (1.0, -1.0, 1.0)
        names = [prefix + "_crank", prefix + "_coupler", prefix + "_rocker"]
        geo = [((0, 0, -1), a, origin), ((1, 0, 0), b, (0, 0, -a)), ((0, 0, 1), a, (b, 0, 0))]
        prev = parent
        for k in range(3):
            d, length, o = geo[k]
            ctl = None
            if act[k]:
                sg = signs[k]
                ctl = (kp, kd, (lambda t, sg=sg: sg * th(t)))
            self.link(names[k], prev, o, masses[k], [capsule(d, length, 0.006)], axis=(0, 1, 0),
                      damping=0.0 if act[k] else damping, act=ctl)
            prev = names[k]
        pa = self.pos[parent]
        anchor = [r(pa[0] + origin[0] + b), r(pa[1] + origin[1]), r(pa[2] + origin[2])]
        c = {"name": prefix + "_closure", "type": closure, "bodies": [names[2], parent],
             "anchor": anchor}
        if closure == "hinge":
            c["axis"] = [0, 1, 0]
            self.counts["hinge"] += 1
        else:
            self.counts["point"] += 1
        self.loops.append(c)

    def model(self, description):
        out = {"name": self.name, "description": description, "links": self.links}
        if self.loops:
            out["loops"] = self.loops
        return out

    def controller(self):
        times = [r(i * WP_DT) for i in range(int(round(DURATION / WP_DT)) + 1)]
        wps = [{"time": t, "q": [r(a[3](t)) for a in self.act]} for t in times]
        return {"joints": [a[0] for a in self.act], "kp": [a[1] for a in self.act],
                "kd": [a[2] for a in self.act], "interpolation": "linear", "waypoints": wps}

    def dims(self, free):
        nb = len(self.links)
        c = self.counts
        joints = c["rev"] + c["sph"] + c["hinge"] + c["point"] + (0 if free else 1)
        dofs = c["rev"] + 3 * c["sph"] + c["hinge"] + 3 * c["point"] + (6 if free else 0)
        rows = 5 * c["rev"] + 3 * c["sph"] + 5 * c["hinge"] + 3 * c["point"] + (0 if free else 6)
        masses = [l["mass"] for l in self.links]
        return nb, joints, dofs, len(self.act), rows, max(masses) / min(masses)


def sinus(amp, freq, phase=0.0, offset=0.0):
    return lambda t: ramp(t) * (offset + amp * math.sin(2 * PI * freq * t + phase))


def lift(amp, freq, phase):
    """Positive half-waves only: a foot lifts, then stands for half a period."""
    return lambda t: ramp(t) * amp * max(0.0, math.sin(2 * PI * freq * t + phase))


def biped_leg(rb, side, y, hip_z, masses, lengths, freq, kp, kd, roll_ankle, foot, sway):
    """Hip yaw, hip roll, hip pitch, knee, ankle pitch (+ ankle roll): a stepping-in-place gait,
    the foot lifting by knee flexion every other half period, with a lateral sway of both hips
    that moves the torso over the stance foot."""
    ph = 0.0 if side == "L" else PI
    l_thigh, l_shin = lengths
    specs = [
        {"name": "hip_yaw", "axis": (0, 0, 1), "length": 0.03, "mass": masses[0], "radius": 0.03,
         "limits": (-0.8, 0.8), "act": (kp, kd, sinus(0.05, freq, ph))},
        {"name": "hip_roll", "axis": (1, 0, 0), "length": 0.03, "mass": masses[1], "radius": 0.03,
         "limits": (-0.6, 0.6), "act": (kp, kd, sinus(sway, freq))},
        {"name": "hip_pitch", "axis": (0, 1, 0), "length": l_thigh, "mass": masses[2],
         "radius": 0.03, "limits": (-1.5, 1.0), "act": (kp, kd, lift(-0.3, freq, ph))},
        {"name": "knee", "axis": (0, 1, 0), "length": l_shin, "mass": masses[3], "radius": 0.025,
         "limits": (-0.1, 2.2), "act": (kp, kd, lift(0.6, freq, ph))},
    ]
    fbox = {"type": "box", "half_extents": list(foot), "position": [0.02, 0, r(-0.02 - foot[2])],
            "material": "foot"}
    if roll_ankle:
        specs.append({"name": "ankle_pitch", "axis": (0, 1, 0), "length": 0.02, "mass": masses[4],
                      "radius": 0.02, "limits": (-1.0, 1.0), "act": (kp, kd, lift(-0.3, freq, ph))})
        specs.append({"name": "ankle_roll", "axis": (1, 0, 0), "length": 0.02, "mass": masses[5],
                      "radius": 0.02, "limits": (-0.6, 0.6), "shapes": [fbox],
                      "act": (kp, kd, sinus(-sway, freq))})
    else:
        specs.append({"name": "ankle", "axis": (0, 1, 0), "length": 0.02, "mass": masses[4],
                      "radius": 0.02, "limits": (-1.0, 1.0), "shapes": [fbox],
                      "act": (kp, kd, lift(-0.3, freq, ph))})
    rb.chain(side + "_", "torso", (0, y, hip_z), (0, 0, -1), specs)
    height = 0.06 + l_thigh + l_shin + (0.02 if roll_ankle else 0) + 0.02 + 2 * foot[2]
    return height


MATERIALS = [{"name": "ground", "friction": 0.8}, {"name": "foot", "friction": 0.8},
             {"name": "pad", "friction": 0.6}, {"name": "wall", "friction": 0.6}]


def scene(key, title, desc, rb, base, z, statics, driver, driver_budget):
    robot = {"name": key, "model": "robots/standin-%s.json" % key, "base": base,
             "position": [0, 0, r(z)]}
    if rb.q0:
        robot["q0"] = {k: r(v) for k, v in rb.q0.items()}
    robot["controller"] = rb.controller()
    bodies = [{"name": "ground", "type": "static",
               "shapes": [{"type": "plane", "material": "ground"}]}] + statics
    return {
        "name": "ncpreport-" + key,
        "description": desc,
        "timestep": H,
        "duration": DURATION,
        "contact": {"margin": 0.005, "erp": 0.2, "max_recovery_velocity": 0.5},
        "materials": MATERIALS,
        "bodies": bodies,
        "robots": [robot],
        "benchmark": {"capture": "trajectory", "skip": 72, "every": 6, "steps": 50,
                      "quick_steps": 3, "driver": driver, "driver_budget": driver_budget,
                      "budget": {"tol": 1e-8, "max_iter": 500}},
    }


def bdx():
    """BDX, Table II: free, 15 bodies, 14 joints, Total 14 (inconsistent: 6 + 14 = 20 with 6
    passive and 14 actuated; we take 20), 70 rows, mass ratio 42.49. A biped: 2 legs of 5
    revolute joints + a 4-joint neck and head; box feet (4 corner contacts each)."""
    rb = Robot("standin-bdx")
    m_min = 0.2
    rb.root("torso", 42.49 * m_min, [{"type": "box", "half_extents": [0.14, 0.11, 0.08]}])
    h = 0
    for side, y in (("L", 0.09), ("R", -0.09)):
        h = biped_leg(rb, side, y, -0.08, (0.5, 0.6, 1.4, 0.9, 0.45), (0.18, 0.18), 0.8, 150, 4,
                      False, (0.1, 0.05, 0.015), 0.07)
    rb.chain("", "torso", (0.08, 0, 0.08), (0, 0, 1), [
        {"name": "neck_pitch", "axis": (0, 1, 0), "length": 0.1, "mass": 0.6, "radius": 0.025,
         "limits": (-0.8, 0.8), "act": (40, 1, sinus(0.2, 0.5))},
        {"name": "head_yaw", "axis": (0, 0, 1), "length": 0.03, "mass": 0.3, "radius": 0.02,
         "limits": (-1.2, 1.2), "act": (20, 0.5, sinus(0.5, 0.6))},
        {"name": "head_pitch", "axis": (0, 1, 0), "length": 0.05, "mass": 1.1, "radius": 0.02,
         "limits": (-0.8, 0.8), "act": (20, 0.5, sinus(0.25, 0.9)),
         "shapes": [{"type": "box", "half_extents": [0.09, 0.07, 0.05], "position": [0.03, 0, 0.08]}]},
        {"name": "head_roll", "axis": (1, 0, 0), "length": 0.03, "mass": m_min, "radius": 0.015,
         "limits": (-0.6, 0.6), "act": (5, 0.1, sinus(0.3, 1.1)),
         "shapes": [{"type": "capsule", "radius": 0.008, "half_length": 0.04,
                     "position": [0, 0.04, 0.06]}]},
    ])
    return rb, "free", 0.08 + h + 0.004, []


def lima():
    """LIMA, Table II: free, 21 bodies, 20 joints, 26 DoFs (6 passive, 20 actuated), 100 rows,
    mass ratio 321.39. A humanoid: 2 legs of 6 revolute joints (with ankle roll) + 2 arms of 4;
    box feet."""
    rb = Robot("standin-lima")
    m_min = 0.05
    rb.root("torso", 321.39 * m_min, [{"type": "box", "half_extents": [0.1, 0.15, 0.18]}])
    h = 0
    for side, y in (("L", 0.1), ("R", -0.1)):
        h = biped_leg(rb, side, y, -0.18, (0.8, 1.0, 2.5, 1.6, 0.3, 0.6), (0.25, 0.25), 0.7, 250, 6,
                      True, (0.11, 0.055, 0.015), 0.06)
    for side, y in (("L", 0.19), ("R", -0.19)):
        sg = 1.0 if side == "L" else -1.0
        ph = PI if side == "L" else 0.0   # arms swing against the legs
        rb.chain(side + "_", "torso", (0, y, 0.14), (0, 0, -1), [
            {"name": "shoulder_pitch", "axis": (0, 1, 0), "length": 0.03, "mass": 0.5,
             "radius": 0.03, "limits": (-2.0, 2.0), "act": (60, 1.5, sinus(0.3, 0.7, ph))},
            {"name": "shoulder_roll", "axis": (1, 0, 0), "length": 0.22, "mass": 1.2,
             "radius": 0.03, "limits": (-0.5, 1.5), "act": (60, 1.5, sinus(sg * 0.1, 0.7, 0, sg * 0.15))},
            {"name": "elbow", "axis": (0, 1, 0), "length": 0.2, "mass": 0.7, "radius": 0.025,
             "limits": (-2.2, 0.1), "act": (30, 0.8, lift(-0.6, 0.7, ph))},
            {"name": "wrist", "axis": (0, 0, 1), "length": 0.03, "mass": m_min, "radius": 0.02,
             "limits": (-1.5, 1.5), "act": (2, 0.05, sinus(0.5, 1.0))},
        ])
    return rb, "free", 0.18 + h + 0.004, []


def walker():
    """Walker, Table II: free, 31 bodies, 36 joints, 42 DoFs (18 passive, 24 actuated), 180
    rows (36 x 5: every joint revolute, closures hinges), mass ratio 99.55. A biped of 2 x 6
    actuated leg joints carrying 6 parallelogram linkages (arms, neck, jaw: crank and rocker
    actuated, coupler passive, closed by a passive hinge): 6 loops, 12 passive joints."""
    rb = Robot("standin-walker")
    m_min = 0.2
    rb.root("torso", 99.55 * m_min, [{"type": "box", "half_extents": [0.12, 0.16, 0.2]}])
    h = 0
    for side, y in (("L", 0.1), ("R", -0.1)):
        h = biped_leg(rb, side, y, -0.2, (0.8, 1.0, 3.0, 2.0, 0.4, 0.8), (0.26, 0.26), 0.6, 300, 8,
                      True, (0.12, 0.06, 0.015), 0.06)
    loops = [("arm_L1", (-0.06, 0.2, 0.15), 0.18, 0.12, 0.0), ("arm_L2", (-0.06, 0.24, 0.15), 0.2, 0.12, 0.5),
             ("arm_R1", (-0.06, -0.2, 0.15), 0.18, 0.12, PI), ("arm_R2", (-0.06, -0.24, 0.15), 0.2, 0.12, PI + 0.5),
             ("neck", (-0.05, 0.0, 0.3), 0.08, 0.1, 1.0), ("jaw", (0.05, 0.0, 0.26), 0.05, 0.06, 2.0)]
    for name, o, a, b, ph in loops:
        rb.loop(name, "torso", o, a, b, (0.6, m_min, 0.5), "hinge", (True, False, True),
                sinus(0.35, 0.6, ph))
    return rb, "free", 0.2 + h + 0.004, []


def fixed_leg(rb, side, o, masses, lengths, foot_pad, kp, kd, freq, ph, lift_amp):
    """A leg of a fixed-base figure hanging to the floor: hip pitch and knee (actuated), foot
    pad of small spheres (a raw mesh's many coplanar contacts), lifting by knee flexion."""
    specs = [
        {"name": "hip", "axis": (0, 1, 0), "length": lengths[0], "mass": masses[0], "radius": 0.035,
         "act": (kp, kd, lift(-lift_amp, freq, ph))},
        {"name": "knee", "axis": (0, 1, 0), "length": lengths[1], "mass": masses[1], "radius": 0.03,
         "shapes": foot_pad, "act": (kp, kd, lift(2 * lift_amp, freq, ph))},
    ]
    rb.chain(side + "_", "torso", o, (0, 0, -1), specs)


def side_walls(y, half_z):
    """Two static walls (boxes 1 cm thick) whose inner faces are at +-y, centred at z = 0.6 m:
    the hands' pads start 3 mm from them and press them when the shoulders roll out."""
    return [{"name": "wall_" + s, "type": "static", "position": [0, r(sg * y), 0.6],
             "shapes": [{"type": "box", "half_extents": [0.3, 0.005, half_z],
                         "position": [0, sg * 0.005, 0], "material": "wall"}]}
            for s, sg in (("L", 1.0), ("R", -1.0))]


def misha():
    """Misha, Table II: fixed, 22 bodies, 24 joints, 23 DoFs (0 passive, 23 actuated), 121 rows
    (6 + 23 x 5), mass ratio 90.67. A figure on a fixed torso: 2 legs (2), 2 arms (4), neck (3),
    2 parallelogram face linkages (3 each, all actuated) closed by 2 hinges; the closures are
    passive in our schema (a controller drives tree joints only), so 21 actuated + 2 passive."""
    rb = Robot("standin-misha")
    m_min = 0.5
    rb.root("torso", 90.67 * m_min, [{"type": "box", "half_extents": [0.15, 0.2, 0.25]}])
    pad = sphere_grid((0.03, 0, -0.3), 3, 3, 0.04, 0.035, 0.01)
    for side, y, ph in (("L", 0.1, 0.0), ("R", -0.1, PI)):
        fixed_leg(rb, side, (0, y, -0.25), (4.0, 2.5), (0.3, 0.3), pad, 200, 5, 0.8, ph, 0.25)
    for side, y in (("L", 0.26), ("R", -0.26)):
        sg = 1.0 if side == "L" else -1.0
        hand = wall_grid((0, sg * 0.035, -0.06), 3, 3, 0.03, 0.03, 0.008)
        rb.chain(side + "_", "torso", (0, y, 0.2), (0, 0, -1), [
            {"name": "shoulder_roll", "axis": (1, 0, 0), "length": 0.04, "mass": 1.0, "radius": 0.035,
             "act": (120, 3, sinus(sg * 0.08, 0.9, 0.0 if side == "L" else PI, sg * 0.02))},
            {"name": "shoulder_pitch", "axis": (0, 1, 0), "length": 0.25, "mass": 2.0, "radius": 0.03,
             "act": (120, 3, sinus(0.2, 0.5))},
            {"name": "elbow", "axis": (0, 1, 0), "length": 0.22, "mass": 1.2, "radius": 0.025,
             "act": (60, 1.5, lift(-0.5, 0.5, 1.0))},
            {"name": "wrist", "axis": (0, 1, 0), "length": 0.08, "mass": m_min, "radius": 0.02,
             "shapes": hand, "act": (20, 0.5, sinus(0.2, 1.0))},
        ])
    rb.chain("", "torso", (0.02, 0, 0.25), (0, 0, 1), [
        {"name": "neck_pitch", "axis": (0, 1, 0), "length": 0.1, "mass": 1.5, "radius": 0.03,
         "act": (80, 2, sinus(0.15, 0.4))},
        {"name": "head_yaw", "axis": (0, 0, 1), "length": 0.03, "mass": 0.8, "radius": 0.025,
         "act": (40, 1, sinus(0.5, 0.5))},
        {"name": "head_pitch", "axis": (0, 1, 0), "length": 0.05, "mass": 3.0, "radius": 0.03,
         "act": (40, 1, sinus(0.2, 0.8)),
         "shapes": [{"type": "box", "half_extents": [0.1, 0.09, 0.1], "position": [0.02, 0, 0.12]}]},
    ])
    for name, y, ph in (("brow_L", 0.08, 0.0), ("brow_R", -0.08, 0.7)):
        rb.loop(name, "torso", (0.16, y, 0.2), 0.06, 0.08, (0.7, m_min, 0.6), "hinge",
                (True, True, True), sinus(0.3, 0.7, ph), kp=10, kd=0.2)
    return rb, "fixed", 0.25 + 0.6 + 0.01 + 0.001, side_walls(0.26 + 0.035 + 0.008 + 0.003, 0.3)


def gazelle():
    """Gazelle, Table II: fixed, 38 bodies, 45 joints, 60 DoFs (38 passive, 22 actuated), 214
    rows (6 x 45 - 60 = 210 for any joint types: we have 210), mass ratio 1012.54. A quadruped
    figure on a fixed body: 4 legs (3 actuated each), a neck (3), a pendant ear on a ball joint
    (passive), 7 parallelogram linkages (crank actuated; coupler, rocker passive) closed by ball
    joints: 36 revolute + 8 ball joints."""
    rb = Robot("standin-gazelle")
    m_min = 0.1
    rb.root("torso", 1012.54 * m_min, [{"type": "box", "half_extents": [0.4, 0.15, 0.15]}])
    # legs start bent (thigh -b, shin +2b: the hoof straight below the hip, touching the floor)
    # and their targets extend them a little, so the hooves press on the floor until they lift
    b = 0.35
    hoof = sphere_grid((0, 0, -0.3), 1, 2, 0.03, 0.03, 0.01)
    legs = [("FL", (0.3, 0.1), 0.0), ("FR", (0.3, -0.1), PI), ("RL", (-0.3, 0.1), PI / 2),
            ("RR", (-0.3, -0.1), 3 * PI / 2)]
    for side, (x, y), ph in legs:
        up, kn = lift(-0.25, 0.9, ph), lift(0.5, 0.9, ph)
        rb.chain(side + "_", "torso", (x, y, -0.15), (0, 0, -1), [
            {"name": "hip", "axis": (1, 0, 0), "length": 0.04, "mass": 1.5, "radius": 0.035,
             "act": (150, 4, sinus(0.03, 0.9, ph))},
            {"name": "thigh", "axis": (0, 1, 0), "length": 0.3, "mass": 3.0, "radius": 0.03,
             "act": (150, 4, (lambda t, up=up: -b + 0.03 * ramp(t) + up(t)))},
            {"name": "shin", "axis": (0, 1, 0), "length": 0.3, "mass": 1.0, "radius": 0.02,
             "shapes": hoof, "act": (100, 3, (lambda t, kn=kn: 2 * b - 0.06 * ramp(t) + kn(t)))},
        ])
        rb.q0[side + "_thigh"] = -b
        rb.q0[side + "_shin"] = 2 * b
    rb.chain("", "torso", (0.38, 0, 0.15), (0, 0, 1), [
        {"name": "neck_pitch", "axis": (0, 1, 0), "length": 0.35, "mass": 3.0, "radius": 0.03,
         "act": (150, 4, sinus(0.2, 0.4))},
        {"name": "head_yaw", "axis": (0, 0, 1), "length": 0.03, "mass": 0.5, "radius": 0.02,
         "act": (30, 0.8, sinus(0.6, 0.5))},
        {"name": "head_pitch", "axis": (0, 1, 0), "length": 0.05, "mass": 2.0, "radius": 0.02,
         "act": (30, 0.8, sinus(0.3, 0.7)),
         "shapes": [{"type": "box", "half_extents": [0.1, 0.05, 0.05], "position": [0.06, 0, 0.05]}]},
    ])
    rb.link("ear", "head_pitch", (0, 0.06, 0.1), m_min,
            [capsule((0, 0, -1), 0.08, 0.008)], jtype="spherical", damping=0.001)
    for i in range(7):
        y = -0.12 + 0.04 * i
        rb.loop("mech%d" % i, "torso", (-0.3 + 0.08 * i, y, 0.3), 0.08, 0.06, (0.4, m_min, 0.3),
                "point", (True, False, False), sinus(0.3, 0.5 + 0.1 * i, i))
    return rb, "fixed", 0.15 + 0.04 + 0.6 * math.cos(b) + 0.01 + 0.0005, []


def ironman():
    """IronMan, Table II: fixed, 54 bodies, 67 joints, 100 DoFs (80 passive, 20 actuated), 304
    rows (6 x 67 - 100 = 302 for any joint types: we have 302), mass ratio 25544.44. A standing
    figure on a fixed torso: 2 legs (2 actuated), 2 arms (shoulder actuated, passive elbow, a hand
    on a passive ball wrist pressing a side wall), a neck (actuated) with a passive jaw, 2
    passive ball-jointed cape plates, 13 parallelogram linkages (crank actuated) closed by ball
    joints: 49 revolute + 17 ball joints."""
    rb = Robot("standin-ironman")
    m_min = 0.004
    rb.root("torso", 25544.44 * m_min, [{"type": "box", "half_extents": [0.15, 0.22, 0.3]}])
    pad = sphere_grid((0.03, 0, -0.4), 4, 4, 0.03, 0.025, 0.008)
    for side, y, ph in (("L", 0.11, 0.0), ("R", -0.11, PI)):
        fixed_leg(rb, side, (0, y, -0.3), (6.0, 4.0), (0.4, 0.4), pad, 400, 10, 0.7, ph, 0.2)
    for side, y in (("L", 0.28), ("R", -0.28)):
        sg = 1.0 if side == "L" else -1.0
        rb.chain(side + "_", "torso", (0, y, 0.25), (0, 0, -1), [
            {"name": "shoulder", "axis": (1, 0, 0), "length": 0.28, "mass": 2.5, "radius": 0.03,
             "act": (300, 6, sinus(sg * 0.06, 0.8, 0.0 if side == "L" else PI, sg * 0.02))},
            {"name": "elbow", "axis": (0, 1, 0), "length": 0.26, "mass": 1.5, "radius": 0.035,
             "damping": 2.0},
        ])
        hand = wall_grid((0, sg * 0.03, -0.07), 3, 3, 0.03, 0.03, 0.008)
        rb.link(side + "_hand", side + "_elbow", (0, 0, -0.26), 0.5,
                [capsule((0, 0, -1), 0.1, 0.025)] + hand, jtype="spherical", damping=0.5)
        rb.link(side + "_cape", side + "_shoulder", (-0.06, 0, 0), 0.3,
                [capsule((0, 0, -1), 0.2, 0.01)], jtype="spherical", damping=0.05)
    rb.chain("", "torso", (0, 0, 0.3), (0, 0, 1), [
        {"name": "neck_yaw", "axis": (0, 0, 1), "length": 0.08, "mass": 1.5, "radius": 0.035,
         "act": (100, 2, sinus(0.4, 0.5)),
         "shapes": [{"type": "box", "half_extents": [0.1, 0.09, 0.12], "position": [0, 0, 0.17]}]},
    ])
    rb.link("jaw", "neck_yaw", (0.06, 0, 0.1), 0.2, [capsule((1, 0, 0), 0.06, 0.01)],
            axis=(0, 1, 0), damping=0.05)
    for i in range(13):
        y = -0.18 + 0.03 * i
        x = 0.16 if i % 2 == 0 else -0.16
        rb.loop("mech%02d" % i, "torso", (x, y, 0.25 - 0.02 * (i % 3)), 0.05, 0.04,
                (0.08, m_min, 0.05), "point", (True, False, False), sinus(0.3, 0.5 + 0.07 * i, i))
    return rb, "fixed", 0.3 + 0.8 + 0.008 + 0.001, side_walls(0.28 + 0.03 + 0.008 + 0.003, 0.5)


MOTION = {
    "bdx": "stepping in place (each foot lifts by knee flexion every other half period, 0.8 Hz, "
           "with a lateral hip sway) and head motions, so the feet's corner contacts come and go",
    "lima": "stepping in place (0.7 Hz, hip sway and ankle roll) with the arms swinging against the "
            "legs, so the feet's corner contacts come and go",
    "misha": "the feet lift and land in turn, the hands' pads press the side walls and let go, the "
             "head and the two face linkages cycle",
    "walker": "stepping in place (0.6 Hz, hip sway and ankle roll) while the six linkages cycle, so "
              "the feet's corner contacts come and go",
    "gazelle": "the four legs start bent with the hooves on the floor and press on it (targets "
               "slightly extended), then lift and land in a walk sequence; neck, head and the seven "
               "linkages cycle, the ear swings",
    "ironman": "the feet's 4 x 4 pads lift and land in turn, the hands' 3 x 3 pads press the side "
               "walls and let go as the shoulders roll, the neck turns and the 13 linkages cycle",
}

SYSTEMS = [
    ("bdx", "BDX", "Disney's BDX", bdx),
    ("lima", "LIMA", "Disney's LIMA", lima),
    ("misha", "Misha", "Disney's Audio-Animatronic Misha", misha),
    ("walker", "Walker", "Disney's Audio-Animatronic Walker", walker),
    ("gazelle", "Gazelle", "Disney's Audio-Animatronic Gazelle", gazelle),
    ("ironman", "IronMan", "Disney's Audio-Animatronic IronMan", ironman),
]


def main():
    for key, title, owner, fn in SYSTEMS:
        rb, base, z, statics = fn()
        nb, nj, nd, na, rows, ratio = rb.dims(base == "free")
        loops = len(rb.loops)
        what = (fn.__doc__ or "").split("\n")
        what = " ".join(w.strip() for w in what)
        dimtxt = ("%s base, %d bodies, %d joints (%d loop closures), %d DoFs (%d passive, %d actuated), "
                  "%d constraint rows in maximal coordinates, mass ratio %.2f"
                  % (base, nb, nj, loops, nd, nd - na, na, rows, ratio))
        mdesc = ("Stand-in for %s (NCP report 2025 Table II): same dimensions, not its geometry "
                 "(unpublished). %s Ours: %s. Written by scripts/make_standins.py." % (owner, what, dimtxt))
        sdesc = ("NCP report 2025's %s, a stand-in for %s: same dimensions, not its geometry. "
                 "%s Motion: joint impedance (implicit) tracking sampled sinusoids that ramp in over "
                 "%.1f s: %s. Ours: %s." % (title, owner, what, RAMP, MOTION[key], dimtxt))
        model = rb.model(mdesc)
        with open(os.path.join("scenes", "robots", "standin-%s.json" % key), "w") as f:
            json.dump(model, f, indent=1)
            f.write("\n")
        # nsn-nm drives the loop-free robots (as quadruped.json); on Walker's hinge loops it
        # stalls and the trajectory diverges, so the figures with loops are driven by canal
        drv = "canal" if rb.loops else "nsn-nm"
        sc = scene(key, title, sdesc, rb, base, z, statics, drv, {"tol": 1e-10, "max_iter": 100})
        with open(os.path.join("scenes", "ncpreport-%s.json" % key), "w") as f:
            json.dump(sc, f, indent=1)
            f.write("\n")
        print("%-8s %s" % (key, dimtxt))


if __name__ == "__main__":
    main()
