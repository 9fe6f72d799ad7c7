#!/usr/bin/python3
"""Independent check of the FCLib groups in an ncpbench problems.h5 (or a plain FCLib file).

For every problem that has both fclib_local and fclib_global (FCLib's definition:
without G, W = H^T M^-1 H and q = w + H^T M^-1 f), rebuilds the sparse matrices with scipy from
the raw FCLib datasets (triplet nz >= 0 with i = rows / p = columns as CSparse and Siconos write
them, or p = rows when only that reading is in range; CSC nz = -1, CSR nz = -2)
and verifies
    W == H^T M^-1 H          (relative to max |W|)
    q == w + H^T M^-1 f      (relative to max |q|, |w|, 1)
  both within max(--tol, 64 eps cond(M)), the accuracy of two backward-stable solves
    mu equal in both groups
    dual/D == W exactly      (W stores D's non-zeros; ncpbench's own groups, when present)
Prints one line per problem and exits 1 on any mismatch (2 on unusable input).

usage: /usr/bin/python3 tests/check_h5.py problems.h5 [--tol 1e-9] [--min-checked N]
"""
import argparse
import sys

import h5py
import numpy as np
import scipy.linalg
import scipy.sparse


def scalar_int(g, name):
    v = np.asarray(g[name][()]).reshape(-1)
    if v.size != 1:
        raise ValueError(f"{g.name}/{name}: expected one integer, found shape {v.shape}")
    return int(v[0])


def fclib_matrix(g):
    """FCLib matrix group -> scipy CSC (duplicates summed, as CSparse does)."""
    m, n, nz = scalar_int(g, "m"), scalar_int(g, "n"), scalar_int(g, "nz")
    p = np.asarray(g["p"][()], dtype=np.int64).reshape(-1)
    i = np.asarray(g["i"][()], dtype=np.int64).reshape(-1)
    x = np.asarray(g["x"][()], dtype=np.float64).reshape(-1)
    if nz >= 0:
        r, c = i[:nz], p[:nz]
        if nz and (r.min() < 0 or r.max() >= m or c.min() < 0 or c.max() >= n):
            r, c = c, r  # the other reading (fclib.h's comment), as ncpbench's reader falls back
        mat = scipy.sparse.coo_matrix((x[:nz], (r, c)), shape=(m, n))
    elif nz == -1:
        mat = scipy.sparse.csc_matrix((x[: p[n]], i[: p[n]], p), shape=(m, n))
    elif nz == -2:
        mat = scipy.sparse.csr_matrix((x[: p[m]], i[: p[m]], p), shape=(m, n))
    else:
        raise ValueError(f"{g.name}/nz = {nz}: not an FCLib storage")
    return mat.tocsc()


def rel(a, b, scale):
    d = float(np.max(np.abs(a - b))) if a.size else 0.0
    return d / max(scale, 1e-300)


def check(name, grp, tol):
    """Returns (ok, message) for one group holding fclib_local and fclib_global."""
    loc, glo = grp["fclib_local"], grp["fclib_global"]
    if "G" in glo:
        return True, "skipped (fclib_global has G: W = H^T M^-1 H does not apply)"
    W = fclib_matrix(loc["W"]).toarray()
    q = np.asarray(loc["vectors/q"][()], dtype=np.float64)
    mu_l = np.asarray(loc["vectors/mu"][()], dtype=np.float64)
    M = fclib_matrix(glo["M"]).toarray()
    H = fclib_matrix(glo["H"]).toarray()
    f = np.asarray(glo["vectors/f"][()], dtype=np.float64)
    w = np.asarray(glo["vectors/w"][()], dtype=np.float64)
    mu_g = np.asarray(glo["vectors/mu"][()], dtype=np.float64)
    if W.shape != (H.shape[1], H.shape[1]) or M.shape[0] != H.shape[0]:
        return False, f"shape mismatch: W {W.shape}, M {M.shape}, H {H.shape}"
    # independent algebra: Cholesky of M by scipy (M is SPD)
    c = scipy.linalg.cho_factor(M)
    MiH = scipy.linalg.cho_solve(c, H)
    Mif = scipy.linalg.cho_solve(c, f)
    W_ref = H.T @ MiH
    q_ref = w + H.T @ Mif
    e_w = rel(W, W_ref, float(np.max(np.abs(W_ref))) if W_ref.size else 1.0)
    e_q = rel(q, q_ref, max(float(np.max(np.abs(q_ref), initial=0.0)), float(np.max(np.abs(w), initial=0.0)), 1.0))
    # two backward-stable computations of the same condensation differ by about eps * cond(M)
    cond = float(np.linalg.cond(M))
    lim = max(tol, 64.0 * np.finfo(float).eps * cond)
    ok = e_w <= lim and e_q <= lim and np.array_equal(mu_l, mu_g)
    msg = (f"W vs H^T M^-1 H rel err {e_w:.2e}, q vs w + H^T M^-1 f rel err {e_q:.2e} "
           f"(limit {lim:.1e}, cond(M) {cond:.1e})")
    if not np.array_equal(mu_l, mu_g):
        msg += ", mu DIFFERS between fclib_local and fclib_global"
    if "dual" in grp and "D" in grp["dual"]:
        D = np.asarray(grp["dual/D"][()], dtype=np.float64)
        same = D.shape == W.shape and np.array_equal(D, W)
        msg += ", dual/D == W" if same else ", dual/D DIFFERS from W"
        ok = ok and same
    return ok, msg


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--tol", type=float, default=1e-9)
    ap.add_argument("--min-checked", type=int, default=0,
                    help="fail unless at least this many problems had both FCLib groups")
    a = ap.parse_args()
    try:
        h = h5py.File(a.file, "r")
    except OSError as e:
        print(f"{a.file}: cannot open: {e}", file=sys.stderr)
        return 2
    with h:
        if "problems" in h:
            groups = [(k, h["problems"][k]) for k in h["problems"]]
        elif "fclib_local" in h or "fclib_global" in h:
            groups = [(a.file, h)]
        else:
            print(f"{a.file}: neither /problems nor an FCLib group", file=sys.stderr)
            return 2
        bad = checked = 0
        for name, g in groups:
            if "fclib_local" not in g or "fclib_global" not in g:
                print(f"{name}: skipped (not both fclib_local and fclib_global)")
                continue
            try:
                ok, msg = check(name, g, a.tol)
            except (KeyError, ValueError, np.linalg.LinAlgError, scipy.linalg.LinAlgError) as e:
                ok, msg = False, f"cannot check: {e}"
            checked += 1
            bad += not ok
            print(f"{name}: {'ok' if ok else 'MISMATCH'}: {msg}")
        print(f"{checked} problems checked, {bad} mismatches")
        if checked < a.min_checked:
            print(f"fewer than --min-checked {a.min_checked} problems had both FCLib groups", file=sys.stderr)
            return 1
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
