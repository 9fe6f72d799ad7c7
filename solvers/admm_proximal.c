/* The proximal ADMM of the NCP report 2025 (Alg. 6, §VI-F, eqs. 165-172), shared by admm-ccp,
 * admm-ncp-fp, admm-ncp-la and admm-ncp-sa (see admm_proximal.h for why one core and four thin
 * files).
 *
 * Problem: the dual NCP K* ∋ u + Gamma(u) ⊥ lambda ∈ K, u = D lambda + v_f (NCP report 2025
 * eq. 15), attacked as the convex SOCP (127) with the De Saxcé term frozen at s:
 *     min_{x ∈ K} h(x; s) = 1/2 x^T D x + x^T (v_f + s)                              (165)
 * split as x = y, y ∈ K, with the augmented Lagrangian (166) plus the proximal term
 * eta/2 ||x - x_prev||^2. One iteration (Alg. 6 lines 4-9; the OCR lost the signs, resolved as
 * in Pinocchio's ADMMContactSolverTpl, the implementation of Carpentier et al. that ADMM-NCP
 * follows; with them the dual variable z converges to the augmented velocity u + Gamma(u)):
 *     s   = Gamma(z_prev)                                              (167a; CCP: s = 0)
 *     x   = (D + (rho + eta) I)^{-1} (-(v_f + s) + eta x_prev + rho y_prev + z_prev)   (168)
 *     xr  = relax x + (1 - relax) y_prev             (over-relaxation, Alg. 6 line 7; Boyd et
 *                                                     al. 2011 §3.4.3; relax = 1: none)
 *     y   = Pi_K(xr - z_prev / rho)                                                     (169)
 *     z   = z_prev - rho (xr - y)                                                      (167d)
 *     lambda = y (reported iterate, always in K)
 * A fixed point solves the NCP: x = y, z = D y + v_f + Gamma(z) = u + Gamma(u) (Gamma reads only
 * the tangential part, which z and u share), and y = Pi_K(y - z/rho) <=> K ∋ y ⊥ z ∈ K*.
 *
 * Residuals (eq. 170, the iterate forms of eqs. 156-158 that the paper uses for ADMM; L_inf):
 *     r_p  = ||x - y||,  r_d = ||rho (y - y_prev) + eta (x - x_prev)||,
 *     r_cp = max over unilateral and contact blocks of |x_k . z_k|.
 * (170c pairs z with x, not y: y . z = 0 by construction (Moreau's decomposition of
 * xr - z_prev/rho), so only x . z measures anything. Joints carry no complementarity.) When all
 * three are <= eps_p, eps_d, eps_cp the solver stops on its own (Alg. 6 line 15), reported as
 * STALLED unless the harness's metric is within tolerance. r_p and r_d also drive the penalty.
 *
 * Penalty (NCP report 2025 §VI-F "Penalty Adaptation"):
 *   FP  rho = rho0 (default 1: "we have found rho0 = 1 to work well across all problems").
 *   LA  eq. 171: rho *= tau_inc if r_p > mu_thr r_d; rho /= tau_dec if r_d > mu_thr r_p (the
 *       ratios of the paper written as products, so a zero residual needs no special case).
 *   SA  eq. 172: L = lambda_max(D) (with the soft rows' compliances, below) by power iteration
 *       (ncp_power_lmax; the paper: "cheap estimates ... such as the Power-Iteration method"),
 *       m = eta ("we can always set m = eta"), kappa = L / m;
 *       rho0 = sqrt(L m) kappa^p0, then rho *= kappa^alpha or kappa^-alpha on LA's test.
 *   Each change refactorises D + C + (rho + eta) I (C: the soft compliances below) by the shared
 *   shifted-Delassus solver (solvers/dshift.h): the dense Cholesky of that m x m matrix, the
 *   saddle-point elimination on the primal data (K = A + J^T J / (rho + eta), sparse on a
 *   pattern analysed once), or Woodbury's identity on a low-rank D = F F^T (no row's shift is
 *   tiny here, unlike Tasora et al. 2021's rho_b), whichever is estimated cheaper per iteration
 *   with the factorisations the rule may cause (FP: one per solve; LA, SA: up to one per
 *   iteration, eqs. 171-172 test every iteration); the choice is in the row's note. Adaptation
 *   does not move rho out of [1e-12 s, 1e12 s], s = the largest diagonal entry of D (1 if none
 *   is positive), so the system stays factorisable in floating point; the paper sets no bound
 *   (only diverging runs reach it).
 *   A user's fixed rho is used as given.
 * CCP (Table I, ADMM-CCP): "neglect (167a), i.e. s = 0, and omit eta/2||x - x~||^2": desaxce = 0,
 * eta = 0, fixed rho. It converges to the CCP K* ∋ u ⊥ lambda ∈ K (eq. 18), z -> u.
 *
 * Blocks (the paper adapts ADMM to joints and limits, K = R^{n_J} x R_+^{n_l} x prod K_mu):
 *   bilateral   Pi = identity, K* = {0};   unilateral  Pi = max(0, .), K* = R_+;
 *   contact     ncp_cone_project / ncp_cone_project_dual (normal first).
 *   soft        lambda = -k phi - c u is a law, not a set (NCP report 2025 has no such rows; our
 *               resolution): for c > 0 it reads u + (lambda + k phi)/c = 0, a bilateral row of
 *               the problem with D_rr += 1/c and v_f,r += k phi / c (a compliance, as R in the
 *               NCP report 2025 eq. 95); then z_r = c^{-1} x (its law's residual). For c = 0 it is
 *               lambda = -k phi: the set {-k phi}, Pi = that constant, normal cone R (z free).
 *
 * Start: x0 = lambda0 (or 0), y0 = Pi_K(x0), z0 = Pi_{K*}(w + Gamma(w)), w = D y0 + v_f (with
 * the soft terms): Alg. 6 starts z from the warm-start velocity; we use the augmented velocity of
 * y0 made dual-feasible (as Pinocchio does), so that from a solution the first iteration
 * returns that solution. CCP: z0 = Pi_{K*}(w).
 *
 * Needs: the Delassus operator (D, or the primal data: products and D's diagonal through
 * core/dop.h, the x-update through solvers/dshift.h, no dense D unless the dense form is chosen).
 * Memory: that form's factor (m x m dense, or K's). Solves the NCP (desaxce) or the CCP.
 */
#include "solvers/admm_proximal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/admm_common.h"
#include "solvers/common.h"
#include "solvers/dshift.h"
#include "core/cone.h"
#include "core/la.h"

typedef struct admm_ws {
    int m;
    ncp_dshift ls;   /* D + diag(comp + rho + eta) x = q - v_f (dshift.h); ls.op is D */
    double *comp;    /* m: soft compliances 1/c, else 0 (Deff = D + diag(comp)) */
    double *soft;    /* m: k phi / c on compliant soft rows, else 0 (vfe = v_f + soft) */
    double *sh;      /* m: comp + rho + eta, the diagonal being factorised */
    double *x, *y, *z, *xp, *yp, *t;
    double *v;       /* nv: the saddle form's velocity (scratch) */
} admm_ws;

/* y = Deff x + vfe = D x + v_f + comp x + soft (the constraint velocity at x). */
static void deff_velocity(admm_ws *w, const ncp_problem *p, const double *x, double *y)
{
    ncp_copy(w->m, p->vf, y);
    ncp_dop_apply(&w->ls.op, 1.0, x, 1.0, y);
    for (int i = 0; i < w->m; i++) y[i] += w->comp[i] * x[i] + w->soft[i];
}

/* Deff for ncp_power_lmax (SA's L). */
static void deff_power(void *ctx, const double *x, double *y)
{
    admm_ws *w = ctx;
    ncp_dop_apply(&w->ls.op, 1.0, x, 0.0, y);
    for (int i = 0; i < w->m; i++) y[i] += w->comp[i] * x[i];
}

static void ws_free(admm_ws *w)
{
    ncp_dshift_free(&w->ls);
    free(w->comp);
    free(w->soft);
    free(w->sh);
    free(w->x);
    free(w->y);
    free(w->z);
    free(w->xp);
    free(w->yp);
    free(w->t);
    free(w->v);
}

static int ws_alloc(admm_ws *w, const ncp_problem *p, ncp_error *err)
{
    memset(w, 0, sizeof *w);
    int m = w->m = p->m;
    double **v[] = {&w->comp, &w->soft, &w->sh, &w->x, &w->y, &w->z, &w->xp, &w->yp, &w->t};
    int ok = 1;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        *v[i] = ncp_calloc(err, (size_t)m + 1, sizeof(double));
        ok = ok && *v[i];
    }
    return ok ? NCP_OK : NCP_ERR_NOMEM;
}

/* A soft row with c > 0 becomes a compliant bilateral row, c = 0 is the fixed value -k phi (the
 * same split as ncp_block_project in common.h). */
static int soft_compliant(const ncp_block *b) { return b->c > 0.0; }

/* Deff = D + diag(comp), comp = 1/c on compliant soft rows; vfe = v_f + k phi / c there. */
static void effective_problem(const ncp_problem *p, admm_ws *w)
{
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        if (b->type != NCP_SOFT || !soft_compliant(b)) continue;
        int r = b->row;
        w->comp[r] = 1.0 / b->c;
        w->soft[r] = b->k * b->phi / b->c;
    }
}

/* out = Pi_K(in) blockwise (ncp_block_project: soft rows as above); in and out may alias. */
static void project_primal(const ncp_problem *p, const double *in, double *out)
{
    for (int bi = 0; bi < p->nblocks; bi++) {
        int r = p->blocks[bi].row;
        ncp_block_project(&p->blocks[bi], in + r, out + r);
    }
}

/* out = Pi_{K*}(in) blockwise (in and out may alias). */
static void project_dual(const ncp_problem *p, const double *in, double *out)
{
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int r = b->row;
        switch (b->type) {
        case NCP_CONTACT:
            ncp_cone_project_dual(b->mu, in + r, out + r);
            break;
        case NCP_UNILATERAL:
            out[r] = fmax(0.0, in[r]);
            break;
        case NCP_SOFT: /* compliant: bilateral, K* = {0}; fixed value: normal cone R */
            out[r] = soft_compliant(b) ? 0.0 : in[r];
            break;
        default: /* bilateral: K* = {0} */
            out[r] = 0.0;
            break;
        }
    }
}

/* v[contact normals] += sign * Gamma(z) = sign * mu ||z_t|| (De Saxcé, docs/design.md), using the
 * shared operator: (z + Gamma(z))_n - z_n. */
static void add_gamma(const ncp_problem *p, const double *z, double sign, double *v)
{
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        if (b->type != NCP_CONTACT) continue;
        double g[3];
        ncp_desaxce(b->mu, z + b->row, g);
        v[b->row] += sign * (g[0] - z[b->row]);
    }
}

/* max over unilateral and contact blocks of |x_k . z_k| (eq. 170c). */
static double compl_residual(const ncp_problem *p, const double *x, const double *z)
{
    double r = 0.0;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        if (b->type == NCP_UNILATERAL || b->type == NCP_CONTACT) {
            int n = ncp_block_type_size(b->type);
            r = fmax(r, fabs(ncp_dot(n, x + b->row, z + b->row)));
        }
    }
    return r;
}

/* Deff + shift I = D + diag(comp + shift), factorised. */
static int factor(const ncp_solver_desc *d, admm_ws *w, double shift, ncp_error *err)
{
    for (int i = 0; i < w->m; i++) w->sh[i] = w->comp[i] + shift;
    int rc = ncp_dshift_factor(&w->ls, w->sh, err);
    if (rc) ncp_error_prefix(err, "%s: D + (rho + eta) I with rho + eta = %g: ", d->name, shift);
    return rc;
}

/* A form's cost per iteration for dshift's choice: F / R + S, R the iterations per
 * factorisation (FP: the budget's iterations; LA, SA: 1, a change possible at every one). */
typedef struct prox_costctx {
    int adaptive, max_iter;
} prox_costctx;

static double prox_cost(void *ctx, ncp_dshift_est e)
{
    const prox_costctx *c = ctx;
    double R = c->adaptive ? 1.0 : c->max_iter > 0 ? (double)c->max_iter : 1000.0;
    return e.F / R + e.S;
}

/* Initial penalty and, for SA, the adaptation factor kappa^alpha. */
static void initial_rho(const ncp_admm_prox_opts *o, admm_ws *w, double *rho, double *step)
{
    if (o->rule != NCP_ADMM_PROX_SPECTRAL) {
        *rho = o->rho0;
        *step = 1.0;
        return;
    }
    /* t and xp are free before the iterations start. L only sets the penalty's scale ("need not
     * be exact"): 1e-6 relative change of the Rayleigh quotient or 200 products. */
    double L = ncp_power_lmax(w->m, deff_power, w, 200, 1e-6, w->t, w->xp);
    double mm = o->eta;
    if (!(L > mm) || !isfinite(L)) L = mm; /* D = 0 (or tiny): kappa = 1, rho = eta */
    double kappa = L / mm;
    *rho = sqrt(L * mm) * pow(kappa, o->p0);
    *step = pow(kappa, o->alpha);
}

/* eqs. 171-172: the new penalty (unchanged when the residuals are balanced). */
static double adapt_rho(const ncp_admm_prox_opts *o, double rho, double step, double rp, double rd)
{
    if (o->rule == NCP_ADMM_PROX_LINEAR) {
        if (rp > o->mu_thr * rd) return rho * o->tau_inc;
        if (rd > o->mu_thr * rp) return rho / o->tau_dec;
    } else if (o->rule == NCP_ADMM_PROX_SPECTRAL) {
        if (rp > o->mu_thr * rd) return rho * step;
        if (rd > o->mu_thr * rp) return rho / step;
    }
    return rho;
}

int ncp_admm_prox_common_params(const ncp_solver_desc *d, const ncp_params *ps,
                              ncp_admm_prox_opts *o, ncp_error *err)
{
    int rc;
    if ((rc = ncp_solver_param_real(d, ps, "relax", 0.0, 2.0,
                                    NCP_PARAM_LO_OPEN | NCP_PARAM_HI_OPEN, &o->relax, err)) ||
        (rc = ncp_solver_param_real(d, ps, "eps_p", 0.0, INFINITY, 0, &o->eps_p, err)) ||
        (rc = ncp_solver_param_real(d, ps, "eps_d", 0.0, INFINITY, 0, &o->eps_d, err)) ||
        (rc = ncp_solver_param_real(d, ps, "eps_cp", 0.0, INFINITY, 0, &o->eps_cp, err)) ||
        (rc = ncp_solver_param_int(d, ps, "form", 0, 3, &o->form, err)) ||
        (rc = ncp_solver_param_int(d, ps, "k_factor", 0, 2, &o->k_factor, err)))
        return rc;
    return NCP_OK;
}

/* The iterations (Alg. 6 lines 3-19) on an allocated workspace. Returns an error code only when
 * a refactorisation fails. */
static int iterate(const ncp_solver_desc *d, const ncp_admm_prox_opts *o, const ncp_solve_in *in,
                   ncp_solve_out *out, ncp_run *run, admm_ws *w, ncp_error *err)
{
    const ncp_problem *p = in->prob;
    int m = p->m, rc = NCP_OK;
    double *x = w->x, *y = w->y, *z = w->z, *t = w->t;
    const double eta = o->eta;

    double rho, step;
    initial_rho(o, w, &rho, &step);
    double dscale = 0.0;
    for (int i = 0; i < m; i++) {
        double dii;
        ncp_dop_diag_block(&w->ls.op, i, 1, &dii);
        dscale = fmax(dscale, dii + w->comp[i]);
    }
    if (!(dscale > 0.0) || !isfinite(dscale)) dscale = 1.0;
    const double rho_lo = 1e-12 * dscale, rho_hi = 1e12 * dscale;
    if ((rc = factor(d, w, rho + eta, err))) return rc;

    /* start: x0 = lambda0, y0 = Pi_K(x0), z0 = Pi_K*(w + Gamma(w)), w = Deff y0 + vfe */
    if (in->lambda0) ncp_copy(m, in->lambda0, x);
    project_primal(p, x, y);
    deff_velocity(w, p, y, z);
    if (o->desaxce) add_gamma(p, z, 1.0, z);
    project_dual(p, z, z);

    int status = -1, k = 0;
    char route[160];
    ncp_dshift_describe(&w->ls, route, sizeof route);
    ncp_run_note(run, "%s", route);
    if (ncp_run_setup_done(run) == 0) {
        for (k = 1;; k++) {
            ncp_copy(m, x, w->xp);
            ncp_copy(m, y, w->yp);
            /* x-update (168): Deff_rho x = -(vfe + s) + eta x_prev + rho y_prev + z_prev, the
             * system of dshift.h with q = -soft - s + eta x_prev + rho y_prev + z_prev */
            for (int i = 0; i < m; i++) x[i] = -w->soft[i] + eta * x[i] + rho * y[i] + z[i];
            if (o->desaxce) add_gamma(p, z, -1.0, x);
            if ((rc = ncp_dshift_solve(&w->ls, x, x, w->v, err))) break;
            /* y-update (169) with the over-relaxed xr, then the dual update (167d) */
            for (int i = 0; i < m; i++) {
                double xr = o->relax * x[i] + (1.0 - o->relax) * w->yp[i];
                t[i] = xr;
                y[i] = xr - z[i] / rho;
            }
            project_primal(p, y, y);
            for (int i = 0; i < m; i++) z[i] -= rho * (t[i] - y[i]);
            /* residuals (170a-c) */
            double rp = 0.0, rd = 0.0;
            for (int i = 0; i < m; i++) {
                rp = fmax(rp, fabs(x[i] - y[i]));
                rd = fmax(rd, fabs(rho * (y[i] - w->yp[i]) + eta * (x[i] - w->xp[i])));
            }
            double rcp = compl_residual(p, x, z);
            int done = rp <= o->eps_p && rd <= o->eps_d && rcp <= o->eps_cp;
            if (ncp_solver_iter_end(run, k, m, y, done, &status)) break;
            /* penalty update (171) / (172), refactorising when it changed (Alg. 6 line 18) */
            double nr = adapt_rho(o, rho, step, rp, rd);
            if (nr != rho) nr = fmin(rho_hi, fmax(rho_lo, nr)); /* only a change is clamped */
            if (nr != rho) {
                rho = nr;
                if ((rc = factor(d, w, rho + eta, err))) break;
            }
        }
    }
    ncp_solver_finish(out, m, y, k, status);
    return rc;
}

int ncp_admm_prox_solve(const ncp_solver_desc *d, const ncp_admm_prox_opts *o,
                      const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run,
                      ncp_error *err)
{
    const ncp_problem *p = in->prob;
    int rc = ncp_solver_need_dual_op(d, p, err);
    if (rc) return rc;
    admm_ws w;
    prox_costctx cc = {o->rule != NCP_ADMM_PROX_FIXED, in->budget.max_iter};
    /* Woodbury allowed: every row's shift is rho + eta (+ a compliance), none tiny by design */
    ncp_dshift_opts lo = {NULL, o->form, o->k_factor, 1, prox_cost, &cc};
    if ((rc = ws_alloc(&w, p, err)) == NCP_OK &&
        (rc = ncp_dshift_init(&w.ls, d->name, p, &lo, err)) == NCP_OK) {
        if (w.ls.unsupported) { /* the dense form above its row limit: the reason is in err */
            out->status = NCP_STATUS_UNSUPPORTED;
            out->iterations = 0;
        } else if (!(w.v = ncp_calloc(err, (size_t)w.ls.nv + 1, sizeof(double)))) {
            rc = NCP_ERR_NOMEM;
        } else {
            effective_problem(w.ls.p, &w);
            rc = iterate(d, o, in, out, run, &w, err);
        }
    }
    ws_free(&w);
    return rc;
}
