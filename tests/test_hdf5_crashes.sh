#!/usr/bin/env bash
# Files that crash libhdf5 itself (Debian 12's 1.10.8; found by tests/fuzz, kept in
# tests/fuzz/hdf5-crashes/ because the in-process fuzz replay would crash on them): every
# command that reads problem files reads them in a child process first (util/isolate.h), so
# each must give exit 2 with a message naming the file, never a crash, and leave no output.
. "$(dirname "$0")/shell_prologue.sh"
dir=${SRCDIR:?}/tests/fuzz/hdf5-crashes
n=0
for f in "$dir"/*; do
  [ -f "$f" ] || continue
  n=$((n+1))
  b=$(basename "$f")
  "$NCPBENCH" solve "$f" --solvers pgs --out "$T/out-$n" --no-figures >"$T/log" 2>&1
  rc=$?
  [ $rc -eq 2 ] || fail "solve $b: exit $rc, expected 2: $(tail -3 "$T/log")"
  grep -q "reading .*$b crashed the HDF5 library" "$T/log" || fail "solve $b: message lacks the file: $(tail -2 "$T/log")"
  [ ! -e "$T/out-$n/metrics.csv" ] || fail "solve $b: wrote metrics.csv"
  # a folder holding it, beside a good file: the same refusal (a collection is read file by file)
  mkdir -p "$T/coll-$n" && cp "$f" "$T/coll-$n/"
  "$NCPBENCH" solve "$T/coll-$n" --solvers pgs --out "$T/outc-$n" --no-figures >"$T/log" 2>&1
  rc=$?
  [ $rc -eq 2 ] || fail "solve DIR with $b: exit $rc, expected 2"
  "$NCPBENCH" export --fclib "$T/exp-$n" "$f" >"$T/log" 2>&1
  rc=$?
  [ $rc -eq 2 ] || fail "export $b: exit $rc, expected 2: $(tail -2 "$T/log")"
done
# a results folder's traces.h5 damaged the same way (plot DIR reads any folder's): exit 2 naming
# it, at least one of them a crash in the child, and the figures not drawn
"$NCPBENCH" solve "$SRCDIR/tests/fuzz/corpus/problems/box-on-plane-2steps.h5" --solvers pgs \
  --out "$T/run" --no-figures >"$T/log" 2>&1 || fail "solve for the plot check: $(tail -2 "$T/log")"
crashed=0
for f in "$dir"/*; do
  [ -f "$f" ] || continue
  b=$(basename "$f")
  rm -rf "$T/plot" && cp -r "$T/run" "$T/plot" && cp "$f" "$T/plot/traces.h5"
  "$NCPBENCH" plot "$T/plot" >"$T/log" 2>&1
  rc=$?
  [ $rc -eq 2 ] || fail "plot with $b as traces.h5: exit $rc, expected 2: $(tail -2 "$T/log")"
  grep -q "$T/plot/traces.h5" "$T/log" || fail "plot with $b as traces.h5: message lacks the file: $(tail -1 "$T/log")"
  grep -q "crashed the HDF5 library" "$T/log" && crashed=$((crashed+1))
  ls "$T/plot"/*.png >/dev/null 2>&1 && fail "plot with $b as traces.h5: drew figures"
done
[ $crashed -ge 1 ] || fail "no damaged traces.h5 crashed libhdf5: the plot check checks nothing"
[ $n -ge 1 ] || fail "no file in $dir"
echo "hdf5_crashes: $n file(s), $fails failure(s)"
[ $fails -eq 0 ]
