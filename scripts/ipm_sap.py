#!/usr/bin/python3
"""SAP's convex model solved by a primal-dual interior-point method: cvxopt's coneqp on
Castro, Permenter, Han 2023 eq. 19, an answers file for `ncpbench grade` (docs/answers.md).

    ipm_sap.py PROBLEMS ANSWERS.h5 [--reltol X] [--feastol X] [--max-iter N] [--name NAME]

Model (19), in our variables (src/core/sap_model.h: u = J v + e, u_hat = u + shift):

    min_{v, sigma}  1/2 ||v - v*||_A^2 + 1/2 ||sigma||_R^2,    v* = A^-1 b,
    s.t.            g = u_hat(v) + R sigma  in  F*  (per contact: mu ||g_t|| <= g_n),

with R and the stabilisation shift of eqs. 29-30 and §V-A, built here from the problem file
exactly as ncp_sap_model_build builds them (beta = 1, sigma = 1e-3: §VI "for all of our
simulations"; the rigid branch of eq. 29 when contacts/stiffness is 0). The impulses are the
dual of the cone constraint (eq. 20: gamma in F, and sigma = gamma at the optimum, eq. 21b).
Rows that are not contacts, as sap_model.h treats them: a bilateral row (R = beta^2/(4 pi^2)
D_rr, gamma = -u/R, free) and a soft row (its own law, cost 1/2 c u^2 + k phi u) are quadratic
terms of the cost, a unilateral row a linear cone g_r >= 0; a frictionless contact (mu = 0)
has F* = {g_n >= 0}, its tangential impulses are 0.

coneqp's cones: a contact's g is scaled to the second-order cone by T = diag(1, mu, mu)
(mu ||g_t|| <= g_n  <=>  T g in Q), so gamma = T z for the cone's dual z. The KKT systems are
solved by a sparse Cholesky factorisation (cvxopt.cholmod) of P + G^T W^-1 W^-T G: coneqp's own
solvers for second-order cones are dense (cvxopt.misc.kkt_chol), which model (19)'s sparsity
does not need (A block diagonal, J two bodies per contact).

Stopping: coneqp's tests, primal and dual residuals <= feastol and the relative gap <= reltol
(default 1e-8 both: Gurobi's default barrier convergence tolerance BarConvTol, the solver the
paper used on model 19, §VI-A); the absolute gap test is off (abstol 1e-300: scale-free). A
problem that does not reach them keeps the last iterate, and a line on stderr says so.

Times: time_ms is the process CPU time (time.process_time) of the coneqp call and the recovery
of gamma from its dual, not the reading of the file nor the building of the model's matrices
(as the paper's Gurobi times, "Gurobi's reported time does not include the cost of the initial
setup", §VI-A). They are self-timed: `ncpbench grade` says so on every row."""
import argparse, math, os, sys, time
import h5py
import numpy as np
from cvxopt import cholmod, matrix, misc, solvers, spmatrix

BETA, SIGMA = 1.0, 1e-3  # Castro et al. 2023 §VI: "we use beta = 1.0 and sigma = 10^-3"
BILATERAL, UNILATERAL, CONTACT, SOFT = 0, 1, 2, 3  # blocks/type (core/problem.h)


def csr(g):
    """An FCLib CSR matrix group (nz = -2) as (m, n, rowptr, col, val)."""
    m, n, nz = (int(np.ravel(g[k][()])[0]) for k in ("m", "n", "nz"))
    if nz != -2:
        raise ValueError("%s: nz = %d, expected -2 (CSR, as ncpbench writes)" % (g.name, nz))
    p, i, x = g["p"][()], g["i"][()], g["x"][()]
    return m, n, p[:m + 1].astype(np.int64), i[:p[m]].astype(np.int64), x[:p[m]].astype(float)


def dense_of(m, n, p, i, x):
    M = np.zeros((m, n))
    np.add.at(M, (np.repeat(np.arange(m), np.diff(p)), i), x)
    return M


class Problem:
    """One problem of an ncpbench problems.h5 with primal data (A, b, J, e)."""

    def __init__(self, name, g):
        self.name = name
        pr = g["primal"]
        if isinstance(pr["A"], h5py.Group):
            self.A = dense_of(*csr(pr["A"]))
        else:
            self.A = pr["A"][()].astype(float)
        self.b, self.e = pr["b"][()].astype(float), pr["e"][()].astype(float)
        self.J = dense_of(*csr(pr["J"]))
        self.nv, self.m = self.A.shape[0], self.J.shape[0]
        self.h = float(g.attrs.get("h", 0.0))
        b = g["blocks"]
        nb = len(b["type"])
        col = lambda k: b[k][()] if k in b else np.zeros(nb)
        self.btype, self.brow = b["type"][()].astype(int), b["row"][()].astype(int)
        self.mu, self.k, self.c, self.phi = col("mu"), col("k"), col("c"), col("phi")
        nc = 0
        self.gap = self.stiff = self.diss = None
        if "contacts" in g:
            cg = g["contacts"]
            self.gap = cg["gap"][()].astype(float)
            nc = len(self.gap)
            self.stiff = cg["stiffness"][()] if "stiffness" in cg else np.zeros(nc)
            self.diss = cg["dissipation"][()] if "dissipation" in cg else np.zeros(nc)
        if "contact" in b:
            self.bcontact = b["contact"][()].astype(int)
        else:  # contacts numbered in order (docs/design.md §4.1)
            self.bcontact = np.cumsum(self.btype == CONTACT) - 1
            self.bcontact[self.btype != CONTACT] = -1
        self.nc = nc


def size(t):
    return 3 if t == CONTACT else 1


def sap_rows(p, beta=BETA, sigma=SIGMA):
    """R (m) and shift (m) of Castro et al. 2023 eqs. 29-30 and §V-A, as ncp_sap_model_build."""
    Ainv_JT = np.linalg.solve(p.A, p.J.T)  # setup, not timed
    nb = len(p.btype)
    dd = [p.J[r:r + size(t)] @ Ainv_JT[:, r:r + size(t)] for t, r in zip(p.btype, p.brow)]
    dmax = max([float(np.max(np.diag(d))) for d in dd] + [0.0])
    wmin = 1e-14 * dmax if dmax > 0 else 1.0
    rigid = beta * beta / (4 * math.pi * math.pi)  # eq. 29, near-rigid branch
    R, shift = np.zeros(p.m), np.zeros(p.m)
    geom = p.gap is not None and p.h > 0
    for bi in range(nb):
        t, r = p.btype[bi], p.brow[bi]
        if t in (BILATERAL, UNILATERAL):
            R[r] = rigid * max(dd[bi][0, 0], wmin)
        elif t == CONTACT:
            w = max(np.sqrt(np.sum(dd[bi] ** 2)) / 3.0, wmin)  # ||W_ii||_F / 3 (eq. 30)
            ci = p.bcontact[bi] if p.gap is not None and 0 <= p.bcontact[bi] < p.nc else -1
            k, tau = math.inf, 0.0
            if ci >= 0:
                if p.stiff[ci] > 0:
                    k = float(p.stiff[ci])
                tau = float(p.diss[ci])
            Rn = rigid * w
            if p.h > 0 and math.isfinite(k):
                Rn = max(Rn, 1.0 / (p.h * k * (p.h + tau)))  # eq. 29
            R[r], R[r + 1], R[r + 2] = Rn, sigma * w, sigma * w
            if geom and ci >= 0 and math.isfinite(p.gap[ci]):
                # v_hat_n = -phi0 / (h + tau_d) (§V-A); u_hat = J v - v_hat = u - e - v_hat
                shift[r] = p.gap[ci] / (p.h + tau) - p.e[r]
                shift[r + 1], shift[r + 2] = -p.e[r + 1], -p.e[r + 2]
        elif t != SOFT:
            raise ValueError("problem %s: block %d has unknown type %d" % (p.name, bi, t))
    return R, shift


def build(p, beta=BETA, sigma=SIGMA):
    """coneqp's data for model (19): P, q, G, h, dims and the map back to the impulses."""
    R, shift = sap_rows(p, beta, sigma)
    c = p.e + shift  # u_hat = J v + c
    H = p.A.copy()
    qv = -p.b.copy()
    lin, soc = [], []  # (rows) of linear cones; (rows, mu) of second-order cones
    for t, r, mu, k, cs, phi in zip(p.btype, p.brow, p.mu, p.k, p.c, p.phi):
        Jr = p.J[r]
        if t == BILATERAL:  # sigma = -u_hat/R eliminated: 1/2 u_hat^2 / R
            H += np.outer(Jr, Jr) / R[r]
            qv += Jr * (c[r] / R[r])
        elif t == SOFT:  # 1/2 c u^2 + k phi u, u = J v + e (problem.h's law)
            H += cs * np.outer(Jr, Jr)
            qv += Jr * (cs * p.e[r] + k * phi)
        elif t == UNILATERAL or (t == CONTACT and mu == 0):
            lin.append(r)
        else:
            soc.append((r, float(mu)))
    srows = lin + [r + j for r, _ in soc for j in range(3)]  # rows with a sigma, in G's order
    ns, nv = len(srows), p.nv
    n = nv + ns
    Gd = np.zeros((ns, n))
    hd = np.zeros(ns)
    for k, r in enumerate(srows):  # g = J v + R sigma + c; coneqp: G x + s = h, s = T g
        Gd[k, :nv] = -p.J[r]
        Gd[k, nv + k] = -R[r]
        hd[k] = c[r]
    scale = np.ones(ns)
    for j, (r, mu) in enumerate(soc):
        scale[len(lin) + 3 * j + 1:len(lin) + 3 * j + 3] = mu
    Gd *= scale[:, None]
    hd *= scale
    Pd = np.zeros((n, n))
    Pd[:nv, :nv] = H
    Pd[nv + np.arange(ns), nv + np.arange(ns)] = R[srows]
    q = np.concatenate([qv, np.zeros(ns)])
    dims = {"l": len(lin), "q": [3] * len(soc), "s": []}
    return dict(P=sparse(Pd), q=matrix(q), G=sparse(Gd), h=matrix(hd), dims=dims,
                srows=np.array(srows, dtype=int), scale=scale, R=R, c=c)


def sparse(M):
    I, J = np.nonzero(M)
    return spmatrix(M[I, J].tolist(), I.tolist(), J.tolist(), M.shape)


def kkt_sparse(P, G, dims):
    """coneqp's KKT solver (no equality constraints) by a sparse Cholesky factorisation of
    S = P + G^T W^-1 W^-T G; W is symmetric on linear and second-order cones (cvxopt's
    scaling: W = diag(d), resp. W_k = beta_k (2 v_k v_k^T - J), J = diag(1, -1, -1))."""
    ml, nq = dims["l"], len(dims["q"])
    m = G.size[0]
    Jm = np.diag([1.0, -1.0, -1.0])
    I3, J3 = np.meshgrid(np.arange(3), np.arange(3), indexing="ij")
    bI = (ml + 3 * np.arange(nq)[:, None] + I3.ravel()[None, :]).ravel()
    bJ = (ml + 3 * np.arange(nq)[:, None] + J3.ravel()[None, :]).ravel()
    Irow = np.concatenate([np.arange(ml), bI]).tolist()
    Jcol = np.concatenate([np.arange(ml), bJ]).tolist()

    def factor(W):
        di = np.array(W["di"]).ravel() if ml else np.zeros(0)
        if nq:
            V = np.array([np.array(v).ravel() for v in W["v"]])
            beta = np.array(W["beta"])
            JV = V * np.array([1.0, -1.0, -1.0])
            Wi = (2.0 * JV[:, :, None] * JV[:, None, :] - Jm[None]) / beta[:, None, None]
            M = np.einsum("kij,kjl->kil", Wi, Wi).reshape(nq, 9)
        else:
            M = np.zeros((0, 9))
        Mb = spmatrix(np.concatenate([di * di, M.ravel()]).tolist(), Irow, Jcol, (m, m))
        S = P + G.T * Mb * G
        F = cholmod.symbolic(S)
        cholmod.numeric(S, F)

        def solve(x, y, z):
            # P ux + G^T uz = bx, G ux - W^T W uz = bz; returns ux and W uz = W^-T (G ux - bz)
            wz = matrix(z)
            misc.scale(wz, W, trans="T", inverse="I")  # W^-T bz
            misc.scale(wz, W, inverse="I")             # W^-1 W^-T bz
            x += G.T * wz
            cholmod.solve(F, x)
            z[:] = G * x - z
            misc.scale(z, W, trans="T", inverse="I")
        return solve
    return factor


def solve(p, reltol=1e-8, feastol=1e-8, max_iter=100, beta=BETA, sigma=SIGMA):
    """Model (19) of problem p: (gamma, v, CPU ms, iterations, coneqp's status)."""
    d = build(p, beta, sigma)
    opts = {"show_progress": False, "reltol": reltol, "feastol": feastol, "abstol": 1e-300,
            "maxiters": max_iter}
    t0 = time.process_time()
    sol = solvers.coneqp(d["P"], d["q"], d["G"], d["h"], d["dims"],
                         kktsolver=kkt_sparse(d["P"], d["G"], d["dims"]), options=opts)
    x = np.array(sol["x"]).ravel()
    z = np.array(sol["z"]).ravel()
    gamma = np.zeros(p.m)
    gamma[d["srows"]] = d["scale"] * z  # gamma = T z (eq. 20's multiplier)
    v = x[:p.nv]
    for t, r, k, cs, phi in zip(p.btype, p.brow, p.k, p.c, p.phi):  # rows in the cost
        if t == BILATERAL:  # gamma = -u_hat / R
            gamma[r] = -(p.J[r] @ v + d["c"][r]) / d["R"][r]
        elif t == SOFT:  # lambda = -k phi - c u
            gamma[r] = -(cs * (p.J[r] @ v + p.e[r]) + k * phi)
    ms = 1e3 * (time.process_time() - t0)
    return gamma, v, ms, int(sol["iterations"]), sol["status"]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("problems")
    ap.add_argument("answers")
    ap.add_argument("--reltol", type=float, default=1e-8)
    ap.add_argument("--feastol", type=float, default=1e-8)
    ap.add_argument("--max-iter", type=int, default=100)
    ap.add_argument("--name", default="coneqp")
    a = ap.parse_args(argv)
    with h5py.File(a.problems, "r") as f, h5py.File(a.answers + ".tmp", "w") as out:
        if "problems" not in f:
            sys.exit("%s: no /problems group (an ncpbench problems.h5 with primal data is needed)"
                     % a.problems)
        out.attrs["solver"] = a.name
        for name, g in f["problems"].items():
            if "primal" not in g:
                sys.exit("%s: problem %s has no primal/ data (model 19 needs A, b, J, e)"
                         % (a.problems, name))
            p = Problem(name, g)
            gamma, v, ms, it, status = solve(p, a.reltol, a.feastol, a.max_iter)
            if status != "optimal":
                print("%s: problem %s: coneqp stopped '%s' after %d iterations (last iterate "
                      "kept)" % (a.problems, name, status, it), file=sys.stderr)
            o = out.create_group("answers/" + name)
            o["lambda"], o["v"], o["time_ms"], o["iterations"] = gamma, v, ms, it
    os.replace(a.answers + ".tmp", a.answers)


if __name__ == "__main__":
    main(sys.argv[1:])
