#!/usr/bin/python3
"""`ncpbench figures --paper KEY --quick --parts SUBSET` for each SUBSET given, checked by the
study's independent checker (tests/check_study_KEY.py), which recomputes every claim from the raw
results that subset left and compares its verdict with the program's claims.csv. Each subset runs
twice: into a fresh folder, and into one folder shared by the subsets in turn, where the earlier
subsets' part folders and captures stay behind (runs.csv's ran, the stamp's command say what this
run ran). A claim whose inputs were not run must be "not run" on both sides, also when its own
part ran and another part it reads did not (Castro et al. 2023's C6, whose part n200_sap ran
while the 17 other captures it counts were never made, was reported "no"), and a part's figure
must not fail the run when the parts it draws were left out (the NCP report's time against
accuracy, drawn for --parts suite, failed the run in gnuplot).

Usage: study_parts.py KEY SUBSET...   (SUBSET: part ids joined by commas; $NCPBENCH: the binary)
Exit status 1 when a run fails or a checker finds a mismatch."""
import os
import shutil
import subprocess
import sys
import tempfile


def run_and_check(exe, checker, key, parts, top, where):
    """One run of subset parts into top, then the checker on top/KEY; False on a failure."""
    r = subprocess.run([exe, "figures", "--paper", key, "--quick", "--parts", parts,
                        "--out", top], capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout[-3000:] + r.stderr)
        print(f"study_parts: {key} --parts {parts} ({where}): ncpbench exited {r.returncode}")
        return False
    c = subprocess.run([sys.executable, checker, os.path.join(top, key)],
                       capture_output=True, text=True)
    verdicts = [line for line in c.stdout.splitlines() if not line.startswith("  ")]
    print(f"{key} --parts {parts} ({where}): " + "; ".join(verdicts))
    if c.returncode != 0:
        print(c.stdout + c.stderr)
    return c.returncode == 0


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    key, subsets = argv[1], argv[2:]
    exe = os.environ.get("NCPBENCH", "./build/ncpbench")
    checker = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"check_study_{key}.py")
    shared = tempfile.mkdtemp(prefix=f"{key}-parts-shared-")
    bad = 0
    for parts in subsets:
        tmp = tempfile.mkdtemp(prefix=f"{key}-parts-")
        bad += not run_and_check(exe, checker, key, parts, tmp, "fresh folder")
        shutil.rmtree(tmp)
        bad += not run_and_check(exe, checker, key, parts, shared, "shared folder")
    shutil.rmtree(shared)
    print(f"study_parts {key}: {len(subsets)} subsets, {bad} runs failed")
    return 1 if bad else 0


sys.exit(main(sys.argv))
