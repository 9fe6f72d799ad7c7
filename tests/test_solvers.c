/* Solver tests: the registry, pgs and nsn-nm, run through the harness as the benchmark runs them.
 *
 * (a) analytic problems derived by hand (testutil.c; diagonal D: open / grazing / stick / slide /
 *     stick-limit contact, frictionless, the scalar block types, a coupled bilateral pair, a row
 *     with zero diagonal);
 * (b) seeded random problems (contact only and mixed blocks): the accuracy each solver documents,
 *     checked with ncp_metrics_eval AND recomputed here independently (own cone projection and the
 *     NCP's sign/complementarity conditions), and agreement of the two solvers where D is SPD;
 * (c) a warm start from a solution stops within one iteration;
 * (d) the max_iter budget is respected; the solvers' own stall test;
 * (e) registry names unique, every parameter documented, documented defaults = code defaults,
 *     invalid parameter values rejected; determinism.
 *
 * Random problems: tutil_random_problem draws e with tangential parts and, when m > nv, often
 * gives problems with no v such that J v + e is strictly inside the dual cones (bilateral rows:
 * = 0), the sufficient condition for a solution to exist. Checked offline with an LP over a
 * polyhedral outer approximation of K*: 8 of 200 contact-only and 12 of 200 mixed draws fail
 * it; every draw on which nsn-nm does not converge is among them, and on several both solvers
 * drift to |lambda| ~ 1e12+. tutil_feasible_shift() (testutil.h) therefore moves e (and v_f
 * with it) so that v = 0 is strictly feasible: bilateral e = 0, unilateral e >= 0.1, contact
 * e_n >= mu |e_t| + 0.1. The problems keep their open / stick / slide mix (driven by
 * J A^{-1} b). With nv >= m (the SPD agreement test) J has full row rank, which is enough.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solve/harness.h"
#include "core/la.h"
#include "metrics/metrics.h"
#include "solvers/registry.h"
#include "tcheck.h"
#include "testutil.h"
#include "solve/params.h"

/* The independent checks (own cone projection, own u, the NCP's sign / complementarity
 * conditions; no cone.h / metrics code) are tutil_ref_check (testutil.h). */

/* Random problem #i of this file's family (testutil.h); spd = 1: D SPD. */
static int t_random(ncp_problem *p, int i, int mixed, int spd, ncp_error *err)
{
    return tutil_random_family(p, 0x5eed0000u, 1000u, i, mixed, spd ? TUTIL_NV_SPD : TUTIL_NV_FREE,
                               NULL, err);
}

static const ncp_solver_desc *S_PGS, *S_NSN;

/* Solves with both solvers and checks lambda against the expected answer to 1e-10. */
static void t_expect(const char *what, const ncp_problem *p, const double *expect)
{
    tutil_check_answer(what, S_PGS, p, NULL, 1e-13, 5000, expect, 1e-10);
    tutil_check_answer(what, S_NSN, p, NULL, 1e-13, 5000, expect, 1e-10);
}

/* ---------- (a) analytic ---------- */

static void one_contact_case(const tutil_contact_case *k, ncp_problem *p, void *ctx)
{
    (void)ctx;
    t_expect(k->name, p, k->ncp);
}

static void test_one_contact(void)
{
    /* D = diag(2, .5, .5): open / grazing / stick / slide / frictionless / stick-limit, derived
     * by hand in testutil.c (which checks each answer independently first) */
    tutil_for_contact_cases(one_contact_case, NULL);
}

static void test_scalar_blocks(void)
{
    /* diagonal D, every scalar block type and a sliding contact (testutil.c) */
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    double expect[8];
    CHECK_OK(tutil_scalar_blocks(&p, expect, NULL, &err), &err);
    tutil_check_solves(&p, expect, 0, 1e-15);
    t_expect("scalar blocks", &p, expect);
    ncp_problem_free(&p);
}

static void test_coupled_bilateral(void)
{
    /* D = [[2, 1], [1, 2]], v_f = (1, -1): lambda = (-1, 1). Gauss–Seidel needs many sweeps
     * (contraction 1/4 per sweep), Newton one step. */
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    double expect[2];
    CHECK_OK(tutil_coupled_bilateral(&p, expect, &err), &err);
    t_expect("coupled bilateral", &p, expect);
    ncp_result res;
    CHECK_OK(tutil_solve(S_NSN, &p, NULL, NULL, 1e-13, 100, &res), &err);
    CHECK(res.iterations == 1); /* F is linear here: one Newton step solves it */
    ncp_result_free(&res);
    ncp_problem_free(&p);
}

static void test_zero_diagonal_row(void)
{
    /* A bilateral row with J_r = 0 (D_rr = 0, v_f,r = 0: any lambda_r is a solution) next to a
     * sticking contact: the solvers leave lambda_r at its start (0) and solve the contact. */
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    double expect[4];
    CHECK_OK(tutil_zero_diagonal(&p, expect, &err), &err);
    t_expect("zero diagonal", &p, expect);
    ncp_problem_free(&p);
}

static void test_empty_problem(void)
{
    tutil_check_empty(S_PGS);
    tutil_check_empty(S_NSN);
}

/* ---------- (b) random problems ---------- */

static int nsn_total_iters, nsn_max_iters, pgs_total_iters, pgs_max_iters;

static void test_random(int mixed, int count)
{
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, i, mixed, 0, &err), &err);
        ncp_metrics_ws *ws = NULL;
        CHECK_OK(ncp_metrics_ws_create(&p, &ws, &err), &err);
        /* documented accuracy: nsn-nm natural map <= 1e-10; pgs 1e-8 (these are well-posed,
         * strictly feasible problems; pgs needs up to a few thousand sweeps on the
         * rank-deficient ones) */
        struct {
            const ncp_solver_desc *s;
            double tol;
            int max_iter;
        } runs[2] = {{S_NSN, 1e-10, 500}, {S_PGS, 1e-8, 20000}};
        for (int si = 0; si < 2; si++) {
            ncp_result res;
            int rc = tutil_solve(runs[si].s, &p, NULL, NULL, runs[si].tol, runs[si].max_iter, &res);
            CHECK(rc == 0);
            if (rc) continue;
            /* converged; metrics and the independent recomputation agree; sign and
             * complementarity conditions */
            tutil_check_ncp_answer(runs[si].s, &p, ws, &res, runs[si].tol);
            if (runs[si].s == S_NSN) {
                nsn_total_iters += res.iterations;
                if (res.iterations > nsn_max_iters) nsn_max_iters = res.iterations;
            } else {
                pgs_total_iters += res.iterations;
                if (res.iterations > pgs_max_iters) pgs_max_iters = res.iterations;
            }
            ncp_result_free(&res);
        }
        ncp_metrics_ws_free(ws);
        ncp_problem_free(&p);
    }
}

static void test_agree_spd(int mixed, int count)
{
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, i, mixed, 1, &err), &err);
        /* D is SPD here (nv >= m, J full row rank): its Cholesky factorisation succeeds */
        double *L = malloc((size_t)p.m * p.m * sizeof(double));
        CHECK(L != NULL);
        if (!L) return;
        memcpy(L, p.D, (size_t)p.m * p.m * sizeof(double));
        CHECK(ncp_chol_factor(p.m, L, &err) == 0);
        free(L);
        ncp_result a, b;
        CHECK_OK(tutil_solve(S_NSN, &p, NULL, NULL, 1e-12, 500, &a), &err);
        CHECK_OK(tutil_solve(S_PGS, &p, NULL, NULL, 1e-10, 50000, &b), &err);
        CHECK(a.converged && b.converged);
        double d = tutil_maxdiff(p.m, a.lambda, b.lambda);
        CHECK(d <= 1e-6);
        if (d > 1e-6)
            fprintf(stderr, "  spd random %d (mixed %d): |lambda_nsn - lambda_pgs| = %g\n", i,
                    mixed, d);
        ncp_result_free(&a);
        ncp_result_free(&b);
        ncp_problem_free(&p);
    }
}

/* ---------- (c) warm start, (d) budgets and stalls ---------- */

static void test_warm_start(int count)
{
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, 100 + i, i % 2, 0, &err), &err);
        const ncp_solver_desc *ss[2] = {S_PGS, S_NSN};
        tutil_check_warm_starts(S_NSN, &p, ss, 2, 1e-10);
        ncp_problem_free(&p);
    }
}

/* Local convergence of nsn-nm: from lambda* + 1e-5 * noise, Newton with the right generalised
 * Jacobian is quadratic (1e-5 -> 1e-10 -> 1e-20), so 1e-12 takes <= 3 iterations; a wrong
 * Jacobian (e.g. a sign error in dGamma/du) converges linearly and needs many more. */
static void test_local_newton(int count)
{
    int worst = 0;
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, 200 + i, i % 2, 0, &err), &err);
        ncp_result sol, res;
        CHECK_OK(tutil_solve(S_NSN, &p, NULL, NULL, 1e-13, 500, &sol), &err);
        CHECK(sol.converged);
        trng r = {4242u + (uint64_t)i};
        for (int k = 0; k < p.m; k++) sol.lambda[k] += 1e-5 * trng_normal(&r);
        CHECK_OK(tutil_solve(S_NSN, &p, NULL, sol.lambda, 1e-12, 100, &res), &err);
        CHECK(res.converged);
        if (res.iterations > worst) worst = res.iterations;
        ncp_result_free(&sol);
        ncp_result_free(&res);
        ncp_problem_free(&p);
    }
    printf("nsn-nm from 1e-5 off the solution: <= %d iterations to 1e-12\n", worst);
    CHECK(worst <= 3);
}

static void test_max_iter(void)
{
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_random(&p, 7, 1, 0, &err), &err);
    /* neither converges nor stalls this early here: the budget is used exactly */
    tutil_check_budgets(S_PGS, &p, NULL);
    tutil_check_budgets(S_NSN, &p, NULL);
    ncp_problem_free(&p);
}

static void test_stall(void)
{
    /* A sticking contact with D = 2 I: both solvers reach the exact solution (0.5, -0.05,
     * 0.025) in floating point; with an unreachable tolerance (< 0) they must stop on their
     * own (STALLED), long before max_iter. */
    const double G[9] = {2.0, 0, 0, 0, 2.0, 0, 0, 0, 2.0}, vf[3] = {-1.0, 0.1, -0.05};
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(tutil_one_contact(&p, G, vf, 0.5, &err), &err);
    const ncp_solver_desc *ss[2] = {S_PGS, S_NSN};
    for (int si = 0; si < 2; si++) {
        ncp_result res;
        CHECK_OK(tutil_solve(ss[si], &p, NULL, NULL, -1.0, 1000, &res), &err);
        CHECK(res.status == NCP_STATUS_STALLED);
        CHECK(res.iterations < 50);
        CHECK_NEAR(res.lambda[0], 0.5, 1e-15);
        CHECK_NEAR(res.lambda[1], -0.05, 1e-15);
        CHECK_NEAR(res.lambda[2], 0.025, 1e-15);
        ncp_result_free(&res);
    }
    ncp_problem_free(&p);
}

/* ---------- (e) registry and parameters ---------- */

static void test_registry(void)
{
    int n = ncp_solver_count();
    CHECK(n >= 2);
    CHECK(ncp_solver_at(-1) == NULL);
    CHECK(ncp_solver_at(n) == NULL);
    CHECK(ncp_solver_find(NULL) == NULL);
    CHECK(ncp_solver_find("no-such-solver") == NULL);
    CHECK(ncp_solver_find("pgs") == &ncp_solver_pgs);
    CHECK(ncp_solver_find("nsn-nm") == &ncp_solver_nsn_nm);
    for (int i = 0; i < n; i++) {
        const ncp_solver_desc *s = ncp_solver_at(i);
        CHECK(s != NULL);
        if (!s) continue;
        CHECK(s->name && s->name[0]);
        CHECK(s->source && s->source[0]);
        CHECK(s->summary && s->summary[0]);
        CHECK(s->file && s->file[0]);
        CHECK(s->solve != NULL);
        CHECK(s->needs != 0);
        CHECK(s->ccp == 0 || s->ccp == 1);
        CHECK(ncp_solver_find(s->name) == s);
        for (int j = 0; j < i; j++) CHECK(strcmp(ncp_solver_at(j)->name, s->name) != 0);
        CHECK(s->params != NULL);
        if (!s->params) continue;
        for (int k = 0; s->params[k].name; k++) {
            const ncp_param_doc *d = &s->params[k];
            CHECK(d->name[0] != '\0');
            CHECK(strlen(d->name) < sizeof(((ncp_param *)0)->name));
            CHECK(d->doc && strlen(d->doc) > 10);
            CHECK(isfinite(d->def));
            for (int l = 0; l < k; l++) CHECK(strcmp(s->params[l].name, d->name) != 0);
        }
    }
}

/* Passing every documented default explicitly must give bit-identical results to passing none
 * (the doc table and the code agree); a documented parameter with a bad value is an input error. */
static void test_param_defaults(void)
{
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_random(&p, 11, 1, 0, &err), &err);
    tutil_check_param_defaults(S_PGS, &p, 1e-9, 300);
    tutil_check_param_defaults(S_NSN, &p, 1e-9, 300);
    struct {
        const ncp_solver_desc *s;
        const char *name;
        double value;
    } bad[] = {
        {S_PGS, "omega", 2.0},        {S_PGS, "omega", 0.0},        {S_PGS, "local_iter", 0.5},
        {S_PGS, "stall_tol", -1.0},   {S_NSN, "rho_scale", 0.0},    {S_NSN, "armijo", 0.7},
        {S_NSN, "newton_ls", -1.0},   {S_NSN, "nonmonotone", 65.0}, {S_NSN, "pgs_burst", 0.0},
        {S_NSN, "window", 1.5},       {S_NSN, "lm_ls", 61.0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        tutil_check_bad_param(bad[i].s, &p, bad[i].name, bad[i].value);
    /* non-default but valid values still solve */
    ncp_params ps;
    memset(&ps, 0, sizeof ps);
    CHECK_OK(ncp_params_set(&ps, "omega", 1.3, &err), &err);
    CHECK_OK(ncp_params_set(&ps, "local_iter", 5, &err), &err);
    ncp_result res;
    CHECK_OK(tutil_solve(S_PGS, &p, &ps, NULL, 1e-8, 20000, &res), &err);
    CHECK(res.converged);
    ncp_result_free(&res);
    ncp_problem_free(&p);
}

int main(void)
{
    S_PGS = ncp_solver_find("pgs");
    S_NSN = ncp_solver_find("nsn-nm");
    CHECK(S_PGS != NULL && S_NSN != NULL);
    if (!S_PGS || !S_NSN) return tcheck_exit("solvers");
    test_registry();
    test_one_contact();
    test_scalar_blocks();
    test_coupled_bilateral();
    test_zero_diagonal_row();
    test_empty_problem();
    test_random(0, 50);
    test_random(1, 50);
    printf("random (100 problems): nsn-nm mean %.1f max %d iterations; pgs mean %.1f max %d\n",
           nsn_total_iters / 100.0, nsn_max_iters, pgs_total_iters / 100.0, pgs_max_iters);
    test_agree_spd(0, 20);
    test_agree_spd(1, 20);
    test_warm_start(10);
    test_local_newton(20);
    test_max_iter();
    test_stall();
    test_param_defaults();
    return tcheck_exit("solvers");
}
