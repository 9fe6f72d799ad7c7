#!/usr/bin/env bash
# The SIGKILL target of issue 13 on a realistic run (docs/design.md §5.7): KILLS SIGKILLs at
# seeded random points of `ncpbench run`, each followed by a resumed run (the next attempt),
# then a last resume left to finish; reports the results journaled after each kill, whether any
# was lost (the journal never shrinks; the last resume keeps every finished one), and whether
# the final outputs equal an uninterrupted run's, timing aside (tests/check_same_results.py).
#
#   scripts/killtest.sh [NCPBENCH] [-- run arguments]
#   default: build/ncpbench run scenes/boltnut.json --steps 40 --budget-ms 1e9 \
#            --solvers pgs,canal,subadmm,admm,nsn-fb
# Environment: KILLS (20), SEED (20261125), WORK (a new temporary folder, kept).
set -u
NCPBENCH=${1:-build/ncpbench}
shift $(($# > 0 ? 1 : 0))
[ "${1:-}" = "--" ] && shift
if [ $# -eq 0 ]; then
  # no time budget to speak of (the scene's is 200 ms): a solve cut by the clock depends on
  # the machine's load, and the comparison with the uninterrupted run would not hold
  set -- scenes/boltnut.json --steps 40 --budget-ms 1e9 --solvers pgs,canal,subadmm,admm,nsn-fb
fi
KILLS=${KILLS:-20}
RANDOM=${SEED:-20261125}
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
CHECK="${PYTHON:-/usr/bin/python3} $(dirname "$0")/../tests/check_same_results.py"
common=(--no-progress --no-figures)
REF="$WORK/ref" K="$WORK/killed"
rm -rf "$REF" "$K"

t0=$(date +%s%N)
"$NCPBENCH" run "$@" "${common[@]}" --out "$REF" > "$WORK/ref.log" 2>&1 || { cat "$WORK/ref.log"; exit 1; }
t1=$(date +%s%N)
W=$(((t1 - t0) / 1000000))
total=$($CHECK --journal "$REF")
echo "uninterrupted run: $W ms, $total results"
# the journal's records are compressed (bench/resume.c): its size against the rebuilt outputs
( cd "$REF" && echo "journal: $(stat -c %s journal.ncpj) bytes ($((\
  $(stat -c %s journal.ncpj) / (total > 0 ? total : 1))) a result); outputs: $(du -sk --apparent-size . \
  | cut -f1) kB in all" )

# a quarter of the kills at a random time in the first W/4 ms (capture, start, rebuild), the
# others after the journal grew 1 to 3 times and a random 0-100 ms more (mid-solve)
. "$(dirname "$0")/../tests/kill_at_random.sh"
prev=0 lost=0 trail=""
for i in $(seq 1 "$KILLS"); do
  "$NCPBENCH" run "$@" "${common[@]}" --out "$K" > "$WORK/k$i.log" 2>&1 &
  kill_at_random $! "$K" $((W / 4)) 100
  killed=$KILLED
  n=0
  [ -f "$K/journal.ncpj" ] && n=$($CHECK --journal "$K")
  [ "$n" -lt "$prev" ] && lost=$((lost + prev - n))
  prev=$n
  trail="$trail $n$([ $killed = 1 ] || echo '(done)')"
done
echo "results journaled after each kill:$trail"
finished=$($CHECK --journal-finished "$K")
t2=$(date +%s%N)
"$NCPBENCH" run "$@" "${common[@]}" --out "$K" > "$WORK/final.log" 2>&1 || { cat "$WORK/final.log"; exit 1; }
t3=$(date +%s%N)
kept=$(sed -n "s|^resumed $K: \([0-9]*\) rows kept.*|\1|p" "$WORK/final.log")
echo "last resume: kept ${kept:-0} of the $finished finished journaled results, $(((t3 - t2) / 1000000)) ms"
[ "${kept:-0}" -eq "$finished" ] || lost=$((lost + finished - ${kept:-0}))
echo "results lost: $lost"
if $CHECK "$REF" "$K"; then
  same=1
  echo "final outputs: identical to the uninterrupted run (timing columns aside)"
else
  same=0
  echo "final outputs: DIFFER from the uninterrupted run"
fi
echo "work folder: $WORK"
[ $lost -eq 0 ] && [ $same -eq 1 ]
