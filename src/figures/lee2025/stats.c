/* Lee et al. 2025: the statistics the claims and tables share, each computed from one run's
 * solves as the study read them back (metrics.csv, traces.csv): crossings of the paper's level,
 * residuals at a time or an iteration, per-iteration costs, the AL family's inner counts from
 * the row's note. tests/check_study_lee2025.py computes the same from the same files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures/lee2025/lee2025.h"
#include "util/stats.h"

#define COL_ITER 0
#define COL_TIME 1

static double row_at(const ncp_study_result *r, int k, int col)
{
    return r->trace[(size_t)k * (size_t)ncp_study_trace_cols() + (size_t)col];
}

double l25_median(double *x, int n) { return n > 0 ? ncp_median(x, n) : NAN; }

int l25_first_below(const ncp_study_result *r, double level, double *t)
{
    *t = NAN;
    for (int k = 0; k < r->ntrace; k++) {
        double v = ncp_study_trace_at(r, k, "al_residual");
        if (row_at(r, k, COL_ITER) >= 1 && v <= level) {
            *t = row_at(r, k, COL_TIME);
            return (int)row_at(r, k, COL_ITER);
        }
    }
    return -1;
}

double l25_at_iter(const ncp_study_result *r, int it)
{
    double v = NAN;
    for (int k = 0; k < r->ntrace && row_at(r, k, COL_ITER) <= it; k++) {
        double x = ncp_study_trace_at(r, k, "al_residual");
        if (row_at(r, k, COL_ITER) >= 1 && !isnan(x)) v = x;
    }
    return v;
}

/* Between two stored iterates linear in log10 r against time (the latest stored value would
 * credit the solver with fewer iterations than it did by t, the next one with more). */
double l25_at_time(const ncp_study_result *r, double t)
{
    int last = -1, next = -1;
    for (int k = 0; k < r->ntrace; k++) {
        double x = ncp_study_trace_at(r, k, "al_residual");
        if (row_at(r, k, COL_ITER) < 1 || isnan(x)) continue;
        if (row_at(r, k, COL_TIME) <= t) last = k;
        else if (last >= 0) {
            next = k;
            break;
        }
    }
    if (last < 0) return NAN;
    double r0 = ncp_study_trace_at(r, last, "al_residual");
    if (next < 0) return r0;
    double r1 = ncp_study_trace_at(r, next, "al_residual");
    double t0 = row_at(r, last, COL_TIME), t1 = row_at(r, next, COL_TIME);
    if (!(t1 > t0) || !(r0 > 0) || !(r1 > 0)) return r0;
    double w = (t - t0) / (t1 - t0);
    return pow(10.0, (1 - w) * log10(r0) + w * log10(r1));
}

/* Case n of a run into buf: per case 0-4, 7, 8 (index n); 5, 6 over the cases that reach the
 * level (index nlevel), 9 over those with iterations 5..last (index ndtl). */
static void figstat_one(const ncp_study_result *r, double *buf[10], int n, l25_figstat *q)
{
    double t;
    int k = l25_first_below(r, L25_LEVEL, &t);
    buf[0][n] = ncp_study_final(r, "al_residual");
    buf[1][n] = r->iterations;
    buf[2][n] = r->iterations > 0 ? r->solve_ms / r->iterations : NAN;
    buf[3][n] = r->setup_ms;
    buf[4][n] = l25_at_iter(r, L25_PGS_SWEEPS);
    buf[7][n] = buf[8][n] = NAN;
    if (k >= 0) {
        buf[5][q->nlevel] = k;
        buf[6][q->nlevel++] = t;
    }
    double t4 = NAN, tl = NAN;
    int last = 0;
    for (int j = 0; j < r->ntrace; j++) {
        int it = (int)row_at(r, j, COL_ITER);
        double tj = row_at(r, j, COL_TIME);
        if (it == 1) buf[7][n] = tj - r->setup_ms;
        if (it == 10) buf[8][n] = tj;
        if (it == 4) t4 = tj;
        if (it >= last) {
            last = it;
            tl = tj;
        }
    }
    /* iterations 5..last: stored rows 4 and last (the log sample keeps both) */
    if (last >= 6 && !isnan(t4)) buf[9][q->ndtl++] = (tl - t4) / (last - 4);
}

int l25_figstat_of(const ncp_study_ctx *c, const char *part, const char *label, l25_figstat *q,
                   ncp_error *err)
{
    memset(q, 0, sizeof *q);
    const ncp_study_solves *sv = ncp_study_get_all(c, part, label);
    if (!sv || sv->n == 0) return NCP_OK;
    double *all = ncp_calloc(err, (size_t)sv->n * 10 + 1, sizeof *all);
    if (!all) return NCP_ERR_NOMEM;
    double *buf[10];
    for (int i = 0; i < 10; i++) buf[i] = all + (size_t)i * (size_t)sv->n;
    int n = 0;
    for (int i = 0; i < sv->n; i++)
        if (sv->p[i].ran) figstat_one(&sv->p[i], buf, n++, q);
    q->ncases = n;
    q->share = n ? (double)q->nlevel / n : NAN;
    q->final = l25_median(buf[0], n);
    q->iters = l25_median(buf[1], n);
    q->mspi = l25_median(buf[2], n);
    q->setup = l25_median(buf[3], n);
    q->r100 = l25_median(buf[4], n);
    q->k_level = l25_median(buf[5], q->nlevel);
    q->t_level = l25_median(buf[6], q->nlevel);
    q->dt1 = l25_median(buf[7], n);
    q->t10 = l25_median(buf[8], n);
    q->dtl = l25_median(buf[9], q->ndtl);
    free(all);
    return NCP_OK;
}

int l25_al_note(const char *note, int *inner, int *loops, int *failed, int *per_loop, int *nper)
{
    const char *s = strstr(note, "inner steps ");
    *nper = 0;
    if (!s || sscanf(s, "inner steps %d over %d AL loops, %d failed", inner, loops, failed) != 3)
        return -1;
    const char *p = strstr(s, "(per loop:");
    if (!p) return 0;
    p += strlen("(per loop:");
    while (*nper < L25_AL_LOOPS) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p) break;
        per_loop[(*nper)++] = (int)v;
        p = end;
    }
    return 0;
}
