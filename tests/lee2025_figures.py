"""Lee et al. 2025 Figs. 7 and 9 as drawn (src/figures/lee2025/figures.c): the two data files of
each figure part recomputed from the raw results (the solves' trace rows as
check_study_lee2025.py reads them) and compared with the program's, their columns checked, and
lee2025_fig.png / .svg checked complete (and the SVG free of dates and times) when gnuplot is
installed. Used by check_study_lee2025.py; independent of the program's aggregation code."""
import math
import os
import shutil

from study_check import figures_complete

PARTS = ("fig7", "fig7_loose", "fig9")
GRID = 100  # bench/plot.h NCP_PLOT_GRID
COLUMNS = {"lee2025_fig_residual.dat": "label time_ms median q25 q75 n ncases",
           "lee2025_fig_time.dat": "label iteration median_ms q25_ms q75_ms n ncases"}


def quantile(x, q):
    """util/stats.h ncp_quantile_sorted (numpy's default, type 7) of the sorted x."""
    h = (len(x) - 1) * q
    j = math.floor(h)
    if j + 1 >= len(x) or h == j or x[j] == x[j + 1]:
        return x[min(j, len(x) - 1)]
    return x[j] + (h - j) * (x[j + 1] - x[j])


def row(label, x, vals, ncases):
    v = sorted(vals)
    return [label, x, quantile(v, 0.5), quantile(v, 0.25), quantile(v, 0.75), len(v), ncases]


def keep(k):
    """util/stats.h ncp_log_sample_keep."""
    return k <= 20 or math.floor(20 * math.log10(k)) != math.floor(20 * math.log10(k - 1))


def iterates(s):
    return [(it, t) for it, t, _ in s.rows if it >= 1]


def residual_rows(label, solves, at_time):
    spans = [iterates(s) for s in solves]
    spans = [p for p in spans if p]
    lo = min((p[0][1] for p in spans if p[0][1] > 0), default=math.inf)
    hi = max(p[-1][1] for p in spans)
    ngrid = GRID if hi > lo else 1
    out = []
    for g in range(ngrid):
        t = lo if g == 0 else hi if g == ngrid - 1 else lo * (hi / lo) ** (g / (ngrid - 1))
        vals = [v for v in (at_time(s, t) for s in solves) if not math.isnan(v)]
        if vals:
            out.append(row(label, t, vals, len(spans)))
    return out


def time_rows(label, solves):
    spans = [iterates(s) for s in solves]
    spans = [p for p in spans if p]
    kmax = max(int(p[-1][0]) for p in spans)
    first = [{} for _ in spans]
    for d, p in zip(first, spans):
        for it, t in p:
            d.setdefault(int(it), t)
    out = []
    for k in range(1, kmax + 1):
        if keep(k):
            vals = [d[k] for d in first if k in d]
            if vals:
                out.append(row(label, k, vals, len(spans)))
    return out


def read_blocks(path, fail):
    """The data rows of path by index block; None (after fail) when its columns are not
    COLUMNS'."""
    text = open(path).read()
    want = "# columns: " + COLUMNS[os.path.basename(path)]
    if want not in text.splitlines():
        fail(f"{path}: no line '{want}'")
        return None
    blocks = []
    for chunk in text.split("\n\n\n"):
        rows = [ln.split() for ln in chunk.splitlines() if ln.strip() and not ln.startswith("#")]
        if any(len(r) != 7 for r in rows):
            fail(f"{path}: a row without the 7 columns")
            return None
        if rows:
            blocks.append(rows)
    return blocks


def close(a, b):
    return a == b or abs(a - b) <= 1e-6 * max(abs(a), abs(b))


def compare(path, want, fail):
    got = read_blocks(path, fail)
    if got is None:
        return
    if [b[0][0] for b in got] != [b[0][0] for b in want] or \
            [len(b) for b in got] != [len(b) for b in want]:
        fail(f"{path}: blocks {[(b[0][0], len(b)) for b in got]}, recomputed "
             f"{[(b[0][0], len(b)) for b in want]}")
        return
    for gb, wb in zip(got, want):
        for g, w in zip(gb, wb):
            if g[0] != w[0] or not all(close(float(x), float(y)) for x, y in zip(g[1:], w[1:])):
                fail(f"{path}: row {' '.join(g)}, recomputed {w}")
                return


def check(cdir, R, at_time, fail, require):
    """Every figure part of cdir; require: the part folders must hold the figure data (a fresh
    run; a committed compact copy keeps only the raw results). Returns the checks made."""
    checked = 0
    for part in PARTS:
        pdir = os.path.join(cdir, part)
        runs = [(key[1], solves) for key, solves in R.items()  # R's other keys: not runs
                if isinstance(key, tuple) and key[0] == part and any(iterates(s) for s in solves)]
        if not runs:  # none ran here: the folder, if any, is an earlier run's (--parts)
            continue
        paths = [os.path.join(pdir, n) for n in COLUMNS]
        if not all(os.path.exists(p) for p in paths):
            if require:
                fail(f"{pdir}: no {' and '.join(COLUMNS)}")
            continue
        compare(paths[0], [residual_rows(lb, sv, at_time) for lb, sv in runs], fail)
        compare(paths[1], [time_rows(lb, sv) for lb, sv in runs], fail)
        checked += 2
        checked += figures_complete(os.path.join(pdir, "lee2025_fig"), fail)
    return checked


def _scale_first_median(path, factor):
    lines = open(path).read().split("\n")
    for i, ln in enumerate(lines):
        if ln and not ln.startswith("#"):
            f = ln.split()
            f[2] = repr(float(f[2]) * factor)
            lines[i] = " ".join(f)
            break
    open(path, "w").write("\n".join(lines))


def perturbs(out):
    """Raw mutations of a fresh run's figure files (none for a compact copy without them): each
    must be caught."""
    d = os.path.join(out, "defaults")
    if not os.path.exists(os.path.join(d, "fig7", "lee2025_fig_time.dat")):
        return []
    p = [("Fig. 7's first median time per iteration x 1.01",
          lambda c: _scale_first_median(os.path.join(c, "defaults", "fig7",
                                                     "lee2025_fig_time.dat"), 1.01)),
         ("Fig. 9's first median residual x 1.01",
          lambda c: _scale_first_median(os.path.join(c, "defaults", "fig9",
                                                     "lee2025_fig_residual.dat"), 1.01))]
    if shutil.which("gnuplot"):
        p.append(("Fig. 9's lee2025_fig.svg removed",
                  lambda c: os.remove(os.path.join(c, "defaults", "fig9", "lee2025_fig.svg"))))
    return p
