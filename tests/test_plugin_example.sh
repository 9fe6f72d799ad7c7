#!/usr/bin/env bash
# The plugin ABI from the outside (docs/plugins.md, examples/plugin/): ncpbench installed into a
# staged prefix (`meson install --destdir`), then moved (the pkg-config file is relocatable);
#  - the installed headers: every one compiles on its own and includes only installed headers,
#    the umbrella <ncpbench/ncpbench.h> compiles with nothing but `pkg-config --cflags ncpbench`
#    (the source tree is on no include path), pkg-config names -lncpbench and the ABI version,
#    libncpbench's soname carries that version and the library holds no run-context symbol (the
#    host executable provides them);
#  - examples/plugin builds out of tree against that prefix (its own meson project, -Werror);
#  - loaded with `ncpbench solve --plugin`, its solver pjacobi-example answers captured problems
#    exactly as the built-in jacobi does. Why it must: both run the same iteration (NCP report
#    2025 eq. 141 with the De Saxcé step) with the same per-block steps (1 / lambda_max of the
#    symmetrised diagonal block, soft rows 1 / (D_rr + 1/c)), the same theta (power iteration
#    from the same start vector, same stopping rule) and the same operation order, calling the
#    same helpers (ncp_dop_apply, ncp_cone_project, ncp_desaxce resolve to the host's copies),
#    under the same harness (clock, stopping metric, warm start): the iterates are the same to
#    the bit, so iterations and status must be equal, every metric equal to round-off (1e-9
#    relative; values both below 1e-13 are round-off and not compared; the plugin is compiled
#    separately, possibly at another optimisation level) and the stored answers lambda too (a
#    step changed by 1e-12 relative fails this). Checked with the default parameters and again
#    with over-relaxation (omega = 1.4) set for both, so parameters reach the plugin.
# Needs BUILDDIR (the build to install) and SRCDIR.
. "$(dirname "$0")/shell_prologue.sh"
BUILDDIR=${BUILDDIR:?}
SRCDIR=${SRCDIR:?}
# meson test points LD_LIBRARY_PATH at the build's libncpbench: unset, so that the plugin can
# only find the installed one (through the runpath pkg-config's libdir gave it)
unset LD_LIBRARY_PATH

meson install -C "$BUILDDIR" --no-rebuild --destdir "$T/stage" > "$T/install.log" 2>&1 ||
  { fail "meson install"; tail -20 "$T/install.log"; exit 1; }
umbrella=$(find "$T/stage" -path '*/include/ncpbench/ncpbench.h' | head -1)
[ -n "$umbrella" ] || { fail "no include/ncpbench/ncpbench.h under the staged install"; exit 1; }
mv "$(dirname "$(dirname "$(dirname "$umbrella")")")" "$T/prefix"   # relocate PREFIX
P=$T/prefix
INC=$P/include
pc=$(find "$P" -name ncpbench.pc | head -1)
[ -n "$pc" ] || { fail "ncpbench.pc not installed"; exit 1; }
# a build folder set up before meson.build made pkgconfig.relocatable the default still has
# an absolute prefix: say so and point it at the moved prefix (new set-ups are relocatable)
if ! grep -q '^prefix=${pcfiledir}' "$pc"; then
  echo "note: $BUILDDIR predates pkgconfig.relocatable=true (meson configure $BUILDDIR" \
       "-Dpkgconfig.relocatable=true); prefix rewritten for this test"
  sed -i "s|^prefix=.*|prefix=$P|" "$pc"
fi
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
LIBDIR=$(pkg-config --variable=libdir ncpbench)

# ---- the installed headers ----
for h in ncpbench.h util/ncp_error.h core/la.h core/sparse_chol.h core/problem.h core/cone.h \
         core/dop.h solve/solver.h solve/params.h solve/plugin.h; do
  [ -f "$INC/ncpbench/$h" ] || fail "not installed: include/ncpbench/$h"
done
# every quoted include of an installed header names an installed header
(cd "$INC/ncpbench" && grep -H '#include "' $(find . -name '*.h')) | while IFS= read -r line; do
  inc=${line#*#include \"}; inc=${inc%%\"*}
  [ -f "$INC/ncpbench/$inc" ] || echo "FAIL: ${line%%:*} includes \"$inc\", which is not installed"
done > "$T/incs"
[ -s "$T/incs" ] && { cat "$T/incs"; fail "installed headers include uninstalled ones"; }
CFLAGS=$(pkg-config --cflags ncpbench) || fail "pkg-config --cflags ncpbench"
dirs=" "  # the -I folders, resolved (the relocatable .pc spells them from its own folder)
for f in $CFLAGS; do
  case $f in -I*) dirs="$dirs$(realpath -m "${f#-I}") " ;; esac
done
for d in "$INC" "$INC/ncpbench"; do
  case $dirs in *" $(realpath -m "$d") "*) ;; *) fail "pkg-config --cflags ($CFLAGS) lacks -I$d" ;; esac
done
pkg-config --libs ncpbench | grep -q -- '-lncpbench' || fail "pkg-config --libs lacks -lncpbench"
abi=$(sed -n 's/^#define NCP_PLUGIN_ABI_VERSION \([0-9]*\).*/\1/p' "$INC/ncpbench/solve/plugin.h")
[ "$(pkg-config --variable=plugin_abi_version ncpbench)" = "$abi" ] ||
  fail "ncpbench.pc's plugin_abi_version is not plugin.h's $abi"
CC=${CC:-cc}
mkdir -p "$T/hdr" && cd "$T/hdr" || exit 1
# shellcheck disable=SC2086 # CFLAGS: several flags
for h in $(cd "$INC" && find ncpbench -name '*.h'); do
  printf '#include <%s>\nint main(void) { return 0; }\n' "$h" > one.c
  $CC -std=c11 -Wall -Wextra -Wpedantic -Werror -c one.c $CFLAGS -o one.o 2> one.err ||
    { fail "<$h> does not compile on its own"; cat one.err; }
done
# the umbrella with every public type and call a plugin uses, against the installed tree only
cat > all.c <<'EOF'
#include <ncpbench/ncpbench.h>
int probe(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err);
int probe(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    double x[3] = {1.0, 0.5, 0.25}, y[3];
    ncp_cone_project(0.5, x, y);
    ncp_dop op;
    if (ncp_dop_init(&op, in->prob, NCP_DOP_AUTO, err)) return err->code;
    ncp_dop_free(&op);
    out->iterations = ncp_run_setup_done(run) + (int)ncp_params_get(in->params, "omega", 1.0);
    return NCP_PLUGIN_ABI_VERSION == 1 ? NCP_OK : NCP_ERR_INTERNAL;
}
EOF
# shellcheck disable=SC2086
$CC -std=c11 -Wall -Wextra -Werror -c all.c $CFLAGS -o all.o 2> all.err ||
  { fail "<ncpbench/ncpbench.h> does not compile against the installed tree"; cat all.err; }
# the library: versioned soname, helpers defined, run context not (it is the host's)
lib=$(ls "$LIBDIR"/libncpbench.so.*.*.* 2> /dev/null | head -1)
[ -n "$lib" ] || fail "no libncpbench.so.X.Y.Z in $LIBDIR"
[ -L "$LIBDIR/libncpbench.so" ] || fail "no libncpbench.so link (the -lncpbench of pkg-config)"
if [ -n "$lib" ]; then
  readelf -d "$lib" | grep -q "SONAME.*\[libncpbench\.so\.$abi\]" ||
    fail "libncpbench's soname is not libncpbench.so.$abi: $(readelf -d "$lib" | grep SONAME)"
  nm -D --defined-only "$lib" > "$T/libsyms"
  for s in ncp_cone_project ncp_dop_init ncp_dop_apply ncp_params_get ncp_error_set ncp_calloc \
           ncp_sym_eig ncp_status_name; do
    grep -q " T $s\$" "$T/libsyms" || fail "libncpbench does not define $s"
  done
  grep -q ' ncp_run_' "$T/libsyms" && fail "libncpbench defines run-context symbols (they are the host's)"
fi
cd "$T" || exit 1

# ---- the example, out of tree ----
cp -r "$SRCDIR/examples/plugin" "$T/ex"
(cd "$T/ex" && meson setup b -Dwerror=true > "$T/ex.setup.log" 2>&1 && ninja -C b > "$T/ex.build.log" 2>&1) ||
  { fail "examples/plugin does not build against the installed ncpbench"; tail -n 20 "$T/ex.setup.log" "$T/ex.build.log"; exit 1; }
SO=$T/ex/b/pjacobi_example.so
[ -f "$SO" ] || { fail "examples/plugin built no pjacobi_example.so"; exit 1; }
nm -D --defined-only "$SO" | grep -q ' T ncp_plugin_entry$' || fail "the plugin does not export ncp_plugin_entry"
[ "$(nm -D --defined-only "$SO" | grep -c ' T ')" -eq 1 ] || fail "the plugin exports more than its entry point"
ldd "$SO" | grep -q "libncpbench\.so\.$abi => $(realpath "$LIBDIR")/" ||
  { fail "the plugin does not find the installed libncpbench"; ldd "$SO"; }

# ---- loaded into ncpbench: the same answers as the built-in jacobi ----
# bilateral rows and contacts (fourbar-free), unilateral rows and ~90 contacts (laikago8)
"$NCPBENCH" capture fourbar-free --quick --steps 3 -o "$T/fourbar.h5" > "$T/cap1.log" 2>&1 ||
  { fail "capture fourbar-free"; cat "$T/cap1.log"; }
"$NCPBENCH" capture laikago8 --quick -o "$T/laikago.h5" > "$T/cap2.log" 2>&1 ||
  { fail "capture laikago8"; cat "$T/cap2.log"; }
"$NCPBENCH" list solvers --plugin "$SO" > "$T/list.log" 2>&1 || { fail "list solvers --plugin"; cat "$T/list.log"; }
grep -q 'pjacobi-example' "$T/list.log" || { fail "list solvers does not show pjacobi-example"; cat "$T/list.log"; }
solve() { # out [options]
  local out=$1; shift
  "$NCPBENCH" solve "$T/fourbar.h5" "$T/laikago.h5" --plugin "$SO" --solvers pjacobi-example,jacobi \
    --tol 1e-8 --max-iter 500 --no-figures --no-progress --out "$T/$out" "$@" > "$T/$out.log" 2>&1 ||
    { fail "solve --plugin ($out)"; cat "$T/$out.log"; }
}
solve D
solve R --param pjacobi-example.omega=1.4 --param jacobi.omega=1.4
"$PY" - "$T" <<'PYEOF' || fail "pjacobi-example differs from jacobi"
import csv, math, sys
import h5py, numpy as np
T = sys.argv[1]
bad = []
runs = {}
skip = {"problem", "solver", "setup_ms", "solve_ms", "ms_per_iter", "time_min_ms", "time_max_ms",
        "wall_ms", "note", "title", "description"}
for run in ("D", "R"):
    rows = list(csv.DictReader(open(f"{T}/{run}/metrics.csv")))
    by = {(r["problem"], r["solver"]): r for r in rows}
    runs[run] = by
    probs = sorted({r["problem"] for r in rows})
    if len(probs) < 4:
        bad.append(f"{run}: only {len(probs)} problems solved")
    iters = []
    for p in probs:
        a, b = by.get((p, "pjacobi-example")), by.get((p, "jacobi"))
        if a is None or b is None:
            bad.append(f"{run}/{p}: a row is missing")
            continue
        for k in ("iterations", "converged", "status"):
            if a[k] != b[k]:
                bad.append(f"{run}/{p}: {k} {a[k]} (plugin) != {b[k]} (jacobi)")
        iters.append(int(b["iterations"]))
        for k in a:
            if k in skip or k in ("iterations", "converged", "status"):
                continue
            x, y = float(a[k] or "nan"), float(b[k] or "nan")
            if math.isnan(x) and math.isnan(y):
                continue
            if max(abs(x), abs(y)) < 1e-13:  # both at round-off: no relative digit to compare
                continue
            if not abs(x - y) <= 1e-9 * max(abs(x), abs(y)):
                bad.append(f"{run}/{p}: {k} = {x!r} (plugin) != {y!r} (jacobi)")
    # the answers themselves
    with h5py.File(f"{T}/{run}/solutions.h5", "r") as f:
        g = f["solutions"]
        for p in probs:
            try:
                la, lb = (np.asarray(g[s][p]["r"]) for s in ("pjacobi-example", "jacobi"))
            except KeyError as e:
                bad.append(f"{run}/{p}: no stored lambda ({e})")
                continue
            if la.shape != lb.shape or not np.allclose(la, lb, rtol=1e-9, atol=1e-14 * np.max(np.abs(lb), initial=1.0)):
                bad.append(f"{run}/{p}: lambda differs, max |diff| {np.max(np.abs(la - lb))}")
    # a comparison of solves that stopped at once would prove little
    if iters and max(iters) < 5:
        bad.append(f"{run}: every solve took < 5 iterations: {iters}")
    print(f"{run}: {len(probs)} problems, iterations {iters}")
# omega = 1.4 changed the solves (else the second comparison would show nothing about
# parameters reaching the plugin)
if runs.get("D") and runs["D"].keys() == runs.get("R", {}).keys() and all(
        runs["D"][k]["iterations"] == runs["R"][k]["iterations"] and
        runs["D"][k]["natural_map_rel_acary"] == runs["R"][k]["natural_map_rel_acary"]
        for k in runs["D"] if k[1] == "pjacobi-example"):
    bad.append("omega = 1.4 changed no solve of pjacobi-example")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PYEOF

echo "plugin_example: $fails failure(s)"
[ $fails -eq 0 ]
