#!/usr/bin/env bash
# The whole test suite: build and run every test (meson test) in the default build (which
# registers the Siconos peers when libsiconos-numerics-dev is installed: -Dsiconos=auto), again
# under AddressSanitizer + UndefinedBehaviorSanitizer, then a -Dsiconos=disabled build with the
# tests that depend on the option (below), an OpenBLAS build with the peers' tests, then the
# solver-accuracy regression check against
# results/baselines/quick.json, then 4000 inputs of fuzzing per fuzz target when clang is present.
# Prints "N passed, N failed" last.
set -uo pipefail
cd "$(dirname "$0")/.."
export OPENBLAS_NUM_THREADS=1
passed=0; failed=0

count() { # parses meson test's summary ("Ok: N", "Fail: N", ...)
  local log=$1
  local ok fail to
  ok=$(grep -E '^Ok:' "$log" | awk '{print $2}' | tail -1)
  fail=$(grep -E '^(Fail|Unexpected Pass|Timeout):' "$log" | awk '{s+=$NF} END {print s+0}')
  passed=$((passed + ${ok:-0})); failed=$((failed + ${fail:-0}))
}

run_suite() { # name builddir "test names (empty: all)" [meson options...]
  local name=$1 dir=$2 only=$3; shift 3
  echo "== $name: meson setup $dir $*"
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; failed=$((failed+1)); return; }
  fi
  if ! ninja -C "$dir" >"$dir.build.log" 2>&1; then
    tail -50 "$dir.build.log"; echo "build failed ($name)"; failed=$((failed+1)); return
  fi
  # shellcheck disable=SC2086 # $only: test names, split on purpose
  meson test -C "$dir" --print-errorlogs --num-processes 2 $only 2>&1 | tee "$dir.test.log"
  count "$dir.test.log"
}

run_suite "tests" build-test ""
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_suite "tests under ASan+UBSan" build-asan "" -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
# Without Siconos only the registry, the solvers library and what links them change: the
# registry test, the harness, the backend check (no Siconos linked or listed) and the program
# end to end on every scene (about a minute, not the whole suite again).
run_suite "tests without Siconos (subset)" build-nosiconos "solvers harness backend e2e badinput" \
  -Dsiconos=disabled

# The OpenBLAS backend (-Dblas=openblas: Debian's Siconos binds OpenBLAS; the default build pins
# reference LAPACK for ours and the peers alike): the backend check (every dgemm_/dgetrf_ binds
# to OpenBLAS, the peers are linked and listed), the Siconos peers end to end (answers, traces,
# CPU time and the kill at the budget) and the harness. A release build: its compile is the cost.
run_suite "OpenBLAS build (subset)" build-ob "backend siconos siconos_xcheck harness" \
  -Dblas=openblas --buildtype=release

# Release (-O3, GCC) with the numerical unit tests, and a Clang debug build (compile only: GCC's
# and Clang's warnings differ, and -Werror makes each a build failure).
run_suite "release build, numerical tests" build-release "la dop cone metrics solvers lowrank nsn_lowrank harness" \
  --buildtype=release
if command -v clang >/dev/null; then
  echo "== clang debug build: CC=clang CXX=clang++ meson setup build-clang --buildtype=debug"
  if [ ! -f build-clang/build.ninja ]; then
    CC=clang CXX=clang++ meson setup build-clang --buildtype=debug >build-clang.setup.log 2>&1 || cat build-clang.setup.log
  fi
  if ninja -C build-clang >build-clang.build.log 2>&1; then passed=$((passed+1))
  else tail -50 build-clang.build.log; echo "build failed (clang)"; failed=$((failed+1)); fi
fi

echo "== regression check: ncpbench check results/baselines/quick.json"
if ./build-test/ncpbench check results/baselines/quick.json --out build-test/check; then
  passed=$((passed+1))
else
  failed=$((failed+1))
fi
# Fuzzing (docs/fuzzing.md): each libFuzzer target for 4000 inputs (under a minute) when
# clang is present (build-fuzz: clang, ASan + UBSan); a crash, leak, timeout or out-of-memory
# input fails its target (the input is kept in build-fuzz/fuzz-artifacts/TARGET/). A fixed seed
# and input count from the committed corpus only: the same inputs on every run and machine, so
# a failure here is a change of ours, not luck (the long runs are scripts/fuzz.sh TARGET 1800).
if command -v clang >/dev/null; then
  for t in scene problems fclib; do
    echo "== fuzz $t: scripts/fuzz.sh $t 300 -seed=1 -runs=4000"
    rm -rf "build-fuzz/fuzz-corpus/$t"
    if scripts/fuzz.sh "$t" 300 -seed=1 -runs=4000 >"build-fuzz-$t.out" 2>&1; then passed=$((passed+1))
    else tail -30 "build-fuzz-$t.out"; failed=$((failed+1)); fi
    tail -1 "build-fuzz-$t.out"
  done
fi
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
