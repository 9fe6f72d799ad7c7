/* Output formats (docs/design.md): CSV rows readable as they are by pandas and gnuplot, and
 * summary.json. Numbers are printed with %.17g so they round-trip; NaN prints as "nan" in CSV
 * (pandas and gnuplot read it) and null in JSON. */
#ifndef NCP_OUTPUT_H
#define NCP_OUTPUT_H

#include <stdio.h>

#include "bench/bench.h"
#include "util/stats.h" /* ncp_median, which the summary uses */

/* metrics.csv */
int ncp_out_metrics_header(FILE *f);
int ncp_out_metrics_row(FILE *f, const char *problem, const char *solver, const ncp_result *r);
/* traces.csv */
int ncp_out_traces_header(FILE *f);
int ncp_out_traces_row(FILE *f, const char *problem, const char *solver, int iter, double time_ms,
                       const double *metric_values);
/* summary.json (written atomically) */
int ncp_out_summary(const char *path, const ncp_bench_opts *o, const ncp_bench_summary *s,
                    ncp_error *err);


#endif
