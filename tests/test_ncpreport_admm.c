/* Tests of the NCP report 2025's ADMM configurations (solvers/admm_proximal.c and the four thin
 * files), run through the harness as the benchmark runs them.
 *
 * (a) analytic problems derived by hand (diagonal D): NCP answers (open / stick / slide /
 *     frictionless contact, the scalar block types, soft rows with c > 0 and c = 0, a coupled
 *     bilateral pair, a row with zero diagonal) for the three NCP variants, and CCP answers
 *     (a sliding contact with the CCP's non-zero normal velocity, "open" only when
 *     v_f,n >= mu |v_f,t|) for admm-ccp;
 * (b) seeded random problems (contact only and mixed): each NCP variant reaches its documented
 *     accuracy, natural map <= 1e-8, checked with ncp_metrics_eval AND recomputed here with an
 *     own projection and the NCP's sign / complementarity conditions; admm-ccp stops on its own
 *     rule with the CCP natural map (computed here only) <= 1e-8; on SPD problems the NCP
 *     variants agree with nsn-nm and admm-ccp agrees with itself under other penalties (the
 *     CCP's solution is unique when D is SPD);
 * (c) a warm start from a solution stops within one iteration;
 * (d) the max_iter budget is used exactly; the own stopping rule (eq. 170) ends runs;
 * (e) structure: LA with tau = 1 is FP, SA with alpha = 0 is FP with rho = sqrt(L eta)
 *     kappa^p0 (L from LAPACK's eigensolver, independent of the solver's power iteration), and
 *     with mu = 0 everywhere the CCP and the NCP iterations coincide (Gamma = 0);
 * (f) documented defaults = code defaults, bad parameters rejected, determinism, an empty
 *     problem, a problem with no solution;
 * (g) the x-update's two forms (solvers/dshift.h: dense Cholesky of D + (rho + eta) I, saddle
 *     point on (A, J) with K dense or sparse) give the same iterates at every k, for every rule
 *     (LA and SA refactorise), and the auto form is the one of lower estimated cost.
 *
 * Random problems: a raw tutil_random_problem draw with m > nv has no solution about 5% of the
 * time; tutil_feasible_shift moves e so that v = 0 is strictly feasible, which guarantees that a
 * solution exists.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/common.h"
#include "solve/harness.h"
#include "core/la.h"
#include "metrics/metrics.h"
#include "solvers/registry.h"
#include "tcheck.h"
#include "testutil.h"

static const ncp_solver_desc *S_CCP, *S_FP, *S_LA, *S_SA, *S_NSN;

/* The independent checks (own cone projection and u, the NCP's or the CCP's natural map and
 * sign / complementarity conditions; no cone.h / metrics code) are tutil_ref_check
 * (testutil.h). */

/* Random problem #i of this file's family (testutil.h); spd = 1: D SPD, every draw feasible. */
static int t_random(ncp_problem *p, int i, int mixed, int spd, ncp_error *err)
{
    return tutil_random_family(p, 0xad3300u, 5000u, i, mixed, spd ? TUTIL_NV_SPD : TUTIL_NV_FREE,
                               NULL, err);
}

/* ---------- running a solver ---------- */

/* NCP variants: converged to 1e-10 on the natural map (the own rule's eps 1e-12 would stop them
 * near 1e-12), lambda within 1e-9 of the answer. */
static void t_expect_ncp(const char *what, const ncp_problem *p, const double *expect)
{
    const ncp_solver_desc *ss[3] = {S_FP, S_LA, S_SA};
    for (int si = 0; si < 3; si++)
        tutil_check_answer(what, ss[si], p, NULL, 1e-10, 20000, expect, 1e-9);
}

/* admm-ccp: stops on its own rule (the harness's metric is the NCP natural map, which cannot
 * judge a CCP answer, so tol = -1 is never reached), lambda within 1e-9 of the CCP answer. */
static void t_expect_ccp(const char *what, const ncp_problem *p, const double *expect)
{
    ncp_result res;
    int rc = tutil_solve(S_CCP, p, NULL, NULL, -1.0, 20000, &res);
    CHECK(rc == 0);
    if (rc) return;
    CHECK(res.iterations < 20000);
    double d = tutil_maxdiff(p->m, res.lambda, expect);
    CHECK(d <= 1e-9);
    if (d > 1e-9)
        fprintf(stderr, "  %s, admm-ccp: %s after %d, |lambda - expected| = %.3g\n", what,
                ncp_status_name(res.status), res.iterations, d);
    ncp_result_free(&res);
}

/* ---------- (a) analytic ---------- */

static void one_contact_case(const tutil_contact_case *k, ncp_problem *p, void *ctx)
{
    (void)ctx;
    t_expect_ncp(k->name, p, k->ncp);
    if (k->ccp_known) t_expect_ccp(k->name, p, k->ccp);
}

static void test_one_contact(void)
{
    /* D = diag(2, .5, .5), the cases of testutil.c (answers checked there independently) with
     * their NCP answers and, where v_f is in K* or the contact is closed, the CCP's (a sliding
     * contact with the CCP's non-zero normal velocity) */
    tutil_for_contact_cases(one_contact_case, NULL);
}

static void test_scalar_blocks(void)
{
    /* diagonal D, one of each scalar type plus a sliding contact and a rigid soft row
     * (testutil.c); NCP and CCP differ in the contact only */
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    double ncp[8], ccp[8];
    CHECK_OK(tutil_scalar_blocks(&p, ncp, ccp, &err), &err);
    tutil_check_solves(&p, ncp, 0, 1e-15);
    tutil_check_solves(&p, ccp, 1, 1e-15);
    t_expect_ncp("scalar blocks", &p, ncp);
    t_expect_ccp("scalar blocks", &p, ccp);
    ncp_problem_free(&p);
}

static void test_coupled_and_degenerate(void)
{
    /* D = [[2, 1], [1, 2]], v_f = (1, -1): lambda = (-1, 1) (CCP = NCP: no contact) */
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    double expect[2];
    CHECK_OK(tutil_coupled_bilateral(&p, expect, &err), &err);
    t_expect_ncp("coupled bilateral", &p, expect);
    t_expect_ccp("coupled bilateral", &p, expect);
    ncp_problem_free(&p);

    /* A bilateral row with J_r = 0 (D_rr = 0, v_f,r = 0: any lambda_r solves it) beside a
     * sticking contact: ADMM keeps lambda_r at its start (its x-update reads (rho + eta) x_r =
     * rho y_r + eta x_r + z_r with z_r = 0) and solves the contact. */
    double expect2[4];
    CHECK_OK(tutil_zero_diagonal(&p, expect2, &err), &err);
    t_expect_ncp("zero diagonal", &p, expect2);
    t_expect_ccp("zero diagonal", &p, expect2);
    ncp_problem_free(&p);
}

/* ---------- (b) random problems ---------- */

static int iters_total[3], iters_max[3], iters_ccp_total, iters_ccp_max;

static void test_random(int mixed, int count)
{
    const ncp_solver_desc *ss[3] = {S_FP, S_LA, S_SA};
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, i, mixed, 0, &err), &err);
        ncp_metrics_ws *ws = NULL;
        CHECK_OK(ncp_metrics_ws_create(&p, &ws, &err), &err);
        for (int si = 0; si < 3; si++) {
            ncp_result res;
            int rc = tutil_solve(ss[si], &p, NULL, NULL, 1e-8, 5000, &res);
            CHECK(rc == 0);
            if (rc) continue;
            tutil_check_ncp_answer(ss[si], &p, ws, &res, 1e-8);
            iters_total[si] += res.iterations;
            if (res.iterations > iters_max[si]) iters_max[si] = res.iterations;
            ncp_result_free(&res);
        }
        /* CCP: own stop (eq. 170, eps 1e-12), CCP natural map here */
        ncp_result res;
        CHECK_OK(tutil_solve(S_CCP, &p, NULL, NULL, -1.0, 20000, &res), &err);
        CHECK(res.status == NCP_STATUS_STALLED && res.iterations < 20000);
        tutil_ref chk = tutil_ref_check(&p, res.lambda, 1, NULL);
        if (res.status != NCP_STATUS_STALLED)
            fprintf(stderr, "  admm-ccp, random %d (mixed %d, m %d): %s after %d, ccp nat %.3g\n",
                    i, mixed, p.m, ncp_status_name(res.status), res.iterations, chk.nat);
        CHECK(chk.nat <= 1e-8);
        double scale = fmax(1.0, ncp_norminf(p.m, res.lambda) * ncp_norminf(p.m, res.u));
        CHECK(chk.kkt <= 1e-6 * scale);
        if (chk.nat > 1e-8)
            fprintf(stderr, "  admm-ccp, random %d (mixed %d): CCP natural map %.3g\n", i, mixed,
                    chk.nat);
        iters_ccp_total += res.iterations;
        if (res.iterations > iters_ccp_max) iters_ccp_max = res.iterations;
        ncp_result_free(&res);
        ncp_metrics_ws_free(ws);
        ncp_problem_free(&p);
    }
}

static void test_agree_spd(int mixed, int count)
{
    const ncp_solver_desc *ss[3] = {S_FP, S_LA, S_SA};
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, 300 + i, mixed, 1, &err), &err);
        ncp_result ref;
        CHECK_OK(tutil_solve(S_NSN, &p, NULL, NULL, 1e-12, 500, &ref), &err);
        CHECK(ref.converged);
        for (int si = 0; si < 3; si++) {
            ncp_result res;
            CHECK_OK(tutil_solve(ss[si], &p, NULL, NULL, 1e-10, 20000, &res), &err);
            CHECK(res.converged);
            if (!res.converged)
                fprintf(stderr, "  spd %d (mixed %d, m %d): %s %s after %d, nat %.3g\n", i, mixed,
                        p.m, ss[si]->name, ncp_status_name(res.status), res.iterations,
                        res.final.natural_map_abs);
            double d = tutil_maxdiff(p.m, res.lambda, ref.lambda);
            CHECK(d <= 1e-6);
            if (d > 1e-6)
                fprintf(stderr, "  spd %d (mixed %d): |lambda_%s - lambda_nsn| = %.3g\n", i,
                        mixed, ss[si]->name, d);
            ncp_result_free(&res);
        }
        /* CCP: unique solution for SPD D, reached from other penalties / relaxations */
        ncp_params ps;
        memset(&ps, 0, sizeof ps);
        tutil_param(&ps, "rho", 7.0);
        tutil_param(&ps, "relax", 1.6);
        tutil_param(&ps, "eps_p", 1e-13);
        tutil_param(&ps, "eps_d", 1e-13);
        tutil_param(&ps, "eps_cp", 1e-13);
        ncp_result a, b;
        CHECK_OK(tutil_solve(S_CCP, &p, NULL, NULL, -1.0, 50000, &a), &err);
        CHECK_OK(tutil_solve(S_CCP, &p, &ps, NULL, -1.0, 50000, &b), &err);
        CHECK(a.status == NCP_STATUS_STALLED && b.status == NCP_STATUS_STALLED);
        CHECK(tutil_ref_natural_map(&p, a.lambda, 1) <= 1e-8);
        CHECK(tutil_ref_natural_map(&p, b.lambda, 1) <= 1e-8);
        CHECK(tutil_maxdiff(p.m, a.lambda, b.lambda) <= 1e-6);
        ncp_result_free(&a);
        ncp_result_free(&b);
        ncp_result_free(&ref);
        ncp_problem_free(&p);
    }
}

/* ---------- (c) warm start, (d) budgets and the own stopping rule ---------- */

static void test_warm_start(int count)
{
    const ncp_solver_desc *ss[3] = {S_FP, S_LA, S_SA};
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, 100 + i, i % 2, 0, &err), &err);
        tutil_check_warm_starts(S_NSN, &p, ss, 3, 1e-10);
        /* CCP from its own solution: the first iterate already satisfies its stopping rule
         * at eps 1e-9 (the solution itself was computed to eps 1e-13) */
        ncp_params ps;
        memset(&ps, 0, sizeof ps);
        tutil_param(&ps, "eps_p", 1e-13);
        tutil_param(&ps, "eps_d", 1e-13);
        tutil_param(&ps, "eps_cp", 1e-13);
        ncp_result sol;
        CHECK_OK(tutil_solve(S_CCP, &p, &ps, NULL, -1.0, 50000, &sol), &err);
        CHECK(sol.status == NCP_STATUS_STALLED);
        if (sol.status != NCP_STATUS_STALLED)
            fprintf(stderr, "  warm %d: ccp %s after %d, ccp nat %.3g\n", i,
                    ncp_status_name(sol.status), sol.iterations,
                    tutil_ref_natural_map(&p, sol.lambda, 1));
        memset(&ps, 0, sizeof ps);
        tutil_param(&ps, "eps_p", 1e-9);
        tutil_param(&ps, "eps_d", 1e-9);
        tutil_param(&ps, "eps_cp", 1e-9);
        ncp_result res;
        CHECK_OK(tutil_solve(S_CCP, &p, &ps, sol.lambda, -1.0, 100, &res), &err);
        CHECK(res.status == NCP_STATUS_STALLED && res.iterations <= 1);
        CHECK(tutil_maxdiff(p.m, res.lambda, sol.lambda) <= 1e-9);
        ncp_result_free(&res);
        ncp_result_free(&sol);
        ncp_problem_free(&p);
    }
}

static void test_budget_and_own_stop(void)
{
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_random(&p, 7, 1, 0, &err), &err);
    const ncp_solver_desc *ss[4] = {S_CCP, S_FP, S_LA, S_SA};
    for (int si = 0; si < 4; si++) {
        tutil_check_budgets(ss[si], &p, NULL);
        /* own rule at eps 1e-5: stops (STALLED) well before the budget, and near a solution */
        ncp_params ps;
        memset(&ps, 0, sizeof ps);
        tutil_param(&ps, "eps_p", 1e-5);
        tutil_param(&ps, "eps_d", 1e-5);
        tutil_param(&ps, "eps_cp", 1e-5);
        ncp_result loose, tight;
        CHECK_OK(tutil_solve(ss[si], &p, &ps, NULL, -1.0, 20000, &loose), &err);
        CHECK_OK(tutil_solve(ss[si], &p, NULL, NULL, -1.0, 20000, &tight), &err);
        CHECK(loose.status == NCP_STATUS_STALLED && tight.status == NCP_STATUS_STALLED);
        CHECK(loose.iterations < tight.iterations && tight.iterations < 20000);
        int ccp = ss[si] == S_CCP;
        double nl = tutil_ref_natural_map(&p, loose.lambda, ccp),
               nt = tutil_ref_natural_map(&p, tight.lambda, ccp);
        CHECK(nl <= 1e-3 && nl > nt);
        CHECK(nt <= 1e-9);
        ncp_result_free(&loose);
        ncp_result_free(&tight);
    }
    ncp_problem_free(&p);
}

/* ---------- (e) structure of the four configurations ---------- */

static void test_structure(void)
{
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_random(&p, 21, 0, 0, &err), &err);
    int m = p.m, it = 40;

    /* LA with tau_inc = tau_dec = 1 never changes rho: the FP iteration, bit for bit */
    ncp_params la, fp;
    memset(&la, 0, sizeof la);
    memset(&fp, 0, sizeof fp);
    tutil_param(&la, "rho0", 3.7);
    tutil_param(&la, "tau_inc", 1.0);
    tutil_param(&la, "tau_dec", 1.0);
    tutil_param(&fp, "rho", 3.7);
    ncp_result a, b;
    CHECK_OK(tutil_solve(S_LA, &p, &la, NULL, 1e-300, it, &a), &err);
    CHECK_OK(tutil_solve(S_FP, &p, &fp, NULL, 1e-300, it, &b), &err);
    CHECK(memcmp(a.lambda, b.lambda, (size_t)m * sizeof(double)) == 0);
    ncp_result_free(&a);
    ncp_result_free(&b);
    /* with the default taus LA does adapt here (otherwise the test above proves nothing) */
    CHECK_OK(tutil_solve(S_LA, &p, NULL, NULL, 1e-300, it, &a), &err);
    CHECK_OK(tutil_solve(S_FP, &p, NULL, NULL, 1e-300, it, &b), &err);
    CHECK(tutil_maxdiff(m, a.lambda, b.lambda) > 1e-6);
    ncp_result_free(&a);
    ncp_result_free(&b);

    /* SA with alpha = 0 keeps rho0 = sqrt(L eta) (L / eta)^p0 (eq. 172a): FP with that rho,
     * L = lambda_max(D) from LAPACK (the solver estimates it by power iteration, to ~1e-6). */
    double *Q = malloc((size_t)m * m * sizeof(double)), *w = malloc((size_t)m * sizeof(double));
    CHECK(Q && w);
    if (Q && w) {
        memcpy(Q, p.D, (size_t)m * m * sizeof(double));
        CHECK_OK(ncp_sym_eig(m, Q, w, &err), &err);
        double L = w[m - 1];
        /* the soft rows add 1/c to the diagonal (their compliance, admm_proximal.c); this draw has
         * none, or the equivalence would need Deff */
        int nsoft = 0;
        for (int bi = 0; bi < p.nblocks; bi++) nsoft += p.blocks[bi].type == NCP_SOFT;
        CHECK(nsoft == 0);
        double eta = 1e-6, p0 = 0.2;
        double rho0 = sqrt(L * eta) * pow(L / eta, p0);
        ncp_params sa;
        memset(&sa, 0, sizeof sa);
        memset(&fp, 0, sizeof fp);
        tutil_param(&sa, "alpha", 0.0);
        tutil_param(&fp, "rho", rho0);
        CHECK_OK(tutil_solve(S_SA, &p, &sa, NULL, 1e-300, it, &a), &err);
        CHECK_OK(tutil_solve(S_FP, &p, &fp, NULL, 1e-300, it, &b), &err);
        double scale = fmax(1.0, ncp_norminf(m, b.lambda));
        CHECK(tutil_maxdiff(m, a.lambda, b.lambda) <= 1e-5 * scale);
        /* ... and a penalty 10% off gives a visibly different iterate */
        ncp_result c;
        memset(&fp, 0, sizeof fp);
        tutil_param(&fp, "rho", 1.1 * rho0);
        CHECK_OK(tutil_solve(S_FP, &p, &fp, NULL, 1e-300, it, &c), &err);
        CHECK(tutil_maxdiff(m, c.lambda, b.lambda) > 100.0 * tutil_maxdiff(m, a.lambda, b.lambda));
        ncp_result_free(&a);
        ncp_result_free(&b);
        ncp_result_free(&c);
    }
    free(Q);
    free(w);

    /* mu = 0 everywhere: Gamma = 0, so admm-ccp(rho) and admm-ncp-fp(rho, eta = 0) are the same
     * iteration, bit for bit */
    for (int bi = 0; bi < p.nblocks; bi++) p.blocks[bi].mu = 0.0;
    memset(&fp, 0, sizeof fp);
    tutil_param(&fp, "eta", 0.0);
    CHECK_OK(tutil_solve(S_CCP, &p, NULL, NULL, 1e-300, it, &a), &err);
    CHECK_OK(tutil_solve(S_FP, &p, &fp, NULL, 1e-300, it, &b), &err);
    CHECK(memcmp(a.lambda, b.lambda, (size_t)m * sizeof(double)) == 0);
    ncp_result_free(&a);
    ncp_result_free(&b);
    ncp_problem_free(&p);
}

/* ---------- (f) parameters, determinism, edge cases ---------- */

static void test_params(void)
{
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_random(&p, 11, 1, 0, &err), &err);
    const ncp_solver_desc *ss[4] = {S_CCP, S_FP, S_LA, S_SA};
    for (int si = 0; si < 4; si++) {
        const ncp_solver_desc *s = ss[si];
        CHECK(s->ccp == (s == S_CCP));
        CHECK(s->needs == (NCP_NEEDS_DUAL_OP | NCP_NEEDS_SYMMETRIC));
        tutil_check_param_defaults(s, &p, 1e-9, 300);
    }
    /* the paper's defaults (§VI-F) */
    CHECK(ncp_solver_param(S_FP, NULL, "rho") == 1.0);
    CHECK(ncp_solver_param(S_FP, NULL, "eta") == 1e-6);
    CHECK(ncp_solver_param(S_LA, NULL, "mu_thr") == 10.0);
    CHECK(ncp_solver_param(S_LA, NULL, "tau_inc") == 1.5);
    CHECK(ncp_solver_param(S_LA, NULL, "tau_dec") == 1.5);
    CHECK(ncp_solver_param(S_SA, NULL, "mu_thr") == 10.0);
    CHECK(ncp_solver_param(S_SA, NULL, "p0") == 0.2);
    CHECK(ncp_solver_param(S_SA, NULL, "alpha") == 0.05);
    CHECK(isnan(ncp_solver_param(S_CCP, NULL, "eta"))); /* the CCP has no proximal term */
    struct {
        const ncp_solver_desc *s;
        const char *name;
        double value;
    } bad[] = {
        {S_CCP, "rho", 0.0},       {S_CCP, "relax", 2.0},    {S_CCP, "relax", 0.0},
        {S_CCP, "eps_p", -1.0},    {S_FP, "rho", -1.0},      {S_FP, "eta", -1e-6},
        {S_FP, "eps_d", -1.0},     {S_LA, "rho0", 0.0},      {S_LA, "mu_thr", 0.5},
        {S_LA, "tau_inc", 0.9},    {S_LA, "tau_dec", 0.0},   {S_LA, "eps_cp", -1.0},
        {S_SA, "eta", 0.0},        {S_SA, "p0", 1.5},        {S_SA, "alpha", -0.1},
        {S_SA, "mu_thr", 0.0},     {S_FP, "rho", INFINITY},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        tutil_check_bad_param(bad[i].s, &p, bad[i].name, bad[i].value);
    /* non-default valid values still solve: over-relaxation and another eta */
    ncp_params ps;
    memset(&ps, 0, sizeof ps);
    tutil_param(&ps, "relax", 1.5);
    tutil_param(&ps, "eta", 1e-3);
    ncp_result res;
    CHECK_OK(tutil_solve(S_FP, &p, &ps, NULL, 1e-8, 20000, &res), &err);
    CHECK(res.converged);
    ncp_result_free(&res);
    ncp_problem_free(&p);
}

static void test_edge_cases(void)
{
    const ncp_solver_desc *ss[4] = {S_CCP, S_FP, S_LA, S_SA};
    ncp_error err;
    ncp_error_clear(&err);
    /* empty problem: converged at once */
    for (int si = 0; si < 4; si++) tutil_check_empty(ss[si]);
    /* no solution: a unilateral row with D = 0 and v_f = -1 (u = -1 < 0 whatever lambda).
     * The solvers must neither crash nor claim convergence; every iterate stays finite. */
    ncp_problem p;
    int types[1] = {NCP_UNILATERAL};
    CHECK_OK(tutil_dual_problem(&p, 1, types, &err), &err);
    p.vf[0] = -1.0;
    for (int si = 0; si < 4; si++) {
        ncp_result res;
        CHECK_OK(tutil_solve(ss[si], &p, NULL, NULL, 1e-8, 200, &res), &err);
        CHECK(!res.converged);
        CHECK(res.status == NCP_STATUS_MAX_ITER || res.status == NCP_STATUS_FAILED);
        CHECK(res.status == NCP_STATUS_FAILED || isfinite(res.lambda[0]));
        ncp_result_free(&res);
    }
    ncp_problem_free(&p);
}

/* ---------- (g) the x-update's forms ---------- */

static void test_forms_agree(void)
{
    /* Deterministic: max_iter = k returns iterate k exactly (tol 1e-300: no stop), so the forms'
     * iterates are compared at several k; the three shapes of the family make D SPD,
     * rank-deficient and of few dofs. */
    const int ks[] = {1, 2, 3, 7, 20};
    const ncp_solver_desc *ss[4] = {S_CCP, S_FP, S_LA, S_SA};
    double worst = 0.0;
    int compared = 0, woodbury = 0;
    for (int i = 0; i < 9; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, 400 + i, i % 2, 0, &err), &err);
        if (i % 3 != 0) { /* the SPD and few-dof shapes of the family */
            ncp_problem_free(&p);
            CHECK_OK(tutil_random_family(&p, 0xad3300u, 5000u, 400 + i, i % 2,
                                         i % 3 == 1 ? TUTIL_NV_SPD : TUTIL_NV_FEW, NULL, &err),
                     &err);
        }
        CHECK(p.has_primal && p.has_dual);
        for (int si = 0; si < 4; si++)
            for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
                ncp_params pf[4];
                ncp_result r[4];
                int ok[4] = {1, 1, 1, 1};
                for (int f = 0; f < 4; f++) { /* dense, saddle K dense, saddle K sparse, Woodbury */
                    memset(&pf[f], 0, sizeof pf[f]);
                    tutil_param(&pf[f], "form", f == 0 ? 1 : f == 3 ? 3 : 2);
                    if (f == 1 || f == 2) tutil_param(&pf[f], "k_factor", f);
                    if (f < 3) {
                        CHECK_OK(tutil_solve(ss[si], &p, &pf[f], NULL, 1e-300, ks[ki], &r[f]),
                                 &err);
                        continue;
                    }
                    /* Woodbury only on the operator's low-rank route (n_v <= m / 4) */
                    ncp_harness_opts ho;
                    ncp_harness_opts_default(&ho);
                    ho.budget.tol = 1e-300;
                    ho.budget.max_iter = ks[ki];
                    ho.stop_metric = ncp_metrics_index("natural_map_abs");
                    ok[3] = ncp_harness_solve(ss[si], &p, &pf[f], NULL, NULL, &ho, &r[f], &err) ==
                            NCP_OK;
                    CHECK(ok[3] == (4 * p.nv <= p.m));
                    if (!ok[3]) CHECK(strstr(err.msg, "form = 3") != NULL);
                    ncp_error_clear(&err);
                    woodbury += ok[3];
                }
                for (int f = 1; f < 4; f++) {
                    if (!ok[f]) continue;
                    /* an iterate can solve the problem exactly: then both stop there, within an
                     * iteration of each other (rounding) */
                    if (r[0].iterations != ks[ki] || r[f].iterations != ks[ki]) {
                        CHECK(abs(r[0].iterations - r[f].iterations) <= 1);
                        continue;
                    }
                    double d = tutil_reldiff((size_t)p.m, r[f].lambda, r[0].lambda, 1.0);
                    worst = fmax(worst, d);
                    compared++;
                    CHECK(d <= 1e-9);
                    if (d > 1e-9)
                        fprintf(stderr, "  forms differ: %s random %d (m %d nv %d) k %d form %d: "
                                "%.3g\n", ss[si]->name, 400 + i, p.m, p.nv, ks[ki], f, d);
                }
                for (int f = 0; f < 4; f++)
                    if (ok[f]) ncp_result_free(&r[f]);
            }
        /* auto: the note names the form of lowest estimated cost */
        ncp_result ra;
        CHECK_OK(tutil_solve(S_LA, &p, NULL, NULL, 1e-300, 5, &ra), &err);
        const char *fn = strstr(ra.note, "form ");
        char chosen[16] = "";
        double est = -1.0, other = -1.0;
        const char *fe = fn ? strstr(fn, ": est.") : NULL;
        CHECK(fn && fe && sscanf(fn, "form %15[a-z]", chosen) == 1 &&
              sscanf(fe, ": est. %lf flops/it, %*s form %lf", &est, &other) == 2);
        CHECK(est > 0.0 && est <= other);
        ncp_result_free(&ra);
        ncp_problem_free(&p);
    }
    CHECK(compared > 100 && woodbury > 10);
    printf("proximal ADMM, x-update forms against the dense one: %d iterates (%d Woodbury), "
           "largest relative difference %.2g\n", compared, woodbury, worst);
}

int main(void)
{
    S_CCP = ncp_solver_find("admm-ccp");
    S_FP = ncp_solver_find("admm-ncp-fp");
    S_LA = ncp_solver_find("admm-ncp-la");
    S_SA = ncp_solver_find("admm-ncp-sa");
    S_NSN = ncp_solver_find("nsn-nm");
    CHECK(S_CCP && S_FP && S_LA && S_SA && S_NSN);
    if (!S_CCP || !S_FP || !S_LA || !S_SA || !S_NSN) return tcheck_exit("ncpreport_admm");
    test_one_contact();
    test_scalar_blocks();
    test_coupled_and_degenerate();
    test_random(0, 40);
    test_random(1, 40);
    printf("random (80 problems, natural map 1e-8): iterations mean/max fp %.1f/%d, la %.1f/%d, "
           "sa %.1f/%d; ccp own stop %.1f/%d\n",
           iters_total[0] / 80.0, iters_max[0], iters_total[1] / 80.0, iters_max[1],
           iters_total[2] / 80.0, iters_max[2], iters_ccp_total / 80.0, iters_ccp_max);
    test_agree_spd(0, 10);
    test_agree_spd(1, 10);
    test_warm_start(10);
    test_budget_and_own_stop();
    test_structure();
    test_params();
    test_edge_cases();
    test_forms_agree();
    return tcheck_exit("ncpreport_admm");
}
