#!/usr/bin/env bash
# The results page a person reads (issue 30 item 5; bench/plot.h ncp_plot_index), opened in
# headless Chromium: `run` ends by printing where results.md and index.html are; the page
# starts with the ranked results table, whose rows are metrics.csv's solvers (a variant among
# them) in the documented order (success rate, then SGM time, then SGM iterations, read from
# each cell's raw data-value; those values are summary.json's results table, which
# tests/test_results.sh recomputes from metrics.csv); a header clicked by the page's own
# handler (index.html#sort=K) sorts the rows by that column; every <img> loaded; the overview
# comes first among the figures and overlays the best-ranked solver of each family, drawn with
# the run's stop metric and tolerance. A graded program's answers (examples/python) get the
# same page. Skipped (77) only when Chromium is absent (Debian's `chromium`).
. "$(dirname "$0")/shell_prologue.sh"
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$CHROMIUM" ] || { echo "SKIP: chromium not installed (apt install chromium)"; exit 77; }

# The page's DOM after its scripts ran and its images loaded (or failed). --no-sandbox: a root
# container has no user namespace for the sandbox; the profile stays in $T.
dom() { # PAGE-URL OUTFILE
  timeout 120 "$CHROMIUM" --headless --disable-gpu --no-sandbox --no-first-run \
    --user-data-dir="$T/chrome" --virtual-time-budget=10000 --dump-dom "$1" > "$2" 2> "$T/chrome.log" \
    || { fail "chromium on $1 (exit $?): $(tail -3 "$T/chrome.log")"; return 1; }
}

# PAGE-DIR DOM [sorted COL asc|desc]: the checks, in Python's html.parser
check() {
"$PY" - "$@" <<'PYEOF'
import csv, json, math, os, sys
from html.parser import HTMLParser
d, dom = sys.argv[1], sys.argv[2]
sort = sys.argv[3:]  # [] or ["COL", "asc"|"desc"]

class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.table = None      # attrs of the results table
        self.head, self.rows = [], []
        self.imgs = []         # (attrs, position among the elements)
        self.n = 0
        self.table_at = None
        self.cell = None
        self.depth = 0         # inside the results table
    def handle_starttag(self, tag, a):
        a = dict(a)
        self.n += 1
        if tag == "table" and a.get("id") == "results-table":
            self.table, self.table_at, self.depth = a, self.n, 1
        elif tag == "table" and self.depth:
            self.depth += 1
        elif self.depth and tag == "tr":
            self.row = []
        elif self.depth and tag in ("td", "th"):
            self.cell = [tag, a.get("data-value"), ""]
        elif tag == "img":
            self.imgs.append((a, self.n))
    def handle_endtag(self, tag):
        if not self.depth:
            return
        if tag in ("td", "th") and self.cell:
            self.row.append(self.cell)
            self.cell = None
        elif tag == "tr":
            (self.head if self.row and self.row[0][0] == "th" else self.rows).append(self.row)
        elif tag == "table":
            self.depth -= 1
    def handle_data(self, s):
        if self.cell:
            self.cell[2] += s

p = Page()
p.feed(open(dom, encoding="utf-8").read())
bad = []
if p.table is None or not p.rows:
    print("  no results table in the page"); sys.exit(1)
head = [c[2] for c in p.head[0]]
col = {h: k for k, h in enumerate(head)}
for h in ("#", "solver", "family", "success", "SGM time (norm.)", "SGM iter (norm.)"):
    if h not in col: bad.append(f"no column {h!r} in {head}")
def num(c):
    return float(c[1]) if c[1] not in (None, "") else math.nan
names = [r[col["solver"]][2] for r in p.rows]
want = list(dict.fromkeys(r["solver"] for r in csv.DictReader(open(f"{d}/metrics.csv"))))
if sorted(names) != sorted(want):
    bad.append(f"table solvers {names}, metrics.csv {want}")
R = {x["solver"]: x for x in json.load(open(f"{d}/summary.json"))["results_table"]["solvers"]}
same = lambda a, b: (math.isnan(a) and b is None) or (b is not None and a == b)
for r in p.rows:  # raw values kept: each number cell's data-value is the summary's value
    s = r[col["solver"]][2]
    for h, k in (("success", "success_rate"), ("SGM time (norm.)", "sgm_time_ms"),
                 ("SGM iter (norm.)", "sgm_iterations"), ("#", "rank")):
        if s in R and not same(num(r[col[h]]), R[s][k]):
            bad.append(f"{s}: {h} data-value {r[col[h]][1]!r}, summary.json {k} {R[s][k]}")
    conv = f"({R[s]['converged']}/{R[s]['problems']}" if s in R else "?"
    if conv not in r[col["success"]][2]:
        bad.append(f"{s}: success cell {r[col['success']][2]!r} lacks the counts {conv}")
    for h, k in (("SGM time (norm.)", "sgm_time_ms"), ("SGM iter (norm.)", "sgm_iterations")):
        if s in R and R[s][k] is not None and "(" not in r[col[h]][2]:
            bad.append(f"{s}: {h} cell {r[col[h]][2]!r} shows no raw value")
if not sort:  # the documented rank, applied to the raw values
    def key(i):
        r = p.rows[i]
        t, it = num(r[col["SGM time (norm.)"]]), num(r[col["SGM iter (norm.)"]])
        return (-num(r[col["success"]]), math.inf if math.isnan(t) else t, it, i)
    ranked = [names[i] for i in sorted(range(len(names)), key=key)]
    if names != ranked:
        bad.append(f"rows {names}, want ranked {ranked}")
    if [r[col["#"]][2] for r in p.rows] != [str(k + 1) for k in range(len(names))]:
        bad.append("the # column is not 1..n")
else:  # sorted by the page's handler: that column's raw values, missing ones last
    k, how = int(sort[0]), sort[1]
    if p.table.get("data-sorted") != f"{k}-{how}":
        bad.append(f"data-sorted {p.table.get('data-sorted')!r}, want {k}-{how}")
    v = [num(r[k]) for r in p.rows]
    have = [x for x in v if not math.isnan(x)]
    if have != sorted(have, reverse=how == "desc") or any(not math.isnan(x) for x in v[len(have):]):
        bad.append(f"column {head[k]} not sorted {how}: {v}")
# every image loaded, the overview first, after the table
if len(p.imgs) < 3:
    bad.append(f"{len(p.imgs)} images")
for a, at in p.imgs:
    if a.get("data-failed") or not a.get("data-loaded", "0").isdigit() or int(a.get("data-loaded", "0")) <= 0:
        bad.append(f"image {a.get('src')} did not load: {a}")
    if not os.path.exists(os.path.join(d, a.get("src", ""))):
        bad.append(f"image {a.get('src')} is no file of {d}")
if p.imgs and (p.imgs[0][0].get("src") != "overview.png" or p.imgs[0][1] < p.table_at):
    bad.append(f"the first image is {p.imgs[0][0].get('src')}, want overview.png after the table")
# the overview: the best-ranked solver of each family, the stop metric, the tolerance line
if not sort:
    S = json.load(open(f"{d}/summary.json"))["budget"]
    fams, best = set(), []
    for r in p.rows:
        f = r[col["family"]][2]
        if f not in fams:
            fams.add(f); best.append(r[col["solver"]][2])
    log = open(f"{d}/gnuplot.log").read()
    call = [l for l in log.splitlines() if "overview.gp" in l]
    if not call or f"sel='{' '.join(best)} '" not in call[-1] \
       or f"metric='{S['stop_metric']}'" not in call[-1] or f"tol={S['tol']:.17g}" not in call[-1]:
        bad.append(f"overview drawn as {call}, want sel {best}, metric {S['stop_metric']}, tol {S['tol']}")
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PYEOF
}

# ---- a run: the last lines it prints, the page as it opens, sorted by a click ----
"$NCPBENCH" run scenes/box-on-plane.json --quick --solvers pgs,pgs@omega=1.3,nsn-nm,apgd,canal \
  --out "$T/S" --no-progress > "$T/S.log" 2>&1 || { cat "$T/S.log"; fail "run"; exit 1; }
[ "$(tail -2 "$T/S.log")" = "results table: $T/S/results.md
results page (open in a browser): $T/S/index.html" ] || fail "run does not end with the pages: $(tail -3 "$T/S.log")"
[ -s "$T/S/profile.md" ] && [ -s "$T/S/perf_profiles.png" ] || fail "run drew no performance profile"
dom "file://$T/S/index.html" "$T/S.dom" && { check "$T/S" "$T/S.dom" || fail "the page of the run"; }
# SGM time (column 4) ascending on the first click; success (3) best first (descending); and
# SGM iterations (5) forced descending
while read -r frag col how; do
  dom "file://$T/S/index.html#sort=$frag" "$T/S.$frag.dom" \
    && { check "$T/S" "$T/S.$frag.dom" "$col" "$how" || fail "the page sorted by #sort=$frag"; }
done <<'EOF'
4 4 asc
3 3 desc
5-desc 5 desc
EOF
# plot --compare: the overview's solvers as given, a variant among them
"$NCPBENCH" plot "$T/S" --compare canal,pgs@omega=1.3 > "$T/P.log" 2>&1 || { cat "$T/P.log"; fail "plot --compare"; }
grep "overview.gp" "$T/S/gnuplot.log" | grep -q "sel='canal pgs@omega=1.3 '" || fail "plot --compare: $(grep overview.gp "$T/S/gnuplot.log")"
"$NCPBENCH" plot "$T/S" --compare canal,nope > "$T/P2.log" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "'nope' is not a solver of" "$T/P2.log" || fail "plot --compare nope: exit $rc, $(cat "$T/P2.log")"

# ---- a graded program: its page the same way ----
if "$PY" -c 'import h5py, numpy' 2> /dev/null; then
  "$PY" examples/python/simple_solver.py "$T/S/problems.h5" "$T/ans.h5" > /dev/null || fail "simple_solver.py"
  "$NCPBENCH" grade "$T/S/problems.h5" "$T/ans.h5" --name py-pgs --out "$T/G" > "$T/G.log" 2>&1 \
    || { cat "$T/G.log"; fail "grade"; }
  [ "$(tail -1 "$T/G.log")" = "results page (open in a browser): $T/G/index.html" ] \
    || fail "grade does not end with the page: $(tail -2 "$T/G.log")"
  dom "file://$T/G/index.html" "$T/G.dom" && { check "$T/G" "$T/G.dom" || fail "the page of the graded run"; }
else
  echo "note: python3-h5py/numpy missing: the graded page not checked"
fi
[ "$fails" = 0 ] || exit 1
echo "page: OK"
