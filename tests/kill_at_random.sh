# Sourced by tests/test_faults.sh and scripts/killtest.sh: SIGKILL a running ncpbench at a
# random point. A quarter of the kills come at a random time in the first EARLY_MS ms (capture,
# start, rebuild); the others after the journal DIR/journal.ncpj grew 1 to 3 times and a random
# 0..LATE_MS ms more, in the middle of the next solves: a shared machine makes times alone a
# poor guide to where a run is. Uses bash's RANDOM (seed it before).
jsize() { stat -c %s "$1/journal.ncpj" 2> /dev/null || echo 0; }
msleep() { sleep "$(($1 / 1000)).$(printf %03d $(($1 % 1000)))"; }
# kill_at_random PID DIR EARLY_MS LATE_MS: waits, kills PID, reaps it; KILLED=1 when the kill
# reached a live process (0: it had finished).
kill_at_random() {
  local pid=$1 dir=$2 early=$3 late=$4 r last now grew
  r=$((RANDOM % 4))
  if [ $r -eq 0 ]; then
    msleep $(((RANDOM * 32768 + RANDOM) % (early + 1)))
  else
    last=$(jsize "$dir") grew=0
    while [ $grew -lt $r ] && kill -0 "$pid" 2> /dev/null; do
      sleep 0.01
      now=$(jsize "$dir")
      [ "$now" != "$last" ] && grew=$((grew + 1)) last=$now
    done
    msleep $((RANDOM % (late + 1)))
  fi
  kill -KILL "$pid" 2> /dev/null && KILLED=1 || KILLED=0
  wait "$pid" 2> /dev/null
  return 0
}
