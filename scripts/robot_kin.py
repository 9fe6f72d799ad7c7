"""Forward and inverse kinematics of the robot model files (scenes/robots/*.json) for the scene
generators (scripts/make_tasks.py, scripts/make_pouring.py). Pure Python, no numpy.

Conventions are the loader's (scenes/README.md "Robot model files"): a link's frame is its joint
frame moved by the joint; the joint frame sits at `origin` / `rpy` in the parent link's frame;
rpy is URDF's fixed-axis roll, pitch, yaw, R = Rz(y) Ry(p) Rx(r). A pose is (R, p) with R a 3x3
list of rows."""
import json
import math


def rot_axis(axis, a):
    n = math.sqrt(sum(c * c for c in axis))
    x, y, z = (c / n for c in axis)
    c, s, C = math.cos(a), math.sin(a), 1 - math.cos(a)
    return [[c + x * x * C, x * y * C - z * s, x * z * C + y * s],
            [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
            [z * x * C - y * s, z * y * C + x * s, c + z * z * C]]


def rpy(r, p, y):
    return mat_mul(rot_axis([0, 0, 1], y), mat_mul(rot_axis([0, 1, 0], p), rot_axis([1, 0, 0], r)))


def mat_mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def mat_vec(a, v):
    return [sum(a[i][k] * v[k] for k in range(3)) for i in range(3)]


def transpose(a):
    return [[a[j][i] for j in range(3)] for i in range(3)]


def compose(t1, t2):
    """(R1, p1) * (R2, p2)"""
    r1, p1 = t1
    r2, p2 = t2
    return mat_mul(r1, r2), [a + b for a, b in zip(p1, mat_vec(r1, p2))]


def inverse(t):
    r, p = t
    rt = transpose(r)
    return rt, [-c for c in mat_vec(rt, p)]


def identity():
    return [[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]], [0.0, 0.0, 0.0]


def rot_to_rpy(r):
    """URDF rpy of R = Rz(y) Ry(p) Rx(r) (away from pitch = +-pi/2)."""
    p = math.asin(max(-1.0, min(1.0, -r[2][0])))
    return [math.atan2(r[2][1], r[2][2]), p, math.atan2(r[1][0], r[0][0])]


def rot_to_quat(r):
    """[w, x, y, z] of a rotation matrix (Shepperd's method)."""
    tr = r[0][0] + r[1][1] + r[2][2]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        q = [0.25 * s, (r[2][1] - r[1][2]) / s, (r[0][2] - r[2][0]) / s, (r[1][0] - r[0][1]) / s]
    elif r[0][0] > r[1][1] and r[0][0] > r[2][2]:
        s = math.sqrt(1.0 + r[0][0] - r[1][1] - r[2][2]) * 2
        q = [(r[2][1] - r[1][2]) / s, 0.25 * s, (r[0][1] + r[1][0]) / s, (r[0][2] + r[2][0]) / s]
    elif r[1][1] > r[2][2]:
        s = math.sqrt(1.0 + r[1][1] - r[0][0] - r[2][2]) * 2
        q = [(r[0][2] - r[2][0]) / s, (r[0][1] + r[1][0]) / s, 0.25 * s, (r[1][2] + r[2][1]) / s]
    else:
        s = math.sqrt(1.0 + r[2][2] - r[0][0] - r[1][1]) * 2
        q = [(r[1][0] - r[0][1]) / s, (r[0][2] + r[2][0]) / s, (r[1][2] + r[2][1]) / s, 0.25 * s]
    return q


def rot_log(r):
    """Rotation vector of R (axis * angle)."""
    c = max(-1.0, min(1.0, (r[0][0] + r[1][1] + r[2][2] - 1) / 2))
    a = math.acos(c)
    v = [r[2][1] - r[1][2], r[0][2] - r[2][0], r[1][0] - r[0][1]]
    if a < 1e-9:
        return [0.5 * x for x in v]
    if math.pi - a < 1e-6:
        # near pi: axis from the largest diagonal of (R + I) / 2
        i = max(range(3), key=lambda k: r[k][k])
        col = [(r[j][i] + (1 if j == i else 0)) for j in range(3)]
        n = math.sqrt(sum(x * x for x in col))
        return [a * x / n for x in col]
    s = a / (2 * math.sin(a))
    return [s * x for x in v]


class Robot:
    """A robot model with its placement: base pose in the world (or in an attach frame)."""

    def __init__(self, path, base=None):
        with open(path) as f:
            self.model = json.load(f)
        self.links = self.model["links"]
        self.index = {l["name"]: i for i, l in enumerate(self.links)}
        self.base = base or identity()

    def fk(self, q):
        """World pose of every link; q maps joint (link) names to positions (default 0)."""
        poses = {}
        for l in self.links:
            if "parent" not in l:
                poses[l["name"]] = self.base
                continue
            j = l["joint"]
            o = j.get("origin", [0, 0, 0])
            r = rpy(*j["rpy"]) if "rpy" in j else identity()[0]
            t = compose(poses[l["parent"]], (r, list(o)))
            v = q.get(l["name"], 0.0)
            if j["type"] == "revolute":
                t = compose(t, (rot_axis(j.get("axis", [0, 0, 1]), v), [0, 0, 0]))
            elif j["type"] == "prismatic":
                ax = j.get("axis", [0, 0, 1])
                n = math.sqrt(sum(c * c for c in ax))
                t = compose(t, (identity()[0], [v * c / n for c in ax]))
            poses[l["name"]] = t
        return poses

    def limits(self, name):
        return self.links[self.index[name]]["joint"].get("limits", [-math.inf, math.inf])

    def ik(self, q0, link, offset, target, joints, iters=300, tol=1e-11, rest=None, w_rest=1e-3):
        """Damped least squares on the pose error of the frame `offset` (a pose in `link`'s frame)
        against `target` (world pose), moving only `joints`; a small pull towards `rest` (default
        q0) picks one solution of a redundant arm. Returns q (a new dict); raises if it fails or
        leaves a joint's limits."""
        q = dict(q0)
        rest = dict(rest or q0)
        for it in range(iters):
            # the pull to rest only picks the branch: it is dropped after the first iterations so
            # that the final pose is exact
            w = w_rest if it < iters // 3 else 0.0
            e = self._err(q, link, offset, target)
            if w == 0.0 and sum(x * x for x in e) < tol ** 2:
                break
            jac = self._jacobian(q, link, offset, joints)
            # minimise |e + J dq|^2 + lam |dq|^2 + w |q + dq - rest|^2 (normal equations, n x n)
            n = len(joints)
            lam = 1e-6
            a = [[sum(jac[i][k] * jac[j][k] for k in range(6)) + (lam + w if i == j else 0)
                  for j in range(n)] for i in range(n)]
            b = [-sum(jac[i][k] * e[k] for k in range(6)) - w * (q.get(joints[i], 0.0) - rest.get(joints[i], 0.0))
                 for i in range(n)]
            dq = solve(a, b)
            step = max(abs(x) for x in dq)
            scale = min(1.0, 0.2 / step) if step > 0 else 1.0
            for name, d in zip(joints, dq):
                # projected onto the limits (kept 0.03 inside): the other joints take over
                lo, hi = self.limits(name)
                q[name] = min(hi - 0.03, max(lo + 0.03, q.get(name, 0.0) + scale * d))
        e = self._err(q, link, offset, target)
        err = math.sqrt(sum(x * x for x in e))
        if err > 1e-6:  # 1 um: far below the thread clearance and the contact margins
            raise RuntimeError("IK for %s did not converge: error %g" % (link, err))
        for name in joints:
            lo, hi = self.limits(name)
            if not lo + 0.02 < q[name] < hi - 0.02:
                raise RuntimeError("IK for %s: joint %s = %g outside [%g, %g] (with the limit margin)"
                                   % (link, name, q[name], lo, hi))
        return q

    def _jacobian(self, q, link, offset, joints):
        """Rows of d(position, rotation)/dq_j of the frame (geometric Jacobian: axis x lever for a
        revolute joint, the axis for a prismatic one), one 6-vector per joint."""
        poses = self.fk(q)
        p = rk_point(poses[link], offset)
        rows = []
        for name in joints:
            j = self.links[self.index[name]]["joint"]
            r, o = poses[name]
            ax = mat_vec(r, j.get("axis", [0, 0, 1]))
            n = math.sqrt(sum(c * c for c in ax))
            ax = [c / n for c in ax]
            if j["type"] == "prismatic":
                rows.append(ax + [0.0, 0.0, 0.0])
            else:
                lever = [a - b for a, b in zip(p, o)]
                rows.append([ax[1] * lever[2] - ax[2] * lever[1], ax[2] * lever[0] - ax[0] * lever[2],
                             ax[0] * lever[1] - ax[1] * lever[0]] + ax)
        return rows

    def _err(self, q, link, offset, target):
        t = compose(self.fk(q)[link], offset)
        dp = [a - b for a, b in zip(t[1], target[1])]
        dr = rot_log(mat_mul(t[0], transpose(target[0])))
        return dp + dr


def rk_point(pose, offset):
    return compose(pose, offset)[1]


def solve(a, b):
    """Gaussian elimination with partial pivoting (small dense systems)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for k in range(c, n + 1):
                m[r][k] -= f * m[c][k]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / m[r][r]
    return x
