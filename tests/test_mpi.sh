#!/usr/bin/env bash
# Scaling out (bench/mpi_pool.h): `mpirun -n 2` against a serial run of the same problems gives
# the same outputs but for the timing columns (metrics.csv, solutions.h5, traces.h5, and for
# `run` problems.h5); a rank other than 0 writes nothing; ranks holding different problems are
# an error rank 0 reports, without a hang; a worker rank dying in a solve is reported by rank 0
# (exit 5, finished rows kept); SIGTERM (what mpirun forwards on Ctrl-C) keeps every
# finished row, each equal to the serial one. No time budget, so no solve depends on the clock.
. "$(dirname "$0")/shell_prologue.sh"
MPIRUN=${MPIRUN:?}
# OpenMPI refuses root without the first two (containers, CI); the vader transport's
# single-copy mechanism (CMA) needs ptrace rights containers often lack; 2 ranks may be more
# than the cores the runner reports.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
       OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
mpi() { timeout 300 "$MPIRUN" "$@"; }
common=(--no-figures --no-progress)

cat > "$T/same.py" <<'EOF'
# same.py A B [--finished]: B's outputs equal A's but for timing. --finished: B is an interrupted
# run: its rows are a prefix of A's in order, where a row may be "stopped" (a solve cut off on
# some rank: the rows after it finished elsewhere), and every other row equals A's.
import csv, sys, h5py, numpy as np
a, b, finished = sys.argv[1], sys.argv[2], "--finished" in sys.argv
TIMING = {"setup_ms", "solve_ms", "ms_per_iter", "time_min_ms", "time_max_ms", "wall_ms",
          "time_ms"}
bad = []
def rows(d):
    with open(d + "/metrics.csv") as f:
        r = list(csv.DictReader(f))
    return [{k: v for k, v in x.items() if k not in TIMING} for x in r]
ra, rb = rows(a), rows(b)
if finished:
    if len(rb) > len(ra): bad.append("more rows than the serial run")
    cut = [i for i, y in enumerate(rb) if y["status"] == "stopped"]
    ra = [x for i, x in enumerate(ra[:len(rb)]) if i not in cut]
    rb = [y for i, y in enumerate(rb) if i not in cut]
elif len(ra) != len(rb):
    bad.append("%d rows against %d" % (len(rb), len(ra)))
for i, (x, y) in enumerate(zip(ra, rb)):
    if x != y: bad.append("row %d differs: %s" % (i + 1, {k: (x[k], y.get(k)) for k in x if x[k] != y.get(k)}))
keys = {(x["solver"], x["problem"]) for x in rb}
def datasets(path):
    out = {}
    def visit(name, o):
        if isinstance(o, h5py.Dataset):
            v = o[()]
            cols, g = o.attrs.get("columns"), o.parent
            while cols is None and g.name != "/":  # the column names may sit on a group
                cols, g = g.attrs.get("columns"), g.parent
            if cols is not None and getattr(v, "ndim", 0) == 2:
                keep = [j for j, c in enumerate(cols) if (c.decode() if isinstance(c, bytes) else c) not in TIMING]
                v = v[:, keep]
            out[name] = v
    with h5py.File(path) as f: f.visititems(visit)
    return out
for name in ("solutions.h5", "traces.h5", "problems.h5"):
    try:
        da = datasets(a + "/" + name)
    except OSError:
        continue
    db = datasets(b + "/" + name)
    if finished and name != "problems.h5":
        # only the pairs written as finished rows: .../<solver>/<problem>/...
        da = {k: v for k, v in da.items() if tuple(k.split("/")[1:3]) in keys}
        db = {k: v for k, v in db.items() if tuple(k.split("/")[1:3]) in keys}
    if set(da) != set(db): bad.append("%s: datasets differ: %s" % (name, sorted(set(da) ^ set(db))[:5]))
    for k in set(da) & set(db):
        x, y = np.asarray(da[k]), np.asarray(db[k])
        if x.shape != y.shape or not (np.array_equal(x, y) if x.dtype.kind not in "fc" else np.array_equal(x, y, equal_nan=True)):
            bad.append("%s: %s differs" % (name, k))
for m in bad[:10]: print(m)
print("%s: %d rows compared, %d differences" % (b, len(rb), len(bad)))
sys.exit(1 if bad else 0)
EOF

# run: capture + solve on every rank, rank 0 writes (problems.h5 included)
"$NCPBENCH" run scenes/box-on-plane.json --quick --out "$T/r1" "${common[@]}" > "$T/r1.log" 2>&1 || { cat "$T/r1.log"; fail "serial run"; }
mpi -n 2 "$NCPBENCH" run scenes/box-on-plane.json --quick --out "$T/r2" "${common[@]}" > "$T/r2.log" 2>&1 || { cat "$T/r2.log"; fail "mpirun -n 2 run"; }
"$PY" "$T/same.py" "$T/r1" "$T/r2" || fail "run: mpirun -n 2 differs from the serial run"
[ "$(grep -c 'captured' "$T/r2.log")" = 1 ] || fail "run: only rank 0 prints (captured lines: $(grep -c captured "$T/r2.log"))"

# solve: 40 problems, every solver; rank 0 with -j 2 (threads and ranks together)
"$NCPBENCH" run scenes/sphere-stack.json --steps 40 --solvers pgs --out "$T/cap" "${common[@]}" > "$T/cap.log" 2>&1 || fail "capture"
P="$T/cap/problems.h5"
"$NCPBENCH" solve "$P" --out "$T/s1" "${common[@]}" > "$T/s1.log" 2>&1 || fail "serial solve"
mpi -n 2 "$NCPBENCH" solve "$P" --out "$T/s2" -j 2 "${common[@]}" > "$T/s2.log" 2>&1 || { cat "$T/s2.log"; fail "mpirun -n 2 solve"; }
"$PY" "$T/same.py" "$T/s1" "$T/s2" || fail "solve: mpirun -n 2 differs from the serial run"

# rank 1 writes nothing: each rank in a folder of its own, the output path relative
mkdir -p "$T/w0" "$T/w1"
mpi -n 1 -wdir "$T/w0" "$NCPBENCH" run "$SRCDIR/scenes/box-on-plane.json" --quick --out o "${common[@]}" : \
    -n 1 -wdir "$T/w1" "$NCPBENCH" run "$SRCDIR/scenes/box-on-plane.json" --quick --out o "${common[@]}" \
    > "$T/w.log" 2>&1 || { cat "$T/w.log"; fail "mpirun MPMD run"; }
[ -s "$T/w0/o/metrics.csv" ] || fail "rank 0 wrote no metrics.csv"
[ -z "$(ls -A "$T/w1")" ] || fail "rank 1 wrote files: $(ls -A "$T/w1")"

# ranks holding different problems: rank 0 reports it and the job ends (timeout: a hang)
mpi -n 1 "$NCPBENCH" solve "$P" --out "$T/bad" "${common[@]}" : \
    -n 1 "$NCPBENCH" solve "$T/r1/problems.h5" --out "$T/bad" "${common[@]}" > "$T/bad.log" 2>&1
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "different problems on rank 1: exit $rc (124: hung)"
grep -q "ncpbench solve: rank 1 holds" "$T/bad.log" || { cat "$T/bad.log"; fail "the mismatch is not reported by rank 0"; }
# the same names and count, other contents (another scene's 40 steps): the fingerprints differ
"$NCPBENCH" run scenes/box-on-plane.json --steps 40 --solvers pgs --out "$T/cap2" "${common[@]}" > "$T/cap2.log" 2>&1 || fail "capture 2"
mpi -n 1 "$NCPBENCH" solve "$P" --out "$T/bad2" "${common[@]}" : \
    -n 1 "$NCPBENCH" solve "$T/cap2/problems.h5" --out "$T/bad2" "${common[@]}" > "$T/bad2.log" 2>&1
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "same names, other problems on rank 1: exit $rc (124: hung)"
grep -q "ncpbench solve: rank 1 holds problem '0000[0-9][0-9]' where rank 0 holds another" "$T/bad2.log" || { cat "$T/bad2.log"; fail "the other contents are not reported by rank 0"; }

# SIGTERM to mpirun (forwarded to every rank) once rows are written: every rank exits, the
# finished rows are kept and equal the serial run's.
# The interrupted run needs work left when the signal arrives: the 40 problems above take the
# default solver set about a second (and a journal flush comes every 64 records or 1 s), so
# the run could end before the signal and the check would see no interruption. Here two
# solvers run a fixed 300 000 iterations each (no tolerance, no time budget: deterministic),
# ~0.1 s a solve and 80 solves, and the signal goes once a few records are journaled.
ISLOW=(--solvers pgs,jacobi --tol 0 --max-iter 300000)
"$NCPBENCH" solve "$P" --out "$T/h1" "${ISLOW[@]}" "${common[@]}" > "$T/h1.log" 2>&1 || { cat "$T/h1.log"; fail "serial solve (slow set)"; }
# (timeout, not the mpi function: a function in the background is a subshell, and timeout
# passes the signal on to mpirun)
# mpirun kills the ranks 1 s after forwarding the signal (odls_base_sigkill_timeout), which may
# cut rank 0 while it rebuilds the outputs from the journal (bench/resume.h): nothing is lost,
# the journal holds every finished result, and the next run (here a serial one, the same
# configuration) keeps them all and completes the outputs, equal to the serial run's
timeout 300 "$MPIRUN" -n 2 "$NCPBENCH" solve "$P" --out "$T/i" "${ISLOW[@]}" "${common[@]}" > "$T/i.log" 2>&1 &
pid=$!
for _ in $(seq 1 3000); do
  # the header is ~6 kB, a result record of this set ~8 kB: more than 3 records
  [ "$(stat -c %s "$T/i/journal.ncpj" 2> /dev/null || echo 0)" -gt 40000 ] && break
  sleep 0.1
done
kill -TERM $pid
wait $pid
rc=$?
[ $rc -ne 124 ] || fail "interrupted mpirun hung"
# mpirun can return before its ranks are gone (seen under ASan on a loaded machine: rank 0
# journaled ~100 more results after mpirun exited): count only once no rank runs
for _ in $(seq 1 300); do
  pgrep -f -- "--out $T/i " > /dev/null || break
  sleep 0.1
done
pgrep -f -- "--out $T/i " > /dev/null && fail "ranks of the interrupted mpirun still run 30 s later"
n=$("$PY" "$(dirname "$0")/check_same_results.py" --journal "$T/i")
[ "$n" -gt 0 ] || fail "interrupted run journaled $n results"
[ "$n" -lt 80 ] || fail "the run was not interrupted: all 80 results journaled (the signal came too late)"
nf=$("$PY" "$(dirname "$0")/check_same_results.py" --journal-finished "$T/i")
if [ -f "$T/i/summary.json" ]; then
  grep -Eq '"interrupted":[[:space:]]*true' "$T/i/summary.json" || { cat "$T/i.log"; fail "interrupted run: summary.json does not say interrupted"; }
  "$PY" "$T/same.py" "$T/h1" "$T/i" --finished || fail "interrupted run: kept rows differ"
fi
"$NCPBENCH" solve "$P" --out "$T/i" "${ISLOW[@]}" "${common[@]}" > "$T/i2.log" 2>&1 || { cat "$T/i2.log"; fail "resume of the interrupted mpirun"; }
grep -Eq "resumed $T/i: [0-9]+ rows kept" "$T/i2.log" || fail "the interrupted mpirun's results were not resumed"
kept=$(sed -n "s|^resumed $T/i: \([0-9]*\) rows kept.*|\1|p" "$T/i2.log")
[ "${kept:-0}" -eq "$nf" ] || fail "resume kept ${kept:-0} of the $nf finished journaled results"
"$PY" "$T/same.py" "$T/h1" "$T/i" || fail "interrupted mpirun, resumed: differs from the serial run"

# A worker rank dying in a solve run in its own process (--no-isolate; tests/plugins/crash.c
# dereferences NULL on the problem named by $NCP_TEST_CRASH_ON, set on rank 1 only, whose first
# tasks are the last problem's: bench.c take_for): rank 0, not mpirun, names the rank, the
# problem and the solver, keeps every finished row, and the job ends with exit 5 (docs/running.md), not
# a hang. A rerun resumes the journal; completed, the outputs equal a serial run's.
# (not in sanitizer builds: UBSan's halt_on_error ends the rank at the NULL store with exit 1,
# before any signal, so there is no signal for rank 0 to name)
if ! ldd "$NCPBENCH" 2> /dev/null | grep -q libasan; then
CRASH=${PLUGINDIR:?}/plugin_crash.so
DSET=(--plugin "$CRASH" --solvers pgs,plugin-crash --no-isolate)
"$NCPBENCH" solve "$P" --out "$T/d1" "${DSET[@]}" "${common[@]}" > "$T/d1.log" 2>&1 || { cat "$T/d1.log"; fail "serial solve (crash plugin, no crash)"; }
last=$("$PY" -c 'import h5py,sys; print(sorted(h5py.File(sys.argv[1])["problems"])[-1])' "$P")
mpi -n 1 "$NCPBENCH" solve "$P" --out "$T/d" "${DSET[@]}" "${common[@]}" : \
    -n 1 env NCP_TEST_CRASH_ON="$last" "$NCPBENCH" solve "$P" --out "$T/d" "${DSET[@]}" "${common[@]}" \
    > "$T/d.log" 2>&1
rc=$?
[ $rc -eq 5 ] || { cat "$T/d.log"; fail "a worker rank's crash: exit $rc, not 5 (124: hung)"; }
grep -q "^ncpbench: rank 1 died of signal 11 (Segmentation fault) while solving problem '$last' with solver 'plugin-crash' in its own process: the run stops here; every finished row is kept in $T/d (its journal: a rerun resumes); --isolate runs each solve" "$T/d.log" \
    || { cat "$T/d.log"; fail "a worker rank's crash is not reported by rank 0"; }
grep -q "^ncpbench: rank 1 is dying in task [0-9]* of batch 0 (signal 11)" "$T/d.log" \
    || { cat "$T/d.log"; fail "the dying rank wrote no line of its own"; }
nf=$("$PY" "$(dirname "$0")/check_same_results.py" --journal-finished "$T/d")
[ "$nf" -gt 0 ] && [ "$nf" -lt 80 ] || fail "a worker rank's crash: $nf of 80 results journaled"
"$PY" "$T/same.py" "$T/d1" "$T/d" --finished || fail "a worker rank's crash: kept rows differ"
"$NCPBENCH" solve "$P" --out "$T/d" "${DSET[@]}" "${common[@]}" > "$T/d2.log" 2>&1 || { cat "$T/d2.log"; fail "resume after a worker rank's crash"; }
kept=$(sed -n "s|^resumed $T/d: \([0-9]*\) rows kept.*|\1|p" "$T/d2.log")
[ "${kept:-0}" -eq "$nf" ] || fail "resume after the crash kept ${kept:-0} of the $nf finished results"
"$PY" "$T/same.py" "$T/d1" "$T/d" || fail "crashed mpirun, resumed: differs from the serial run"
fi

# The ranks read their problems lazily (bench/collection.h): --sym-tol reaches that reader too.
# A global problem whose M misses one mirror entry (asymmetry 1e-7) is refused at 1e-8 as in a
# serial run (Siconos .dat: only when built with libsiconos).
if "$NCPBENCH" list 2>/dev/null | grep -q '^siconos-'; then
printf '3\n1\n0\n3\n3\n3\t3\n2 2.449489742783178e-07 0\n0 2 0\n0 0 2\n0\n3\n3\n3\t3\n1 0 0\n0 1 0\n0 0 1\n0 0 -1\n0 0 0\n0.5\n1\n' > "$T/Asym.dat"
mpi -n 2 "$NCPBENCH" solve "$T/Asym.dat" --solvers nsn-nm --sym-tol 1e-8 --out "$T/s" --fresh "${common[@]}" > "$T/s.log" 2>&1
rc=$?
{ [ $rc -ne 0 ] && grep -q "above --sym-tol 1e-08" "$T/s.log"; } || { cat "$T/s.log"; fail "mpirun: --sym-tol 1e-8 not applied by the lazy reader (exit $rc)"; }
fi

# Under ASan a leak report does not fail a process here (tests/meson.build: LSAN_OPTIONS with
# exitcode=0 and tests/lsan_mpi.supp): OpenMPI leaks from components it has unloaded by then,
# whose frames no suppression can name. A leak with a frame of ncpbench's own code fails.
cat > "$T/leaks.py" <<'EOF'
import re, sys
bad = 0
for f in sys.argv[1:]:
    for block in re.split(r"\n(?=(?:Direct|Indirect) leak of)", open(f, errors="replace").read()):
        stack = block.split("\n\n")[0]
        if re.match(r"(Direct|Indirect) leak of", stack) and \
           re.search(r" in \S+ \S*(src|solvers|metrics)/\S+\.c:\d+", stack):
            print(f + ":\n" + stack)
            bad += 1
sys.exit(1 if bad else 0)
EOF
"$PY" "$T/leaks.py" "$T"/*.log || fail "ncpbench's own code leaked memory (above)"

[ $fails -eq 0 ] && echo "mpi: all checks passed"
exit $((fails > 0))
