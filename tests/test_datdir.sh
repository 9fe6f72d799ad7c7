#!/bin/bash
# `ncpbench solve DIR` over a directory holding Siconos .dat problems, one truncated .dat file,
# a gnuplot .dat file and a non-HDF5 .h5 file (bench/collection.h): the good files are solved,
# the bad one is a row of failed_files.csv and exit 6, the others are named as not problem
# files; a bad file given alone is exit 2 naming it.
set -u
fail=0
check() { if eval "$1"; then echo "ok: $2"; else echo "FAIL: $2"; fail=1; fi; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/d"
cp tests/data/siconos/*.dat "$T/d/"
head -c 700 tests/data/siconos/Rover1039.dat > "$T/d/Cut.dat"
printf '# gnuplot data\n1 2\n' > "$T/d/plot.dat"
printf 'not hdf5' > "$T/d/junk.h5"
"$NCPBENCH" solve "$T/d" --solvers nsn-nm --out "$T/o" --fresh --no-figures --no-traces > "$T/out" 2> "$T/err"
rc=$?
check '[ $rc -eq 6 ]' "exit 6 when a file failed to load (got $rc)"
check 'grep -q "not problem files:.*junk.h5" "$T/out" && grep -q "plot.dat" "$T/out"' "skipped files named"
check 'grep -q "Cut.dat failed to load" "$T/err"' "the failed file named on stderr"
check '[ "$(head -1 "$T/o/failed_files.csv")" = "file,reason" ] && grep -q "Cut.dat" "$T/o/failed_files.csv"' "failed_files.csv row"
for p in FC3D_Example1_SBM GFC3D_Example1 GFC3D_TwoRods1 Rover1039; do
  check 'grep -q "^d.$p,nsn-nm,.*converged" "$T/o/metrics.csv"' "$p solved"
done
check '[ $(grep -c "^d\." "$T/o/metrics.csv") -eq 4 ]' "4 rows in metrics.csv"
"$NCPBENCH" solve "$T/d/Cut.dat" --solvers nsn-nm --out "$T/o2" --fresh --no-figures > /dev/null 2> "$T/err2"
rc=$?
check '[ $rc -eq 2 ] && grep -q "Cut.dat" "$T/err2"' "a bad file alone: exit 2 naming it (got $rc)"
# a global problem whose M misses one mirror entry (relative asymmetry 1e-7): read as its
# symmetric part at the default --sym-tol (1e-6), refused at --sym-tol 1e-8
mkdir "$T/a"
printf '3\n1\n0\n3\n3\n3\t3\n2 2.449489742783178e-07 0\n0 2 0\n0 0 2\n0\n3\n3\n3\t3\n1 0 0\n0 1 0\n0 0 1\n0 0 -1\n0 0 0\n0.5\n1\n' > "$T/a/Asym.dat"
"$NCPBENCH" solve "$T/a/Asym.dat" --solvers nsn-nm --out "$T/o3" --fresh --no-figures > /dev/null 2>&1
rc=$?
check '[ $rc -eq 0 ] && grep -q "converged" "$T/o3/metrics.csv"' "asymmetric M at the default tolerance solved (got $rc)"
"$NCPBENCH" solve "$T/a/Asym.dat" --solvers nsn-nm --sym-tol 1e-8 --out "$T/o4" --fresh --no-figures > /dev/null 2> "$T/err4"
rc=$?
check '[ $rc -eq 2 ] && grep -q "above --sym-tol 1e-08" "$T/err4"' "refused at --sym-tol 1e-8 (got $rc)"
# --sym-tol is part of the run's configuration: a rerun into the same --out with another
# tolerance (which can read another M) does not reuse the rows, it is refused naming it
"$NCPBENCH" solve "$T/a/Asym.dat" --solvers nsn-nm --sym-tol 1e-3 --out "$T/o3" --no-figures > /dev/null 2> "$T/err5"
rc=$?
check '[ $rc -eq 2 ] && grep -q "another configuration.*sym_tol" "$T/err5"' "another --sym-tol refused on resume (got $rc)"
"$NCPBENCH" solve "$T/a/Asym.dat" --solvers nsn-nm --sym-tol 1e-6 --out "$T/o3" --no-figures > /dev/null 2> "$T/err6"
rc=$?
check '[ $rc -eq 0 ]' "the default named explicitly resumes (got $rc)"
# a sound local problem of 200 contacts (W 600 x 600, stored dense: 2.75 MiB) under a budget that
# cannot hold W: refused from its header before Siconos allocates it unchecked (exit 2, the
# file, W's size, the budget, --max-memory), never "not a problem Siconos numerics can read"
/usr/bin/python3 - "$T/Big.dat" <<'PYEOF'
import sys
nc = 200; n = 3 * nc
rows = [" ".join("2" if j == i else "0" for j in range(n)) for i in range(n)]
q = " ".join("-1" if i % 3 == 0 else "0" for i in range(n))
open(sys.argv[1], "w").write("\n".join(["3", str(nc), "0", str(n), str(n), "%d\t%d" % (n, n)] + rows + [q, " ".join(["0.5"] * nc), "1"]) + "\n")
PYEOF
"$NCPBENCH" solve "$T/Big.dat" --solvers nsn-nm --out "$T/o7" --no-figures --no-progress --max-memory 2M > /dev/null 2> "$T/err7"
rc=$?
check '[ $rc -eq 2 ] && grep -q "Big.dat: its first matrix (W or M, 600 x 600, stored dense), as Siconos numerics reads it, needs 2.75 MiB, above the memory budget of 2 MiB (raise it with --max-memory" "$T/err7"' "a dense W above --max-memory refused from the header (got $rc)"
"$NCPBENCH" solve "$T/Big.dat" --solvers nsn-nm --out "$T/o8" --no-figures --no-progress > /dev/null 2>&1
rc=$?
check '[ $rc -eq 0 ] && grep -q "converged" "$T/o8/metrics.csv"' "the same file solved at the default budget (got $rc)"
exit $fail
