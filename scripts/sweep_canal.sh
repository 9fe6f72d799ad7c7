#!/bin/sh
# The sweep that chose canal's beta schedule defaults (kappa, zeta, beta_max_ratio: not in Lee et
# al. 2025) and the scale-free beta0_rel / theta_n (solvers/al_common.c): Table II's protocol (10 AL
# loops per case, benchmarks/bench_table2.c) on captured problem files, one table row per
# parameter set and file: mean inner steps per case, % failed inner solves, mean -log10
# al_residual, ms per case.
# Usage: scripts/sweep_canal.sh BUILD_DIR PROBLEMS.h5... (e.g. from
#   ncpbench capture scenes/dishes.json -o dishes.h5; ncpbench capture scenes/boltnut.json -o
#   boltnut.h5). Grid overrides: BETA0_REL, KAPPA, ZETA, BMAX, THETA_N (space-separated lists);
#   BETA0 (absolute beta0, 0 = the scale-free rule; the paper's is 1e4); START (v0: the
#   captured previous velocity, v0+lambda0: also u^0 = -guess_lambda, cold: neither).
set -eu
[ $# -ge 2 ] || { echo "usage: $0 BUILD_DIR PROBLEMS.h5..." >&2; exit 2; }
bin="$1/benchmarks/bench_table2"
[ -x "$bin" ] || { echo "$0: $bin not built (ninja -C $1 benchmarks/bench_table2)" >&2; exit 2; }
shift
BETA0_REL=${BETA0_REL:-"1e4 1e5 1e6"}
KAPPA=${KAPPA:-"3 10"}
ZETA=${ZETA:-"0.5 100"}
BMAX=${BMAX:-"100"}
THETA_N=${THETA_N:-"1e-10"}
BETA0=${BETA0:-"0"}
START=${START:-"v0"}
printf '| file | start | beta0 | beta0_rel | kappa | zeta | beta_max_ratio | theta_n | inner/case | max | fail %% | -log10 res | ms/case |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for f in "$@"; do
  for s in $START; do
    case $s in
      v0) sflag="" ;; v0+lambda0) sflag="--warm-lambda" ;; cold) sflag="--cold" ;;
      *) echo "$0: START: v0, v0+lambda0 or cold, not $s" >&2; exit 2 ;;
    esac
    for a in $BETA0; do
      for b in $BETA0_REL; do for k in $KAPPA; do for z in $ZETA; do for m in $BMAX; do
        for t in $THETA_N; do
          # shellcheck disable=SC2086
          line=$("$bin" "$f" --solvers canal $sflag --param canal.beta0="$a" \
                 --param canal.beta0_rel="$b" --param canal.kappa="$k" --param canal.zeta="$z" \
                 --param canal.beta_max_ratio="$m" --param canal.theta_n="$t" |
                 awk '$1 == "canal" { print $3 " | " $4 " | " $5 " | " $7 " | " $8 }')
          printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$(basename "$f")" "$s" "$a" \
            "$b" "$k" "$z" "$m" "$t" "$line"
        done
      done; done; done; done
    done
  done
done
