#!/usr/bin/env bash
# Fuzz one target with libFuzzer (docs/fuzzing.md):
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]     TARGET: scene, problems or fclib
# Builds $FUZZ_BUILD (default build-fuzz: CC=clang, -Dfuzz=true, ASan + UBSan), then runs
# tests/fuzz/fuzz-TARGET for SECONDS on a corpus kept in $FUZZ_BUILD/fuzz-corpus/TARGET (it grows
# from run to run), started from the seed corpus: the shipped scenes (scene), the committed
# files of tests/fuzz/corpus/TARGET, the committed regressions, and the FCLib samples of
# ../shared/fclib-samples when that folder exists (fclib, problems). Crashes, leaks, timeouts
# and out-of-memory inputs are written to $FUZZ_BUILD/fuzz-artifacts/TARGET/; copy one into
# tests/fuzz/regressions/TARGET/ to make it a test of every build. The last line is the
# summary to quote:
#   fuzz TARGET: S s of SECONDS, N execs (R/s), cov C, ft F, corpus K files (B bytes), crashes X, leaks L,
#   timeouts T, ooms O
# Exit 0 when the run found nothing, 1 when it found something, 2 on usage or build errors.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$PWD
target=${1:-}; secs=${2:-}
case "$target" in scene|problems|fclib) ;; *)
  echo "usage: scripts/fuzz.sh scene|problems|fclib SECONDS [libFuzzer options]" >&2; exit 2;; esac
[[ "$secs" =~ ^[0-9]+$ ]] && [ "$secs" -ge 1 ] || { echo "fuzz.sh: SECONDS must be an integer >= 1" >&2; exit 2; }
shift 2
build=${FUZZ_BUILD:-build-fuzz}
command -v clang >/dev/null || { echo "fuzz.sh: clang not found (apt-get install clang)" >&2; exit 2; }
# libFuzzer's runtime (libclang_rt.fuzzer) comes with libclang-rt-14-dev on Debian 12
probe=$(mktemp -d)
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' > "$probe/p.c"
if ! clang -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" 2>"$probe/err"; then
  cat "$probe/err" >&2; rm -rf "$probe"
  echo "fuzz.sh: clang cannot link libFuzzer (apt-get install libclang-rt-14-dev)" >&2; exit 2
fi
rm -rf "$probe"
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ meson setup "$build" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbuildtype=debugoptimized >"$build.setup.log" 2>&1 || { cat "$build.setup.log"; exit 2; }
fi
ninja -C "$build" "tests/fuzz/fuzz-$target" >"$build.build.log" 2>&1 || { tail -40 "$build.build.log"; exit 2; }

corpus=$build/fuzz-corpus/$target
art=$build/fuzz-artifacts/$target
mkdir -p "$corpus" "$art"
seeds=("tests/fuzz/corpus/$target" "tests/fuzz/regressions/$target")
[ "$target" = scene ] && seeds+=(scenes)
[ "$target" != scene ] && [ -d ../shared/fclib-samples ] && seeds+=(../shared/fclib-samples)
opts=(-max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 -malloc_limit_mb=1024
      -print_final_stats=1 -artifact_prefix="$art/" -close_fd_mask=1)
# JSON keys and values of the scene schema (scenes/README.md)
[ "$target" = scene ] && opts+=(-dict=tests/fuzz/scene.dict)
log=$build/fuzz-$target.log
echo "fuzz.sh: $build/tests/fuzz/fuzz-$target ${opts[*]} $* $corpus ${seeds[*]} (log: $log)"
# one thread per process: the target is single-threaded, the machine is shared
touch "$log.start"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
# allocator_may_return_null: libhdf5 asks malloc for absurd sizes (0x7272...) when it reads
# damaged metadata and handles the NULL it gets (the release program exits 2 on such files);
# allocations of ours above 1 GB are still caught, by -malloc_limit_mb above
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# libhdf5-internal leaks on corrupt files (tests/fuzz/lsan.supp says which and why)
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/fuzz/lsan.supp:print_suppressions=0}
t0=$SECONDS
"$build/tests/fuzz/fuzz-$target" "${opts[@]}" "$@" "$corpus" "${seeds[@]}" >"$log" 2>&1
rc=$?
elapsed=$((SECONDS - t0))  # libFuzzer stops at the first finding
tail -25 "$log"
fstat() { grep -E "^stat::$1:" "$log" | tail -1 | awk '{print $2}'; }
execs=$(fstat number_of_executed_units); rate=$(fstat average_exec_per_sec)
last=$(grep -E '^#[0-9]+' "$log" | tail -1)
cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last"); ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
nfiles=$(find "$corpus" -type f | wc -l); nbytes=$(du -sb "$corpus" | awk '{print $1}')
count() { find "$art" -name "$1-*" -newer "$log.start" 2>/dev/null | wc -l; }
crashes=$(count crash); leaks=$(count leak); timeouts=$(count timeout); ooms=$(count oom)
found=$((crashes + leaks + timeouts + ooms))
# an abnormal exit without an artifact (e.g. the fuzzer itself died) is a finding too
[ "$rc" -ne 0 ] && [ "$found" -eq 0 ] && crashes=$((crashes + 1)) && found=1
echo "fuzz $target: $elapsed s of $secs, ${execs:-0} execs (${rate:-0}/s), cov ${cov:-?}, ft ${ft:-?}, corpus $nfiles files ($nbytes bytes), crashes $crashes, leaks $leaks, timeouts $timeouts, ooms $ooms"
if [ "$found" -gt 0 ]; then
  echo "fuzz.sh: findings in $art/ (newest first):"; ls -t "$art" | head -$found
  exit 1
fi
exit 0
