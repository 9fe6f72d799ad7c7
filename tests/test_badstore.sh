#!/usr/bin/env bash
# Hostile or damaged HDF5 input and full disks (issue 13): every case exits with its documented
# code (2 bad input, 3 I/O), with a message naming the file and the dataset, never a signal or
# a sanitizer report.
#   - sizes a file declares but does not store (10^9 entries, chunked and never written, or
#     contiguous and never allocated) and sizes above --max-memory are refused before anything
#     is allocated: run under `ulimit -v` (2 GiB) in a build without AddressSanitizer, where
#     allocating what the files declare (4 to 12 GB) would fail with "out of memory" (exit 3);
#   - one validation for problems.h5 and FCLib input: D = -I, mu = 1e308 refused by both; a
#     non-symmetric D handled by both alike (solvers that need symmetry: unsupported rows);
#   - corrupt files and an empty /problems exit 2 in the sanitizer build too (libhdf5's own
#     leaks on damaged objects: tests/lsan_hdf5.supp);
#   - a full disk while problems.h5 or solutions.h5 is written: exit 3 naming the file, no
#     crash in libhdf5's exit handler, nothing under the final name (a small tmpfs when this
#     runs as root and mount works, else `ulimit -f` with SIGXFSZ ignored: writes get EFBIG).
. "$(dirname "$0")/shell_prologue.sh"

ASAN=0
ldd "$NCPBENCH" 2> /dev/null | grep -q libasan && ASAN=1

# expect CODE PATTERN... -- command...: exit code CODE, every PATTERN (ERE) in stderr.
expect() {
  local code=$1 pats=()
  shift
  while [ "$1" != "--" ]; do pats+=("$1"); shift; done
  shift
  "$@" > "$T/out" 2> "$T/err"
  local rc=$?
  if [ $rc -ne "$code" ]; then fail "exit $rc (want $code): $*"; head -c 2000 "$T/err"; return; fi
  for p in "${pats[@]}"; do
    grep -qE -- "$p" "$T/err" || { fail "message lacks /$p/: $*"; head -c 2000 "$T/err"; }
  done
  grep -qE "AddressSanitizer|LeakSanitizer|runtime error|Segmentation" "$T/err" && fail "sanitizer/crash: $*"
  return 0
}

# the same under a 2 GiB address-space limit (not with ASan: its shadow memory needs more)
expect_small() {
  local code=$1
  shift
  if [ $ASAN = 1 ]; then expect "$code" "$@"; return; fi
  (ulimit -v 2097152; expect "$code" "$@"; exit $fails) || fails=$((fails+1))
}

"$PY" - "$T" << 'EOF' || fail "making the test files"
import sys, h5py, numpy as np
T = sys.argv[1]

def ours(name, D=None, mu=0.5, huge=None, A=None, Jcol=None):
    """A dual-only ncpbench problems.h5: one problem of 2 contacts, D (6 x 6), v_f = -1; with A,
    a primal one instead (A 6 x 6, J = I as CSR with column indices Jcol, b = 0, e = -1)."""
    with h5py.File(f"{T}/{name}.h5", "w") as f:
        f.create_group("meta")
        g = f.create_group("problems").create_group("p0")
        for k, v in dict(nv=0 if A is None else 6, m=6, nblocks=2, ncontacts=2, step=0,
                         case_index=-1).items():
            g.attrs.create(k, v, dtype="i4")
        g.attrs.create("h", 0.01, dtype="f8")
        g.attrs.create("seed", 1, dtype="u8")
        g.attrs["scene"] = np.bytes_("test")
        g.attrs["driver"] = np.bytes_("")
        b = g.create_group("blocks")
        if huge == "chunked":     # 4 GB declared, no chunk written
            b.create_dataset("type", shape=(10**9,), dtype="i4", chunks=(1 << 16,))
        elif huge == "contiguous":  # 4 GB declared, storage never allocated
            b.create_dataset("type", shape=(10**9,), dtype="i4")
        elif huge == "stored":    # 5e6 entries really stored (deflate: a few KB)
            b.create_dataset("type", data=np.full(5 * 10**6, 2, dtype="i4"), chunks=(1 << 18,),
                             compression="gzip")
        else:
            b["type"] = np.full(2, 2, dtype="i4")
        b["row"] = np.array([0, 3], dtype="i4")
        b["mu"] = np.full(2, mu)
        for n in ("k", "c", "phi"):
            b[n] = np.zeros(2)
        if A is not None:
            pr = g.create_group("primal")
            pr["A"] = A
            pr["b"] = np.zeros(6)
            pr["e"] = -np.ones(6)
            J = pr.create_group("J")
            for k, v in dict(nzmax=6, m=6, n=6, nz=-2).items():
                J[k] = np.array([v], dtype="i4")
            J["p"] = np.arange(7, dtype="i4")
            J["i"] = np.array(range(6) if Jcol is None else Jcol, dtype="i4")
            J["x"] = np.ones(6)
            return
        d = g.create_group("dual")
        d["D"] = np.eye(6) if D is None else D
        d["vf"] = -np.ones(6)

def fclib(name, W, mu=0.5, n=None):
    """A plain FCLib local problem; W dense (stored as CSC of its non-zeros) or, with n, an
    empty n x n W (nothing stored: a 12.8 GB dense D from a 600 KB file)."""
    with h5py.File(f"{T}/{name}.hdf5", "w") as f:
        L = f.create_group("fclib_local")
        L["spacedim"] = np.array([3], dtype="i4")
        Wg = L.create_group("W")
        if n is None:
            n = W.shape[0]
            p, i, x = [0], [], []
            for j in range(n):
                for r in range(n):
                    if W[r, j] != 0:
                        i.append(r)
                        x.append(W[r, j])
                p.append(len(i))
        else:
            p, i, x = [0] * (n + 1), [], []
        for k, v in dict(nzmax=len(i), m=n, n=n, nz=-1).items():
            Wg[k] = np.array([v], dtype="i4")
        Wg["p"] = np.array(p, dtype="i4")
        Wg["i"] = np.array(i, dtype="i4")
        Wg["x"] = np.array(x, dtype="f8")
        v = L.create_group("vectors")
        v["q"] = -np.ones(n)
        v["mu"] = np.full(n // 3, mu)

ours("huge_chunked", huge="chunked")
ours("huge_contig", huge="contiguous")
ours("big_stored", huge="stored")
ours("negD", D=-np.eye(6))
Aind = np.eye(6)
Aind[0, 1] = Aind[1, 0] = 2.0  # symmetric, positive diagonal, indefinite
ours("indefA", A=Aind)
ours("Jrange", A=np.eye(6), Jcol=[0, 1, 2, 3, 4, 60])
ours("mu", mu=1e308)
A = 2 * np.eye(6)
A[0, 3] = 0.5          # not symmetric; diagonal > 0
ours("asym", D=A)
fclib("asym_fclib", A)
fclib("negW", -np.eye(6))
fclib("mu_fclib", np.eye(6), mu=1e308)
fclib("hugeW", None, n=39999)
with h5py.File(f"{T}/empty.h5", "w") as f:
    f.create_group("problems")
EOF

S=(solve --no-figures --no-progress --solvers pgs)
# ---- sizes a file declares (bounded memory) ----
expect_small 2 "huge_chunked.h5" "/problems/p0/blocks/type" "declares 3815 MiB of data but the file holds 0 bytes of it .*only 0 of its [0-9]+ chunks written" \
  -- "$NCPBENCH" "${S[@]}" "$T/huge_chunked.h5" --out "$T/o1"
expect_small 2 "huge_contig.h5" "/problems/p0/blocks/type" "declares 3815 MiB of data but the file holds 0 bytes of it .*storage never allocated" \
  -- "$NCPBENCH" "${S[@]}" "$T/huge_contig.h5" --out "$T/o2"
expect_small 2 "huge_chunked.h5" "/problems/p0/blocks/type" "3.73 GiB, above the memory budget of 1 GiB" \
  -- "$NCPBENCH" "${S[@]}" "$T/huge_chunked.h5" --out "$T/o3" --max-memory 1G
expect_small 2 "big_stored.h5" "/problems/p0/blocks/type" "19.1 MiB, above the memory budget of 16 MiB" \
  -- "$NCPBENCH" "${S[@]}" "$T/big_stored.h5" --out "$T/o4" --max-memory 16M
expect_small 2 "hugeW.hdf5" "/fclib_local/W" "dense 39999 x 39999 matrix needs 11.9 GiB, above the memory budget of 1 GiB" \
  -- "$NCPBENCH" "${S[@]}" "$T/hugeW.hdf5" --out "$T/o5" --max-memory 1G
expect_small 2 "hugeW.hdf5" "/fclib_local/W" "above the memory budget of 1 GiB" \
  -- "$NCPBENCH" export --fclib "$T/o6" "$T/hugeW.hdf5" --max-memory 1G
expect 2 "max-memory" -- "$NCPBENCH" "${S[@]}" "$T/asym.h5" --out "$T/o7" --max-memory lots
expect 2 "max-memory" -- "$NCPBENCH" "${S[@]}" "$T/asym.h5" --out "$T/o8" --max-memory 12K

# ---- one validation for both inputs ----
expect 2 "negD.h5" "/problems/p0" "D\[0,0\] = -1 is negative" -- "$NCPBENCH" "${S[@]}" "$T/negD.h5" --out "$T/v1"
expect 2 "negW.hdf5" "D\[0,0\] = -1 is negative" -- "$NCPBENCH" "${S[@]}" "$T/negW.hdf5" --out "$T/v2"
# primal data: A not positive definite, J with a column out of range: exit 2 naming the file and
# the problem, before anything is derived from them (D is never built on reading)
expect 2 "indefA.h5" "/problems/p0" "not positive definite" -- "$NCPBENCH" "${S[@]}" "$T/indefA.h5" --out "$T/v5"
expect 2 "Jrange.h5" "/problems/p0" "J" "60" -- "$NCPBENCH" "${S[@]}" "$T/Jrange.h5" --out "$T/v6"
expect 2 "mu.h5" "/problems/p0/blocks/mu" "1e\+308" -- "$NCPBENCH" "${S[@]}" "$T/mu.h5" --out "$T/v3"
expect 2 "mu_fclib.hdf5" "/fclib_local/vectors/mu" "1e\+308" -- "$NCPBENCH" "${S[@]}" "$T/mu_fclib.hdf5" --out "$T/v4"
# a non-symmetric D: kept as given by both readers; pgs solves it, apgd (needs a symmetric D)
# gets an unsupported row with the same reason whichever file it came from
for f in asym.h5 asym_fclib.hdf5; do
  expect 0 -- "$NCPBENCH" solve --no-figures --no-progress --solvers pgs,apgd "$T/$f" --out "$T/s_$f"
  m="$T/s_$f/metrics.csv"
  [ -f "$m" ] || { fail "$f: no metrics.csv"; continue; }
  grep -q "apgd.*unsupported.*needs a symmetric D: max |D - D^T| = 0.5" "$m" || fail "$f: apgd not unsupported for the asymmetry"
  grep -qE "^[^,]*,pgs,[0-9]+,1," "$m" || fail "$f: pgs did not converge"
done

# ---- damaged files, empty /problems: exit 2 in the sanitizer build too ----
expect 2 "hold no problem" -- "$NCPBENCH" "${S[@]}" "$T/empty.h5" --out "$T/e1"
"$NCPBENCH" capture scenes/incline.json -o "$T/good.h5" --quick > /dev/null 2>&1 || fail "capture for corruption"
size=$(stat -c %s "$T/good.h5")
"$PY" - "$T/good.h5" "$T" << 'EOF' || fail "making corrupt files"
import sys
data = bytearray(open(sys.argv[1], "rb").read())
n = len(data)
# deterministic damage: bytes overwritten at fixed fractions of the file (object headers, heaps,
# B-trees, raw data alike), one file per position
for k, frac in enumerate([0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95]):
    d = bytearray(data)
    at = int(frac * n)
    d[at:at + 64] = bytes((b ^ 0x5A) for b in d[at:at + 64])
    open(f"{sys.argv[2]}/corrupt{k}.h5", "wb").write(d)
EOF
for k in 0 1 2 3 4 5 6 7 8; do
  "$NCPBENCH" "${S[@]}" "$T/corrupt$k.h5" --out "$T/c$k" > "$T/out" 2> "$T/err"
  rc=$?
  # damage in raw data may leave a readable file: 0 is fine, 1 (a sanitizer) or a signal is not
  if [ $rc -ne 0 ] && [ $rc -ne 2 ]; then fail "corrupt$k.h5: exit $rc (want 2, or 0 if still readable)"; head -c 2000 "$T/err"; fi
  [ $rc -eq 2 ] && ! grep -q "corrupt$k.h5" "$T/err" && fail "corrupt$k.h5: message does not name the file"
  grep -qE "AddressSanitizer|LeakSanitizer|runtime error" "$T/err" && fail "corrupt$k.h5: sanitizer report"
done

# ---- a full disk while HDF5 files are written ----
mkdir -p "$T/mnt"
TMPFS=0
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=160k tmpfs "$T/mnt" 2> /dev/null; then
  TMPFS=1
  trap 'umount "$T/mnt" 2> /dev/null; rm -rf "$T"' EXIT
else
  echo "note: cannot mount a tmpfs here; the full disk is simulated with ulimit -f (EFBIG)"
fi
# run_full KB command...: the command with at most KB kilobytes of disk for its files
run_full() {
  local kb=$1
  shift
  if [ $TMPFS = 1 ]; then
    rm -rf "$T/mnt"/*
    mount -o remount,size="${kb}k" "$T/mnt" || { fail "tmpfs remount"; return; }
    "$@"
  else
    (trap '' XFSZ; ulimit -f "$kb"; "$@")
  fi
}
for kb in 40 100 160; do
  out="$T/mnt/p.h5"
  run_full $kb "$NCPBENCH" capture scenes/sphere-stack.json --steps 20 -o "$out" > "$T/out" 2> "$T/err"
  rc=$?
  [ $rc -eq 3 ] || { fail "capture with $kb KB of disk: exit $rc (want 3)"; head -c 2000 "$T/err"; }
  grep -q "$out" "$T/err" || fail "capture with $kb KB of disk: message does not name $out"
  [ -e "$out" ] && fail "capture with $kb KB of disk: $out exists (a partial file under the final name)"
  ls "$T/mnt" | grep -q "tmp-" && fail "capture with $kb KB of disk: temporary file left"
done
# solve: the problems are read from elsewhere, the outputs (solutions.h5 ...) do not fit
"$NCPBENCH" capture scenes/sphere-stack.json --steps 20 -o "$T/stack.h5" > /dev/null 2>&1 || fail "capture for solve"
for kb in 40 160; do
  run_full $kb "$NCPBENCH" solve --no-figures --no-progress --solvers pgs,apgd "$T/stack.h5" --out "$T/mnt/run" > "$T/out" 2> "$T/err"
  rc=$?
  [ $rc -eq 3 ] || { fail "solve with $kb KB of disk: exit $rc (want 3)"; head -c 2000 "$T/err"; }
  grep -q "$T/mnt/run" "$T/err" || fail "solve with $kb KB of disk: message does not name a file of $T/mnt/run"
  grep -qE "AddressSanitizer|LeakSanitizer|runtime error" "$T/err" && fail "solve with $kb KB of disk: sanitizer report"
done

# --max-memory too small to read a sound file: the budget's refusal (exit 2 naming the file and
# the budget), never "cannot be read (damaged or truncated file?)" (the deflate filter reports
# zlib's out of memory as a damaged stream; h5util.c hdf5_out_of_memory). No cap under ASan.
if [ $ASAN = 0 ]; then
  for m in 1 2; do
    expect 2 "needs more than the memory budget of $m MiB allows .*raise it with --max-memory" \
      -- "$NCPBENCH" solve --no-figures --no-progress --solvers pgs "$T/stack.h5" --out "$T/mem$m" --max-memory ${m}M
    grep -q "damaged" "$T/err" && fail "a sound file under --max-memory ${m}M read as damaged"
  done
fi

echo "badstore: $fails failure(s)"
[ $fails -eq 0 ]
