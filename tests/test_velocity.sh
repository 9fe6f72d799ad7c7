#!/usr/bin/env bash
# solutions.h5 stores the velocity of the graded lambda (issue 30, item 6): for the solvers that
# iterate on a velocity of their own (subadmm, admm-nosub, admm-nobody, al-trdogleg), `v` is
# A^-1 (b + J^T lambda) recomputed with numpy (tests/check_outputs.py), their own velocity is
# `v_solver`, and the ADMMs' two differ on unconverged rows (so the check can fail; al-trdogleg's
# sits within round-off of v after 8 iterations here). In process and
# --isolate (the pipe's transport) alike.
. "$(dirname "$0")/shell_prologue.sh"
"$PY" -c "import h5py, numpy, scipy" 2> /dev/null || { echo "skip: python3 h5py/numpy/scipy"; exit 77; }

OWN=subadmm,admm-nosub,admm-nobody,al-trdogleg
for mode in inproc isolate; do
  extra=(); [ $mode = isolate ] && extra=(--isolate)
  out="$T/$mode"
  # 8 iterations: unconverged, where an ADMM's own v is off the velocity of its lambda
  "$NCPBENCH" run scenes/box-on-plane.json --quick --solvers "$OWN,pgs" --max-iter 8 \
    --out "$out" --no-progress --no-figures "${extra[@]}" > "$T/$mode.log" 2>&1 \
    || { cat "$T/$mode.log"; fail "$mode: run"; continue; }
  "$PY" tests/check_outputs.py "$out" --solver-v "$OWN" > "$T/$mode.chk" \
    || { cat "$T/$mode.chk"; fail "$mode: v != A^-1 (b + J^T lambda) or no v_solver"; }
  # the solver's own velocity is kept apart, and is not the graded one on some row of each
  "$PY" - "$out/solutions.h5" "$OWN" > "$T/$mode.diff" <<'EOF' || { cat "$T/$mode.diff"; fail "$mode: v_solver"; }
import sys, h5py, numpy as np
S = h5py.File(sys.argv[1], "r")["solutions"]
bad = 0
for s in sys.argv[2].split(","):
    far = max(np.linalg.norm(g["v_solver"][()] - g["v"][()]) / max(np.linalg.norm(g["v"][()]), 1e-300)
              for g in S[s].values())
    print(f"{s}: largest |v_solver - v| / |v| = {far:.3g}")
    bad += s != "al-trdogleg" and not far > 1e-6
for g in S["pgs"].values():  # pgs has no velocity of its own
    bad += "v_solver" in g
sys.exit(bad)
EOF
done
# grade: a program's v (here subadmm's own, unconverged) is kept as v_solver, bit for bit, and v
# is the velocity of its lambda
"$PY" - "$T/inproc/solutions.h5" "$T/ans.h5" <<'EOF' || fail "writing answers"
import sys, h5py
with h5py.File(sys.argv[1], "r") as s, h5py.File(sys.argv[2], "w") as a:
    for name, g in s["solutions/subadmm"].items():
        a["answers/%s/lambda" % name] = g["r"][()]
        a["answers/%s/v" % name] = g["v_solver"][()]
EOF
"$NCPBENCH" grade "$T/inproc/problems.h5" "$T/ans.h5" --name prog --out "$T/g" --no-figures \
  > "$T/g.log" 2>&1 || { cat "$T/g.log"; fail "grade"; }
ln -s "$T/inproc/problems.h5" "$T/g/problems.h5"
"$PY" tests/check_outputs.py "$T/g" --solver-v prog --graded > "$T/g.chk" || { cat "$T/g.chk"; fail "grade: v"; }
"$PY" - "$T/g/solutions.h5" "$T/ans.h5" <<'EOF' || fail "grade: v_solver is not the program's v"
import sys, h5py, numpy as np
S, A = h5py.File(sys.argv[1], "r")["solutions/prog"], h5py.File(sys.argv[2], "r")["answers"]
sys.exit(0 if len(S) == len(A) and all(np.array_equal(S[p]["v_solver"][()], A[p]["v"][()]) for p in A) else 1)
EOF

[ $fails -eq 0 ] && echo "velocity: all checks passed"
exit $((fails > 0))
