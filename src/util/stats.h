/* Summary statistics of samples: the one quantile definition of ncpbench, used by every figure
 * data file (bench/plot.c's fig_residual_time.dat and fig_time_iter.dat, the figure sets'
 * medians and percentiles in src/figures). */
#ifndef NCP_STATS_H
#define NCP_STATS_H

#include <stddef.h>

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

#endif
