#!/usr/bin/python3
"""A solver outside ncpbench: projected Gauss-Seidel with the De Saxce correction (the NCP
K* ∋ u + Γ(u) ⊥ λ ∈ K, Γ(u) = (μ‖u_t‖, 0, 0); docs/design.md) on every problem of an ncpbench
problems.h5 or a plain FCLib file, written as an answers file (docs/answers.md) for
`ncpbench grade PROBLEMS ANSWERS.h5`.  Usage: simple_solver.py PROBLEMS ANSWERS.h5 [max_iter]"""
import os, sys, time
import h5py
import numpy as np


def matrix(g):
    """An FCLib matrix group (CSR nz = -2, CSC nz = -1, triplets nz >= 0), dense."""
    m, n, nz = (int(np.ravel(g[k][()])[0]) for k in ("m", "n", "nz"))
    p, i, x = g["p"][()], g["i"][()], g["x"][()]
    M = np.zeros((m, n))
    if nz >= 0:  # triplets: i rows, p columns (CSparse's convention)
        np.add.at(M, (i[:nz], p[:nz]), x[:nz])
    else:
        outer = np.repeat(np.arange(len(p) - 1), np.diff(p))
        k = p[-1]
        np.add.at(M, (outer, i[:k]) if nz == -2 else (i[:k], outer), x[:k])
    return M


def problems(path):
    """(name, D, v_f, blocks) per problem; blocks: rows of (type, row, mu, k, c, phi)."""
    with h5py.File(path, "r") as f:
        if "problems" not in f:  # plain FCLib: W = D, q = v_f, contacts of 3 rows, normal first
            g = f["fclib_local"]
            mu = g["vectors/mu"][()]
            bl = [(2, 3 * j, mu[j], 0, 0, 0) for j in range(len(mu))]
            yield os.path.splitext(os.path.basename(path))[0], matrix(g["W"]), g["vectors/q"][()], bl
            return
        for name, g in f["problems"].items():
            b = g["blocks"]
            cols = [b[k][()] if k in b else np.zeros(len(b["type"])) for k in ("type", "row", "mu", "k", "c", "phi")]
            if "dual" in g:  # stored when it is not what the primal data give
                D, vf = g["dual/D"][()], g["dual/vf"][()]
            else:  # D = J A^-1 J^T, v_f = J A^-1 b + e (A v = b + J^T λ, u = J v + e)
                A = g["primal/A"]
                A = matrix(A) if isinstance(A, h5py.Group) else A[()]
                J = matrix(g["primal/J"])
                D = J @ np.linalg.solve(A, J.T)
                vf = J @ np.linalg.solve(A, g["primal/b"][()]) + g["primal/e"][()]
            yield name, D, vf, list(zip(*cols))


def project(x, mu):
    """Projection onto the friction cone {‖λ_t‖ <= μ λ_n}, normal first."""
    n, t = x[0], np.hypot(x[1], x[2])
    if t <= mu * n:
        return x
    if mu * t <= -n:
        return np.zeros(3)
    a = (n + mu * t) / (1 + mu * mu)
    return np.array([a, mu * a * x[1] / t, mu * a * x[2] / t])


def pgs(D, vf, blocks, max_iter, tol=1e-12):
    lam, trace, t0 = np.zeros(len(vf)), [], time.perf_counter()
    for it in range(1, max_iter + 1):
        old = lam.copy()
        for typ, r, mu, k, c, phi in blocks:
            r = int(r)
            if typ == 2:  # contact: λ ← Π_K(λ - (u + Γ(u)) / max diag D_bb)
                s = slice(r, r + 3)
                u = D[s] @ lam + vf[s]
                u[0] += mu * np.hypot(u[1], u[2])
                lam[s] = project(lam[s] - u / np.max(np.diag(D[s, s])), mu)
                continue
            u, d = D[r] @ lam + vf[r], D[r, r]
            if typ == 3:  # soft: λ = -k φ - c u, solved for this row
                lam[r] = (-k * phi - c * (u - d * lam[r])) / (1 + c * d)
            else:  # bilateral u = 0; unilateral 0 <= λ ⊥ u >= 0
                lam[r] = lam[r] - u / d if typ == 0 else max(0.0, lam[r] - u / d)
        done = np.linalg.norm(lam - old) <= tol * max(1.0, np.linalg.norm(lam))
        if it <= 10 or it % 10 == 0 or done or it == max_iter:  # a short trace
            trace.append((it, 1e3 * (time.perf_counter() - t0), lam.copy()))
        if done:
            break
    return lam, it, 1e3 * (time.perf_counter() - t0), trace


if __name__ == "__main__":
    src, out = sys.argv[1], sys.argv[2]
    max_iter = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    with h5py.File(out, "w") as f:
        f.attrs["solver"] = "py_pgs"
        for name, D, vf, blocks in problems(src):
            lam, it, ms, tr = pgs(D, vf, blocks, max_iter)
            g = f.create_group("answers/" + name)
            g["lambda"], g["iterations"], g["time_ms"] = lam, it, ms
            g["trace_iter"] = np.array([t[0] for t in tr])
            g["trace_time_ms"] = np.array([t[1] for t in tr])
            g["trace_lambda"] = np.array([t[2] for t in tr])
