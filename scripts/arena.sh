#!/bin/sh
# The arena table of results/REPORT.md (issue 29 item 6): every peer family — ours, Siconos,
# Bullet, DART/ODE (MuJoCo is not registered: docs/design.md §5.9) — on the shipped scenes'
# quick captures, the FCLib samples and the Siconos .dat samples, at 1e-4 and 1e-8: success rate,
# shifted geometric mean of time and the formulation gap (boxlcp_residual beside the Coulomb
# residual natural_map_rel_acary), by scripts/arena.py from the two runs' metrics.csv.
# usage: sh scripts/arena.sh BUILD_DIR OUT [BUDGET_MS] [MAX_ITER]
#   BUILD_DIR: a release build with -Dsiconos -Dbullet -Ddart (meson setup B --buildtype=release)
#   FCLib samples: $FCLIB_SAMPLES (default /work/shared/fclib-samples); Siconos samples:
#   $SICONOS_DAT (default /work/shared/siconos-dat-samples)
# Every solve: -j 1, OPENBLAS_NUM_THREADS=1, the CPU clock (the default), the budget given
# (default 1000 ms and 1000 iterations per solve), natural_map_rel_acary as the stopping metric.
set -e
B=${1:?usage: arena.sh BUILD_DIR OUT [BUDGET_MS] [MAX_ITER]}/ncpbench
OUT=${2:?usage: arena.sh BUILD_DIR OUT [BUDGET_MS] [MAX_ITER]}
BUDGET=${3:-1000}
MAXIT=${4:-1000}
FC=${FCLIB_SAMPLES:-/work/shared/fclib-samples}
DAT=${SICONOS_DAT:-/work/shared/siconos-dat-samples}
SRC=$(cd "$(dirname "$0")/.." && pwd)
export OPENBLAS_NUM_THREADS=1
mkdir -p "$OUT/scenes"
# every shipped scene but tasora-test2 (the full wrecking ball; tasora-test2-quick stands for
# it), as scripts/engine_gap.sh
SCENES=$(cd "$SRC/scenes" && ls *.json | sed 's/\.json$//' | grep -vx tasora-test2)
for s in $SCENES; do
  [ -f "$OUT/scenes/$s.h5" ] || "$B" capture "$SRC/scenes/$s.json" -o "$OUT/scenes/$s.h5" --quick >/dev/null
done
# ours: one or two of each family; Siconos: its Gauss-Seidel, Newton and ADMM; every engine peer
S=pgs,nbgs,admm,nsn-fb,canal,apgd,sap
S=$S,siconos-nsgs,siconos-nsn-ac,siconos-admm
S=$S,bullet-pgs,bullet-dantzig,bullet-lemke,dart-pgs,dart-dantzig,ode-dantzig
O="--stop-metric natural_map_rel_acary -j 1 --max-iter $MAXIT --budget-ms $BUDGET --no-traces --no-progress --fresh"
"$B" --version | head -1 > "$OUT/conditions.txt"
echo "budget: $BUDGET ms (CPU clock) and $MAXIT iterations per solve; -j 1; OPENBLAS_NUM_THREADS=1" >> "$OUT/conditions.txt"
for tol in 1e-4 1e-8; do
  echo "load before $tol: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/conditions.txt"
  t0=$(date +%s)
  # exit 6 (a file that failed to load) would still leave a complete table: not fatal here
  "$B" solve "$OUT/scenes" "$FC" "$DAT" --solvers $S --tol $tol $O --out "$OUT/run-$tol" \
    > "$OUT/run-$tol.log" 2>&1 || [ $? -eq 6 ]
  echo "run $tol: $(( $(date +%s) - t0 )) s wall; load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/conditions.txt"
done
/usr/bin/python3 "$SRC/scripts/arena.py" "$OUT/run-1e-4" "$OUT/run-1e-8" "$BUDGET" | tee "$OUT/arena.md"
cat "$OUT/conditions.txt"
