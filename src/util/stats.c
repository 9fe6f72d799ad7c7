/* Summary statistics (stats.h). */
#include "util/stats.h"

#include <math.h>
#include <stdlib.h>

double ncp_quantile_sorted(const double *x, size_t n, double q)
{
    if (n == 0) return NAN;
    /* the ends first: also keeps h within the range of the size_t cast below */
    if (!(q > 0.0)) return x[0];
    if (q >= 1.0) return x[n - 1];
    double h = (double)(n - 1) * q;
    size_t j = (size_t)floor(h);
    if (j + 1 >= n) return x[n - 1];
    double frac = h - (double)j;
    /* x_j itself: exact, and no inf - inf or 0 * inf between infinite order statistics */
    if (frac == 0.0 || x[j] == x[j + 1]) return x[j];
    return x[j] + frac * (x[j + 1] - x[j]);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double ncp_median(double *x, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(x[i])) x[k++] = x[i];
    if (k == 0) return NAN;
    qsort(x, k, sizeof *x, cmp_double);
    return k % 2 ? x[k / 2] : 0.5 * (x[k / 2 - 1] + x[k / 2]);
}

int ncp_log_sample_keep(long k)
{
    if (k <= 20) return 1;
    return floor(20.0 * log10((double)k)) != floor(20.0 * log10((double)(k - 1)));
}

double ncp_sgm(const double *x, int n, double sh)
{
    if (n <= 0 || !(sh >= 0.0) || isinf(sh)) return NAN;
    double acc = 0.0;
    for (int i = 0; i < n; i++) {
        double v = x[i] + sh;
        if (!(v >= 0.0) || isinf(v)) return NAN; /* also NaN */
        acc += log(v); /* -inf for a zero with sh = 0: exp gives 0, as it should */
    }
    return exp(acc / n) - sh;
}

int ncp_perf_ratios(int np, int ns, const double *t, double *r, ncp_error *err)
{
    for (int p = 0; p < np; p++) {
        double best = INFINITY;
        for (int s = 0; s < ns; s++) {
            double v = t[(size_t)p * ns + s];
            if (!(v > 0.0)) /* also NaN */
                return ncp_error_set(err, NCP_ERR_INPUT,
                                     "performance profile: time %g of solver %d on problem %d "
                                     "must be > 0 or infinite (a failure)",
                                     v, s, p);
            best = fmin(best, v);
        }
        for (int s = 0; s < ns; s++) {
            double v = t[(size_t)p * ns + s];
            r[(size_t)p * ns + s] = isinf(v) || isinf(best) ? INFINITY : v / best;
        }
    }
    return NCP_OK;
}

double ncp_perf_rho(int np, int ns, const double *r, int s, double tau)
{
    if (np <= 0) return 0.0;
    int k = 0;
    for (int p = 0; p < np; p++) {
        double v = r[(size_t)p * ns + s];
        k += v <= tau && v < INFINITY; /* a failure never counts, even at tau = infinity */
    }
    return (double)k / np;
}

double ncp_loglog_slope(const double *x, const double *y, int n)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (!(x[i] > 0) || !(y[i] > 0) || !isfinite(y[i])) continue;
        double a = log(x[i]), b = log(y[i]);
        sx += a, sy += b, sxx += a * a, sxy += a * b, k++;
    }
    if (k < 2 || sxx * k - sx * sx <= 0) return NAN;
    return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}
