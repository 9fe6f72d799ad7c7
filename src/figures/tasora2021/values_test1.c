/* Tasora et al. 2021 TEST 1: the values of claims T1-T9 from the runs' results (claims.c has
 * the rules). Every number a value depends on is recorded as a claim input. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "figures/tasora2021/tasora2021.h"

double t21_cost(const ncp_study_ctx *c, const char *part, const ncp_study_result *r)
{
    if (!r || !r->ran) return NAN;
    return r->converged ? r->iterations
                        : ncp_study_max_iter(c, ncp_study_find_part(c->s, part)) + 1;
}

double t21_viol(const ncp_study_ctx *c, const char *part, const ncp_study_result *r, int k)
{
    const ncp_study_part *p = ncp_study_find_part(c->s, part);
    if (!strcmp(p->capture, "test2")) return ncp_study_trace_at(r, k, "ncp_dual");
    const ncp_study_capture_info *ci = ncp_study_part_capture(c, p); /* NULL: not captured */
    return ci ? ncp_study_trace_at(r, k, "penetration") / ci->h : NAN;
}

double t21_viol_iter(const ncp_study_ctx *c, const char *part, const ncp_study_result *r,
                     double level)
{
    if (!r || !r->ran) return NAN;
    double it = 0;
    for (int k = r->ntrace - 1; k >= 0; k--) {
        double iter = r->trace[(size_t)k * (size_t)ncp_study_trace_cols()];
        if (iter < 1 || !(t21_viol(c, part, r, k) <= level)) break;
        it = iter;
    }
    return it > 0 ? it : ncp_study_max_iter(c, ncp_study_find_part(c->s, part)) + 1;
}

void t21_iters_text(const ncp_study_result *r, char *buf, size_t cap)
{
    if (!r || !r->ran) snprintf(buf, cap, "not run");
    else if (r->converged) snprintf(buf, cap, "%d", r->iterations);
    else
        snprintf(buf, cap, "not in %d (%.1e)", r->iterations,
                 ncp_study_final(r, "natural_map_rel_acary"));
}

/* The run (part, label) and its cost recorded as the input "label iterations". */
static double t21_cost_in(const ncp_study_ctx *c, ncp_study_claim_out *o, const char *part,
                          const char *label, const ncp_study_result **rp)
{
    const ncp_study_result *r = ncp_study_get(c, part, label);
    char name[128];
    snprintf(name, sizeof name, "%s/%s iterations", part, label);
    if (rp) *rp = r;
    return ncp_study_input(o, r, name, t21_cost(c, part, r));
}

static double t21_viol_in(const ncp_study_ctx *c, ncp_study_claim_out *o, const char *part,
                          const char *label)
{
    const ncp_study_result *r = ncp_study_get(c, part, label);
    char name[128];
    snprintf(name, sizeof name, "%s/%s violation iteration", part, label);
    return ncp_study_input(o, r, name, t21_viol_iter(c, part, r, T21_VIOL_LEVEL));
}

int t21_T1(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    const ncp_study_result *r;
    o->v[0] = t21_cost_in(c, o, "fig3_5", "n_s=5", &r);
    t21_iters_text(r, o->ours, sizeof o->ours);
    return NCP_OK;
}

static int t21_T2(const ncp_study_ctx *c, ncp_study_claim_out *o, const char *other)
{
    double a = t21_viol_in(c, o, "fig2", "P-ADMM"), b = t21_viol_in(c, o, "fig2", other);
    o->v[0] = a / b;
    snprintf(o->ours, sizeof o->ours, "violation <= 1e-9 m/s from iteration: P-ADMM %g, %s %g "
             "(budget + 1 = never); ratio %.3g", a, other, b, o->v[0]);
    return NCP_OK;
}

int t21_T2a(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    return t21_T2(c, o, "Jacobi");
}

int t21_T2b(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    return t21_T2(c, o, "P-SPG-FB");
}

/* Decades by which Jacobi trails admm when admm stops (its last iterate k): Jacobi's natural
 * map at iteration k (its last, if it stopped before) over max(admm's final, the tolerance). */
static double t21_trail(const ncp_study_ctx *c, ncp_study_claim_out *o, const char *part,
                        const char *admm, const char *jacobi)
{
    const ncp_study_result *a = ncp_study_get(c, part, admm), *j = ncp_study_get(c, part, jacobi);
    char name[160];
    snprintf(name, sizeof name, "%s/%s last iteration", part, admm);
    double k = ncp_study_input(o, a, name, a && a->ran ? a->iterations : NAN);
    snprintf(name, sizeof name, "%s/%s final natural map", part, admm);
    double na = ncp_study_input(o, a, name, ncp_study_final(a, "natural_map_rel_acary"));
    double nj = NAN;
    for (int r = 0; j && j->ran && r < j->ntrace; r++)
        if (j->trace[(size_t)r * (size_t)ncp_study_trace_cols()] <= k)
            nj = ncp_study_trace_at(j, r, "natural_map_rel_acary");
    snprintf(name, sizeof name, "%s/%s natural map at that iteration", part, jacobi);
    nj = ncp_study_input(o, j, name, nj);
    return log10(nj / fmax(na, T21_TOL));
}

int t21_T3(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    double da = t21_trail(c, o, "fig3_5", "n_s=5", "Jacobi(text_only)");
    double db = t21_trail(c, o, "fig2", "P-ADMM", "Jacobi");
    o->v[0] = fmin(da, db);
    o->v[1] = fmax(da, db);
    snprintf(o->ours, sizeof o->ours, "Jacobi trails ADMM by %.2f decades on 1.A, %.2f on 1.B",
             da, db);
    return NCP_OK;
}

/* Fig. 4's runs a and b: their costs (inputs) into *ca, *cb, a's result into *ra, and the text. */
static void t21_fig4_pair(const ncp_study_ctx *c, ncp_study_claim_out *o, const char *a,
                          const char *b, double *ca, double *cb, const ncp_study_result **ra)
{
    *ca = t21_cost_in(c, o, "fig4", a, ra);
    *cb = t21_cost_in(c, o, "fig4", b, NULL);
    snprintf(o->ours, sizeof o->ours, "%s %g, %s %g iterations (budget + 1 = not converged)", a,
             *ca, b, *cb);
}

/* Whether run r converged, recorded as the input "fig4/<label> converged" (1/0). */
static double t21_fig4_converged(ncp_study_claim_out *o, const ncp_study_result *r,
                                 const char *label)
{
    char name[128];
    snprintf(name, sizeof name, "fig4/%s converged", label);
    return ncp_study_input(o, r, name, r && r->converged ? 1 : 0);
}

int t21_T4(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    const ncp_study_result *f;
    double a, b;
    t21_fig4_pair(c, o, "P-FADMM", "P-ADMM(n_s=5)", &a, &b, &f);
    o->v[1] = t21_fig4_converged(o, f, "P-FADMM");
    o->v[0] = o->v[1] ? a / b : INFINITY;
    return NCP_OK;
}

int t21_T5(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    double a, b;
    t21_fig4_pair(c, o, "FADMM", "P-FADMM", &a, &b, NULL);
    o->v[0] = a / b;
    return NCP_OK;
}

int t21_T6(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    const ncp_study_result *p;
    double a, b;
    t21_fig4_pair(c, o, "P-ADMM(n_s=5)", "ADMM(n_s=5)", &a, &b, &p);
    o->v[0] = t21_fig4_converged(o, p, "P-ADMM(n_s=5)");
    o->v[1] = b / a;
    return NCP_OK;
}

static const char *const t21_ns_label[4] = {"n_s=1", "n_s=2", "n_s=5", "n_s=10"};
static const int t21_ns[4] = {1, 2, 5, 10};

int t21_T7(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    double it[4];
    int drops = 0;
    for (int i = 0; i < 4; i++) {
        it[i] = t21_cost_in(c, o, "fig3_5", t21_ns_label[i], NULL);
        if (i && it[i] < it[i - 1]) drops++;
    }
    o->v[0] = drops;
    o->v[1] = it[0] / it[3];
    snprintf(o->ours, sizeof o->ours, "iterations n_s = 1, 2, 5, 10: %g, %g, %g, %g", it[0],
             it[1], it[2], it[3]);
    return NCP_OK;
}

int t21_T8(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    double lo = INFINITY, hi = 0, upd[4];
    int all = 1;
    for (int i = 0; i < 4; i++) {
        const ncp_study_result *r;
        upd[i] = t21_cost_in(c, o, "fig3_5", t21_ns_label[i], &r) / t21_ns[i];
        all &= r && r->converged;
        lo = fmin(lo, upd[i]);
        hi = fmax(hi, upd[i]);
    }
    o->v[0] = hi / lo;
    o->v[1] = ncp_study_input(o, NULL, "fig3_5 all converged", all);
    snprintf(o->ours, sizeof o->ours, "updates (iterations / n_s) for n_s = 1, 2, 5, 10: %.3g, "
             "%.3g, %.3g, %.3g", upd[0], upd[1], upd[2], upd[3]);
    return NCP_OK;
}

int t21_T9(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    static const char *const other[4] = {"rho=0.001", "rho=0.01", "rho=0.1", "rho=0.5"};
    double r05 = t21_cost_in(c, o, "fig6", "rho=0.05", NULL);
    double admm = t21_cost_in(c, o, "fig3_5", "n_s=5", NULL), best = INFINITY;
    for (int i = 0; i < 4; i++) best = fmin(best, t21_cost_in(c, o, "fig6", other[i], NULL));
    o->v[0] = r05 / admm;
    o->v[1] = best / r05;
    snprintf(o->ours, sizeof o->ours, "FADMM rho 0.05: %g iterations, the best other rho: %g, "
             "admm (n_s = 5): %g (budget + 1 = not converged)", r05, best, admm);
    return NCP_OK;
}
