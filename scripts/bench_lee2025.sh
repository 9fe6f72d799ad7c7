#!/usr/bin/env bash
# Lee et al. 2025 benchmarks (issue 5): regenerates Lee et al. 2025 §VII at full size, timed honestly (one BLAS
# thread, -j 1): Fig. 7, 9, 11 and Tables II, III, among them the SubADMM / No Sub / No Body time
# ratios on laikago8 and laikago27 (Table III) and CANAL's iterations to al_residual 1e-8 on
# bolt-nut (Fig. 7). Then writes the claims table (OUT/lee2025/claims.md: every claim of Lee et al. 2025 §VII,
# the paper's number, ours, the verdict and the command) into results/REPORT.md, between the
# markers of the section "Lee et al. 2025 (CANAL, SubADMM)" (created if missing). Benchmarks, not tests:
# nothing here fails on a number.
#
# Usage: scripts/bench_lee2025.sh path/to/ncpbench [OUT]     (OUT default results/figures; run from
#        anywhere; `ninja -C build bench` runs it after scripts/bench.sh)
set -euo pipefail
ncpbench=$(realpath "${1:?usage: bench_lee2025.sh path/to/ncpbench [OUT]}")
root=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-results/figures}
cd "$root"
export OPENBLAS_NUM_THREADS=1
"$ncpbench" figures --paper lee2025 --out "$out" -j 1

claims="$out/lee2025/claims.md"
report=results/REPORT.md
begin='<!-- lee2025-claims:begin (scripts/bench_lee2025.sh writes this block) -->'
end='<!-- lee2025-claims:end -->'
[ -s "$claims" ] || { echo "bench_lee2025.sh: $claims was not written" >&2; exit 1; }
if [ ! -f "$report" ]; then
  printf '# ncpbench results\n\nEvery number below has the command that measured it beside it.\n' > "$report"
fi
if ! grep -qF "$begin" "$report"; then
  printf '\n## Lee et al. 2025 (CANAL, SubADMM)\n\n%s\n%s\n' "$begin" "$end" >> "$report"
fi
tmp="$report.tmp-$$"
awk -v b="$begin" -v e="$end" -v f="$claims" '
  $0 == b { print; while ((getline line < f) > 0) print line; skip = 1; next }
  $0 == e { skip = 0 }
  !skip { print }' "$report" > "$tmp"
mv "$tmp" "$report"
echo "bench_lee2025.sh: claims of Lee et al. 2025 written into $report (from $claims)"
