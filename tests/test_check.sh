#!/usr/bin/env bash
# `ncpbench check` honours its options (issue 30): on a cut of the shipped baseline (box-on-plane,
# pgs and nsn-nm; 5 quick problems), every option either changes the rerun or is refused:
#   - the plain check passes (0 regressions, exit 0);
#   - --param pgs.omega=0.3 (under-relaxed Gauss-Seidel: more sweeps) fails pgs's iterations
#     band and nothing of nsn-nm's (exit 1), the rerun's config.json records the parameter, and
#     the summary the output ends with names scene, solver, quantity, band and value;
#   - --max-iter 5 leaves pgs unconverged: converged and both residuals regress;
#   - --solvers pgs checks pgs only; --solvers pgs,apgd reports apgd as run without an entry
#     (exit 0; --strict: exit 1);
#   - a plugin solver (tests/plugins/good.c: the built-in pgs behind the ABI) is added with
#     --update, its entry equals pgs's, it is checked with --plugin and with $NCPBENCH_PLUGINS
#     (there under --max-iter 5: it fails),
#     and without the plugin its entry is reported as not available (--strict: exit 1);
#   - --junit writes JUnit XML that parses, one testcase per scene x solver x quantity, the
#     failures carrying band and value as in the summary;
#   - --update with --param, an unknown solver, an option check does not take: exit 2.
. "$(dirname "$0")/shell_prologue.sh"
P=${PLUGINDIR:?}
GOOD=$P/plugin_good.so

"$PY" - results/baselines/quick.json "$T/mini.json" <<'PYEOF' || fail "cannot cut the baseline"
import json, sys
b = json.load(open(sys.argv[1]))
b["entries"] = [e for e in b["entries"] if e["scene"] == "scenes/box-on-plane.json"
                and e["solver"] in ("pgs", "nsn-nm")]
assert len(b["entries"]) == 2, b["entries"]
json.dump(b, open(sys.argv[2], "w"))
PYEOF
# the baseline's scene paths resolve from the working directory (the source tree)
chk() { "$NCPBENCH" check "$@" > "$T/out" 2> "$T/err"; echo $?; }

rc=$(chk "$T/mini.json" --out "$T/c0")
[ "$rc" = 0 ] && grep -q "^0 regressions in 2 scene x solver pairs checked" "$T/out" \
  || { fail "plain check: exit $rc"; cat "$T/out" "$T/err"; }

# --param degrades pgs: its iterations leave the band; nsn-nm is untouched
rc=$(chk "$T/mini.json" --out "$T/c1" --param pgs.omega=0.3 --junit "$T/c1.xml")
[ "$rc" = 1 ] || { fail "--param pgs.omega=0.3: exit $rc (want 1)"; cat "$T/out" "$T/err"; }
"$PY" - "$T/out" "$T/c1/box-on-plane/config.json" "$T/c1.xml" <<'PYEOF' || fail "--param: summary, config.json or JUnit"
import json, re, sys
import xml.etree.ElementTree as ET
out = open(sys.argv[1]).read()
table = [l.split() for l in out.splitlines() if l.startswith("box-on-plane ")]
assert len(table) == 10, table                      # 2 solvers x 5 quantities
bad = [r for r in table if r[-1] == "REGRESSED"]
assert [(r[1], r[2]) for r in bad] == [("pgs", "iterations")], bad
it = next(r for r in table if r[1] == "pgs" and r[2] == "iterations")
base, now = float(it[3]), float(it[4])
assert now > 1.5 * base + 3, it                       # past the band iterations_factor, _slack
# the summary ends the output: one line per regression with band and value
tail = out[out.index("1 regression in 2 scene x solver pairs checked:"):]
rows = [l.split() for l in tail.splitlines()[2:] if l.strip()]
assert rows == [["box-on-plane", "pgs", "iterations", "<=", "%g" % (1.5 * base + 3), "%g" % now,
                 "%g" % base]], rows
cfg = json.load(open(sys.argv[2]))["config"]
assert cfg["params"] == {"pgs": {"omega": 0.3}}, cfg["params"]
assert cfg["solvers"] == ["pgs", "nsn-nm"] and cfg["budget"]["max_iter"] == 2000, cfg
# JUnit: one testsuite (the scene), 10 testcases, one failure with the band and the value
root = ET.parse(sys.argv[3]).getroot()
assert root.tag == "testsuites" and root.get("tests") == "10" and root.get("failures") == "1"
cases = root.findall("./testsuite/testcase")
assert len(cases) == 10
assert {c.get("classname") for c in cases} == {"box-on-plane.pgs", "box-on-plane.nsn-nm"}
assert {c.get("name") for c in cases} == {"problems", "converged", "iterations",
                                          "natural_map_rel_acary", "al_residual"}
fails = [c for c in cases if c.find("failure") is not None]
assert [(c.get("classname"), c.get("name")) for c in fails] == [("box-on-plane.pgs", "iterations")]
msg = fails[0].find("failure").get("message")
assert "<= %g" % (1.5 * base + 3) in msg and "%g" % now in msg, msg
PYEOF
ls "$T"/c1.xml.* 2> /dev/null && fail "--junit left a temporary behind"

# --max-iter 5: pgs stops unconverged
rc=$(chk "$T/mini.json" --out "$T/c2" --max-iter 5)
[ "$rc" = 1 ] || { fail "--max-iter 5: exit $rc (want 1)"; cat "$T/out" "$T/err"; }
grep -q "^3 regressions" "$T/out" && grep -qE "^ +box-on-plane +pgs +converged +>= 5 +[0-4] +5$" "$T/out" \
  || { fail "--max-iter 5: summary"; cat "$T/out"; }
grep -q '"max_iter":5' "$T/c2/box-on-plane/config.json" || fail "--max-iter 5 not in config.json"

# --solvers: pgs only; a solver without an entry is reported, and fails with --strict
rc=$(chk "$T/mini.json" --out "$T/c3" --solvers pgs --param pgs.omega=0.3)
[ "$rc" = 1 ] && ! grep -q "nsn-nm" <(grep '^box-on-plane' "$T/out") \
  && grep -q "1 baseline entry not selected by --solvers" "$T/out" \
  || { fail "--solvers pgs"; cat "$T/out" "$T/err"; }
rc=$(chk "$T/mini.json" --out "$T/c4" --solvers pgs,apgd)
[ "$rc" = 0 ] && grep -q "run without a baseline entry (not compared): box-on-plane/apgd" "$T/out" \
  || { fail "--solvers pgs,apgd: exit $rc"; cat "$T/out" "$T/err"; }
rc=$(chk "$T/mini.json" --out "$T/c4" --solvers pgs,apgd --strict)
[ "$rc" = 1 ] && grep -q -- "--strict" "$T/err" || { fail "--strict: exit $rc (want 1)"; cat "$T/out" "$T/err"; }

# a plugin solver baselined with --update, then checked
cp "$T/mini.json" "$T/pl.json"
rc=$(chk "$T/pl.json" --out "$T/c5" --update --plugin "$GOOD")
[ "$rc" = 0 ] || { fail "--update --plugin: exit $rc"; cat "$T/out" "$T/err"; }
"$PY" - "$T/pl.json" <<'PYEOF' || fail "--update --plugin: the plugin's entry"
import json, sys
e = {x["solver"]: x for x in json.load(open(sys.argv[1]))["entries"]}
assert set(e) == {"pgs", "nsn-nm", "plugin-pgs"}, set(e)
# the plugin calls the built-in pgs's solve: the same numbers
for k in ("problems", "converged", "iterations", "natural_map_rel_acary", "al_residual"):
    assert e["plugin-pgs"][k] == e["pgs"][k], (k, e["plugin-pgs"][k], e["pgs"][k])
assert e["plugin-pgs"]["scene"] == "scenes/box-on-plane.json"
PYEOF
rc=$(chk "$T/pl.json" --out "$T/c6" --plugin "$GOOD")
[ "$rc" = 0 ] && grep -q "^box-on-plane .*plugin-pgs .*iterations .* ok$" "$T/out" \
  && grep -q "^0 regressions in 3 scene x solver pairs checked" "$T/out" \
  || { fail "check --plugin: exit $rc"; cat "$T/out" "$T/err"; }
rc=$(NCPBENCH_PLUGINS=$GOOD chk "$T/pl.json" --out "$T/c7" --solvers plugin-pgs --max-iter 5)
[ "$rc" = 1 ] && grep -qE "^ +box-on-plane +plugin-pgs +converged" "$T/out" \
  || { fail "\$NCPBENCH_PLUGINS, --solvers plugin-pgs --max-iter 5: exit $rc (want 1)"; cat "$T/out" "$T/err"; }
rc=$(chk "$T/pl.json" --out "$T/c8")
[ "$rc" = 0 ] && grep -q "1 baseline entry whose solver is not available.*box-on-plane/plugin-pgs" "$T/out" \
  || { fail "check without the plugin: exit $rc"; cat "$T/out" "$T/err"; }
rc=$(chk "$T/pl.json" --out "$T/c8" --strict --junit "$T/c8.xml")
[ "$rc" = 1 ] || { fail "check without the plugin, --strict: exit $rc (want 1)"; cat "$T/out" "$T/err"; }
"$PY" -c "
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
f = [c for c in r.iter('testcase') if c.find('failure') is not None]
assert [(c.get('classname'), c.get('name')) for c in f] == [('box-on-plane.plugin-pgs', 'baseline entry')], f
assert r.get('failures') == '1' and r.get('tests') == '11', r.attrib
" "$T/c8.xml" || fail "--strict JUnit: the unavailable entry is the one failure"

# refused: never accepted and ignored
for args in "--update --param pgs.omega=0.3" "--update --max-iter 5" "--solvers pgz" \
            "--param pgs.bogus=1" "--tol 1e-3" "--budget-ms 5" "--seed 2" "--quick"; do
  # shellcheck disable=SC2086
  rc=$(chk "$T/mini.json" --out "$T/c9" $args)
  [ "$rc" = 2 ] || { fail "check $args: exit $rc (want 2)"; cat "$T/err"; }
done
cmp -s "$T/mini.json" <("$PY" -c "
import json, sys
b = json.load(open('results/baselines/quick.json'))
b['entries'] = [e for e in b['entries'] if e['scene'] == 'scenes/box-on-plane.json' and e['solver'] in ('pgs', 'nsn-nm')]
json.dump(b, sys.stdout)") || fail "a refused --update changed the baseline"

echo "check: $fails failure(s)"
[ "$fails" -eq 0 ]
