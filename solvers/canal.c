/* canal — Cascaded Newton-based Augmented Lagrangian (Lee et al. 2025 §V, Alg. 1).
 *
 * Source: Lee, Lee, Park, Yun, Lee, "Variations of Augmented Lagrangian for Robotic Multi-Contact
 * Simulation" (IEEE T-RO 2025, arXiv 2502.16898), §IV-§V and Alg. 1.
 * Formulas are the paper's, translated to normal-first frames (n, t1, t2).
 *
 * One iteration (the one the harness sees and the paper's figures count) is one AL loop:
 *   1. e~^l = e + (mu ||z_t^l||, 0, 0) per contact (eq. 21, the cascade: the De Saxcé term is
 *      frozen at the previous slack z^l);
 *   2. Newton loop on the strongly convex h of eq. 22, warm-started at v^l (Alg. 1 line 4):
 *        x_i = lambda^l_i - beta (J_i v + e~_i)          (eq. 21 with u^l = -lambda^l)
 *        lambda_i = T_i(x_i): proximal cone projection for contacts (ncp_cone_project), eq. 14
 *                   for unilateral rows, identity for bilateral rows, eq. 15 for soft rows
 *        r(v) = A v - b - J^T lambda                    (eq. 21 = grad h)
 *        H = A + beta sum_i J_i^T G_i J_i                (eq. 24; G_i from eq. 23 through
 *                                                         ncp_cone_project_jacobian)
 *        d = -H^{-1} r                                   (eq. 25, Cholesky: H is SPD)
 *        alpha = argmin_{a > 0} h(v + a d)               (eq. 26, exact: rtsafe on phi'(a))
 *      until ||r|| < theta_N (Alg. 1 line 8, absolute within the run; see below) or r is at its
 *      round-off level (ncp_al_eval in al_common.h), inner_max steps, or no descent left;
 *   3. z^{l+1}, u^{l+1} by eq. 12-13 (u = -lambda), beta <- min(kappa beta, beta_max) when
 *      ||J v - z|| did not drop below zeta times its previous value (eq. 27, Alg. 1 line 19).
 * h per block type (eq. 22 gives only the contact term; ours, checked against finite
 * differences in tests/test_canal.c): contact ||Pi_K(x)||^2/(2 beta), unilateral
 * max(0,x)^2/(2 beta), bilateral x^2/(2 beta), soft (c x^2/2 - beta k phi x)/(beta (c + beta)).
 *
 * Line search (eq. 26): phi(a) = h(v + a d) is strictly convex and C^1 with
 *   phi'(a)  = g0 + a c2 - sum_i w_i^T T_i(x_i - a beta w_i),   w = J d, g0 = d^T(A v - b),
 *   phi''(a) = c2 + beta sum_i w_i^T G_i w_i,                   c2 = d^T A d > 0,
 * each O(m) after one J and one A product. rtsafe (Numerical Recipes §9.4, as in Drake's SAP,
 * ref. [24] of the paper): a = 1 is accepted when |phi'(1)| <= ls_tol |phi'(0)|; otherwise the
 * root of phi' is bracketed ([0, 1], or doubling from 1 while phi' < 0) and found by Newton steps
 * on phi' that fall back to bisection when they leave the bracket or converge too slowly, until
 * |phi'| <= ls_tol |phi'(0)|, the bracket is below 1e-14 a, or ls_max evaluations.
 *
 * Start (§V-D, solvers/al_common.c al_run): warm, v^0 = v0 (the previous step's velocity, which
 * the benchmarks pass from the capture), u^0 = -lambda0, z^0 = J v^0 + e (eq. 13 at a fixed
 * point). Cold (no v0, no lambda0): v^0 = 0 (cold_v 1: A^-1 b) and z_t^0 = 0, so that loop 1
 * has no De Saxcé shift (eq. 21) and is the soft convex model of [2, 25] (§V-D: one CANAL loop
 * is that model). The former cold start z^0 = J A^-1 b + e shifted every contact by
 * mu ||J_t A^-1 b|| in loop 1 (dishes, Table II: 339 Newton steps per case, -log10 res 7.02).
 *
 * Parameters (defaults). The paper gives beta0 = 1e4 (§V-D, absolute) and no theta_N, kappa,
 * zeta, beta_max. Ours are scale-free (solvers/al_common.c, problem_scale; the same iterates
 * up to the impulse unit when every mass is multiplied by s, tests/test_canal.c):
 *   beta0 = beta0_rel / mean diag(J A^-1 J^T), beta0_rel 1e4 (beta0 > 0: absolute, e.g. 1e4);
 *   beta_max = beta_max_ratio beta0, ratio 100; kappa 3, zeta 0.5 (eq. 27, Alg. 1 line 19);
 *   theta_N = theta_n (||b|| + ||J^T lambda0|| + ||J^T (|e| / diag D)||), theta_n 1e-10
 *   (theta_n_abs > 0: an absolute theta_N; inner_tol > 0 adds the former relative test
 *   ||r|| <= inner_tol ||J^T (lambda - lambda^l)||);
 *   theta_al 0 (Alg. 1 line 16 off: the harness decides), inner_max 100, stall_tol 1e-15,
 *   ls_tol 1e-10, ls_max 100. eta of Alg. 1 line 2 is never used by the paper and is omitted.
 * Chosen by scripts/sweep_canal.sh (Table II protocol, 10 AL loops from v0 = the captured
 * previous velocity, dishes and bolt-nut captures; beta0_rel 1e4..1e6 x kappa 3, 10 x zeta 0.5,
 * never): beta0_rel trades Newton steps for accuracy after 10 loops (1e4 / 1e5 / 1e6: dishes
 * 60 / 78 / 112 steps per case at -log10 res 7.34 / 7.89 / 8.32; bolt-nut 68 / 89 / 123 at
 * 9.27 / 9.47 / 9.42); kappa 3 costs fewer steps than 10 at equal accuracy within 0.2; never
 * raising beta (zeta large) saves ~20 % of the steps but loses 0.5-0.7 in -log10 res on the
 * dishes. beta0_rel 1e4, not 1e5: with 1e5 (beta_max 1e7 / D) the single-contact analytic
 * cases of tests/test_canal.c stop at |lambda error| 8e-11 (round-off eps beta |J v| in x)
 * instead of reaching natural map 1e-11. theta_n 1e-10 rather than 1e-8: with 1e-8 one of the
 * 110 random problems of tests/test_canal.c stalled at natural map 5e-8 (Newton loops with no
 * step leave lambda unchanged), at ~5 % more Newton steps on the dishes. With the paper's
 * absolute beta0 = 1e4 (about beta0_rel 3e5 on the dishes) Table II gives 92 Newton steps per
 * case at -log10 res 8.13.
 * Why the dish cases of Table II cost ~5.5 Newton steps per loop, not the "one or two" of §V-D
 * (benchmarks/bench_table2 --diag): each loop's start v^l is off the new h's minimiser mostly
 * through beta (e~^{l+1} - e~^l) on the loaded sliding contacts (28 of 53 per case slide),
 * 3-10x larger than the multiplier change, and the multiplier keeps changing by ~0.04 N s per
 * loop in the null space of J^T (||J^T dlambda|| 1e-4.6: a statically indeterminate pile);
 * loop 1's start does not matter (v0 only, v0 + lambda0, cold: 60.4 / 61.2 / 59.4 steps). On
 * the tight bolt-nut the same code needs 2 steps per loop from loop 5 on (24.3 per case).
 * eq. 21's shift is recomputed from eqs. 12-13 in tests/test_canal.c (test_cascade_shift).
 * Why beta_max = 100 beta0 and not larger: the round-off floor of x = lambda - beta (J v + e~)
 * grows with beta; on tests/test_canal.c's 110 random problems beta_max = 1e8 left 12 stuck
 * near natural map 1e-6, 1e4..1e6 none. beta is also not raised once the AL change of lambda is
 * within 1e3 x its round-off level (al_common.c).
 * Accuracy floor: about eps beta |J v| in lambda (x is formed at scale beta |J v|).
 * Needs: primal (A, b, J, e; A dense, or block-sparse as the block route keeps it, which takes
 * the sparse Newton route, al_common.c). Solves the NCP (the cascade removes the De Saxcé lag at the fixed
 * point: there z = J v + e and e~ = e + Gamma(z)). Linear algebra: solvers/al_common.c (sparse
 * assembly, Cholesky per connected component of the Hessian's graph). Inner counts for Table II:
 * ncp_al_solve_observed (solvers/al.h) with ncp_al_config_canal.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "solvers/al_common.h"
#include "solvers/common.h"
#include "core/la.h"
#include "solvers/registry.h"
#include "solvers/al_operator.h"

static int canal_inner(ncp_al_ws *w, int *ok, ncp_error *err);
static int canal_read_params(const ncp_solver_desc *self, const ncp_params *ps,
                             ncp_al_settings *s, ncp_error *err);

static const ncp_param_doc canal_params[] = {
    NCP_AL_DOC_COMMON("Newton loop", "Newton steps"),
    {"ls_tol", 1e-10, "exact line search: stop when |phi'(a)| <= ls_tol |phi'(0)|, in (0, 1)"},
    {"ls_max", 100.0, "exact line search: max evaluations of phi' (integer >= 2)"},
    {"newton_factor", 0.0,
     "eq. 25's Cholesky: 0 = sparse (fixed pattern, analysed once per solve) when it needs 4x "
     "fewer flops than dense, else dense per connected component; 1 = dense; 2 = sparse"},
    {NULL, 0.0, NULL},
};

/* The cascade of eq. 21 with the proximal operator, each loop's h minimised by Newton steps with
 * an exact line search. */
const ncp_al_config ncp_al_config_canal = {
    .desc = &ncp_solver_canal,
    .cascade = 1,
    .read_params = canal_read_params,
    .inner = canal_inner,
};

static int canal_read_params(const ncp_solver_desc *self, const ncp_params *ps,
                             ncp_al_settings *s, ncp_error *err)
{
    int rc;
    if ((rc = ncp_solver_param_real(self, ps, "ls_tol", 0.0, 1.0,
                                    NCP_PARAM_LO_OPEN | NCP_PARAM_HI_OPEN, &s->ls_tol, err)) ||
        (rc = ncp_solver_param_int(self, ps, "ls_max", 2, 100000, &s->ls_max, err)) ||
        (rc = ncp_solver_param_int(self, ps, "newton_factor", 0, 2, &s->newton_factor, err)))
        return rc;
    return NCP_OK;
}

/* ---- exact line search ---- */

typedef struct ls_ctx {
    ncp_al_ws *w;
    double g0, c2; /* d^T (A v - b), d^T A d */
} ls_ctx;

/* phi'(a) and phi''(a) (see the header); w->w holds J d. */
static double ls_eval(const ls_ctx *c, double a, double *d2)
{
    ncp_al_ws *w = c->w;
    const ncp_problem *p = w->p;
    double f = c->g0 + a * c->c2, dd = c->c2;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int k = ncp_block_type_size(b->type), r = b->row;
        const double *wd = w->w + r;
        double xs[3], T[3], G[9];
        for (int i = 0; i < k; i++) xs[i] = w->x[r + i] - a * w->beta * wd[i];
        ncp_al_block_T(b, 1, w->beta, xs, T, G, 0);
        for (int i = 0; i < k; i++) {
            f -= wd[i] * T[i];
            double gw = 0.0;
            for (int j = 0; j < k; j++) gw += G[i + 3 * j] * wd[j];
            dd += w->beta * wd[i] * gw;
        }
    }
    w->st->ls_evals++;
    *d2 = dd;
    return f;
}

/* Returns the exact minimiser of phi over a > 0, or 0 if d is not a descent direction (which
 * only round-off can cause: phi'(0) = -r^T H^{-1} r < 0 otherwise). */
static double line_search(ncp_al_ws *w)
{
    const ncp_problem *p = w->p;
    int n = w->n, budget = w->set.ls_max;
    ls_ctx c = {w, 0.0, 0.0};
    ncp_csr_gemv(&p->J, 1.0, w->d, 0.0, w->w);
    ncp_al_mass_apply(w, w->d, w->g);
    c.c2 = ncp_dot(n, w->d, w->g);
    c.g0 = ncp_dot(n, w->d, w->Av) - ncp_dot(n, w->d, p->b);
    double dd;
    double f0 = ls_eval(&c, 0.0, &dd);
    budget--;
    if (!(f0 < 0.0) || !(c.c2 > 0.0)) return 0.0;
    double tol = w->set.ls_tol * fabs(f0);
    double ddhi, fhi = ls_eval(&c, 1.0, &ddhi);
    budget--;
    if (fabs(fhi) <= tol) return 1.0;
    double lo = 0.0, hi = 1.0;
    while (fhi < 0.0) { /* the minimiser lies beyond 1: bracket by doubling */
        if (hi >= 0x1p30 || budget <= 0) return hi;
        lo = hi;
        hi *= 2.0;
        fhi = ls_eval(&c, hi, &ddhi);
        budget--;
        if (fabs(fhi) <= tol) return hi;
    }
    /* rtsafe on [lo, hi], phi'(lo) < 0 < phi'(hi), starting from hi */
    double a = hi, f = fhi, df = ddhi, dxold = hi - lo, dx = dxold;
    while (budget-- > 0) {
        if (((a - hi) * df - f) * ((a - lo) * df - f) > 0.0 || fabs(2.0 * f) > fabs(dxold * df)) {
            dxold = dx;
            dx = 0.5 * (hi - lo);
            a = lo + dx;
        } else {
            dxold = dx;
            dx = f / df;
            a -= dx;
        }
        if (fabs(dx) <= 1e-14 * a) break;
        f = ls_eval(&c, a, &df);
        if (fabs(f) <= tol) break;
        if (f < 0.0) lo = a;
        else hi = a;
    }
    return a > 0.0 ? a : 0.0;
}

/* ---- the Newton loop of one AL iteration (Alg. 1 lines 4-14) ---- */

static int canal_inner(ncp_al_ws *w, int *ok, ncp_error *err)
{
    int n = w->n, steps = 0, at_floor = 0;
    double prev = INFINITY;
    *ok = 0;
    for (;;) {
        ncp_al_eval(w, w->v, 1);
        if (ncp_al_inner_done(w, prev)) {
            *ok = 1;
            break;
        }
        if (at_floor || steps >= w->set.inner_max) break;
        prev = w->rnorm;
        for (int i = 0; i < n; i++) w->d[i] = -w->r[i];
        int rc = ncp_al_lin_solve(w, 1, w->d, err); /* eq. 25 */
        if (rc) return rc;
        double alpha = line_search(w); /* eq. 26 */
        steps++;
        w->st->inner_iterations++;
        int descent = alpha > 0.0 && ncp_all_finite(n, w->d);
        ncp_copy(n, w->v, w->vt);
        if (descent) ncp_axpy(n, alpha, w->d, w->v);
        ncp_al_notify_step(w, steps, w->vt, w->v, descent ? alpha : 0.0, w->rnorm);
        if (!descent) { /* no descent left: only round-off can cause this */
            *ok = w->rnorm <= w->rfloor;
            break;
        }
        /* a step below the resolution of v cannot improve r: evaluate once more and stop */
        if (alpha * ncp_norm2(n, w->d) <= DBL_EPSILON * ncp_norm2(n, w->v)) at_floor = 1;
    }
    return NCP_OK;
}

static int canal_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    return ncp_al_solve(&ncp_al_config_canal, in, out, run, err);
}

const ncp_solver_desc ncp_solver_canal = {
    .name = "canal",
    .source = "Lee et al. 2025 §V, Alg. 1 (CANAL: cascaded Newton-based augmented Lagrangian)",
    .summary = "AL with the De Saxcé term lagged; each loop a Newton solve of a strongly convex h "
               "with exact line search",
    .needs = NCP_NEEDS_PRIMAL | NCP_NEEDS_PRIMAL_SPARSE,
    .ccp = 0,
    .takes_v0 = 1,
    .file = "solvers/canal.c",
    .params = canal_params,
    .solve = canal_solve,
};
