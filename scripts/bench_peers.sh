#!/usr/bin/env bash
# The peer table of results/REPORT.md ("Peer table on both BLAS builds"): ncpbench's solvers
# against Siconos numerics 4.4's on the same FCLib files, under one harness, on the CPU clock
# (the peers timed by their own process's CPU time, killed at the budget), in one build.
# Run it once per build so that each side runs on that build's BLAS:
#   meson setup build-release --buildtype=release                  # reference BLAS/LAPACK
#   meson setup build-ob -Dblas=openblas --buildtype=release       # OpenBLAS (Debian's Siconos)
#   scripts/bench_peers.sh build-release /tmp/peers-ref
#   scripts/bench_peers.sh build-ob /tmp/peers-ob
# Problems: the two FCLib samples of /work/shared/fclib-samples (or $FCLIB_SAMPLES) and the five
# problems of a quick boltnut capture exported as FCLib files. Prints the table's rows (one per
# problem set and for all): per pair "solved ours / solved Siconos, median of (setup_ms +
# solve_ms) ours / Siconos over the problems both solved (count)", then each peer row that the
# budget ended inside a Siconos call (killed), from OUT/metrics.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:?usage: bench_peers.sh BUILD_DIR OUT [BUDGET_MS]}/ncpbench
OUT=${2:?usage: bench_peers.sh BUILD_DIR OUT [BUDGET_MS]}
BUDGET=${3:-2000}
SAMPLES=${FCLIB_SAMPLES:-/work/shared/fclib-samples}
export OPENBLAS_NUM_THREADS=1
mkdir -p "$OUT"
"$B" --version
# the same problems for every build: captured once (the capture's driver is pgs, on no BLAS call
# that differs between backends, but one file removes the question)
if [ ! -f "$OUT/../peers-boltnut/boltnut.h5" ]; then
  mkdir -p "$OUT/../peers-boltnut"
  "$B" capture scenes/boltnut.json --quick -o "$OUT/../peers-boltnut/boltnut.h5" > /dev/null
  "$B" export --fclib "$OUT/../peers-boltnut/fc" "$OUT/../peers-boltnut/boltnut.h5" > /dev/null
fi
S=pgs,siconos-nsgs,nsn-fb,siconos-nsn-fb,siconos-nsn-ac,nsn-nm,siconos-nsn-nm,admm,siconos-admm,siconos-prox
"$B" solve "$SAMPLES" "$OUT/../peers-boltnut/fc" --solvers "$S" --tol 1e-8 \
  --stop-metric natural_map_rel_acary -j 1 --max-iter 20000 --budget-ms "$BUDGET" --no-traces \
  --no-figures --no-progress --fresh --symmetrize --out "$OUT/run" > "$OUT/solve.log"
/usr/bin/python3 - "$OUT/run" <<'EOF'
import csv, json, sys
import numpy as np
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
print(f"blas {s['blas']}, clock {s['clock']}, {s['machine']['cpu']}, {s['machine']['cores']} cores, "
      f"load at start {s['machine']['load_average_at_start']}, problems {s['problem_set_checksum']}")
P = [("pgs", "siconos-nsgs"), ("nsn-fb", "siconos-nsn-fb"), ("nsn-fb", "siconos-nsn-ac"),
     ("nsn-nm", "siconos-nsn-nm"), ("admm", "siconos-admm"), ("nsn-fb", "siconos-prox")]
SETS = ["Box_Stacks", "Capsules", "boltnut", ""]  # "" = all problems
R = {(r["problem"], r["solver"]): r for r in csv.DictReader(open(d + "/metrics.csv"))}
probs = sorted({p for p, _ in R})
ok = lambda p, v: R[(p, v)]["status"] == "converged"
ms = lambda p, v: float(R[(p, v)]["setup_ms"]) + float(R[(p, v)]["solve_ms"])
print("| problem set | " + " | ".join(f"{a} / {b}" for a, b in P) + " |")
for key in SETS:
    ps = [p for p in probs if key in p]
    cells = []
    for a, b in P:
        na, nb = sum(ok(p, a) for p in ps), sum(ok(p, b) for p in ps)
        r = [ms(p, a) / ms(p, b) for p in ps if ok(p, a) and ok(p, b)]
        cells.append(f"{na} / {nb}" + (f", {np.median(r):.2f} ({len(r)})" if r else ""))
    print(f"| {key or 'all'} ({len(ps)}) | " + " | ".join(cells) + " |")
for (p, v), r in sorted(R.items()):
    if "inside iteration" in r["note"]:
        print(f"killed at the budget: {v} on {p}: {r['status']} after {r['iterations']} iterations, "
              f"{ms(p, v):.0f} ms CPU, {float(r['wall_ms']):.0f} ms wall")
EOF
