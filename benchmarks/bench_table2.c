/* Table II of Lee et al. 2025 (§VII-D1) on a problems file, quickly: for every problem, a fixed
 * number of AL loops of canal, al-trdogleg and al-dampedsn through ncp_al_solve_observed
 * (solvers/al.h), warm-started from the problem's stored previous velocity (guess_v, §V-D) when
 * it has one, and one line per solver with Table II's columns: inner steps per case (mean),
 * failures (% of AL loops whose inner solve missed its tolerance), -log10 al_residual (metrics/,
 * mean over cases, floored at 1e-16 as in src/figures/lee2025/values_tables.c), wall time per case.
 * scripts/sweep_canal.sh runs it over parameter grids.
 *
 * Two more residual columns read Table II's "Residual [-log]" other ways: -log10 of the mean
 * al_residual over cases, and the median of -log10.
 *
 * Usage: bench_table2 PROBLEMS.h5 [--solvers a,b,c] [--loops N] [--limit N] [--cold] [--per-loop]
 *                     [--trace CASE] [--warm-lambda] [--diag]
 *                     [--param solver.key=value]...
 *   --cold: ignore guess_v (no v0: the solver's cold start); --per-loop: mean inner steps of
 *   each AL loop; --trace CASE: every inner step on problem CASE (0-based); --warm-lambda: also
 *   lambda0 = guess_lambda (§V-D warm-starts u as well); --diag: --per-loop and, per AL loop,
 *   what moves the loop's start away from the previous loop's solution (log10, mean over cases):
 *   ||r|| at the first step, ||lambda^l - lambda^{l-1}||, ||J^T (lambda^l - lambda^{l-1})||,
 *   ||beta (e~^l - e~^{l-1})|| (canal's lagged De Saxce shift, eq. 21, as it enters x) overall
 *   and on the contacts loaded at the loop's start; and the contacts open / sticking / sliding at
 *   the end. (Dishes: the shift term is 3-10x the multiplier change, and lambda's change lies in
 *   the null space of J^T: results/REPORT.md, Table II.)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/la.h"
#include "metrics/metrics.h"
#include "solve/params.h"
#include "solvers/al.h"
#include "store/store.h"
#include "util/clock.h"

#define MAXS 3

static const char *names[MAXS] = {"canal", "al-trdogleg", "al-dampedsn"};

static const ncp_al_config *config_of(int s)
{
    return s == 0 ? &ncp_al_config_canal : s == 1 ? &ncp_al_config_trdogleg
                                                  : &ncp_al_config_dampedsn;
}

/* Inner steps per AL loop, summed over cases (--per-loop). */
typedef struct loop_count {
    double steps[64];
    int trace; /* print every step (--trace CASE) */
    /* --diag: what moves loop l's start away from loop l-1's solution (sums over cases of
     * log10 of): ||lambda^l - lambda^{l-1}|| (the multiplier update) and ||beta (e~^l -
     * e~^{l-1})|| (the change of the lagged De Saxce shift, in impulse units as it enters
     * x = lambda^l - beta (J v + e~)), and ||r|| at the loop's first step */
    int diag, m, last_loop;
    double *lam_last, *esh_last, beta_last;
    double dlam[64], djtl[64], dshift[64], dshift_act[64], r0[64];
    int nd[64], nr0[64]; /* cases that reached loop l with an inner step (the means' counts) */
    double *dl, *jt; /* m, nv scratch */
} loop_count;

static double diff_norm(int m, const double *a, const double *b, double sa)
{
    double s = 0.0;
    for (int i = 0; i < m; i++) s += (a[i] - b[i]) * (a[i] - b[i]) * sa * sa;
    return sqrt(s);
}

static void on_step(void *ctx, const ncp_al_step *s)
{
    loop_count *c = ctx;
    if (s->al_iter >= 1 && s->al_iter <= 64) c->steps[s->al_iter - 1] += 1.0;
    if (c->diag && s->inner_iter == 1 && s->al_iter <= 64 && s->al_iter != c->last_loop) {
        int l = s->al_iter - 1;
        if (l > 0 && c->last_loop == s->al_iter - 1) {
            c->dlam[l] += log10(fmax(diff_norm(c->m, s->lam_prev, c->lam_last, 1.0), 1e-300));
            for (int i = 0; i < c->m; i++) c->dl[i] = s->lam_prev[i] - c->lam_last[i];
            ncp_csr_gemv_t(&s->p->J, 1.0, c->dl, 0.0, c->jt);
            c->djtl[l] += log10(fmax(ncp_norm2(s->p->nv, c->jt), 1e-300));
            c->dshift[l] += log10(fmax(s->beta * diff_norm(c->m, s->eshift, c->esh_last, 1.0),
                                       1e-300));
            /* the same on the contacts that carry load at the loop's start (lambda^l != 0):
             * on the others x is far outside the cone and the shift does not reach lambda */
            double a2 = 0.0;
            for (int bi = 0; bi < s->p->nblocks; bi++) {
                const ncp_block *b = &s->p->blocks[bi];
                if (b->type != NCP_CONTACT || s->lam_prev[b->row] <= 0.0) continue;
                double d = s->beta * (s->eshift[b->row] - c->esh_last[b->row]);
                a2 += d * d;
            }
            c->dshift_act[l] += log10(fmax(sqrt(a2), 1e-300));
            c->nd[l]++;
        }
        c->r0[l] += log10(fmax(s->r_before, 1e-300));
        c->nr0[l]++;
        memcpy(c->lam_last, s->lam_prev, (size_t)c->m * sizeof(double));
        memcpy(c->esh_last, s->eshift, (size_t)c->m * sizeof(double));
        c->last_loop = s->al_iter;
    }
    if (c->trace)
        printf("    loop %2d step %2d beta %.3g alpha %.6g ||r|| before %.3e\n", s->al_iter,
               s->inner_iter, s->beta, s->alpha, s->r_before);
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_table2 PROBLEMS.h5 [--solvers canal,al-trdogleg,al-dampedsn] "
                    "[--loops N] [--limit N] [--cold] [--per-loop] [--trace CASE] [--warm-lambda] [--diag] "
                    "[--param solver.key=value]...\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *path = NULL, *solvers = "canal,al-trdogleg,al-dampedsn";
    int loops = 10, limit = -1, cold = 0, per_loop = 0, diag = 0, trace = -1, warm_lambda = 0, rc = 0;
    ncp_params ps[MAXS];
    memset(ps, 0, sizeof ps);
    char ptext[1024] = "";
    ncp_error err;
    ncp_error_clear(&err);
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--solvers") && a + 1 < argc) solvers = argv[++a];
        else if (!strcmp(argv[a], "--loops") && a + 1 < argc) loops = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--limit") && a + 1 < argc) limit = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--cold")) cold = 1;
        else if (!strcmp(argv[a], "--per-loop")) per_loop = 1;
        else if (!strcmp(argv[a], "--diag")) diag = per_loop = 1;
        else if (!strcmp(argv[a], "--warm-lambda")) warm_lambda = 1;
        else if (!strcmp(argv[a], "--trace") && a + 1 < argc) trace = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--param") && a + 1 < argc) {
            const char *kv = argv[++a], *dot = strchr(kv, '.'), *eq = strchr(kv, '=');
            if (!dot || !eq || eq < dot) return usage();
            int hit = 0;
            for (int s = 0; s < MAXS; s++) {
                size_t ln = strlen(names[s]);
                if ((size_t)(dot - kv) != ln || strncmp(kv, names[s], ln)) continue;
                char key[64];
                size_t kl = (size_t)(eq - dot - 1);
                if (kl >= sizeof key) return usage();
                memcpy(key, dot + 1, kl);
                key[kl] = 0;
                if (ncp_params_set(&ps[s], key, atof(eq + 1), &err)) {
                    fprintf(stderr, "bench_table2: %s\n", err.msg);
                    return 2;
                }
                hit = 1;
            }
            if (!hit) return usage();
            size_t used = strlen(ptext);
            snprintf(ptext + used, sizeof ptext - used, "%s%s", used ? " " : "", kv);
        } else if (argv[a][0] != '-' && !path) path = argv[a];
        else return usage();
    }
    if (!path || loops < 1) return usage();
    ncp_problem *probs = NULL;
    int np = 0;
    if (ncp_load_problems(path, &probs, &np, &err)) {
        fprintf(stderr, "bench_table2: %s\n", err.msg);
        return 1;
    }
    int nall = np;
    if (limit > 0 && limit < np) np = limit;
    printf("# %s: %d problems, %d AL loops, start %s; params: %s\n", path, np, loops,
           cold          ? "cold (no v0)"
           : warm_lambda ? "v0 = guess_v, lambda0 = guess_lambda when stored"
                         : "v0 = guess_v when stored",
           ptext[0] ? ptext : "defaults");
    printf("%-12s %8s %9s %9s %9s %9s %9s %9s %9s %9s\n", "solver", "cases", "inner", "max",
           "fail%", "failcase", "-log10r", "ms/case", "-lg(mean)", "-lg(med)");
    for (int s = 0; s < MAXS && !rc; s++) {
        if (!strstr(solvers, names[s])) continue;
        double inner = 0, fails = 0, nloops = 0, nlog = 0, ms = 0, rsum = 0;
        double ncont[3] = {0, 0, 0}; /* --diag: open / sticking / sliding contacts at the end */
        double *rall = calloc((size_t)np + 1, sizeof *rall); /* al_residual per case */
        if (!rall) {
            rc = NCP_ERR_NOMEM;
            break;
        }
        int maxin = 0, failcases = 0, n = 0, withv = 0;
        loop_count lc;
        memset(&lc, 0, sizeof lc);
        for (int i = 0; i < np && !rc; i++) {
            const ncp_problem *p = &probs[i];
            double *lam = calloc((size_t)p->m + 1, sizeof *lam);
            double *v = calloc((size_t)p->nv + 1, sizeof *v);
            ncp_metrics_ws *ws = NULL;
            ncp_al_stats st;
            lc.diag = diag;
            lc.m = p->m;
            lc.last_loop = 0;
            free(lc.lam_last);
            free(lc.esh_last);
            free(lc.dl);
            free(lc.jt);
            lc.dl = calloc((size_t)p->m + 1, sizeof(double));
            lc.jt = calloc((size_t)p->nv + 1, sizeof(double));
            lc.lam_last = calloc((size_t)p->m + 1, sizeof(double));
            lc.esh_last = calloc((size_t)p->m + 1, sizeof(double));
            if (!lam || !v || !lc.lam_last || !lc.esh_last || !lc.dl || !lc.jt) rc = NCP_ERR_NOMEM;
            const double *v0 = cold ? NULL : p->guess_v;
            const double *l0 = cold || !warm_lambda ? NULL : p->guess_lambda;
            withv += v0 != NULL;
            lc.trace = i == trace;
            if (lc.trace) printf("  %s on %s:\n", names[s], p->name ? p->name : "?");
            double t0 = ncp_now_ms();
            if (!rc)
                rc = ncp_al_solve_observed(config_of(s), p, &ps[s], l0, v0, loops,
                                           per_loop || trace >= 0 ? on_step : NULL, &lc, lam, v, &st, &err);
            double dt = ncp_now_ms() - t0;
            ncp_metrics mt;
            if (!rc) rc = ncp_metrics_ws_create(p, &ws, &err);
            if (!rc) rc = ncp_metrics_eval(ws, lam, &mt, &err);
            if (!rc) {
                n++;
                inner += st.inner_iterations;
                if (st.inner_iterations > maxin) maxin = st.inner_iterations;
                fails += st.inner_failures;
                failcases += st.inner_failures > 0;
                nloops += st.al_iterations;
                nlog += -log10(fmax(mt.al_residual, 1e-16));
                rsum += mt.al_residual;
                for (int bi = 0; diag && bi < p->nblocks; bi++) {
                    const ncp_block *b = &p->blocks[bi];
                    if (b->type != NCP_CONTACT) continue;
                    const double *l3 = lam + b->row;
                    double lt = hypot(l3[1], l3[2]);
                    ncont[l3[0] <= 0.0 ? 0 : lt >= (1.0 - 1e-6) * b->mu * l3[0] ? 2 : 1] += 1.0;
                }
                rall[n - 1] = -log10(fmax(mt.al_residual, 1e-16));
                ms += dt;
            }
            ncp_metrics_ws_free(ws);
            free(lam);
            free(v);
        }
        free(lc.lam_last);
        free(lc.esh_last);
        free(lc.dl);
        free(lc.jt);
        if (rc || n == 0) {
            free(rall);
            break;
        }
        /* Table II's "Residual [-log]" read three ways: the mean of -log10 per case (our
         * column, as src/figures/lee2025/values_tables.c), -log10 of the mean residual, the median */
        qsort(rall, (size_t)n, sizeof *rall, cmp_dbl);
        double med = n % 2 ? rall[n / 2] : 0.5 * (rall[n / 2 - 1] + rall[n / 2]);
        free(rall);
        printf("%-12s %8d %9.2f %9d %9.2f %9d %9.4f %9.2f %9.4f %9.4f%s\n", names[s], n,
               inner / n, maxin, nloops > 0 ? 100.0 * fails / nloops : 0.0, failcases, nlog / n,
               ms / n, -log10(fmax(rsum / n, 1e-16)), med, withv ? "" : " (no v0)");
        if (per_loop && n > 0) {
            printf("  inner steps per AL loop (mean):");
            for (int l = 0; l < loops && l < 64; l++) printf(" %.2f", lc.steps[l] / n);
            printf("\n");
        }
        if (diag && n > 0) {
            printf("  contacts per case at the end: open %.1f, sticking %.1f, sliding (on the cone "
                   "boundary) %.1f\n", ncont[0] / n, ncont[1] / n, ncont[2] / n);
            int cascade = config_of(s)->cascade;
            printf("  log10 ||r|| at a loop's first step (mean):");
            for (int l = 0; l < loops && l < 64; l++)
                printf(" %.2f", lc.nr0[l] ? lc.r0[l] / lc.nr0[l] : NAN);
            printf("\n  log10 ||lambda^l - lambda^{l-1}|| (mean):   -");
            for (int l = 1; l < loops && l < 64; l++)
                printf(" %.2f", lc.nd[l] ? lc.dlam[l] / lc.nd[l] : NAN);
            printf("\n  log10 ||J^T (lambda^l - lambda^{l-1})||:   -");
            for (int l = 1; l < loops && l < 64; l++)
                printf(" %.2f", lc.nd[l] ? lc.djtl[l] / lc.nd[l] : NAN);
            printf("\n  log10 ||beta (e~^l - e~^{l-1})|| (mean):   -");
            for (int l = 1; l < loops && l < 64 && cascade; l++)
                printf(" %.2f", lc.nd[l] ? lc.dshift[l] / lc.nd[l] : NAN);
            printf("%s\n  the same on loaded contacts (lambda^l_n > 0): -",
                   cascade ? "" : " (no cascade: e~ = e)");
            for (int l = 1; l < loops && l < 64 && cascade; l++)
                printf(" %.2f", lc.nd[l] ? lc.dshift_act[l] / lc.nd[l] : NAN);
            printf("\n");
        }
    }
    if (rc) fprintf(stderr, "bench_table2: %s\n", err.msg);
    ncp_problems_free(probs, nall);
    return rc ? 1 : 0;
}
