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
