#!/usr/bin/env bash
# `ncpbench solve` on a collection (docs/design.md §5.7): unsupported rows with their reasons,
# the explicit reconstructions (--reconstruct-primal, --primal dense, --symmetrize) changing
# exactly the rows they concern and recording it, warm starts from the file's guess, resuming an
# interrupted or shortened run, refusing another configuration, --fresh, and the profile table
# recomputed independently with numpy from metrics.csv. The collection is a quick capture, its
# FCLib export, and files derived from the export with h5py (a dual-only file, a non-symmetric
# W, a file with a warm start, an HDF5 file that holds no problem).
. "$(dirname "$0")/shell_prologue.sh"

# ---- the collection ----
"$NCPBENCH" capture scenes/box-on-plane.json -o "$T/cap.h5" --quick > /dev/null || fail "capture"
"$NCPBENCH" export --fclib "$T/coll/global" "$T/cap.h5" > /dev/null || fail "export"
mkdir -p "$T/coll/ours" "$T/coll/local" "$T/coll/nonsym" "$T/coll/other" "$T/guess"
cp "$T/cap.h5" "$T/coll/ours/cap.h5"
# the answer nsn-nm gives on one problem, as that file's warm start
"$NCPBENCH" solve "$T/coll/global/cap-000002.hdf5" --solvers nsn-nm --tol 1e-14 --out "$T/ref" \
  --no-progress --no-figures > /dev/null || fail "solve for the guess"
cp "$T/ref/solutions.h5" "$T/coll/other/solutions.h5" # HDF5, but no problem in it
"$PY" - "$T" <<'PYEOF' || fail "deriving the test files"
import shutil, sys, h5py, numpy as np
T = sys.argv[1]
shutil.copy(f"{T}/coll/global/cap-000000.hdf5", f"{T}/coll/local/dual-only.hdf5")
with h5py.File(f"{T}/coll/local/dual-only.hdf5", "a") as f:
    del f["fclib_global"]
shutil.copy(f"{T}/coll/global/cap-000001.hdf5", f"{T}/coll/nonsym/nonsym.hdf5")
with h5py.File(f"{T}/coll/nonsym/nonsym.hdf5", "a") as f:
    del f["fclib_global"]
    W = f["fclib_local/W"]
    p, i, x = W["p"][()], W["i"][()], W["x"][()].copy()
    k = next(k for j in range(len(p) - 1) for k in range(p[j], p[j + 1]) if i[k] != j)
    x[k] += 0.01 * max(abs(x[k]), 1e-3)  # W(i, j) != W(j, i) now
    W["x"][...] = x
shutil.copy(f"{T}/coll/global/cap-000002.hdf5", f"{T}/guess/guessed.hdf5")
shutil.copy(f"{T}/coll/global/cap-000002.hdf5", f"{T}/guess/plain.hdf5")
r = h5py.File(f"{T}/ref/solutions.h5", "r")["solutions/nsn-nm/cap-000002/r"][()]
with h5py.File(f"{T}/guess/plain.hdf5", "a") as f:
    del f["guesses"]  # the export's guess (the captured state): this one has none
with h5py.File(f"{T}/guess/guessed.hdf5", "a") as f:
    del f["guesses"]
    f["guesses/number_of_guesses"] = np.array([1], dtype=np.int32)
    f["guesses/1/r"] = r
PYEOF

SOLVERS=pgs,nsn-nm,al-trdogleg,apgd,subadmm
run_solve() { "$NCPBENCH" solve "$@" --no-progress --no-figures; }

# ---- (a) unsupported rows, with reasons, everywhere ----
run_solve "$T/coll" --solvers $SOLVERS --tol 1e-8 --max-iter 200 --out "$T/A" > "$T/A.log" 2>&1 \
  || { cat "$T/A.log"; fail "solve A"; }
grep -q "skipped, not problem files: .*\.h5" "$T/A.log" || fail "the HDF5 file without problems was not named as skipped"
grep -q "al-trdogleg .*unsupported on" "$T/A.log" || fail "printed summary lacks the unsupported rows"
# ---- (b) the same with every reconstruction allowed ----
run_solve "$T/coll" --solvers $SOLVERS --tol 1e-8 --max-iter 200 --out "$T/B" \
  --reconstruct-primal --primal dense --symmetrize > "$T/B.log" 2>&1 || { cat "$T/B.log"; fail "solve B"; }
"$PY" - "$T" <<'PYEOF' || fail "unsupported rows / reconstructions"
import csv, json, math, sys, h5py, numpy as np
T = sys.argv[1]
bad = []
def rows(d):
    return {(r["problem"], r["solver"]): r for r in csv.DictReader(open(f"{T}/{d}/metrics.csv"))}
A, B = rows("A"), rows("B")
def kind(problem):
    return problem.split(".")[1] if problem.startswith("coll.") else "?"
probs = sorted({p for p, _ in A})
kinds = {kind(p) for p in probs}
if kinds != {"global", "local", "nonsym", "ours"} or len(probs) != 12 or len(A) != 60:
    bad.append(f"collection read wrong: {len(probs)} problems, kinds {kinds}, {len(A)} rows")
# what A must say: (kind, solver) -> start of the note of an unsupported row
want = {("global", "al-trdogleg"): "needs a dense A:", ("local", "al-trdogleg"): "needs primal data (A, b, J, e):",
        ("nonsym", "al-trdogleg"): "needs primal data (A, b, J, e):", ("nonsym", "apgd"): "needs a symmetric D:"}
for k in ("global", "local", "nonsym"):
    want[(k, "subadmm")] = "needs the subsystem structure:"
S = h5py.File(f"{T}/A/solutions.h5", "r")["solutions"]
for (p, s), r in A.items():
    w = want.get((kind(p), s))
    if w:
        if r["status"] != "unsupported" or not r["note"].startswith(w) or r["iterations"] != "0" \
           or r["converged"] != "0" or r["natural_map_abs"] != "nan" or p in S.get(s, {}):
            bad.append(f"A {p} {s}: {r['status']} '{r['note']}'")
    else:
        # --warm-start velocity (the default): every solve of our captured problems (dense
        # primal form) by a solver that starts from a velocity (takes_v0: al-trdogleg, subadmm here)
        # is handed the captured velocity as v0, and says so; the others say nothing of it (a
        # solver's route choice, ncp_run_note, may stand beside it in the note)
        wn = "warm start: v0 = the previous velocity"
        says = wn in (r["note"].split("; ") if r["note"] else [])
        if r["status"] == "unsupported" or \
           says != (kind(p) == "ours" and s in ("al-trdogleg", "subadmm")):
            bad.append(f"A {p} {s}: unexpected {r['status']} '{r['note']}'")
if "max |D - D^T| = " not in A[("coll.nonsym.nonsym", "apgd")]["note"]:
    bad.append("the symmetry reason does not give |D - D^T|")
sa = {x["solver"]: x for x in json.load(open(f"{T}/A/summary.json"))["solvers"]}
exp = {"al-trdogleg": {"needs a dense A": 5, "needs primal data (A, b, J, e)": 2},
       "apgd": {"needs a symmetric D": 1}, "subadmm": {"needs the subsystem structure": 7},
       "pgs": {}, "nsn-nm": {}}
for s, e in exp.items():
    if sa[s]["unsupported_reasons"] != e or sa[s]["unsupported"] != sum(e.values()) \
       or sa[s]["problems"] != 12 - sum(e.values()):
        bad.append(f"A summary {s}: {sa[s]['unsupported']} {sa[s]['unsupported_reasons']}")
# B changes exactly the rows a reconstruction makes solvable, and says so
changed = {("global", "al-trdogleg"): "A densified", ("local", "al-trdogleg"): "primal reconstructed from D",
           ("nonsym", "al-trdogleg"): "D symmetrised", ("nonsym", "apgd"): "D symmetrised"}
for key, a in A.items():
    b = B[key]
    c = changed.get((kind(key[0]), key[1]))
    if c:
        if b["status"] == "unsupported" or c not in b["note"]:
            bad.append(f"B {key}: {b['status']} '{b['note']}'")
    else:
        for col in ("status", "iterations", "converged", "natural_map_abs", "note"):
            if a[col] != b[col]:
                bad.append(f"B {key}: {col} {a[col]} -> {b[col]}")
if "primal reconstructed from D" not in B[("coll.nonsym.nonsym", "al-trdogleg")]["note"]:
    bad.append("B nonsym al-trdogleg: the reconstruction from the symmetrised D is not recorded")
sb = {x["solver"]: x for x in json.load(open(f"{T}/B/summary.json"))["solvers"]}
if sb["al-trdogleg"]["reconstructed"] != {"primal reconstructed from D": 2, "A densified": 5, "D symmetrised": 1} \
   or sb["apgd"]["reconstructed"] != {"D symmetrised": 1} or sb["subadmm"]["unsupported"] != 7:
    bad.append(f"B summary: {sb['al-trdogleg']['reconstructed']} {sb['apgd']['reconstructed']}")
opts = json.load(open(f"{T}/B/summary.json"))["options"]
if opts != {"reconstruct_primal": True, "primal": "dense", "symmetrize": True, "warm_start": "velocity"}:
    bad.append(f"B options {opts}")
# graded against the file's W as given (not the symmetrised one): numpy natural map
def proj(mu, x):
    s = np.linalg.norm(x[1:])
    if s <= mu * x[0]: return x.copy()
    if mu * s <= -x[0]: return np.zeros(3)
    a = (x[0] + mu * s) / (1 + mu * mu)
    return np.concatenate(([a], mu * a * x[1:] / s))
with h5py.File(f"{T}/coll/nonsym/nonsym.hdf5", "r") as f:
    g = f["fclib_local"]
    n = int(g["W/n"][0]); p, i, x = g["W/p"][()], g["W/i"][()], g["W/x"][()]
    W = np.zeros((n, n))
    for j in range(n):
        for k in range(p[j], p[j + 1]): W[i[k], j] += x[k]
    q, mu = g["vectors/q"][()], g["vectors/mu"][()]
if np.abs(W - W.T).max() == 0: bad.append("the test W is symmetric")
SB = h5py.File(f"{T}/B/solutions.h5", "r")["solutions"]
for s in ("apgd", "al-trdogleg"):
    lam = SB[s]["coll.nonsym.nonsym"]["r"][()]
    u = W @ lam + q
    if not np.allclose(SB[s]["coll.nonsym.nonsym"]["u"][()], u, rtol=1e-12, atol=1e-12):
        bad.append(f"B nonsym {s}: u is not W lambda + q with W as given")
    F = np.zeros(n)
    for c in range(n // 3):
        uu = u[3*c:3*c+3]; w = uu + np.array([mu[c] * np.linalg.norm(uu[1:]), 0, 0])
        F[3*c:3*c+3] = lam[3*c:3*c+3] - proj(mu[c], lam[3*c:3*c+3] - w)
    got = float(B[("coll.nonsym.nonsym", s)]["natural_map_abs"])
    if abs(got - np.linalg.norm(F)) > 1e-9 * max(1, np.linalg.norm(F)) + 1e-13:
        bad.append(f"B nonsym {s}: natural_map_abs {got} != {np.linalg.norm(F)} (W as given)")
# titles and descriptions: quoted CSV fields equal the files' info strings
with h5py.File(f"{T}/coll/global/cap-000003.hdf5", "r") as f:
    t, d = (f["fclib_local/info/" + k][()].decode() for k in ("title", "description"))
r = A[("coll.global.cap-000003", "pgs")]
if r["problem_title"] != t or r["problem_description"] != d or "," not in d:
    bad.append(f"title/description columns: '{r['problem_title']}' '{r['problem_description']}'")
pt = {x["problem"]: x for x in json.load(open(f"{T}/A/summary.json")).get("problem_titles", [])}
if pt.get("coll.global.cap-000003", {}).get("description") != d or "coll.ours.cap-000000" in pt:
    bad.append("summary.json problem_titles")
for b in bad: print(b)
sys.exit(1 if bad else 0)
PYEOF

# ---- (c) warm start from the file's guess ----
for ws in zero guess; do
  run_solve "$T/guess/guessed.hdf5" --solvers nsn-nm --out "$T/W$ws" --warm-start $ws > /dev/null \
    || fail "solve --warm-start $ws"
done
run_solve "$T/guess/plain.hdf5" --solvers nsn-nm --out "$T/Wnone" --warm-start guess > /dev/null \
  || fail "solve --warm-start guess without a guess"
"$PY" - "$T" <<'PYEOF' || fail "warm start"
import csv, sys
T = sys.argv[1]
z, g, n = (next(csv.DictReader(open(f"{T}/{d}/metrics.csv"))) for d in ("Wzero", "Wguess", "Wnone"))
ok = g["problem"] == "guessed" and g["converged"] == "1" and int(g["iterations"]) < int(z["iterations"])
# the note's parts ("; "): the warm start's, beside the operator route nsn-nm chose (ncp_run_note)
ws = lambda r: [x for x in r["note"].split("; ") if x.startswith("warm start")]
ok &= ws(g) == ["warm start: the file's guess"] and ws(z) == []
ok &= ws(n) == ["warm start: zero (the file has no guess)"] and n["iterations"] == z["iterations"]
if not ok: print("zero", z["iterations"], z["note"], "| guess", g["iterations"], g["note"], "| none", n["note"])
sys.exit(0 if ok else 1)
PYEOF

# ---- (d) resume ----
R="$T/R"
run_solve "$T/coll" --solvers pgs,nsn-nm --out "$R" > /dev/null || fail "solve R"
cp "$R/metrics.csv" "$T/R.full.csv"
# the journal is the record of the results (bench/resume.h): drop every fifth result from it
# (rows 2, 7, ... of metrics.csv), as if those pairs had never finished
"$PY" - "$R" <<'PYEOF' || fail "deleting records"
import struct, sys, zlib
p = sys.argv[1] + "/journal.ncpj"
d = open(p, "rb").read()
at, recs = 8, []
while at + 8 <= len(d):
    n, crc = struct.unpack_from("<II", d, at)
    assert zlib.crc32(d[at + 8:at + 8 + n]) == crc
    recs.append(d[at:at + 8 + n])
    at += 8 + n
# recs[0] is the configuration; recs[i] the result of metrics.csv row i
open(p, "wb").write(d[:8] + b"".join(r for i, r in enumerate(recs) if i == 0 or i % 5 != 2))
open(sys.argv[1] + "/kept", "w").write(str(sum(1 for i in range(1, len(recs)) if i % 5 != 2)))
PYEOF
kept=$(cat "$R/kept"); rm "$R/kept"; full=$(($(wc -l < "$T/R.full.csv") - 1))
run_solve "$T/coll" --solvers pgs,nsn-nm --out "$R" > "$T/R2.log" || fail "resume R"
grep -q "resumed $R: $kept rows kept" "$T/R2.log" || { cat "$T/R2.log"; fail "resume did not keep the $kept remaining rows"; }
"$PY" - "$T/R.full.csv" "$R" <<'PYEOF' || fail "resumed outputs"
import csv, sys, h5py
full, d = sys.argv[1], sys.argv[2]
old = open(full).read().splitlines()
new = open(f"{d}/metrics.csv").read().splitlines()
bad = []
if old[0] != new[0] or len(new) != len(old): bad.append(f"{len(new)} lines, want {len(old)}")
# kept rows are copied byte for byte (their times too); the deleted ones were solved again
same = sum(a == b for a, b in zip(old[1:], new[1:]))
redone = [i for i in range(1, len(old)) if i % 5 == 2]
if same < len(old) - 1 - len(redone): bad.append(f"only {same} rows identical")
key = lambda l: tuple(next(csv.reader([l]))[:2])
if [key(l) for l in old[1:]] != [key(l) for l in new[1:]]: bad.append("rows not in the run's order")
# every pair once in traces.h5, each trace ending at the iteration count of its metrics.csv
# row (kept rows: the earlier run's trace copied; redone rows: the new one), and in solutions.h5
H = h5py.File(f"{d}/traces.h5", "r")["traces"]
its = {key(l): int(next(csv.reader([l]))[2]) for l in new[1:]}
pairs = [(p, s) for s in H for p in H[s]]
if sorted(pairs) != sorted(its) or len(pairs) != len(old) - 1: bad.append(f"traces: {len(pairs)} traces")
for p, s in pairs:
    ds = H[s][p]
    if int(ds[-1, 0]) != its.get((p, s)) or int(ds.attrs["iterations"]) != its.get((p, s)):
        bad.append(f"trace {s}/{p}: last iteration {ds[-1, 0]}, metrics.csv {its.get((p, s))}")
S = h5py.File(f"{d}/solutions.h5", "r")["solutions"]
if sum(len(S[s]) for s in S) != len(old) - 1: bad.append("solutions.h5 count")
for b in bad: print(b)
sys.exit(1 if bad else 0)
PYEOF
ls "$R" | grep -qE "prev|tmp-" && fail "resume left files aside: $(ls "$R")"
# another configuration (a solver the folder does not hold) is refused and leaves the results
# alone; --fresh starts over (a subset of the solvers is reused: test_grade_into.sh)
cp "$R/metrics.csv" "$T/R.before.csv"
run_solve "$T/coll" --solvers pgs,jacobi --out "$R" > /dev/null 2> "$T/R3.err"; rc=$?
[ $rc -eq 2 ] || fail "another configuration: exit $rc, want 2"
grep -q "another configuration (differs in: solvers ('jacobi' is not one of the run's)" "$T/R3.err" || { cat "$T/R3.err"; fail "refusal message"; }
cmp -s "$R/metrics.csv" "$T/R.before.csv" || fail "the refused run changed metrics.csv"
run_solve "$T/coll" --solvers pgs,nsn-nm --max-iter 999 --out "$R" > /dev/null 2> "$T/R4.err"
grep -q "differs in: budget" "$T/R4.err" || fail "a budget change is not refused"
run_solve "$T/coll" --solvers pgs --out "$R" --fresh > "$T/R5.log" || fail "--fresh"
grep -q resumed "$T/R5.log" && fail "--fresh resumed"
[ "$(($(wc -l < "$R/metrics.csv") - 1))" -eq 12 ] || fail "--fresh: $(wc -l < "$R/metrics.csv") lines"

# an interrupted run resumes with only the missing pairs: pgs does not converge on the sphere
# stack and, without its stall test, runs its whole iteration budget on every problem, so the
# run lasts long enough to be interrupted after its first rows
"$NCPBENCH" capture scenes/sphere-stack.json -o "$T/ss.h5" --quick > /dev/null || fail "capture ss"
I="$T/I"
islow=(--solvers pgs,nsn-nm --tol 0 --max-iter 3000000 --param pgs.stall_tol=0 --no-traces --out "$I")
"$NCPBENCH" solve "$T/ss.h5" "${islow[@]}" --no-progress --no-figures > "$T/I1.log" 2>&1 &
pid=$!
# the journal has the results as they finish (metrics.csv is written at the end)
for i in $(seq 1 1200); do
  [ "$("$PY" "$(dirname "$0")/check_same_results.py" --journal "$I" 2> /dev/null || echo 0)" -ge 2 ] && break
  sleep 0.05
done
kill -INT "$pid"
wait "$pid"; rc=$?
[ $rc -eq 130 ] || fail "interrupted solve exit $rc, want 130"
finished=$(awk -F, 'NR > 1 && $5 != "stopped"' "$I/metrics.csv" | wc -l)
[ "$finished" -ge 2 ] && [ "$finished" -lt 10 ] || fail "interrupted run finished $finished rows"
"$NCPBENCH" solve "$T/ss.h5" "${islow[@]}" --no-progress --no-figures > "$T/I2.log" 2>&1 \
  || { cat "$T/I2.log"; fail "resume after the interrupt"; }
grep -q "resumed $I: $finished rows kept" "$T/I2.log" || { cat "$T/I2.log"; fail "resume after the interrupt kept not the $finished finished rows"; }
[ "$(awk -F, 'NR > 1' "$I/metrics.csv" | wc -l)" -eq 10 ] || fail "resumed run: not 10 rows"
grep -q ",stopped," "$I/metrics.csv" && fail "a stopped row survived the resume"

# ---- (e) the profile table, recomputed from metrics.csv ----
"$PY" - "$T/A" <<'PYEOF' || fail "profile table"
import csv, json, math, re, sys
import numpy as np
d = sys.argv[1]
t, solvers = {}, []
for r in csv.DictReader(open(f"{d}/metrics.csv")):
    if r["solver"] not in solvers: solvers.append(r["solver"])
    x = float(r["setup_ms"]) + float(r["solve_ms"]) if r["converged"] == "1" else math.inf
    t.setdefault(r["problem"], {})[r["solver"]] = max(x, 1e-6)
P = sorted(t)
T = np.array([[t[p][s] for s in solvers] for p in P])
best = T.min(axis=1, keepdims=True)
with np.errstate(invalid="ignore"):
    R = np.where(np.isfinite(T) & np.isfinite(best), T / best, np.inf)
want = {}
for j, s in enumerate(solvers):
    solved = T[np.isfinite(T[:, j]), j]
    want[s] = (np.isfinite(T[:, j]).mean(), float(np.median(solved)) if len(solved) else None,
               (R[:, j] <= 1).mean(), (R[:, j] <= 10).mean())
summ = json.load(open(f"{d}/summary.json"))
prof = summ["performance_profile"]
# the time breakdown stays beside it (issue 12: where the time went, also for solve)
tp = summ["profile"]
ok = all(isinstance(tp.get(k), (int, float)) and tp[k] >= 0 for k in ("load_ms", "solver_ms", "monitor_ms", "write_ms"))
ok &= prof["problems"] == len(P) and [x["solver"] for x in prof["solvers"]] == solvers
for x in prof["solvers"]:
    w = want[x["solver"]]
    ok &= abs(x["solved"] - w[0]) < 1e-12 and abs(x["rho_1"] - w[2]) < 1e-12 and abs(x["rho_10"] - w[3]) < 1e-12
    ok &= (w[1] is None and x["median_time_ms"] is None) or (w[1] is not None and abs(x["median_time_ms"] - w[1]) <= 1e-9 * w[1])
md = open(f"{d}/profile.md").read()
for s in solvers:
    m = re.search(r"^\| %s \| ([\d.]+) \| ([-\d.e+]+) \| ([\d.]+) \| ([\d.]+) \|$" % re.escape(s), md, re.M)
    w = want[s]
    ok &= bool(m) and abs(float(m[1]) - w[0]) < 1e-4 and abs(float(m[3]) - w[2]) < 1e-4 and abs(float(m[4]) - w[3]) < 1e-4
    ok &= bool(m) and ((w[1] is None and m[2] == "-") or (w[1] is not None and abs(float(m[2]) - w[1]) <= 1e-5 * w[1]))
if not ok: print(prof, want)
sys.exit(0 if ok else 1)
PYEOF
[ -s "$T/A/perf_profiles.dat" ] || fail "no perf_profiles.dat"

# ---- (e2) a journal whose last record is torn (a run killed while writing it) ----
# the torn record is ignored with a warning, its pair solved again; every other result is kept
run_solve "$T/ss.h5" --solvers pgs,nsn-nm --out "$T/C1" > /dev/null || fail "solve C1"
cp -r "$T/C1" "$T/C2"
truncate -s -20 "$T/C2/journal.ncpj"
run_solve "$T/ss.h5" --solvers pgs,nsn-nm --out "$T/C2" > "$T/C2.log" 2> "$T/C2.err" || { cat "$T/C2.log" "$T/C2.err"; fail "resume C2 with a torn journal"; }
grep -q "resumed $T/C2: 9 rows kept" "$T/C2.log" || { cat "$T/C2.log"; fail "C2: not 9 rows kept"; }
grep -q "not a complete record" "$T/C2.err" || { cat "$T/C2.err"; fail "C2: the torn record is not reported"; }
"$PY" "$(dirname "$0")/check_same_results.py" "$T/C1" "$T/C2" || fail "C2: results differ from C1's"
# a folder of an ncpbench before the journal (metrics.csv, no journal) is refused, not resumed
rm "$T/C2/journal.ncpj"
run_solve "$T/ss.h5" --solvers pgs,nsn-nm --out "$T/C2" > /dev/null 2> "$T/C3.err"; rc=$?
[ $rc -eq 2 ] && grep -q "without a journal" "$T/C3.err" || { cat "$T/C3.err"; fail "old-format folder: exit $rc"; }

# ---- (f) bad input: exit 2 naming what to fix, nothing left behind ----
mkdir -p "$T/empty/sub"
cp "$T/ref/solutions.h5" "$T/empty/sub/x.h5"
"$NCPBENCH" solve "$T/empty" --out "$T/o1" > /dev/null 2> "$T/e1"; rc=$?
[ $rc -eq 2 ] && grep -q "empty: no problem file" "$T/e1" || { cat "$T/e1"; fail "directory without problems: exit $rc"; }
"$NCPBENCH" solve "$T/coll" --warm-start hot --out "$T/o2" > /dev/null 2> "$T/e2"; rc=$?
[ $rc -eq 2 ] && grep -q "warm-start: expected zero, velocity or guess" "$T/e2" || fail "--warm-start hot: exit $rc"
"$NCPBENCH" solve "$T/coll" --primal full --out "$T/o3" > /dev/null 2> "$T/e3"; rc=$?
[ $rc -eq 2 ] && grep -q "primal: expected dense or sparse" "$T/e3" || fail "--primal full: exit $rc"
for d in o1 o2 o3; do [ -e "$T/$d" ] && fail "output $d left behind after bad input"; done

echo "corpus: $fails failure(s)"
[ $fails -eq 0 ]
