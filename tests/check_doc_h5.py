#!/usr/bin/python3
"""Runs docs/outputs.md's h5py example for problems.h5 (the python block after the line
"<!-- problems.h5 example -->") on a given problems.h5, and checks what it rebuilt against the
FCLib file `ncpbench export --fclib` wrote for the same problem:
    D  == fclib_local/W          (ncpbench's D = J A^-1 J^T, by Cholesky; the example's by LU)
    vf == fclib_local/vectors/q  (v_f = J A^-1 b + e)
    mu of the contact blocks == fclib_local/vectors/mu
within max(--tol, 64 eps cond(A)) relative to max |W| (resp. max(|q|, |e|, 1)).
Exits 1 on a mismatch, 2 when the document has no such block.

usage: /usr/bin/python3 tests/check_doc_h5.py docs/outputs.md problems.h5 EXPORTED.hdf5 [--tol 1e-9]
"""
import argparse
import re
import sys

import h5py
import numpy as np
import scipy.sparse

MARKER = "<!-- problems.h5 example -->"


def doc_block(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(re.escape(MARKER) + r"\s*```python\n(.*?)```", text, re.S)
    return m.group(1) if m else None


def csc(g):
    m, n = int(np.ravel(g["m"][()])[0]), int(np.ravel(g["n"][()])[0])
    if int(np.ravel(g["nz"][()])[0]) != -1:
        raise ValueError(f"{g.name}: expected CSC (nz = -1)")
    p = np.asarray(g["p"][()], dtype=np.int64)
    return scipy.sparse.csc_matrix((g["x"][()][: p[n]], g["i"][()][: p[n]], p), shape=(m, n))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("doc")
    ap.add_argument("problems")
    ap.add_argument("fclib")
    ap.add_argument("--tol", type=float, default=1e-9)
    a = ap.parse_args()
    code = doc_block(a.doc)
    if code is None:
        print(f"{a.doc}: no python block after {MARKER}", file=sys.stderr)
        return 2
    n_lines = len([ln for ln in code.splitlines() if ln.strip()])
    paths = re.findall(r'h5py\.File\("([^"]+)"', code)
    if len(paths) != 1:
        print(f"{a.doc}: the example should open exactly one file, opens {paths}", file=sys.stderr)
        return 2
    env = {}
    exec(compile(code.replace(paths[0], a.problems), "docs/outputs.md example", "exec"), env)
    D, vf, mu, A, e, g = (env[k] for k in ("D", "vf", "mu", "A", "e", "g"))
    with h5py.File(a.fclib, "r") as f:
        loc = f["fclib_local"]
        W = csc(loc["W"]).toarray()
        q = np.asarray(loc["vectors/q"][()], dtype=np.float64)
        mu_ref = np.asarray(loc["vectors/mu"][()], dtype=np.float64)
    contact = np.asarray(g["blocks/type"][()]) == 2
    D = np.asarray(D)
    lim = max(a.tol, 64.0 * np.finfo(float).eps * float(np.linalg.cond(A)))
    if D.shape != W.shape:
        print(f"docs/outputs.md example on {g.name}: D is {D.shape}, the exported W {W.shape}: MISMATCH")
        return 1
    e_d = float(np.max(np.abs(D - W))) / max(float(np.max(np.abs(W))), 1e-300) if W.size else 0.0
    scale_q = max(float(np.max(np.abs(q), initial=0.0)), float(np.max(np.abs(e), initial=0.0)), 1.0)
    e_q = float(np.max(np.abs(np.asarray(vf) - q), initial=0.0)) / scale_q
    ok = e_d <= lim and e_q <= lim and np.array_equal(mu[contact], mu_ref)
    print(f"docs/outputs.md example ({n_lines} lines) on {g.name}: m = {D.shape[0]}, D vs exported W rel err "
          f"{e_d:.2e}, vf vs q rel err {e_q:.2e} (limit {lim:.1e}), mu "
          f"{'equal' if np.array_equal(mu[contact], mu_ref) else 'DIFFERS'}: {'ok' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
