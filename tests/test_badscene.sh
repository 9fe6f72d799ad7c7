#!/usr/bin/env bash
# Scene values outside their documented physical ranges (scene/ranges.h, scenes/README.md
# "Ranges"), a directory given as the scene, and scenes whose predicted memory is above the
# budget (scene.h ncp_scene_memory), and scenes the budget cannot read or build: each is exit 2
# with the file and the JSON path (or the prediction, or what the budget could not hold) in the
# message, and nothing written.
. "$(dirname "$0")/shell_prologue.sh"

expect2() {
  local pat=$1; shift
  "$@" > "$T/out" 2> "$T/err"; local rc=$?
  [ $rc -eq 2 ] || { fail "exit $rc (want 2): $*"; cat "$T/err"; return; }
  grep -qE -- "$pat" "$T/err" || { fail "message lacks /$pat/: $*"; cat "$T/err"; }
}

# 1. one field of each kind, set out of range in a copy of a shipped scene (robot model files
# are copied beside it: their paths are relative to the scene)
cp -r scenes/robots "$T/robots"
"$PY" - "$T" <<'PYEOF' || fail "making the mutated scenes"
import json, sys
t = sys.argv[1]
def mutate(src, name, f):
    s = json.load(open("scenes/" + src))
    f(s)
    json.dump(s, open("%s/%s.json" % (t, name), "w"))
def body(s, name):
    return next(b for b in s["bodies"] if b["name"] == name)
mutate("box-on-plane.json", "position", lambda s: s["bodies"][1].__setitem__("position", [0, 0, 1e9]))
mutate("box-on-plane.json", "mass", lambda s: s["bodies"][1].__setitem__("mass", 1e12))
mutate("box-on-plane.json", "timestep", lambda s: s.update(timestep=5, duration=5000))
mutate("box-on-plane.json", "gravity", lambda s: s.__setitem__("gravity", [0, 0, -1e6]))
mutate("box-on-plane.json", "velocity", lambda s: s["bodies"][1].__setitem__("velocity", [0, 2e4, 0]))
mutate("box-on-plane.json", "friction", lambda s: s["materials"][0].__setitem__("friction", 1e308))
mutate("box-on-plane.json", "stiffness", lambda s: s["materials"][0].__setitem__("stiffness", 1e20))
mutate("box-on-plane.json", "size", lambda s: s["bodies"][1]["shapes"][0].__setitem__("half_extents", [0.1, 1e5, 0.1]))
mutate("box-on-plane.json", "tol", lambda s: s["benchmark"].setdefault("budget", {}).__setitem__("tol", 10))
mutate("sphere-stack.json", "density", lambda s: s["bodies"][1].pop("mass") and s["bodies"][1].__setitem__("density", 1e9))
mutate("boltnut.json", "spacing", lambda s: [sh.__setitem__("spacing", 1e-5) for b in s["bodies"] for sh in b["shapes"] if sh.get("type") == "sdf"])
# a robot model file: a link mass of 1e12 kg, named with the model file's own path
m = json.load(open(t + "/robots/fourbar.json"))
m["links"][1]["mass"] = 1e12
json.dump(m, open(t + "/robots/fourbar.json", "w"))
s = json.load(open("scenes/fourbar-fixed.json"))
json.dump(s, open(t + "/robotfile.json", "w"))
PYEOF
P='-?[0-9.e+]+ is outside'
expect2 "position.json: bodies\[1\].position\[2\]: 1e\+09 is outside \[-10000, 10000\] m" "$NCPBENCH" capture "$T/position.json" -o "$T/o.h5"
expect2 "mass.json: bodies\[1\].mass: 1e\+12 is outside \(0, 1e\+09\] kg" "$NCPBENCH" capture "$T/mass.json" -o "$T/o.h5"
expect2 "timestep.json: timestep: 5 is outside \(0, 1\] s" "$NCPBENCH" capture "$T/timestep.json" -o "$T/o.h5"
expect2 "gravity.json: gravity\[2\]: $P \[-1000, 1000\] m/s\^2" "$NCPBENCH" capture "$T/gravity.json" -o "$T/o.h5"
expect2 "velocity.json: bodies\[1\].velocity\[1\]: $P .* m/s" "$NCPBENCH" capture "$T/velocity.json" -o "$T/o.h5"
expect2 "friction.json: materials\[0\].friction: 1e\+308 is outside \[0, 1000\]" "$NCPBENCH" capture "$T/friction.json" -o "$T/o.h5"
expect2 "stiffness.json: materials\[0\].stiffness: $P .* N/m" "$NCPBENCH" capture "$T/stiffness.json" -o "$T/o.h5"
expect2 "size.json: bodies\[1\].shapes\[0\].half_extents\[1\]: $P .* m" "$NCPBENCH" capture "$T/size.json" -o "$T/o.h5"
expect2 "tol.json: benchmark.budget.tol: 10 is outside \[0, 1\]" "$NCPBENCH" capture "$T/tol.json" -o "$T/o.h5"
expect2 "density.json: bodies\[1\].density: 1e\+09 is outside \(0, 100000\] kg/m\^3" "$NCPBENCH" capture "$T/density.json" -o "$T/o.h5"
expect2 "spacing.json: bodies\[[0-9]+\].shapes\[0\].spacing: 1e-05 is outside \[0.0001, 1\] m" "$NCPBENCH" capture "$T/spacing.json" -o "$T/o.h5"
expect2 "robots/fourbar.json: links\[1\].mass: 1e\+12 is outside \(0, 1e\+09\] kg" "$NCPBENCH" capture "$T/robotfile.json" -o "$T/o.h5"
# run refuses the same way, before any output
expect2 "position.json: bodies\[1\].position\[2\]" "$NCPBENCH" run "$T/position.json" --quick --out "$T/r1"
[ -e "$T/o.h5" ] && fail "a refused capture wrote its output"
[ -e "$T/r1/metrics.csv" ] && fail "a refused run wrote metrics.csv"

# 2. a directory as the scene (and as a robot model file)
expect2 "scenes: is a directory \(expected a scene file" "$NCPBENCH" capture scenes -o "$T/o.h5"
mkdir -p "$T/dir/robots/fourbar.json"
cp scenes/fourbar-fixed.json "$T/dir/"
expect2 "robots/fourbar.json: is a directory \(expected a robot model file" "$NCPBENCH" capture "$T/dir/fourbar-fixed.json" -o "$T/o.h5"

# 3. predicted memory: 20 000 free boxes side by side on the ground, each touching only it.
# 120 000 dof (per-subsystem step matrices, sim/dynamics.h) and up to 240 000 rows; its admm-ccp
# driver solves D + rho I through the primal data (solvers/dshift.h), so no m^2 Delassus matrix
# is predicted (which would be 429 GiB) and the prediction is linear: about 110 MiB, refused
# under a 100 MiB budget in well under a second of parsing, nothing allocated from the
# prediction.
"$PY" - "$T/many.json" <<'PYEOF' || fail "making the big scene"
import json, sys
n, side = 20000, 142
bodies = [{"name": "ground", "type": "static", "shapes": [{"type": "plane"}]}]
bodies += [{"name": "b%d" % i, "type": "dynamic", "mass": 1,
            "position": [0.25 * (i % side), 0.25 * (i // side), 0.1],
            "shapes": [{"type": "box", "half_extents": [0.1, 0.1, 0.1]}]} for i in range(n)]
json.dump({"name": "many", "timestep": 0.01, "steps": 2, "bodies": bodies,
           "benchmark": {"driver": "admm-ccp"}}, open(sys.argv[1], "w"))
PYEOF
expect2 "scene .*many.json: 20000 dynamic bodies, 120000 dof, up to 240000 constraint rows \(80000 contacts of 20000 shape pairs at the start; (dense n_dof\^2|per-subsystem) step matrices [0-9.]+ [KMGT]?i?B, rows [0-9.]+ [KMGT]?i?B, no m\^2 Delassus data\): the simulation needs [0-9.]+ MiB, above the memory budget of 100 MiB" \
  "$NCPBENCH" capture "$T/many.json" -o "$T/o.h5" --max-memory 100M
[ -e "$T/o.h5" ] && fail "a refused capture wrote its output"
# under a small --max-memory (engineer store's option, when this build has it) a shipped scene
# is refused with its prediction: 6 boxes, 36 dof
if "$NCPBENCH" capture --help 2>&1 | grep -q -- "--max-memory"; then
  expect2 "scene scenes/boxes-fixed.json: [0-9]+ dynamic bodies, [0-9]+ dof.*above the memory budget of 2 MiB" \
    "$NCPBENCH" capture scenes/boxes-fixed.json -o "$T/o.h5" --max-memory 2M
fi

# 4. the budget while the scene is read (util/json_scan.h): 5000 free boxes, 692 KiB of valid
# JSON. Whatever --max-memory refuses is exit 2 naming the file, what needed how much, the
# budget and --max-memory: at 4M the parse (predicted before cJSON allocates; it read "malformed
# JSON" before), at 10M the model (an allocation failing under the cap; a bare "out of memory",
# exit 3, before; sanitizer builds have no cap and reach the prediction), at 30M the
# simulation's prediction. The same text made malformed stays malformed at 4M.
"$PY" - "$T" <<'PYEOF' || fail "making the budget scenes"
import json, sys
t = sys.argv[1]
n, side = 5000, 71
bodies = [{"name": "ground", "type": "static", "shapes": [{"type": "plane"}]}]
bodies += [{"name": "b%d" % i, "type": "dynamic", "mass": 1,
            "position": [0.25 * (i % side), 0.25 * (i // side), 0.1],
            "shapes": [{"type": "box", "half_extents": [0.1, 0.1, 0.1]}]} for i in range(n)]
text = json.dumps({"name": "mem", "timestep": 0.01, "steps": 2, "bodies": bodies,
                   "benchmark": {"driver": "pgs"}})
open(t + "/mem.json", "w").write(text)
at = text.index('{"name": "b100"')
open(t + "/memcomma.json", "w").write(text[:at - 2] + "," + text[at - 2:])  # "},, {"
PYEOF
ASAN=0
ldd "$NCPBENCH" 2> /dev/null | grep -q libasan && ASAN=1
M="$T/mem.json"
expect2 "^ncpbench capture: $M: parsing its JSON \(692 KiB of text, 75013 values\) needs [0-9.]+ MiB, above the memory budget of 4 MiB \(raise it with --max-memory" \
  "$NCPBENCH" capture "$M" -o "$T/o.h5" --max-memory 4M
grep -q "malformed" "$T/err" && fail "a valid scene under --max-memory 4M read as malformed"
expect2 "^ncpbench run: $M: parsing its JSON .*above the memory budget of 4 MiB" \
  "$NCPBENCH" run "$M" --out "$T/r2" --max-memory 4M
PRED="scene $M: 5000 dynamic bodies, 30000 dof.*the simulation needs [0-9.]+ MiB, above the memory budget of"
if [ $ASAN = 0 ]; then
  expect2 "^ncpbench capture: scene $M: building its model \(5001 bodies in \"bodies\"\) needs more than the memory budget of 10 MiB allows \(.*out of memory allocating [0-9]+ bytes, while its JSON text and tree held [0-9.]+ MiB; raise it with --max-memory" \
    "$NCPBENCH" capture "$M" -o "$T/o.h5" --max-memory 10M
else
  expect2 "$PRED 10 MiB" "$NCPBENCH" capture "$M" -o "$T/o.h5" --max-memory 10M
fi
expect2 "$PRED 30 MiB \(raise it with --max-memory" "$NCPBENCH" capture "$M" -o "$T/o.h5" --max-memory 30M
expect2 "memcomma.json: line 1, column [0-9]+: malformed JSON near \", \{\"name\": \"b100\"" \
  "$NCPBENCH" capture "$T/memcomma.json" -o "$T/o.h5" --max-memory 4M
grep -q "budget" "$T/err" && fail "a malformed scene under --max-memory 4M blamed on the budget"
[ -e "$T/o.h5" ] && fail "a refused capture wrote its output"

[ $fails -eq 0 ] && echo "badscene: all checks passed"
exit $fails
