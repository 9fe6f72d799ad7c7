# A study killed (SIGKILL) at random points and run again resumes: the captures kept, every run
# folder's journal resumed, and the claims (values and verdicts, which depend on iterations and
# metrics only) equal an uninterrupted run's; the independent checker passes on the result.
. "$(dirname "$0")/shell_prologue.sh"
RANDOM=${STUDY_SEED:-28}
run() { "$NCPBENCH" figures --paper tasora2021 --quick --out "$1"; }
run "$T/ref" > "$T/ref.log" 2>&1 || fail "uninterrupted run (see below)"
for k in 1 2 3; do
  # the binary itself in the background (not the function: $! would be a subshell, and the
  # kill would leave ncpbench running)
  "$NCPBENCH" figures --paper tasora2021 --quick --out "$T/k" > "$T/k$k.log" 2>&1 &
  pid=$!
  ms=$((RANDOM % 6000))
  sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
  kill -KILL "$pid" 2> /dev/null && echo "kill $k after $ms ms" || echo "run $k had finished"
  wait "$pid" 2> /dev/null
done
run "$T/k" > "$T/kfinal.log" 2>&1 || fail "run after the kills"
grep -q "resumed\|kept" "$T/kfinal.log" || fail "the run after the kills resumed nothing"
for c in paper defaults; do
  a="$T/ref/tasora2021/$c/claims.csv" b="$T/k/tasora2021/$c/claims.csv"
  cmp -s "$a" "$b" || fail "$c/claims.csv differs after kills and resume: $(diff "$a" "$b" | head -5)"
done
"$PY" "$(dirname "$0")/check_study_tasora2021.py" "$T/k/tasora2021" > "$T/check.log" 2>&1 ||
  fail "checker after resume: $(tail -n 5 "$T/check.log")"
[ $fails -eq 0 ] || tail -n 20 "$T/ref.log" "$T/kfinal.log"
echo "study resume: $fails failures"
exit $((fails > 0))
