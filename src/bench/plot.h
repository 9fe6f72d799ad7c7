/* Figures from a benchmark output directory: the traces (DIR/traces.h5, or the traces.csv of
 * older runs, read through store/traces.h) are aggregated per solver (in C) into gnuplot-ready
 * data files, then gnuplot (an external program, found on PATH) draws them with the scripts in
 * scripts/, one panel per solver family (solvers/registry.h; DIR/fig_families.dat names them),
 * each panel with its legend outside the plot area:
 *
 *   DIR/fig_residual_time.dat -> scripts/residual_vs_time.gp  -> DIR/residual_vs_time.{png,svg}
 *                             -> scripts/overview.gp          -> DIR/overview.{png,svg}
 *   DIR/fig_time_iter.dat     -> scripts/time_vs_iteration.gp -> DIR/time_vs_iteration.{png,svg}
 *
 * The overview overlays a few solvers on one axis: the best-ranked solver of each family of
 * summary.json's results table, or those of `ncpbench plot --compare`. The metric drawn is the
 * run's stop metric (summary.json "budget"), with the run's tolerance as a dashed line, unless
 * another is asked for. DIR/index.md + DIR/index.html (ncp_plot_index) start with the ranked
 * results table, then show the figures, the overview first.
 *
 * (the two panels of Lee et al. 2025 Fig. 7 / Fig. 9: residual over computation time,
 * computation time over iteration). gnuplot's own messages go to DIR/gnuplot.log. The
 * aggregation rules are written in the header of each .dat file and in plot.c. */
#ifndef NCP_PLOT_H
#define NCP_PLOT_H

#include "util/ncp_error.h"

/* Returned by ncp_plot_dir when gnuplot is not on PATH: the data files were written, the
 * figures were skipped, and err holds the one message the caller should print (it is not an
 * error: the CLI goes on). Distinct from NCP_OK and from every NCP_ERR_* code. */
#define NCP_PLOT_SKIPPED 1

/* Number of points of the log-spaced time grid of fig_residual_time.dat (per solver). */
#define NCP_PLOT_GRID 100

/* Metric plotted when `metric` is NULL and DIR has no summary.json naming the stop metric. */
#define NCP_PLOT_DEFAULT_METRIC "al_residual"

/* 1 if an executable `gnuplot` is on PATH, else 0. */
int ncp_plot_available(void);

/* Reads DIR's traces (traces.h5, else traces.csv) and writes DIR/fig_residual_time.dat (the
 * metric column `metric`, NULL for NCP_PLOT_DEFAULT_METRIC, versus solver time), DIR/fig_time_iter.dat
 * (solver time versus iteration) and DIR/fig_families.dat (the panels). Bad or missing input
 * -> NCP_ERR_INPUT naming file:line (or dataset) and the column. */
int ncp_plot_aggregate(const char *dir, const char *metric, ncp_error *err);

/* Writes DIR/index.md and DIR/index.html (each atomically) from DIR/summary.json: first the
 * results table of "results_table" ranked (bench/output.h: rank, success rate with counts,
 * shifted geometric means of time and iterations normalised with the raw value beside, rho(1),
 * rho(10), median time; conditions above it, a link to DIR/results.md; in HTML sortable by a
 * click on a header, offline, each number cell's raw value in its data-value attribute), then
 * every figure file (*.png, *.svg) of DIR linked, the PNGs shown (the overview first; in HTML
 * each image records data-loaded or data-failed), then the per-solver table (solver, family,
 * converged / problems, median iterations, median solve ms, median stop metric). */
int ncp_plot_index(const char *dir, ncp_error *err);

/* Prints "results table: DIR/results.md" and, when page is set, "results page ...:
 * DIR/index.html" on stdout, each when the file exists: the last lines of `run`, `solve` and
 * `grade` (page: the index was written by this invocation, not left by an earlier one). */
void ncp_plot_print_pages(const char *dir, int page);

/* ncp_plot_aggregate of `metric` (NULL: the run's stop metric, summary.json "budget", else
 * NCP_PLOT_DEFAULT_METRIC), then runs gnuplot on scripts_dir/residual_vs_time.gp,
 * scripts_dir/overview.gp (when there is a solver to overlay; else an old overview is
 * removed) and scripts_dir/time_vs_iteration.gp, with tol= the run's tolerance when the metric
 * is the stop metric, then ncp_plot_index if DIR has summary.json (also when gnuplot is
 * missing). compare: NULL, or the overview's solvers, comma-separated, each a solver of
 * summary.json's results table (else NCP_ERR_INPUT listing them). scripts_dir NULL or "":
 * the source tree's scripts/ if present, else the installed share/ncpbench/scripts. The title is DIR/summary.json's "scene" if present,
 * else the directory's name. Returns NCP_OK, NCP_PLOT_SKIPPED (gnuplot not on PATH; data files
 * written) or an NCP_ERR_* code (gnuplot failing -> NCP_ERR_IO pointing at DIR/gnuplot.log). */
int ncp_plot_dir_compare(const char *dir, const char *scripts_dir, const char *metric,
                         const char *compare, ncp_error *err);
/* ncp_plot_dir_compare without compare. */
int ncp_plot_dir(const char *dir, const char *scripts_dir, const char *metric, ncp_error *err);

/* Runs one gnuplot script of the scripts directory (the source tree's scripts/ if present, else
 * the installed share/ncpbench/scripts), scripts/<name>.gp, with the gnuplot variables
 * dir='<dir>' and title='<title>' (quoted for gnuplot), output and messages appended to
 * dir/gnuplot.log; the script must write dir/<name>.png and dir/<name>.svg, which are checked.
 * For the `ncpbench figures` sets, whose data files are written by their own code. Returns
 * NCP_OK, NCP_PLOT_SKIPPED (gnuplot not on PATH; err holds the message) or NCP_ERR_*. */
int ncp_plot_script(const char *name, const char *dir, const char *title, ncp_error *err);

#endif
