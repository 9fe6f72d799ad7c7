#!/usr/bin/env bash
# Faults while a run writes its outputs (docs/design.md §5.7, bench/resume.h, util/safefile.h):
# (a) SIGKILL at 20 seeded random times during `solve` (and 4 during `run`), each followed by a
#     resumed run: the journal never shrinks, the final metrics.csv equals an uninterrupted
#     run's except the timing columns, solutions.h5 and traces.h5 hold the same answers and
#     traces (time_ms aside), no temporary is left (tests/check_same_results.py);
# (b) a symbolic link planted for every output name, pointing outside the folder: the files
#     they point to are untouched (checksums), the outputs are regular files; a journal that
#     is a link is refused with exit 3;
# (c) a full disk while the outputs are written (RLIMIT_FSIZE via `ulimit -f`, SIGXFSZ ignored
#     so that write() fails with EFBIG as it would with ENOSPC; a tmpfs needs mount rights a
#     test cannot count on): exit 3, the message names the file, the earlier outputs intact
#     and the journal readable.
. "$(dirname "$0")/shell_prologue.sh"
CHECK="$PY $(dirname "$0")/check_same_results.py"

"$NCPBENCH" capture scenes/sphere-stack.json -o "$T/ss.h5" --quick > /dev/null || fail "capture ss"
"$NCPBENCH" capture scenes/box-on-plane.json -o "$T/bp.h5" --quick > /dev/null || fail "capture bp"
# 30 pairs, about a second: pgs and admm run to their iteration budget (tol 0), deterministic
args=("$T/ss.h5" "$T/bp.h5" --solvers pgs,nsn-nm,admm --tol 0 --max-iter 30000
      --param pgs.stall_tol=0 --no-progress --no-figures)
"$NCPBENCH" solve "${args[@]}" --out "$T/ref" > /dev/null || fail "reference solve"

# ---- (a) SIGKILL, then resume ----
# 63 pairs (21 problems of five scenes, none longer than about 0.1 s), a few seconds
# in all, so that most kills land in the middle of the solves
for s in boxes-fixed incline fourbar-free; do
  "$NCPBENCH" capture scenes/$s.json -o "$T/k-$s.h5" --quick > /dev/null || fail "capture $s"
done
kargs=("$T/ss.h5" "$T/bp.h5" "$T"/k-*.h5 --solvers pgs,nsn-nm,admm --tol 0 --max-iter 30000
       --param pgs.stall_tol=0 --no-progress --no-figures)
t0=$(date +%s%N)
"$NCPBENCH" solve "${kargs[@]}" --out "$T/kref" > /dev/null || fail "reference solve (kills)"
t1=$(date +%s%N)
"$NCPBENCH" solve "${kargs[@]}" --out "$T/kref" > /dev/null || fail "rerun of the reference"
t2=$(date +%s%N)
W=$(((t1 - t0) / 1000000)) S=$(((t2 - t1) / 1000000))
# S: a rerun that solves nothing (reading the problems and the journal, rebuilding the outputs).
# Each attempt is killed (seeded draws, tests/kill_at_random.sh) either at a random time in
# [0, S] ms, while it starts, or after the journal grew 1 to 3 times and a random 0-40 ms more.
. "$(dirname "$0")/kill_at_random.sh"
RANDOM=20261125
K="$T/killed"
prev=0 progress=""
for i in $(seq 1 20); do
  "$NCPBENCH" solve "${kargs[@]}" --out "$K" > "$T/k.log" 2>&1 &
  kill_at_random $! "$K" "$S" 40
  [ -f "$K/journal.ncpj" ] || continue
  n=$($CHECK --journal "$K")
  [ "$n" -ge "$prev" ] || fail "kill $i: the journal went from $prev to $n results"
  prev=$n
  progress="$progress $n"
done
echo "uninterrupted: $W ms, rerun with nothing to solve: $S ms; journaled results after each kill:$progress"
"$NCPBENCH" solve "${kargs[@]}" --out "$K" > "$T/k.log" 2>&1 || { cat "$T/k.log"; fail "final resume"; }
grep -q "resumed $K: $prev rows kept" "$T/k.log" || { cat "$T/k.log"; fail "the resume kept not the $prev journaled rows"; }
$CHECK "$T/kref" "$K" || fail "killed and resumed solve differs from the uninterrupted one"
[ -f "$K/summary.json" ] || fail "no summary.json after the resume"

# a few during `run` (capture and solve): the scene's fingerprint is part of the configuration
rargs=(scenes/box-on-plane.json --quick --solvers pgs,nsn-nm --tol 0 --max-iter 30000
       --param pgs.stall_tol=0 --no-progress --no-figures)
"$NCPBENCH" run "${rargs[@]}" --out "$T/rref" > /dev/null || fail "reference run"
for i in 1 2 3 4; do
  "$NCPBENCH" run "${rargs[@]}" --out "$T/rk" > /dev/null 2>&1 &
  pid=$!
  sleep "0.$(printf %03d $((RANDOM % 400 + 100)))"
  kill -KILL "$pid" 2> /dev/null
  wait "$pid" 2> /dev/null
done
"$NCPBENCH" run "${rargs[@]}" --out "$T/rk" > "$T/rk.log" 2>&1 || { cat "$T/rk.log"; fail "run resume"; }
$CHECK "$T/rref" "$T/rk" || fail "killed and resumed run differs from the uninterrupted one"
# another seed is another configuration: refused, exit 2, naming it; --fresh starts over
"$NCPBENCH" run "${rargs[@]}" --seed 7 --out "$T/rk" > /dev/null 2> "$T/rk.err"; rc=$?
[ $rc -eq 2 ] || fail "run with another seed into the same folder: exit $rc, want 2"
grep -q "differs in: input" "$T/rk.err" || { cat "$T/rk.err"; fail "refusal does not name the input"; }
grep -q -- "--fresh" "$T/rk.err" || fail "refusal does not mention --fresh"
# an interrupted rerun into a finished folder keeps every row: kill it at once, nothing lost
cp "$K/metrics.csv" "$T/K.metrics.csv"
"$NCPBENCH" solve "${kargs[@]}" --out "$K" > /dev/null 2>&1 &
pid=$!; sleep 0.05; kill -KILL "$pid" 2> /dev/null; wait "$pid" 2> /dev/null
[ "$(wc -l < "$K/metrics.csv")" -eq 64 ] || fail "a killed rerun shrank metrics.csv"
# a folder of an ncpbench before the journal is refused, not resumed
mkdir -p "$T/old" && cp "$T/ref/metrics.csv" "$T/old/"
"$NCPBENCH" solve "${args[@]}" --out "$T/old" > /dev/null 2> "$T/old.err"; rc=$?
[ $rc -eq 2 ] && grep -q "without a journal" "$T/old.err" || { cat "$T/old.err"; fail "old folder: exit $rc"; }

# ---- (b) planted symbolic links ----
L="$T/links"; X="$T/outside"
mkdir -p "$L" "$X"
names=(metrics.csv traces.csv traces.h5 solutions.h5 summary.json config.json gnuplot.log
       fig_time_iter.dat fig_residual_time.dat fig_families.dat index.md index.html profile.md
       perf_profiles.dat residual_vs_time.png time_vs_iteration.svg)
for nm in "${names[@]}"; do
  echo "precious $nm" > "$X/$nm"
  ln -s "$X/$nm" "$L/$nm"
done
( cd "$X" && sha256sum * > "$T/outside.sum" )
"$NCPBENCH" solve "$T/ss.h5" --solvers pgs,nsn-nm --traces-csv --no-progress --out "$L" \
  > "$T/links.log" 2>&1 || { cat "$T/links.log"; fail "solve into a folder of links"; }
( cd "$X" && sha256sum -c --quiet "$T/outside.sum" ) || fail "a file outside --out was written"
for nm in metrics.csv traces.csv traces.h5 solutions.h5 summary.json config.json journal.ncpj; do
  [ -f "$L/$nm" ] && [ ! -L "$L/$nm" ] || fail "$nm is not a regular file of the run"
done
# the journal itself planted as a link: refused (exit 3), its target untouched
J="$T/jlink"; mkdir -p "$J"
echo "precious journal" > "$X/journal"; ln -s "$X/journal" "$J/journal.ncpj"
"$NCPBENCH" solve "$T/ss.h5" --solvers pgs --no-progress --no-figures --out "$J" > /dev/null 2> "$T/jl.err"; rc=$?
[ $rc -eq 3 ] && grep -q "symbolic link" "$T/jl.err" || { cat "$T/jl.err"; fail "journal link: exit $rc"; }
[ "$(cat "$X/journal")" = "precious journal" ] || fail "the journal link's target was written"
# a run: problems.h5 too
R="$T/rlinks"; mkdir -p "$R"
for nm in metrics.csv solutions.h5 problems.h5 summary.json; do echo "precious r $nm" > "$X/r$nm"; ln -s "$X/r$nm" "$R/$nm"; done
"$NCPBENCH" run scenes/box-on-plane.json --quick --solvers nsn-nm --no-progress --no-figures --out "$R" > /dev/null 2>&1 \
  || fail "run into a folder of links"
for nm in metrics.csv solutions.h5 problems.h5 summary.json; do
  [ "$(cat "$X/r$nm")" = "precious r $nm" ] || fail "run wrote through the link $nm"
done

# ---- (c) disk full while the outputs are written ----
D="$T/full"
# a new folder under a 48 KiB file limit: the journal (about 84 kB for the 30 results, records
# compressed) fills up after some results
( trap '' XFSZ; ulimit -f 48; exec "$NCPBENCH" solve "${args[@]}" --out "$D" ) \
  > /dev/null 2> "$T/full.err"; rc=$?
[ $rc -eq 3 ] || { cat "$T/full.err"; fail "disk full: exit $rc, want 3"; }
grep -q "cannot write $D/journal.ncpj" "$T/full.err" \
  || { cat "$T/full.err"; fail "the disk-full message does not name the journal"; }
ls "$D" | grep -q "tmp-" && fail "temporaries left after the full disk: $(ls "$D")"
n=$($CHECK --journal "$D")
[ "$n" -gt 0 ] && [ "$n" -lt 30 ] || fail "the journal holds $n results when the disk filled"
echo "disk full after $n journaled results: $(head -c 200 "$T/full.err")"
# then with room again: the resume keeps every journaled result and completes, as the reference
"$NCPBENCH" solve "${args[@]}" --out "$D" > "$T/full2.log" 2>&1 \
  || { cat "$T/full2.log"; fail "resume after the full disk"; }
grep -q "resumed $D: $n rows kept" "$T/full2.log" || { cat "$T/full2.log"; fail "the resume after the full disk kept not $n rows"; }
$CHECK "$T/ref" "$D" || fail "resumed after a full disk: differs from the uninterrupted run"
# a full disk during the rebuild of a finished run: the earlier outputs stay as they were
E="$T/full3"
"$NCPBENCH" solve "${args[@]}" --traces-csv --out "$E" > /dev/null || fail "solve E"
( cd "$E" && sha256sum metrics.csv solutions.h5 traces.h5 traces.csv > "$T/E.sum" )
( trap '' XFSZ; ulimit -f 16; exec "$NCPBENCH" solve "${args[@]}" --traces-csv --out "$E" ) \
  > /dev/null 2> "$T/full3.err"; rc=$?
[ $rc -eq 3 ] || { cat "$T/full3.err"; fail "disk full in the rebuild: exit $rc, want 3"; }
echo "disk full in the rebuild: $(head -c 200 "$T/full3.err")"
grep -q "$E/" "$T/full3.err" || fail "the rebuild's disk-full message does not name the file"
( cd "$E" && sha256sum -c --quiet "$T/E.sum" ) || fail "a failed rebuild changed the earlier outputs"
ls "$E" | grep -q "tmp-" && fail "temporaries left after the failed rebuild: $(ls "$E")"

[ $fails -eq 0 ] && echo "faults: all passed"
exit $((fails > 0))
