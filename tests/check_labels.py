#!/usr/bin/python3
"""Independent check of `ncpbench describe --csv` on plain FCLib files: W from the file's raw
datasets with scipy (fclib_local W; fclib_global H^T M^-1 H, check_h5.py's reader), its
symmetric part's eigenvalues by numpy, and from them rank (eigenvalues above m eps lambda_max, as
numpy.linalg.matrix_rank), cond and cond on the range, against the CSV row of the problem named
by the file's stem. Contacts, dofs and the mu range from the file too. Exit 1 on a mismatch.

usage: check_labels.py LABELS.csv FILE.hdf5...
"""
import csv
import os
import sys

import h5py
import numpy as np
import scipy.sparse.linalg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_h5 import fclib_matrix  # noqa: E402

rows = {r["problem"]: r for r in csv.DictReader(open(sys.argv[1]))}
bad = 0


def close(a, b, tol):
    return (np.isinf(a) and np.isinf(b)) or abs(a - b) <= tol * max(abs(b), 1e-300)


for path in sys.argv[2:]:
    stem = os.path.splitext(os.path.basename(path))[0]
    row = next((r for k, r in rows.items() if k == stem or k.endswith("." + stem)), None)
    if row is None:
        print(f"FAIL {stem}: no row in {sys.argv[1]}")
        bad = 1
        continue
    with h5py.File(path, "r") as f:
        if "fclib_local" in f:
            g = f["fclib_local"]
            W = fclib_matrix(g["W"]).toarray()
            dofs = 0
        else:
            g = f["fclib_global"]
            M = fclib_matrix(g["M"]).tocsc()
            H = fclib_matrix(g["H"]).toarray()
            W = H.T @ scipy.sparse.linalg.splu(M).solve(H)
            dofs = M.shape[0]
        mu = np.asarray(g["vectors"]["mu"][()]).reshape(-1)
    m = W.shape[0]
    w = np.linalg.eigvalsh(0.5 * (W + W.T))
    lmax = max(w[-1], 0.0)
    pos = w[w > lmax * m * np.finfo(float).eps]
    rank = len(pos)
    cond = np.inf if rank < m else lmax / w[0]
    crange = lmax / pos[0]
    got = {k: float(row[k]) for k in ("rank", "cond", "cond_range", "lambda_max", "mu_min",
                                       "mu_max", "contacts", "dofs", "rows")}
    ok = (got["rank"] == rank and got["rows"] == m and got["contacts"] == len(mu)
          and got["dofs"] == dofs and row["method"] == "eig" and close(got["cond"], cond, 1e-6)
          and close(got["cond_range"], crange, 1e-5) and close(got["lambda_max"], lmax, 1e-9)
          and got["mu_min"] == mu.min() and got["mu_max"] == mu.max())
    print(f"{'ok' if ok else 'FAIL'} {stem}: rank {rank} (ours {row['rank']}) of {m}, cond "
          f"{cond:.6g} (ours {row['cond']}), on the range {crange:.6g} (ours {row['cond_range']})")
    bad |= not ok
sys.exit(1 if bad else 0)
