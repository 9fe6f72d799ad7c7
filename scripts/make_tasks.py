#!/usr/bin/env python3
"""Writes the robot task scenes of Lee et al. 2025 §VII-A2 and §VII-B2 (issue 11):
scenes/tasks/boltnut-screw-panda.json (0.1 mm clearance), scenes/tasks/boltnut-screw-tight-panda.json
(the paper's tight-tolerance fit: zero clearance) and scenes/tasks/dish-stack.json. The pouring task
(§VII-C) is written by scripts/make_pouring.py.

The joint targets are inverse kinematics of the Panda model (scenes/robots/panda.json with
scenes/robots/franka-hand.json on its flange) computed here by scripts/robot_kin.py, so that the
waypoints put the tool exactly where the geometry needs it.

Usage: python3 scripts/make_tasks.py   (from the repository root; rewrites the files)"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import robot_kin as rk  # noqa: E402

H = 1.0 / 240.0
PI = math.pi
ARM_JOINTS = ["link%d" % i for i in range(1, 8)]
# libfranka's joint_impedance_control gains (as scenes/arm-pick.json)
KP = [600, 600, 600, 600, 250, 150, 50]
KD = [50, 50, 50, 50, 30, 25, 15]
HAND_RPY = [0, 0, -PI / 4]        # franka-hand.json on panda/link8
TCP = 0.1034                       # grasp centre along the hand's z

# M48 x 5 thread and nut as scenes/boltnut.json
LEAD = 0.005
NUT_Z_ENGAGED = 0.0498845299       # nut centre above the bolt's lower end with identity orientation,
                                   # resting on the lower flanks (0.1 mm clearance)
# zero clearance: the nut's and the bolt's basic profiles coincide when the nut's centre is a whole
# number of pitches above the bolt's lower end (scenes/boltnut-tight.json), so both flanks touch.
# (With 0.1 mm the nut rests 0.1 mm / sin 60 deg = 0.1155 mm lower: NUT_Z_ENGAGED above.)
NUT_Z_ENGAGED_TIGHT = 0.05
BOLT_LEN = 0.06                    # shorter than boltnut.json's 0.1 m: the bolt end stays below the hand
NUT_BELOW_TCP = 0.01               # nut centre 1 cm beyond the TCP: the fingertips hold its upper half


def r6(v):
    return [round(x, 9) for x in v]


def panda():
    return rk.Robot(os.path.join("scenes", "robots", "panda.json"))


def hand_offset():
    """Pose of the hand frame in panda/link8."""
    return rk.rpy(*HAND_RPY), [0.0, 0.0, 0.0]


def qvec(q):
    return [round(q[j], 6) for j in ARM_JOINTS]


def write(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


# ---------------------------------------------------------------------------------------------
# Bolt-nut screwing (Lee et al. 2025 §VII-A2)

def boltnut(tight=False):
    """tight: the paper's tight-tolerance assembly (Lee et al. 2025 §VII-A: "a limited feasible
    region or even infeasibility"): zero fit clearance, the nut placed where the profiles
    coincide; everything else (arm, grasp, trajectory, contact settings, criteria) as the
    0.1 mm-clearance task."""
    arm = panda()
    clearance = 0.0 if tight else 0.0001
    z_engaged = NUT_Z_ENGAGED_TIGHT if tight else NUT_Z_ENGAGED
    bolt_base = [0.5, 0.0, 0.25]
    # the nut hangs from the hand turned by pi about the hand's y: its axis points up and its
    # flats (normal to its y) face the fingers
    nut_in_hand = compose_list([hand_offset(), (rk.rpy(0, PI, 0), [0.0, 0.0, TCP + NUT_BELOW_TCP])])
    q7_start, q7_end = -2.6, 2.6   # inside +-2.8973 by more than the limit margin

    def pose_for(q7, turns_below, z=None):
        """Planar arm (q1 = q3 = q5 = 0) with the nut on the bolt's axis, engaged on the thread
        (at height z if given: the thread's phase is then the caller's business)."""
        guess = {"link1": 0, "link2": 0.1, "link3": 0, "link4": -2.2, "link5": 0, "link6": 2.3, "link7": q7}
        rn = rk.compose(arm.fk(guess)["link8"], nut_in_hand)[0]
        # nut orientation about the axis (pointing down, the hand only turns about the world z)
        alpha = math.atan2(rn[1][0], rn[0][0])
        # right-hand thread: a turn alpha about +z moves the nut by LEAD alpha / 2 pi
        if z is None:
            z = bolt_base[2] + z_engaged + LEAD * (alpha / (2 * PI) - turns_below)
        target = (rk.rot_axis([0, 0, 1], alpha), [bolt_base[0], bolt_base[1], z])
        q = arm.ik(guess, "link8", nut_in_hand, target, ["link2", "link4", "link6"])
        return q, z

    # the start: the nut's centre about 35 mm above the bolt's end (its lower face 16 mm above)
    k = round((z_engaged - 0.035) / LEAD)
    q_a, z_a = pose_for(q7_start, k)
    # joint 7 turns by +5.2 rad, i.e. -5.2 rad about the world z (the hand points down): the nut
    # advances LEAD * 5.2 / 2 pi = 4.14 mm; the arm follows the lead
    q_b, z_b = pose_for(q7_end, k, z_a - LEAD * (q7_end - q7_start) / (2 * PI))
    advance = z_a - z_b
    # the end pose is on the thread too: its turn about z differs from the start's by 5.2 rad
    rn_a = rk.compose(arm.fk(q_a)["link8"], nut_in_hand)[0]
    rn_b = rk.compose(arm.fk(q_b)["link8"], nut_in_hand)[0]
    turn = math.atan2(rn_b[1][0], rn_b[0][0]) - math.atan2(rn_a[1][0], rn_a[0][0])
    assert abs(math.remainder(turn + (q7_end - q7_start), 2 * PI)) < 1e-8, turn
    t_turn0, t_turn1, duration = 0.25, 3.25, 3.5
    nut = [{"name": "nut", "density": 7850,
            "shapes": [{"type": "sdf", "kind": "nut", "diameter": 0.048, "pitch": LEAD, "height": 0.038,
                        "width_across_flats": 0.075, "spacing": 0.002, "material": "steel"}]}]
    scene = {
        "name": "boltnut-screw-panda",
        "description": (
            "Lee et al. 2025 §VII-A2: a Panda-like arm (scenes/robots/panda.json) with a Franka-Hand-like "
            "gripper holds the M48 x 5 nut of boltnut.json (the nut is a link welded to the hand, its "
            "centre 1 cm beyond the TCP; the fingertips rest on two flats) engaged on a fixed bolt "
            "(0.06 m threaded length so that its end stays clear of the hand; clearance 0.1 mm, steel "
            "mu 0.3) and screws it down by turning joint 7 from %.1f to %.1f rad (%.2f mm of advance at "
            "5 mm per turn) between %.2f and %.2f s, the arm following the lead: joint waypoints are "
            "inverse kinematics of the engaged nut pose at both ends (scripts/make_tasks.py), "
            "minimum-jerk, joint impedance control with gravity compensation (libfranka's gains). "
            "Budget 0.5 ms per step (Lee et al. 2025 §VII-A2)." % (
                q7_start, q7_end, advance * 1e3, t_turn0, t_turn1)),
        "timestep": H,
        "duration": duration,
        "contact": {"margin": 0.0005, "erp": 0.2, "max_recovery_velocity": 0.1},
        "materials": [{"name": "steel", "friction": 0.3}, {"name": "rubber", "friction": 1.0}],
        "bodies": [
            {"name": "ground", "type": "static", "shapes": [{"type": "plane"}]},
            {"name": "stand", "type": "static", "position": [bolt_base[0], bolt_base[1], bolt_base[2] / 2],
             "shapes": [{"type": "box", "half_extents": [0.06, 0.06, bolt_base[2] / 2], "material": "steel"}]},
            {"name": "bolt", "type": "static", "position": bolt_base,
             "shapes": [{"type": "sdf", "kind": "bolt", "diameter": 0.048, "pitch": LEAD, "length": BOLT_LEN,
                         "clearance": clearance, "spacing": 0.002, "material": "steel"}]},
        ],
        "robots": [
            {"name": "arm", "model": "../robots/panda.json", "base": "fixed",
             "q0": {j: round(q_a[j], 9) for j in ARM_JOINTS},
             "controller": {"kp": KP, "kd": KD, "gravity_compensation": True, "interpolation": "min_jerk",
                            "waypoints": [{"time": 0.0, "q": qvec(q_a)}, {"time": t_turn0, "q": qvec(q_a)},
                                          {"time": t_turn1, "q": qvec(q_b)}]}},
            {"name": "hand", "model": "../robots/franka-hand.json", "attach": "arm/link8", "rpy": HAND_RPY,
             "q0": {"finger_left": 0.0375, "finger_right": 0.0375},
             "controller": {"joints": ["finger_left", "finger_right"], "kp": 400, "kd": 10,
                            "gravity_compensation": True,
                            "waypoints": [{"time": 0.0, "q": [0.0375, 0.0375]}]}},
            {"name": "nut", "links": nut, "attach": "hand/hand",
             "position": r6(nut_in_hand_hand()[1]), "rpy": [0, PI, 0]},
        ],
        "benchmark": {"capture": "trajectory", "skip": 0, "every": 6, "steps": 140, "quick_steps": 5,
                      "driver": "canal", "driver_budget": {"tol": 1e-8, "max_iter": 50},
                      "budget": {"tol": 1e-8, "max_iter": 500, "budget_ms": 200}},
    }
    if tight:
        scene["name"] = "boltnut-screw-tight-panda"
        scene["description"] = (
            "Lee et al. 2025 §VII-A2 with the paper's tight-tolerance fit (§VII-A: intensive contact gives "
            "\"a limited feasible region or even infeasibility\"; issue 11): boltnut-screw-panda.json with "
            "zero fit clearance (bolt and nut share the ISO 68-1 basic profile, as scenes/boltnut-tight.json) "
            "and the nut placed where the profiles coincide (its centre a whole number of pitches above the "
            "bolt's lower end, not 0.1155 mm lower on the lower flanks), so both flanks of every engaged turn "
            "are at zero gap from the start. The nut is welded to the hand (\"the nut attached to the "
            "gripper\"), so any departure of the arm from the helix (impedance tracking error, the lead angle "
            "the controller only follows approximately) is an interference the contact forces must resist: "
            "the thread flanks carry the load, and an unconverged solve shows as penetration. Everything else "
            "as the loose task: Panda-like arm, Franka-Hand-like gripper, the M48 x 5 nut 1 cm beyond the TCP, "
            "a fixed 0.06 m bolt, steel mu 0.3; joint 7 turns from %.1f to %.1f rad (%.2f mm of advance) "
            "between %.2f and %.2f s, waypoints from inverse kinematics of the engaged pose "
            "(scripts/make_tasks.py), minimum-jerk, joint impedance with gravity compensation (libfranka's "
            "gains); contact margin 0.5 mm, erp 0.2, max recovery 0.1 m/s (the loose task's penetration "
            "handling, unchanged). Budget 0.5 ms per step (Lee et al. 2025 §VII-A2)." % (
                q7_start, q7_end, advance * 1e3, t_turn0, t_turn1))
    task = {
        "description": "screw the nut at least 3 mm down the bolt in %.1f s under a 0.5 ms budget per step" % duration,
        "step_budget_ms": 0.5,
        "solvers": ["canal", "subadmm", "pgs"],
        "tol": 1e-8, "max_iter": 1000,
        "criteria": [
            {"type": "displacement", "body": "nut/nut", "axis": [0, 0, 1], "min": -0.0055, "max": -0.003},
            {"type": "position", "body": "nut/nut", "target": r6([bolt_base[0], bolt_base[1], z_b]), "tolerance": 0.002},
            {"type": "penetration", "max": 0.001},
        ],
    }
    return scene, task


def nut_in_hand_hand():
    return (rk.rpy(0, PI, 0), [0.0, 0.0, TCP + NUT_BELOW_TCP])


def compose_list(ts):
    t = rk.identity()
    for x in ts:
        t = rk.compose(t, x)
    return t


# ---------------------------------------------------------------------------------------------
# Dish stacking (Lee et al. 2025 §VII-B2)

TABLE_TOP = 0.2
# a small bowl the parallel gripper can span (its 80 mm opening cannot hold App. B's 159 mm bowl
# across; the paper uses an Allegro hand): App. B's O-A-B profile with a steep wall
SMALL_BOWL = [[0.0, 0.0], [0.028, 0.0], [0.034, 0.05]]
SMALL_PAD = 0.002
BOWL_PAD = 0.0025                  # the bowl preset's padding
GRASP_H = 0.035                    # TCP height above the small bowl's point O


def dish_stack():
    arm = panda()
    ready = {"link1": 0, "link2": -PI / 4, "link3": 0, "link4": -3 * PI / 4, "link5": 0, "link6": PI / 2,
             "link7": PI / 4}
    tcp = rk.compose(hand_offset(), (rk.identity()[0], [0.0, 0.0, TCP]))
    down = [[1.0, 0, 0], [0, -1.0, 0], [0, 0, -1.0]]   # hand z down, hand x = world x
    pick = [0.45, 0.15, TABLE_TOP + SMALL_PAD + 0.0002]      # small bowl's O, resting (0.2 mm gap)
    base = [0.45, -0.15, TABLE_TOP + BOWL_PAD + 0.0002]      # big bowl's O
    # resting inside: the small bowl's outer bottom (O - pad) on the big bowl's inner floor (O + pad)
    rest = [base[0], base[1], base[2] + BOWL_PAD + SMALL_PAD]
    release = [rest[0], rest[1], rest[2] + 0.002]            # let go 2 mm above its resting place
    lift = 0.12

    def at(o, dz):
        target = (down, [o[0], o[1], o[2] + GRASP_H + dz])
        return arm.ik(ready, "link8", tcp, target, ARM_JOINTS, rest=ready)

    q_above_pick = at(pick, lift)
    q_grasp = at(pick, 0.0)
    q_above_place = at(release, lift)
    q_place = at(release, 0.0)
    q_retreat = at(release, 0.10)
    wp = [(0.0, q_above_pick), (0.8, q_grasp), (1.4, q_grasp), (2.1, q_above_pick), (3.1, q_above_place),
          (3.9, q_place), (4.5, q_place), (5.1, q_retreat)]
    duration = 5.5
    dishes = [
        {"name": "bowl", "type": "dynamic", "mass": 0.1, "position": r6(base),
         "shapes": [{"type": "sdf", "kind": "bowl", "max_contacts": 32, "material": "ceramic"}]},
        {"name": "cup", "type": "dynamic", "mass": 0.1, "position": r6(pick),
         "shapes": [{"type": "sdf", "kind": "bowl", "profile": SMALL_BOWL, "padding": SMALL_PAD,
                     "max_contacts": 32, "material": "ceramic"}]},
    ]
    scene = {
        "name": "dish-stack",
        "description": (
            "Lee et al. 2025 §VII-B2 with a parallel gripper: a Panda-like arm with a Franka-Hand-like "
            "gripper picks a small bowl (App. B O-A-B profile (0, 0), (28, 0), (34, 50) mm, padding 2 mm: "
            "Ø72 mm, so that the 80 mm gripper spans it; 0.1 kg) from the table, carries it 0.3 m and "
            "stacks it into the App. B bowl preset (Ø159 mm, 0.1 kg, free on the table), releasing it 2 mm "
            "above its resting place. Joint waypoints are inverse kinematics of the TCP (hand pointing "
            "down) at %.0f mm above the small bowl's base point (scripts/make_tasks.py): above the pick "
            "(0 s), grasp (0.8 s), close (0.9 s, 0.4 s motion, 300 N/m towards closed: about 11 N grip), "
            "lift %.0f cm (1.4-2.1 s), carry (2.1-3.1 s), lower (3.1-3.9 s), open (4.0 s), retreat "
            "(4.5-5.1 s); joint impedance with gravity compensation (libfranka's gains). Rubber "
            "fingertips (mu 1.0) on ceramic (0.5): mu 0.5; dish pairs at most 32 contacts. Budget 1 ms "
            "per step (Lee et al. 2025 §VII-B2)." % (GRASP_H * 1e3, lift * 1e2)),
        "timestep": H,
        "duration": duration,
        "contact": {"margin": 0.002, "erp": 0.2, "max_recovery_velocity": 0.2},
        "materials": [{"name": "rubber", "friction": 1.0}, {"name": "ceramic", "friction": 0.5},
                      {"name": "table", "friction": 0.5}],
        "bodies": [
            {"name": "ground", "type": "static", "shapes": [{"type": "plane"}]},
            {"name": "table", "type": "static", "position": [0.5, 0, TABLE_TOP / 2],
             "shapes": [{"type": "box", "half_extents": [0.2, 0.35, TABLE_TOP / 2], "material": "table"}]},
        ] + dishes,
        "robots": [
            {"name": "arm", "model": "../robots/panda.json", "base": "fixed",
             "q0": {j: round(q_above_pick[j], 9) for j in ARM_JOINTS},
             "controller": {"kp": KP, "kd": KD, "gravity_compensation": True, "interpolation": "min_jerk",
                            "waypoints": [{"time": t, "q": qvec(q)} for t, q in wp]}},
            {"name": "hand", "model": "../robots/franka-hand.json", "attach": "arm/link8", "rpy": HAND_RPY,
             "q0": {"finger_left": 0.04, "finger_right": 0.04},
             "controller": {"gravity_compensation": True,
                            "gripper": {"joints": ["finger_left", "finger_right"], "open": [0.04, 0.04],
                                        "closed": [0, 0], "kp": 300, "kd": 10, "time": 0.4, "initial": "open",
                                        "commands": [{"time": 0.9, "command": "close"},
                                                     {"time": 4.0, "command": "open"}]}}},
        ],
        "benchmark": {"capture": "trajectory", "skip": 0, "every": 8, "steps": 165, "quick_steps": 5,
                      "driver": "canal", "driver_budget": {"tol": 1e-8, "max_iter": 50},
                      "budget": {"tol": 1e-8, "max_iter": 500, "budget_ms": 200}},
    }
    task = {
        "description": "stack the small bowl into the bowl: within 5 mm of its resting place, upright, at rest, "
                       "under a 1 ms budget per step",
        "step_budget_ms": 1.0,
        "solvers": ["canal", "subadmm", "pgs"],
        "tol": 1e-8, "max_iter": 1000,
        "criteria": [
            {"type": "position", "body": "cup", "target": r6(rest), "tolerance": 0.005},
            {"type": "upright", "body": "cup", "axis": [0, 0, 1], "world": [0, 0, 1], "max_angle": 0.1},
            {"type": "speed", "body": "cup", "max": 0.02},
            {"type": "penetration", "max": 0.001},
        ],
    }
    return scene, task


if __name__ == "__main__":
    os.makedirs("scenes/tasks", exist_ok=True)
    for name, fn in (("boltnut-screw-panda", boltnut), ("boltnut-screw-tight-panda", lambda: boltnut(tight=True)),
                     ("dish-stack", dish_stack)):
        scene, task = fn()
        scene["task"] = task
        write("scenes/tasks/%s.json" % name, scene)
