#!/usr/bin/env bash
# The installed program (docs/building.md, "Installing"): `meson install --destdir` into a scratch
# folder, the staged prefix moved elsewhere (a relocated install: the data directory is found
# relative to the executable), then run from another folder with NCPBENCH_DATA unset:
# `version` names the installed data directory (not the source tree), `run boltnut` finds the
# shipped scene by name and draws its figures with the installed gnuplot scripts (a marker
# that only the installed copy writes proves which scripts ran), `check` on a baseline copied
# out of the installed one resolves its scene paths against the data directory and reproduces
# the installed baseline's values, NCPBENCH_DATA overrides and is checked. Needs BUILDDIR.
. "$(dirname "$0")/shell_prologue.sh"
BUILDDIR=${BUILDDIR:?}
SRCDIR=${SRCDIR:?}

# the uninstalled build uses its source tree
"$NCPBENCH" version > "$T/v0" 2>&1 || fail "version (build tree)"
grep -q "^data directory: $SRCDIR\$" "$T/v0" && grep -q "uninstalled build" "$T/v0" ||
  { fail "build-tree binary does not use its source tree"; cat "$T/v0"; }

meson install -C "$BUILDDIR" --no-rebuild --destdir "$T/stage" > "$T/install.log" 2>&1 ||
  { fail "meson install"; tail -20 "$T/install.log"; exit 1; }
staged=$(find "$T/stage" -path '*/bin/ncpbench' -type f | head -1)
[ -n "$staged" ] || { fail "no bin/ncpbench under the staged install"; exit 1; }
mv "$(dirname "$(dirname "$staged")")" "$T/prefix"   # relocate PREFIX
B=$T/prefix/bin/ncpbench
D=$T/prefix/share/ncpbench
for f in scenes/boltnut.json scenes/robots/panda.json scenes/tasks/dish-stack.json \
         scripts/residual_vs_time.gp scripts/time_vs_iteration.gp results/baselines/quick.json; do
  [ -f "$D/$f" ] || fail "not installed: share/ncpbench/$f"
done
[ -e "$D/scripts/test.sh" ] && fail "developer script scripts/test.sh installed as data"

mkdir -p "$T/elsewhere"
cd "$T/elsewhere" || exit 1
unset NCPBENCH_DATA
"$B" version > "$T/v1" 2>&1 || { fail "installed version"; cat "$T/v1"; }
grep -q "^data directory: $D\$" "$T/v1" || { fail "installed binary's data directory is not $D"; cat "$T/v1"; }
grep -q "installed: found relative to the executable" "$T/v1" || { fail "origin not reported"; cat "$T/v1"; }
grep -q "$SRCDIR" "$T/v1" && fail "installed binary mentions the source tree $SRCDIR"

# the installed gnuplot script, not the source tree's, draws the figures: only this copy
# prints the marker into gnuplot.log
echo 'print "installed-script-marker"' >> "$D/scripts/residual_vs_time.gp"
"$B" run boltnut --solvers pgs --steps 2 --seed 1 --out run1 > "$T/run.log" 2>&1 ||
  { fail "run boltnut (installed, by name)"; cat "$T/run.log"; }
[ -s run1/metrics.csv ] || fail "run boltnut wrote no metrics.csv"
if command -v gnuplot > /dev/null; then
  [ -s run1/residual_vs_time.png ] && [ -s run1/time_vs_iteration.png ] || fail "no figures drawn"
  grep -q installed-script-marker run1/gnuplot.log || fail "figures not drawn by the installed scripts"
fi
# a scene in a subfolder, by relative name, and a missing name (exit 2, says where it looked)
"$B" capture tasks/dish-stack --steps 1 -o dish.h5 > "$T/cap.log" 2>&1 || { fail "capture tasks/dish-stack"; cat "$T/cap.log"; }
"$B" run no-such-scene --out run2 > "$T/miss.log" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "cannot find scene 'no-such-scene'.*$D/scenes/no-such-scene.json" "$T/miss.log" ||
  { fail "missing scene: exit $rc"; cat "$T/miss.log"; }
[ -e run2 ] && fail "missing scene left run2 behind"

# check: one scene x solver of the installed baseline, in a folder of its own (its scene path
# "scenes/box-on-plane.json" is neither beside it nor under the working directory)
mkdir -p base
"$PY" - "$D/results/baselines/quick.json" base/mini.json <<'PYEOF' || fail "cannot cut the baseline"
import json, sys
b = json.load(open(sys.argv[1]))
b["entries"] = [e for e in b["entries"] if e["scene"] == "scenes/box-on-plane.json" and e["solver"] == "pgs"]
assert len(b["entries"]) == 1, b["entries"]
json.dump(b, open(sys.argv[2], "w"))
PYEOF
"$B" check base/mini.json --out chk > "$T/check.log" 2>&1 || { fail "check against the installed baseline"; cat "$T/check.log"; }
grep -q "box-on-plane.*pgs.*iterations.*ok" "$T/check.log" || { fail "check printed no verdict"; cat "$T/check.log"; }

# NCPBENCH_DATA: used when valid, refused (exit 2, named) when not
NCPBENCH_DATA=$D "$B" version > "$T/v2" 2>&1 && grep -q 'from \$NCPBENCH_DATA' "$T/v2" || { fail "NCPBENCH_DATA not used"; cat "$T/v2"; }
NCPBENCH_DATA=$T/nowhere "$B" run boltnut --out run3 > "$T/v3" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "NCPBENCH_DATA=$T/nowhere" "$T/v3" || { fail "bad NCPBENCH_DATA: exit $rc"; cat "$T/v3"; }

echo "install: $fails failure(s)"
[ $fails -eq 0 ]
