#!/usr/bin/python3
"""Runs `ncpbench figures --paper castro2023-rig --quick` into a scratch folder (or checks OUT given
as the argument, e.g. a full run's OUT/castro2023-rig/.. parent) and checks its outputs against a
recomputation from its data files (code written here, not ncpbench's):

- claims.md: rows C9..C15 (C1-C8 and C16 are the study's: check_study_castro2023.py), each
  verdict in {yes, partly, no, n/a};
- newton/castro2023_newton.dat: two blocks, Newton iterations 0..n without gaps, the
  normalised cost from 1 to 0; C11 (e_m reduction of the last iteration and the median over
  the first half) recomputed;
- slip/castro2023_slip.dat: two blocks (walls, no walls) on the same sigmas, the estimate equal
  to sigma mu h g with the scene's mu = 1, h = 0.01 s, g = 9.81 (computed here); the Hessian's
  condition numbers finite and >= 1; C9, C10 (walls), C12 (least-squares log-log slope of the
  mean condition number, walls) and C15 (no walls) recomputed;
- cylinder/castro2023_cylinder_{energy,order}.dat (the spring-cylinder, C13-C14): the energy
  starts at 1/2 k_s x0^2 (the scene's spring and start, read here); C13 recomputed from the
  energy columns; the slopes of C14 recomputed (least squares over the 3 smallest h) and
  checked against the header and the verdict; omega = sqrt(k_s/m_roll) recomputed from the
  scene; the errors against x0 cos(omega t) checked against those of the ideal 1-dof
  oscillator integrated here by each scheme (implicit Euler for theta, the trapezoidal rule
  for midpoint), within 10%;
- the .png and .svg of every part when gnuplot is installed.
Exit status 1 on any mismatch; prints what it checked.
"""
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

VERDICTS = {"yes", "partly", "no", "n/a"}
bad = 0
checked = 0


def fail(msg):
    global bad
    bad += 1
    print("check_fig_castro2023: " + msg)


def blocks(path):
    """Lists of rows (split lines), one per gnuplot index block (blank-line separated)."""
    out, cur = [], []
    for line in open(path).read().split("\n"):
        if line.startswith("#"):
            continue
        if not line.strip():
            if cur:
                out.append(cur)
                cur = []
            continue
        cur.append(line.split())
    if cur:
        out.append(cur)
    return out


def claims(path):
    rows = {}
    for line in open(path):
        m = re.match(r"\| (C\d+) \| ([^|]*) \| ([^|]*) \| ([^|]*) \| ([^|]*) \|", line)
        if m:
            rows[m.group(1)] = {"ours": m.group(4).strip(), "verdict": m.group(5).strip()}
    return rows


def lsq_slope(xs, ys):
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x > 0 and y > 0]
    k = len(pts)
    if k < 2:
        return float("nan")
    sx = sum(p[0] for p in pts)
    sy = sum(p[1] for p in pts)
    sxx = sum(p[0] ** 2 for p in pts)
    sxy = sum(p[0] * p[1] for p in pts)
    return (k * sxy - sx * sy) / (k * sxx - sx * sx)


def oscillator_eq(scheme, w, x0, h, T):
    """e_q of the ideal 1-dof oscillator x'' = -w^2 x, x(0) = x0, v(0) = 0, integrated by
    implicit Euler (spring at the end of the step) or the trapezoidal (implicit midpoint) rule,
    against x0 cos(w t), by the rectangle rule at the step times."""
    q, v, s = x0, 0.0, 0.0
    n = int(round(T / h))
    for k in range(1, n + 1):
        if scheme == "theta":
            # v1 = v - h w^2 q1, q1 = q + h v1
            v = (v - h * w * w * q) / (1 + h * h * w * w)
            q = q + h * v
        else:
            # v1 = v - h w^2 (q + q1)/2, q1 = q + h (v + v1)/2
            a = h * h * w * w / 4
            v1 = (v * (1 - a) - h * w * w * q) / (1 + a)
            q = q + h * (v + v1) / 2
            v = v1
        s += h * (q - x0 * math.cos(w * k * h)) ** 2
    return math.sqrt(s / T)


def check_cylinder(root, C):
    """The spring-cylinder part against the scene's numbers and the ideal oscillator."""
    global checked
    import json
    here = os.path.dirname(os.path.abspath(__file__))
    sc = json.load(open(os.path.join(here, "..", "scenes", "castro-spring-cylinder.json")))
    rob = sc["robots"][0]
    links = {l["name"]: l for l in rob["links"]}
    ks = rob["controller"]["kp"]
    x0 = rob["q0"]["slider_x"]
    cap = links["wheel"]["shapes"][0]
    R, z0 = cap["radius"], rob["position"][2]
    d0 = R - z0
    mx = sum(links[n]["inertial"]["mass"] for n in ("slider_x", "slider_z", "wheel"))
    iyy = links["wheel"]["inertial"]["inertia"][1]
    meff, mroll = mx + iyy / R ** 2, mx + iyy / (R - d0 / 2) ** 2
    d = os.path.join(root, "cylinder")
    en = blocks(os.path.join(d, "castro2023_cylinder_energy.dat"))[0]
    t = [float(r[0]) for r in en]
    E = [[float(r[1]) for r in en], [float(r[2]) for r in en]]  # theta, midpoint
    h = t[1] - t[0]
    for i in range(2):
        if abs(E[i][0] - 0.5 * ks * x0 ** 2) > 1e-9:
            fail("cylinder: E(0) %s = %g, expected 1/2 k_s x0^2 = %g" %
                 (["theta", "midpoint"][i], E[i][0], 0.5 * ks * x0 ** 2))
    k3 = int(round(3 * 2 * math.pi * math.sqrt(meff / ks) / h))
    k3 = min(k3, len(t) - 1)
    ptp = [(max(e) - min(e)) / e[0] for e in E]
    e3 = [e[k3] / e[0] for e in E]
    ok = ptp[1] < 0.01 and ptp[1] < 0.1 * ptp[0] and e3[0] < 0.5
    v = "yes" if ok else "partly" if ptp[1] < ptp[0] else "no"
    if C.get("C13", {}).get("verdict") != v:
        fail("C13: verdict %s, recomputed %s (peak-to-peak %s)" %
             (C.get("C13", {}).get("verdict"), v, ptp))
    checked += 3
    od = os.path.join(d, "castro2023_cylinder_order.dat")
    head = open(od).read()
    m = re.search(r"over T = ([0-9.e+-]+) s.*omega = sqrt\(k_s/m_roll\) = ([0-9.e+-]+) rad/s"
                  r".*theta ([0-9.e+-]+), midpoint ([0-9.e+-]+)", head)
    if not m:
        fail("%s: header without T, omega and slopes" % od)
        return
    T, w = float(m.group(1)), float(m.group(2))
    if abs(w - math.sqrt(ks / mroll)) > 1e-5 * w:
        fail("cylinder: omega %g, sqrt(k_s/m_roll) = %g" % (w, math.sqrt(ks / mroll)))
    rows = blocks(od)[0]
    hs = [float(r[0]) for r in rows]
    sl = [lsq_slope(hs[-3:], [float(r[c]) for r in rows[-3:]]) for c in (1, 2)]
    for i, g in ((0, 3), (1, 4)):
        if abs(sl[i] - float(m.group(g))) > 1e-3:
            fail("cylinder: %s slope %s in the header, recomputed %.4f" %
                 (["theta", "midpoint"][i], m.group(g), sl[i]))
    a, b = 1.7 <= sl[1] <= 2.3, 0.7 <= sl[0] <= 1.3
    v = "yes" if a and b else "partly" if a or b else "no"
    if C.get("C14", {}).get("verdict") != v:
        fail("C14: verdict %s, recomputed %s (slopes %s)" % (C.get("C14", {}).get("verdict"), v,
                                                              sl))
    for r in rows:
        for i, sch in ((3, "theta"), (4, "midpoint")):
            ideal = oscillator_eq(sch, w, x0, float(r[0]), T)
            if abs(float(r[i]) / ideal - 1) > 0.1:
                fail("cylinder: %s h %s: e_q against x0 cos(omega t) %s, ideal oscillator %.4g"
                     % (sch, r[0], r[i], ideal))
            checked += 1
    checked += 3


def main():
    global checked
    tmp = None
    if len(sys.argv) > 1:
        out = sys.argv[1]
    else:
        tmp = tempfile.mkdtemp(prefix="castro2023_")
        out = tmp
        exe = os.environ.get("NCPBENCH", "./build/ncpbench")
        r = subprocess.run([exe, "figures", "--paper", "castro2023-rig", "--quick", "--out", tmp],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            print(r.stdout)
            fail("ncpbench figures --paper castro2023-rig --quick exited %d" % r.returncode)
            return 1
    root = os.path.join(out, "castro2023-rig")
    C = claims(os.path.join(root, "claims.md"))
    want = ["C%d" % i for i in range(9, 16)]
    if sorted(C, key=lambda k: int(k[1:])) != want:
        fail("claims.md rows %s, expected %s" % (sorted(C), want))
    for k, v in C.items():
        if v["verdict"] not in VERDICTS:
            fail("%s: verdict '%s'" % (k, v["verdict"]))

    nb = blocks(os.path.join(root, "newton", "castro2023_newton.dat"))
    if len(nb) != 2:
        fail("newton: %d blocks, expected 2" % len(nb))
    for b in nb:
        if [int(r[1]) for r in b] != list(range(0, len(b))):
            fail("newton: %s: iterations not 0..%d" % (b[0][0], len(b) - 1))
        if len(b) > 1 and (abs(float(b[0][2]) - 1) > 1e-9 or float(b[-1][2]) != 0):
            fail("newton: %s: rel_cost must start at 1 and end at 0" % b[0][0])
        checked += 1
    if nb:
        em = [float(r[3]) for r in nb[0]]
        m, h = len(em) - 1, (len(em) - 1) // 2
        tail = em[m] / em[m - 1] if m >= 1 and em[m - 1] > 0 else float("nan")
        rr = sorted(em[j + 1] / em[j] for j in range(h))
        med = (rr[h // 2] if h % 2 else 0.5 * (rr[h // 2 - 1] + rr[h // 2])) if h else float("nan")
        tq, lin = tail <= 1e-2, med > 0.1
        v = "n/a" if m < 4 else "yes" if tq and lin else "partly" if tq else "no"
        if C.get("C11", {}).get("verdict") != v:
            fail("C11: verdict %s, recomputed %s" % (C.get("C11", {}).get("verdict"), v))

    sb = blocks(os.path.join(root, "slip", "castro2023_slip.dat"))
    if len(sb) != 2 or [r[0] for r in sb[0]] != [r[0] for r in sb[1]]:
        fail("slip: expected two blocks (walls, no walls) on the same sigmas")
        sb = [sb[0], sb[0]]
    sl = sb[0]
    sig = [float(r[0]) for r in sl]
    slip = [float(r[1]) for r in sl]
    for b in sb:
        for r in b:
            est = float(r[0]) * 1.0 * 0.01 * 9.81
            if abs(float(r[2]) - est) > 1e-4 * est:
                fail("slip sigma %s: estimate %s, sigma mu h g = %g" % (r[0], r[2], est))
            cm, cl = float(r[5]), float(r[6])
            if not (math.isfinite(cm) and math.isfinite(cl) and cm >= 1 and cl >= 1):
                fail("slip sigma %s: condition numbers %s %s (must be finite, >= 1)" %
                     (r[0], r[5], r[6]))
            checked += 1
    cond = [float(r[5]) for r in sl]
    cs = lsq_slope(sig, cond)
    fall = all(cond[k] < cond[k - 1] for k in range(1, len(cond)))
    v = "yes" if -1.3 <= cs <= -0.7 else "partly" if fall else "no"
    if C.get("C12", {}).get("verdict") != v:
        fail("C12: verdict %s, recomputed %s (slope %.3f)" % (C.get("C12", {}).get("verdict"), v,
                                                               cs))
    below = sum(float(r[1]) / float(r[2]) < 1 for r in sb[1])
    v = "yes" if below == len(sb[1]) else "partly" if 2 * below > len(sb[1]) else "no"
    if C.get("C15", {}).get("verdict") != v:
        fail("C15: verdict %s, recomputed %s" % (C.get("C15", {}).get("verdict"), v))
    slope = lsq_slope(sig, slip)
    within = all(0.1 <= float(r[1]) / float(r[2]) <= 10 for r in sl)
    ok = 0.7 <= slope <= 1.3
    v = "yes" if ok and within else "partly" if ok else "no"
    if C.get("C9", {}).get("verdict") != v:
        fail("C9: verdict %s, recomputed %s (slope %.3f)" % (C.get("C9", {}).get("verdict"), v,
                                                              slope))
    it = [float(r[3]) for r in sl]
    mono = all(it[k] <= it[k - 1] for k in range(1, len(it)))
    v = "yes" if it[0] > it[-1] and mono else "partly" if it[0] > it[-1] else "no"
    if C.get("C10", {}).get("verdict") != v:
        fail("C10: verdict %s, recomputed %s" % (C.get("C10", {}).get("verdict"), v))

    check_cylinder(root, C)

    if shutil.which("gnuplot"):
        for part, name in [("newton", "newton"), ("slip", "slip"), ("cylinder", "cylinder")]:
            for ext in ("png", "svg"):
                f = os.path.join(root, part, "castro2023_%s.%s" % (name, ext))
                if not os.path.isfile(f) or os.path.getsize(f) == 0:
                    fail("missing figure %s" % f)
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    print("check_fig_castro2023: %d checks, %d failures" % (checked, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
