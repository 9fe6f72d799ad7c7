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
