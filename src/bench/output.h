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
 * ms_per_iter (on the run's clock: summary.json "clock", CPU by default), time_min_ms and
 * time_max_ms (the extremes of setup_ms + solve_ms over --repeat N, where the row's times are
 * the repeat of median time; the time itself with one repeat), wall_ms (setup_ms + solve_ms
 * measured on the wall clock; nan in rows journaled before it existed), the metric columns, then note (why a row is unsupported, what was reconstructed,
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
                             double time_min_ms, double time_max_ms, double wall_ms,
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


/* ---- Results tables (issue 16: the tables the field reads) ----
 * Per solver over the problems of one or more metrics.csv files: the success rate at the
 * tolerance, the shifted geometric means of time and iterations normalised to the best solver,
 * rho(1) and rho(10) of the Dolan-More profile, the median time over the problems solved.
 *   - success: converged rows / problems. An unsupported row (the problem lacks what the solver
 *     needs), a missing row and every other status are failures of the whole set, as in
 *     qpbenchmark (a solver's failure on any problem of the test set counts); the rate over
 *     the solver's supported rows is reported beside it.
 *   - time: setup_ms + solve_ms of a converged row; a failure counts at the run's time budget
 *     when one is set (qpbenchmark, results.py get_shgeom_for_metric_and_settings: the
 *     runtime of an unsolved problem is the settings' time limit), else at the largest time any
 *     solver took on that problem (never below the failing run's own time). Shift 10 ms.
 *   - iterations: of a converged row; a failure counts at the run's max_iter (without one, a
 *     graded run's: at the most iterations any solver ran on the problem). Shift 10
 *     iterations: the same role as the 10 ms, so that problems solved in a handful of
 *     iterations by everyone (a warm start, a single contact) weigh little against the
 *     problems that separate the solvers.
 *   - normalised: SGM_s / min over the solvers of SGM (qpbenchmark: 1.0 is the best).
 *   - rho(tau): ncp_perf_rho on setup_ms + solve_ms of converged rows floored at
 *     NCP_RESULTS_TIME_FLOOR_MS, failures infinite (the profile of fig_profiles.c). */
#define NCP_RESULTS_TIME_SHIFT_MS 10.0
#define NCP_RESULTS_ITER_SHIFT 10.0
#define NCP_RESULTS_TIME_FLOOR_MS 1e-6

typedef struct ncp_results_cell {
    int present;     /* 0: the solver has no row for the problem (an interrupted run) */
    int converged;   /* the converged column */
    int unsupported; /* status "unsupported" */
    int iterations;
    double time_ms;  /* setup_ms + solve_ms; NaN: not timed (graded answers without a time,
                        docs/answers.md) */
} ncp_results_cell;

/* Rows of metrics.csv files as a problems x solvers grid. Zero-initialise; free with
 * ncp_results_grid_free. */
typedef struct ncp_results_grid {
    int np, ns;
    char **solver;          /* the ns solver names, in order of first appearance */
    char **problem;         /* the np problem names */
    ncp_results_cell *cell; /* np x ns, row-major */
    double *fail_time_ms;   /* per problem: its run's time budget, <= 0 when none */
    int *fail_iter;         /* per problem: its run's max_iter */
    int cap, file_first;    /* private */
} ncp_results_grid;

/* Adds the rows of one metrics.csv (problem, solver, iterations, converged, status, setup_ms,
 * solve_ms) to g, its problems new ones (the same name in another file is another problem)
 * with that run's budget: time_ms (<= 0: none) and max_iter. Errors name file:line. */
int ncp_results_read_csv(ncp_results_grid *g, const char *csv, double time_ms, int max_iter,
                         ncp_error *err);
void ncp_results_grid_free(ncp_results_grid *g);

typedef struct ncp_results_row {
    const char *solver; /* the grid's name */
    int problems, converged, unsupported;
    double success, success_supported; /* fractions; the latter NaN without supported rows */
    double sgm_time_ms, sgm_time_norm, sgm_iter, sgm_iter_norm;
    double rho_1, rho_10, median_time_ms; /* median over the problems solved (NaN: none) */
    int rank; /* 1 = best: see ncp_results_compute */
} ncp_results_row;

/* rows[0..g->ns): the table, and each row's rank: by success rate (higher first), then SGM
 * time (lower first; a solver without times, e.g. graded answers without the program's time,
 * after the timed ones), then SGM iterations (lower first), then the order of first
 * appearance. */
int ncp_results_compute(const ncp_results_grid *g, ncp_results_row *rows, ncp_error *err);

/* What the table was measured against, stated above it. tol NaN / max_iter <= 0: differ
 * between the files (given in note). */
typedef struct ncp_results_conditions {
    double tol;
    const char *stop_metric;
    int max_iter;
    double time_ms; /* <= 0: no time budget */
    const char *note; /* NULL or a sentence more */
    const ncp_solver_catalog *catalog; /* NULL: the registry's; its plugin solvers' family is
                                        * NCP_REGISTRY_PLUGIN_FAMILY */
    const char *clock; /* the clock of the times (ncp_clock_name), NULL: not said */
    /* the graded solvers (bench/grade.h): their times are the program's own, marked
     * "self-timed" wherever shown; their family NCP_RESULTS_GRADED_FAMILY */
    const char *const *graded;
    int ngraded;
} ncp_results_conditions;

/* The family of graded solvers in the tables and figures. */
#define NCP_RESULTS_GRADED_FAMILY "graded"
/* What a graded solver's times are. */
#define NCP_RESULTS_SELF_TIMED "self-timed"

/* The "results_table" object of summary.json (NULL when out of memory). */
cJSON *ncp_results_json(const ncp_results_grid *g, const ncp_results_row *rows,
                        const ncp_results_conditions *c);
/* results.md: the conditions, then one table (solver | family | success | SGM time (norm.) |
 * SGM iter (norm.) | rho(1) | rho(10) | median time ms), its rows by rank, written
 * atomically. */
int ncp_results_markdown(const char *path, const char *title, const ncp_results_grid *g,
                         const ncp_results_row *rows, const ncp_results_conditions *c,
                         ncp_error *err);
/* Of a run directory: reads dir/metrics.csv, writes dir/results.md and returns the
 * "results_table" object in *out (budget and stopping metric of o). */
int ncp_out_results(const char *dir, const ncp_bench_opts *o, cJSON **out, ncp_error *err);

#endif
