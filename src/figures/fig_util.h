/* Helpers of the `ncpbench figures` sets (src/fig_*.c): running the benchmark on a scene and
 * gnuplot on the results, reading the benchmark's CSV outputs, and the Dolan–Moré
 * performance-profile computation, kept apart from the figure code so that it can be tested on
 * hand-computed ratios (tests/test_figures.c). */
#ifndef NCP_FIG_UTIL_H
#define NCP_FIG_UTIL_H

#include "figures/figures.h"
#include "util/ncp_error.h"
#include "bench/pipeline.h"

/* ---- benchmark runs and plots ---- */

/* Pipeline options for a figure set's benchmark of one scene into out_dir: the defaults with the
 * figure options' seed, quick, jobs and interrupt, no figures, progress or console output (the
 * set prints its own lines). The set then sets its solvers, budget and traces. */
void ncp_fig_pipeline_opts(const ncp_fig_opts *o, const char *out_dir, ncp_pipeline_opts *po);

/* Benchmarks the scene file with po (ncp_pipeline_run_scene); *interrupted = 1 if the user
 * interrupted the run (its outputs are then incomplete). */
int ncp_fig_run_scene(const char *scene, const ncp_pipeline_opts *po, int *interrupted,
                      ncp_error *err);

/* Runs scripts/<script>.gp on dir with title (ncp_plot_script) and prints "data: <dat>; figures:
 * <script>.{png,svg} beside it". Without gnuplot the data stand alone: the reason goes to stderr
 * and the result is NCP_OK. */
int ncp_fig_plot(const char *script, const char *dir, const char *title, const char *dat,
                 ncp_error *err);

/* ---- CSV outputs (metrics.csv, traces.csv) ---- */

/* Called once per data row; fields[i] is the text of the column names[i] (see ncp_csv_read).
 * Return NCP_OK to go on, or an error code (with err set) to stop the reading. */
typedef int (*ncp_csv_row_fn)(void *ctx, const char *const *fields, const char *path, long line,
                              ncp_error *err);

/* Reads the CSV file written by the benchmark (header line, comma-separated, no quoting) and calls
 * row() for every non-empty data line with the fields of the requested columns, in the order of
 * `names` (n of them, at most 16). A missing file, a missing column, a row with another number of
 * fields than the header or a quote character is NCP_ERR_INPUT naming file:line. */
int ncp_csv_read(const char *path, const char *const *names, int n, ncp_csv_row_fn row, void *ctx,
                 ncp_error *err);

/* ---- Dolan–Moré performance profiles ---- */

/* Dolan & Moré, Math. Program. 91 (2002); the methodology of Acary, Brémond, Huber 2018 §5:
 * t[p * ns + s] is the time solver s needs to solve problem p (to the tolerance), INFINITY if it
 * failed (not converged, out of budget). Performance ratio
 *     r[p * ns + s] = t_ps / min_s' t_ps'
 * (INFINITY for a failure; a problem no solver solved has every r INFINITY). Times must be > 0 or
 * INFINITY (callers floor measured times at the clock's resolution); otherwise NCP_ERR_INPUT. */
int ncp_perf_ratios(int np, int ns, const double *t, double *r, ncp_error *err);

/* Profile of solver s at tau >= 1: rho_s(tau) = |{p : r_ps <= tau, r_ps finite}| / np (0 when
 * np = 0); tau = INFINITY gives the share of problems s solved. */
double ncp_perf_rho(int np, int ns, const double *r, int s, double tau);

/* ---- statistics ---- */

/* Quantile q in [0, 1] of the sorted x[0..n-1], linear between order statistics (Hyndman-Fan
 * type 7, numpy's default, as plot.c): h = (n-1) q, x_j + (h - j)(x_{j+1} - x_j), j = floor h.
 * NaN for n = 0. */
double ncp_quantile_sorted(const double *x, int n, double q);

#endif
