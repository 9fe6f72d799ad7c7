/* Output formats (docs/design.md): CSV rows readable as they are by pandas and gnuplot, and
 * summary.json. Numbers are printed with %.17g so they round-trip; NaN prints as "nan" in CSV
 * (pandas and gnuplot read it) and null in JSON. */
#ifndef NCP_OUTPUT_H
#define NCP_OUTPUT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "bench/bench.h"
#include "store/traces.h"
#include "util/stats.h" /* ncp_median, which the summary uses */

/* metrics.csv: problem, solver, iterations, converged, status, setup_ms, solve_ms,
 * ms_per_iter, the metric columns, then note (why a row is unsupported, what was reconstructed,
 * the warm start), problem_title and problem_description (the source file's, "" when absent).
 * Text fields are quoted when they need it (RFC 4180); line breaks and other control characters
 * in them become spaces (a row is one line). */
int ncp_out_metrics_ncols(void);
const char *ncp_out_metrics_col(int i); /* column i's name */
int ncp_out_metrics_header(FILE *f);
int ncp_out_metrics_row(FILE *f, const ncp_problem *p, const char *solver, const ncp_result *r,
                        const char *note);
/* The same row from its values (vals: ncp_metrics_values order); not flushed. */
int ncp_out_metrics_row_vals(FILE *f, const char *problem, const char *solver, int iterations,
                             int converged, int status, double setup_ms, double solve_ms,
                             const double *vals, const char *note, const char *title,
                             const char *description);
/* One CSV text field as above (no separator). */
void ncp_out_field(FILE *f, const char *s);
/* traces.csv (written only with --traces-csv): problem, solver, iteration, time_ms, metrics */
int ncp_out_traces_header(FILE *f);
int ncp_out_traces_row(FILE *f, const char *problem, const char *solver, int iter, double time_ms,
                       const double *metric_values);

/* The traces of a run: OUT/traces.h5 (store/traces.h) and, on request, OUT/traces.csv. Rows are
 * (iter, time_ms, the ncp_metrics_count() metric columns). Unless `every`, only the log sample
 * of a trace is stored (ncp_traces_sample_keep: iterations 1..20, then about 20 per decade)
 * plus its last row, the solve's final iterate. */
typedef struct ncp_out_traces ncp_out_traces;
int ncp_out_traces_open(const char *dir, int csv, int every, ncp_out_traces **out,
                        ncp_error *err);
/* Columns of a trace row: NCP_TRACE_FIXED + ncp_metrics_count(). */
int ncp_out_traces_ncols(void);
/* Stores one trace of n rows (n x ncp_out_traces_ncols(), row-major), sampled unless `every`;
 * flushed. iterations/status: the solve's (attributes of the HDF5 dataset). */
int ncp_out_traces_put(ncp_out_traces *t, const char *problem, const char *solver, int n,
                       const double *rows, int iterations, const char *status, ncp_error *err);
/* The rows of a trace that are stored (the log sample and the last row, or all when every),
 * copied to out (may be rows itself); returns their number. */
int ncp_out_traces_sample(const double *rows, int n, int every, double *out);
/* Closes both files, written to temporaries beside them (util/safefile.h), and renames them
 * into place; on failure both temporaries are removed and the files in place untouched.
 * NULL is fine. */
int ncp_out_traces_close(ncp_out_traces *t, ncp_error *err);
/* Closes and removes the temporaries (after an error elsewhere); NULL is fine. */
void ncp_out_traces_abort(ncp_out_traces *t);
/* summary.json (written atomically), with "problem_titles": the problems whose source file
 * gives a title or a description. */
typedef struct ncp_out_title {
    const char *problem, *title, *description;
} ncp_out_title;
int ncp_out_summary(const char *path, const ncp_bench_opts *o, const ncp_bench_summary *s,
                    const ncp_out_title *titles, int ntitles, ncp_error *err);
/* Replaces the "profile" object of an existing summary.json (the pipeline adds the time of the
 * figures, drawn after the summary is written), atomically. */
int ncp_out_summary_profile(const char *path, const ncp_profile *p, ncp_error *err);
/* Writes root, indented and newline-terminated, atomically to path (util/safefile.h), and deletes it; bad: the
 * building of root failed (out of memory), nothing is written. */
int ncp_out_write_json(const char *path, cJSON *root, int bad, ncp_error *err);


#endif
