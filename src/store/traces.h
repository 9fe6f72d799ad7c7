/* Per-iteration traces of a benchmark run: OUT/traces.h5, and the one reader of traces that
 * every consumer uses (plots, figure sets, resume, tests), which also reads the traces.csv of
 * older runs (docs/design.md, "Outputs").
 *
 * traces.h5 layout (HDF5 >= 1.8 format; h5py/pandas read it in one line per trace):
 *   /traces                      attrs: columns (string array), sampling ("log" or "every")
 *   /traces/<solver>/<problem>   float64 dataset (rows, columns): one row per stored iteration,
 *                                columns iter, time_ms, then the metric columns (names in the
 *                                attribute `columns` of /traces); attrs iterations (the solve's
 *                                reported iteration count) and status
 *   e.g. cols = f["traces"].attrs["columns"]
 *        pd.DataFrame(f["traces/pgs/incline-0001"][:], columns=cols)
 * (the names are not repeated on every dataset: a variable-length string attribute costs a
 * 4 KiB global-heap collection each, more than a whole compressed trace)
 * Groups keep their creation order (the run order); datasets are chunked, shuffled and
 * deflate-compressed when the HDF5 library has the deflate filter (H5Zfilter_avail), else
 * stored uncompressed. A trace with no rows (a solver that declined the problem) is not
 * stored.
 *
 * The file is written under path.tmp-<pid>, flushed after every trace (an interrupted run
 * keeps what it finished in that file) and renamed to path by ncp_traces_close, as
 * solutions.h5 (store/solutions.h). */
#ifndef NCP_TRACES_H
#define NCP_TRACES_H

#include <stddef.h>

#include "util/ncp_error.h"

/* Columns before the metric columns, in both formats' blocks. */
#define NCP_TRACE_FIXED 2 /* iter, time_ms */
/* Columns a trace may have (fixed ones included). */
#define NCP_TRACE_MAX_COLS 64

/* ---- writing ---- */
typedef struct ncp_traces ncp_traces;
/* cols: the ncols column names (iter, time_ms, metrics); sampling: "log" or "every". */
int ncp_traces_create(const char *path, int ncols, const char *const *cols, const char *sampling,
                      ncp_traces **out, ncp_error *err);
/* One trace: rows is nrows x ncols, row-major. Replaces an earlier trace of the same pair.
 * nrows == 0 writes nothing. Names must be usable as HDF5 link names (no '/', not "." or ".."). */
int ncp_traces_write(ncp_traces *t, const char *solver, const char *problem, int nrows,
                     const double *rows, int iterations, const char *status, ncp_error *err);
/* 1 when the datasets are deflate-compressed. */
int ncp_traces_compressed(const ncp_traces *t);
/* Closes and renames into place; NULL is fine. */
int ncp_traces_close(ncp_traces *t, ncp_error *err);
/* Flushing after every trace (the default) keeps what an interrupted writer finished readable;
 * a writer whose traces are kept elsewhere (bench/journal.h) turns it off for speed. */
void ncp_traces_set_flush(ncp_traces *t, int on);

/* ---- reading ---- */
/* One trace as read back. */
typedef struct ncp_trace_block {
    const char *solver, *problem;
    int nrows, ncols;
    const char *const *cols; /* ncols names: "iter", "time_ms", then the metrics */
    const double *data;      /* nrows x ncols, row-major; iter values are integers >= 0 and
                                time_ms values finite and >= 0 (checked by the reader) */
    const char *file;        /* the file read, for messages */
    long line;               /* traces.csv: line of the first row (row i is at line + i);
                                traces.h5: 0 */
    int iterations;          /* traces.h5 attribute, -1 if absent (traces.csv) */
    const char *status;      /* traces.h5 attribute, NULL if absent */
    const char *sampling;    /* traces.h5: "log" or "every" (/traces attribute); NULL: unknown
                                (traces.csv) */
} ncp_trace_block;

/* Called once per trace; return NCP_OK to go on, an error code (err set) to stop. */
typedef int (*ncp_trace_block_fn)(void *ctx, const ncp_trace_block *b, ncp_error *err);

/* Reads every trace of path: an HDF5 file written by ncp_traces_write (in creation order), or
 * a traces.csv (header problem,solver,iteration,time_ms,<metrics>; each run of consecutive rows
 * of one (problem, solver) pair is one block, in file order). Bad input is NCP_ERR_INPUT naming
 * the file and line (CSV) or dataset (HDF5) and the column. A file without any trace:
 * NCP_ERR_INPUT "no trace rows". */
int ncp_traces_read(const char *path, ncp_trace_block_fn fn, void *ctx, ncp_error *err);

/* The traces of an output directory: DIR/traces.h5 if it exists, else DIR/traces.csv (older
 * runs, or runs with --traces-csv only), into path (n bytes). Neither: NCP_ERR_INPUT. */
int ncp_traces_locate(const char *dir, char *path, size_t n, ncp_error *err);

/* ncp_traces_locate then ncp_traces_read. */
int ncp_traces_read_dir(const char *dir, ncp_trace_block_fn fn, void *ctx, ncp_error *err);

/* Random access to one trace of a traces.h5 (resume). */
typedef struct ncp_traces_in ncp_traces_in;
int ncp_traces_in_open(const char *path, ncp_traces_in **out, ncp_error *err);
/* Calls fn on the trace of (solver, problem) if the file has it (*found = 1), else *found = 0. */
int ncp_traces_in_get(ncp_traces_in *r, const char *solver, const char *problem,
                      ncp_trace_block_fn fn, void *ctx, int *found, ncp_error *err);
void ncp_traces_in_close(ncp_traces_in *r);

/* ---- log-scale sampling of stored rows ---- */
/* 1 when iteration k is stored under log sampling: k <= 20, or floor(20 log10 k) differs from
 * floor(20 log10 (k-1)) (about 20 rows per decade). The last iteration of a solve is stored
 * too, whatever k (the writer's business). */
int ncp_traces_sample_keep(long k);

#endif
