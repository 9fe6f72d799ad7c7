#!/usr/bin/env bash
# Solver variants (docs/running.md "Choosing solvers", solve/catalog.h): --solvers pgs,pgs@omega=1.3 runs
# each as its own row; a variant's rows equal a plain run of its base solver with the same
# --param (the iterates differ from the default's as omega says); its parameters win over
# --param's for its row only; a rerun of the folder resumes them; a scene's benchmark.solvers
# and a baseline name variants; the refused forms exit 2 with the message a user needs.
. "$(dirname "$0")/shell_prologue.sh"
"$PY" -c "import h5py" 2> /dev/null || { echo "skip: python3 h5py"; exit 77; }
RUN=("$NCPBENCH" run scenes/box-on-plane.json --quick --no-progress --no-figures)

# metrics.csv rows of one solver (problem -> every column but the times and the solver's name)
rows() {
  "$PY" - "$@" <<'EOF'
import csv, json, sys
d, solver, out = sys.argv[1], sys.argv[2], sys.argv[3]
skip = {"solver", "setup_ms", "solve_ms", "wall_ms", "ms_per_iter", "time_min_ms", "time_max_ms"}
r = {x["problem"]: {k: v for k, v in x.items() if k not in skip}
     for x in csv.DictReader(open(d + "/metrics.csv")) if x["solver"] == solver}
json.dump(r, open(out, "w"), sort_keys=True)
print(len(r))
EOF
}

"${RUN[@]}" --solvers pgs,pgs@omega=1.3,pgs@omega=0.5 --out "$T/v" > "$T/v.log" 2>&1 \
  || { cat "$T/v.log"; fail "run with variants"; }
"${RUN[@]}" --solvers pgs --param pgs.omega=1.3 --out "$T/p13" > /dev/null 2>&1 || fail "run --param 1.3"
"${RUN[@]}" --solvers pgs --param pgs.omega=0.5 --out "$T/p05" > /dev/null 2>&1 || fail "run --param 0.5"
n=$(rows "$T/v" pgs "$T/a.json"); rows "$T/v" pgs@omega=1.3 "$T/b.json" > /dev/null
rows "$T/v" pgs@omega=0.5 "$T/c.json" > /dev/null
rows "$T/p13" pgs "$T/b_ref.json" > /dev/null; rows "$T/p05" pgs "$T/c_ref.json" > /dev/null
[ "$n" -gt 0 ] || fail "no pgs rows"
cmp -s "$T/b.json" "$T/b_ref.json" || fail "pgs@omega=1.3 rows != a run with --param pgs.omega=1.3"
cmp -s "$T/c.json" "$T/c_ref.json" || fail "pgs@omega=0.5 rows != a run with --param pgs.omega=0.5"
# omega changes the iterates: under-relaxation takes more iterations than Gauss-Seidel
"$PY" - "$T/a.json" "$T/c.json" <<'EOF' || fail "omega = 0.5 does not take more iterations than 1"
import json, sys
a, c = (json.load(open(f)) for f in sys.argv[1:])
ia = sum(int(r["iterations"]) for r in a.values()); ic = sum(int(r["iterations"]) for r in c.values())
print(f"iterations: omega 1 {ia}, omega 0.5 {ic}")
sys.exit(0 if ic > ia else 1)
EOF
# the variants in summary.json, solutions.h5 and the tables, in the base solver's family
"$PY" - "$T/v" <<'EOF' || fail "variants missing from the outputs"
import json, sys, h5py
d = sys.argv[1]
want = ["pgs", "pgs@omega=1.3", "pgs@omega=0.5"]
s = json.load(open(d + "/summary.json"))
assert [x["solver"] for x in s["solvers"]] == want, s["solvers"]
S = h5py.File(d + "/solutions.h5", "r")["solutions"]
assert all(w in S for w in want), list(S)
md = open(d + "/results.md").read() if __import__("os").path.exists(d + "/results.md") else open(d + "/index.md").read()
assert all(w in md for w in want)
EOF

# --param under a variant: the variant's own value wins for its row, --param's for the plain row
"${RUN[@]}" --solvers pgs,pgs@omega=1.3 --param pgs.omega=0.5 --out "$T/mix" > /dev/null 2>&1 \
  || fail "run variants with --param"
rows "$T/mix" pgs "$T/ma.json" > /dev/null; rows "$T/mix" pgs@omega=1.3 "$T/mb.json" > /dev/null
cmp -s "$T/ma.json" "$T/c_ref.json" || fail "--param pgs.omega=0.5 not applied to the pgs row"
cmp -s "$T/mb.json" "$T/b_ref.json" || fail "the variant's omega did not win over --param's"

# resume: the same command on the same folder keeps every row
"${RUN[@]}" --solvers pgs,pgs@omega=1.3,pgs@omega=0.5 --out "$T/v" > "$T/v2.log" 2>&1 \
  || { cat "$T/v2.log"; fail "rerun with variants"; }
grep -q "rows kept" "$T/v2.log" || { cat "$T/v2.log"; fail "rerun did not resume"; }
rows "$T/v" pgs@omega=1.3 "$T/b2.json" > /dev/null
cmp -s "$T/b.json" "$T/b2.json" || fail "resumed variant rows changed"

# a scene's benchmark.solvers names variants too
"$PY" - scenes/box-on-plane.json "$T/scene.json" '["pgs", "pgs@omega=1.3"]' <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); d["benchmark"]["solvers"] = json.loads(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
EOF
"$NCPBENCH" run "$T/scene.json" --quick --no-progress --no-figures --out "$T/sc" > /dev/null 2>&1 \
  || fail "scene with a variant"
rows "$T/sc" pgs@omega=1.3 "$T/sb.json" > /dev/null
cmp -s "$T/sb.json" "$T/b_ref.json" || fail "the scene's variant rows != --param pgs.omega=1.3"

# a baseline's variant: --update records it, check reruns and passes it
"$PY" - results/baselines/quick.json "$T/base.json" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))
b["entries"] = [e for e in b["entries"] if e["scene"].endswith("box-on-plane.json") and e["solver"] == "pgs"]
json.dump(b, open(sys.argv[2], "w"))
EOF
"$NCPBENCH" check "$T/base.json" --solvers pgs,pgs@omega=1.3 --update --out "$T/chk" > "$T/upd.log" 2>&1 \
  || { cat "$T/upd.log"; fail "check --update with a variant"; }
grep -q '"pgs@omega=1.3"' "$T/base.json" || fail "--update did not baseline the variant"
"$NCPBENCH" check "$T/base.json" --strict --out "$T/chk2" > "$T/chk.log" 2>&1 \
  || { cat "$T/chk.log"; fail "check of a baseline with a variant"; }

# refused: the same solver twice, an unknown parameter or solver, a bad or out-of-range value
refused() { # expected-message-part args...
  local want=$1; shift
  "$NCPBENCH" "$@" > "$T/r.log" 2>&1; local rc=$?
  [ $rc -eq 2 ] || { cat "$T/r.log"; fail "$*: exit $rc, want 2"; return; }
  grep -qF -- "$want" "$T/r.log" || { cat "$T/r.log"; fail "$*: no '$want' in the message"; }
}
B=(run scenes/box-on-plane.json --quick --no-progress --no-figures --out "$T/bad")
refused "listed twice" "${B[@]}" --solvers pgs,pgs
refused "listed twice" "${B[@]}" --solvers pgs@omega=1.3,pgs@omega=1.3
refused "listed twice" "${B[@]}" --solvers pgs@omega=1.3,pgs@omega=1.30
refused "did you mean omega" "${B[@]}" --solvers pgs@omgea=1.3
refused "did you mean pgs" "${B[@]}" --solvers pgz@omega=1.3
refused "not a finite number" "${B[@]}" --solvers pgs@omega=fast
refused "expected NAME=VALUE" "${B[@]}" --solvers pgs@omega
refused "omega" "${B[@]}" --solvers pgs@omega=2.5
"$PY" - scenes/box-on-plane.json "$T/dup.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); d["benchmark"]["solvers"] = ["pgs@omega=1.3", "pgs@omega=13e-1"]
json.dump(d, open(sys.argv[2], "w"))
EOF
refused "benchmark.solvers[1]" run "$T/dup.json" --quick --no-progress --out "$T/bad2"

[ $fails -eq 0 ] && echo "variants: all checks passed"
exit $((fails > 0))
