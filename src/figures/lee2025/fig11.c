/* Lee et al. 2025 Fig. 11 (§VII-C, pouring): per solver and particle count, the mean solver time
 * per step (setup + solve) and the mean al_residual over the steps of its own simulation, under
 * the paper's fixed iteration counts (sims of parts fig11_canal and fig11, study.c); the fitted
 * exponent of time against the system DOF. fig11.dat / fig11.md and claims 11a-11d, all from
 * the sims' steps.csv (l25_simstat_of). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "figures/fig_util.h"
#include "figures/lee2025/lee2025.h"
#include "util/safefile.h"

/* Fig. 11's statistics of this run: q[k][i] for solver k at l25_pour_n[i], i < *nn. */
static int pour_all(const ncp_study_ctx *c, ncp_study_claim_out *o,
                    l25_simstat q[L25_NSIMSOLV][L25_NPOUR], int *nn, ncp_error *err)
{
    *nn = c->o->quick ? L25_NPOUR_QUICK : L25_NPOUR;
    for (int k = 0; k < L25_NSIMSOLV; k++)
        for (int i = 0; i < *nn; i++) {
            char lab[32];
            snprintf(lab, sizeof lab, "N%d-%s", l25_pour_n[i], l25_sim_label[k]);
            int rc = l25_simstat_of(c, o, l25_pour_part(k), lab, &q[k][i], err);
            if (rc) return rc;
        }
    return NCP_OK;
}

/* The exponent of mean time against DOF of solver k (NaN with < 2 points). */
static double pour_exponent(const l25_simstat *q, int nn)
{
    double x[L25_NPOUR], y[L25_NPOUR];
    for (int i = 0; i < nn; i++) {
        x[i] = q[i].dof;
        y[i] = q[i].ms;
    }
    return ncp_loglog_slope(x, y, nn);
}

int l25_11a(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    l25_simstat q[L25_NSIMSOLV][L25_NPOUR];
    int nn, rc = pour_all(c, o, q, &nn, err);
    if (rc) return rc;
    double e[L25_NSIMSOLV];
    for (int k = 0; k < L25_NSIMSOLV; k++) e[k] = pour_exponent(q[k], nn);
    o->v[0] = e[2] - e[1]; /* PGS over SubADMM */
    o->v[1] = e[0] - e[2]; /* CANAL over PGS */
    o->v[2] = e[0];
    snprintf(o->ours, sizeof o->ours, "exponents of mean time against DOF (%.0f..%.0f): SubADMM "
             "%.3g, PGS %.3g, CANAL %.3g; at N = %d: SubADMM %.3g ms, PGS %.3g ms, CANAL %.3g ms",
             q[0][0].dof, q[0][nn - 1].dof, e[1], e[2], e[0], l25_pour_n[nn - 1],
             q[1][nn - 1].ms, q[2][nn - 1].ms, q[0][nn - 1].ms);
    return NCP_OK;
}

int l25_11b(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    l25_simstat q[L25_NSIMSOLV][L25_NPOUR];
    int nn, rc = pour_all(c, o, q, &nn, err);
    if (rc) return rc;
    double worst = -INFINITY, geo = -INFINITY;
    for (int i = 0; i < nn; i++) {
        worst = fmax(worst, q[0][i].res);
        geo = fmax(geo, q[0][i].res_geo);
    }
    o->v[0] = worst;
    o->v[1] = geo;
    snprintf(o->ours, sizeof o->ours, "CANAL (5 iterations per step): largest mean al_residual "
             "over N %.3g (largest geometric mean %.3g)", worst, geo);
    return NCP_OK;
}

int l25_11c(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    l25_simstat q[L25_NSIMSOLV][L25_NPOUR];
    int nn, rc = pour_all(c, o, q, &nn, err);
    if (rc) return rc;
    double lo = INFINITY, hi = -INFINITY;
    int bad = 0; /* a count without a mean (no solve): NaN, not met */
    for (int i = 0; i < nn; i++) {
        double r = q[1][i].res / q[2][i].res;
        bad |= isnan(r);
        lo = fmin(lo, r);
        hi = fmax(hi, r);
    }
    if (bad) lo = hi = NAN;
    o->v[0] = lo;
    o->v[1] = hi;
    snprintf(o->ours, sizeof o->ours, "SubADMM / PGS mean al_residual %.3g..%.3g over %d "
             "particle counts", lo, hi, nn);
    return NCP_OK;
}

int l25_11d(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    l25_simstat q[L25_NSIMSOLV][L25_NPOUR];
    int nn, rc = pour_all(c, o, q, &nn, err);
    if (rc) return rc;
    double spread[L25_NSIMSOLV], worst = -INFINITY;
    int bad = 0; /* a count without a mean (no solve): NaN, not met */
    for (int k = 0; k < L25_NSIMSOLV; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < nn; i++) {
            bad |= isnan(q[k][i].res);
            lo = fmin(lo, q[k][i].res);
            hi = fmax(hi, q[k][i].res);
        }
        spread[k] = hi / lo;
        worst = fmax(worst, spread[k]);
    }
    o->v[0] = bad ? NAN : worst;
    snprintf(o->ours, sizeof o->ours, "max / min of the mean al_residual over N: CANAL %.3g, "
             "SubADMM %.3g, PGS %.3g", spread[0], spread[1], spread[2]);
    return NCP_OK;
}

static int fig11_dat(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir,
                     l25_simstat q[L25_NSIMSOLV][L25_NPOUR], int nn, char *path, size_t cap,
                     ncp_error *err)
{
    static const char *const solver[L25_NSIMSOLV] = {"canal", "subadmm", "pgs-decoupled"};
    FILE *f = ncp_safe_fopen_in(dir, "fig11.dat", path, cap, err);
    if (!f) return err->code;
    fprintf(f, "# ncpbench, %s; configuration %s\n# per solver and particle count N: mean "
            "(setup + solve) ms per simulated step and mean al_residual at a fixed iteration "
            "count (canal 5, subadmm and pgs-decoupled 100), each solver driving its own "
            "warm-started simulation (the sims' steps.csv); dof = the model's nv\n# one index "
            "block per solver\n# columns: solver solver_index N dof mean_ms median_ms "
            "mean_residual geomean_residual steps mean_iterations\n", p->title, c->config->id);
    for (int k = 0; k < L25_NSIMSOLV; k++) {
        if (k) fputs("\n\n", f);
        for (int i = 0; i < nn; i++)
            if (q[k][i].n)
                fprintf(f, "%s %d %d %.0f %.10g %.10g %.10g %.10g %d %.4g\n", solver[k], k,
                        l25_pour_n[i], q[k][i].dof, q[k][i].ms, q[k][i].ms_med, q[k][i].res,
                        q[k][i].res_geo, q[k][i].n, q[k][i].iters);
    }
    return ncp_safe_fclose(f, path, err);
}

int l25_fig11(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err)
{
    l25_simstat q[L25_NSIMSOLV][L25_NPOUR];
    char dat[4400], path[4400];
    int nn, rc = pour_all(c, NULL, q, &nn, err);
    if (rc || (rc = fig11_dat(c, p, dir, q, nn, dat, sizeof dat, err))) return rc;
    FILE *f = ncp_safe_fopen_in(dir, "fig11.md", path, sizeof path, err);
    if (!f) return err->code;
    fprintf(f, "### %s (configuration %s)\n\nEach solver drives its own simulation of "
            "`scenes/pouring-sweep/pouring-N.json` from the previous step's impulses and "
            "velocity, 5 CANAL and 100 SubADMM / PGS iterations per step (tolerance 0); means "
            "over the steps with a contact solve. Data: `fig11.dat`; raw: the sims' "
            "`steps.csv` (`../fig11_canal-N*-CANAL/`, `../fig11-N*-*/`).\n\n| N | DOF | contacts "
            "(mean, SubADMM's run) | CANAL ms | SubADMM ms | PGS ms | CANAL res. | SubADMM "
            "res. | PGS res. |\n|---|---|---|---|---|---|---|---|---|\n", p->title,
            c->config->id);
    for (int i = 0; i < nn; i++) {
        fprintf(f, "| %d | %.0f | %.1f |", l25_pour_n[i], q[1][i].dof, q[1][i].contacts);
        for (int k = 0; k < L25_NSIMSOLV; k++) fprintf(f, " %.4g |", q[k][i].ms);
        for (int k = 0; k < L25_NSIMSOLV; k++) fprintf(f, " %.3g |", q[k][i].res);
        fputc('\n', f);
    }
    fprintf(f, "\nExponent of mean time against DOF (least squares, log-log): CANAL %.3g, "
            "SubADMM %.3g, PGS %.3g.\n", pour_exponent(q[0], nn), pour_exponent(q[1], nn),
            pour_exponent(q[2], nn));
    int rc2 = ncp_safe_fclose(f, path, err);
    return rc2 ? rc2 : ncp_fig_plot("lee2025_fig11_pouring", dir, p->title, dat, err);
}
