/* Tests of jacobi, apgd and nsn-fb (and nsn-nm on a captured hard problem), run through the harness
 * as the benchmark runs them.
 *
 * (a) analytic problems: one contact with diagonal D (open / stick / slide / frictionless / on the
 *     cone's edge) and the scalar block types, for the NCP solvers (jacobi, nsn-fb, apgd with
 *     desaxce = 1); the CCP with D = a I for apgd (its solution is Pi_K(-v_f / a)) and scalar
 *     rows with diagonal D;
 * (b) seeded random problems: each solver's documented accuracy, checked with ncp_metrics_eval
 *     AND recomputed here (own cone projection, the NCP's or the CCP's sign and complementarity
 *     conditions);
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
 *     parameter; determinism.
 * Random problems are made strictly feasible (tutil_feasible_shift) so that a solution exists.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "la.h"
#include "metrics.h"
#include "registry.h"
#include "tcheck.h"
#include "testutil.h"

/* ---------- independent checks (no cone.h / metrics code) ---------- */

/* Euclidean projection onto {|x_t| <= mu x_n} from the KKT conditions (see test_solvers.c). */
static void t_project(double mu, const double x[3], double y[3])
{
    double s = sqrt(x[1] * x[1] + x[2] * x[2]);
    if (s <= mu * x[0]) {
        memcpy(y, x, 3 * sizeof(double));
    } else if (mu * s <= -x[0]) {
        y[0] = y[1] = y[2] = 0.0;
    } else {
        double a = (x[0] + mu * s) / (1.0 + mu * mu);
        y[0] = a;
        y[1] = a * mu * x[1] / s;
        y[2] = a * mu * x[2] / s;
    }
}

/* Residual of the NCP (desaxce = 1) or the CCP (desaxce = 0) at lam: max violation of the sign
 * and complementarity conditions, with u recomputed by plain loops. CCP: K ∋ lambda ⊥ u ∈ K*;
 * soft rows: lambda + k phi + c u = 0 in both. */
static double t_residual(const ncp_problem *p, const double *lam, int desaxce)
{
    int m = p->m;
    double kkt = 0.0;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int q = b->row, n = b->type == NCP_CONTACT ? 3 : 1;
        double u[3];
        for (int i = 0; i < n; i++) {
            double s = p->vf[q + i];
            for (int j = 0; j < m; j++) s += p->D[q + i + (size_t)j * m] * lam[j];
            u[i] = s;
        }
        const double *l = lam + q;
        switch (b->type) {
        case NCP_BILATERAL:
            kkt = fmax(kkt, fabs(u[0]));
            break;
        case NCP_UNILATERAL:
            kkt = fmax(kkt, fmax(fmax(-l[0], -u[0]), fabs(l[0] * u[0])));
            break;
        case NCP_SOFT:
            kkt = fmax(kkt, fabs(l[0] + b->k * b->phi + b->c * u[0]));
            break;
        case NCP_CONTACT: {
            double st = sqrt(u[1] * u[1] + u[2] * u[2]);
            double w[3] = {u[0] + (desaxce ? b->mu * st : 0.0), u[1], u[2]};
            double lt = sqrt(l[1] * l[1] + l[2] * l[2]);
            kkt = fmax(kkt, lt - b->mu * l[0]);
            kkt = fmax(kkt, -l[0]);
            kkt = fmax(kkt, b->mu * st - w[0]);
            kkt = fmax(kkt, fabs(l[0] * w[0] + l[1] * w[1] + l[2] * w[2]));
            break;
        }
        default:
            kkt = INFINITY;
        }
    }
    return kkt;
}

/* ||F||_2 of the NCP natural map with rho = 1 (metrics.h conventions), by plain loops. */
static double t_natmap(const ncp_problem *p, const double *lam)
{
    int m = p->m;
    double nat2 = 0.0;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int q = b->row, n = b->type == NCP_CONTACT ? 3 : 1;
        double u[3];
        for (int i = 0; i < n; i++) {
            double s = p->vf[q + i];
            for (int j = 0; j < m; j++) s += p->D[q + i + (size_t)j * m] * lam[j];
            u[i] = s;
        }
        const double *l = lam + q;
        double f[3] = {0, 0, 0};
        if (b->type == NCP_BILATERAL) f[0] = u[0];
        else if (b->type == NCP_UNILATERAL) f[0] = fmin(l[0], u[0]);
        else if (b->type == NCP_SOFT) f[0] = l[0] + b->k * b->phi + b->c * u[0];
        else {
            double st = sqrt(u[1] * u[1] + u[2] * u[2]);
            double x[3] = {l[0] - u[0] - b->mu * st, l[1] - u[1], l[2] - u[2]}, y[3];
            t_project(b->mu, x, y);
            for (int i = 0; i < 3; i++) f[i] = l[i] - y[i];
        }
        for (int i = 0; i < n; i++) nat2 += f[i] * f[i];
    }
    return sqrt(nat2);
}

/* ---------- problem builders ---------- */

static int t_dual_problem(ncp_problem *p, int nblocks, const int *types, ncp_error *err)
{
    ncp_problem_init(p);
    int rc = ncp_problem_alloc_blocks(p, nblocks, err);
    if (rc) return rc;
    for (int i = 0; i < nblocks; i++) p->blocks[i].type = types[i];
    ncp_problem_layout(p);
    p->D = ncp_calloc(err, (size_t)p->m * (size_t)p->m, sizeof(double));
    p->vf = ncp_calloc(err, (size_t)p->m, sizeof(double));
    p->name = ncp_strdup(err, "analytic");
    p->scene = ncp_strdup(err, "test");
    p->driver = ncp_strdup(err, "");
    if (!p->D || !p->vf || !p->name || !p->scene || !p->driver) return NCP_ERR_NOMEM;
    p->has_dual = 1;
    return NCP_OK;
}

/* Random problem #i: 1..8 contacts, with mixed = 1 also 0..2 of each other block type; nv in
 * 6..30 (rank-deficient D when m > nv), made strictly feasible. */
static int t_random(ncp_problem *p, int i, int mixed, ncp_error *err)
{
    trng r = {0xabc00000u + (uint64_t)i * 7919u + (uint64_t)mixed * 104729u};
    int nc = 1 + (int)(trng_uniform(&r) * 8);
    int nb = 0, nu = 0, ns = 0;
    if (mixed) {
        nb = (int)(trng_uniform(&r) * 3);
        nu = (int)(trng_uniform(&r) * 3);
        ns = (int)(trng_uniform(&r) * 3);
    }
    int nv = 6 + (int)(trng_uniform(&r) * 25);
    int rc = tutil_random_problem(p, 5000u + (uint64_t)i, nv, nc, nb, nu, ns, err);
    if (rc) return rc;
    tutil_feasible_shift(p);
    return NCP_OK;
}

/* ---------- box-on-plane, step 17 ---------- */

#include "test_solvers_more_box7.inc"

static int t_box7(ncp_problem *p, ncp_error *err)
{
    int types[4] = {NCP_CONTACT, NCP_CONTACT, NCP_CONTACT, NCP_CONTACT};
    int rc = t_dual_problem(p, 4, types, err);
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
    if (c->apgd_desaxce >= 0) {
        ncp_error e;
        ncp_error_clear(&e);
        ncp_params_set(ps, "desaxce", c->apgd_desaxce, &e);
    }
}

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

static int t_run(const t_cfg *c, const ncp_problem *p, const double *lambda0, double tol,
                 int max_iter, double time_ms, t_times *tt, ncp_result *res)
{
    ncp_harness_opts o;
    ncp_harness_opts_default(&o);
    o.budget.tol = tol;
    o.budget.max_iter = max_iter;
    o.budget.time_ms = time_ms;
    o.stop_metric = ncp_metrics_index("natural_map_abs");
    if (tt) {
        memset(tt, 0, sizeof *tt);
        o.trace = t_trace;
        o.trace_ctx = tt;
    }
    ncp_params ps;
    t_cfg_params(c, &ps);
    ncp_error err;
    ncp_error_clear(&err);
    int rc = ncp_harness_solve(c->s, p, &ps, lambda0, NULL, &o, res, &err);
    if (rc) fprintf(stderr, "%s on %s: %s\n", c->label, p->name, err.msg);
    return rc;
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

static void expect_lambda(const t_cfg *c, const ncp_problem *p, const double *expect,
                          const char *what, int max_iter)
{
    ncp_result res;
    int rc = t_run(c, p, NULL, 1e-13, max_iter, 0.0, NULL, &res);
    CHECK(rc == 0);
    if (rc) return;
    CHECK(res.converged);
    for (int i = 0; i < p->m; i++) CHECK_NEAR(res.lambda[i], expect[i], 1e-10);
    if (!res.converged)
        fprintf(stderr, "  (%s, %s: %s after %d iterations)\n", what, c->label,
                ncp_status_name(res.status), res.iterations);
    ncp_result_free(&res);
}

static void test_one_contact_ncp(void)
{
    /* D = diag(2, .5, .5), mu = 0.5 (derivations in test_solvers.c; re-checked below) */
    struct {
        const char *name;
        double mu, vf[3], lam[3];
    } cases[] = {
        {"open", 0.5, {0.3, 0.7, -0.2}, {0.0, 0.0, 0.0}},
        {"open-grazing", 0.5, {0.0, 0.7, -0.2}, {0.0, 0.0, 0.0}},
        {"stick", 0.5, {-1.0, 0.1, -0.05}, {0.5, -0.2, 0.1}},
        {"slide", 0.5, {-1.0, 0.6, 0.8}, {0.5, -0.15, -0.2}},
        {"frictionless", 0.0, {-1.0, 0.6, 0.8}, {0.5, 0.0, 0.0}},
        {"stick-limit", 1.0, {-1.0, -0.25, 0.0}, {0.5, 0.5, 0.0}},
    };
    int types[1] = {NCP_CONTACT};
    int nc;
    const t_cfg *cfgs = ncp_cfgs(&nc);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_dual_problem(&p, 1, types, &err), &err);
        p.blocks[0].mu = cases[k].mu;
        p.D[0] = 2.0;
        p.D[4] = p.D[8] = 0.5;
        memcpy(p.vf, cases[k].vf, sizeof cases[k].vf);
        CHECK(t_residual(&p, cases[k].lam, 1) <= 1e-15 && t_natmap(&p, cases[k].lam) <= 1e-15);
        for (int c = 0; c < nc; c++) expect_lambda(&cfgs[c], &p, cases[k].lam, cases[k].name, 5000);
        ncp_problem_free(&p);
    }
}

static void test_scalar_blocks_ncp(void)
{
    /* see test_solvers.c test_scalar_blocks for the derivation */
    int types[5] = {NCP_BILATERAL, NCP_UNILATERAL, NCP_UNILATERAL, NCP_CONTACT, NCP_SOFT};
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_dual_problem(&p, 5, types, &err), &err);
    int m = p.m;
    double diag[7] = {2.0, 4.0, 4.0, 2.0, 0.5, 0.5, 1.0};
    double vf[7] = {-1.0, 2.0, -2.0, -1.0, 0.6, 0.8, 0.2};
    for (int i = 0; i < m; i++) p.D[i + (size_t)i * m] = diag[i];
    memcpy(p.vf, vf, sizeof vf);
    p.blocks[3].mu = 0.5;
    p.blocks[4].k = 2.0;
    p.blocks[4].phi = 0.25;
    p.blocks[4].c = 0.5;
    double expect[7] = {0.5, 0.0, 0.5, 0.5, -0.15, -0.2, -0.4};
    CHECK(t_residual(&p, expect, 1) <= 1e-15);
    int nc;
    const t_cfg *cfgs = ncp_cfgs(&nc);
    for (int c = 0; c < nc; c++) expect_lambda(&cfgs[c], &p, expect, "scalar blocks", 5000);
    /* a soft row with c = 0 is lambda = -k phi exactly */
    p.blocks[4].c = 0.0;
    expect[6] = -0.5;
    CHECK(t_residual(&p, expect, 1) <= 1e-15);
    for (int c = 0; c < nc; c++) expect_lambda(&cfgs[c], &p, expect, "soft c = 0", 5000);
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
    int types[1] = {NCP_CONTACT};
    t_cfg ccp = {S_APGD, "apgd", 0};
    for (size_t k = 0; k < sizeof mus / sizeof mus[0]; k++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_dual_problem(&p, 1, types, &err), &err);
        p.blocks[0].mu = mus[k];
        p.D[0] = p.D[4] = p.D[8] = a;
        memcpy(p.vf, vfs[k], sizeof vfs[k]);
        double x[3] = {-vfs[k][0] / a, -vfs[k][1] / a, -vfs[k][2] / a}, expect[3];
        t_project(mus[k], x, expect);
        CHECK(t_residual(&p, expect, 0) <= 1e-15);
        ncp_result res;
        /* tol < 0: the harness's NCP metric never stops it; apgd stops on its own (STALLED) */
        CHECK_OK(t_run(&ccp, &p, NULL, -1.0, 2000, 0.0, NULL, &res), &err);
        CHECK(res.status == NCP_STATUS_STALLED);
        for (int i = 0; i < 3; i++) CHECK_NEAR(res.lambda[i], expect[i], 1e-12);
        ncp_result_free(&res);
        ncp_problem_free(&p);
    }
    /* scalar rows, diagonal D: bilateral -v_f/D, unilateral max(0, -v_f/D), soft
     * (-k phi - c v_f)/(1 + c D) (the compliant-row form of the law) */
    int t5[3] = {NCP_BILATERAL, NCP_UNILATERAL, NCP_SOFT};
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_dual_problem(&p, 3, t5, &err), &err);
    double diag[3] = {2.0, 4.0, 1.0}, vf[3] = {-1.0, 2.0, 0.2};
    for (int i = 0; i < 3; i++) p.D[i + 3 * i] = diag[i];
    memcpy(p.vf, vf, sizeof vf);
    p.blocks[2].k = 2.0;
    p.blocks[2].phi = 0.25;
    p.blocks[2].c = 0.5;
    double expect[3] = {0.5, 0.0, -0.4};
    ncp_result res;
    CHECK_OK(t_run(&ccp, &p, NULL, 1e-13, 2000, 0.0, NULL, &res), &err);
    CHECK(res.converged);
    for (int i = 0; i < 3; i++) CHECK_NEAR(res.lambda[i], expect[i], 1e-12);
    ncp_result_free(&res);
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
            CHECK_OK(t_run(&runs[s].c, &p, NULL, runs[s].tol, runs[s].max_iter, 0.0, NULL, &res),
                     &err);
            conv[s] += res.converged;
            CHECK(res.converged);
            if (!res.converged) {
                fprintf(stderr, "  random %d (mixed %d): %s %s after %d, |F| = %.3g\n", i, mixed,
                        runs[s].c.label, ncp_status_name(res.status), res.iterations,
                        res.final.natural_map_abs);
            }
            ncp_metrics mt;
            CHECK_OK(ncp_metrics_eval(ws, res.lambda, &mt, &err), &err);
            CHECK(mt.natural_map_abs <= runs[s].tol);
            double nat = t_natmap(&p, res.lambda);
            CHECK_REL(nat, mt.natural_map_abs, 1e-6); /* independent recomputation agrees */
            double scale = fmax(1.0, ncp_norminf(p.m, res.lambda) * ncp_norminf(p.m, res.u));
            CHECK(t_residual(&p, res.lambda, 1) <= 100.0 * runs[s].tol * scale);
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

/* apgd on the CCP: no reference solver, so the CCP's own optimality conditions are checked. */
static void test_random_ccp(int mixed, int count)
{
    t_cfg ccp = {S_APGD, "apgd", 0};
    int total = 0, worst = 0;
    double worst_res = 0.0;
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, i, mixed, &err), &err);
        ncp_result res;
        CHECK_OK(t_run(&ccp, &p, NULL, -1.0, 50000, 0.0, NULL, &res), &err);
        double scale = fmax(1.0, ncp_norminf(p.m, res.lambda) * ncp_norminf(p.m, res.u));
        double r = t_residual(&p, res.lambda, 0) / scale;
        CHECK(r <= 1e-8);
        if (r > 1e-8)
            fprintf(stderr, "  random %d (mixed %d): apgd CCP residual %.3g (%s, %d)\n", i, mixed,
                    r, ncp_status_name(res.status), res.iterations);
        worst_res = fmax(worst_res, r);
        total += res.iterations;
        if (res.iterations > worst) worst = res.iterations;
        ncp_result_free(&res);
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
    CHECK(t_natmap(&p, siconos) <= 1e-14);
    t_cfg runs[2] = {{S_FB, "nsn-fb", -1}, {S_NM, "nsn-nm", -1}};
    for (int s = 0; s < 2; s++) {
        ncp_result res;
        CHECK_OK(t_run(&runs[s], &p, NULL, 1e-12, 500, 0.0, NULL, &res), &err);
        CHECK(res.converged);
        double d = 0.0;
        for (int i = 0; i < 12; i++) d = fmax(d, fabs(res.lambda[i] - siconos[i]));
        CHECK(d <= 1e-9);
        printf("box-on-plane 000007: %s %s in %d iterations, |lambda - siconos|_inf = %.2e\n",
               runs[s].label, ncp_status_name(res.status), res.iterations, d);
        ncp_result_free(&res);
    }
    ncp_problem_free(&p);
}

/* ---------- (d) warm start and local convergence ---------- */

static void test_warm_start(int count)
{
    t_cfg nm = {S_NM, "nsn-nm", -1}, ccp = {S_APGD, "apgd", 0};
    int nc;
    const t_cfg *cfgs = ncp_cfgs(&nc);
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, 100 + i, i % 2, &err), &err);
        ncp_result sol;
        CHECK_OK(t_run(&nm, &p, NULL, 1e-13, 500, 0.0, NULL, &sol), &err);
        CHECK(sol.converged);
        for (int c = 0; c < nc; c++) {
            ncp_result res;
            CHECK_OK(t_run(&cfgs[c], &p, sol.lambda, 1e-10, 100, 0.0, NULL, &res), &err);
            CHECK(res.converged && res.iterations <= 1);
            ncp_result_free(&res);
        }
        /* apgd on the CCP: from the CCP solution its first iterate is that solution */
        ncp_result cs, res;
        CHECK_OK(t_run(&ccp, &p, NULL, -1.0, 50000, 0.0, NULL, &cs), &err);
        CHECK_OK(t_run(&ccp, &p, cs.lambda, -1.0, 1, 0.0, NULL, &res), &err);
        double d = 0.0;
        for (int k = 0; k < p.m; k++) d = fmax(d, fabs(res.lambda[k] - cs.lambda[k]));
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
    t_cfg nm = {S_NM, "nsn-nm", -1}, fb = {S_FB, "nsn-fb", -1};
    int worst = 0;
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, 200 + i, i % 2, &err), &err);
        ncp_result sol, res;
        CHECK_OK(t_run(&nm, &p, NULL, 1e-13, 500, 0.0, NULL, &sol), &err);
        CHECK(sol.converged);
        trng r = {777u + (uint64_t)i};
        for (int k = 0; k < p.m; k++) sol.lambda[k] += 1e-5 * trng_normal(&r);
        CHECK_OK(t_run(&fb, &p, sol.lambda, 1e-12, 100, 0.0, NULL, &res), &err);
        CHECK(res.converged);
        if (res.iterations > worst) worst = res.iterations;
        ncp_result_free(&sol);
        ncp_result_free(&res);
        ncp_problem_free(&p);
    }
    printf("nsn-fb from 1e-5 off the solution: <= %d iterations to 1e-12\n", worst);
    CHECK(worst <= 4);
}

/* ---------- (e) budgets ---------- */

static void test_budgets(void)
{
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(tutil_random_problem(&p, 4242u, 60, 20, 2, 2, 2, &err), &err);
    tutil_feasible_shift(&p);
    t_cfg cfgs[4] = {{S_JAC, "jacobi", -1}, {S_FB, "nsn-fb", -1},
                     {S_APGD, "apgd(desaxce=1)", 1}, {S_APGD, "apgd", 0}};
    int budgets[4] = {1, 2, 3, 5};
    for (int c = 0; c < 4; c++) {
        for (int b = 0; b < 4; b++) {
            ncp_result res;
            CHECK_OK(t_run(&cfgs[c], &p, NULL, 1e-300, budgets[b], 0.0, NULL, &res), &err);
            CHECK(res.iterations == budgets[b] && res.status == NCP_STATUS_MAX_ITER);
            ncp_result_free(&res);
        }
        /* time budget: the run stops at the first iteration whose solver time reaches it, so
         * every earlier iteration ended before the budget (overshoot <= one iteration) */
        const double budget_ms = 0.05;
        t_times tt;
        ncp_result res;
        CHECK_OK(t_run(&cfgs[c], &p, NULL, 1e-300, 1000000, budget_ms, &tt, &res), &err);
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
    CHECK_OK(t_dual_problem(&p, 3, types, &err), &err);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) p.D[i + 3 * j] = 1.5 + (i == j ? 0.5 : 0.0);
    p.vf[0] = -7.0; /* = -D (2, 1, 1) */
    p.vf[1] = -6.5;
    p.vf[2] = -6.5;
    double expect[3] = {2.0, 1.0, 1.0};
    for (int i = 0; i < 3; i++) {
        double s = p.vf[i];
        for (int j = 0; j < 3; j++) s += p.D[i + 3 * j] * expect[j];
        CHECK_NEAR(s, 0.0, 1e-15);
    }
    t_cfg jac = {S_JAC, "jacobi", -1};
    ncp_result res;
    CHECK_OK(t_run(&jac, &p, NULL, 1e-12, 1000, 0.0, NULL, &res), &err);
    CHECK(res.converged);
    for (int i = 0; i < 3; i++) CHECK_NEAR(res.lambda[i], expect[i], 1e-11);
    ncp_result_free(&res);
    ncp_params ps;
    memset(&ps, 0, sizeof ps);
    CHECK_OK(ncp_params_set(&ps, "auto_scale", 0.0, &err), &err);
    ncp_harness_opts o;
    ncp_harness_opts_default(&o);
    o.budget.tol = 1e-12;
    o.budget.max_iter = 60;
    o.stop_metric = ncp_metrics_index("natural_map_abs");
    CHECK_OK(ncp_harness_solve(S_JAC, &p, &ps, NULL, NULL, &o, &res, &err), &err);
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
        CHECK(s->params != NULL && s->source && s->source[0] && s->needs == NCP_NEEDS_DUAL);
        ncp_params ps;
        memset(&ps, 0, sizeof ps);
        for (int k = 0; s->params[k].name; k++)
            CHECK_OK(ncp_params_set(&ps, s->params[k].name, s->params[k].def, &err), &err);
        t_cfg c = {s, s->name, -1};
        ncp_result a, c2, b;
        CHECK_OK(t_run(&c, &p, NULL, 1e-9, 300, 0.0, NULL, &a), &err);
        CHECK_OK(t_run(&c, &p, NULL, 1e-9, 300, 0.0, NULL, &c2), &err); /* determinism */
        ncp_harness_opts o;
        ncp_harness_opts_default(&o);
        o.budget.tol = 1e-9;
        o.budget.max_iter = 300;
        o.stop_metric = ncp_metrics_index("natural_map_abs");
        CHECK_OK(ncp_harness_solve(s, &p, &ps, NULL, NULL, &o, &b, &err), &err);
        CHECK(a.iterations == b.iterations && a.iterations == c2.iterations);
        CHECK(memcmp(a.lambda, b.lambda, (size_t)p.m * sizeof(double)) == 0);
        CHECK(memcmp(a.lambda, c2.lambda, (size_t)p.m * sizeof(double)) == 0);
        ncp_result_free(&a);
        ncp_result_free(&b);
        ncp_result_free(&c2);
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
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ncp_params ps;
        memset(&ps, 0, sizeof ps);
        CHECK_OK(ncp_params_set(&ps, bad[i].name, bad[i].value, &err), &err);
        ncp_harness_opts o;
        ncp_harness_opts_default(&o);
        ncp_result res;
        ncp_error e2;
        ncp_error_clear(&e2);
        int rc = ncp_harness_solve(bad[i].s, &p, &ps, NULL, NULL, &o, &res, &e2);
        CHECK(rc == NCP_ERR_INPUT);
        CHECK(strstr(e2.msg, bad[i].name) != NULL && strstr(e2.msg, bad[i].s->name) != NULL);
        if (rc == 0) ncp_result_free(&res);
    }
    /* every restart scheme and a non-default shrink still reach the CCP solution */
    for (int rs = 0; rs <= 2; rs++) {
        ncp_params ps;
        memset(&ps, 0, sizeof ps);
        CHECK_OK(ncp_params_set(&ps, "restart", rs, &err), &err);
        CHECK_OK(ncp_params_set(&ps, "shrink", rs == 1 ? 0.5 : 0.9, &err), &err);
        ncp_harness_opts o;
        ncp_harness_opts_default(&o);
        o.budget.tol = -1.0;
        o.budget.max_iter = 50000;
        ncp_result res;
        CHECK_OK(ncp_harness_solve(S_APGD, &p, &ps, NULL, NULL, &o, &res, &err), &err);
        double scale = fmax(1.0, ncp_norminf(p.m, res.lambda) * ncp_norminf(p.m, res.u));
        CHECK(t_residual(&p, res.lambda, 0) <= 1e-8 * scale);
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
    test_one_contact_ncp();
    test_scalar_blocks_ncp();
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
