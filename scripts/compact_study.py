#!/usr/bin/python3
"""Copies the raw results of a study (`ncpbench figures --paper KEY --out OUT`) that its checker
needs into DEST, compactly, for committing beside results/REPORT.md:

  compact_study.py OUT/KEY DEST [--no-traces] [--keep=A,B] [--gzip-metrics] [--metrics-columns=A,B,...]
                                 [--steps-drop=A,B,...]
                                    e.g. results/figures/tasora2021 results/tasora2021

The run's stamp.txt and study.md; per configuration: runs.csv, claims.csv, claims.md and
claim_inputs.csv (the program's: for the checker's comparison and the results pages,
scripts/study_pages.py), and per run folder config.json, metrics.csv and traces.csv.gz with
only the columns a checker reads (problem, solver, iteration, natural_map_rel_acary,
penetration, ncp_dual, sap_momentum), every number written with 17 significant digits as the
benchmark writes them; each capture's capture.txt (its key and counts: the contacts a claim may
read), not its problems.h5; the simulations' sims.csv and each sim folder's task.json and
steps.csv.gz (src/figures/study.h ncp_study_sim: every column). --no-traces leaves the traces
out (a study whose checker reads none), --keep=A,B keeps only those trace columns beside
problem, solver and iteration (lee2025: time_ms,al_residual), --gzip-metrics writes
metrics.csv.gz (the checkers read either), --metrics-columns keeps only those columns of
metrics.csv, every row (ncpreport2025's full run: problem,solver,converged), --steps-drop
leaves those columns out of every sim's steps.csv where it has them, every row kept (castro2023's
full run: the timings and step statistics its checker does not read). Then
`tests/check_study_KEY.py DEST` recomputes every claim from DEST alone."""
import contextlib
import csv
import gzip
import io
import os
import shutil
import sys

KEEP = ["problem", "solver", "iteration", "natural_map_rel_acary", "penetration", "ncp_dual",
        "sap_momentum"]


@contextlib.contextmanager
def gz_open(name, mode):
    """A gzip file without a time or name in its header: the same rows give the same bytes, so
    git stores a file repeated across configurations once."""
    with open(name, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw,
                                                mtime=0) as z:
        if mode == "wb":
            yield z
        else:
            with io.TextIOWrapper(z, newline="") as t:
                yield t


def copy_metrics(path, fout, gz, columns):
    """path into fout: as it is, or only columns (every row), gzip'd when gz."""
    name = os.path.join(fout, "metrics.csv" + (".gz" if gz else ""))
    if columns is None:
        with open(path, "rb") as fi, (gz_open(name, "wb") if gz else open(name, "wb")) as fo:
            shutil.copyfileobj(fi, fo)
        return
    with open(path, newline="") as fi, \
            (gz_open(name, "wt") if gz else open(name, "w", newline="")) as fo:
        w = csv.writer(fo, lineterminator="\n")
        w.writerow(columns)
        for row in csv.DictReader(fi):
            w.writerow([row[k] for k in columns])


def copy_csv(path, name, drop):
    """path gzip'd into name: as it is, or without the columns in drop (every row)."""
    if not drop:
        with open(path, "rb") as fi, gz_open(name, "wb") as fo:
            shutil.copyfileobj(fi, fo)
        return
    with open(path, newline="") as fi, gz_open(name, "wt") as fo:
        rows = csv.DictReader(fi)
        columns = [k for k in rows.fieldnames or [] if k not in drop]
        w = csv.writer(fo, lineterminator="\n")
        w.writerow(columns)
        for row in rows:
            w.writerow([row[k] for k in columns])


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    src, dest = args[0], args[1]
    traces, gz = "--no-traces" not in sys.argv, "--gzip-metrics" in sys.argv
    columns, keep, steps_drop = None, KEEP, []
    for a in sys.argv[1:]:
        if a.startswith("--keep="):
            keep = ["problem", "solver", "iteration"] + a.split("=", 1)[1].split(",")
        if a.startswith("--metrics-columns="):
            columns = a.split("=", 1)[1].split(",")
        if a.startswith("--steps-drop="):
            steps_drop = a.split("=", 1)[1].split(",")
    os.makedirs(dest, exist_ok=True)
    for f in ("study.md", "stamp.txt"):
        if os.path.exists(os.path.join(src, f)):
            shutil.copy(os.path.join(src, f), dest)
    caps = os.path.join(src, "captures")
    for cid in sorted(os.listdir(caps)) if os.path.isdir(caps) else []:
        meta = os.path.join(caps, cid, "capture.txt")
        if os.path.exists(meta):
            os.makedirs(os.path.join(dest, "captures", cid), exist_ok=True)
            shutil.copy(meta, os.path.join(dest, "captures", cid))
    for config in sorted(os.listdir(src)):
        cdir = os.path.join(src, config)
        if not os.path.exists(os.path.join(cdir, "runs.csv")):
            continue
        out = os.path.join(dest, config)
        os.makedirs(out, exist_ok=True)
        for f in ("runs.csv", "claims.csv", "claims.md", "claim_inputs.csv"):
            shutil.copy(os.path.join(cdir, f), out)
        if os.path.exists(os.path.join(cdir, "sims.csv")):
            shutil.copy(os.path.join(cdir, "sims.csv"), out)
            for r in csv.DictReader(open(os.path.join(cdir, "sims.csv"), newline="")):
                fdir, fout = os.path.join(cdir, r["folder"]), os.path.join(out, r["folder"])
                if not os.path.exists(os.path.join(fdir, "steps.csv")):
                    continue
                os.makedirs(fout, exist_ok=True)
                shutil.copy(os.path.join(fdir, "task.json"), fout)
                copy_csv(os.path.join(fdir, "steps.csv"), os.path.join(fout, "steps.csv.gz"),
                         steps_drop)
        for folder in sorted(os.listdir(cdir)):
            fdir = os.path.join(cdir, folder)
            if not os.path.exists(os.path.join(fdir, "metrics.csv")):
                continue
            fout = os.path.join(out, folder)
            os.makedirs(fout, exist_ok=True)
            shutil.copy(os.path.join(fdir, "config.json"), fout)
            copy_metrics(os.path.join(fdir, "metrics.csv"), fout, gz, columns)
            if not traces or not os.path.exists(os.path.join(fdir, "traces.csv")):
                continue  # a program's run (ncpbench grade) has no traces
            with open(os.path.join(fdir, "traces.csv"), newline="") as fi, \
                    gz_open(os.path.join(fout, "traces.csv.gz"), "wt") as fo:
                w = csv.writer(fo, lineterminator="\n")
                w.writerow(keep)
                for row in csv.DictReader(fi):
                    w.writerow([row[k] for k in keep])


main()
