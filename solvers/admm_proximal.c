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
 *   Each change refactorises D + C + (rho + eta) I (C: the soft compliances below) through the
 *   shared Delassus operator (core/dop.h): dense Cholesky, O(m^3), or, when D = F F^T is of low
 *   rank, Woodbury's rank x rank capacitance matrix, O(m rank^2). Adaptation does not
 *   move rho out of [1e-12 s, 1e12 s], s = the largest diagonal entry of D (1 if none is
 *   positive), so D_rho stays factorisable in floating point; the paper sets no bound (only
 *   diverging runs reach it). A user's fixed rho is used as given.
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
 * Needs: dual (D, v_f). Memory: the Cholesky factor of D + C + (rho + eta) I (m x m), or with a
 * low-rank D its factor F (m x rank). Solves the NCP (desaxce) or the CCP.
 */
#include "solvers/admm_proximal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/admm_common.h"
#include "solvers/common.h"
#include "core/cone.h"
#include "core/la.h"

typedef struct admm_ws {
    int m;
    ncp_dop op;      /* D, dense or low rank (core/dop.h) */
    double *comp;    /* m: soft compliances 1/c, else 0 (Deff = D + diag(comp)) */
    double *sh;      /* m: comp + rho + eta, the diagonal shift being factorised */
    ncp_dop_shift L; /* Deff + (rho + eta) I, factorised */
    double *vfe;     /* v_f + soft terms */
    double *x, *y, *z, *xp, *yp, *t;
} admm_ws;

/* y = Deff x = D x + comp x. */
static void deff_apply(admm_ws *w, const double *x, double *y)
{
    ncp_dop_apply(&w->op, 1.0, x, 0.0, y);
    for (int i = 0; i < w->m; i++) y[i] += w->comp[i] * x[i];
}

/* Deff for ncp_power_lmax (SA's L). */
static void deff_power(void *ctx, const double *x, double *y) { deff_apply(ctx, x, y); }

static void ws_free(admm_ws *w)
{
    ncp_dop_shift_free(&w->L);
    ncp_dop_free(&w->op);
    free(w->comp);
    free(w->sh);
    free(w->vfe);
    free(w->x);
    free(w->y);
    free(w->z);
    free(w->xp);
    free(w->yp);
    free(w->t);
}

static int ws_alloc(admm_ws *w, const ncp_problem *p, ncp_error *err)
{
    memset(w, 0, sizeof *w);
    int m = w->m = p->m;
    double **v[] = {&w->comp, &w->sh, &w->vfe, &w->x, &w->y, &w->z, &w->xp, &w->yp, &w->t};
    int ok = 1;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        *v[i] = ncp_calloc(err, (size_t)m, sizeof(double));
        ok = ok && *v[i];
    }
    if (!ok) return NCP_ERR_NOMEM;
    return ncp_dop_init(&w->op, p, NCP_DOP_AUTO, err);
}

/* A soft row with c > 0 becomes a compliant bilateral row, c = 0 is the fixed value -k phi (the
 * same split as ncp_block_project in common.h). */
static int soft_compliant(const ncp_block *b) { return b->c > 0.0; }

/* Deff = D + diag(comp), comp = 1/c on compliant soft rows; vfe = v_f + k phi / c there. */
static void effective_problem(const ncp_problem *p, admm_ws *w)
{
    ncp_copy(p->m, p->vf, w->vfe);
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        if (b->type != NCP_SOFT || !soft_compliant(b)) continue;
        int r = b->row;
        w->comp[r] = 1.0 / b->c;
        w->vfe[r] += b->k * b->phi / b->c;
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

/* L = Deff + shift I = D + diag(comp + shift), factorised. */
static int factor(const ncp_solver_desc *d, admm_ws *w, double shift, ncp_error *err)
{
    int m = w->m;
    if (m == 0) return NCP_OK;
    for (int i = 0; i < m; i++) w->sh[i] = w->comp[i] + shift;
    ncp_dop_shift_free(&w->L);
    int rc = ncp_dop_shift_factor(&w->op, w->sh, &w->L, err);
    if (rc) ncp_error_prefix(err, "%s: D + (rho + eta) I with rho + eta = %g: ", d->name, shift);
    return rc;
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
        (rc = ncp_solver_param_real(d, ps, "eps_cp", 0.0, INFINITY, 0, &o->eps_cp, err)))
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
    for (int i = 0; i < m; i++) dscale = fmax(dscale, p->D[i + (size_t)i * m] + w->comp[i]);
    if (!(dscale > 0.0) || !isfinite(dscale)) dscale = 1.0;
    const double rho_lo = 1e-12 * dscale, rho_hi = 1e12 * dscale;
    if ((rc = factor(d, w, rho + eta, err))) return rc;

    /* start: x0 = lambda0, y0 = Pi_K(x0), z0 = Pi_K*(w + Gamma(w)), w = Deff y0 + vfe */
    if (in->lambda0) ncp_copy(m, in->lambda0, x);
    project_primal(p, x, y);
    deff_apply(w, y, z);
    ncp_axpy(m, 1.0, w->vfe, z);
    if (o->desaxce) add_gamma(p, z, 1.0, z);
    project_dual(p, z, z);

    int status = -1, k = 0;
    ncp_note_dop(run, &w->op);
    if (ncp_run_setup_done(run) == 0) {
        for (k = 1;; k++) {
            ncp_copy(m, x, w->xp);
            ncp_copy(m, y, w->yp);
            /* x-update (168): rhs = -(vfe + s) + eta x_prev + rho y_prev + z_prev */
            for (int i = 0; i < m; i++) x[i] = -w->vfe[i] + eta * x[i] + rho * y[i] + z[i];
            if (o->desaxce) add_gamma(p, z, -1.0, x);
            if (m > 0) ncp_dop_shift_solve(&w->L, x, x);
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
    int rc = ncp_solver_need_dual(d, p, err);
    if (rc) return rc;
    /* every iteration solves with the m x m factor of D + diag(...) on the dense route: declined
     * (UNSUPPORTED, with the reason) above the admm family's row limit, where the factorisation
     * alone would take hours (Tasora et al. 2021's wrecking ball: 13 260 rows at step 1) */
    if (p->m > NCP_ADMM_DENSE_MAX_ROWS) {
        ncp_error_set(err, NCP_ERR_INPUT,
                      "%s: needs the dense Cholesky factor of the %d x %d matrix D + (rho + eta) I "
                      "(%.2g flops, %.2g GiB), above the %d-row limit of the dense ADMM forms",
                      d->name, p->m, p->m, (double)p->m * p->m * p->m / 3.0,
                      8.0 * (double)p->m * p->m / 1073741824.0, NCP_ADMM_DENSE_MAX_ROWS);
        out->status = NCP_STATUS_UNSUPPORTED;
        out->iterations = 0;
        return NCP_OK;
    }
    admm_ws w;
    if ((rc = ws_alloc(&w, p, err)) == NCP_OK) {
        effective_problem(p, &w);
        rc = iterate(d, o, in, out, run, &w, err);
    }
    ws_free(&w);
    return rc;
}
