#!/bin/bash
# Solver plugins loaded with --plugin / $NCPBENCH_PLUGINS (solve/plugin_load.h) and isolated
# solves (--isolate, bench/bench.h), with the test plugins of tests/plugins/ built in $PLUGINDIR:
#   - a good plugin is listed with its file and name, selected with --solvers, run under the
#     harness: its solver calls the built-in pgs's solve, so every row equals pgs's (iterations,
#     status, every metric) and its converged rows meet the tolerance; it has its own panel
#     ("plugin solvers") in the figures and the index page, and its file in summary.json;
#   - every plugin that breaks a rule of solve/plugin.h exits 2 naming the file and the fault;
#   - --isolate: a plugin that segfaults on the second problem gives one row `crashed` (the note
#     names the signal) and normal rows for everything else, exit 4; -j 2 the same; a plugin's
#     solves are isolated without --isolate too, and crash ncpbench with --no-isolate;
#   - a plugin solver drives a scene's simulation (benchmark.driver, for capture, run and task):
#     the captures equal those driven by the built-in pgs, bit for bit; without --plugin the
#     scene is refused (exit 2, naming the solver);
#   - the ASan build reports a plugin that writes past out->lambda (heap-buffer-overflow);
#   - --repeat 3: every row's answer equals a single run's, its time lies in [time_min_ms,
#     time_max_ms], summary.json says repeat 3; a solver whose answer changes from one call to
#     the next (plugin-flaky) ends the run with exit 3 naming it.
. "$(dirname "$0")/shell_prologue.sh"
P=${PLUGINDIR:?}
GOOD=$P/plugin_good.so
CRASH=$P/plugin_crash.so
ASAN=0
ldd "$NCPBENCH" 2> /dev/null | grep -q libasan && ASAN=1

"$NCPBENCH" capture box-on-plane --quick -o "$T/p.h5" > /dev/null 2>&1 || fail "capture"
N=$("$NCPBENCH" solve "$T/p.h5" --solvers pgs --out "$T/count" --no-figures --no-traces \
      --no-progress 2> /dev/null | awk '$1 == "pgs" {print $2; exit}')
[ "${N:-0}" -ge 3 ] || fail "expected at least 3 captured problems, got '${N:-}'"

# a column of metrics.csv by name: col FILE NAME -> "problem solver value" lines
col() {
  awk -F, -v name="$2" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == name) k = i; next}
                        {print $1, $2, $k}' "$1"
}

# ---- listing: file and plugin name; --plugin and the variable combine ----
"$NCPBENCH" list solvers --plugin "$GOOD" > "$T/list" 2>&1 || fail "list --plugin: exit $?"
grep -q "^  plugin-pgs " "$T/list" || fail "list: plugin-pgs missing"
grep -q "plugin: test-good ($GOOD)" "$T/list" || fail "list: plugin file/name missing"
grep -q "family: plugin solvers" "$T/list" || fail "list: plugin family missing"
NCPBENCH_PLUGINS="$CRASH::$GOOD" "$NCPBENCH" list solvers --plugin "$GOOD" > "$T/list2" 2>&1 \
  || fail "list with \$NCPBENCH_PLUGINS: exit $?"
for s in plugin-pgs plugin-crash plugin-overflow plugin-flaky; do
  [ "$(grep -c "^  $s " "$T/list2")" = 1 ] || fail "list with both: $s not listed once"
done
"$NCPBENCH" list solvers | grep -q plugin-pgs && fail "plugin solver listed without --plugin"

# ---- a good plugin: selected, run, graded as the built-in solver it calls ----
OUT=$T/good
"$NCPBENCH" solve "$T/p.h5" --plugin "$GOOD" --solvers pgs,plugin-pgs --out "$OUT" \
  --tol 1e-8 --no-progress > "$T/good.log" 2>&1 || fail "solve with plugin: exit $?"
n_plugin=$(grep -c ',plugin-pgs,' "$OUT/metrics.csv")
[ "$n_plugin" = "$N" ] || fail "plugin-pgs has $n_plugin rows, expected $N"
# identical to pgs in every column but the times (setup_ms, solve_ms, ms_per_iter, wall_ms)
awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i ~ /_ms$|ms_per_iter/) skip[i] = 1; next}
         {key = ""; for (i = 3; i <= NF; i++) if (!skip[i]) key = key "," $i
          if ($2 == "pgs") a[$1] = key; else if ($2 == "plugin-pgs") b[$1] = key}
         END {bad = 0; for (p in a) if (a[p] != b[p]) {print "differs on " p; bad = 1}
              for (p in b) if (!(p in a)) bad = 1; exit bad}' "$OUT/metrics.csv" \
  || fail "plugin-pgs rows differ from pgs's"
# converged rows meet the tolerance on the stopping metric
col "$OUT/metrics.csv" natural_map_rel_acary > "$T/stop"
col "$OUT/metrics.csv" converged > "$T/conv"
paste -d' ' "$T/conv" "$T/stop" | awk '$2 == "plugin-pgs" && $3 == 1 {n++; if (!($6 <= 1e-8)) bad = 1}
  END {exit (bad || n == 0)}' || fail "plugin-pgs: converged rows above tol (or none converged)"
grep -q '"plugin":[[:space:]]*"'"$GOOD"'"' "$OUT/summary.json" || fail "summary.json: no plugin file"
grep -q '| plugin-pgs | plugin solvers |' "$OUT/index.md" || fail "index.md: plugin family missing"
if [ -f "$OUT/fig_families.dat" ]; then
  grep -qP '^\d+\tplugin solvers\tplugin-pgs$' "$OUT/fig_families.dat" \
    || fail "figures: no 'plugin solvers' panel"
fi
# resume: the same command keeps every row; the plugin's solvers are part of the configuration
"$NCPBENCH" solve "$T/p.h5" --plugin "$GOOD" --solvers pgs,plugin-pgs --out "$OUT" \
  --tol 1e-8 --no-progress > "$T/resume.log" 2>&1 || fail "resume with plugin: exit $?"
grep -q "rows kept" "$T/resume.log" || fail "resume with plugin: nothing kept"
# without the plugin its solver is unknown: exit 2 saying so
"$NCPBENCH" solve "$T/p.h5" --solvers plugin-pgs --out "$T/none" > /dev/null 2> "$T/err"
[ $? = 2 ] && grep -q "unknown solver 'plugin-pgs'.*--plugin" "$T/err" \
  || fail "unknown plugin solver: $(cat "$T/err")"

# ---- bad plugins: exit 2 naming the file and what is wrong, no output folder ----
echo "not a library" > "$T/text.so"
bad_case() { # FILE EXPECTED-REGEX
  local out=$T/bad_out
  "$NCPBENCH" solve "$T/p.h5" --plugin "$GOOD" --plugin "$1" --out "$out" > /dev/null 2> "$T/err"
  local rc=$?
  [ $rc = 2 ] || fail "$1: exit $rc, expected 2"
  grep -q -- "$1" "$T/err" || fail "$1: message does not name the file: $(cat "$T/err")"
  grep -qE -- "$2" "$T/err" || fail "$1: message lacks /$2/: $(cat "$T/err")"
  grep -qE "AddressSanitizer|runtime error|Segmentation" "$T/err" && fail "$1: crash"
  [ -e "$out" ] && fail "$1: output folder created"
  rm -rf "$out"
}
bad_case "$T/text.so" "cannot load it as a shared library: .*(file too short|invalid ELF)"
bad_case "$T/missing.so" "cannot load it as a shared library: .*No such file"
bad_case "$P/plugin_bad_noentry.so" "no entry point: it does not export ncp_plugin_entry"
bad_case "$P/plugin_bad_nullentry.so" "entry point ncp_plugin_entry returned NULL"
bad_case "$P/plugin_bad_abi.so" \
  "built for ABI 7, this ncpbench has ABI 3: rebuild the plugin against this ncpbench"
bad_case "$P/plugin_bad_nosolvers.so" "n_solvers is 0"
bad_case "$P/plugin_bad_nulldesc.so" "solver descriptor 0 of 2 is NULL"
bad_case "$P/plugin_bad_nullname.so" "solver descriptor 0 has no name"
bad_case "$P/plugin_bad_nullsolve.so" "solver 'bad-plugin' has no solve function"
bad_case "$P/plugin_bad_dup_builtin.so" "solver name 'pgs' exists already \(built in, solvers/pgs.c\)"
bad_case "$P/plugin_bad_dup_plugin.so" "solver name 'plugin-pgs' exists already \(plugin $GOOD\)"
bad_case "$P/plugin_bad_noterm.so" "no NULL-name terminator within 33 entries"
bad_case "$P/plugin_bad_name.so" "solver name 'bad,name' cannot be written"
bad_case "$P/plugin_bad_setword.so" "solver name 'peers' is a word of --solvers"
# the variable's files are checked the same way
NCPBENCH_PLUGINS="$P/plugin_bad_abi.so" "$NCPBENCH" list solvers > /dev/null 2> "$T/err"
[ $? = 2 ] && grep -q "plugin_bad_abi.so: built for ABI 7" "$T/err" \
  || fail "\$NCPBENCH_PLUGINS bad plugin: $(cat "$T/err")"

# ---- --isolate: a plugin that segfaults on the second problem ----
SECOND=$(awk -F, 'NR > 1 {print $1}' "$OUT/metrics.csv" | sort -u | sed -n 2p)
for j in 1 2; do
  ISO=$T/iso$j
  NCP_TEST_CRASH_ON=$SECOND "$NCPBENCH" solve "$T/p.h5" --plugin "$CRASH" --isolate -j $j \
    --solvers pgs,plugin-crash,jacobi --out "$ISO" --no-progress > "$T/iso.log" 2>&1
  rc=$?
  [ $rc = 4 ] || fail "--isolate -j $j: exit $rc (a crashed row: 4): $(tail -3 "$T/iso.log")"
  col "$ISO/metrics.csv" status > "$T/st"
  [ "$(grep -c . "$T/st")" = $((3 * N)) ] || fail "--isolate -j $j: expected $((3 * N)) rows"
  [ "$(grep -c ' crashed$' "$T/st")" = 1 ] || fail "--isolate -j $j: expected one crashed row"
  grep -q "^$SECOND plugin-crash crashed$" "$T/st" || fail "--isolate -j $j: wrong crashed row"
  # (ASan catches the SIGSEGV itself: its report, then exit 1, which the note says)
  how="killed by signal 11 \(Segmentation fault\)"
  [ $ASAN = 1 ] && how="ended with exit code 1 before sending a complete result"
  grep -qE "$SECOND,plugin-crash,.*crashed: (the solve.s process )?$how" "$ISO/metrics.csv" \
    || fail "--isolate -j $j: the note does not say how the solve died"
  # every other row converged; plugin-crash's (jacobi's solve) equal jacobi's iterations
  awk '$3 != "crashed" && $3 != "converged" {bad = 1} END {exit bad}' "$T/st" \
    || fail "--isolate -j $j: a row that did not crash did not converge"
  col "$ISO/metrics.csv" iterations | awk -v s="$SECOND" '$1 != s && $2 == "jacobi" {a[$1] = $3}
    $1 != s && $2 == "plugin-crash" {b[$1] = $3} END {for (p in a) if (a[p] != b[p]) exit 1}' \
    || fail "--isolate -j $j: isolated plugin-crash rows differ from jacobi's"
  grep -q '"crashed":[[:space:]]*1' "$ISO/summary.json" || fail "--isolate -j $j: summary count"
  grep -q "plugin-crash *crashed on 1" "$T/iso.log" || fail "--isolate -j $j: summary line"
done
# isolated rows equal in-process ones (the child runs the same harness)
"$NCPBENCH" solve "$T/p.h5" --solvers pgs --out "$T/inproc" --no-progress --no-figures \
  > /dev/null 2>&1 || fail "in-process pgs"
diff <(col "$T/inproc/metrics.csv" natural_map_rel_acary | grep ' pgs ') \
     <(col "$T/iso1/metrics.csv" natural_map_rel_acary | grep ' pgs ') > /dev/null \
  || fail "--isolate: pgs's stop metric differs from the in-process run"
# a plugin's solves are isolated by default: the same crashed row without --isolate, exit 4
NCP_TEST_CRASH_ON=$SECOND "$NCPBENCH" solve "$T/p.h5" --plugin "$CRASH" \
  --solvers plugin-crash --out "$T/defiso" --no-progress > /dev/null 2>&1
rc=$?
[ $rc = 4 ] || fail "a plugin without --isolate: exit $rc, expected 4 (isolated by default)"
grep -q "^$SECOND,plugin-crash,.*,crashed," "$T/defiso/metrics.csv" \
  || fail "a plugin without --isolate: no crashed row"
# --no-isolate trusts the plugin: the crash takes ncpbench down (documented in --help)
NCP_TEST_CRASH_ON=$SECOND "$NCPBENCH" solve "$T/p.h5" --plugin "$CRASH" --no-isolate \
  --solvers plugin-crash --out "$T/noiso" --no-progress > /dev/null 2>&1
rc=$?
[ $rc -ge 128 ] || [ $rc = 1 ] || fail "--no-isolate: exit $rc, expected a crash"
"$NCPBENCH" solve --help | grep -q "crashes or calls exit()" || fail "--help does not say what --isolate is for"

# ---- a plugin solver as the scene's driver: the same simulation as the built-in it calls ----
sed 's/"driver": "nsn-nm"/"driver": "pgs"/' scenes/box-on-plane.json > "$T/drv-pgs.json"
sed 's/"driver": "nsn-nm"/"driver": "plugin-pgs"/' scenes/box-on-plane.json > "$T/drv-plugin.json"
grep -q '"driver": "plugin-pgs"' "$T/drv-plugin.json" || fail "box-on-plane's driver line changed"
"$NCPBENCH" capture "$T/drv-pgs.json" --quick -o "$T/drv-pgs.h5" > /dev/null 2>&1 || fail "pgs-driven capture"
"$NCPBENCH" capture "$T/drv-plugin.json" --quick --plugin "$GOOD" -o "$T/drv-plugin.h5" \
  > /dev/null 2> "$T/err" || { cat "$T/err"; fail "plugin-driven capture"; }
for d in pgs plugin; do
  "$NCPBENCH" solve "$T/drv-$d.h5" --solvers nsn-nm --out "$T/drv-$d" --no-figures --no-progress \
    > /dev/null 2>&1 || fail "solve the $d-driven capture"
done
"$PY" "$(dirname "$0")/check_same_results.py" "$T/drv-pgs" "$T/drv-plugin" \
  || fail "a plugin-driven capture differs from the pgs-driven one"
"$NCPBENCH" run "$T/drv-plugin.json" --quick --plugin "$GOOD" --solvers pgs --out "$T/drv-run" \
  --no-figures --no-progress > /dev/null 2>&1 || fail "run with a plugin driver"
"$NCPBENCH" capture "$T/drv-plugin.json" --quick -o "$T/drv-none.h5" > /dev/null 2> "$T/err"
rc=$?
[ $rc = 2 ] || fail "a plugin driver without --plugin: exit $rc, want 2"
grep -q "plugin-pgs" "$T/err" || { cat "$T/err"; fail "the refusal does not name the driver"; }

# ---- figures --profiles: "every solver" includes the plugin's (both ways of naming it) ----
for how in flag env; do
  if [ $how = flag ]; then
    "$NCPBENCH" figures --profiles --quick --scenes box-on-plane --plugin "$GOOD" \
      --out "$T/fig-$how" > "$T/figlog" 2>&1 || fail "figures --plugin: exit $?"
  else
    NCPBENCH_PLUGINS="$GOOD" "$NCPBENCH" figures --profiles --quick --scenes box-on-plane \
      --out "$T/fig-$how" > "$T/figlog" 2>&1 || fail "figures with \$NCPBENCH_PLUGINS: exit $?"
  fi
  grep -q "^| plugin-pgs | plugin solvers |" "$T/fig-$how/profiles/results.md" ||
    fail "figures ($how): plugin-pgs not in the collection's results table"
  grep -q "^| pgs |" "$T/fig-$how/profiles/results.md" || fail "figures ($how): pgs missing"
done
"$NCPBENCH" figures --profiles --quick --plugin "$T/nosuch.so" --out "$T/fig-bad" \
  > /dev/null 2> "$T/err" && fail "figures with a missing plugin: exit 0"
grep -q "nosuch.so: cannot load it" "$T/err" || fail "figures: missing plugin not named"
[ -e "$T/fig-bad" ] && fail "figures with a missing plugin left an output folder"

# ---- --repeat: the same answers, the median's time within the spread; a flaky solver refused ----
"$NCPBENCH" solve "$T/p.h5" --solvers pgs,nsn-fb --out "$T/rep1" --no-figures --no-progress   > /dev/null 2>&1 || fail "solve (one repeat)"
"$NCPBENCH" solve "$T/p.h5" --solvers pgs,nsn-fb --repeat 3 --out "$T/rep3" --no-figures   --no-progress > /dev/null 2>&1 || fail "solve --repeat 3: exit $?"
"$PY" "$(dirname "$0")/check_same_results.py" "$T/rep1" "$T/rep3"   || fail "--repeat 3 gives other answers than one repeat"
"$PY" - "$T/rep3" <<'PYEOF' || fail "--repeat 3: times or summary"
import csv, json, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/metrics.csv")))
assert rows and json.load(open(d + "/summary.json"))["repeat"] == 3
for r in rows:
    t = float(r["setup_ms"]) + float(r["solve_ms"])
    lo, hi = float(r["time_min_ms"]), float(r["time_max_ms"])
    assert 0 <= lo <= t * (1 + 1e-12) and t <= hi * (1 + 1e-12), r
PYEOF
# (--no-isolate: the counter it keeps lives in one process; a plugin's isolated solves start afresh)
"$NCPBENCH" solve "$T/p.h5" --plugin "$CRASH" --solvers plugin-flaky --no-isolate --repeat 2   --out "$T/flaky" --no-figures --no-progress > /dev/null 2> "$T/err"
rc=$?
[ $rc = 3 ] || fail "--repeat with a flaky solver: exit $rc, want 3"
grep -q "plugin-flaky on problem .* is not deterministic" "$T/err" \
  || { cat "$T/err"; fail "--repeat: the flaky solver is not named"; }

# ---- a plugin writing past out->lambda: the sanitizer build catches it ----
if [ $ASAN = 1 ]; then
  "$NCPBENCH" solve "$T/p.h5" --plugin "$CRASH" --solvers plugin-overflow --out "$T/ovf" \
    --no-progress > /dev/null 2> "$T/err"
  rc=$?
  [ $rc != 0 ] || fail "overflow: exit 0 in the ASan build"
  grep -q "heap-buffer-overflow" "$T/err" || fail "overflow: no heap-buffer-overflow report"
else
  echo "(not an ASan build: the overflow case runs in the sanitizer build)"
fi

echo "plugin_load: $fails failure(s)"
[ $fails = 0 ]
