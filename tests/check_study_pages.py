#!/usr/bin/python3
"""The results pages (results/<key>.md, results/claims-summary.md) are what
scripts/study_pages.py writes from the committed studies, and every count on them is the count of
the verdicts in the committed claims.csv, recounted here with this file's own code; each claims
table's verdicts are claims.csv's; each study's stamp is present and well formed.

  check_study_pages.py             (the source tree's results/)
Exit status 1 on any difference."""
import csv
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from study_check import stamp_problems  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "results")
ORDER = ["yes", "partly", "no", "not testable", "not run"]
bad = checked = 0


def fail(msg):
    global bad
    bad += 1
    print("check_study_pages: " + msg)


def cells(line):
    """The cells of a markdown table row, split on ' | '."""
    return [c.strip() for c in line.strip().strip("|").split(" | ")]


def committed_studies():
    for key in sorted(os.listdir(RESULTS)):
        sdir = os.path.join(RESULTS, key)
        if not os.path.isdir(sdir) or not os.path.exists(os.path.join(sdir, "stamp.txt")):
            continue
        cfgs = {}
        for c in sorted(os.listdir(sdir)):
            path = os.path.join(sdir, c, "claims.csv")
            if os.path.exists(path):
                with open(path, newline="") as f:
                    cfgs[c] = list(csv.DictReader(f))
        if cfgs:
            yield key, sdir, cfgs


def check_generated():
    """The committed pages equal a fresh generation."""
    global checked
    tmp = tempfile.mkdtemp(prefix="study-pages-")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "study_pages.py"),
                        "--out", tmp], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"study_pages.py exited {r.returncode}: {r.stderr}")
        return
    for name in sorted(os.listdir(tmp)):
        checked += 1
        mine = os.path.join(RESULTS, name)
        fresh = open(os.path.join(tmp, name), encoding="utf-8").read()
        if not os.path.exists(mine):
            fail(f"results/{name} is not committed: run scripts/study_pages.py")
        elif open(mine, encoding="utf-8").read() != fresh:
            fail(f"results/{name} differs from what scripts/study_pages.py writes: rerun it")
        os.remove(os.path.join(tmp, name))
    os.rmdir(tmp)


def check_page(key, sdir, cfgs, summary):
    global checked
    page = open(os.path.join(RESULTS, key + ".md"), encoding="utf-8").read().splitlines()
    for problem in stamp_problems(sdir, key):
        fail(problem)
    for c, rows in cfgs.items():
        want = [sum(r["verdict"] == v for r in rows) for v in ORDER]
        # the page's count table and the summary's row: "| `c`: title | n n n n n |"
        for where, lines in (("results/" + key + ".md", page), ("claims-summary.md", summary)):
            found = [cells(x) for x in lines
                     if x.startswith("|") and f"`{c}`:" in x and (where != "claims-summary.md" or
                                                                 f"({key}.md)" in x)]
            found = [f for f in found if len(f) >= 6]
            checked += 1
            if len(found) != 1:
                fail(f"{where}: {len(found)} count rows for {key}/{c}, expected 1")
                continue
            f = found[0]
            got = f[-6:-1] if where == "claims-summary.md" else f[-5:]
            if [int(x) for x in got] != want:
                fail(f"{where}: {key}/{c} counts {got}, claims.csv has {want}")
        # the configuration's claims table and its count line
        start = next((i for i, x in enumerate(page) if x.startswith(f"## Configuration `{c}`")),
                     None)
        if start is None:
            fail(f"results/{key}.md: no section for configuration {c}")
            continue
        end = next((i for i in range(start + 1, len(page)) if page[i].startswith("## ")),
                   len(page))
        section = page[start:end]
        for r in rows:
            checked += 1
            row = [cells(x) for x in section if x.startswith(f"| {r['claim']} |")]
            if len(row) != 1 or row[0][-2] != r["verdict"]:
                fail(f"results/{key}.md {c} {r['claim']}: the table says "
                     f"{row[0][-2] if len(row) == 1 else 'nothing'}, claims.csv {r['verdict']}")
        line = (f"Count (this configuration alone): {want[0]} reproduced, {want[1]} partly, "
                f"{want[2]} not reproduced, {want[3]} not testable, {want[4]} not run.")
        checked += 1
        if line not in section:
            fail(f"results/{key}.md {c}: no line '{line}'")


def main():
    check_generated()
    summary = open(os.path.join(RESULTS, "claims-summary.md"),
                   encoding="utf-8").read().splitlines()
    for key, sdir, cfgs in committed_studies():
        check_page(key, sdir, cfgs, summary)
    print(f"check_study_pages: {checked} checks, {bad} mismatches")
    return 1 if bad or not checked else 0


sys.exit(main())
