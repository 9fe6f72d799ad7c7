"""Shared by the studies' independent checkers (tests/check_study_<key>.py): reading the raw
results (compact copies included) and applying a rule, the same way for every paper. Nothing
here reads the program's values or verdicts."""
import csv
import gzip
import math
import os


def read_csv(path):
    """Rows of path, or of path.gz (scripts/compact_study.py) when path does not exist."""
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        with gzip.open(path + ".gz", "rt", newline="") as f:
            return list(csv.DictReader(f))
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def run_rows(cdir):
    """Per run of a configuration's folder: (its runs.csv row, its folder, its solver's rows of
    the folder's metrics.csv in order, the first row of each problem: a resumed run may repeat
    one, and C keeps the first); no rows when the folder has no metrics.csv or runs.csv says the
    run did not run (ran 0: its folder may hold an earlier run's results, `figures --parts`
    into the same folder, which this run did not read)."""
    folders = {}
    for r in read_csv(os.path.join(cdir, "runs.csv")):
        fdir = os.path.join(cdir, r["folder"])
        if r.get("ran", "1") == "0":
            yield r, fdir, []
            continue
        if r["folder"] not in folders:
            m = os.path.join(fdir, "metrics.csv")
            have = os.path.exists(m) or os.path.exists(m + ".gz")
            folders[r["folder"]] = read_csv(m) if have else []
        seen, rows = set(), []
        for x in folders[r["folder"]]:
            if x["solver"] == r["solver"] and x["problem"] not in seen:
                seen.add(x["problem"])
                rows.append(x)
        yield r, fdir, rows


def num(s):
    return float(s) if s not in ("", None) else math.nan


def same_num(a, b):
    """Equal to 1e-9 relative (nan equals nan, an infinity only itself)."""
    if math.isnan(a) and math.isnan(b):
        return True
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def holds(conds, v):
    """Every condition (value index, lo, hi) holds: lo <= v[i] <= hi, nan bounds open, a nan
    value outside; no conditions: no tier."""
    if not conds:
        return False
    for i, lo, hi in conds:
        x = v[i] if i < len(v) else math.nan
        if math.isnan(x) or (not math.isnan(lo) and not x >= lo) or \
                (not math.isnan(hi) and not x <= hi):
            return False
    return True


def conds_text(conds):
    return ";".join(f"v{i}:{lo!r}:{hi!r}" for i, lo, hi in conds)


def parse_conds(text):
    """claims.csv's "v0:lo:hi;v1:lo:hi" as conditions."""
    out = []
    for item in filter(None, text.split(";")):
        i, lo, hi = item.split(":")
        out.append((int(i[1:]), float(lo), float(hi)))
    return out


def same_conds(a, b):
    return len(a) == len(b) and all(x[0] == y[0] and same_num(x[1], y[1]) and
                                    same_num(x[2], y[2]) for x, y in zip(a, b))


def study_output(key, argv, fail):
    """The study's folder: argv's first non-option argument, or a fresh
    `ncpbench figures --paper KEY --quick` ($NCPBENCH) into a scratch folder; None (after
    fail(message)) when that run fails."""
    import subprocess
    import tempfile
    args = [a for a in argv[1:] if not a.startswith("--")]
    if args:
        return args[0]
    tmp = tempfile.mkdtemp(prefix=key + "-")
    exe = os.environ.get("NCPBENCH", "./build/ncpbench")
    r = subprocess.run([exe, "figures", "--paper", key, "--quick", "--out", tmp],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout + r.stderr)
        fail(f"ncpbench figures --paper {key} exited {r.returncode}")
        return None
    return os.path.join(tmp, key)


# stamp.txt (src/figures/study_stamp.c): each key with the pattern of its value; "earlier:"
# lines (runs into the same folder before this one) may follow, repeated.
_NUM = r"\d+(\.\d+)?"
_DATE = r"\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? UTC"
_LOAD = rf"{_NUM}( {_NUM}){{0,2}}|unknown"
STAMP_KEYS = {
    "commit": r"[0-9a-f]{7,40}(\+dirty)?( \(.+\))?|unknown \(.+\)",
    "started": _DATE,
    "machine": r".+, \d+ cores",
    "load at start": _LOAD,
    "blas": r"(reference|openblas), OPENBLAS_NUM_THREADS=\S+",
    "jobs": r"[1-9]\d*",
    "size": r"quick|full",
    "seed": r"\d+",
    "command": r"ncpbench figures --paper \S+( .*)?",
    "recorded": r"by the run|after the run, from .+",
    "ended": _DATE,
    "load at end": _LOAD,
}


def read_stamp(out):
    """stamp.txt of a study's folder as (key -> value, earlier lines); None when absent."""
    path = os.path.join(out, "stamp.txt")
    if not os.path.exists(path):
        return None
    keys, earlier = {}, []
    for line in open(path, encoding="utf-8").read().splitlines():
        key, sep, value = line.partition(": ")
        if key == "earlier" and sep:
            earlier.append(value)
        else:
            keys[key if sep else line] = value
    return keys, earlier


def selected_parts(out):
    """The parts this run of study folder out ran: the `--parts` of its stamp's command, None
    for every part (no --parts, or no stamp). A part folder of another part may be an earlier
    run's (figures --parts into the same folder)."""
    got = read_stamp(out)
    cmd = got[0].get("command", "").split() if got else []
    if "--parts" not in cmd[:-1]:
        return None
    return set(cmd[cmd.index("--parts") + 1].split(","))


def stamp_problems(out, key):
    """What is wrong with the stamp of study folder out (empty: present and well formed)."""
    import re
    got = read_stamp(out)
    if got is None:
        return [f"{out}: no stamp.txt"]
    keys, _ = got
    bad = [f"{out}/stamp.txt: missing '{k}'" for k in STAMP_KEYS if k not in keys]
    bad += [f"{out}/stamp.txt: unknown line '{k}'" for k in keys if k not in STAMP_KEYS]
    for k, pattern in STAMP_KEYS.items():
        if k in keys and not re.fullmatch(pattern, keys[k]):
            bad.append(f"{out}/stamp.txt: {k} '{keys[k]}' is not of the form {pattern}")
    cmd = keys.get("command", "").split()
    if cmd[3:4] and cmd[3] != key:
        bad.append(f"{out}/stamp.txt: the command runs {cmd[3]}, not {key}")
    if ("--quick" in cmd) != (keys.get("size") == "quick"):
        bad.append(f"{out}/stamp.txt: size {keys.get('size')} but the command {' '.join(cmd)}")
    if keys.get("ended", "~") < keys.get("started", ""):
        bad.append(f"{out}/stamp.txt: ended {keys.get('ended')} before started")
    return bad


class NotRun(Exception):
    """A run a claim needs did not run: the verdict is "not run"."""


class NotTestable(Exception):
    """The results cannot test the claim (its rule says when, e.g. a task no contact decides):
    the verdict is "not testable"; args[0] holds the claim's values."""


def rule_verdict(rule, compute):
    """(verdict, values) of a claim under rule ((yes, partly) conditions; None: not testable),
    its values from compute() (NotRun: "not run")."""
    if rule is None:
        return "not testable", []
    try:
        v = compute()
    except NotRun:
        return "not run", []
    except NotTestable as e:
        return "not testable", e.args[0]
    return ("yes" if holds(rule[0], v) else "partly" if holds(rule[1], v) else "no"), v


class Checker:
    """What every study checker shares: its tally of checks and mismatches, the comparison of
    the program's claims.csv with the recomputed verdicts, the raw mutation on a copy of the
    output (the comparison must then fail), the run over the configurations and the exit
    status. The rules are the checker's own copy: claim -> (yes, partly) conditions, None when
    not testable."""

    def __init__(self, name, rules):
        self.name, self.rules = name, rules
        self.bad = self.checked = 0
        self.expecting = False  # inside a raw mutation: the mismatches found are the point

    def fail(self, msg):
        self.bad += 1
        print(("  (expected) " if self.expecting else self.name + ": ") + msg)

    def compare_claims(self, cdir, verdict, quiet=False, undeclared=(), absent=()):
        """claims.csv of cdir against verdict(cid) -> (verdict, values), for every rule: the
        verdict, each value (1e-9 relative) and the rule's bands must agree. A claim of
        undeclared (a run made before the study measured it: its claims.csv says "not run" with
        no rule) is compared on its verdict alone, which must then be "not run" on both sides;
        the claims of absent (a run made before the study declared them) must not be there."""
        program = {r["claim"]: r for r in read_csv(os.path.join(cdir, "claims.csv"))}
        expected = sorted(c for c in self.rules if c not in absent)
        if sorted(program) != expected:
            self.fail(f"{cdir}: claims {sorted(program)}, expected {expected}")
        for cid, rule in self.rules.items():
            if cid not in program or cid in absent:
                continue
            ver, v = verdict(cid)
            p = program[cid]
            self.checked += 1
            if ver != p["verdict"]:
                self.fail(f"{cdir} {cid}: verdict {p['verdict']}, recomputed {ver} from {v}")
            pv = [num(p["v0"]), num(p["v1"]), num(p["v2"])]
            for i, x in enumerate(v):
                if not same_num(x, pv[i]):
                    self.fail(f"{cdir} {cid}: v{i} {pv[i]}, recomputed {x}")
            legacy = cid in undeclared and ver == p["verdict"] == "not run" and \
                not p["yes"] and not p["partly"]
            if rule is not None and not legacy and (
                    not same_conds(rule[0], parse_conds(p["yes"])) or
                                     not same_conds(rule[1], parse_conds(p["partly"]))):
                self.fail(f"{cdir} {cid}: the program's rule {p['yes']} / {p['partly']} is not "
                          f"the checker's {conds_text(rule[0])} / {conds_text(rule[1])}")
            if not quiet:
                print(f"  {os.path.basename(cdir)} {cid}: {ver} {['%.4g' % x for x in v]}")

    def rule_mutations(self, cdir, muts, verdict):
        """muts: claim -> {verdict wanted: runs replacing the raw ones}; verdict(cid, runs) must
        give the verdict wanted for each, and every rule that is not "not testable" needs one."""
        for cid, m in muts.items():
            for want, runs in m.items():
                got, v = verdict(cid, runs)
                self.checked += 1
                if got != want:
                    self.fail(f"mutation {os.path.basename(cdir)} {cid} -> {want}: verdict {got} "
                              f"{v}")
        untested = [c for c, r in self.rules.items() if r is not None and c not in muts]
        if untested:
            self.fail(f"claims without a mutation: {untested}")

    def check_params(self, where, got, want):
        """The parameters a solve ran with (config.json's params of its solver) hold every
        setting of want (name -> value)."""
        for name, value in want.items():
            if name not in got or not same_num(float(got[name]), value):
                self.fail(f"{where}: {name} ran as {got.get(name)}, the paper's setting is {value}")

    def expect_failure(self, check):
        """True when check() finds a mismatch; those mismatches are not counted."""
        before = self.bad
        self.expecting = True
        check()
        self.expecting = False
        caught = self.bad > before
        self.bad = before
        return caught

    def raw_mutations(self, out, key, perturbs, check):
        """Each (what, perturb(copy)) of perturbs on a fresh copy of out: check(copy) must then
        find a mismatch."""
        import shutil
        import tempfile
        tmp = tempfile.mkdtemp(prefix=key + "-raw-")
        copy = os.path.join(tmp, key)
        for what, perturb in perturbs:
            if os.path.exists(copy):
                shutil.rmtree(copy)
            shutil.copytree(out, copy)
            perturb(copy)
            if self.expect_failure(lambda: check(copy)):
                print(f"  raw mutation: {what} is caught")
            else:
                self.fail(f"{what} went unnoticed")
        shutil.rmtree(tmp)

    def stamp_mutations(self, out, key):
        """A stamp removed, or with a line off its form, must be caught."""
        import shutil
        import tempfile
        text = open(os.path.join(out, "stamp.txt"), encoding="utf-8").read()
        cases = [("no stamp", None),
                 ("a commit that is no hash", "commit: HEAD\n"),
                 ("size against the command", "size: " +
                  ("full" if "size: quick" in text else "quick") + "\n"),
                 ("no load at the end", "")]
        tmp = tempfile.mkdtemp(prefix=key + "-stamp-")
        for what, line in cases:
            path = os.path.join(tmp, "stamp.txt")
            if os.path.exists(path):
                os.remove(path)
            if line is not None:
                key_of = line.split(":")[0] if line else "load at end"
                kept = [x for x in text.splitlines(True) if not x.startswith(key_of + ":")]
                open(path, "w", encoding="utf-8").write("".join(kept) + line)
            self.checked += 1
            if stamp_problems(tmp, key):
                print(f"  stamp mutation: {what} is caught")
            else:
                self.fail(f"stamp mutation: {what} went unnoticed")
        shutil.rmtree(tmp)

    def main(self, key, argv, check_config, mutate, mutate_raw):
        """Checks both configurations of the study's output (argv's folder, or a fresh --quick
        run), with --mutate the mutations too; returns the exit status (1 on any mismatch)."""
        out = study_output(key, argv, self.fail)
        if out is not None:
            self.checked += 1
            for problem in stamp_problems(out, key):
                self.fail(problem)
            for config in ("paper", "defaults"):
                cdir = os.path.join(out, config)
                data = check_config(cdir)
                if "--mutate" in argv:
                    mutate(cdir, data)
            if "--mutate" in argv:
                mutate_raw(out)
                self.stamp_mutations(out, key)
        print(f"{self.name}: {self.checked} checks, {self.bad} mismatches")
        return 1 if self.bad or not self.checked else 0


def sim_rows(cdir):
    """Per sim of a configuration's folder (study_sim.c): (its sims.csv row, its folder, its
    steps.csv rows, its task.json's first solver or None); no rows when it did not run."""
    import json
    path = os.path.join(cdir, "sims.csv")
    if not os.path.exists(path) and not os.path.exists(path + ".gz"):
        return
    for r in read_csv(path):
        fdir = os.path.join(cdir, r["folder"])
        steps = os.path.join(fdir, "steps.csv")
        have = r["ran"] == "1" and (os.path.exists(steps) or os.path.exists(steps + ".gz"))
        task = os.path.join(fdir, "task.json")
        summary = json.load(open(task))["solvers"][0] if have and os.path.exists(task) else None
        yield r, fdir, read_csv(steps) if have else [], summary


def figures_complete(stem, fail):
    """stem.png and stem.svg, which a study's reducer draws with gnuplot, complete (a PNG to its
    IEND chunk, an SVG to </svg>) and the SVG free of dates and times (figures are deterministic);
    when gnuplot is not installed the run skips them and so does this. Returns the checks made."""
    import re
    import shutil
    if not shutil.which("gnuplot"):
        print(f"  {stem}: gnuplot not installed, figures not checked")
        return 0
    for ext in ("png", "svg"):
        path = stem + "." + ext
        if not os.path.exists(path):
            fail(f"{path}: missing (gnuplot is installed)")
            continue
        data = open(path, "rb").read()
        if ext == "png" and not data.endswith(b"IEND\xaeB`\x82"):
            fail(f"{path}: not a complete PNG")
        if ext == "svg":
            text = data.decode("utf-8", "replace")
            if "</svg>" not in text:
                fail(f"{path}: not a complete SVG")
            if re.search(r"\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d", text):
                fail(f"{path}: a date or time in the SVG (figures must be deterministic)")
    return 2
