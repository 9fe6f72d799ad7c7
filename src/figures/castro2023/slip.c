/* Castro et al. 2023 §VI-C2, Figs. 14-15: the slip sweep from the sims' steps.csv (sims.c):
 * per sigma and scene the mean slip speed of the loaded contacts at the last step against the
 * estimate sigma mu h g (eq. 31), sap's mean Newton iterations over every step with a solve,
 * and the condition number of SAP's Hessian at the last step. Claims C9, C10, C12, C15. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "figures/castro2023/castro2023.h"
#include "figures/fig_util.h"
#include "util/safefile.h"

const double c23_sigma[C23_NSIG] = {1e-5, 1e-4, 1e-3, 1e-2, 1e-1};

void c23_slip_label(char *buf, size_t cap, int walls, int k)
{
    snprintf(buf, cap, "%s_%g", walls ? "walls" : "nowalls", c23_sigma[k]);
}

/* One point of the sweep (NaN and ran = 0 when its sim did not run or did not complete). */
typedef struct c23_slip_pt {
    int ran;
    double slip, est, iters, cond;
} c23_slip_pt;

static c23_slip_pt c23_slip_point(const ncp_study_ctx *c, ncp_study_claim_out *o, int walls,
                                  int k)
{
    char lab[32], name[64];
    c23_slip_label(lab, sizeof lab, walls, k);
    const ncp_study_simres *r = ncp_study_get_sim(c, "slip", lab);
    c23_slip_pt q = {r && r->ran && r->completed && r->nrows > 1, NAN, NAN, NAN, NAN};
    if (q.ran) {
        int n = r->nrows, ns = 0;
        double h = (ncp_study_sim_at(r, n - 1, "t") - ncp_study_sim_at(r, 0, "t")) / (n - 1);
        double it = 0;
        for (int i = 0; i < n; i++)
            if (ncp_study_sim_at(r, i, "rows") > 0) {
                it += ncp_study_sim_at(r, i, "iterations");
                ns++;
            }
        q.slip = ncp_study_sim_at(r, n - 1, "slip");
        q.est = c23_sigma[k] * ncp_study_sim_at(r, n - 1, "mu") * h * C23_G;
        q.iters = ns ? it / ns : NAN;
        q.cond = ncp_study_sim_at(r, n - 1, "cond");
    }
    if (o) {
        if (!q.ran) o->not_run = 1;
        snprintf(name, sizeof name, "slip/%s slip", lab);
        ncp_study_input(o, NULL, name, q.slip);
        snprintf(name, sizeof name, "slip/%s estimate", lab);
        ncp_study_input(o, NULL, name, q.est);
        snprintf(name, sizeof name, "slip/%s mean iterations", lab);
        ncp_study_input(o, NULL, name, q.iters);
        snprintf(name, sizeof name, "slip/%s cond", lab);
        ncp_study_input(o, NULL, name, q.cond);
    }
    return q;
}

static void c23_slip_all(const ncp_study_ctx *c, ncp_study_claim_out *o,
                         c23_slip_pt q[2][C23_NSIG])
{
    for (int w = 1; w >= 0; w--)
        for (int k = 0; k < C23_NSIG; k++) q[w][k] = c23_slip_point(c, o, w, k);
}

/* r^2 of the least-squares line of y against ln sigma (NaN: no variance). */
static double c23_r2_ln(const c23_slip_pt *q)
{
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (int k = 0; k < C23_NSIG; k++) {
        double x = log(c23_sigma[k]), y = q[k].iters;
        sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
    }
    double n = C23_NSIG, cxy = n * sxy - sx * sy, cxx = n * sxx - sx * sx, cyy = n * syy - sy * sy;
    return cxx > 0 && cyy > 0 ? cxy * cxy / (cxx * cyy) : NAN;
}

int c23_C9(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    c23_slip_pt q[2][C23_NSIG];
    double s[C23_NSIG];
    size_t at = 0;
    c23_slip_all(c, o, q);
    for (int k = 0; k < C23_NSIG; k++) {
        s[k] = q[1][k].slip;
        if (at < sizeof o->ours)
            at += (size_t)snprintf(o->ours + at, sizeof o->ours - at, "%ssigma %g: %.2e (est. "
                                   "%.2e)", k ? ", " : "walls: ", c23_sigma[k], s[k], q[1][k].est);
    }
    o->v[0] = ncp_loglog_slope(c23_sigma, s, C23_NSIG);
    if (at < sizeof o->ours)
        snprintf(o->ours + at, sizeof o->ours - at, "; log-log slope %.3f", o->v[0]);
    return NCP_OK;
}

int c23_C15(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    c23_slip_pt q[2][C23_NSIG];
    int below = 0;
    double lo = INFINITY, hi = -INFINITY;
    c23_slip_all(c, o, q);
    for (int w = 0; w < 2; w++)
        for (int k = 0; k < C23_NSIG; k++) {
            double r = q[w][k].slip / q[w][k].est;
            below += r < 1;
            lo = fmin(lo, r);
            hi = fmax(hi, r);
        }
    o->v[0] = (double)below / (2 * C23_NSIG);
    snprintf(o->ours, sizeof o->ours, "slip below sigma mu h g at %d of %d points (both scenes; "
             "slip / estimate %.3g to %.3g)", below, 2 * C23_NSIG, lo, hi);
    return NCP_OK;
}

int c23_C10(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    c23_slip_pt q[2][C23_NSIG];
    size_t at = 0;
    c23_slip_all(c, o, q);
    o->v[0] = c23_r2_ln(q[1]);
    o->v[1] = c23_r2_ln(q[0]);
    for (int w = 1; w >= 0; w--)
        for (int k = 0; k < C23_NSIG && at < sizeof o->ours; k++)
            at += (size_t)snprintf(o->ours + at, sizeof o->ours - at, "%s%.2f",
                                   k ? ", " : w ? "mean Newton iterations, walls: "
                                                : "; no walls: ", q[w][k].iters);
    if (at < sizeof o->ours)
        snprintf(o->ours + at, sizeof o->ours - at, " (sigma 1e-5 .. 1e-1); r^2 against ln sigma "
                 "%.3f, %.3f", o->v[0], o->v[1]);
    return NCP_OK;
}

int c23_C12(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    c23_slip_pt q[2][C23_NSIG];
    double y[2][C23_NSIG];
    c23_slip_all(c, o, q);
    for (int w = 0; w < 2; w++)
        for (int k = 0; k < C23_NSIG; k++) y[w][k] = q[w][k].cond;
    o->v[0] = ncp_loglog_slope(c23_sigma, y[1], C23_NSIG);
    o->v[1] = ncp_loglog_slope(c23_sigma, y[0], C23_NSIG);
    snprintf(o->ours, sizeof o->ours, "condition number of H at the last step, sigma 1e-5 / 1e-1: "
             "walls %.3g / %.3g (log-log slope %.3f), no walls %.3g / %.3g (slope %.3f)", y[1][0],
             y[1][C23_NSIG - 1], o->v[0], y[0][0], y[0][C23_NSIG - 1], o->v[1]);
    return NCP_OK;
}

int c23_fig14(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err)
{
    char path[4400];
    c23_slip_pt q[2][C23_NSIG];
    c23_slip_all(c, NULL, q);
    FILE *f = ncp_safe_fopen_in(dir, "castro2023_slip.dat", path, sizeof path, err);
    if (!f) return err->code;
    fprintf(f, "# ncpbench, %s; configuration %s (%s)\n# index 0 with walls, 1 without; sap "
            "drives with sigma; slip = mean |u_t| over the loaded contacts of the last step, "
            "estimate = sigma mu h g (eq. 31), newton = sap's mean Newton iterations over the "
            "steps, cond = 2-norm condition number of H = A + J^T G J at the last step (dsyev)\n"
            "# columns: sigma slip_m_per_s estimate_m_per_s newton cond\n", p->title,
            c->config->id, c->config->title);
    for (int w = 1; w >= 0; w--) {
        if (!w) fputs("\n\n", f);
        for (int k = 0; k < C23_NSIG; k++)
            fprintf(f, "%.6g %.6g %.6g %.6g %.6g\n", c23_sigma[k], q[w][k].slip, q[w][k].est,
                    q[w][k].iters, q[w][k].cond);
    }
    int rc = ncp_safe_fclose(f, path, err);
    return rc ? rc : ncp_fig_plot("castro2023_slip", dir, p->title, path, err);
}
