#!/usr/bin/env python3
"""The scaling benchmark (issue 27 item 6; benchmarks/README.md): how the time per iteration of
each solver grows with the number of contacts, on the wrecking-ball walls of scenes/scaling/
(scripts/make_scaling.py) from about 10^2 to 10^4 contacts (and 10^5 with --huge).

    scripts/bench_scaling.py build/ncpbench [--ref build/benchmarks/bench_pgs_sweep] [options]
    ninja -C build bench-scaling           (the same with the defaults)

1. Captures every scene once (`ncpbench capture`, cached in OUT/problems/NAME.h5 while the scene
   is older than it; --recapture redoes it), recording the capture's CPU time per step and peak
   RSS.
2. Runs every solver on every size through the real pipeline with a fixed iteration count and no
   tolerance (`ncpbench solve H5 --solvers S --max-iter N --tol 0 -j 1`), one child process per
   (solver, size), and reads the time per iteration (median over the problems of solve_ms /
   iterations, the harness's clock) from its metrics.csv and the child's peak RSS from wait4.
   What an iteration is differs (UNITS: for canal an AL loop of several Newton steps), so for the
   Newton-type solvers the time per Newton step (median over the problems of solve_ms / steps)
   is given beside it, the steps counted by the solver in the row's note (canal and the AL
   ablations: "inner steps K over L AL loops", solvers/al_common.c; nsn-fb, nsn-nm: "Newton
   iterations N", solvers/nsn_common.c; sap: one per iteration, solvers/sap.c). A row whose note
   does not count them stops the script (exit 2) rather than giving a time in the wrong unit.
3. Fits k in time ~ contacts^k by least squares on log-log over the sizes measured, per
   iteration and per Newton step.
4. States pgs's time per iteration against the hand-written velocity-form sweep of
   benchmarks/ref_pgs_kernel.c on the same problems (bench_pgs_sweep's "ref us", the thread's
   CPU clock, median over the problems; "n/a" without --ref).

A (solver, size) pair that exceeds the memory cap (ncpbench refuses it, exit 2, with the size it
needs) or the time cap is reported as skipped with the reason, and the larger sizes of that
solver are not tried after a time-out. Output: the table on stdout, OUT/scaling.csv (one row per
solver and size), OUT/fit.csv (k per solver), OUT/capture.csv; OPENBLAS_NUM_THREADS=1 for the
children. `--self-test` checks the reading of the notes on a real run (tests/meson.build).
"""
import argparse
import csv
import glob
import json
import math
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SOLVERS = "pgs,jacobi,apgd,spg,admm,fadmm,subadmm,nsn-fb,nsn-nm,canal,sap"

# What one iteration of the harness (metrics.csv's iterations) is, and for the Newton-type
# solvers what their Newton step is and which note counts it. Keys are registry names; a solver
# given with parameters (canal@beta0_rel=1e5) is its name's.
UNITS = {
    "canal": ("AL loop", "al", "inner step: one Cholesky of the Newton matrix (Lee et al. 2025 "
              "eq. 24) + exact line search"),
    "al-dampedsn": ("AL loop", "al", "inner step: one LU of the generalised Jacobian + Armijo "
                    "backtracking"),
    "al-trdogleg": ("AL loop", "al", "inner step: one trust-region trial (a rejected trial reuses "
                    "the LU)"),
    "nsn-fb": ("Newton iteration or Gauss-Seidel sweep", "nsn",
               "Newton iteration: one factorisation of the Newton matrix (sparse saddle form or "
               "D's), + Levenberg-Marquardt factorisations when its step fails"),
    "nsn-nm": ("Newton iteration or Gauss-Seidel sweep", "nsn",
               "Newton iteration: one factorisation of the Newton matrix (sparse saddle form or "
               "D's), + Levenberg-Marquardt factorisations when its step fails"),
    "sap": ("Newton step", "sap", "one factorisation + exact line search"),
}
AL_NOTE = re.compile(r"inner steps (\d+) over (\d+) AL loops, (\d+) failed")
NSN_NOTE = re.compile(r"Newton iterations (\d+) \(\+(\d+) LM factorisations\), "
                      r"Gauss-Seidel sweeps (\d+)")
SAP_ZERO = "0 Newton steps: the start passes eq. 26"


class NoteError(Exception):
    """A Newton-type solver's row that does not count its Newton steps as expected."""


def solver_name(solver):
    return solver.split("@", 1)[0]


def unit_of(solver):
    """(what an iteration is, what a Newton step is or None)."""
    u = UNITS.get(solver_name(solver))
    return (u[0], u[2]) if u else ("iteration", None)


def newton_steps(solver, row):
    """The Newton steps of a metrics.csv row of a Newton-type solver as (steps, extra counts for
    scaling.csv), None for the other solvers; NoteError when the note does not give them or
    contradicts the row's iterations."""
    u = UNITS.get(solver_name(solver))
    if not u:
        return None
    it, note, where = int(row["iterations"] or 0), row.get("note") or "", \
        "%s on problem %s" % (solver, row.get("problem", "?"))
    if u[1] == "al":
        mt = AL_NOTE.search(note)
        if not mt:
            raise NoteError("%s: the row's note has no \"inner steps K over L AL loops\" "
                            "(solvers/al_common.c al_note_inner; a note longer than the harness "
                            "keeps?): %r" % (where, note))
        k, loops, failed = (int(g) for g in mt.groups())
        if loops != it:
            raise NoteError("%s: the note counts %d AL loops, the row %d iterations: %r"
                            % (where, loops, it, note))
        return k, {"al_loops": loops, "failed_loops": failed}
    if u[1] == "nsn":
        mt = NSN_NOTE.search(note)
        if not mt:
            raise NoteError("%s: the row's note has no \"Newton iterations N (+L LM "
                            "factorisations), Gauss-Seidel sweeps G\" (solvers/nsn_common.c): %r"
                            % (where, note))
        n, lm, gs = (int(g) for g in mt.groups())
        if not n <= it <= n + gs:
            raise NoteError("%s: %d Newton iterations and %d sweeps cannot make %d iterations: %r"
                            % (where, n, gs, it, note))
        return n, {"lm_factorisations": lm, "gs_sweeps": gs}
    return (0 if SAP_ZERO in note else it), {}


def run_child(cmd, time_cap_s, log_path):
    """Runs cmd with stdout+stderr to log_path; returns (exit code or None on time-out, wall s,
    cpu s, peak RSS MiB) from wait4."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    t0 = time.monotonic()
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
        while True:
            pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - t0 > time_cap_s:
                os.killpg(proc.pid, signal.SIGKILL)
                pid, status, ru = os.wait4(proc.pid, 0)
                proc.returncode = -9
                return None, time.monotonic() - t0, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024
            time.sleep(0.05)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return (proc.returncode, time.monotonic() - t0, ru.ru_utime + ru.ru_stime,
            ru.ru_maxrss / 1024)


def last_line(path):
    with open(path, errors="replace") as f:
        lines = [ln.strip() for ln in f if ln.strip()]
    return lines[-1] if lines else ""


def problem_sizes(h5):
    """Per problem (ncontacts, m) from the file's attributes."""
    import h5py  # python3-h5py (scripts/setup.sh)
    with h5py.File(h5, "r") as f:
        g = f["problems"]
        return [(int(g[k].attrs["ncontacts"]), int(g[k].attrs["m"])) for k in sorted(g)]


def fit_exponent(xs, ys):
    """Least-squares slope of log y on log x (None with fewer than two sizes)."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x > 0 and y and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx if sxx > 0 else None


def capture(args, scene, out):
    name = os.path.splitext(os.path.basename(scene))[0]
    h5 = os.path.join(out, "problems", name + ".h5")
    meta = h5 + ".capture.json"
    if (not args.recapture and os.path.exists(meta)
            and os.path.getmtime(meta) >= os.path.getmtime(scene)):
        with open(meta) as f:
            return json.load(f)
    log = os.path.join(out, "problems", name + ".capture.log")
    rc, wall, cpu, rss = run_child([args.ncpbench, "capture", scene, "-o", h5, "--max-memory",
                                    "%gG" % args.mem_cap_gb], args.time_cap_s, log)
    rec = {"scene": name, "h5": h5, "wall_s": wall, "cpu_s": cpu, "peak_rss_mb": rss}
    if rc == 0:
        sizes = problem_sizes(h5)
        rec.update(status="ok", steps=len(sizes),
                   contacts=statistics.mean(s[0] for s in sizes),
                   m=statistics.mean(s[1] for s in sizes),
                   cpu_ms_per_step=1e3 * cpu / max(1, len(sizes)))
    else:
        rec.update(status="skipped", note=("time cap %g s" % args.time_cap_s) if rc is None
                   else "exit %d: %s" % (rc, last_line(log)))
    with open(meta, "w") as f:
        json.dump(rec, f, indent=1)
    return rec


def solve(args, solver, cap, out):
    d = os.path.join(out, "runs", cap["scene"], solver)
    os.makedirs(d, exist_ok=True)
    log = os.path.join(d, "log.txt")
    rc, wall, cpu, rss = run_child(
        [args.ncpbench, "solve", cap["h5"], "--solvers", solver, "--max-iter", str(args.iters),
         "--tol", "0", "-j", "1", "--out", d, "--fresh", "--no-figures", "--no-traces",
         "--no-progress", "--max-memory", "%gG" % args.mem_cap_gb], args.time_cap_s, log)
    rec = {"solver": solver, "scene": cap["scene"], "contacts": cap["contacts"], "m": cap["m"],
           "peak_rss_mb": round(rss, 1), "wall_s": round(wall, 2)}
    if rc is None:
        return dict(rec, status="skipped", note="time cap %g s" % args.time_cap_s)
    if rc != 0:
        return dict(rec, status="skipped", note="exit %d: %s" % (rc, last_line(log)))
    per_iter, per_step, steps, statuses, reasons = [], [], {}, {}, []
    with open(os.path.join(d, "metrics.csv")) as f:
        for row in csv.DictReader(f):
            statuses[row["status"]] = statuses.get(row["status"], 0) + 1
            if row["status"] == "unsupported" and row.get("note") and row["note"] not in reasons:
                reasons.append(row["note"])
            it = int(row["iterations"] or 0)
            if it > 0 and row["solve_ms"]:
                per_iter.append(float(row["solve_ms"]) / it)
                ns = newton_steps(solver, row)
                if ns:
                    steps["newton_steps"] = steps.get("newton_steps", 0) + ns[0]
                    steps["iterations"] = steps.get("iterations", 0) + it
                    for key, v in ns[1].items():
                        steps[key] = steps.get(key, 0) + v
                    if ns[0] > 0:
                        per_step.append(float(row["solve_ms"]) / ns[0])
    clock = "wall"
    try:
        with open(os.path.join(d, "summary.json")) as f:
            clock = json.load(f).get("clock", "wall")
            clock = clock if isinstance(clock, str) else clock.get("name", "wall")
    except (OSError, ValueError, AttributeError):
        pass
    note = " ".join("%s:%d" % kv for kv in sorted(statuses.items()))
    if reasons:
        note += " (" + "; ".join(reasons) + ")"
    if not per_iter:
        return dict(rec, status="skipped", note="no iterations (%s)" % note)
    rec.update(steps)
    if per_step:
        rec["ms_per_newton_step"] = statistics.median(per_step)
    return dict(rec, status="ok", ms_per_iter=statistics.median(per_iter), clock=clock, note=note)


def ref_kernel(args, cap, out):
    """The reference kernel's ms per sweep (CPU clock), median over the file's problems."""
    if not args.ref:
        return None
    log = os.path.join(out, "runs", cap["scene"], "bench_pgs_sweep.txt")
    os.makedirs(os.path.dirname(log), exist_ok=True)
    rc, _, _, _ = run_child([args.ref, "--sweeps", "50", cap["h5"]], args.time_cap_s, log)
    if rc != 0:
        return None
    ref_us = []
    with open(log) as f:
        for line in f:
            w = line.split()
            if len(w) >= 15 and w[0] != "scene":
                try:
                    ref_us.append(float(w[8]))  # columns: scene problem nc m nnz(J) nnz(Y) route ncp-us ref-us
                except ValueError:
                    pass
    return 1e-3 * statistics.median(ref_us) if ref_us else None


def self_test(ncpbench):
    """The notes as the solvers write them on a real run: the 10^2 wall captured and solved with
    canal, nsn-fb, nsn-nm and sap (3 iterations); the steps read back are checked against what
    else the rows say (canal's per-loop counts, the iterations column) and the time per Newton
    step against solve_ms recomputed; a note without its count stops the script."""
    fails = []

    def check(cond, what):
        print("%s %s" % ("ok  " if cond else "FAIL", what))
        if not cond:
            fails.append(what)

    with tempfile.TemporaryDirectory(prefix="bench_scaling_") as out:
        args = argparse.Namespace(ncpbench=ncpbench, recapture=True, mem_cap_gb=2.0,
                                  time_cap_s=300.0, iters=3)
        os.makedirs(os.path.join(out, "problems"))
        cap = capture(args, os.path.join(ROOT, "scenes", "scaling", "wall-1e2.json"), out)
        if cap["status"] != "ok":
            sys.exit("bench_scaling --self-test: capture failed: %s" % cap["note"])
        for solver in ("canal", "nsn-fb", "nsn-nm", "sap", "pgs"):
            rec = solve(args, solver, cap, out)
            check(rec["status"] == "ok", "%s solved (%s)" % (solver, rec.get("note")))
            with open(os.path.join(out, "runs", cap["scene"], solver, "metrics.csv")) as f:
                rows = list(csv.DictReader(f))
            per = []
            for row in rows:
                it = int(row["iterations"])
                ns = newton_steps(solver, row)
                if solver == "pgs":
                    check(ns is None, "pgs: no Newton steps")
                    continue
                check(it == args.iters, "%s %s: %d iterations" % (solver, row["problem"], it))
                if solver == "canal":  # K against the per-loop counts (at most 10 loops listed)
                    loops = re.search(r"\(per loop: ([0-9 ]*)\)", row["note"]).group(1).split()
                    check(ns[0] == sum(map(int, loops)) and len(loops) == it and
                          ns[1]["al_loops"] == it, "canal %s: %d inner steps = sum of %s"
                          % (row["problem"], ns[0], loops))
                elif solver.startswith("nsn"):  # 3 iterations: Newton's, no burst
                    check(ns[0] == it and ns[1]["gs_sweeps"] == 0,
                          "%s %s: %d Newton iterations, %d LM factorisations, %d sweeps"
                          % (solver, row["problem"], ns[0], ns[1]["lm_factorisations"],
                             ns[1]["gs_sweeps"]))
                else:
                    check(ns[0] == it, "sap %s: %d Newton steps" % (row["problem"], ns[0]))
                per.append(float(row["solve_ms"]) / ns[0])
                for cut in ("", row["note"][:row["note"].find(" over ") + 1] if solver == "canal"
                            else row["note"].replace("Newton iterations", "Newton iteration")):
                    if solver == "sap":
                        continue
                    try:
                        newton_steps(solver, dict(row, note=cut))
                        refused = False
                    except NoteError:
                        refused = True
                    check(refused, "%s %s: a note without the count refused (%r)"
                          % (solver, row["problem"], cut[-40:]))
            if solver != "pgs":
                check(rows and math.isclose(rec["ms_per_newton_step"], statistics.median(per)),
                      "%s: %.4g ms per Newton step = median of solve_ms / steps"
                      % (solver, rec["ms_per_newton_step"]))
        zero = {"iterations": "1", "note": "x; " + SAP_ZERO, "problem": "p"}
        check(newton_steps("sap@rel_tol=1e-3", zero)[0] == 0, "sap: a start that passes eq. 26 "
              "is 0 Newton steps")
    if fails:
        sys.exit("bench_scaling --self-test: %d failed" % len(fails))
    print("bench_scaling --self-test: all passed")


def step_counts(r):
    """What a Newton step of r's solver held, for the table: " (N per loop)" for the AL family,
    " (+L LM)" LM factorisations per Newton iteration for nsn (and its sweeps)."""
    if r.get("al_loops"):
        return " (%.3g per loop)" % (r["newton_steps"] / r["al_loops"])
    if "lm_factorisations" in r and r.get("newton_steps"):
        return " (+%.2g LM%s)" % (r["lm_factorisations"] / r["newton_steps"],
                                  ", %d sweeps" % r["gs_sweeps"] if r["gs_sweeps"] else "")
    return ""


def fmt_ms(x):
    return "-" if x is None else ("%.3g" % x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ncpbench")
    ap.add_argument("--ref", help="bench_pgs_sweep (benchmarks/ref_pgs_kernel.c); absent: n/a")
    ap.add_argument("--scenes", default=os.path.join(ROOT, "scenes", "scaling"))
    ap.add_argument("--huge", action="store_true",
                    help="also the 10^5-contact wall (scripts/make_scaling.py --huge, in OUT/scenes)")
    ap.add_argument("--only", help="comma-separated scene names (default: all)")
    ap.add_argument("--solvers", default=SOLVERS)
    ap.add_argument("--iters", type=int, default=20, help="iterations per solve (default 20)")
    ap.add_argument("--mem-cap-gb", type=float, default=6.0,
                    help="memory budget of each child (ncpbench --max-memory; default 6)")
    ap.add_argument("--time-cap-s", type=float, default=600.0,
                    help="wall-clock cap per child (default 600 s)")
    ap.add_argument("--recapture", action="store_true")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "scaling"))
    ap.add_argument("--self-test", action="store_true",
                    help="check the reading of the Newton-type solvers' notes on a real run")
    args = ap.parse_args()
    if args.self_test:
        return self_test(args.ncpbench)
    if args.ref and not os.path.exists(args.ref):
        args.ref = None
    out = os.path.abspath(args.out)
    os.makedirs(os.path.join(out, "problems"), exist_ok=True)
    scenes = sorted(glob.glob(os.path.join(args.scenes, "*.json")))
    if args.huge:
        sys.path.insert(0, os.path.join(ROOT, "scripts"))
        import make_scaling
        sdir = os.path.join(out, "scenes")
        os.makedirs(sdir, exist_ok=True)
        huge = os.path.join(sdir, make_scaling.HUGE[0] + ".json")
        if not os.path.exists(huge):
            make_scaling.write(sdir, *make_scaling.HUGE)
        scenes.append(huge)
    if args.only:
        keep = set(args.only.split(","))
        scenes = [s for s in scenes if os.path.splitext(os.path.basename(s))[0] in keep]

    caps = []
    for s in scenes:
        c = capture(args, s, out)
        print("capture %-10s %s" % (c["scene"], "%.0f contacts, %.1f ms CPU per step, %.0f MiB"
                                    % (c["contacts"], c["cpu_ms_per_step"], c["peak_rss_mb"])
                                    if c["status"] == "ok" else "skipped: " + c["note"]),
              flush=True)
        caps.append(c)
    ok = sorted((c for c in caps if c["status"] == "ok"), key=lambda c: c["contacts"])
    with open(os.path.join(out, "capture.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scene", "status", "steps", "contacts", "m", "cpu_ms_per_step",
                    "peak_rss_mb", "note"])
        for c in caps:
            w.writerow([c["scene"], c["status"], c.get("steps", ""), c.get("contacts", ""),
                        c.get("m", ""), c.get("cpu_ms_per_step", ""), round(c["peak_rss_mb"], 1),
                        c.get("note", "")])

    rows, refs = [], {}
    for solver in args.solvers.split(","):
        timed_out = False
        for c in ok:
            if timed_out:
                rows.append({"solver": solver, "scene": c["scene"], "contacts": c["contacts"],
                             "m": c["m"], "status": "skipped",
                             "note": "time cap reached at a smaller size"})
                continue
            r = solve(args, solver, c, out)
            timed_out = r["status"] == "skipped" and r["note"].startswith("time cap")
            rows.append(r)
            step = (", %s ms/Newton step" % fmt_ms(r["ms_per_newton_step"])
                    if "ms_per_newton_step" in r else "")
            print("%-8s %-10s %s" % (solver, c["scene"], fmt_ms(r.get("ms_per_iter")) + " ms/iter"
                                     + step + ", %.0f MiB" % r["peak_rss_mb"]
                                     if r["status"] == "ok" else "skipped: " + r["note"]),
                  flush=True)
    for c in ok:
        refs[c["scene"]] = ref_kernel(args, c, out)

    with open(os.path.join(out, "scaling.csv"), "w", newline="") as f:
        keys = ["solver", "scene", "contacts", "m", "status", "iteration", "ms_per_iter",
                "ms_per_newton_step", "iterations", "newton_steps", "al_loops", "failed_loops",
                "lm_factorisations", "gs_sweeps", "clock", "peak_rss_mb", "ref_ms_per_sweep",
                "ratio_to_ref", "note"]
        w = csv.DictWriter(f, keys, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            r["iteration"] = unit_of(r["solver"])[0]
            ref = refs.get(r["scene"])
            if r["solver"] == "pgs" and ref and r.get("ms_per_iter"):
                r["ref_ms_per_sweep"] = ref
                r["ratio_to_ref"] = r["ms_per_iter"] / r["ref_ms_per_sweep"]
            w.writerow(r)

    solvers = args.solvers.split(",")
    print("\ntime per iteration and, for the Newton-type solvers, per Newton step (ms, median over "
          "the problems), --max-iter %d, -j 1; peak RSS (MiB) in brackets; in parentheses the "
          "Newton steps per AL loop, the LM factorisations per Newton iteration. Units:"
          % args.iters)
    for s in solvers:
        it, step = unit_of(s)
        print("  %s: iteration = %s%s" % (s, it, "" if not step else (": " if it == "Newton step"
                                                                        else "; Newton step = ")
                                         + step))
    print("\n| solver, per | " + " | ".join("%s (%.0f)" % (c["scene"], c["contacts"]) for c in ok)
          + " | k |")
    print("|---" * (len(ok) + 2) + "|")
    fits = []
    for s in solvers:
        it, step = unit_of(s)
        pers = [(it, "ms_per_iter")]
        if step and it != "Newton step":
            pers.append(("Newton step", "ms_per_newton_step"))
        for per, key in pers:
            cells, xs, ys = [], [], []
            for c in ok:
                r = next((r for r in rows if r["solver"] == s and r["scene"] == c["scene"]), None)
                if r and r["status"] == "ok" and r.get(key):
                    cells.append("%s [%.0f]%s" % (fmt_ms(r[key]), r["peak_rss_mb"],
                                                  step_counts(r) if key != "ms_per_iter" else ""))
                    xs.append(c["contacts"])
                    ys.append(r[key])
                else:
                    cells.append("skipped" if not r or r["status"] != "ok" else "no steps")
            k = fit_exponent(xs, ys)
            fits.append((s, per, k, len(xs)))
            print("| %s, %s | %s | %s |" % (s, per, " | ".join(cells),
                                            "-" if k is None else "%.2f" % k))
    kc = fit_exponent([c["contacts"] for c in ok], [c["cpu_ms_per_step"] for c in ok])
    print("| capture (ms CPU per step) | %s | %s |"
          % (" | ".join("%.3g [%.0f]" % (c["cpu_ms_per_step"], c["peak_rss_mb"]) for c in ok),
             "-" if kc is None else "%.2f" % kc))
    ratios = []
    for c in ok:
        r = next((r for r in rows if r["solver"] == "pgs" and r["scene"] == c["scene"]), None)
        ratios.append("%.3g (%s ms)" % (r["ratio_to_ref"], fmt_ms(r["ref_ms_per_sweep"]))
                      if r and r.get("ratio_to_ref") else "n/a")
    print("| pgs / reference sweep | %s | |" % " | ".join(ratios))
    skipped = [r for r in rows if r["status"] != "ok"] + [c for c in caps if c["status"] != "ok"]
    if skipped:
        print("\nskipped:")
        for r in skipped:
            print("  %s %s: %s" % (r.get("solver", "capture"), r["scene"], r["note"]))
    with open(os.path.join(out, "fit.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["solver", "per", "k", "sizes"])
        for s, per, k, n in fits:
            w.writerow([s, per, "" if k is None else "%.4f" % k, n])
        w.writerow(["capture", "step (CPU)", "" if kc is None else "%.4f" % kc, len(ok)])
    print("\n%s/scaling.csv, fit.csv, capture.csv" % out)


if __name__ == "__main__":
    try:
        main()
    except NoteError as e:
        print("bench_scaling: %s" % e, file=sys.stderr)
        sys.exit(2)
