/* Lee et al. 2025: the values of the claims on Figs. 7 and 9 (§VII-A1, B1), from the runs'
 * metrics and traces (stats.c) and CANAL's inner steps per AL loop (the rows' notes). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures/lee2025/lee2025.h"

#define FIG7 "fig7"
#define FIG9 "fig9"

/* The three solvers of a figure part; not run: o->not_run. */
static int fig_stats(const ncp_study_ctx *c, const char *part, ncp_study_claim_out *o,
                     l25_figstat st[3], ncp_error *err)
{
    static const char *const labels[3] = {"CANAL", "SubADMM", "PGS"};
    for (int i = 0; i < 3; i++) {
        int rc = l25_figstat_of(c, part, labels[i], &st[i], err);
        if (rc) return rc;
        if (st[i].ncases == 0) o->not_run = 1;
    }
    return NCP_OK;
}

static double in(ncp_study_claim_out *o, const char *part, const char *what, double v)
{
    char name[96];
    snprintf(name, sizeof name, "%s %s", part, what);
    return ncp_study_input(o, NULL, name, v);
}

/* 7a: CANAL's share of cases reaching 1e-8 and its median iteration there. */
int l25_7a(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    l25_figstat st[3];
    int rc = fig_stats(c, FIG7, o, st, err);
    if (rc || o->not_run) return rc;
    o->v[0] = in(o, FIG7, "CANAL share reaching 1e-8", st[0].share);
    o->v[1] = in(o, FIG7, "CANAL median iteration at 1e-8", st[0].k_level);
    snprintf(o->ours, sizeof o->ours, "%.0f%% of %d cases reach 1e-8, median %.3g iterations "
             "(%.3g ms); final median %.2e", 100 * st[0].share, st[0].ncases, st[0].k_level,
             st[0].t_level, st[0].final);
    return NCP_OK;
}

/* 7b: SubADMM's median final residual and share reaching 1e-8. */
int l25_7b(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    l25_figstat st[3];
    int rc = fig_stats(c, FIG7, o, st, err);
    if (rc || o->not_run) return rc;
    o->v[0] = in(o, FIG7, "SubADMM median final al_residual", st[1].final);
    o->v[1] = in(o, FIG7, "SubADMM share reaching 1e-8", st[1].share);
    snprintf(o->ours, sizeof o->ours, "final median %.2e after %.3g iterations; %.0f%% of %d "
             "cases reach 1e-8 (median %.3g iterations)", st[1].final, st[1].iters,
             100 * st[1].share, st[1].ncases, st[1].k_level);
    return NCP_OK;
}

/* 7c: PGS's residual when CANAL reached 1e-8 on the same case. */
int l25_7c(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    l25_figstat st[3];
    int rc = fig_stats(c, FIG7, o, st, err);
    if (rc || o->not_run) return rc;
    const ncp_study_solves *cn = ncp_study_get_all(c, FIG7, "CANAL");
    const ncp_study_solves *pg = ncp_study_get_all(c, FIG7, "PGS");
    double *at = ncp_calloc(err, (size_t)cn->n + 1, sizeof *at);
    if (!at) return NCP_ERR_NOMEM;
    int na = 0, pairs = 0;
    for (int i = 0; i < cn->n; i++) {
        double t;
        if (!cn->p[i].ran || l25_first_below(&cn->p[i], L25_LEVEL, &t) < 0) continue;
        for (int j = 0; j < pg->n; j++) {
            if (!pg->p[j].ran || strcmp(pg->p[j].problem, cn->p[i].problem)) continue;
            pairs++;
            double v = l25_at_time(&pg->p[j], t);
            if (!isnan(v)) at[na++] = v;
        }
    }
    o->v[0] = in(o, FIG7, "PGS median al_residual at CANAL's 1e-8 time", l25_median(at, na));
    o->v[1] = in(o, FIG7, "share of those cases with a PGS iterate by then",
                 pairs ? (double)na / pairs : NAN);
    o->v[2] = in(o, FIG7, "PGS median al_residual after 100 sweeps", st[2].r100);
    snprintf(o->ours, sizeof o->ours, "PGS median %.2e when CANAL reached 1e-8 (%d of %d cases "
             "with a PGS iterate by then; PGS's setup median %.3g ms, CANAL's time to 1e-8 "
             "%.3g ms); %.2e after 100 sweeps, %.2e at the end (median %.3g sweeps); %.0f%% of "
             "cases reach 1e-8", o->v[0], na, pairs, st[2].setup, st[0].t_level, st[2].r100,
             st[2].final, st[2].iters, 100 * st[2].share);
    free(at);
    return NCP_OK;
}

/* 7d, 9d: CANAL > PGS > SubADMM per iteration: the smaller of the two ratios, at iteration 10
 * (setup included) and by solve ms per iteration. */
static int cost_order(const ncp_study_ctx *c, const char *part, ncp_study_claim_out *o,
                      ncp_error *err)
{
    l25_figstat st[3];
    int rc = fig_stats(c, part, o, st, err);
    if (rc || o->not_run) return rc;
    double a = fmin(st[0].t10 / st[2].t10, st[2].t10 / st[1].t10);
    double b = fmin(st[0].mspi / st[2].mspi, st[2].mspi / st[1].mspi);
    in(o, part, "CANAL ms at iteration 10", st[0].t10);
    in(o, part, "PGS ms at iteration 10", st[2].t10);
    in(o, part, "SubADMM ms at iteration 10", st[1].t10);
    in(o, part, "CANAL solve ms/iteration", st[0].mspi);
    in(o, part, "PGS solve ms/iteration", st[2].mspi);
    in(o, part, "SubADMM solve ms/iteration", st[1].mspi);
    o->v[0] = a;
    o->v[1] = b;
    o->v[2] = fmax(a, b);
    snprintf(o->ours, sizeof o->ours, "median ms at iteration 10 (setup included) CANAL %.3g, "
             "PGS %.3g, SubADMM %.3g; solve ms/iteration CANAL %.3g, PGS %.3g, SubADMM %.3g; "
             "setup ms CANAL %.3g, PGS %.3g, SubADMM %.3g", st[0].t10, st[2].t10, st[1].t10,
             st[0].mspi, st[2].mspi, st[1].mspi, st[0].setup, st[2].setup, st[1].setup);
    return NCP_OK;
}

int l25_7d(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    return cost_order(c, FIG7, o, err);
}

int l25_9d(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    return cost_order(c, FIG9, o, err);
}

/* 7e, 9e: CANAL's Newton steps of AL loops 5-10 over loop 1's (mean over the cases that ran
 * each loop, newton part) and its time per iteration of iterations >= 5 over iteration 1's
 * (figure part). */
static int sublinear(const ncp_study_ctx *c, const char *fig, const char *npart,
                     ncp_study_claim_out *o, ncp_error *err)
{
    l25_figstat st[3];
    int rc = fig_stats(c, fig, o, st, err);
    if (rc || o->not_run) return rc;
    const ncp_study_solves *sv = ncp_study_get_all(c, npart, "CANAL");
    double sum[L25_AL_LOOPS] = {0};
    int reached[L25_AL_LOOPS] = {0};
    for (int i = 0; sv && i < sv->n; i++) {
        int inner, loops, failed, per[L25_AL_LOOPS], nper;
        if (!sv->p[i].ran || l25_al_note(sv->p[i].note, &inner, &loops, &failed, per, &nper))
            continue;
        for (int k = 0; k < nper; k++) {
            sum[k] += per[k];
            reached[k]++;
        }
    }
    if (!sv || !reached[0]) {
        o->not_run = 1;
        snprintf(o->ours, sizeof o->ours, "no CANAL inner counts in %s's notes", npart);
        return NCP_OK;
    }
    double late = 0;
    int nl = 0;
    for (int k = 4; k < L25_AL_LOOPS; k++)
        if (reached[k]) {
            late += sum[k] / reached[k];
            nl++;
        }
    double n1 = in(o, npart, "CANAL mean Newton steps, loop 1", sum[0] / reached[0]);
    double n5 = in(o, npart, "CANAL mean Newton steps, loops 5-10", nl ? late / nl : NAN);
    in(o, fig, "CANAL median ms of iteration 1", st[0].dt1);
    in(o, fig, "CANAL median ms per iteration >= 5", st[0].dtl);
    o->v[0] = n5 / n1;
    o->v[1] = st[0].dtl / st[0].dt1;
    o->v[2] = fmin(o->v[0], o->v[1]);
    snprintf(o->ours, sizeof o->ours, "CANAL Newton steps per AL loop (%s): loop 1 %.3g, loop 2 "
             "%.3g, loops 5-10 %.3g (mean over cases); median ms: iteration 1 %.3g, iterations "
             ">= 5 %.3g per iteration (%d cases with >= 6 iterations)", npart, n1,
             reached[1] ? sum[1] / reached[1] : NAN, n5, st[0].dt1, st[0].dtl, st[0].ndtl);
    return NCP_OK;
}

int l25_7e(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    return sublinear(c, FIG7, "newton7", o, err);
}

int l25_9e(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    return sublinear(c, FIG9, "table2", o, err);
}

/* 9a: CANAL's share reaching 1e-8; its median final over the best other solver's. */
int l25_9a(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    l25_figstat st[3];
    int rc = fig_stats(c, FIG9, o, st, err);
    if (rc || o->not_run) return rc;
    o->v[0] = in(o, FIG9, "CANAL share reaching 1e-8", st[0].share);
    in(o, FIG9, "CANAL median final", st[0].final);
    in(o, FIG9, "SubADMM median final", st[1].final);
    in(o, FIG9, "PGS median final", st[2].final);
    o->v[1] = st[0].final / fmin(st[1].final, st[2].final);
    snprintf(o->ours, sizeof o->ours, "%.0f%% of %d cases reach 1e-8 (median %.3g iterations, "
             "%.3g ms); final medians CANAL %.2e, SubADMM %.2e, PGS %.2e", 100 * st[0].share,
             st[0].ncases, st[0].k_level, st[0].t_level, st[0].final, st[1].final, st[2].final);
    return NCP_OK;
}

/* 9b: SubADMM's median final (a plateau near 1e-6) and CANAL's. */
int l25_9b(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    l25_figstat st[3];
    int rc = fig_stats(c, FIG9, o, st, err);
    if (rc || o->not_run) return rc;
    o->v[0] = in(o, FIG9, "SubADMM median final", st[1].final);
    o->v[1] = in(o, FIG9, "CANAL median final", st[0].final);
    snprintf(o->ours, sizeof o->ours, "SubADMM final median %.2e after %.3g iterations (%.2e "
             "after 100); %.0f%% of cases reach 1e-8; CANAL %.2e", st[1].final, st[1].iters,
             st[1].r100, 100 * st[1].share, st[0].final);
    return NCP_OK;
}

/* Median over cases of (first time the AL solver's residual is at or below PGS's final on the
 * case) / (PGS's setup + solve ms on the case); never: infinity. */
static double time_to_pgs(const ncp_study_solves *al, const ncp_study_solves *pg, double *buf)
{
    int n = 0;
    for (int i = 0; i < pg->n; i++) {
        if (!pg->p[i].ran) continue;
        for (int j = 0; j < al->n; j++) {
            if (!al->p[j].ran || strcmp(al->p[j].problem, pg->p[i].problem)) continue;
            double t, target = ncp_study_final(&pg->p[i], "al_residual");
            int k = l25_first_below(&al->p[j], target, &t);
            buf[n++] = k < 0 ? INFINITY : t / (pg->p[i].setup_ms + pg->p[i].solve_ms);
        }
    }
    return l25_median(buf, n);
}

/* 9c: PGS's median final over the worse AL solver's; the slower AL solver's median time to
 * PGS's final accuracy over PGS's time. */
int l25_9c(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    l25_figstat st[3];
    int rc = fig_stats(c, FIG9, o, st, err);
    if (rc || o->not_run) return rc;
    const ncp_study_solves *pg = ncp_study_get_all(c, FIG9, "PGS");
    double *buf = ncp_calloc(err, (size_t)pg->n + 1, sizeof *buf);
    if (!buf) return NCP_ERR_NOMEM;
    double tc = in(o, FIG9, "CANAL median time to PGS's final / PGS's time",
                   time_to_pgs(ncp_study_get_all(c, FIG9, "CANAL"), pg, buf));
    double ts = in(o, FIG9, "SubADMM median time to PGS's final / PGS's time",
                   time_to_pgs(ncp_study_get_all(c, FIG9, "SubADMM"), pg, buf));
    free(buf);
    o->v[0] = st[2].final / fmax(st[0].final, st[1].final);
    o->v[1] = fmax(tc, ts);
    snprintf(o->ours, sizeof o->ours, "final medians PGS %.2e (%.3g sweeps), CANAL %.2e, "
             "SubADMM %.2e; to PGS's final residual CANAL takes %.3g and SubADMM %.3g of PGS's "
             "time (medians)", st[2].final, st[2].iters, st[0].final, st[1].final, tc, ts);
    return NCP_OK;
}
