/* Output formats (docs/design.md): CSV rows readable as they are by pandas and gnuplot, and
 * summary.json. Numbers are printed with %.17g so they round-trip; NaN prints as "nan" in CSV
 * (pandas and gnuplot read it) and null in JSON. */
#ifndef NCP_OUTPUT_H
#define NCP_OUTPUT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "bench/bench.h"
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
/* One CSV text field as above (no separator). */
void ncp_out_field(FILE *f, const char *s);
/* traces.csv */
int ncp_out_traces_header(FILE *f);
int ncp_out_traces_row(FILE *f, const char *problem, const char *solver, int iter, double time_ms,
                       const double *metric_values);
/* summary.json (written atomically), with "problem_titles": the problems whose source file
 * gives a title or a description. */
typedef struct ncp_out_title {
    const char *problem, *title, *description;
} ncp_out_title;
int ncp_out_summary(const char *path, const ncp_bench_opts *o, const ncp_bench_summary *s,
                    const ncp_out_title *titles, int ntitles, ncp_error *err);
/* Writes root, indented and newline-terminated, atomically to path, and deletes it; bad: the
 * building of root failed (out of memory), nothing is written. */
int ncp_out_write_json(const char *path, cJSON *root, int bad, ncp_error *err);


#endif
