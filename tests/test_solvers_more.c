/* Tests of jacobi, apgd and nsn-fb (and nsn-nm on a captured hard problem), run through the harness
 * as the benchmark runs them.
 *
 * (a) analytic problems: the one-contact cases of testutil (open / stick / slide / frictionless /
 *     on the cone's edge, D = diag(2, .5, .5)) and its scalar blocks, for the NCP solvers
 *     (jacobi, nsn-fb, apgd with desaxce = 1) and, where testutil derives the CCP's answer, for
 *     apgd on the CCP; the CCP with D = a I for apgd (its solution is Pi_K(-v_f / a)) and
 *     scalar rows with diagonal D;
 * (b) seeded random problems: each solver's documented accuracy, checked with ncp_metrics_eval
 *     AND recomputed independently (tutil_ref_check: own cone projection, the NCP's or the CCP's
 *     sign and complementarity conditions);
 * (c) box-on-plane step 17 (problem 000007 of `ncpbench run scenes/box-on-plane.json`), the
 *     problem on which nsn-nm used to stall: nsn-fb and nsn-nm from a cold start must reach the
 *     solution computed independently with Siconos 4.4 (fc3d NSN-NM, NSN-FB and PROX agree to
 *     1e-12);
 * (d) a warm start from a solution stops within one iteration; nsn-fb converges locally fast
 *     (its Jacobian is right);
 * (e) max_iter budgets used exactly; time budgets stop at the first iteration past the budget
 *     (structural check on the trace times, no timing assertion);
 * (f) projected Jacobi needs its scaling: plain Jacobi diverges on a coupled system where the
 *     scaled one converges;
 * (g) parameters: documented defaults = code defaults, bad values rejected naming the
 *     parameter and the solver; determinism; a problem without rows.
 * Random problems are made strictly feasible (tutil_feasible_shift) so that a solution exists.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "solve/harness.h"
#include "core/la.h"
#include "metrics/metrics.h"
#include "solvers/registry.h"
#include "tcheck.h"
#include "testutil.h"

/* Random problem #i of this test's family: 1..8 contacts, with mixed = 1 also 0..2 of each other
 * block type; nv in 6..30 (rank-deficient D when m > nv), made strictly feasible. */
static int t_random(ncp_problem *p, int i, int mixed, ncp_error *err)
{
    return tutil_random_family(p, 0xabc00000u, 5000u, i, mixed, TUTIL_NV_FREE, NULL, err);
}

/* ---------- box-on-plane, step 17 ---------- */

#include "test_solvers_more_box7.inc"

static int t_box7(ncp_problem *p, ncp_error *err)
{
    int rc = tutil_dual_problem(p, 4, NULL, err); /* four contacts */
    if (rc) return rc;
    memcpy(p->D, box7_W, sizeof box7_W);
    memcpy(p->vf, box7_q, sizeof box7_q);
    for (int i = 0; i < 4; i++) p->blocks[i].mu = 0.5;
    return NCP_OK;
}

/* ---------- running a solver ---------- */

static const ncp_solver_desc *S_JAC, *S_APGD, *S_FB, *S_NM;

/* An NCP or CCP configuration of a registered solver. */
typedef struct t_cfg {
    const ncp_solver_desc *s;
    const char *label;
    int apgd_desaxce; /* -1: no parameter; 0/1: apgd's desaxce */
} t_cfg;

static void t_cfg_params(const t_cfg *c, ncp_params *ps)
{
    memset(ps, 0, sizeof *ps);
    if (c->apgd_desaxce >= 0) tutil_param(ps, "desaxce", c->apgd_desaxce);
}

/* tutil_solve with the configuration's parameters */
static int t_run(const t_cfg *c, const ncp_problem *p, const double *lambda0, double tol,
                 int max_iter, ncp_result *res)
{
    ncp_params ps;
    t_cfg_params(c, &ps);
    return tutil_solve(c->s, p, &ps, lambda0, tol, max_iter, res);
}

static const t_cfg *ncp_cfgs(int *n)
{
    static t_cfg cfgs[3];
    cfgs[0] = (t_cfg){S_JAC, "jacobi", -1};
    cfgs[1] = (t_cfg){S_FB, "nsn-fb", -1};
    cfgs[2] = (t_cfg){S_APGD, "apgd(desaxce=1)", 1};
    *n = 3;
    return cfgs;
}

/* ---------- (a) analytic ---------- */

/* every NCP configuration, from a cold start to natural_map_abs <= 1e-13, ends at expect */
static void expect_ncp(const ncp_problem *p, const double *expect, const char *what)
{
    int nc;
    const t_cfg *cfgs = ncp_cfgs(&nc);
    for (int c = 0; c < nc; c++) {
        ncp_params ps;
        t_cfg_params(&cfgs[c], &ps);
        tutil_check_answer(what, cfgs[c].s, p, &ps, 1e-13, 5000, expect, 1e-10);
    }
}

/* apgd on the CCP (the default) runs until its own stall test (tol < 0: the harness's NCP metric
 * never stops it) and ends at expect */
static void expect_ccp(const ncp_problem *p, const double *expect, const char *what, int max_iter)
{
    ncp_result res;
    int rc = tutil_solve(S_APGD, p, NULL, NULL, -1.0, max_iter, &res);
    CHECK(rc == 0);
    if (rc) return;
    double d = tutil_maxdiff(p->m, res.lambda, expect);
    CHECK(res.status == NCP_STATUS_STALLED);
    CHECK(d <= 1e-12);
    if (res.status != NCP_STATUS_STALLED || !(d <= 1e-12))
        fprintf(stderr, "  %s, apgd (CCP): %s after %d, |lambda - expected| = %.3g\n", what,
                ncp_status_name(res.status), res.iterations, d);
    ncp_result_free(&res);
}

static void one_contact_case(const tutil_contact_case *k, ncp_problem *p, void *ctx)
{
    (void)ctx;
    expect_ncp(p, k->ncp, k->name);
    if (k->ccp_known) expect_ccp(p, k->ccp, k->name, 2000);
}

static void test_scalar_blocks(void)
{
    double ncp[8], ccp[8];
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(tutil_scalar_blocks(&p, ncp, ccp, &err), &err);
    tutil_check_solves(&p, ncp, 0, 1e-15);
    tutil_check_solves(&p, ccp, 1, 1e-15);
    expect_ncp(&p, ncp, "scalar blocks");
    expect_ccp(&p, ccp, "scalar blocks", 2000);
    /* the compliant soft row made rigid (c = 0) is lambda = -k phi = -0.5 exactly */
    p.blocks[4].c = 0.0;
    ncp[6] = -0.5;
    tutil_check_solves(&p, ncp, 0, 1e-15);
    expect_ncp(&p, ncp, "soft c = 0");
    ncp_problem_free(&p);
}

/* apgd (CCP, the default): with D = a I the CCP's QP min a/2 |l|^2 + v_f^T l over K is solved by
 * l = Pi_K(-v_f / a). The cases include sliding ones, where the CCP differs from the NCP
 * (the contact lifts off: u_n = mu |u_t| > 0). */
static void test_ccp_apgd(void)
{
    const double a = 1.5;
    double vfs[][3] = {{-1.0, 0.6, 0.8},  {-1.0, 0.1, -0.05}, {0.3, 0.7, -0.2},
                       {0.0, 0.7, -0.2},  {-0.2, 3.0, 0.0},   {2.0, 0.1, 0.1}};
    double mus[] = {0.5, 0.5, 0.5, 1.0, 0.3, 0.0};
    for (size_t k = 0; k < sizeof mus / sizeof mus[0]; k++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        const double G[9] = {a, 0, 0, 0, a, 0, 0, 0, a};
        CHECK_OK(tutil_one_contact(&p, G, vfs[k], mus[k], &err), &err);
        double x[3] = {-vfs[k][0] / a, -vfs[k][1] / a, -vfs[k][2] / a}, expect[3];
        tutil_ref_project(mus[k], x, expect);
        tutil_check_solves(&p, expect, 1, 1e-15);
        expect_ccp(&p, expect, "D = a I", 2000);
        ncp_problem_free(&p);
    }
    /* scalar rows, diagonal D: bilateral -v_f/D, unilateral max(0, -v_f/D), soft
     * (-k phi - c v_f)/(1 + c D) (the compliant-row form of the law) */
    int t5[3] = {NCP_BILATERAL, NCP_UNILATERAL, NCP_SOFT};
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(tutil_dual_problem(&p, 3, t5, &err), &err);
    double diag[3] = {2.0, 4.0, 1.0}, vf[3] = {-1.0, 2.0, 0.2};
    for (int i = 0; i < 3; i++) p.D[i + 3 * i] = diag[i];
    memcpy(p.vf, vf, sizeof vf);
    p.blocks[2].k = 2.0;
    p.blocks[2].phi = 0.25;
    p.blocks[2].c = 0.5;
    double expect[3] = {0.5, 0.0, -0.4};
    tutil_check_solves(&p, expect, 1, 1e-15);
    tutil_check_answer("scalar rows", S_APGD, &p, NULL, 1e-13, 2000, expect, 1e-12);
    ncp_problem_free(&p);
}

/* ---------- (b) random problems ---------- */

static void test_random_ncp(int mixed, int count)
{
    struct {
        t_cfg c;
        double tol;
        int max_iter;
    } runs[3] = {{{S_FB, "nsn-fb", -1}, 1e-10, 500},
                 {{S_JAC, "jacobi", -1}, 1e-8, 50000},
                 {{S_APGD, "apgd(desaxce=1)", 1}, 1e-8, 50000}};
    int total[3] = {0, 0, 0}, worst[3] = {0, 0, 0}, conv[3] = {0, 0, 0};
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, i, mixed, &err), &err);
        ncp_metrics_ws *ws = NULL;
        CHECK_OK(ncp_metrics_ws_create(&p, &ws, &err), &err);
        for (int s = 0; s < 3; s++) {
            ncp_result res;
            int rc = t_run(&runs[s].c, &p, NULL, runs[s].tol, runs[s].max_iter, &res);
            CHECK(rc == 0);
            if (rc) continue;
            conv[s] += res.converged;
            /* converged; natural map by ncp_metrics_eval and recomputed independently; sign and
             * complementarity */
            tutil_check_ncp_answer(runs[s].c.s, &p, ws, &res, runs[s].tol);
            total[s] += res.iterations;
            if (res.iterations > worst[s]) worst[s] = res.iterations;
            ncp_result_free(&res);
        }
        ncp_metrics_ws_free(ws);
        ncp_problem_free(&p);
    }
    for (int s = 0; s < 3; s++)
        printf("random NCP (%d, mixed %d): %-16s converged %d, mean %.1f max %d iterations\n",
               count, mixed, runs[s].c.label, conv[s], (double)total[s] / count, worst[s]);
}

/* The CCP's sign and complementarity violation at res (tutil_ref_check with ccp = 1), relative to
 * max(1, |lambda|_inf |u|_inf). */
static double ccp_violation(const ncp_problem *p, const ncp_result *res)
{
    double scale = fmax(1.0, ncp_norminf(p->m, res->lambda) * ncp_norminf(p->m, res->u));
    return tutil_ref_check(p, res->lambda, 1, NULL).kkt / scale;
}

/* apgd on the CCP: no reference solver, so the CCP's own optimality conditions are checked. */
static void test_random_ccp(int mixed, int count)
{
    int total = 0, worst = 0;
    double worst_res = 0.0;
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, i, mixed, &err), &err);
        ncp_result res;
        int rc = tutil_solve(S_APGD, &p, NULL, NULL, -1.0, 50000, &res);
        CHECK(rc == 0);
        if (!rc) {
            double r = ccp_violation(&p, &res);
            CHECK(r <= 1e-8);
            if (!(r <= 1e-8))
                fprintf(stderr, "  random %d (mixed %d): apgd CCP residual %.3g (%s, %d)\n", i,
                        mixed, r, ncp_status_name(res.status), res.iterations);
            worst_res = fmax(worst_res, r);
            total += res.iterations;
            if (res.iterations > worst) worst = res.iterations;
            ncp_result_free(&res);
        }
        ncp_problem_free(&p);
    }
    printf("random CCP (%d, mixed %d): apgd until its own stall test: mean %.1f max %d "
           "iterations, worst relative KKT residual %.2e\n",
           count, mixed, (double)total / count, worst, worst_res);
}

/* ---------- (c) box-on-plane step 17 ---------- */

static void test_box7(void)
{
    /* Siconos 4.4 fc3d NSN-NM (7 iterations, error 1.5e-15) from a cold start; NSN-FB and PROX
     * agree to 1e-12. The second corner lifts off (lambda = 0, u_n = 3.4e-4); the other three
     * slide. */
    static const double siconos[12] = {
        0.13464877852631527,  -0.067227630957941389, 0.0036081886646949597, 0.0, 0.0, 0.0,
        0.0066197142858546729, -0.0030649131091166522, 0.0012495847070735423,
        0.12889989759020362,  -0.036934076366172942, -0.052817325781120035};
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_box7(&p, &err), &err);
    tutil_check_solves(&p, siconos, 0, 1e-14); /* natural map and sign / complementarity */
    const ncp_solver_desc *ss[2] = {S_FB, S_NM};
    for (int s = 0; s < 2; s++) {
        ncp_result res;
        int rc = tutil_solve(ss[s], &p, NULL, NULL, 1e-12, 500, &res);
        CHECK(rc == 0);
        if (rc) continue;
        CHECK(res.converged);
        double d = tutil_maxdiff(12, res.lambda, siconos);
        CHECK(d <= 1e-9);
        printf("box-on-plane 000007: %s %s in %d iterations, |lambda - siconos|_inf = %.2e\n",
               ss[s]->name, ncp_status_name(res.status), res.iterations, d);
        ncp_result_free(&res);
    }
    ncp_problem_free(&p);
}

/* ---------- (d) warm start and local convergence ---------- */

static void test_warm_start(int count)
{
    int nc;
    const t_cfg *cfgs = ncp_cfgs(&nc);
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, 100 + i, i % 2, &err), &err);
        ncp_result sol;
        CHECK_OK(tutil_solve(S_NM, &p, NULL, NULL, 1e-13, 500, &sol), &err);
        CHECK(sol.converged);
        for (int c = 0; c < nc; c++) {
            ncp_params ps;
            t_cfg_params(&cfgs[c], &ps);
            tutil_check_warm_start(cfgs[c].s, &p, &ps, sol.lambda, 1e-10);
        }
        /* apgd on the CCP: from the CCP solution its first iterate is that solution */
        ncp_result cs, res;
        CHECK_OK(tutil_solve(S_APGD, &p, NULL, NULL, -1.0, 50000, &cs), &err);
        CHECK_OK(tutil_solve(S_APGD, &p, NULL, cs.lambda, -1.0, 1, &res), &err);
        double d = tutil_maxdiff(p.m, res.lambda, cs.lambda);
        CHECK(res.iterations == 1 && d <= 1e-10 * fmax(1.0, ncp_norminf(p.m, cs.lambda)));
        ncp_result_free(&cs);
        ncp_result_free(&res);
        ncp_result_free(&sol);
        ncp_problem_free(&p);
    }
}

/* From lambda* + 1e-5 noise, Newton with a correct generalised Jacobian converges quadratically
 * (1e-5 -> 1e-10 -> 1e-20); a wrong Jacobian is linear and needs many more iterations. */
static void test_fb_local(int count)
{
    int worst = 0;
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, 200 + i, i % 2, &err), &err);
        int it = tutil_local_iterations(S_NM, S_FB, &p, 777u + (uint64_t)i, 1e-5, 1e-12, 100);
        if (it > worst) worst = it;
        ncp_problem_free(&p);
    }
    printf("nsn-fb from 1e-5 off the solution: <= %d iterations to 1e-12\n", worst);
    CHECK(worst <= 4);
}

/* ---------- (e) budgets ---------- */

typedef struct t_times {
    int n;
    double t[64];
} t_times;

static int t_trace(void *ctx, int iter, double elapsed_ms, const ncp_metrics *mt)
{
    (void)mt;
    t_times *tt = ctx;
    if (iter >= 1 && iter <= 64) tt->t[iter - 1] = elapsed_ms;
    if (iter > tt->n) tt->n = iter;
    return 0;
}

static void test_budgets(void)
{
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(tutil_random_problem(&p, 4242u, 60, 20, 2, 2, 2, &err), &err);
    tutil_feasible_shift(&p);
    t_cfg cfgs[4] = {{S_JAC, "jacobi", -1}, {S_FB, "nsn-fb", -1},
                     {S_APGD, "apgd(desaxce=1)", 1}, {S_APGD, "apgd", 0}};
    for (int c = 0; c < 4; c++) {
        ncp_params ps;
        t_cfg_params(&cfgs[c], &ps);
        tutil_check_budgets(cfgs[c].s, &p, &ps); /* max_iter 1, 2, 3, 5 used exactly */
        /* time budget: the run stops at the first iteration whose solver time reaches it, so
         * every earlier iteration ended before the budget (overshoot <= one iteration) */
        const double budget_ms = 0.05;
        t_times tt;
        memset(&tt, 0, sizeof tt);
        ncp_harness_opts o;
        ncp_harness_opts_default(&o);
        o.budget.tol = 1e-300;
        o.budget.max_iter = 1000000;
        o.budget.time_ms = budget_ms;
        o.stop_metric = ncp_metrics_index("natural_map_abs");
        o.trace = t_trace;
        o.trace_ctx = &tt;
        ncp_result res;
        int rc = tutil_solve_opts(cfgs[c].s, &p, &ps, NULL, NULL, &o, &res);
        CHECK(rc == 0);
        if (rc) continue;
        CHECK(res.status == NCP_STATUS_TIMEOUT);
        CHECK(res.iterations == tt.n && res.iterations < 1000000);
        if (res.iterations >= 1 && res.iterations <= 64) {
            CHECK(tt.t[res.iterations - 1] >= budget_ms);
            for (int k = 0; k + 1 < res.iterations; k++) CHECK(tt.t[k] < budget_ms);
        }
        ncp_result_free(&res);
    }
    ncp_problem_free(&p);
}

/* ---------- (f) Jacobi's scaling ---------- */

static void test_jacobi_scaling(void)
{
    /* Three bilateral rows all coupled: D = 0.5 I + 1.5 * ones, eigenvalues 5 (ones) and 0.5 x2.
     * Plain Jacobi (steps 1/D_rr = 1/2) iterates I - D/2, eigenvalue 1 - 5/2 = -1.5: diverges.
     * Scaled: theta = 1/lambda_max(D/2) = 0.4, eigenvalues 1 - 0.4 * 2.5 = 0 and
     * 1 - 0.4 * 0.25 = 0.9: converges to D^-1 (-v_f). */
    int types[3] = {NCP_BILATERAL, NCP_BILATERAL, NCP_BILATERAL};
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(tutil_dual_problem(&p, 3, types, &err), &err);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) p.D[i + 3 * j] = 1.5 + (i == j ? 0.5 : 0.0);
    p.vf[0] = -7.0; /* = -D (2, 1, 1) */
    p.vf[1] = -6.5;
    p.vf[2] = -6.5;
    double expect[3] = {2.0, 1.0, 1.0};
    tutil_check_solves(&p, expect, 0, 1e-15); /* D expect + v_f = 0 */
    tutil_check_answer("coupled bilateral", S_JAC, &p, NULL, 1e-12, 1000, expect, 1e-11);
    ncp_params ps;
    memset(&ps, 0, sizeof ps);
    tutil_param(&ps, "auto_scale", 0.0);
    ncp_result res;
    CHECK_OK(tutil_solve(S_JAC, &p, &ps, NULL, 1e-12, 60, &res), &err);
    CHECK(!res.converged);
    CHECK(res.final.natural_map_abs > 1e6); /* 1.5^60 growth */
    ncp_result_free(&res);
    ncp_problem_free(&p);
}

/* ---------- (g) parameters ---------- */

static void test_params(void)
{
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_random(&p, 11, 1, &err), &err);
    const ncp_solver_desc *ss[3] = {S_JAC, S_APGD, S_FB};
    for (int si = 0; si < 3; si++) {
        const ncp_solver_desc *s = ss[si];
        CHECK(s->params != NULL && s->source && s->source[0] &&
              ((s->needs & ~NCP_NEEDS_SYMMETRIC) == NCP_NEEDS_DUAL ||
               (s->needs & ~NCP_NEEDS_SYMMETRIC) == NCP_NEEDS_DUAL_OP));
        /* defaults given = not given, and deterministic */
        tutil_check_param_defaults(s, &p, 1e-9, 300);
        tutil_check_empty(s);
    }
    CHECK(S_JAC->ccp == 0 && S_FB->ccp == 0 && S_APGD->ccp == 1);
    struct {
        const ncp_solver_desc *s;
        const char *name;
        double value;
    } bad[] = {
        {S_JAC, "omega", 2.0},        {S_JAC, "omega", 0.0},      {S_JAC, "auto_scale", 0.5},
        {S_JAC, "stall_tol", -1.0},   {S_APGD, "desaxce", 2.0},   {S_APGD, "restart", 3.0},
        {S_APGD, "shrink", 0.0},      {S_APGD, "shrink", 1.5},    {S_FB, "rho_scale", 0.0},
        {S_FB, "armijo", 0.5},        {S_FB, "rho_cycle", 2.0},   {S_FB, "nonmonotone", 0.0},
        {S_NM, "rho_cycle", -1.0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        tutil_check_bad_param(bad[i].s, &p, bad[i].name, bad[i].value);
    /* every restart scheme and a non-default shrink still reach the CCP solution */
    for (int rs = 0; rs <= 2; rs++) {
        ncp_params ps;
        memset(&ps, 0, sizeof ps);
        tutil_param(&ps, "restart", rs);
        tutil_param(&ps, "shrink", rs == 1 ? 0.5 : 0.9);
        ncp_result res;
        int rc = tutil_solve(S_APGD, &p, &ps, NULL, -1.0, 50000, &res);
        CHECK(rc == 0);
        if (rc) continue;
        CHECK(ccp_violation(&p, &res) <= 1e-8);
        printf("apgd restart %d: %d iterations (%s)\n", rs, res.iterations,
               ncp_status_name(res.status));
        ncp_result_free(&res);
    }
    ncp_problem_free(&p);
}

int main(void)
{
    S_JAC = ncp_solver_find("jacobi");
    S_APGD = ncp_solver_find("apgd");
    S_FB = ncp_solver_find("nsn-fb");
    S_NM = ncp_solver_find("nsn-nm");
    CHECK(S_JAC && S_APGD && S_FB && S_NM);
    if (!S_JAC || !S_APGD || !S_FB || !S_NM) return tcheck_exit("solvers_more");
    tutil_for_contact_cases(one_contact_case, NULL);
    test_scalar_blocks();
    test_ccp_apgd();
    test_random_ncp(0, 40);
    test_random_ncp(1, 40);
    test_random_ccp(0, 20);
    test_random_ccp(1, 20);
    test_box7();
    test_warm_start(10);
    test_fb_local(20);
    test_budgets();
    test_jacobi_scaling();
    test_params();
    return tcheck_exit("solvers_more");
}
