"""Two output folders hold the same results, timing aside (tests/test_faults.sh,
scripts/killtest.sh): metrics.csv row for row except its times (TIMING);
solutions.h5 every dataset and attribute exactly (NaN equal to NaN); traces.h5 every trace
exactly except its time_ms column. Also counts the good records of a journal (bench/journal.h:
8-byte magic, then length, CRC-32, payload), read independently with zlib's crc32 (a result
record compressed by bench/resume.c, kind 'Z' or 'S', is inflated to the 'R' record it holds).

usage: check_same_results.py REF DIR      exit 0 when the same, 1 listing the differences
       check_same_results.py --journal DIR   prints the number of good result records
       check_same_results.py --journal-finished DIR   the same without the `stopped` ones
"""
import csv
import os
import struct
import sys
import zlib

TIMING = {"setup_ms", "solve_ms", "ms_per_iter", "time_min_ms", "time_max_ms", "wall_ms"}


def unshuffle_regions(q):
    """The result payload of an inflated 'S' record: a region count, (offset, rows, cols) per
    region, padding to 8 bytes, then the payload with each region of rows x cols doubles stored
    column after column, each column as its 8 byte planes; returned with the regions restored."""
    (nreg,) = struct.unpack_from("<I", q, 0)
    head = (4 + 12 * nreg + 7) // 8 * 8
    pay = bytearray(q[head:])
    for k in range(nreg):
        off, rows, cols = struct.unpack_from("<III", q, 4 + 12 * k)
        n = rows * cols * 8
        planes = pay[off:off + n]  # index (col, byte, row)
        orig = bytearray(n)
        for c in range(cols):
            for b in range(8):
                at = (c * 8 + b) * rows
                orig[c * 8 + b::cols * 8] = planes[at:at + rows]
        pay[off:off + n] = orig
    return bytes(pay)


def journal_records(d):
    """Good records of d/journal.ncpj: (kind, payload) in file order, stopping at a bad one."""
    data = open(os.path.join(d, "journal.ncpj"), "rb").read()
    if len(data) < 8 and b"NCPJRNL1".startswith(data):
        return []  # killed while it was created
    if data[:8] != b"NCPJRNL1":
        raise SystemExit(f"{d}/journal.ncpj: no magic")
    at, out = 8, []
    while at + 8 <= len(data):
        n, crc = struct.unpack_from("<II", data, at)
        if at + 8 + n > len(data) or zlib.crc32(data[at + 8:at + 8 + n]) != crc:
            break
        kind = struct.unpack_from("<i", data, at + 8)[0]
        payload = data[at + 8:at + 8 + n]
        if chr(kind) == "Z":  # a compressed result (bench/resume.c): length, zlib stream
            payload = zlib.decompress(payload[8:])
            kind = struct.unpack_from("<i", payload, 0)[0]
        elif chr(kind) == "S":  # compressed with its regions byte-shuffled (bench/resume.c)
            payload = unshuffle_regions(zlib.decompress(payload[8:]))
            kind = struct.unpack_from("<i", payload, 0)[0]
        out.append((chr(kind), payload))
        at += 8 + n
    return out


def result_status(payload):
    """The status code of a result record (bench/resume.c: kind, problem, solver, iterations,
    converged, status; strings as a length and NUL-terminated bytes)."""
    at = 4
    for _ in range(2):
        n = struct.unpack_from("<I", payload, at)[0]
        at += 4 + n
    return struct.unpack_from("<i", payload, at + 8)[0]


STOPPED = 5  # NCP_STATUS_STOPPED (solve/solver.h): cut by an interrupt, solved again on resume


def metrics(d):
    rows = list(csv.DictReader(open(os.path.join(d, "metrics.csv"))))
    return [{k: v for k, v in r.items() if k not in TIMING} for r in rows]


def same_arrays(a, b):
    import numpy as np
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def compare_h5(ref, new, skip_col1, bad, name):
    import h5py
    import numpy as np

    def walk(g, prefix=""):
        for k, v in g.items():
            if isinstance(v, h5py.Group):
                yield from walk(v, prefix + k + "/")
            else:
                yield prefix + k, v

    with h5py.File(ref, "r") as A, h5py.File(new, "r") as B:
        da, db = dict(walk(A)), dict(walk(B))
        if sorted(da) != sorted(db):
            bad.append(f"{name}: datasets {len(da)} vs {len(db)}; only in one: "
                       f"{sorted(set(da) ^ set(db))[:5]}")
            return
        for k in da:
            x, y = da[k][()], db[k][()]
            if skip_col1 and x.ndim == 2 and y.ndim == 2 and x.shape[1] > 1:
                x, y = np.delete(x, 1, axis=1), np.delete(y, 1, axis=1)
            if not same_arrays(np.asarray(x), np.asarray(y)):
                bad.append(f"{name}: {k} differs")
            ax = {a: da[k].attrs[a] for a in da[k].attrs}
            bx = {a: db[k].attrs[a] for a in db[k].attrs}
            if sorted(ax) != sorted(bx) or any(str(ax[a]) != str(bx[a]) for a in ax):
                bad.append(f"{name}: attributes of {k} differ")
        for grp in ("solutions",):
            if grp in A and grp in B:
                for s in A[grp]:
                    for p in A[grp][s]:
                        ga, gb = A[grp][s][p], B[grp][s].get(p) if s in B[grp] else None
                        if gb is None or {a: str(ga.attrs[a]) for a in ga.attrs} != \
                                {a: str(gb.attrs[a]) for a in gb.attrs}:
                            bad.append(f"{name}: attributes of {s}/{p} differ")


def main():
    if sys.argv[1] in ("--journal", "--journal-finished"):
        recs = [p for k, p in journal_records(sys.argv[2]) if k == "R"]
        if sys.argv[1] == "--journal-finished":
            recs = [p for p in recs if result_status(p) != STOPPED]
        print(len(recs))
        return 0
    ref, new = sys.argv[1], sys.argv[2]
    bad = []
    a, b = metrics(ref), metrics(new)
    if len(a) != len(b):
        bad.append(f"metrics.csv: {len(b)} rows, want {len(a)}")
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            diff = [k for k in x if x[k] != y.get(k)]
            bad.append(f"metrics.csv row {i + 1} ({x['problem']}, {x['solver']}): {diff}")
    compare_h5(f"{ref}/solutions.h5", f"{new}/solutions.h5", False, bad, "solutions.h5")
    if os.path.exists(f"{ref}/traces.h5"):
        compare_h5(f"{ref}/traces.h5", f"{new}/traces.h5", True, bad, "traces.h5")
    left = [f for f in os.listdir(new) if ".tmp-" in f or ".prev" in f]
    if left:
        bad.append(f"temporaries left: {left}")
    for m in bad[:20]:
        print(m)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
