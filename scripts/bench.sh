#!/usr/bin/env bash
# `ninja -C build bench`: runs the benchmark scenes at full size and writes their numbers
# (metrics.csv, summary.json, figures) under results/bench/<scene>/. Timing targets live here,
# never in unit tests: compare solvers by ratios measured in the same run.
set -euo pipefail
ncpbench=${1:?usage: bench.sh path/to/ncpbench}
root=$(cd "$(dirname "$0")/.." && pwd)
export OPENBLAS_NUM_THREADS=1
for scene in "$root"/scenes/*.json; do
  name=$(basename "$scene" .json)
  "$ncpbench" run "$scene" --out "$root/results/bench/$name"
done
# Lee et al. 2025 §VII (Fig. 7, 9, 11, Tables II, III) and its claims in results/REPORT.md.
"$root/scripts/bench_lee2025.sh" "$ncpbench"
