#!/usr/bin/env bash
# The BLAS/LAPACK the binary really runs and the Siconos peers match the build options.
#
# Installing Siconos switches Debian's run-time BLAS/LAPACK alternatives to OpenBLAS, and
# libsiconos_numerics itself needs libopenblas.so.0; the reference build pins netlib with a
# runpath and --no-as-needed (meson.build). This test checks the result, not the flags: it makes
# the dynamic linker bind every symbol at start-up (LD_BIND_NOW) and reads its bindings
# (LD_DEBUG=bindings):
#   - `ncpbench --version` names the backend of the build option (BLAS=reference|openblas);
#   - reference: dgemm_ and dgetrf_ bind to netlib's libblas / liblapack, and no object (ours,
#     LAPACKE, Siconos) binds any symbol to OpenBLAS, which is mapped but unused;
#     openblas: dgemm_ and dgetrf_ bind to OpenBLAS;
#   - SICONOS=1: ncpbench links libsiconos_numerics and lists the siconos-* solvers; SICONOS=0:
#     neither; likewise ENGINES=bullet,dart (-Dbullet, -Ddart: the engine peers, libBulletDynamics
#     and libdart);
#   - the solver sets (bench/pipeline.h): a solve without --solvers runs every listed solver but
#     the peers; `peers` the peers alone, `all` every one, `pgs,default` pgs first and no repeat.
. "$(dirname "$0")/shell_prologue.sh"
BLAS=${BLAS:?}
SICONOS=${SICONOS:?}
ENGINES=${ENGINES?}

v=$("$NCPBENCH" --version) || fail "ncpbench --version exited non-zero"
case "$v" in
  *"(BLAS/LAPACK: $BLAS)"*) ;;
  *) fail "--version says '$v'; the build option is blas=$BLAS" ;;
esac

LD_BIND_NOW=1 LD_DEBUG=bindings "$NCPBENCH" --version > /dev/null 2> "$T/bind.log"
# "<pid>: binding file FROM [0] to TO [0]: normal symbol `S' ..." -> "FROM TO S"
sed -nE 's/^ *[0-9]+:[[:space:]]*binding file ([^ ]+) \[[0-9]+\] to ([^ ]+) \[[0-9]+\]: normal symbol `([^'"'"']+).*/\1 \2 \3/p' \
  "$T/bind.log" | sort -u > "$T/bindings"
[ -s "$T/bindings" ] || fail "no LD_DEBUG bindings read (format changed?)"
providers() { awk -v s="$1" '$3 == s { print $2 }' "$T/bindings" | sort -u; }
for sym in dgemm_ dgetrf_; do
  p=$(providers "$sym")
  [ -n "$p" ] || { fail "nothing binds $sym"; continue; }
  for lib in $p; do
    case "$BLAS:$lib" in
      reference:*/blas/libblas.so.3 | reference:*/lapack/liblapack.so.3) ;;
      openblas:*openblas*) ;;
      *) fail "$sym binds to $lib in a blas=$BLAS build" ;;
    esac
  done
done
if [ "$BLAS" = reference ]; then
  # src/app/main.c asks a mapped OpenBLAS for its thread count (openblas_get_num_threads, by
  # dlsym: a query, no arithmetic), to start itself again with one thread under a memory cap
  awk '$2 ~ /openblas/ && $1 !~ /openblas/ && $3 != "openblas_get_num_threads"' "$T/bindings" \
    > "$T/to_openblas"
  if [ -s "$T/to_openblas" ]; then
    head -5 "$T/to_openblas"
    fail "$(wc -l < "$T/to_openblas") symbol bindings go to OpenBLAS in the reference build"
  fi
fi

ldd "$NCPBENCH" > "$T/ldd" || fail "ldd"
"$NCPBENCH" list solvers > "$T/list" || fail "list solvers"
if [ "$SICONOS" = 1 ]; then
  grep -q 'libsiconos_numerics' "$T/ldd" || fail "-Dsiconos found Siconos but ncpbench does not link it"
  for s in nsgs nsn-ac nsn-fb nsn-nm prox admm vi-eg; do
    grep -q "siconos-$s " "$T/list" || fail "siconos-$s is not listed"
  done
else
  grep -q 'libsiconos' "$T/ldd" && fail "Siconos disabled but ncpbench links it"
  grep -q 'siconos-' "$T/list" && fail "Siconos disabled but siconos-* solvers are listed"
fi

for e in bullet:libBulletDynamics-float64:pgs,dantzig,lemke dart:libdart-external-odelcpsolver:pgs,dantzig; do
  name=${e%%:*}; lib=${e#*:}; lib=${lib%%:*}; sol=${e##*:}
  case ",$ENGINES," in
  *",$name,"*)
    grep -q "$lib" "$T/ldd" || fail "-D$name found it but ncpbench does not link $lib"
    for s in $(echo "$sol" | tr ',' ' '); do
      grep -q "$name-$s " "$T/list" || fail "$name-$s is not listed"
    done ;;
  *)
    grep -q "$lib" "$T/ldd" && fail "$name disabled but ncpbench links $lib"
    grep -q "^  $name-" "$T/list" && fail "$name disabled but $name-* solvers are listed" ;;
  esac
done

# solver sets, counted from the list and from what a solve ran
listed=$(grep -cE '^  [a-z0-9][^ ]* ' "$T/list")
nsic=$(grep -c 'family: peers (Siconos)' "$T/list")
npeer=$(grep -c 'family: peers (' "$T/list")
[ "$SICONOS" = 1 ] && [ "$nsic" -ne 7 ] && fail "$nsic Siconos peers listed, expected 7"
"$NCPBENCH" capture scenes/box-on-plane.json -o "$T/cap.h5" --quick > /dev/null || fail "capture"
ran() { # SOLVERS-ARGS...: the distinct solvers of the solve's metrics.csv, in order
  rm -rf "$T/s"
  "$NCPBENCH" solve "$T/cap.h5" "$@" --max-iter 3 --budget-ms 50 --no-progress --out "$T/s" \
    > /dev/null || fail "solve $*"
  "$PY" -c 'import csv,sys; print(",".join(dict.fromkeys(r["solver"] for r in csv.DictReader(open(sys.argv[1])))))' \
    "$T/s/metrics.csv"
}
d=$(ran); n=$(echo "$d" | tr ',' '\n' | grep -c .)
[ "$n" -eq $((listed - npeer)) ] || fail "default run: $n solvers, expected $listed listed - $npeer peers"
echo "$d" | grep -q siconos && fail "a default run ran a peer: $d"
a=$(ran --solvers all); [ "$(echo "$a" | tr ',' '\n' | grep -c .)" -eq "$listed" ] || fail "--solvers all ran $a"
p=$(ran --solvers pgs,default); [ "$p" = "$d" ] || fail "--solvers pgs,default ran $p, not $d"
if [ "$npeer" -gt 0 ]; then
  q=$(ran --solvers peers)
  [ "$(echo "$q" | tr ',' '\n' | grep -c '^siconos-')" -eq "$nsic" ] && [ "$(echo "$q" | tr ',' '\n' | grep -c .)" -eq "$npeer" ] \
    || fail "--solvers peers ran $q, expected the $npeer peers"
fi
echo "backend: blas=$BLAS siconos=$SICONOS engines=$ENGINES; dgemm_ from $(providers dgemm_ | tr '\n' ' ')"
[ "$fails" -eq 0 ]
