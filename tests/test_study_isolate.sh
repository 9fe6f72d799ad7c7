# `figures --paper KEY --isolate` reaches the study's solves (ncp_fig_opts.isolate through
# ncp_fig_pipeline_opts): every solve runs in a child process, and the claims (values and
# verdicts, which depend on iterations and metrics only) equal an in-process run's. Under
# strace, the isolated run makes at least one more process per solve (a minder and its child,
# util/spawner.h); without strace (or ptrace) that part is skipped.
. "$(dirname "$0")/shell_prologue.sh"
forks() { grep -E 'clone3?\(|fork\(' "$1" | grep -vc CLONE_THREAD; }
tracer=""
strace -f -qq -o /dev/null true 2> /dev/null && tracer="strace -f -qq -e trace=clone,clone3,fork,vfork -o"
# LeakSanitizer stops threads with ptrace, which a traced process cannot: no leak check under
# strace (the other study tests run untraced)
[ -n "$tracer" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
for m in default isolate; do
  opt=$([ $m = isolate ] && echo --isolate)
  ${tracer:+$tracer "$T/$m.trace"} "$NCPBENCH" figures --paper tasora2021 --quick $opt \
    --out "$T/$m" > "$T/$m.log" 2>&1 || fail "$m run: $(tail -n 3 "$T/$m.log")"
done
for c in paper defaults; do
  a="$T/default/tasora2021/$c/claims.csv" b="$T/isolate/tasora2021/$c/claims.csv"
  cmp -s "$a" "$b" || fail "$c/claims.csv differs with --isolate: $(diff "$a" "$b" | head -5)"
done
grep -q "^command: .* --isolate " "$T/isolate/tasora2021/stamp.txt" ||
  fail "the stamp's command does not name --isolate"
if [ -n "$tracer" ]; then
  solves=$(cat "$T"/isolate/tasora2021/*/*/metrics.csv | grep -vc '^problem,')
  extra=$(( $(forks "$T/isolate.trace") - $(forks "$T/default.trace") ))
  [ "$solves" -gt 0 ] && [ "$extra" -ge "$solves" ] ||
    fail "--isolate made $extra more processes than the in-process run for $solves solves"
  echo "isolated: $extra more processes for $solves solves"
else
  echo "strace cannot trace here: the process count is not checked"
fi
echo "study isolate: $fails failures"
exit $((fails > 0))
