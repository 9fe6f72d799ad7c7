/* Castro et al. 2023: the claims' values (claims.c), from the runs' metrics.csv rows alone:
 * iterations, setup_ms + solve_ms, sap_momentum, sap_compl, and the captures' contact counts. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "figures/castro2023/castro2023.h"

static const char *const c23_ccp[] = {"admm", "apgd", "pgs-ccp", "admm-ccp"};
enum { C23_NCCP = 4 };

void c23_part_id(char *buf, size_t cap, int walls, int n, int sap)
{
    snprintf(buf, cap, "%c%03d_%s", walls ? 'w' : 'n', n, sap ? "sap" : "ccp");
}

int c23_bodies(const ncp_study_ctx *c, int k) { return c->o->quick ? C23_QUICK_N : c23_scale_n[k]; }

/* Records an aggregate of a run's solves (not run when none ran). */
static double c23_input(ncp_study_claim_out *o, const ncp_study_solves *sv, const char *name,
                        double v)
{
    static const ncp_study_result none = {.ran = 0};
    const ncp_study_result *r = &none;
    for (int i = 0; sv && i < sv->n; i++)
        if (sv->p[i].ran) r = &sv->p[i];
    return ncp_study_input(o, r, name, r->ran ? v : NAN);
}

/* Mean of metrics column `col` ("ms": setup + solve) over problems [a, b) that ran. */
static double c23_mean(const ncp_study_solves *sv, int a, int b, const char *col)
{
    double s = 0;
    int n = 0;
    for (int i = a; sv && i < b && i < sv->n; i++) {
        const ncp_study_result *r = &sv->p[i];
        if (!r->ran) continue;
        s += !strcmp(col, "ms") ? r->setup_ms + r->solve_ms
             : !strcmp(col, "iterations") ? r->iterations : ncp_study_final(r, col);
        n++;
    }
    return n ? s / n : NAN;
}

double c23_mean_ms(const ncp_study_ctx *c, ncp_study_claim_out *o, const char *part,
                   const char *label)
{
    const ncp_study_solves *sv = ncp_study_get_all(c, part, label);
    char name[96];
    snprintf(name, sizeof name, "%s/%s mean ms", part, label);
    return c23_input(o, sv, name, c23_mean(sv, 0, sv ? sv->n : 0, "ms"));
}

double c23_speedup(const ncp_study_ctx *c, ncp_study_claim_out *o, int walls, int k)
{
    char sp[32];
    c23_part_id(sp, sizeof sp, walls, c23_scale_n[k], 1);
    return c23_mean_ms(c, o, sp, C23_IPM) / c23_mean_ms(c, o, sp, "sap");
}

double c23_speedup_ccp(const ncp_study_ctx *c, ncp_study_claim_out *o, int walls, int k)
{
    char sp[32], cp[32];
    c23_part_id(sp, sizeof sp, walls, c23_scale_n[k], 1);
    c23_part_id(cp, sizeof cp, walls, c23_scale_n[k], 0);
    double best = INFINITY;
    for (int s = 0; s < C23_NCCP; s++) {
        const ncp_study_solves *sv = ncp_study_get_all(c, cp, c23_ccp[s]);
        if (!sv || sv->n == 0) continue; /* a solver this build lacks */
        double t = c23_mean_ms(c, o, cp, c23_ccp[s]);
        if (t < best) best = t;
    }
    double ts = c23_mean_ms(c, o, sp, "sap");
    if (isfinite(best)) return best / ts;
    o->not_run = 1; /* no convex solver ran */
    return NAN;
}

int c23_C1(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    const ncp_study_solves *sv = ncp_study_get_all(c, "fig9_sap", "sap");
    int n = sv ? sv->n : 0, k = n / 5 > 0 ? n / 5 : 1;
    o->v[0] = c23_input(o, sv, "sap mean iterations, last fifth",
                        c23_mean(sv, n - k, n, "iterations"));
    snprintf(o->ours, sizeof o->ours, "%.2f Newton iterations per step over the last %d of %d "
             "steps", o->v[0], k, n);
    return NCP_OK;
}

int c23_C2(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    const ncp_study_solves *sv = ncp_study_get_all(c, "fig9_sap", "sap");
    int n = sv ? sv->n : 0, k = n / 5 > 0 ? n / 5 : 1;
    double a = c23_input(o, sv, "sap mean iterations, first fifth", c23_mean(sv, 0, k,
                                                                             "iterations"));
    double b = c23_input(o, sv, "sap mean iterations, last fifth",
                         c23_mean(sv, n - k, n, "iterations"));
    o->v[0] = a / b;
    snprintf(o->ours, sizeof o->ours, "first / last fifth: %.2f / %.2f = %.2f", a, b, o->v[0]);
    return NCP_OK;
}

int c23_C3(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    const ncp_study_solves *s = ncp_study_get_all(c, "fig9_sap", "sap");
    const ncp_study_solves *i = ncp_study_get_all(c, "fig9_sap", C23_IPM);
    int n = s ? s->n : 0, k = n / 5 > 0 ? n / 5 : 1;
    double ts = c23_mean_ms(c, o, "fig9_sap", "sap"), ti = c23_mean_ms(c, o, "fig9_sap", C23_IPM);
    double is = c23_input(o, s, "sap mean iterations, first fifth", c23_mean(s, 0, k,
                                                                            "iterations"));
    double ii = c23_input(o, i, C23_IPM " mean iterations, first fifth",
                          c23_mean(i, 0, k, "iterations"));
    o->v[0] = ts / ti;
    o->v[1] = is / ii;
    snprintf(o->ours, sizeof o->ours, "time per step sap / %s: %.3g / %.3g ms = %.3g; "
             "iterations over the first fifth: %.2f / %.2f", C23_IPM, ts, ti, o->v[0], is, ii);
    return NCP_OK;
}

void c23_scale_means(const ncp_study_ctx *c, ncp_study_claim_out *o, const char *label,
                            const char *col, double out[2][C23_NSCALE])
{
    char part[32], name[96];
    for (int w = 1; w >= 0; w--)
        for (int k = 0; k < C23_NSCALE; k++) {
            c23_part_id(part, sizeof part, w, c23_scale_n[k], 1);
            const ncp_study_solves *sv = ncp_study_get_all(c, part, label);
            snprintf(name, sizeof name, "%s/%s mean %s", part, label, col);
            out[w][k] = c23_input(o, sv, name, c23_mean(sv, 0, sv ? sv->n : 0, col));
        }
}

int c23_C17(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    double s[2][C23_NSCALE], i[2][C23_NSCALE];
    c23_scale_means(c, o, "sap", "sap_momentum", s);
    c23_scale_means(c, o, C23_IPM, "sap_momentum", i);
    int more = 0;
    double lo = INFINITY, hi = -INFINITY;
    for (int w = 0; w < 2; w++)
        for (int k = 0; k < C23_NSCALE; k++) {
            more += i[w][k] > s[w][k];
            lo = fmin(lo, i[w][k] / s[w][k]);
            hi = fmax(hi, i[w][k] / s[w][k]);
        }
    o->v[0] = (double)more / (2 * C23_NSCALE);
    snprintf(o->ours, sizeof o->ours, "%s's mean e_m above sap's at %d of %d scaling points "
             "(ratio %.3g to %.3g)", C23_IPM, more, 2 * C23_NSCALE, lo, hi);
    return NCP_OK;
}

int c23_C18(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    double i[2][C23_NSCALE], mx = -INFINITY;
    c23_scale_means(c, o, C23_IPM, "sap_compl", i);
    for (int w = 0; w < 2; w++)
        for (int k = 0; k < C23_NSCALE; k++) mx = fmax(mx, i[w][k]);
    o->v[0] = mx;
    snprintf(o->ours, sizeof o->ours, "largest mean e_mu of %s over N and both scenes: %.2e",
             C23_IPM, mx);
    return NCP_OK;
}

int c23_C4(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    char part[32], name[64];
    double mx = -INFINITY;
    for (int w = 1; w >= 0; w--)
        for (int k = 0; k < C23_NSCALE; k++) {
            c23_part_id(part, sizeof part, w, c23_scale_n[k], 1);
            const ncp_study_solves *sv = ncp_study_get_all(c, part, "sap");
            snprintf(name, sizeof name, "%s mean e_m", part);
            mx = fmax(mx, c23_input(o, sv, name, c23_mean(sv, 0, sv ? sv->n : 0,
                                                          "sap_momentum")));
        }
    o->v[0] = mx;
    snprintf(o->ours, sizeof o->ours, "largest mean e_m over N and both scenes: %.2e", mx);
    return NCP_OK;
}

int c23_C5(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    double mx = -INFINITY;
    for (int i = 0; i < c->s->nruns; i++) {
        if (strcmp(c->s->runs[i].label, "sap")) continue;
        const ncp_study_solves *sv = ncp_study_get_all(c, c->s->runs[i].part, "sap");
        double m = -INFINITY;
        for (int j = 0; sv && j < sv->n; j++)
            if (sv->p[j].ran) m = fmax(m, ncp_study_final(&sv->p[j], "sap_compl"));
        char name[64];
        snprintf(name, sizeof name, "%s max e_mu", c->s->runs[i].part);
        mx = fmax(mx, c23_input(o, sv, name, m));
    }
    o->v[0] = mx;
    snprintf(o->ours, sizeof o->ours, "largest e_mu of sap's answers: %.2e", mx);
    return NCP_OK;
}

int c23_C6(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    int more = 0;
    size_t at = 0;
    for (int k = 0; k < C23_NSCALE; k++) {
        char id[2][32], name[64];
        double nc[2];
        for (int w = 0; w < 2; w++) {
            c23_part_id(id[w], sizeof id[w], w, c23_scale_n[k], 1);
            const ncp_study_capture_info *ci =
                ncp_study_part_capture(c, ncp_study_find_part(c->s, id[w]));
            snprintf(name, sizeof name, "%.4s contacts", id[w]);
            nc[w] = ncp_study_capture_input(o, ci, name, ci ? ci->ncontacts : NAN);
        }
        more += nc[0] > nc[1];
        if (at < sizeof o->ours)
            at += (size_t)snprintf(o->ours + at, sizeof o->ours - at, "%sN=%d %.0f / %.0f",
                                   k ? ", " : "contacts walls / no walls: ", c23_bodies(c, k),
                                   nc[1], nc[0]);
    }
    o->v[0] = (double)more / C23_NSCALE;
    return NCP_OK;
}

/* Speedups of one scene at every N: the text and s[]. */
static void c23_speedups(const ncp_study_ctx *c, ncp_study_claim_out *o, int walls, double *s,
                         size_t *at)
{
    for (int k = 0; k < C23_NSCALE; k++) {
        s[k] = c23_speedup(c, o, walls, k);
        if (*at < sizeof o->ours)
            *at += (size_t)snprintf(o->ours + *at, sizeof o->ours - *at, "%s%sN=%d %.3g",
                                    k ? ", " : (*at ? "; " : ""), k ? "" : walls ? "walls: "
                                    : "no walls: ", c23_bodies(c, k), s[k]);
    }
}

int c23_C7(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    double s[2][C23_NSCALE];
    size_t at = 0;
    c23_speedups(c, o, 1, s[1], &at);
    c23_speedups(c, o, 0, s[0], &at);
    o->v[0] = o->v[1] = -INFINITY;
    o->v[2] = INFINITY;
    for (int k = 0; k < C23_NSCALE && c23_scale_n[k] <= C23_SMALL_N; k++) {
        o->v[0] = fmax(o->v[0], s[1][k]);
        o->v[1] = fmax(o->v[1], s[0][k]);
        o->v[2] = fmin(o->v[2], fmin(s[0][k], s[1][k]));
    }
    return NCP_OK;
}

int c23_C8(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    double s[C23_NSCALE];
    size_t at = 0;
    c23_speedups(c, o, 1, s, &at);
    o->v[0] = INFINITY;
    o->v[1] = -INFINITY;
    for (int k = 0; k < C23_NSCALE; k++) {
        if (c23_scale_n[k] <= C23_SMALL_N) o->v[0] = fmin(o->v[0], s[k]);
        if (c23_scale_n[k] > C23_BIG_N) o->v[1] = fmax(o->v[1], s[k]);
    }
    o->v[2] = s[C23_NSCALE - 1] / s[0];
    return NCP_OK;
}

int c23_C16(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    double s[C23_NSCALE];
    size_t at = 0;
    c23_speedups(c, o, 0, s, &at);
    o->v[0] = INFINITY;
    o->v[1] = -INFINITY;
    for (int k = 0; k < C23_NSCALE; k++)
        if (c23_scale_n[k] > C23_BIG_N) {
            o->v[0] = fmin(o->v[0], s[k]);
            o->v[1] = fmax(o->v[1], s[k]);
        }
    return NCP_OK;
}
