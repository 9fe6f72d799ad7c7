#!/bin/sh
# The engine peers' formulation gap (results/REPORT.md, "Engine peers"): Bullet's, DART's and
# ODE's solvers and two of ours on quick captures of shipped scenes and on the FCLib samples;
# per solver the own-model residual (metrics/ boxlcp_residual) beside the Coulomb one
# (natural_map_rel_acary), as a table (scripts/engine_gap.py) and a figure (engine_gap.gp).
# usage: sh scripts/engine_gap.sh NCPBENCH OUT [FCLIB_DIR]   (a release build with -Dbullet -Ddart)
set -e
B=$1
OUT=$2
FC=${3:-/work/shared/fclib-samples}
SRC=$(cd "$(dirname "$0")/.." && pwd)
export OPENBLAS_NUM_THREADS=1
mkdir -p "$OUT/cap"
# every shipped scene but tasora-test2 (the full wrecking ball; tasora-test2-quick stands for it)
SCENES="box-on-plane incline sphere-stack boxes-fixed fourbar-fixed fourbar-free nunchuk boltnut
  boltnut-tight boltnut-screw dishes laikago8 laikago27 quadruped arm-pick arm7d
  castro-spring-cylinder castro-clutter castro-clutter-nowalls castro-clutter-200
  castro-clutter-nowalls-200 tasora-test1a tasora-test1b tasora-test2-quick ncpreport-bdx
  ncpreport-gazelle ncpreport-ironman ncpreport-lima ncpreport-misha ncpreport-walker pouring"
for s in $SCENES; do
  [ -f "$OUT/cap/$s.h5" ] || "$B" capture "$SRC/scenes/$s.json" -o "$OUT/cap/$s.h5" --quick
done
S=bullet-pgs,bullet-dantzig,bullet-lemke,dart-pgs,dart-dantzig,ode-dantzig,pgs,nsn-fb
O="--tol 1e-8 --stop-metric natural_map_rel_acary -j 1 --max-iter 1000 --budget-ms 5000 --no-traces --no-progress --fresh"
"$B" solve "$OUT/cap" "$FC" --solvers $S $O --out "$OUT/run"
/usr/bin/python3 "$SRC/scripts/engine_gap.py" "$OUT/run/metrics.csv" "$OUT/engine_gap.dat"
gnuplot -e "dat='$OUT/engine_gap.dat'; out='$OUT/engine_gap'" "$SRC/scripts/engine_gap.gp"
