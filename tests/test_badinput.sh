#!/usr/bin/env bash
# Bad input: every case exits 2 with a message naming the problem, never crashes (no signal,
# no sanitizer report), and leaves no output behind.
. "$(dirname "$0")/shell_prologue.sh"

# expect CODE PATTERN -- command...
expect() {
  local code=$1 pat=$2; shift 3
  "$@" > "$T/out" 2> "$T/err"
  local rc=$?
  if [ $rc -ne "$code" ]; then fail "exit $rc (want $code): $*"; cat "$T/err"; return; fi
  grep -qiE -- "$pat" "$T/err" || { fail "message lacks /$pat/: $*"; cat "$T/err"; }
  grep -qE "AddressSanitizer|runtime error|Segmentation" "$T/err" && fail "sanitizer/crash: $*"
  return 0
}

printf '{"name": "x", "timestep": 0.01,, }' > "$T/malformed.json"
printf '{"name": "x", "timestep": "fast"}' > "$T/wrongtype.json"
printf 'this is not hdf5\n' > "$T/text.h5"
"$NCPBENCH" capture scenes/incline.json -o "$T/good.h5" --quick > /dev/null 2>&1 || fail "capture for truncation"
head -c 3000 "$T/good.h5" > "$T/truncated.h5"

expect 2 "malformed.json"        -- "$NCPBENCH" run "$T/malformed.json" --out "$T/o1"
expect 2 "timestep"              -- "$NCPBENCH" run "$T/wrongtype.json" --out "$T/o2"
expect 2 "nosuch.json"           -- "$NCPBENCH" run "$T/nosuch.json" --out "$T/o3"
expect 2 "unknown solver 'foo'"  -- "$NCPBENCH" run scenes/incline.json --solvers pgs,foo --out "$T/o4"
expect 2 "text.h5.*(HDF5|hdf5)"  -- "$NCPBENCH" solve "$T/text.h5" --out "$T/o5"
expect 2 "truncated.h5"          -- "$NCPBENCH" solve "$T/truncated.h5" --out "$T/o6"
expect 2 "nosuch.h5"             -- "$NCPBENCH" solve "$T/nosuch.h5" --out "$T/o7"
expect 2 "--tol"                 -- "$NCPBENCH" run scenes/incline.json --tol abc --out "$T/o8"
expect 2 "unknown option"        -- "$NCPBENCH" run scenes/incline.json --frobnicate
expect 2 "'high' \(1e-8\) or 'low'" -- "$NCPBENCH" run scenes/incline.json --tol medium --out "$T/o8b"
# the presets are the documented numbers (summary.json's budget and results table)
for preset in high:1e-08 low:0.0001; do
  "$NCPBENCH" solve "$T/good.h5" --solvers pgs --tol "${preset%%:*}" --no-figures --no-progress \
    --out "$T/tol-${preset%%:*}" > /dev/null 2>&1 || fail "solve --tol ${preset%%:*}"
  "${PYTHON:-/usr/bin/python3}" -c "
import json, sys
s = json.load(open(sys.argv[1]))
want = float(sys.argv[2])
assert s['budget']['tol'] == want and s['results_table']['tol'] == want, (s['budget'], want)
" "$T/tol-${preset%%:*}/summary.json" "${preset#*:}" || fail "--tol ${preset%%:*} is not ${preset#*:}"
done
expect 2 "unknown command"       -- "$NCPBENCH" frobnicate
# one option table (app/options.h): an option a command does not take is refused naming both;
# misspelled options, solvers, parameters and scenes get the closest name
expect 2 "option --tol does not apply to .list." -- "$NCPBENCH" list metrics --tol 1e-3 --budget-ms 5 --symmetrize
expect 2 "unknown option '--tool' \(did you mean --tol\?\)" -- "$NCPBENCH" run scenes/incline.json --tool 1e-3 --out "$T/o12"
expect 2 "unknown solver 'pgz' \(did you mean pgs\?\)" -- "$NCPBENCH" run scenes/incline.json --solvers pgs,pgz --out "$T/o13"
expect 2 "no parameter 'omgea' \(did you mean omega\?\)" -- "$NCPBENCH" run scenes/incline.json --param pgs.omgea=1 --out "$T/o14"
expect 2 "cannot find scene 'boltnutt' \(did you mean boltnut\?\)" -- "$NCPBENCH" run boltnutt --out "$T/o15"
expect 2 "unknown figure set 'lee2024' \(did you mean lee2025\?\)" -- "$NCPBENCH" figures --paper lee2024 --out "$T/o16"
# ncpbench help OPTION: the option's default (the one constant) and the commands that take it
"$NCPBENCH" help --tol > "$T/help_tol" 2>&1 && grep -q "default: the scene's, else 1e-8" "$T/help_tol" \
  && grep -q "taken by: run solve grade$" "$T/help_tol" || { fail "help --tol"; cat "$T/help_tol"; }
expect 2 "did you mean --jobs" -- "$NCPBENCH" help --jbos
expect 2 "no parameter 'bogus'"  -- "$NCPBENCH" run scenes/incline.json --param pgs.bogus=1 --out "$T/o9"
expect 2 "stop-metric"           -- "$NCPBENCH" run scenes/incline.json --stop-metric nope --out "$T/o10"
expect 2 "-o"                    -- "$NCPBENCH" capture scenes/incline.json
expect 2 "not a valid JSON|entries" -- "$NCPBENCH" check "$T/malformed.json"

# a nested field of the case generator is named with its whole JSON path
"${PYTHON:-/usr/bin/python3}" -c "
import json, sys
d = json.load(open('scenes/boltnut.json'))
d['benchmark']['cases']['screw']['axis'] = [0, 0]
json.dump(d, open(sys.argv[1], 'w'))" "$T/badscrew.json" || fail "could not write badscrew.json"
expect 2 "benchmark.cases.screw.axis: must be an array of 3" -- "$NCPBENCH" capture "$T/badscrew.json" -o "$T/o11/bs.h5"

for d in o1 o2 o3 o4 o5 o6 o7 o8 o9 o10 o11 o12 o13 o14 o15 o16; do
  [ -e "$T/$d" ] && fail "output $d left behind after bad input"
done
ls "$T" | grep -q "tmp-" && fail "temporary file left behind"

# every subcommand has --help
for c in run capture solve plot list export check; do
  "$NCPBENCH" $c --help > "$T/h" 2>&1 || fail "$c --help exit $?"
  grep -q "Usage: ncpbench $c" "$T/h" || fail "$c --help text"
done

echo "badinput: $fails failure(s)"
[ $fails -eq 0 ]
