/* Castro et al. 2023 §VI-B, Figs. 6-7: the spring-cylinder with friction (mu 1) from the sims'
 * steps.csv (sims.c). The energy E = 1/2 v^T M v + 1/2 k_s x^2 + the vertical potential
 * (gravity and the line contact's 1/2 K d^2) relative to the start, at each step's start, over
 * ten periods at h = 0.02 s for the theta integrator (its spring is implicit: the paper's
 * implicit Euler) and the midpoint rule; the position error e_q = sqrt(1/T sum (x - x_ref)^2 h)
 * against the midpoint rule at the smallest h / 8, and its log-log slope over the three
 * smallest h. Claims C13, C14. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "figures/castro2023/castro2023.h"
#include "figures/fig_util.h"
#include "util/safefile.h"

const double c23_cyl_dt[C23_NDT] = {0.02, 0.01, 0.005, 0.0025, 0.00125, 0.000625};
static const char *const c23_int[2] = {"theta", "midpoint"};

/* Energy of row k of sim r relative to the start (NaN when out of range). */
static double c23_energy(const ncp_study_simres *r, int k)
{
    double e = ncp_study_sim_at(r, k, "kinetic") + ncp_study_sim_at(r, k, "potential") +
               ncp_study_sim_at(r, k, "spring") + ncp_study_sim_at(r, k, "contact");
    return e - ncp_study_sim_at(r, 0, "potential") - ncp_study_sim_at(r, 0, "contact");
}

static const ncp_study_simres *c23_cyl(const ncp_study_ctx *c, ncp_study_claim_out *o,
                                       const char *label)
{
    const ncp_study_simres *r = ncp_study_get_sim(c, "cylinder", label);
    int ok = r && r->ran && r->completed && r->nrows > 1;
    if (o && !ok) o->not_run = 1;
    return ok ? r : NULL;
}

/* Peak-to-peak energy over E0 of the energy sim of integrator i (NaN: not run). */
static double c23_ptp(const ncp_study_ctx *c, ncp_study_claim_out *o, int i)
{
    char lab[32];
    snprintf(lab, sizeof lab, "energy_%s", c23_int[i]);
    const ncp_study_simres *r = c23_cyl(c, o, lab);
    if (!r) return NAN;
    double lo = INFINITY, hi = -INFINITY, e0 = c23_energy(r, 0);
    for (int k = 0; k < r->nrows; k++) {
        lo = fmin(lo, c23_energy(r, k));
        hi = fmax(hi, c23_energy(r, k));
    }
    return (hi - lo) / e0;
}

/* e_q of integrator i at step c23_cyl_dt[j] against the reference (NaN: not run). */
static double c23_eq(const ncp_study_ctx *c, ncp_study_claim_out *o, int i, int j)
{
    char lab[32];
    snprintf(lab, sizeof lab, "%s_%d", c23_int[i], j + 1);
    const ncp_study_simres *s = c23_cyl(c, o, lab), *r = c23_cyl(c, o, "ref");
    if (!s || !r) return NAN;
    double h = c23_cyl_dt[j], href = c23_cyl_dt[C23_NDT - 1] / C23_CYL_REF, se = 0;
    int stride = (int)lround(h / href);
    for (int k = 1; k < s->nrows && k * stride < r->nrows; k++) {
        double d = ncp_study_sim_at(s, k, "x") - ncp_study_sim_at(r, k * stride, "x");
        se += d * d * h;
    }
    return sqrt(se / (s->nrows * h));
}

int c23_C13(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    double th = ncp_study_input(o, NULL, "energy_theta peak-to-peak / E0", c23_ptp(c, o, 0));
    double mp = ncp_study_input(o, NULL, "energy_midpoint peak-to-peak / E0", c23_ptp(c, o, 1));
    o->v[0] = 100 * mp;
    o->v[1] = mp / th;
    snprintf(o->ours, sizeof o->ours, "%d periods at h %g s: energy peak-to-peak %.3g %% of E0 "
             "(midpoint), %.3g %% (theta, implicit Euler); ratio %.3g", C23_CYL_PERIODS, C23_CYL_H,
             100 * mp, 100 * th, o->v[1]);
    return NCP_OK;
}

int c23_C14(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    double e[2][C23_NDT];
    char name[64];
    size_t at = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < C23_NDT; j++) {
            snprintf(name, sizeof name, "%s h %g e_q", c23_int[i], c23_cyl_dt[j]);
            e[i][j] = ncp_study_input(o, NULL, name, c23_eq(c, o, i, j));
        }
    const int a = C23_NDT - C23_CYL_NFIT;
    o->v[0] = ncp_loglog_slope(c23_cyl_dt + a, e[1] + a, C23_CYL_NFIT);
    o->v[1] = ncp_loglog_slope(c23_cyl_dt + a, e[0] + a, C23_CYL_NFIT);
    for (int j = 0; j < C23_NDT && at < sizeof o->ours; j++)
        at += (size_t)snprintf(o->ours + at, sizeof o->ours - at, "%sh %g: %.2e / %.2e",
                               j ? ", " : "e_q midpoint / theta (m): ", c23_cyl_dt[j], e[1][j],
                               e[0][j]);
    if (at < sizeof o->ours)
        snprintf(o->ours + at, sizeof o->ours - at, "; slopes over the %d smallest h: midpoint "
                 "%.3f, theta %.3f", C23_CYL_NFIT, o->v[0], o->v[1]);
    return NCP_OK;
}

static int c23_fig6_energy(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir,
                           char *path, size_t cap, ncp_error *err)
{
    const ncp_study_simres *r[2] = {c23_cyl(c, NULL, "energy_theta"),
                                    c23_cyl(c, NULL, "energy_midpoint")};
    FILE *f = ncp_safe_fopen_in(dir, "castro2023_cylinder_energy.dat", path, cap, err);
    if (!f) return err->code;
    fprintf(f, "# ncpbench, %s; configuration %s (%s)\n# Fig. 6: spring-cylinder, mu 1, h %g s, "
            "sap driving (rel_tol 1e-10); E = 1/2 v^T M v + 1/2 k_s x^2 + the vertical "
            "potential (gravity + 1/2 K d^2, relative to the start), J\n# columns: t_s "
            "E_theta_J E_midpoint_J x_theta_m x_midpoint_m\n", p->title, c->config->id,
            c->config->title, C23_CYL_H);
    int n = r[0] && r[1] ? (r[0]->nrows < r[1]->nrows ? r[0]->nrows : r[1]->nrows) : 0;
    for (int k = 0; k < n; k++)
        fprintf(f, "%.6g %.10g %.10g %.8g %.8g\n", ncp_study_sim_at(r[0], k, "t"),
                c23_energy(r[0], k), c23_energy(r[1], k), ncp_study_sim_at(r[0], k, "x"),
                ncp_study_sim_at(r[1], k, "x"));
    return ncp_safe_fclose(f, path, err);
}

int c23_fig6(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err)
{
    char path[4400];
    int rc = c23_fig6_energy(c, p, dir, path, sizeof path, err);
    if (rc) return rc;
    FILE *f = ncp_safe_fopen_in(dir, "castro2023_cylinder_order.dat", path, sizeof path, err);
    if (!f) return err->code;
    fprintf(f, "# ncpbench, Castro et al. 2023 Fig. 7: L2 position error e_q against the "
            "midpoint rule at h = %g s; configuration %s\n# columns: h_s eq_theta_m "
            "eq_midpoint_m\n", c23_cyl_dt[C23_NDT - 1] / C23_CYL_REF, c->config->id);
    for (int j = 0; j < C23_NDT; j++)
        fprintf(f, "%.6g %.6e %.6e\n", c23_cyl_dt[j], c23_eq(c, NULL, 0, j),
                c23_eq(c, NULL, 1, j));
    if ((rc = ncp_safe_fclose(f, path, err))) return rc;
    return ncp_fig_plot("castro2023_cylinder", dir, p->title, path, err);
}
