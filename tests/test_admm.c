/* Tests of Tasora et al. 2021's `admm` and `fadmm` (solvers/admm.c, solvers/fadmm.c), run through the
 * harness as the benchmark runs them.
 *
 * Both solve the CCP (Anitescu's relaxation): K* ∋ u ⊥ lambda ∈ K with u = D lambda + v_f (no De
 * Saxcé term). The harness's metrics measure the NCP, so every accuracy check here is made on
 * the CCP with code written in this file (own projection, own u), never with cone.h/metrics:
 *   (a) hand-derived CCP solutions: one contact (open / stick / slide with lift-off / grazing
 *       slide the NCP would leave open / frictionless / stick limit), and every scalar block
 *       type (bilateral, unilateral, soft with damping, soft without damping);
 *   (b) Tasora et al. 2021's TEST 1 stack (20 point masses, the 10th 1000x heavier) with its analytic
 *       solutions 1.A (all contacts active) and 1.B (the heavy one pulled up: the contact below
 *       it opens); pgs on the same problems for the mass-ratio claim;
 *   (c) seeded random problems (contact-only and mixed blocks): CCP natural map <= tol ||v_f||,
 *       CCP sign and complementarity conditions, admm and fadmm give the same u (unique for the
 *       CCP); iteration counts of admm vs fadmm (reported);
 *   (d) the dense and saddle-point forms give the same iterates (to 1e-10) at every k, and so
 *       do the saddle form's sparse K (k_factor = 2) and dense K (k_factor = 1), lambda and v;
 *       on a sparse (block-diagonal) A too; the default form is the one of lower estimated cost
 *       (the documented model), and adding contacts to the same bodies moves it at most once,
 *       from dense to saddle;
 *   (e) warm start from the solution stops within one iteration; the iteration budget is used
 *       exactly; descriptor, parameter defaults and validation; determinism.
 * Random problems: tutil_random_problem draws e freely, and with m > nv about 5% of draws have
 * no v with J v + e strictly inside the dual cones (the CCP then has no solution either);
 * tutil_random_family moves e (tutil_feasible_shift) so that v = 0 is strictly feasible.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solve/harness.h"
#include "core/la.h"
#include "metrics/metrics.h"
#include "solvers/admm_common.h"
#include "solvers/registry.h"
#include "tcheck.h"
#include "testutil.h"
#include "solve/params.h"

static const ncp_solver_desc *S_ADMM, *S_FADMM, *S_PGS;

/* The accuracy checks on the CCP (own projection, own u; no cone.h / metrics code) are
 * tutil_ref_check(p, lambda, 1, u) (testutil.h): nat is ||F||_2, F = lambda - Pi_K(lambda - u)
 * on contacts, metrics.h's conventions on the other rows; kkt the largest violation of lambda in
 * K, u in K* (no De Saxcé term), |lambda . u| per contact and the scalar rows' conditions. */

/* Random problem #i of this file's family (testutil.h), shapes TUTIL_NV_FREE (nv 6..30),
 * TUTIL_NV_SPD (D SPD) and TUTIL_NV_FEW (few dofs, many rows: where auto picks the saddle-point
 * form); about 40% of the soft rows are made undamped (c = 0). */
static int t_random(ncp_problem *p, int i, int mixed, int shape, ncp_error *err)
{
    trng r;
    int rc = tutil_random_family(p, 0xadd0000u, 5000u, i, mixed, shape, &r, err);
    if (rc) return rc;
    for (int bi = 0; bi < p->nblocks; bi++)
        if (p->blocks[bi].type == NCP_SOFT && trng_uniform(&r) < 0.4) p->blocks[bi].c = 0.0;
    return NCP_OK;
}

/* Tasora et al. 2021 TEST 1 (§8.1): a vertical stack of n point masses (3 dofs each) on the ground, all
 * 10 kg except the 10th (index 9), 10000 kg; g = 9.8, h = 0.01, mu = 0.5, one contact per pair
 * (normal +z first, tangents x, y), e = 0, v0 = 0. pull = 1 adds an upward force of twice the
 * heavy mass's weight on it (TEST 1.B). Fills the primal data and computes the dual. */
enum { STACK_N = 20, STACK_HEAVY = 9 };
static const double STACK_G = 9.8, STACK_H = 0.01;

static double stack_mass(int i) { return i == STACK_HEAVY ? 10000.0 : 10.0; }

static int t_stack(ncp_problem *p, int pull, ncp_error *err)
{
    int n = STACK_N, nv = 3 * n;
    ncp_problem_init(p);
    int rc = ncp_problem_alloc_blocks(p, n, err);
    if (rc) return rc;
    for (int i = 0; i < n; i++) {
        p->blocks[i].type = NCP_CONTACT;
        p->blocks[i].mu = 0.5;
    }
    ncp_problem_layout(p);
    int m = p->m;
    p->nv = nv;
    p->h = STACK_H;
    p->A = ncp_calloc(err, (size_t)nv * nv, sizeof(double));
    p->b = ncp_calloc(err, (size_t)nv, sizeof(double));
    p->e = ncp_calloc(err, (size_t)m, sizeof(double));
    double *Jd = ncp_calloc(err, (size_t)m * nv, sizeof(double));
    p->name = ncp_strdup(err, pull ? "stack-1B" : "stack-1A");
    p->scene = ncp_strdup(err, "test");
    p->driver = ncp_strdup(err, "");
    if (!p->A || !p->b || !p->e || !Jd || !p->name || !p->scene || !p->driver) {
        free(Jd);
        return NCP_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        double mi = stack_mass(i);
        for (int d = 0; d < 3; d++) p->A[(3 * i + d) * (size_t)(nv + 1)] = mi;
        double pull_force = (pull && i == STACK_HEAVY) ? 2.0 * mi * STACK_G : 0.0;
        p->b[3 * i + 2] = STACK_H * (pull_force - mi * STACK_G); /* b = M v0 + h f, v0 = 0 */
        /* contact i: between mass i (above, +) and mass i-1 (below, -; the ground for i = 0);
         * rows (n, t1, t2) = (z, x, y) */
        int axis[3] = {2, 0, 1};
        for (int r = 0; r < 3; r++) {
            int row = 3 * i + r;
            Jd[row + (size_t)(3 * i + axis[r]) * m] = 1.0;
            if (i > 0) Jd[row + (size_t)(3 * (i - 1) + axis[r]) * m] = -1.0;
        }
    }
    rc = ncp_csr_from_dense(&p->J, m, nv, Jd, 0.0, err);
    free(Jd);
    if (rc) return rc;
    p->has_primal = 1;
    p->step = -1;
    p->case_index = -1;
    return ncp_problem_compute_dual(p, err);
}

/* Analytic normal impulses of TEST 1.A / 1.B (tangential ones are 0). */
static void stack_solution(int pull, double *lam)
{
    int n = STACK_N;
    memset(lam, 0, (size_t)3 * n * sizeof(double));
    if (!pull) { /* 1.A: each contact carries the weight above it over h */
        for (int i = 0; i < n; i++) {
            double w = 0.0;
            for (int j = i; j < n; j++) w += stack_mass(j);
            lam[3 * i] = STACK_H * STACK_G * w;
        }
        return;
    }
    /* 1.B: the heavy mass and those above it move up together with acceleration
     * a = (2 m_h g - M g) / M (M = their total mass); the contact below the heavy one opens;
     * the masses below stay at rest under their own weight. */
    double M = 0.0;
    for (int j = STACK_HEAVY; j < n; j++) M += stack_mass(j);
    double a = (2.0 * stack_mass(STACK_HEAVY) * STACK_G - M * STACK_G) / M;
    for (int i = 0; i < n; i++) {
        double w = 0.0;
        if (i < STACK_HEAVY) {
            for (int j = i; j < STACK_HEAVY; j++) w += stack_mass(j);
            lam[3 * i] = STACK_H * STACK_G * w;
        } else if (i > STACK_HEAVY) {
            for (int j = i; j < n; j++) w += stack_mass(j);
            lam[3 * i] = STACK_H * (STACK_G + a) * w;
        }
    }
}

/* ---------- running a solver ---------- */

static int t_solve(const ncp_solver_desc *s, const ncp_problem *p, const ncp_params *ps,
                   const double *lambda0, double tol, int max_iter, ncp_result *res)
{
    ncp_harness_opts o;
    ncp_harness_opts_default(&o); /* stop metric natural_map_rel_acary, as the benchmark */
    o.budget.tol = tol;
    o.budget.max_iter = max_iter;
    return tutil_solve_opts(s, p, ps, lambda0, NULL, &o, res);
}

static void set_form(ncp_params *ps, int form)
{
    memset(ps, 0, sizeof *ps);
    tutil_param(ps, "form", form);
}

/* The solver stopped on purpose: the NCP metric reached (CONVERGED) or its own CCP test. */
static int t_done(const ncp_result *r)
{
    return r->status == NCP_STATUS_CONVERGED || r->status == NCP_STATUS_STALLED;
}

/* Solves with both solvers in both forms and checks lambda against the expected CCP solution. */
static void t_expect(const char *what, const ncp_problem *p, const double *expect, double tol_l)
{
    const ncp_solver_desc *ss[2] = {S_ADMM, S_FADMM};
    for (int si = 0; si < 2; si++)
        for (int form = 1; form <= 2; form++) {
            ncp_params ps;
            set_form(&ps, form);
            ncp_result res;
            int rc = t_solve(ss[si], p, &ps, NULL, 1e-14, 5000, &res);
            CHECK(rc == 0);
            if (rc) continue;
            CHECK(t_done(&res));
            CHECK(res.iterations >= 1 && res.iterations < 5000);
            double d = tutil_maxdiff(p->m, res.lambda, expect);
            CHECK(d <= tol_l);
            if (d > tol_l || !t_done(&res))
                fprintf(stderr, "  %s: %s form %d: |lambda - expected| = %.3g, %s after %d\n",
                        what, ss[si]->name, form, d, ncp_status_name(res.status),
                        res.iterations);
            CHECK(res.has_solver_v == (form == 2)); /* the saddle form reports its velocity */
            ncp_result_free(&res);
        }
}

/* ---------- (a) analytic ---------- */

static void one_contact_case(const tutil_contact_case *k, ncp_problem *p, void *ctx)
{
    (void)ctx;
    if (!k->ccp_known) return;
    int ncp_differs = tutil_maxdiff(3, k->ncp, k->ccp) > 0.0;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(ncp_problem_primal_from_dual(p, &err), &err); /* for the saddle-point form */
    t_expect(k->name, p, k->ccp, 1e-10);
    /* on sliding cases the harness (NCP metric) does not call the CCP solution converged */
    ncp_result res;
    CHECK_OK(t_solve(S_ADMM, p, NULL, NULL, 1e-12, 5000, &res), &err);
    CHECK(res.converged == !ncp_differs);
    CHECK(res.status == (ncp_differs ? NCP_STATUS_STALLED : NCP_STATUS_CONVERGED));
    if (res.converged != !ncp_differs)
        fprintf(stderr, "  %s: %s after %d, NCP natural map %.3g\n", k->name,
                ncp_status_name(res.status), res.iterations, res.final.natural_map_abs);
    if (ncp_differs) CHECK(res.final.natural_map_abs > 1e-3);
    ncp_result_free(&res);
}

static void test_one_contact(void)
{
    /* D = diag(2, .5, .5): the cases of testutil.c whose CCP solution is known (open in K*,
     * stick, slide with lift-off, a graze the NCP leaves open, frictionless, stick limit; the
     * answers are checked there independently). The CCP (min 1/2 l^T D l + v_f^T l over K)
     * slides along lambda = l_n (1, -mu d) with u_n = mu |u_t| > 0 where the NCP has u_n = 0. */
    tutil_for_contact_cases(one_contact_case, NULL);
}

static void test_scalar_blocks(void)
{
    /* diagonal D, every scalar block type (soft with and without damping) and a sliding contact
     * (testutil.c), with its CCP solution */
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    double expect[8];
    CHECK_OK(tutil_scalar_blocks(&p, NULL, expect, &err), &err);
    CHECK_OK(ncp_problem_primal_from_dual(&p, &err), &err);
    tutil_check_solves(&p, expect, 1, 1e-15);
    t_expect("scalar blocks", &p, expect, 1e-10);
    ncp_problem_free(&p);
}

static void test_coupled(void)
{
    /* A coupled bilateral pair (D = [[2, 1], [1, 2]], v_f = (1, -1): lambda = (-1, 1)) next to a
     * sticking contact coupled to them through D: the CCP solution is the unconstrained
     * minimiser -D^{-1} v_f when that lies in K. D = [[2 1 0 0 0], [1 2 .5 0 0], [0 .5 2 0 0],
     * [0 0 0 .5 0], [0 0 0 0 .5]] (SPD); expected lambda = (-1, 1, 0.5, -0.2, 0.1) gives
     * v_f = -D lambda. */
    int types[3] = {NCP_BILATERAL, NCP_BILATERAL, NCP_CONTACT};
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(tutil_dual_problem(&p, 3, types, &err), &err);
    int m = p.m;
    double Dm[25] = {2, 1, 0, 0, 0, 1, 2, .5, 0, 0, 0, .5, 2, 0, 0, 0, 0, 0, .5, 0, 0, 0, 0, 0, .5};
    memcpy(p.D, Dm, sizeof Dm);
    double expect[5] = {-1.0, 1.0, 0.5, -0.2, 0.1};
    for (int i = 0; i < m; i++) {
        double s = 0.0;
        for (int j = 0; j < m; j++) s += Dm[i + 5 * j] * expect[j];
        p.vf[i] = -s;
    }
    p.blocks[2].mu = 0.5;
    CHECK_OK(ncp_problem_primal_from_dual(&p, &err), &err);
    tutil_check_solves(&p, expect, 1, 1e-14);
    t_expect("coupled", &p, expect, 1e-10);
    ncp_problem_free(&p);
}

static void test_empty_and_bad_input(void)
{
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    const ncp_solver_desc *ss[2] = {S_ADMM, S_FADMM};
    for (int si = 0; si < 2; si++) tutil_check_empty(ss[si]);
    /* form = 2 needs primal data: a dual-only problem is an input error naming the parameter */
    int types[1] = {NCP_CONTACT};
    CHECK_OK(tutil_dual_problem(&p, 1, types, &err), &err);
    p.D[0] = p.D[4] = p.D[8] = 1.0;
    p.vf[0] = -1.0;
    for (int si = 0; si < 2; si++) {
        ncp_params ps;
        set_form(&ps, 2);
        ncp_harness_opts o;
        ncp_harness_opts_default(&o);
        ncp_result res;
        ncp_error e2;
        ncp_error_clear(&e2);
        int rc = ncp_harness_solve(ss[si], &p, &ps, NULL, NULL, &o, &res, &e2);
        CHECK(rc == NCP_ERR_INPUT);
        CHECK(strstr(e2.msg, "form") != NULL && strstr(e2.msg, "primal") != NULL);
        if (rc == 0) ncp_result_free(&res);
    }
    ncp_problem_free(&p);
}

/* ---------- (b) Tasora et al. 2021 TEST 1 ---------- */

static void test_stack(void)
{
    /* The paper's TEST 1 observations (§8.1, Figs. 3-6), checked on the analytic problems:
     * 1.A ADMM with the balanced step reaches the exact solution in < 20 iterations (20 here,
     * to tol 1e-10); FADMM with its fixed rho = 0.05 "converges slowly" (2688 here) and is
     * sensitive to rho; 1.B FADMM with a fixed rho is efficient (fewer iterations than ADMM).
     * The mass-ratio claim against PGS: PGS does not reach 1e-10 on 1.A (still 6e-6 after
     * 100000 sweeps, measured offline) and needs more iterations than both on 1.B. */
    const int budget = 5000;
    for (int pull = 0; pull <= 1; pull++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_stack(&p, pull, &err), &err);
        double lam[3 * STACK_N];
        stack_solution(pull, lam);
        double lmax = ncp_norminf(p.m, lam);
        /* the analytic solution solves the CCP (and NCP) */
        tutil_ref chk = tutil_ref_check(&p, lam, 1, NULL);
        CHECK(chk.nat <= 1e-10 * lmax && chk.kkt <= 1e-10 * lmax * lmax);
        int iters[2][2];
        const ncp_solver_desc *ss[2] = {S_ADMM, S_FADMM};
        for (int si = 0; si < 2; si++)
            for (int form = 1; form <= 2; form++) {
                ncp_params ps;
                set_form(&ps, form);
                ncp_result res;
                CHECK_OK(t_solve(ss[si], &p, &ps, NULL, 1e-10, budget, &res), &err);
                /* no contact slides: CCP = NCP, so the harness's NCP metric converges */
                CHECK(res.converged && res.status == NCP_STATUS_CONVERGED);
                double d = tutil_maxdiff(p.m, res.lambda, lam);
                CHECK(d <= 1e-8 * lmax);
                if (d > 1e-8 * lmax || !res.converged)
                    fprintf(stderr, "  stack %s %s form %d: |lambda - exact| = %.3g, %s\n",
                            pull ? "1.B" : "1.A", ss[si]->name, form, d,
                            ncp_status_name(res.status));
                iters[si][form - 1] = res.iterations;
                ncp_result_free(&res);
            }
        /* the forms run the same iteration */
        CHECK(iters[0][0] == iters[0][1] && iters[1][0] == iters[1][1]);
        ncp_result rp;
        CHECK_OK(t_solve(S_PGS, &p, NULL, NULL, 1e-10, budget, &rp), &err);
        printf("Tasora et al. 2021 TEST 1.%s (20 masses, ratio 1000, tol 1e-10): admm %d, fadmm %d "
               "iterations; pgs %s after %d (natural map rel %.2g)\n",
               pull ? "B" : "A", iters[0][0], iters[1][0], ncp_status_name(rp.status),
               rp.iterations, rp.final.natural_map_rel_acary);
        if (!pull) {
            CHECK(iters[0][0] <= 20);
            CHECK(iters[1][0] > 5 * iters[0][0]);
            CHECK(!rp.converged);
        } else {
            CHECK(iters[1][0] < iters[0][0]);
            CHECK(rp.converged && rp.iterations > iters[0][0]);
        }
        ncp_result_free(&rp);
        ncp_problem_free(&p);
    }
}

/* ---------- (c) random problems ---------- */

/* Configurations compared on the random problems: the two defaults, and the two at the same
 * fixed rho (the acceleration alone), and fadmm with admm's residual balancing. */
enum { NCONF = 4 };
static const struct {
    const char *label;
    int fadmm;
    int adapt_every; /* -1: the solver's default */
    double rho;      /* 0: the solver's default */
} CONF[NCONF] = {
    {"admm (defaults)", 0, -1, 0.0},
    {"fadmm (defaults: fixed rho 0.05)", 1, -1, 0.0},
    {"admm fixed rho 0.05", 0, 0, 0.05},
    {"fadmm adapt_every 5", 1, 5, 0.0},
};

typedef struct rstats {
    int n;                    /* problems every configuration solved */
    long iters[NCONF];
    int max_iters[NCONF];
    int fewer[NCONF];         /* fadmm-vs-admm pairs (1 vs 0, 3 vs 0, 1 vs 2): fewer iterations */
} rstats;

static void test_random(int mixed, int shape, int count, rstats *st)
{
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, i, mixed, shape, &err), &err);
        const double tol = 1e-8;
        double vfn = ncp_norm2(p.m, p.vf);
        double *u[NCONF];
        int it[NCONF], ok = 1;
        for (int c = 0; c < NCONF; c++) {
            u[c] = calloc((size_t)p.m, sizeof(double));
            CHECK(u[c] != NULL);
            if (!u[c]) ok = 0;
        }
        for (int c = 0; c < NCONF && ok; c++) {
            ncp_params ps;
            memset(&ps, 0, sizeof ps);
            if (CONF[c].adapt_every >= 0)
                CHECK_OK(ncp_params_set(&ps, "adapt_every", CONF[c].adapt_every, &err), &err);
            if (CONF[c].rho > 0.0) CHECK_OK(ncp_params_set(&ps, "rho", CONF[c].rho, &err), &err);
            ncp_result res;
            int rc = t_solve(CONF[c].fadmm ? S_FADMM : S_ADMM, &p, &ps, NULL, tol, 20000, &res);
            CHECK(rc == 0);
            if (rc) {
                ok = 0;
                continue;
            }
            CHECK(t_done(&res));
            tutil_ref chk = tutil_ref_check(&p, res.lambda, 1, u[c]);
            /* documented accuracy: CCP natural map <= tol ||v_f||_2 */
            CHECK(chk.nat <= tol * vfn);
            double scale = fmax(1.0, ncp_norminf(p.m, res.lambda) * ncp_norminf(p.m, res.u));
            CHECK(chk.kkt <= 100.0 * tol * scale);
            if (!t_done(&res) || chk.nat > tol * vfn) {
                ok = 0;
                fprintf(stderr,
                        "  %s: random %d (mixed %d shape %d, m %d nv %d): %s after %d, ccp nat "
                        "%.3g (||v_f|| %.3g)\n",
                        CONF[c].label, i, mixed, shape, p.m, p.nv, ncp_status_name(res.status),
                        res.iterations, chk.nat, vfn);
            }
            it[c] = res.iterations;
            ncp_result_free(&res);
        }
        /* u = D lambda + v_f is unique for the CCP (lambda is not when D is singular) */
        for (int c = 1; c < NCONF && ok; c++) {
            double du = 0.0, un = 0.0;
            for (int k = 0; k < p.m; k++) {
                du = fmax(du, fabs(u[0][k] - u[c][k]));
                un = fmax(un, fabs(u[0][k]));
            }
            CHECK(du <= 1e-5 * fmax(1.0, un));
        }
        if (ok) {
            st->n++;
            for (int c = 0; c < NCONF; c++) {
                st->iters[c] += it[c];
                if (it[c] > st->max_iters[c]) st->max_iters[c] = it[c];
            }
            st->fewer[1] += it[1] < it[0];
            st->fewer[3] += it[3] < it[0];
            st->fewer[2] += it[1] < it[2];
        }
        for (int c = 0; c < NCONF; c++) free(u[c]);
        ncp_problem_free(&p);
    }
}

static void report_random(const rstats *st, int expected)
{
    printf("random CCPs, tol 1e-8 (%d of %d solved by every configuration):\n", st->n, expected);
    for (int c = 0; c < NCONF; c++)
        printf("  %-34s mean %7.1f  max %5d iterations\n", CONF[c].label,
               (double)st->iters[c] / (st->n ? st->n : 1), st->max_iters[c]);
    printf("  fadmm fewer iterations than admm: defaults %d/%d, at the same fixed rho %d/%d, "
           "fadmm adaptive vs admm %d/%d\n",
           st->fewer[1], st->n, st->fewer[2], st->n, st->fewer[3], st->n);
    CHECK(st->n == expected);
    /* what is robustly true: at the same fixed rho the acceleration needs fewer iterations on
     * average (measured 321 vs 698). With the defaults fadmm (fixed rho, the paper's Alg. 3)
     * needs MORE than admm (adaptive rho): reported above, not asserted either way. */
    CHECK(st->iters[1] < st->iters[2]);
}

/* ---------- (d) dense vs saddle-point form ---------- */

static void test_forms_agree(void)
{
    /* Deterministic solvers: running with max_iter = k returns iterate k exactly, so iterates
     * of the two forms are compared at several k (tol 1e-300: neither stops on its own; rho
     * adaptation happens at k = 5, 10, ... in admm). */
    const int ks[] = {1, 2, 3, 5, 6, 11, 16, 30};
    const ncp_solver_desc *ss[2] = {S_ADMM, S_FADMM};
    double worst = 0.0, worst_k = 0.0;
    for (int i = 0; i < 12; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, 300 + i, i % 2, (i / 2) % 3, &err), &err);
        for (int si = 0; si < 2; si++)
            for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
                ncp_params pd, pa, pk;
                set_form(&pd, 1);
                set_form(&pa, 2);
                set_form(&pk, 2); /* the saddle form with K on its sparse pattern */
                CHECK_OK(ncp_params_set(&pa, "k_factor", 1, &err), &err);
                CHECK_OK(ncp_params_set(&pk, "k_factor", 2, &err), &err);
                if (ss[si] == S_FADMM) { /* also exercise fadmm's refactorisation path */
                    CHECK_OK(ncp_params_set(&pd, "adapt_every", 5, &err), &err);
                    CHECK_OK(ncp_params_set(&pa, "adapt_every", 5, &err), &err);
                    CHECK_OK(ncp_params_set(&pk, "adapt_every", 5, &err), &err);
                }
                ncp_result rd, ra, rk;
                CHECK_OK(t_solve(ss[si], &p, &pd, NULL, 1e-300, ks[ki], &rd), &err);
                CHECK_OK(t_solve(ss[si], &p, &pa, NULL, 1e-300, ks[ki], &ra), &err);
                CHECK_OK(t_solve(ss[si], &p, &pk, NULL, 1e-300, ks[ki], &rk), &err);
                /* sparse and dense K: the same elimination, K's entries summed in another
                 * order (round-off); the same iteration count even when one stops early */
                CHECK(rk.iterations == ra.iterations);
                if (rk.iterations == ra.iterations) {
                    double dk = 0.0, sk = 1.0;
                    for (int k = 0; k < p.m; k++) {
                        dk = fmax(dk, fabs(rk.lambda[k] - ra.lambda[k]));
                        sk = fmax(sk, fabs(ra.lambda[k]));
                    }
                    for (int k = 0; k < p.nv; k++) {
                        dk = fmax(dk, fabs(rk.solver_v[k] - ra.solver_v[k]));
                        sk = fmax(sk, fabs(ra.solver_v[k]));
                    }
                    CHECK(dk <= 1e-10 * sk);
                    worst_k = fmax(worst_k, dk / sk);
                }
                ncp_result_free(&rk);
                /* an iterate can solve the problem exactly (metric 0 <= 1e-300): then both forms
                 * stop there, within an iteration of each other (rounding) */
                if (rd.iterations != ks[ki] || ra.iterations != ks[ki]) {
                    CHECK(rd.status == NCP_STATUS_CONVERGED && ra.status == NCP_STATUS_CONVERGED);
                    CHECK(abs(rd.iterations - ra.iterations) <= 1);
                    ncp_result_free(&rd);
                    ncp_result_free(&ra);
                    continue;
                }
                double d = 0.0, s = 1.0;
                for (int k = 0; k < p.m; k++) {
                    d = fmax(d, fabs(rd.lambda[k] - ra.lambda[k]));
                    s = fmax(s, fabs(rd.lambda[k]));
                }
                worst = fmax(worst, d / s);
                CHECK(d <= 1e-10 * s);
                if (d > 1e-10 * s)
                    fprintf(stderr, "  forms differ: %s random %d (m %d nv %d) k %d: %.3g\n",
                            ss[si]->name, 300 + i, p.m, p.nv, ks[ki], d / s);
                /* the saddle form's v is the velocity of its lambda: A v = b + J^T lambda */
                CHECK(ra.has_solver_v && !rd.has_solver_v);
                double *r = calloc((size_t)p.nv, sizeof(double));
                CHECK(r != NULL);
                if (r && ra.solver_v) {
                    ncp_gemv(0, p.nv, p.nv, 1.0, p.A, ra.solver_v, 0.0, r);
                    ncp_axpy(p.nv, -1.0, p.b, r);
                    ncp_csr_gemv_t(&p.J, -1.0, ra.lambda, 1.0, r);
                    CHECK(ncp_norminf(p.nv, r) <= 1e-9 * fmax(1.0, ncp_norminf(p.nv, ra.solver_v)));
                }
                free(r);
                ncp_result_free(&rd);
                ncp_result_free(&ra);
            }
        ncp_problem_free(&p);
    }
    printf("dense vs saddle-point iterates: largest relative difference %.2g\n", worst);
    printf("saddle point, sparse vs dense K: largest relative difference %.2g\n", worst_k);
}

/* ---------- (d') the forms on a sparse A; the cost-based choice ---------- */

/* The forms of `p` as ncp_admm_setup decides them with the default parameters (form = 0). */
static int t_setup(const ncp_problem *p, ncp_admm *a)
{
    ncp_error err;
    ncp_error_clear(&err);
    ncp_params ps;
    memset(&ps, 0, sizeof ps);
    ncp_admm_cfg cfg;
    CHECK_OK(ncp_admm_read_params(S_ADMM, &ps, &cfg, &err), &err);
    ncp_solve_in in = {.prob = p, .params = &ps};
    in.budget.tol = 1e-8;
    in.budget.max_iter = 1000;
    int rc = ncp_admm_setup(a, S_ADMM, &in, &cfg, &err);
    CHECK_OK(rc, &err);
    if (rc) return 0;
    /* the expected factorisations per solve with the defaults (adapt_every 5, 10 changes):
     * R = 1000 / 11; the dense form's estimate is the documented m^3/3 / R + 2 m^2 */
    double m = p->m, R = 1000.0 / 11.0;
    CHECK(fabs(a->ls.cost_dense - (m * m * m / 3.0 / R + 2.0 * m * m)) <= 1e-12 * a->ls.cost_dense);
    CHECK(isfinite(a->ls.cost_saddle) && a->ls.cost_saddle > 0.0);
    /* the cheaper estimate wins, and the note says which */
    int want = a->ls.cost_saddle < a->ls.cost_dense ? NCP_ADMM_FORM_SADDLE : NCP_ADMM_FORM_DENSE;
    CHECK(a->ls.form == want);
    CHECK(strstr(a->route, want == NCP_ADMM_FORM_SADDLE ? "form saddle" : "form dense") ==
          a->route);
    return 1;
}

static void test_sparse_forms(void)
{
    ncp_error err;
    ncp_error_clear(&err);
    /* many contacts on few bodies (m = 240 rows, nv = 24): the saddle form's K (24 x 24) is far
     * cheaper than the 240 x 240 factorisation; few contacts on many bodies (m = 12, nv = 360):
     * the dense form's 12 x 12 one is */
    ncp_problem many, few;
    CHECK_OK(tutil_sparse_bodies_problem(&many, 41, 4, 80, &err), &err);
    CHECK_OK(tutil_sparse_bodies_problem(&few, 42, 60, 4, &err), &err);
    ncp_admm a;
    if (t_setup(&many, &a)) CHECK(a.ls.form == NCP_ADMM_FORM_SADDLE);
    ncp_admm_free(&a);
    if (t_setup(&few, &a)) CHECK(a.ls.form == NCP_ADMM_FORM_DENSE);
    ncp_admm_free(&a);
    /* continuity: adding contacts to the same 20 bodies moves the choice at most once, from
     * the dense form to the saddle form, and the estimates grow with the contacts: the dense
     * form's, and the chosen form's (the saddle form's own estimate is its dense K's where the
     * sparse K's analysis is skipped because the form cannot win: dshift.c, choose_k) */
    int flips = 0, prev = NCP_ADMM_FORM_DENSE;
    double pd = 0.0, pdense = 0.0;
    for (int nc = 2; nc <= 120; nc += 6) {
        ncp_problem p;
        CHECK_OK(tutil_sparse_bodies_problem(&p, 43, 20, nc, &err), &err);
        if (t_setup(&p, &a)) {
            if (a.ls.form != prev) flips++;
            CHECK(!(a.ls.form == NCP_ADMM_FORM_DENSE && prev == NCP_ADMM_FORM_SADDLE));
            double chosen = fmin(a.ls.cost_dense, a.ls.cost_saddle);
            CHECK(a.ls.cost_dense > pdense);
            CHECK(chosen >= pd);
            prev = a.ls.form;
            pd = chosen;
            pdense = a.ls.cost_dense;
        }
        ncp_admm_free(&a);
        ncp_problem_free(&p);
    }
    CHECK(flips == 1 && prev == NCP_ADMM_FORM_SADDLE);
    /* the dense m x m form against the saddle form with K sparse on the sparse A (block
     * elimination on the primal data): the same iterates at every k, lambda to 1e-9. At a fixed
     * rho: with the balancing (adapt_every 3) the forms' round-off flipped one of its discrete
     * decisions by k = 40 (5e-6 apart afterwards); the refactorisation path is compared in (d) */
    const int ks[] = {1, 7, 40};
    double worst = 0.0;
    const ncp_solver_desc *ss[2] = {S_ADMM, S_FADMM};
    for (int si = 0; si < 2; si++)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
            ncp_params pdn, psp;
            set_form(&pdn, 1);
            set_form(&psp, 2);
            CHECK_OK(ncp_params_set(&psp, "k_factor", 2, &err), &err);
            CHECK_OK(ncp_params_set(&pdn, "adapt_every", 0, &err), &err);
            CHECK_OK(ncp_params_set(&psp, "adapt_every", 0, &err), &err);
            ncp_result rd, rs;
            CHECK_OK(t_solve(ss[si], &many, &pdn, NULL, 1e-300, ks[ki], &rd), &err);
            CHECK_OK(t_solve(ss[si], &many, &psp, NULL, 1e-300, ks[ki], &rs), &err);
            CHECK(rd.iterations == ks[ki] && rs.iterations == ks[ki]);
            if (rd.lambda && rs.lambda) {
                double d = 0.0, sc = 1e-300;
                for (int k = 0; k < many.m; k++) {
                    d = fmax(d, fabs(rd.lambda[k] - rs.lambda[k]));
                    sc = fmax(sc, fabs(rd.lambda[k]));
                }
                CHECK(d <= 1e-9 * sc);
                if (d > 1e-9 * sc)
                    fprintf(stderr, "  sparse A: %s k %d: dense vs saddle %.3g\n", ss[si]->name,
                            ks[ki], d / sc);
                worst = fmax(worst, d / sc);
            }
            /* the choice reaches the row's note */
            CHECK(strstr(rd.note, "form dense") != NULL);
            CHECK(strstr(rs.note, "form saddle, K sparse") != NULL);
            ncp_result_free(&rd);
            ncp_result_free(&rs);
        }
    printf("sparse A: dense vs saddle (sparse K) iterates: largest relative difference %.2g\n",
           worst);
    ncp_problem_free(&many);
    ncp_problem_free(&few);
}

/* ---------- (d'') n_s raised by the factorisation's work (adapt_work) ---------- */

static void test_interval(void)
{
    /* max(n_s, ceil(adapt_work F / S)); 0 keeps rho fixed, adapt_work 0 keeps n_s */
    CHECK(ncp_admm_interval(5, 0.5, 100.0, 1.0) == 50);
    CHECK(ncp_admm_interval(5, 0.5, 10.0, 1.0) == 5);
    CHECK(ncp_admm_interval(5, 0.5, 10.2, 1.0) == 6);
    CHECK(ncp_admm_interval(0, 0.5, 100.0, 1.0) == 0);
    CHECK(ncp_admm_interval(5, 0.0, 100.0, 1.0) == 5);
    ncp_error err;
    ncp_error_clear(&err);
    /* the dense form on m = 240 rows: F = m^3 / 3, S = 2 m^2, so n_s = ceil(0.5 m / 6) = 20 */
    ncp_problem p;
    CHECK_OK(tutil_sparse_bodies_problem(&p, 44, 20, 80, &err), &err);
    CHECK(p.m == 240);
    ncp_params pdef, plit;
    set_form(&pdef, 1);
    set_form(&plit, 1);
    CHECK_OK(ncp_params_set(&pdef, "adapt_work", 0.5, &err), &err);
    CHECK_OK(ncp_params_set(&plit, "adapt_every", 20, &err), &err);
    CHECK_OK(ncp_params_set(&plit, "adapt_work", 0, &err), &err);
    ncp_admm_cfg cfg;
    CHECK_OK(ncp_admm_read_params(S_ADMM, &pdef, &cfg, &err), &err);
    ncp_solve_in in = {.prob = &p, .params = &pdef};
    in.budget.tol = 1e-8;
    in.budget.max_iter = 1000;
    ncp_admm a;
    CHECK_OK(ncp_admm_setup(&a, S_ADMM, &in, &cfg, &err), &err);
    double m = p.m;
    CHECK(a.ls.form == NCP_ADMM_FORM_DENSE && a.adapt_every == 20);
    CHECK(a.ls.est.F == m * m * m / 3.0 && a.ls.est.S == 2.0 * m * m);
    ncp_admm_free(&a);
    /* adapt_work 0.5 runs as the paper's fixed n_s = 20, bit for bit, and its note says n_s */
    ncp_result rd, rl;
    CHECK_OK(t_solve(S_ADMM, &p, &pdef, NULL, 1e-300, 100, &rd), &err);
    CHECK_OK(t_solve(S_ADMM, &p, &plit, NULL, 1e-300, 100, &rl), &err);
    CHECK(rd.iterations == rl.iterations);
    CHECK(rd.lambda && rl.lambda && memcmp(rd.lambda, rl.lambda, p.m * sizeof(double)) == 0);
    CHECK(strstr(rd.note, "; n_s 20") != NULL);
    ncp_result_free(&rd);
    ncp_result_free(&rl);
    ncp_problem_free(&p);
}

/* ---------- (e) warm start, budgets, parameters ---------- */

static void test_warm_start(int count)
{
    const ncp_solver_desc *ss[2] = {S_ADMM, S_FADMM};
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, 100 + i, i % 2, i % 3, &err), &err);
        ncp_result sol;
        CHECK_OK(t_solve(S_ADMM, &p, NULL, NULL, 1e-13, 20000, &sol), &err);
        CHECK(t_done(&sol));
        for (int si = 0; si < 2; si++)
            for (int form = 1; form <= 2; form++) {
                ncp_params ps;
                set_form(&ps, form);
                ncp_result res;
                CHECK_OK(t_solve(ss[si], &p, &ps, sol.lambda, 1e-9, 100, &res), &err);
                CHECK(t_done(&res));
                CHECK(res.iterations <= 1);
                if (res.iterations > 1)
                    fprintf(stderr, "  warm %s form %d random %d: %d iterations\n",
                            ss[si]->name, form, 100 + i, res.iterations);
                ncp_result_free(&res);
            }
        ncp_result_free(&sol);
        ncp_problem_free(&p);
    }
}

static void test_max_iter(void)
{
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_random(&p, 7, 1, 0, &err), &err);
    tutil_check_budgets(S_ADMM, &p, NULL);
    tutil_check_budgets(S_FADMM, &p, NULL);
    ncp_problem_free(&p);
}

static void test_descriptors_and_params(void)
{
    const ncp_solver_desc *ss[2] = {S_ADMM, S_FADMM};
    for (int si = 0; si < 2; si++) {
        CHECK(ss[si]->ccp == 1);                  /* Tasora et al. 2021 solves the CCP */
        CHECK(ss[si]->needs == (NCP_NEEDS_DUAL_OP | NCP_NEEDS_SYMMETRIC)); /* D: dense form only */
    }
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_random(&p, 11, 1, 2, &err), &err);
    for (int si = 0; si < 2; si++) tutil_check_param_defaults(ss[si], &p, 1e-9, 300);
    struct {
        const ncp_solver_desc *s;
        const char *name;
        double value;
    } bad[] = {
        {S_ADMM, "rho", 0.0},          {S_ADMM, "rho_b", -1.0},     {S_ADMM, "adapt_every", 1.5},
        {S_ADMM, "rho_policy", 3.0},   {S_ADMM, "precond", 2.0},    {S_ADMM, "form", 3.0},
        {S_ADMM, "k_factor", 3.0},    {S_FADMM, "k_factor", -1.0},
        {S_ADMM, "tol_ccp", -1e-3},    {S_FADMM, "restart_eps", 1.0},
        {S_FADMM, "restart_eps", 0.0}, {S_FADMM, "rho", NAN},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        tutil_check_bad_param(bad[i].s, &p, bad[i].name, bad[i].value);
    /* non-default but valid settings still solve the CCP */
    const char *names[4] = {"rho_policy", "precond", "adapt_every", "rho"};
    double vals[4] = {2.0, 0.0, 1.0, 3.0};
    for (int si = 0; si < 2; si++) {
        ncp_params ps;
        memset(&ps, 0, sizeof ps);
        for (int k = 0; k < 4; k++) tutil_param(&ps, names[k], vals[k]);
        ncp_result res;
        CHECK_OK(t_solve(ss[si], &p, &ps, NULL, 1e-8, 20000, &res), &err);
        CHECK(t_done(&res));
        tutil_ref chk = tutil_ref_check(&p, res.lambda, 1, NULL);
        CHECK(chk.nat <= 1e-8 * ncp_norm2(p.m, p.vf) * (1.0 + 1e-6));
        ncp_result_free(&res);
    }
    ncp_problem_free(&p);
}

int main(void)
{
    S_ADMM = ncp_solver_find("admm");
    S_FADMM = ncp_solver_find("fadmm");
    S_PGS = ncp_solver_find("pgs");
    CHECK(S_ADMM != NULL && S_FADMM != NULL && S_PGS != NULL);
    if (!S_ADMM || !S_FADMM || !S_PGS) return tcheck_exit("admm");
    test_descriptors_and_params();
    test_one_contact();
    test_scalar_blocks();
    test_coupled();
    test_empty_and_bad_input();
    test_stack();
    rstats st;
    memset(&st, 0, sizeof st);
    for (int shape = 0; shape < 3; shape++) {
        test_random(0, shape, 30, &st);
        test_random(1, shape, 30, &st);
    }
    report_random(&st, 180);
    test_forms_agree();
    test_sparse_forms();
    test_interval();
    test_warm_start(12);
    test_max_iter();
    return tcheck_exit("admm");
}
