/* Summary statistics of samples: the one quantile definition of ncpbench, used by every figure
 * data file (bench/plot.c's fig_residual_time.dat and fig_time_iter.dat, the figure sets'
 * medians and percentiles in src/figures). */
#ifndef NCP_STATS_H
#define NCP_STATS_H

#include <stddef.h>

#include "util/ncp_error.h"

/* Quantile q in [0, 1] of the sorted x[0..n-1]: linear between order statistics (Hyndman-Fan
 * type 7, numpy's default "linear" percentile):
 *     h = (n - 1) q,  j = floor(h),  Q(q) = x_j + (h - j)(x_{j+1} - x_j),
 * so the median is Q(0.5). When the weight h - j is 0 or x_j = x_{j+1}, Q is x_j itself, so an
 * infinite order statistic gives that infinity rather than inf - inf = NaN. q <= 0 gives x_0,
 * q >= 1 gives x_{n-1}; n = 0 gives NaN. NaNs must be removed before sorting. */
double ncp_quantile_sorted(const double *x, size_t n, double q);

/* Median of x[0..n-1] ignoring NaNs (NaN if none): the middle order statistic, or the mean of
 * the two middle ones, 0.5 (a + b). Sorts x in place (its NaNs are dropped first). Used for the
 * medians of summary.json and the Lee et al. 2025 tables. */
double ncp_median(double *x, int n);

/* Log-scale sample of iterations: 1 when iteration k (>= 1) is kept: k <= 20, or
 * floor(20 log10 k) differs from floor(20 log10 (k-1)) (about 20 per decade). The harness
 * evaluates the full metrics and the trace callback at these iterates (and at the last one);
 * the traces writer stores these rows (store/traces.h). */
int ncp_log_sample_keep(long k);

/* Shifted geometric mean of x[0..n-1] with shift sh >= 0:
 *     SGM_sh(x) = exp( (1/n) sum_i log(x_i + sh) ) - sh,
 * the aggregate of Mittelmann's benchmarks (plato.asu.edu/ftp/shgeom.html) and of qpbenchmark
 * (qpbenchmark/shgeom.py), computed as the exponential of the mean log so that long samples do
 * not overflow. The shift keeps problems every solver solves in next to no time from dominating
 * (the plain geometric mean weighs 0.01 ms against 0.1 ms as much as 100 ms against 1000 ms).
 * NaN when n <= 0, sh < 0, or an x_i is NaN, infinite or below -sh. */
double ncp_sgm(const double *x, int n, double sh);

/* ---- Dolan-More performance profiles ---- */

/* Dolan & More, Math. Program. 91 (2002); the methodology of Acary, Bremond, Huber 2018 §5:
 * t[p * ns + s] is the time solver s needs to solve problem p (to the tolerance), INFINITY if it
 * failed (not converged, out of budget). Performance ratio
 *     r[p * ns + s] = t_ps / min_s' t_ps'
 * (INFINITY for a failure; a problem no solver solved has every r INFINITY). Times must be > 0 or
 * INFINITY (callers floor measured times at the clock's resolution); otherwise NCP_ERR_INPUT.
 * Here rather than in figures/ so that the results tables of every run (bench/output.h) use the
 * same profile as `ncpbench figures --profiles`. */
int ncp_perf_ratios(int np, int ns, const double *t, double *r, ncp_error *err);

/* Profile of solver s at tau >= 1: rho_s(tau) = |{p : r_ps <= tau, r_ps finite}| / np (0 when
 * np = 0); tau = INFINITY gives the share of problems s solved. */
double ncp_perf_rho(int np, int ns, const double *r, int s, double tau);

/* Least-squares slope of log y against log x over the points with x > 0 and a finite y > 0 (a
 * growth exponent, e.g. time against system size); NaN with fewer than 2 such points or no
 * spread in x. */
double ncp_loglog_slope(const double *x, const double *y, int n);

#endif
