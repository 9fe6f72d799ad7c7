/* sap — the Semi-Analytic Primal solver of Castro et al. 2023 (Castro, Permenter, Han, "An Unconstrained
 * Convex Formulation of Compliant Contact", Algorithm 2, §IV-V).
 *
 * What it solves: NOT our NCP. SAP solves the compliant, regularised model of Castro et al. 2023 written
 * out in src/core/sap_model.h: the unconstrained strongly convex primal
 *     min_v l_p(v) = 1/2 ||v - v*||_A^2 + sum_b l_b(u_hat_b(v))                         (eq. 24)
 * whose optimum is the CCP  K_mu ∋ gamma ⊥ u_hat + R gamma ∈ K*_mu  per contact, with R from the
 * near-rigid parameter beta and sigma (eqs. 29-30), the stabilisation velocity v_hat = -phi0/(h +
 * tau_d) (§V-A) and the contact's stiffness k and dissipation tau_d (scene materials, captured in
 * ncp_contact_info). Non-contact rows: see sap_model.h. Our NCP metrics on its answer measure
 * the model gap (regularisation, and the CCP's missing De Saxce term when contacts slide); the
 * sap_momentum metric (eq. 32) measures SAP's own convergence. As beta, sigma -> 0 on a rigid
 * problem without sliding, the answer tends to the NCP solution (tests/test_sap.c measures it).
 *
 * Algorithm (primal, used when A and J are present):
 *   v <- v_guess: the warm start v0 if given, else A^{-1}(b + J^T lambda0), else v* (lambda = 0).
 *   repeat: u_hat = J v + e + shift; gamma = P_F(y(u_hat)) and G per block (App. C-D);
 *     grad = A (v - v*) - J^T gamma; stop when eq. 26 holds:
 *       ||D_s grad|| < abs_tol + rel_tol max(||D_s A v||, ||D_s J^T gamma||), D_s = diag(A)^{-1/2}
 *     (the paper's diag(M)^{-1/2}; A = M for rigid bodies). Otherwise Newton:
 *     H = A + J^T G J (Cholesky), dv = -H^{-1} grad, exact line search, v += alpha dv.
 *   H is dense for small problems; it is kept sparse (solvers/sap_sparse.h: A's blocks plus
 *   J_b^T G_b J_b, the pattern ordered and analysed once per solve, refactorised per Newton
 *   step; the paper's §IV-D exploits the same structure with a supernodal factorisation) when the
 *   problem keeps A sparse (the capture's block route above 600 dofs, FCLib's M) or, with a
 *   dense A, when the sparse factorisation is at least 4x cheaper in flops, at any size
 *   (parameter sparse; recorded in the row's note). Both forms give the same iterates up to round-off (tests/test_sap.c).
 * Contact space (dual-only problems, or contact_space = 1; derived, not in the paper):
 *   with v = v* + A^{-1} J^T lambda, l(lambda) = 1/2 lambda^T D lambda + sum_b l_b(D lambda + v_f +
 *   shift); the primal Newton direction mapped to lambda is (I + G D) dlambda = gamma - lambda
 *   (push-through identity; LU, since I + G D is not symmetric), the same exact line search; the
 *   stopping test is eq. 26 at v(lambda) (ncp_sap_momentum_parts: with the primal data if present,
 *   else in the canonical form A = I, J = L^T of docs/design.md; its extra ||D_s J^T lambda|| in
 *   the scale is immaterial here, lambda -> gamma). Warm start: lambda0.
 * Exact line search (§IV-B,C): rtsafe (Numerical Recipes §9.4: Newton with bisection fallback
 *   inside a bracket) on dl/dalpha over [0, alpha_max = 1.5] (Drake's alpha_max; the paper gives
 *   none), using l'(alpha) = q1 + alpha q2 - du_hat^T gamma(alpha), l'' = q2 + du_hat^T G du_hat,
 *   O(m) per evaluation; alpha_max is taken when l is still decreasing there; iterated to
 *   |dalpha| <= 1e-14 alpha (machine precision, as the paper prefers), at most 100 evaluations.
 * Stopping: eq. 26 is SAP's own convergence test; solver.h has no status for "converged by the
 *   solver's own test", so sap then stops with STALLED; the harness's common (NCP) metric alone
 *   decides `converged`. Also stops (STALLED) on Drake's round-off stagnation test
 *   |l_new - l_old| < 1e-30 + 1e-15 (|l_new| + |l_old|)/2 after a step with alpha > 0.5, and when
 *   the Newton direction is not a descent direction (round-off).
 * Iterations: one Newton step (one factorisation) each. A guess that already passes eq. 26 (the
 *   paper counts 0 iterations) is reported once as iteration 1, so the harness records SAP's
 *   gamma(v_guess), with the note "0 Newton steps" (scripts/bench_scaling.py). The reported
 *   iterate is gamma(v) and, on the primal path, SAP's own v.
 *
 * Parameters (defaults): beta 1, sigma 1e-3 (the paper's values for all its simulations), rel_tol
 *   1e-6 (Drake's default; the paper uses 1e-5 .. 1e-3), abs_tol 1e-16 (the paper's epsilon_a),
 *   contact_space 0.
 * Needs: D's operator (core/dop.h) for the regularisation w = ||W_ii||/3 (its diagonal blocks),
 *   and the dense D only on the contact-space path (built in the setup when the problem keeps
 *   none); uses the primal A (dense or A_sparse), b, J, e when present. On the primal path no
 *   m x m array is made. Solves SAP's CCP model (ccp = 1), neither our NCP nor its plain CCP
 *   relaxation.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/common.h"
#include "core/la.h"
#include "core/sparse_chol.h"
#include "solvers/registry.h"
#include "solvers/sap_sparse.h"
#include "core/sap_model.h"

static const ncp_param_doc sap_params[] = {
    {"beta", NCP_SAP_BETA,
     "near-rigid time scale T_n = beta h: R_n >= beta^2/(4 pi^2) w (eq. 29), > 0"},
    {"sigma", NCP_SAP_SIGMA, "friction regularisation R_t = sigma w (eq. 30), > 0"},
    {"rel_tol", 1e-6, "epsilon_r of SAP's own stopping test (eq. 26), in (0, 1)"},
    {"abs_tol", 1e-16, "epsilon_a of eq. 26 (units sqrt(J)), >= 0"},
    {"contact_space", 0.0,
     "0: Newton on v when A, J are present (the paper), 1: Newton on the contact impulses"},
    {"sparse", -1.0,
     "Newton matrix A + J^T G J: 0 dense Cholesky, 1 sparse (fixed pattern, analysed once), -1 "
     "sparse when A is kept sparse, or when the sparse factor needs 4x fewer flops"},
    {NULL, 0.0, NULL},
};

enum { SAP_LS_MAX = 100 };
/* -1 (auto) takes the sparse Newton matrix for a dense A when its factorisation needs
 * SAP_SPARSE_GAIN times fewer flops than the dense one (nv^3/3), the up-looking kernel's indirect
 * addressing being slower per flop than LAPACK's (no size threshold: the choice is continuous in
 * the flops); a problem whose A is kept sparse always. */
static const double SAP_SPARSE_GAIN = 4.0;
static const double SAP_ALPHA_MAX = 1.5;

typedef struct sap_ws {
    const ncp_problem *p;
    ncp_sap_model sm;
    int m, nv, primal;
    double *uh, *gam, *G9; /* u_hat, gamma(u_hat), block Hessians at the iterate */
    double *duh;           /* direction in u_hat */
    double *ut, *gt;       /* line-search scratch */
    double q1, q2;         /* quadratic part of l along the direction: q1 alpha + q2 alpha^2/2 */
    /* primal */
    double *LA, *vs, *v, *dv, *dp, *Av, *jc, *grad, *H, *Adiag;
    /* primal, sparse Newton matrix: A as CSR (the problem's A_sparse, or own: from dense A),
     * A's factor for v* and the fixed-pattern H */
    int sparse;
    const ncp_csr *As;
    ncp_csr Aown;
    ncp_sparse_chol *FA;
    ncp_sap_hess hs;
    /* contact space */
    double *lam, *dl, *Dl, *M;
    int *ipiv;
    ncp_problem dview; /* the contact-space path on a problem without D: p with D built for
                          the solve (ncp_problem_dual_view; setup), D_own its allocation */
    double *D_own;
    double cost, num, den; /* l and the two sides of eq. 26 at the iterate */
} sap_ws;

static void sap_ws_free(sap_ws *w)
{
    ncp_sap_model_free(&w->sm);
    free(w->uh);
    free(w->gam);
    free(w->G9);
    free(w->duh);
    free(w->ut);
    free(w->gt);
    free(w->LA);
    free(w->vs);
    free(w->v);
    free(w->dv);
    free(w->dp);
    free(w->Av);
    free(w->jc);
    free(w->grad);
    free(w->H);
    free(w->Adiag);
    ncp_csr_free(&w->Aown);
    ncp_sparse_chol_free(w->FA);
    ncp_sap_hess_free(&w->hs);
    free(w->lam);
    free(w->dl);
    free(w->Dl);
    free(w->M);
    free(w->ipiv);
    free(w->D_own);
}

static int sap_ws_alloc(sap_ws *w, ncp_error *err)
{
    size_t m = (size_t)w->m, nv = (size_t)w->nv, nb = (size_t)w->p->nblocks;
    w->uh = ncp_calloc(err, m, sizeof(double));
    w->gam = ncp_calloc(err, m, sizeof(double));
    w->G9 = ncp_calloc(err, 9 * nb, sizeof(double));
    w->duh = ncp_calloc(err, m, sizeof(double));
    w->ut = ncp_calloc(err, m, sizeof(double));
    w->gt = ncp_calloc(err, m, sizeof(double));
    if (!w->uh || !w->gam || !w->G9 || !w->duh || !w->ut || !w->gt) return NCP_ERR_NOMEM;
    if (w->primal) {
        if (!w->sparse) {
            w->LA = ncp_calloc(err, nv * nv, sizeof(double));
            w->H = ncp_calloc(err, nv * nv, sizeof(double));
            if (!w->LA || !w->H) return NCP_ERR_NOMEM;
        }
        w->Adiag = ncp_calloc(err, nv, sizeof(double));
        w->vs = ncp_calloc(err, nv, sizeof(double));
        w->v = ncp_calloc(err, nv, sizeof(double));
        w->dv = ncp_calloc(err, nv, sizeof(double));
        w->dp = ncp_calloc(err, nv, sizeof(double));
        w->Av = ncp_calloc(err, nv, sizeof(double));
        w->jc = ncp_calloc(err, nv, sizeof(double));
        w->grad = ncp_calloc(err, nv, sizeof(double));
        if (!w->Adiag || !w->vs || !w->v || !w->dv || !w->dp || !w->Av || !w->jc || !w->grad)
            return NCP_ERR_NOMEM;
    } else {
        w->lam = ncp_calloc(err, m, sizeof(double));
        w->dl = ncp_calloc(err, m, sizeof(double));
        w->Dl = ncp_calloc(err, m, sizeof(double));
        w->M = ncp_calloc(err, m * m, sizeof(double));
        w->ipiv = ncp_calloc(err, m, sizeof(int));
        if (!w->lam || !w->dl || !w->Dl || !w->M || !w->ipiv) return NCP_ERR_NOMEM;
    }
    return NCP_OK;
}

/* ---------- evaluation at the iterate ---------- */

/* Primal: u_hat, gamma, G, grad = A v - b - J^T gamma (A v* = b), cost and eq. 26's sides. */
static void eval_primal(sap_ws *w)
{
    const ncp_problem *p = w->p;
    int m = w->m, nv = w->nv;
    ncp_csr_gemv(&p->J, 1.0, w->v, 0.0, w->uh);
    for (int i = 0; i < m; i++) w->uh[i] += p->e[i] + w->sm.shift[i];
    double lr = ncp_sap_eval(p, &w->sm, w->uh, w->gam, w->G9);
    if (w->sparse) ncp_csr_gemv(w->As, 1.0, w->v, 0.0, w->Av);
    else ncp_gemv(0, nv, nv, 1.0, p->A, w->v, 0.0, w->Av);
    ncp_csr_gemv_t(&p->J, 1.0, w->gam, 0.0, w->jc);
    double quad = 0.0, g2 = 0.0, p2 = 0.0, c2 = 0.0;
    for (int i = 0; i < nv; i++) {
        double az = w->Av[i] - p->b[i]; /* A (v - v*) */
        w->grad[i] = az - w->jc[i];
        quad += (w->v[i] - w->vs[i]) * az;
        double a = w->Adiag[i];
        double ds2 = a > 0.0 ? 1.0 / a : 1.0; /* D_s^2 = diag(A)^{-1} (eq. 25) */
        g2 += ds2 * w->grad[i] * w->grad[i];
        p2 += ds2 * w->Av[i] * w->Av[i];
        c2 += ds2 * w->jc[i] * w->jc[i];
    }
    w->cost = 0.5 * quad + lr;
    w->num = sqrt(g2);
    w->den = sqrt(fmax(p2, c2));
}

/* Contact space: u_hat = D lambda + v_f + shift, gamma, G, cost and eq. 26 at v(lambda). */
static void eval_dual(sap_ws *w)
{
    const ncp_problem *p = w->p;
    int m = w->m;
    ncp_gemv(0, m, m, 1.0, p->D, w->lam, 0.0, w->Dl);
    for (int i = 0; i < m; i++) w->uh[i] = w->Dl[i] + p->vf[i] + w->sm.shift[i];
    double lr = ncp_sap_eval(p, &w->sm, w->uh, w->gam, w->G9);
    w->cost = 0.5 * ncp_dot(m, w->lam, w->Dl) + lr;
    ncp_sap_momentum_parts(p, &w->sm, w->lam, w->gam, &w->num, &w->den);
}

/* ---------- exact line search (§IV-B, C) ---------- */

/* l'(alpha) and l''(alpha) along the current direction. */
static void ls_eval(sap_ws *w, double alpha, double *d1, double *d2)
{
    const ncp_problem *p = w->p;
    double a = w->q1 + alpha * w->q2, b = w->q2;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *bk = &p->blocks[bi];
        int r = bk->row, s = ncp_block_type_size(bk->type);
        double G[9];
        for (int i = 0; i < s; i++) w->ut[r + i] = w->uh[r + i] + alpha * w->duh[r + i];
        ncp_sap_block(p, &w->sm, bi, w->ut + r, w->gt + r, G);
        for (int i = 0; i < s; i++) {
            a -= w->duh[r + i] * w->gt[r + i];
            for (int j = 0; j < s; j++) b += w->duh[r + i] * G[i + s * j] * w->duh[r + j];
        }
    }
    *d1 = a;
    *d2 = b;
}

/* Root of l'(alpha) on [0, alpha_max] by rtsafe. Returns -1 if the direction is not a descent
 * direction (l'(0) >= 0: only round-off can cause it, l is strictly convex). */
static double line_search(sap_ws *w)
{
    double d0 = w->q1 - ncp_dot(w->m, w->duh, w->gam); /* l'(0) = grad^T d */
    if (!(d0 < 0.0)) return -1.0;
    double f, fp;
    ls_eval(w, SAP_ALPHA_MAX, &f, &fp);
    if (f <= 0.0) return SAP_ALPHA_MAX; /* still descending at alpha_max */
    double lo = 0.0, hi = SAP_ALPHA_MAX;
    double a = 1.0; /* the Newton step: the minimiser when l is quadratic along d */
    double dx = hi - lo, dxold = dx;
    ls_eval(w, a, &f, &fp);
    for (int it = 0; it < SAP_LS_MAX; it++) {
        if (f == 0.0) break;
        if (f < 0.0) lo = a;
        else hi = a;
        /* Newton leaves the bracket, or does not halve the step: bisect (rtsafe). */
        if (!(fp > 0.0) || ((a - hi) * fp - f) * ((a - lo) * fp - f) > 0.0 ||
            fabs(2.0 * f) > fabs(dxold * fp)) {
            dxold = dx;
            dx = 0.5 * (hi - lo);
            a = lo + dx;
        } else {
            dxold = dx;
            dx = f / fp;
            a -= dx;
        }
        if (fabs(dx) <= 1e-14 * a || hi - lo <= 1e-14 * hi) break;
        ls_eval(w, a, &f, &fp);
    }
    return a;
}

/* ---------- Newton steps ---------- */

/* The direction's quadratic terms along dv and du_hat = J dv. */
static void direction_terms(sap_ws *w)
{
    const ncp_problem *p = w->p;
    int nv = w->nv;
    if (w->sparse) ncp_csr_gemv(w->As, 1.0, w->dv, 0.0, w->dp);
    else ncp_gemv(0, nv, nv, 1.0, p->A, w->dv, 0.0, w->dp);
    ncp_csr_gemv(&p->J, 1.0, w->dv, 0.0, w->duh);
    w->q1 = 0.0;
    for (int i = 0; i < nv; i++) w->q1 += w->dp[i] * (w->v[i] - w->vs[i]);
    w->q2 = ncp_dot(nv, w->dv, w->dp);
}

/* H = A + J^T G J, dv = -H^{-1} grad; then the direction's quadratic terms and du_hat = J dv. */
static int newton_primal(sap_ws *w, ncp_error *err)
{
    const ncp_problem *p = w->p;
    int nv = w->nv;
    const ncp_csr *J = &p->J;
    if (w->sparse) {
        int rc = ncp_sap_hess_factor(&w->hs, p, w->G9, err);
        if (rc) return ncp_error_prefix(err, "sap: Newton matrix: ");
        for (int i = 0; i < nv; i++) w->dv[i] = -w->grad[i];
        ncp_sap_hess_solve(&w->hs, w->dv);
        direction_terms(w);
        return NCP_OK;
    }
    memcpy(w->H, p->A, (size_t)nv * nv * sizeof(double));
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *bk = &p->blocks[bi];
        int r = bk->row, s = ncp_block_type_size(bk->type);
        const double *G = w->G9 + 9 * (size_t)bi;
        for (int i = 0; i < s; i++)
            for (int j = 0; j < s; j++) {
                double g = G[i + s * j];
                if (g == 0.0) continue;
                for (int ka = J->rowptr[r + i]; ka < J->rowptr[r + i + 1]; ka++) {
                    double ga = g * J->val[ka];
                    double *Hc = w->H + (size_t)J->col[ka]; /* row J->col[ka] of H */
                    for (int kb = J->rowptr[r + j]; kb < J->rowptr[r + j + 1]; kb++)
                        Hc[(size_t)J->col[kb] * nv] += ga * J->val[kb];
                }
            }
    }
    int rc = ncp_chol_factor(nv, w->H, err);
    for (int i = 0; i < nv; i++) w->dv[i] = -w->grad[i];
    if (!rc) rc = ncp_chol_solve(nv, w->H, 1, w->dv, err);
    if (rc) return ncp_error_prefix(err, "sap: Newton matrix A + J^T G J: ");
    direction_terms(w);
    return NCP_OK;
}

/* (I + G D) dlambda = gamma - lambda; du_hat = D dlambda. */
static int newton_dual(sap_ws *w, ncp_error *err)
{
    const ncp_problem *p = w->p;
    int m = w->m;
    const double *D = p->D;
    double *M = w->M;
    memset(M, 0, (size_t)m * m * sizeof(double));
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *bk = &p->blocks[bi];
        int r = bk->row, s = ncp_block_type_size(bk->type);
        const double *G = w->G9 + 9 * (size_t)bi;
        for (int c = 0; c < m; c++) {
            const double *Dc = D + (size_t)c * m + r; /* D(r.., c) */
            for (int i = 0; i < s; i++) {
                double x = 0.0;
                for (int j = 0; j < s; j++) x += G[i + s * j] * Dc[j];
                M[r + i + (size_t)c * m] = x;
            }
        }
    }
    for (int i = 0; i < m; i++) {
        M[i + (size_t)i * m] += 1.0;
        w->dl[i] = w->gam[i] - w->lam[i];
    }
    int rc = ncp_lu_solve(m, M, w->ipiv, 1, w->dl, err);
    if (rc) return ncp_error_prefix(err, "sap: contact-space Newton matrix I + G D: ");
    ncp_gemv(0, m, m, 1.0, D, w->dl, 0.0, w->duh);
    w->q1 = ncp_dot(m, w->duh, w->lam);
    w->q2 = ncp_dot(m, w->dl, w->duh);
    return NCP_OK;
}

/* ---------- setup and the loop ---------- */

/* x <- A^{-1} x with the factor of setup_primal. */
static int a_solve(sap_ws *w, double *x, ncp_error *err)
{
    if (w->sparse) return ncp_sparse_chol_solve(w->FA, 1, x, err);
    return ncp_chol_solve(w->nv, w->LA, 1, x, err);
}

static int setup_primal(sap_ws *w, const ncp_solve_in *in, ncp_error *err)
{
    const ncp_problem *p = w->p;
    int nv = w->nv, rc;
    if (w->sparse) {
        for (int i = 0; i < nv; i++) w->Adiag[i] = ncp_csr_diag(w->As, i);
        rc = ncp_sparse_chol_factor(w->As, NULL, &w->FA, err);
    } else {
        for (int i = 0; i < nv; i++) w->Adiag[i] = p->A[i + (size_t)i * nv];
        memcpy(w->LA, p->A, (size_t)nv * nv * sizeof(double));
        rc = ncp_chol_factor(nv, w->LA, err);
    }
    if (rc) return ncp_error_prefix(err, "sap: A: ");
    ncp_copy(nv, p->b, w->vs); /* v* = A^{-1} b (eq. 13, free motion) */
    if ((rc = a_solve(w, w->vs, err))) return rc;
    if (in->v0) {
        ncp_copy(nv, in->v0, w->v); /* the paper's warm start: a velocity */
    } else if (in->lambda0) {
        ncp_copy(nv, p->b, w->v); /* v = A^{-1}(b + J^T lambda0) */
        ncp_csr_gemv_t(&p->J, 1.0, in->lambda0, 1.0, w->v);
        if ((rc = a_solve(w, w->v, err))) return rc;
    } else {
        ncp_copy(nv, w->vs, w->v);
    }
    return NCP_OK;
}

/* Chooses the Newton matrix's form (parameter sparse, see sap_params) and, for the sparse one,
 * builds A's CSR (when A is dense) and H's analysed pattern. */
static int choose_sparse(sap_ws *w, int want, ncp_error *err)
{
    const ncp_problem *p = w->p;
    int nv = w->nv, rc;
    w->sparse = 0;
    if (!p->has_primal) { /* A only as CSR (the capture's block route, FCLib's M) */
        if (want == 0)
            return ncp_error_set(err, NCP_ERR_INPUT, "sap: sparse = 0 needs a dense A; problem "
                                 "'%s' keeps A sparse (nv = %d)", p->name ? p->name : "?", nv);
        w->As = &p->A_sparse;
    } else {
        if (want == 0) return NCP_OK;
        if ((rc = ncp_csr_from_dense(&w->Aown, nv, nv, p->A, 0.0, err))) return rc;
        w->As = &w->Aown;
    }
    if ((rc = ncp_sap_hess_init(&w->hs, w->As, p, err)))
        return ncp_error_prefix(err, "sap: Newton matrix: ");
    double flops;
    ncp_sap_hess_stats(&w->hs, NULL, NULL, &flops);
    if (p->has_primal && want < 0 && SAP_SPARSE_GAIN * flops >= (double)nv * nv * nv / 3.0) {
        ncp_sap_hess_free(&w->hs); /* denser than it pays: the dense factorisation */
        ncp_csr_free(&w->Aown);
        w->As = NULL;
        return NCP_OK;
    }
    w->sparse = 1;
    return NCP_OK;
}

static int sap_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    const ncp_solver_desc *self = &ncp_solver_sap;
    const ncp_problem *p = in->prob;
    double beta, sigma, rtol, atol;
    int cspace, want_sparse, rc;
    if ((rc = ncp_solver_param_real(self, in->params, "beta", 0.0, INFINITY, NCP_PARAM_LO_OPEN,
                                    &beta, err)) ||
        (rc = ncp_solver_param_real(self, in->params, "sigma", 0.0, INFINITY, NCP_PARAM_LO_OPEN,
                                    &sigma, err)) ||
        (rc = ncp_solver_param_real(self, in->params, "rel_tol", 0.0, 1.0,
                                    NCP_PARAM_LO_OPEN | NCP_PARAM_HI_OPEN, &rtol, err)) ||
        (rc = ncp_solver_param_real(self, in->params, "abs_tol", 0.0, INFINITY, 0, &atol, err)) ||
        (rc = ncp_solver_param_int(self, in->params, "contact_space", 0, 1, &cspace, err)) ||
        (rc = ncp_solver_param_int(self, in->params, "sparse", -1, 1, &want_sparse, err)) ||
        (rc = ncp_solver_need_dual_op(self, p, err)))
        return rc;
    sap_ws w;
    memset(&w, 0, sizeof w);
    w.p = p;
    w.m = p->m;
    w.primal = !cspace &&
               ((p->has_primal && p->A) ||
                (p->has_sparse_primal && p->A_sparse.rowptr && p->A_sparse.m == p->nv &&
                 p->A_sparse.n == p->nv)) &&
               p->b && p->e && p->J.rowptr && p->J.m == p->m && p->J.n == p->nv;
    w.nv = w.primal ? p->nv : 0;
    if (w.primal && (rc = choose_sparse(&w, want_sparse, err))) {
        sap_ws_free(&w);
        return rc;
    }
    if (w.primal) {
        double flops = 0.0;
        if (w.sparse) ncp_sap_hess_stats(&w.hs, NULL, NULL, &flops);
        double dense = (double)w.nv * w.nv * w.nv / 3.0;
        ncp_run_note(run, w.sparse ? "Newton matrix sparse: %.2g flops/factorisation (dense %.2g)"
                                   : "Newton matrix dense: %.2g flops/factorisation",
                     w.sparse ? flops : dense, dense);
    }
    int big = w.primal ? (w.sparse ? 0 : w.nv) : w.m;
    if (big > 46340) { /* n * n must fit the int lengths of la.h */
        sap_ws_free(&w);
        return ncp_error_set(err, NCP_ERR_NOMEM,
                             "sap: problem '%s': the dense %d x %d Newton matrix is out of reach",
                             p->name ? p->name : "?", big, big);
    }
    /* The contact-space path factorises I + G D: the dense D, built here (setup) for a problem
     * that keeps none. The primal path needs only D's diagonal blocks (the regularisation's w,
     * eq. 30): the problem's D where it has one (its bits as before), else through the
     * operator (core/dop.h: J_b A^-1 J_b^T from A's blocks, or the low-rank F F^T), so no m x m
     * array is made (Castro et al. 2023 §IV-D never forms D either). */
    if (!w.primal && !p->has_dual) {
        if ((rc = ncp_problem_dual_view(p, &w.dview, &w.D_own, err))) {
            sap_ws_free(&w);
            return rc;
        }
        w.p = p = &w.dview;
    }
    ncp_dop op;
    memset(&op, 0, sizeof op);
    if ((rc = sap_ws_alloc(&w, err)) ||
        (rc = ncp_dop_init(&op, p, p->has_dual ? NCP_DOP_DENSE : NCP_DOP_AUTO, err)) ||
        (rc = ncp_sap_model_build(p, &op, beta, sigma, &w.sm, err)) ||
        (w.primal && (rc = setup_primal(&w, in, err)))) {
        ncp_dop_free(&op);
        sap_ws_free(&w);
        if (rc != NCP_ERR_NOMEM) ncp_error_prefix(err, "sap: ");
        return rc;
    }
    if (!p->has_dual) {
        char route[160];
        ncp_dop_describe(&op, route, sizeof route);
        ncp_run_note(run, "w from %s", route);
    }
    ncp_dop_free(&op);
    if (!w.primal && in->lambda0) ncp_copy(w.m, in->lambda0, w.lam);

    int k = 0, status = -1;
    double *vrep = w.primal ? w.v : NULL;
    if (ncp_run_setup_done(run) == 0) {
        if (w.primal) eval_primal(&w);
        else eval_dual(&w);
        int done = w.num < atol + rtol * w.den; /* eq. 26 at the guess */
        if (done) { /* 0 Newton steps: report the guess once (see the header) */
            k = 1;
            ncp_run_note(run, "0 Newton steps: the start passes eq. 26");
            if (!ncp_all_finite(w.m, w.gam) || (vrep && !ncp_all_finite(w.nv, vrep)))
                status = NCP_STATUS_FAILED;
            else if (!ncp_run_iterate(run, k, w.gam, vrep))
                status = NCP_STATUS_STALLED;
        }
        while (!done) {
            k++;
            rc = w.primal ? newton_primal(&w, err) : newton_dual(&w, err);
            if (rc) break;
            double alpha = line_search(&w);
            int stalled = 0;
            if (alpha < 0.0) {
                stalled = 1; /* no descent left: report the unchanged iterate */
            } else {
                double old = w.cost;
                if (w.primal) {
                    ncp_axpy(w.nv, alpha, w.dv, w.v);
                    eval_primal(&w);
                } else {
                    ncp_axpy(w.m, alpha, w.dl, w.lam);
                    eval_dual(&w);
                }
                stalled = w.num < atol + rtol * w.den ||
                          (alpha > 0.5 && fabs(w.cost - old) <
                                              1e-30 + 1e-15 * 0.5 * (fabs(w.cost) + fabs(old)));
            }
            if (!ncp_all_finite(w.m, w.gam) || (vrep && !ncp_all_finite(w.nv, vrep)) ||
                !isfinite(w.cost)) {
                status = NCP_STATUS_FAILED;
                break;
            }
            if (ncp_run_iterate(run, k, w.gam, vrep)) break;
            if (stalled) {
                status = NCP_STATUS_STALLED;
                break;
            }
        }
    }
    if (!rc) {
        ncp_copy(w.m, w.gam, out->lambda);
        if (w.primal && out->v) ncp_copy(w.nv, w.v, out->v);
        out->has_v = w.primal && out->v != NULL;
        out->iterations = k;
        if (status >= 0) out->status = status;
    }
    sap_ws_free(&w);
    return rc;
}

const ncp_solver_desc ncp_solver_sap = {
    .name = "sap",
    .source = "Castro et al. 2023 (Castro, Permenter, Han), Algorithm 2, eqs. 24-30",
    .summary = "Newton on SAP's unconstrained convex primal (regularised compliant CCP), exact "
               "line search",
    .needs = NCP_NEEDS_DUAL_OP | NCP_NEEDS_SYMMETRIC,
    .ccp = 1,
    .takes_v0 = 1,
    .file = "solvers/sap.c",
    .params = sap_params,
    .solve = sap_solve,
};
