/* Solver tests: the registry, pgs and nsn-nm, run through the harness as the benchmark runs them.
 *
 * (a) analytic problems derived by hand (diagonal D: open / stick / slide contact, frictionless,
 *     the scalar block types, a coupled bilateral pair, a row with zero diagonal);
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
 * drift to |lambda| ~ 1e12+. feasible_shift() below therefore moves e (and v_f with it) so that
 * v = 0 is strictly feasible: bilateral e = 0, unilateral e >= 0.1, contact
 * e_n >= mu |e_t| + 0.1. The problems keep their open / stick / slide mix (driven by
 * J A^{-1} b). With nv >= m (the SPD agreement test) J has full row rank, which is enough.
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

/* Euclidean projection onto {|x_t| <= mu x_n}, written from the KKT conditions of
 * min |y - x|^2 s.t. |y_t| <= mu y_n: y = x inside, 0 in the polar cone, else the point on the
 * boundary ray through x_t's direction nearest to x. */
static void t_project(double mu, const double x[3], double y[3])
{
    double s = sqrt(x[1] * x[1] + x[2] * x[2]);
    if (s <= mu * x[0]) {
        memcpy(y, x, 3 * sizeof(double));
    } else if (mu * s <= -x[0]) {
        y[0] = y[1] = y[2] = 0.0;
    } else {
        /* boundary ray r(a) = a (1, mu t), |(1, mu t)|^2 = 1 + mu^2, t = x_t / s */
        double a = (x[0] + mu * s) / (1.0 + mu * mu);
        y[0] = a;
        y[1] = a * mu * x[1] / s;
        y[2] = a * mu * x[2] / s;
    }
}

typedef struct tcheck_ncp {
    double nat;   /* ||F||_2 of the natural map (metrics.h conventions), rho = 1 */
    double kkt;   /* max violation of the NCP's sign and complementarity conditions */
} tcheck_ncp;

/* Recomputes u = D lambda + v_f with plain loops and checks the NCP two ways. */
static tcheck_ncp t_check(const ncp_problem *p, const double *lam)
{
    int m = p->m;
    double *u = calloc((size_t)(m ? m : 1), sizeof(double));
    tcheck_ncp r = {0.0, 0.0};
    if (!u) {
        r.nat = r.kkt = INFINITY;
        return r;
    }
    for (int i = 0; i < m; i++) {
        double s = p->vf[i];
        for (int j = 0; j < m; j++) s += p->D[i + (size_t)j * m] * lam[j];
        u[i] = s;
    }
    double nat2 = 0.0, kkt = 0.0;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int q = b->row;
        double l = lam[q], v = u[q];
        switch (b->type) {
        case NCP_BILATERAL:
            nat2 += v * v;
            kkt = fmax(kkt, fabs(v));
            break;
        case NCP_UNILATERAL: {
            double f = fmin(l, v);
            nat2 += f * f;
            kkt = fmax(kkt, fmax(fmax(-l, -v), fabs(l * v)));
            break;
        }
        case NCP_SOFT: {
            double f = l + b->k * b->phi + b->c * v;
            nat2 += f * f;
            kkt = fmax(kkt, fabs(f));
            break;
        }
        case NCP_CONTACT: {
            const double *lk = lam + q, *uk = u + q;
            double mu = b->mu;
            double st = sqrt(uk[1] * uk[1] + uk[2] * uk[2]);
            double w[3] = {uk[0] + mu * st, uk[1], uk[2]}; /* u + Gamma(u) */
            double x[3] = {lk[0] - w[0], lk[1] - w[1], lk[2] - w[2]}, y[3];
            t_project(mu, x, y);
            for (int i = 0; i < 3; i++) nat2 += (lk[i] - y[i]) * (lk[i] - y[i]);
            double lt = sqrt(lk[1] * lk[1] + lk[2] * lk[2]);
            kkt = fmax(kkt, lt - mu * lk[0]);               /* lambda in K */
            kkt = fmax(kkt, -lk[0]);
            kkt = fmax(kkt, mu * st - w[0]);                /* u + Gamma in K* */
            kkt = fmax(kkt, fabs(lk[0] * w[0] + lk[1] * w[1] + lk[2] * w[2])); /* complementarity */
            break;
        }
        default:
            kkt = INFINITY;
        }
    }
    free(u);
    r.nat = sqrt(nat2);
    r.kkt = kkt;
    return r;
}

/* ---------- problem builders ---------- */

/* Dual-only problem with the given block types, D = 0, v_f = 0 (caller fills them). */
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

/* See the file header: make v = 0 strictly feasible, keeping v_f = J A^{-1} b + e consistent. */
static void feasible_shift(ncp_problem *p)
{
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int r = b->row;
        double old = p->e[r];
        if (b->type == NCP_BILATERAL)
            p->e[r] = 0.0;
        else if (b->type == NCP_UNILATERAL)
            p->e[r] = fmax(p->e[r], 0.1);
        else if (b->type == NCP_CONTACT)
            p->e[r] = fmax(p->e[r], b->mu * hypot(p->e[r + 1], p->e[r + 2]) + 0.1);
        else
            continue;
        p->vf[r] += p->e[r] - old;
    }
}

/* Random problem #i of a family: nv in 6..30, 1..8 contacts, optional 0..2 of each other type.
 * spd = 1 draws nv >= m so that D = J A^{-1} J^T is SPD. */
static int t_random(ncp_problem *p, int i, int mixed, int spd, ncp_error *err)
{
    trng r = {0x5eed0000u + (uint64_t)i * 7919u + (uint64_t)mixed * 104729u + (uint64_t)spd};
    int nc = 1 + (int)(trng_uniform(&r) * 8);
    int nb = 0, nu = 0, ns = 0;
    if (mixed) {
        nb = (int)(trng_uniform(&r) * 3);
        nu = (int)(trng_uniform(&r) * 3);
        ns = (int)(trng_uniform(&r) * 3);
    }
    int m = 3 * nc + nb + nu + ns;
    int nv = spd ? m + (int)(trng_uniform(&r) * 4) : 6 + (int)(trng_uniform(&r) * 25);
    if (nv < 6) nv = 6;
    int rc = tutil_random_problem(p, 1000u + (uint64_t)i, nv, nc, nb, nu, ns, err);
    if (rc) return rc;
    if (!spd) feasible_shift(p); /* nv >= m: J has full row rank, always strictly feasible */
    return NCP_OK;
}

/* ---------- running a solver ---------- */

static const ncp_solver_desc *S_PGS, *S_NSN;

static int t_solve(const ncp_solver_desc *s, const ncp_problem *p, const ncp_params *ps,
                   const double *lambda0, double tol, int max_iter, ncp_result *res)
{
    ncp_harness_opts o;
    ncp_harness_opts_default(&o);
    o.budget.tol = tol;
    o.budget.max_iter = max_iter;
    o.stop_metric = ncp_metrics_index("natural_map_abs");
    ncp_error err;
    ncp_error_clear(&err);
    int rc = ncp_harness_solve(s, p, ps, lambda0, NULL, &o, res, &err);
    if (rc) fprintf(stderr, "%s on %s: %s\n", s->name, p->name, err.msg);
    return rc;
}

/* Solves with both solvers and checks lambda against the expected answer to 1e-10. */
static void t_expect(const char *what, const ncp_problem *p, const double *expect)
{
    const ncp_solver_desc *ss[2] = {S_PGS, S_NSN};
    for (int si = 0; si < 2; si++) {
        ncp_result res;
        int rc = t_solve(ss[si], p, NULL, NULL, 1e-13, 5000, &res);
        CHECK(rc == 0);
        if (rc) continue;
        CHECK(res.converged);
        CHECK(res.status == NCP_STATUS_CONVERGED);
        CHECK(res.iterations >= 1 && res.iterations <= 5000);
        for (int i = 0; i < p->m; i++) CHECK_NEAR(res.lambda[i], expect[i], 1e-10);
        if (!res.converged) fprintf(stderr, "  (%s, %s: status %s)\n", what, ss[si]->name,
                                    ncp_status_name(res.status));
        ncp_result_free(&res);
    }
}

/* ---------- (a) analytic ---------- */

static void test_one_contact(void)
{
    /* D = diag(a, b, b), mu = 0.5. Stick: lambda = -D^{-1} v_f if |lambda_t| <= mu lambda_n.
     * Slide (with Gamma, u_n = 0): lambda_n = -q_n/a, lambda_t = -mu lambda_n q_t/|q_t|, valid
     * when |q_t| > b mu lambda_n (then u_t = q_t (1 - b mu lambda_n/|q_t|) is parallel to q_t). */
    const double a = 2.0, b = 0.5, mu = 0.5;
    struct {
        const char *name;
        double mu, vf[3], lam[3];
    } cases[] = {
        {"open", mu, {0.3, 0.7, -0.2}, {0.0, 0.0, 0.0}},
        {"open-grazing", mu, {0.0, 0.7, -0.2}, {0.0, 0.0, 0.0}},
        /* lambda_n = 0.5, lambda_t = (-0.2, 0.1), |lambda_t| = 0.2236 <= 0.25 */
        {"stick", mu, {-1.0, 0.1, -0.05}, {0.5, -0.2, 0.1}},
        /* q_t = (0.6, 0.8), |q_t| = 1 > 0.125: lambda_t = -0.25 (0.6, 0.8) */
        {"slide", mu, {-1.0, 0.6, 0.8}, {0.5, -0.15, -0.2}},
        {"frictionless", 0.0, {-1.0, 0.6, 0.8}, {0.5, 0.0, 0.0}},
        /* mu = 1: |lambda_t| = 0.5 * 1 exactly on the cone when q_t = (0.25, 0): stick limit */
        {"stick-limit", 1.0, {-1.0, -0.25, 0.0}, {0.5, 0.5, 0.0}},
    };
    int types[1] = {NCP_CONTACT};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_dual_problem(&p, 1, types, &err), &err);
        p.blocks[0].mu = cases[c].mu;
        p.D[0] = a;
        p.D[4] = b;
        p.D[8] = b;
        memcpy(p.vf, cases[c].vf, sizeof cases[c].vf);
        /* the expected answer is a solution (independent check), else the case is mis-derived */
        tcheck_ncp chk = t_check(&p, cases[c].lam);
        CHECK(chk.nat <= 1e-15 && chk.kkt <= 1e-15);
        t_expect(cases[c].name, &p, cases[c].lam);
        ncp_problem_free(&p);
    }
}

static void test_scalar_blocks(void)
{
    /* Diagonal D, one of each scalar type plus a sliding contact:
     *   bilateral  D = 2, v_f = -1         -> lambda = 0.5           (u = 0)
     *   unilateral D = 4, v_f = 2          -> lambda = 0             (u = 2 > 0)
     *   unilateral D = 4, v_f = -2         -> lambda = 0.5           (u = 0)
     *   contact    diag(2, .5, .5), v_f = (-1, .6, .8), mu .5 -> (0.5, -0.15, -0.2) (slide)
     *   soft       D = 1, k = 2, phi = 0.25, c = 0.5, v_f = 0.2:
     *              lambda = -k phi - c (lambda + v_f) -> lambda = (-0.5 - 0.1)/1.5 = -0.4 */
    int types[5] = {NCP_BILATERAL, NCP_UNILATERAL, NCP_UNILATERAL, NCP_CONTACT, NCP_SOFT};
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_dual_problem(&p, 5, types, &err), &err);
    int m = p.m;
    CHECK(m == 7);
    double diag[7] = {2.0, 4.0, 4.0, 2.0, 0.5, 0.5, 1.0};
    double vf[7] = {-1.0, 2.0, -2.0, -1.0, 0.6, 0.8, 0.2};
    for (int i = 0; i < m; i++) p.D[i + (size_t)i * m] = diag[i];
    memcpy(p.vf, vf, sizeof vf);
    p.blocks[3].mu = 0.5;
    p.blocks[4].k = 2.0;
    p.blocks[4].phi = 0.25;
    p.blocks[4].c = 0.5;
    double expect[7] = {0.5, 0.0, 0.5, 0.5, -0.15, -0.2, -0.4};
    tcheck_ncp chk = t_check(&p, expect);
    CHECK(chk.nat <= 1e-15 && chk.kkt <= 1e-15);
    t_expect("scalar blocks", &p, expect);
    ncp_problem_free(&p);
}

static void test_coupled_bilateral(void)
{
    /* D = [[2, 1], [1, 2]], v_f = (1, -1): D lambda = -v_f -> lambda = (-1, 1). Gauss–Seidel
     * needs many sweeps (contraction 1/4 per sweep), Newton one step. */
    int types[2] = {NCP_BILATERAL, NCP_BILATERAL};
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_dual_problem(&p, 2, types, &err), &err);
    p.D[0] = 2.0;
    p.D[1] = 1.0;
    p.D[2] = 1.0;
    p.D[3] = 2.0;
    p.vf[0] = 1.0;
    p.vf[1] = -1.0;
    double expect[2] = {-1.0, 1.0};
    t_expect("coupled bilateral", &p, expect);
    ncp_result res;
    CHECK_OK(t_solve(S_NSN, &p, NULL, NULL, 1e-13, 100, &res), &err);
    CHECK(res.iterations == 1); /* F is linear here: one Newton step solves it */
    ncp_result_free(&res);
    ncp_problem_free(&p);
}

static void test_zero_diagonal_row(void)
{
    /* A bilateral row with J_r = 0 (D_rr = 0, v_f,r = 0: any lambda_r is a solution) next to a
     * sticking contact: the solvers leave lambda_r at its start (0) and solve the contact. */
    int types[2] = {NCP_BILATERAL, NCP_CONTACT};
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_dual_problem(&p, 2, types, &err), &err);
    int m = p.m;
    double diag[4] = {0.0, 2.0, 0.5, 0.5};
    for (int i = 0; i < m; i++) p.D[i + (size_t)i * m] = diag[i];
    double vf[4] = {0.0, -1.0, 0.1, -0.05};
    memcpy(p.vf, vf, sizeof vf);
    p.blocks[1].mu = 0.5;
    double expect[4] = {0.0, 0.5, -0.2, 0.1};
    t_expect("zero diagonal", &p, expect);
    ncp_problem_free(&p);
}

static void test_empty_problem(void)
{
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_dual_problem(&p, 0, NULL, &err), &err);
    const ncp_solver_desc *ss[2] = {S_PGS, S_NSN};
    for (int si = 0; si < 2; si++) {
        ncp_result res;
        CHECK_OK(t_solve(ss[si], &p, NULL, NULL, 1e-10, 10, &res), &err);
        CHECK(res.converged && res.iterations <= 1);
        ncp_result_free(&res);
    }
    ncp_problem_free(&p);
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
            int rc = t_solve(runs[si].s, &p, NULL, NULL, runs[si].tol, runs[si].max_iter, &res);
            CHECK(rc == 0);
            if (rc) continue;
            CHECK(res.converged);
            if (!res.converged)
                fprintf(stderr, "  %s, random %d (mixed %d, m %d, nv %d): %s after %d, nat %.3g\n",
                        runs[si].s->name, i, mixed, p.m, p.nv, ncp_status_name(res.status),
                        res.iterations, res.final.natural_map_abs);
            ncp_metrics mt;
            CHECK_OK(ncp_metrics_eval(ws, res.lambda, &mt, &err), &err);
            CHECK(mt.natural_map_abs <= runs[si].tol);
            tcheck_ncp chk = t_check(&p, res.lambda);
            /* the same quantity computed here (own projection, own u) */
            CHECK(chk.nat <= runs[si].tol * (1.0 + 1e-6) + 1e-15);
            CHECK_NEAR(chk.nat, mt.natural_map_abs, 1e-6 * mt.natural_map_abs + 1e-14);
            /* sign and complementarity conditions, scaled by the solution's size */
            double scale = fmax(1.0, ncp_norminf(p.m, res.lambda) * ncp_norminf(p.m, res.u));
            CHECK(chk.kkt <= 100.0 * runs[si].tol * scale);
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
        CHECK_OK(t_solve(S_NSN, &p, NULL, NULL, 1e-12, 500, &a), &err);
        CHECK_OK(t_solve(S_PGS, &p, NULL, NULL, 1e-10, 50000, &b), &err);
        CHECK(a.converged && b.converged);
        double d = 0.0;
        for (int k = 0; k < p.m; k++) d = fmax(d, fabs(a.lambda[k] - b.lambda[k]));
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
        ncp_result sol;
        CHECK_OK(t_solve(S_NSN, &p, NULL, NULL, 1e-13, 500, &sol), &err);
        CHECK(sol.converged);
        const ncp_solver_desc *ss[2] = {S_PGS, S_NSN};
        for (int si = 0; si < 2; si++) {
            ncp_result res;
            CHECK_OK(t_solve(ss[si], &p, NULL, sol.lambda, 1e-10, 100, &res), &err);
            CHECK(res.converged);
            CHECK(res.iterations <= 1);
            ncp_result_free(&res);
        }
        ncp_result_free(&sol);
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
        CHECK_OK(t_solve(S_NSN, &p, NULL, NULL, 1e-13, 500, &sol), &err);
        CHECK(sol.converged);
        trng r = {4242u + (uint64_t)i};
        for (int k = 0; k < p.m; k++) sol.lambda[k] += 1e-5 * trng_normal(&r);
        CHECK_OK(t_solve(S_NSN, &p, NULL, sol.lambda, 1e-12, 100, &res), &err);
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
    const ncp_solver_desc *ss[2] = {S_PGS, S_NSN};
    int budgets[4] = {1, 2, 3, 5};
    for (int si = 0; si < 2; si++)
        for (int bi = 0; bi < 4; bi++) {
            ncp_result res;
            /* tol 1e-300: not reachable in a handful of iterations from a cold start */
            CHECK_OK(t_solve(ss[si], &p, NULL, NULL, 1e-300, budgets[bi], &res), &err);
            /* neither converges nor stalls this early here: the budget is used exactly */
            CHECK(res.iterations == budgets[bi]);
            CHECK(res.status == NCP_STATUS_MAX_ITER);
            ncp_result_free(&res);
        }
    ncp_problem_free(&p);
}

static void test_stall(void)
{
    /* A sticking contact with D = 2 I: both solvers reach the exact solution (0.5, -0.05,
     * 0.025) in floating point; with an unreachable tolerance (< 0) they must stop on their
     * own (STALLED), long before max_iter. */
    int types[1] = {NCP_CONTACT};
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_dual_problem(&p, 1, types, &err), &err);
    p.blocks[0].mu = 0.5;
    p.D[0] = p.D[4] = p.D[8] = 2.0;
    p.vf[0] = -1.0;
    p.vf[1] = 0.1;
    p.vf[2] = -0.05;
    const ncp_solver_desc *ss[2] = {S_PGS, S_NSN};
    for (int si = 0; si < 2; si++) {
        ncp_result res;
        CHECK_OK(t_solve(ss[si], &p, NULL, NULL, -1.0, 1000, &res), &err);
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
    const ncp_solver_desc *ss[2] = {S_PGS, S_NSN};
    for (int si = 0; si < 2; si++) {
        const ncp_solver_desc *s = ss[si];
        ncp_params ps;
        memset(&ps, 0, sizeof ps);
        for (int k = 0; s->params[k].name; k++)
            CHECK_OK(ncp_params_set(&ps, s->params[k].name, s->params[k].def, &err), &err);
        ncp_result a, b, c;
        CHECK_OK(t_solve(s, &p, NULL, NULL, 1e-9, 300, &a), &err);
        CHECK_OK(t_solve(s, &p, &ps, NULL, 1e-9, 300, &b), &err);
        CHECK_OK(t_solve(s, &p, NULL, NULL, 1e-9, 300, &c), &err); /* determinism */
        CHECK(a.iterations == b.iterations && a.iterations == c.iterations);
        CHECK(memcmp(a.lambda, b.lambda, (size_t)p.m * sizeof(double)) == 0);
        CHECK(memcmp(a.lambda, c.lambda, (size_t)p.m * sizeof(double)) == 0);
        ncp_result_free(&a);
        ncp_result_free(&b);
        ncp_result_free(&c);
    }
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
        CHECK(strstr(e2.msg, bad[i].name) != NULL); /* the message names the parameter */
        if (rc == 0) ncp_result_free(&res);
    }
    /* non-default but valid values still solve */
    ncp_params ps;
    memset(&ps, 0, sizeof ps);
    CHECK_OK(ncp_params_set(&ps, "omega", 1.3, &err), &err);
    CHECK_OK(ncp_params_set(&ps, "local_iter", 5, &err), &err);
    ncp_result res;
    CHECK_OK(t_solve(S_PGS, &p, &ps, NULL, 1e-8, 20000, &res), &err);
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
