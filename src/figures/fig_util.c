/* Figure-set helpers (fig_util.h). */
#include "figures/fig_util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "bench/plot.h"

enum { CSV_MAX_COLS = 64, CSV_MAX_WANT = 16 };

void ncp_fig_pipeline_opts(const ncp_fig_opts *o, const char *out_dir, ncp_pipeline_opts *po)
{
    ncp_pipeline_opts_default(po);
    po->seed = o->seed;
    po->quick = o->quick;
    po->jobs = o->jobs;
    po->figures = 0;
    po->progress = 0;
    po->quiet = 1;
    po->out_dir = out_dir;
    po->interrupt = o->interrupt;
}

int ncp_fig_run_scene(const char *scene, const ncp_pipeline_opts *po, int *interrupted,
                      ncp_error *err)
{
    *interrupted = 0;
    ncp_bench_summary *sum = ncp_calloc(err, 1, sizeof *sum); /* large: not on the stack */
    if (!sum) return NCP_ERR_NOMEM;
    int rc = ncp_pipeline_run_scene(scene, po, sum, NULL, 0, err);
    *interrupted = sum->interrupted;
    free(sum);
    return rc;
}

int ncp_fig_plot(const char *script, const char *dir, const char *title, const char *dat,
                 ncp_error *err)
{
    ncp_error perr = {0};
    int prc = ncp_plot_script(script, dir, title, &perr);
    if (prc == NCP_PLOT_SKIPPED) fprintf(stderr, "ncpbench: %s\n", perr.msg);
    else if (prc) return ncp_error_set(err, prc, "%s", perr.msg);
    printf("data: %s", dat);
    if (!prc) printf("; figures: %s.{png,svg} beside it", script);
    printf("\n");
    return NCP_OK;
}

/* Splits line in place at commas; returns the number of fields (all counted, at most max
 * stored). */
static int split_commas(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n < max) fields[n] = p;
        n++;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

int ncp_csv_read(const char *path, const char *const *names, int n, ncp_csv_row_fn row, void *ctx,
                 ncp_error *err)
{
    if (n < 1 || n > CSV_MAX_WANT)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "ncp_csv_read: %d columns requested", n);
    FILE *f = fopen(path, "r");
    if (!f)
        return ncp_error_set(err, NCP_ERR_INPUT, "cannot open %s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long lineno = 0;
    int ncols = 0, rc = NCP_OK, col[CSV_MAX_WANT];
    char *fields[CSV_MAX_COLS];
    const char *want[CSV_MAX_WANT];
    while ((len = getline(&line, &cap, f)) != -1) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if (strchr(line, '"')) {
            rc = ncp_error_set(err, NCP_ERR_INPUT,
                               "%s:%ld: quoted fields are not expected in ncpbench's CSV output",
                               path, lineno);
            break;
        }
        if (lineno == 1) {
            ncols = split_commas(line, fields, CSV_MAX_COLS);
            if (ncols > CSV_MAX_COLS) {
                rc = ncp_error_set(err, NCP_ERR_INPUT, "%s:1: more than %d columns", path,
                                   CSV_MAX_COLS);
                break;
            }
            for (int k = 0; k < n && rc == NCP_OK; k++) {
                col[k] = -1;
                for (int i = 0; i < ncols; i++)
                    if (strcmp(fields[i], names[k]) == 0) col[k] = i;
                if (col[k] < 0)
                    rc = ncp_error_set(err, NCP_ERR_INPUT,
                                       "%s:1: the header has no column '%s' (is this a "
                                       "benchmark output?)",
                                       path, names[k]);
            }
            if (rc) break;
            continue;
        }
        if (len == 0) continue;
        int nf = split_commas(line, fields, CSV_MAX_COLS);
        if (nf != ncols) {
            rc = ncp_error_set(err, NCP_ERR_INPUT, "%s:%ld: %d fields, but the header has %d",
                               path, lineno, nf, ncols);
            break;
        }
        for (int k = 0; k < n; k++) want[k] = fields[col[k]];
        if ((rc = row(ctx, want, path, lineno, err))) break;
    }
    if (rc == NCP_OK && lineno == 0)
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: empty file (no header)", path);
    free(line);
    fclose(f);
    return rc;
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

double ncp_quantile_sorted(const double *x, int n, double q)
{
    if (n <= 0) return NAN;
    double h = (n - 1) * q;
    int j = (int)floor(h);
    if (j >= n - 1) return x[n - 1];
    if (j < 0) return x[0];
    return x[j] + (h - j) * (x[j + 1] - x[j]);
}
