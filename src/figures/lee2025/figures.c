/* Lee et al. 2025 Figs. 7 and 9 drawn as the paper lays them out (§VII-A1, B1; "Left: Residual
 * decrease over computation time. Right: Computation time over iteration."), one curve per
 * solver (CANAL, SubADMM, PGS), by scripts/lee2025_fig.gp into the part's folder as
 * lee2025_fig.{png,svg}. The paper does not say what its curves aggregate over its 100 cases;
 * ours are the median over the cases with the 25th-75th percentile band:
 *
 *   lee2025_fig_residual.dat  per solver, on NCP_PLOT_GRID log-spaced times from its earliest
 *       first iterate to its latest last iterate, al_residual at that time per case
 *       (l25_at_time: log-linear between stored iterates, as claim 7c reads it; a case holds
 *       its final value after it stops; it has started once its first iterate is done), the
 *       median and quartiles over the cases that have started.
 *   lee2025_fig_time.dat  per solver, at each iteration of the log sample (util/stats.h
 *       ncp_log_sample_keep: every trace stores these; a solve's off-grid last row is left out),
 *       the time (ms, setup included) at which the cases that ran that iteration finished it:
 *       median and quartiles, and how many cases remain.
 *
 * Quantiles: util/stats.h ncp_quantile_sorted (numpy's default), as bench/plot.c's figures of a
 * run. The reducer of the figure parts (study.c): the part's tables first (tables.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plot.h"
#include "figures/fig_util.h"
#include "figures/lee2025/lee2025.h"
#include "util/fsutil.h"
#include "util/safefile.h"

#define COL_ITER 0
#define COL_TIME 1

static double row_at(const ncp_study_result *r, int k, int col)
{
    return r->trace[(size_t)k * (size_t)ncp_study_trace_cols() + (size_t)col];
}

/* Median, quartiles and count of vals[0..n) (no NaN) after the label and x. */
static void put_quartiles(FILE *f, const char *label, double x, double *vals, int n, int ncases)
{
    double med = ncp_median(vals, n); /* sorts vals in place (util/stats.h) */
    fprintf(f, "%s %.9g %.9g %.9g %.9g %d %d\n", label, x, med,
            ncp_quantile_sorted(vals, (size_t)n, 0.25), ncp_quantile_sorted(vals, (size_t)n, 0.75),
            n, ncases);
}

/* The first and last iterate (iteration >= 1) of a solve: their times and the last iteration;
 * 0 when the solve has none. */
static int span(const ncp_study_result *r, double *t0, double *t1, int *last)
{
    int any = 0;
    for (int k = 0; r->ran && k < r->ntrace; k++) {
        if (row_at(r, k, COL_ITER) < 1) continue;
        double t = row_at(r, k, COL_TIME);
        if (!any) *t0 = t;
        *t1 = t;
        *last = (int)row_at(r, k, COL_ITER);
        any = 1;
    }
    return any;
}

static void residual_block(FILE *f, const char *label, const ncp_study_solves *sv, double *vals)
{
    double lo = INFINITY, hi = -INFINITY;
    int ncases = 0;
    for (int i = 0; i < sv->n; i++) {
        double t0, t1;
        int last;
        if (!span(&sv->p[i], &t0, &t1, &last)) continue;
        ncases++;
        if (t0 > 0) lo = fmin(lo, t0);
        hi = fmax(hi, t1);
    }
    int ngrid = hi > lo ? NCP_PLOT_GRID : 1;
    for (int g = 0; g < ngrid; g++) {
        double t = g == 0 ? lo : g == ngrid - 1 ? hi : lo * pow(hi / lo, (double)g / (ngrid - 1));
        int n = 0;
        for (int i = 0; i < sv->n; i++) {
            double v = sv->p[i].ran ? l25_at_time(&sv->p[i], t) : NAN;
            if (!isnan(v)) vals[n++] = v;
        }
        if (n) put_quartiles(f, label, t, vals, n, ncases);
    }
}

static void time_block(FILE *f, const char *label, const ncp_study_solves *sv, double *vals,
                       int *cursor)
{
    int kmax = 0, ncases = 0;
    for (int i = 0; i < sv->n; i++) {
        double t0, t1;
        int last;
        cursor[i] = 0;
        if (!span(&sv->p[i], &t0, &t1, &last)) continue;
        ncases++;
        if (last > kmax) kmax = last;
    }
    for (int k = 1; k <= kmax; k++) {
        if (!ncp_log_sample_keep(k)) continue;
        int n = 0;
        for (int i = 0; i < sv->n; i++) {
            const ncp_study_result *r = &sv->p[i];
            while (r->ran && cursor[i] < r->ntrace && row_at(r, cursor[i], COL_ITER) < k)
                cursor[i]++;
            if (r->ran && cursor[i] < r->ntrace && row_at(r, cursor[i], COL_ITER) == k)
                vals[n++] = row_at(r, cursor[i], COL_TIME);
        }
        if (n) put_quartiles(f, label, k, vals, n, ncases);
    }
}

/* One of the two data files: a block per run of the part that has iterates; *nblocks of them. */
static int write_dat(const ncp_study_ctx *c, const ncp_study_part *p, const char *path, int time,
                     int *nblocks, ncp_error *err)
{
    FILE *f = ncp_safe_fopen(path, err);
    if (!f) return err->code;
    fprintf(f, "# ncpbench, %s; configuration %s\n# per solver over its cases "
            "(src/figures/lee2025/figures.c): ", p->title, c->config->id);
    if (time)
        fputs("the time (ms, setup included) at each iteration of the log sample: median, 25th "
              "and 75th percentiles over the n cases that ran the iteration, of the solver's "
              "ncases\n# columns: label iteration median_ms q25_ms q75_ms n ncases\n", f);
    else
        fprintf(f, "al_residual at %d log-spaced times (ms, setup included): median, 25th and "
                "75th percentiles over the n cases started by then, of the solver's ncases\n"
                "# columns: label time_ms median q25 q75 n ncases\n", NCP_PLOT_GRID);
    fputs("# one index block per solver\n", f);
    int rc = NCP_OK;
    *nblocks = 0;
    for (int i = 0; i < c->s->nruns && !rc; i++) {
        if (strcmp(c->s->runs[i].part, p->id)) continue;
        const ncp_study_solves *sv = ncp_study_get_all(c, p->id, c->s->runs[i].label);
        int any = 0;
        for (int k = 0; sv && k < sv->n && !any; k++) {
            double t0, t1;
            int last;
            any = span(&sv->p[k], &t0, &t1, &last);
        }
        if (!any) continue;
        double *vals = ncp_calloc(err, (size_t)sv->n, sizeof *vals);
        int *cursor = ncp_calloc(err, (size_t)sv->n, sizeof *cursor);
        if (!vals || !cursor) rc = NCP_ERR_NOMEM;
        else {
            if ((*nblocks)++) fputs("\n\n", f);
            if (time) time_block(f, c->s->runs[i].label, sv, vals, cursor);
            else residual_block(f, c->s->runs[i].label, sv, vals);
        }
        free(vals);
        free(cursor);
    }
    if (fclose(f) != 0 && !rc)
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return rc;
}

/* What the figure shows and where it differs from the paper's, appended to the part's fig.md. */
static int note(const char *dir, const ncp_study_part *p, ncp_error *err)
{
    char path[4400];
    int rc = ncp_path_join(path, sizeof path, dir, "fig.md", err);
    FILE *f = rc ? NULL : ncp_safe_fappend(path, err);
    if (!f) return err->code;
    fprintf(f, "\nFigure `lee2025_fig.{png,svg}` (scripts/lee2025_fig.gp, from "
            "`lee2025_fig_residual.dat` and `lee2025_fig_time.dat`; drawn when gnuplot is "
            "installed): the paper's two panels, "
            "left the residual (al_residual, docs/metrics.md) over computation time, right the "
            "computation time over iteration, per solver the median over the cases (line) and "
            "the 25th-75th percentiles (band); the dashed line is the paper's 1e-8. Unlike the "
            "paper: the paper does not say what its curves aggregate (a mean, a median, one case) "
            "nor its axes' scales; ours are logarithmic on both axes of both panels, as our "
            "solves run from under 1 ms to the %g ms budget and to thousands of iterations (a "
            "cost linear in the iterations is a line of slope 1 on the right); time includes "
            "each solver's setup (the paper's \"preparation phase\"); the right panel's median "
            "at an iteration is over the cases still running there (column n of the data).\n",
            p->budget.time_ms);
    if (fclose(f) != 0)
        return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return NCP_OK;
}

int l25_fig(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err)
{
    char res[4400], tim[4400], title[512], shown[4500];
    int rc = l25_fig_table(c, p, dir, err), nres = 0, ntim = 0;
    if (rc || (rc = ncp_path_join(res, sizeof res, dir, "lee2025_fig_residual.dat", err)) ||
        (rc = ncp_path_join(tim, sizeof tim, dir, "lee2025_fig_time.dat", err)) ||
        (rc = write_dat(c, p, res, 0, &nres, err)) || (rc = write_dat(c, p, tim, 1, &ntim, err)))
        return rc;
    if (!nres || !ntim) return NCP_OK; /* no solver ran: nothing to draw */
    if ((rc = note(dir, p, err))) return rc;
    snprintf(title, sizeof title, "%s (configuration %s): median over cases, 25-75%% "
             "band; log axes, setup in the time (fig.md says what differs from the paper)",
             p->title, c->config->id);
    snprintf(shown, sizeof shown, "%s and lee2025_fig_time.dat", res);
    return ncp_fig_plot("lee2025_fig", dir, title, shown, err);
}
