#!/usr/bin/env python3
"""Writes a copy of a captured problems.h5 whose problems differ from the original's at round-off
level: every stored value of J, b and e multiplied by (1 + eps u), u uniform in [-1, 1] drawn
per entry (numpy default_rng(SEED)); A, the guesses and everything else copied unchanged.
Used to tell a solver's sensitivity to rounding from a change of the problem (results/REPORT.md,
"The AL ablations on round-off-level perturbations").

Usage: /usr/bin/python3 scripts/perturb_capture.py IN.h5 OUT.h5 EPS SEED   (needs numpy, h5py)"""
import shutil
import sys

import h5py
import numpy as np


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    src, dst, eps, seed = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    shutil.copy(src, dst)
    rng = np.random.default_rng(seed)
    with h5py.File(dst, "r+") as f:
        for pid in f["problems"]:
            for key in ("primal/J/x", "primal/b", "primal/e"):
                path = "problems/%s/%s" % (pid, key)
                if path not in f:
                    continue
                d = f[path]
                x = np.array(d)
                d[...] = x * (1.0 + eps * rng.uniform(-1.0, 1.0, x.shape))


if __name__ == "__main__":
    main()
