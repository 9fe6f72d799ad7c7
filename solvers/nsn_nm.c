/* nsn-nm — semismooth Newton on the natural map of the NCP (Siconos NSN_NM style).
 *
 * Source: Acary, Brémond, Huber, "On solving contact problems with Coulomb friction:
 * formulations and numerical comparisons" (2018, INRIA RR-9118), the NSN-NM solver (Siconos
 * fc3d id 520, fc3d_nonsmooth_Newton_NaturalMap); see shared/research/anchors-peers.md §2.
 * Equation solved, per block with u = D lambda + v_f (metrics/metrics.h conventions):
 *   contact    F_k = lambda_k - Pi_K(x_k),  x_k = lambda_k - rho_k (u_k + Gamma(u_k))
 *              (seed 004 eq. 163 with a step rho_k; any rho_k > 0 has the same zeros)
 *   bilateral  F_r = rho_r u_r                                  (= lambda - Pi_R(lambda - rho u))
 *   unilateral F_r = lambda_r - max(0, lambda_r - rho_r u_r)
 *   soft       F_r = lambda_r + k phi + c u_r                   (the row's own law)
 * Generalised Jacobian (one element of the B-subdifferential), with G = dPi_K/dx from
 * ncp_cone_project_jacobian (seed 000 eq. 23) and dGamma/du = [0, mu u_t^T/||u_t||; 0, 0]:
 *   contact    dF_k = (I - G) E_k + rho_k G (I + dGamma/du) D_k.
 *              At u_t = 0, Gamma is not differentiable; we pick the element 0 (so dGamma/du = 0).
 *   bilateral  rho D_r;  unilateral rho D_r if lambda - rho u > 0 else e_r (at the kink we pick
 *              e_r);  soft e_r + c D_r.
 *
 * Globalisation: Armijo backtracking (halving) on theta = 1/2 ||F||^2 with sufficient decrease
 * `armijo`, nonmonotone (Grippo, Lampariello, Lucidi 1986): the reference is the largest theta of
 * the last `nonmonotone` iterations, which lets the full Newton step cross the kinks of F.
 *   1. Newton: J d = -F by LU (ncp_lu_solve). Used if the LU succeeds, d is finite and a descent
 *      direction (F^T J d < 0) and the line search succeeds within `newton_ls` halvings.
 *   2. Otherwise Levenberg–Marquardt: (J^T J + delta I) d = -J^T F by Cholesky, delta = ||F||
 *      (Fan & Yuan 2005, for smooth F: quadratic under a local error bound even when the
 *      solutions are not isolated, the usual case here since D is often rank-deficient); delta
 *      x100, up to 4 times, when its line search (`lm_ls` halvings) fails.
 *   3. Stagnation (both fail, or theta has not dropped below 0.1x its value `window` Newton/LM
 *      iterations ago): a burst of projected Gauss–Seidel sweeps (ncp_pgs_sweep, the pgs update:
 *      omega 1, one step 1/lambda_max(D_kk) per contact), `pgs_burst` of them the first time and
 *      twice as many each later time; then Newton resumes with a fresh nonmonotone history.
 *      theta is not a merit function of the nonmonotone Coulomb NCP: on random rank-deficient
 *      problems Newton and LM can settle in a local minimum of theta that is not a zero, which
 *      Gauss–Seidel, not looking at theta, leaves. Each sweep is one reported iteration.
 *   If neither a Newton/LM step nor a sweep changes lambda (sweep change <= 1e-15 max(1,
 *   ||lambda||_inf)), the solver stops with STALLED.
 * Per-block rho: rho_k = rho_scale / lambda_max(D_kk) for contacts, rho_scale / D_rr for scalar
 * rows (a diagonal below 1e-14 of the largest uses the largest instead), so the rows of J are
 * O(1) whatever the mass scale.
 *
 * Parameters (defaults): rho_scale 1, armijo 1e-4, newton_ls 10, lm_ls 30, nonmonotone 10,
 * window 10, pgs_burst 10.
 * Needs: dual (D, v_f); a dense m x m Jacobian and an LU per iteration (O(m^3)). Solves the NCP.
 */
#include <math.h>
#include <stdlib.h>

#include "common.h"
#include "cone.h"
#include "la.h"
#include "registry.h"

static const ncp_param_doc nsn_params[] = {
    {"rho_scale", 1.0, "natural-map step: rho_k = rho_scale / lambda_max(D_kk) (> 0)"},
    {"armijo", 1e-4, "Armijo sufficient-decrease constant on 1/2||F||^2, in (0, 0.5)"},
    {"newton_ls", 10.0, "max step halvings for the Newton direction before falling back to LM"},
    {"lm_ls", 30.0, "max step halvings for the Levenberg-Marquardt direction"},
    {"nonmonotone", 10.0, "Armijo reference = max theta over this many last iterations (1..64)"},
    {"window", 10.0,
     "Newton/LM iterations within which theta must drop 10x, else a Gauss-Seidel burst"},
    {"pgs_burst", 10.0, "Gauss-Seidel sweeps in the first stagnation burst (doubled each time)"},
    {NULL, 0.0, NULL},
};

typedef struct nsn_ws {
    int m;
    double *rho;           /* per block: natural-map step */
    double *gs;            /* per block: Gauss-Seidel step 1/D_rr or 1/lambda_max(D_kk); 0 = skip */
    double *lam, *u, *F;   /* current iterate */
    double *lt, *ut, *Ft;  /* trial iterate */
    double *d, *Jd;        /* direction and J d */
    double *Jm;            /* m x m generalised Jacobian */
    double *W;             /* m x m work: LU copy or J^T J + delta I */
    int *ipiv;
    double theta_ref;      /* nonmonotone reference: max theta over the last iterations */
} nsn_ws;

static void nsn_ws_free(nsn_ws *w)
{
    free(w->rho);
    free(w->gs);
    free(w->lam);
    free(w->u);
    free(w->F);
    free(w->lt);
    free(w->ut);
    free(w->Ft);
    free(w->d);
    free(w->Jd);
    free(w->Jm);
    free(w->W);
    free(w->ipiv);
}

/* u = D lambda + v_f and F(lambda); returns theta = 1/2 ||F||^2. */
static double nsn_eval(const ncp_problem *p, const double *rho, const double *lam, double *u,
                       double *F)
{
    int m = p->m;
    ncp_copy(m, p->vf, u);
    ncp_gemv(0, m, m, 1.0, p->D, lam, 1.0, u);
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int r = b->row;
        switch (b->type) {
        case NCP_BILATERAL:
            F[r] = rho[bi] * u[r];
            break;
        case NCP_UNILATERAL:
            F[r] = lam[r] - fmax(0.0, lam[r] - rho[bi] * u[r]);
            break;
        case NCP_SOFT:
            F[r] = lam[r] + b->k * b->phi + b->c * u[r];
            break;
        case NCP_CONTACT: {
            double z[3], x[3], px[3];
            ncp_desaxce(b->mu, u + r, z);
            for (int i = 0; i < 3; i++) x[i] = lam[r + i] - rho[bi] * z[i];
            ncp_cone_project(b->mu, x, px);
            for (int i = 0; i < 3; i++) F[r + i] = lam[r + i] - px[i];
            break;
        }
        default:
            break;
        }
    }
    return 0.5 * ncp_dot(m, F, F);
}

/* Generalised Jacobian at (lam, u) into w->Jm (column-major m x m). */
static void nsn_jacobian(const ncp_problem *p, nsn_ws *w)
{
    int m = p->m;
    const double *D = p->D;
    double *Jm = w->Jm;
    ncp_zero(m * m, Jm);
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int r = b->row;
        double rho = w->rho[bi];
        switch (b->type) {
        case NCP_BILATERAL:
            for (int c = 0; c < m; c++) Jm[r + (size_t)c * m] = rho * D[r + (size_t)c * m];
            break;
        case NCP_UNILATERAL:
            if (w->lam[r] - rho * w->u[r] > 0.0)
                for (int c = 0; c < m; c++) Jm[r + (size_t)c * m] = rho * D[r + (size_t)c * m];
            else
                Jm[r + (size_t)r * m] = 1.0;
            break;
        case NCP_SOFT:
            for (int c = 0; c < m; c++) Jm[r + (size_t)c * m] = b->c * D[r + (size_t)c * m];
            Jm[r + (size_t)r * m] += 1.0;
            break;
        case NCP_CONTACT: {
            const double *uk = w->u + r;
            double z[3], x[3], G[9], M[9];
            ncp_desaxce(b->mu, uk, z);
            for (int i = 0; i < 3; i++) x[i] = w->lam[r + i] - rho * z[i];
            ncp_cone_project_jacobian(b->mu, x, G);
            /* M = G (I + dGamma/du); dGamma/du has the single row (0, mu t^T), t = u_t/|u_t|,
             * and is taken as 0 at u_t = 0 (see the header). */
            double st = hypot(uk[1], uk[2]);
            double h1 = st > 0.0 ? b->mu * uk[1] / st : 0.0;
            double h2 = st > 0.0 ? b->mu * uk[2] / st : 0.0;
            for (int i = 0; i < 3; i++) {
                M[i] = G[i];
                M[i + 3] = G[i + 3] + h1 * G[i];
                M[i + 6] = G[i + 6] + h2 * G[i];
            }
            for (int c = 0; c < m; c++) {
                const double *Dc = D + (size_t)c * m + r; /* D(r..r+2, c) */
                for (int i = 0; i < 3; i++)
                    Jm[r + i + (size_t)c * m] =
                        rho * (M[i] * Dc[0] + M[i + 3] * Dc[1] + M[i + 6] * Dc[2]);
            }
            for (int j = 0; j < 3; j++)
                for (int i = 0; i < 3; i++)
                    Jm[r + i + (size_t)(r + j) * m] += (i == j ? 1.0 : 0.0) - G[i + 3 * j];
            break;
        }
        default:
            break;
        }
    }
}

/* Armijo backtracking along w->d from the current iterate: accept the first t = 2^-j,
 * j <= max_halvings, with theta(lam + t d) <= ref + sigma t g (g = F^T J d < 0, ref = the
 * nonmonotone reference, at least theta). On success the trial becomes the current iterate. */
static int nsn_line_search(const ncp_problem *p, nsn_ws *w, double *theta, double g,
                           double sigma, int max_halvings)
{
    double ref = fmax(*theta, w->theta_ref);
    int m = p->m;
    double t = 1.0;
    for (int j = 0; j <= max_halvings; j++, t *= 0.5) {
        for (int i = 0; i < m; i++) w->lt[i] = w->lam[i] + t * w->d[i];
        double th = nsn_eval(p, w->rho, w->lt, w->ut, w->Ft);
        if (isfinite(th) && th <= ref + sigma * t * g) {
            double *s;
            s = w->lam; w->lam = w->lt; w->lt = s;
            s = w->u; w->u = w->ut; w->ut = s;
            s = w->F; w->F = w->Ft; w->Ft = s;
            *theta = th;
            return 1;
        }
    }
    return 0;
}

/* g = F^T J d; returns 1 if d is finite and a strict descent direction of theta. */
static int nsn_descent(nsn_ws *w, double *g)
{
    int m = w->m;
    if (!ncp_all_finite(m, w->d)) return 0;
    ncp_gemv(0, m, m, 1.0, w->Jm, w->d, 0.0, w->Jd);
    *g = ncp_dot(m, w->F, w->Jd);
    return isfinite(*g) && *g < 0.0;
}

/* Step 1: Newton by LU. */
static int nsn_newton(const ncp_problem *p, nsn_ws *w, double *theta, double sigma, int ls)
{
    int m = p->m;
    ncp_error e;
    ncp_error_clear(&e);
    ncp_copy(m * m, w->Jm, w->W); /* m <= 46340 checked in nsn_solve */
    for (int i = 0; i < m; i++) w->d[i] = -w->F[i];
    if (ncp_lu_solve(m, w->W, w->ipiv, 1, w->d, &e) != NCP_OK) return 0; /* singular: fall back */
    double g;
    if (!nsn_descent(w, &g)) return 0;
    return nsn_line_search(p, w, theta, g, sigma, ls);
}

/* Step 2: Levenberg–Marquardt on the normal equations, delta = ||F|| then x100. */
static int nsn_lm(const ncp_problem *p, nsn_ws *w, double *theta, double sigma, int ls)
{
    int m = p->m;
    double delta = sqrt(2.0 * *theta);
    for (int attempt = 0; attempt < 5; attempt++, delta *= 100.0) {
        ncp_error e;
        ncp_error_clear(&e);
        ncp_gemm(1, 0, m, m, m, 1.0, w->Jm, w->Jm, 0.0, w->W);
        for (int i = 0; i < m; i++) w->W[i + (size_t)i * m] += delta;
        ncp_gemv(1, m, m, -1.0, w->Jm, w->F, 0.0, w->d);
        if (ncp_chol_factor(m, w->W, &e) != NCP_OK) continue;
        if (ncp_chol_solve(m, w->W, 1, w->d, &e) != NCP_OK) continue;
        double g;
        if (!nsn_descent(w, &g)) continue;
        if (nsn_line_search(p, w, theta, g, sigma, ls)) return 1;
    }
    return 0;
}

/* Step 3: one projected Gauss–Seidel sweep (the pgs update with omega = 1, one local step per
 * contact; soft rows solved exactly), then u and theta recomputed exactly. Returns 1 if the sweep
 * changed lambda by more than 1e-15 max(1, ||lambda||_inf). */
static int nsn_gs_step(const ncp_problem *p, nsn_ws *w, double *theta)
{
    double change = ncp_pgs_sweep(p, w->gs, 1.0, 1, w->lam, w->u);
    int moved = change > 1e-15 * fmax(1.0, ncp_norminf(p->m, w->lam));
    *theta = nsn_eval(p, w->rho, w->lam, w->u, w->F);
    return moved;
}

enum { NSN_HIST = 64, NSN_MAX_BURST = 1 << 20 };

static int nsn_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    const ncp_solver_desc *self = &ncp_solver_nsn_nm;
    const ncp_problem *p = in->prob;
    double rho_scale, sigma;
    int newton_ls, lm_ls, nm, window, burst, rc;
    if ((rc = ncp_solver_param_real(self, in->params, "rho_scale", 0.0, INFINITY,
                                    NCP_PARAM_LO_OPEN, &rho_scale, err)) ||
        (rc = ncp_solver_param_real(self, in->params, "armijo", 0.0, 0.5,
                                    NCP_PARAM_LO_OPEN | NCP_PARAM_HI_OPEN, &sigma, err)) ||
        (rc = ncp_solver_param_int(self, in->params, "newton_ls", 0, 60, &newton_ls, err)) ||
        (rc = ncp_solver_param_int(self, in->params, "lm_ls", 0, 60, &lm_ls, err)) ||
        (rc = ncp_solver_param_int(self, in->params, "nonmonotone", 1, NSN_HIST, &nm, err)) ||
        (rc = ncp_solver_param_int(self, in->params, "window", 1, 1000000, &window, err)) ||
        (rc = ncp_solver_param_int(self, in->params, "pgs_burst", 1, NSN_MAX_BURST, &burst,
                                   err)) ||
        (rc = ncp_solver_need_dual(self, p, err)))
        return rc;
    int m = p->m;
    size_t mm = (size_t)m * (size_t)m;
    if (m > 46340) /* m * m must fit the int lengths of la.h */
        return ncp_error_set(err, NCP_ERR_NOMEM,
                             "nsn-nm: problem '%s' has m = %d rows; the dense m x m Newton "
                             "matrices (%.0f MB each) are out of reach, use a first-order solver",
                             p->name ? p->name : "?", m, (double)mm * 8.0 / 1e6);

    nsn_ws w = {0};
    w.m = m;
    w.rho = ncp_calloc(err, (size_t)p->nblocks, sizeof(double));
    w.gs = ncp_calloc(err, (size_t)p->nblocks, sizeof(double));
    w.lam = ncp_calloc(err, (size_t)m, sizeof(double));
    w.u = ncp_calloc(err, (size_t)m, sizeof(double));
    w.F = ncp_calloc(err, (size_t)m, sizeof(double));
    w.lt = ncp_calloc(err, (size_t)m, sizeof(double));
    w.ut = ncp_calloc(err, (size_t)m, sizeof(double));
    w.Ft = ncp_calloc(err, (size_t)m, sizeof(double));
    w.d = ncp_calloc(err, (size_t)m, sizeof(double));
    w.Jd = ncp_calloc(err, (size_t)m, sizeof(double));
    w.Jm = ncp_calloc(err, mm, sizeof(double));
    w.W = ncp_calloc(err, mm, sizeof(double));
    w.ipiv = ncp_calloc(err, (size_t)m, sizeof(int));
    if (!w.rho || !w.gs || !w.lam || !w.u || !w.F || !w.lt || !w.ut || !w.Ft || !w.d || !w.Jd ||
        !w.Jm || !w.W || !w.ipiv) {
        nsn_ws_free(&w);
        return NCP_ERR_NOMEM;
    }

    /* Gauss–Seidel steps and rho_k = rho_scale / lambda_max(D_kk) or / D_rr (the largest
     * diagonal entry where that is negligible), see ncp_block_steps. */
    if ((rc = ncp_block_steps(p, w.gs, w.rho, err))) {
        nsn_ws_free(&w);
        ncp_error_prefix(err, "nsn-nm: ");
        return rc;
    }
    for (int bi = 0; bi < p->nblocks; bi++) w.rho[bi] = rho_scale / w.rho[bi];

    if (in->lambda0) ncp_copy(m, in->lambda0, w.lam);
    double theta = nsn_eval(p, w.rho, w.lam, w.u, w.F);

    double hist[NSN_HIST]; /* theta of the last iterations, newest first */
    for (int i = 0; i < NSN_HIST; i++) hist[i] = theta;
    int burst_left = 0, since = 0, status = -1, k = 0;
    double theta_win = theta; /* theta at the start of the current stagnation window */
    if (ncp_run_setup_done(run) == 0) {
        for (k = 1;; k++) {
            int ok = 0;
            if (burst_left > 0) {
                ok = nsn_gs_step(p, &w, &theta);
                if (--burst_left == 0) { /* back to Newton with a fresh history */
                    for (int i = 0; i < NSN_HIST; i++) hist[i] = theta;
                    theta_win = theta;
                    since = 0;
                }
            } else if (theta > 0.0) {
                w.theta_ref = 0.0;
                for (int i = 0; i < nm; i++) w.theta_ref = fmax(w.theta_ref, hist[i]);
                nsn_jacobian(p, &w);
                ok = nsn_newton(p, &w, &theta, sigma, newton_ls) ||
                     nsn_lm(p, &w, &theta, sigma, lm_ls);
                since++;
                if (!ok || (since >= window && theta > 0.1 * theta_win)) {
                    burst_left = burst;
                    burst = burst < NSN_MAX_BURST / 2 ? 2 * burst : NSN_MAX_BURST;
                    if (!ok) { /* this iteration becomes the burst's first sweep */
                        ok = nsn_gs_step(p, &w, &theta);
                        burst_left--;
                    }
                } else if (since >= window) {
                    theta_win = theta;
                    since = 0;
                }
                for (int i = NSN_HIST - 1; i > 0; i--) hist[i] = hist[i - 1];
                hist[0] = theta;
            }
            if (!isfinite(theta)) { /* (a non-finite lambda: ncp_solver_iter_end) */
                status = NCP_STATUS_FAILED;
                break;
            }
            if (ncp_solver_iter_end(run, k, m, w.lam, !ok, &status)) break;
        }
    }
    ncp_solver_finish(out, m, w.lam, k, status);
    nsn_ws_free(&w);
    return NCP_OK;
}

const ncp_solver_desc ncp_solver_nsn_nm = {
    .name = "nsn-nm",
    .source = "Acary, Brémond, Huber 2018 (INRIA RR-9118), NSN-NM; Siconos fc3d id 520",
    .summary = "semismooth Newton on the natural map, Armijo + Levenberg-Marquardt safeguard",
    .needs = NCP_NEEDS_DUAL,
    .ccp = 0,
    .file = "solvers/nsn_nm.c",
    .params = nsn_params,
    .solve = nsn_solve,
};
