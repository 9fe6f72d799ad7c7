/* The parts of Tasora et al. 2021's ADMM that admm and fadmm share (see admm_common.h). */
#include "solvers/admm_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/common.h"
#include "core/cone.h"
#include "core/la.h"

/* Residual balancing safeguards (Tasora et al. 2021 §5.2 defaults) and our bound on rho. */
#define ETA_MAX 50.0
#define ETA_DEADBAND 2.0
#define RHO_MIN 1e-6
#define RHO_MAX 1e6

int ncp_admm_read_params(const ncp_solver_desc *d, const ncp_params *ps, ncp_admm_cfg *cfg,
                         ncp_error *err)
{
    int rc;
    if ((rc = ncp_solver_param_real(d, ps, "rho", 0.0, INFINITY, NCP_PARAM_LO_OPEN, &cfg->rho0,
                                    err)) ||
        (rc = ncp_solver_param_real(d, ps, "rho_b", 0.0, INFINITY, NCP_PARAM_LO_OPEN,
                                    &cfg->rho_b, err)) ||
        (rc = ncp_solver_param_int(d, ps, "adapt_every", 0, 1000000, &cfg->adapt_every, err)) ||
        (rc = ncp_solver_param_real(d, ps, "adapt_work", 0.0, 1e6, 0, &cfg->adapt_work, err)) ||
        (rc = ncp_solver_param_int(d, ps, "rho_policy", 1, 2, &cfg->policy, err)) ||
        (rc = ncp_solver_param_int(d, ps, "rho_sqrt", 0, 1, &cfg->rho_sqrt, err)) ||
        (rc = ncp_solver_param_int(d, ps, "max_rho_changes", 0, 1000000, &cfg->max_changes,
                                   err)) ||
        (rc = ncp_solver_param_int(d, ps, "precond", 0, 1, &cfg->precond, err)) ||
        (rc = ncp_solver_param_int(d, ps, "form", 0, 2, &cfg->form, err)) ||
        (rc = ncp_solver_param_int(d, ps, "k_factor", 0, 2, &cfg->k_factor, err)) ||
        (rc = ncp_solver_param_real(d, ps, "tol_ccp", 0.0, INFINITY, 0, &cfg->tol_ccp, err)))
        return rc;
    return NCP_OK;
}

void ncp_admm_free(ncp_admm *a)
{
    free(a->kind);
    free(a->w);
    free(a->sw);
    free(a->comp);
    free(a->shift);
    free(a->fixed);
    free(a->theta);
    ncp_dop_shift_free(&a->N);
    ncp_dop_free(&a->op);
    free(a->D_own);
    free(a->s);
    free(a->K);
    ncp_sap_hess_free(&a->hs);
    free(a->G9);
    ncp_csr_free(&a->Aown);
    free(a->d);
    free(a->brow);
    free(a->KJb);
    free(a->Sb);
    free(a->tm);
    free(a->tb);
    memset(a, 0, sizeof *a);
}

/* Row kinds, compliance, shift and one-point sets from the block types (admm_common.h). */
static int setup_rows(ncp_admm *a, ncp_error *err)
{
    const ncp_problem *p = a->p;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int r = b->row;
        switch (b->type) {
        case NCP_CONTACT:
            if (!(b->mu >= 0.0) || !isfinite(b->mu))
                return ncp_error_set(err, NCP_ERR_INPUT,
                                     "%s: contact block %d (row %d) has friction mu = %g; it "
                                     "must be finite and >= 0",
                                     a->name, bi, r, b->mu);
            for (int i = 0; i < 3; i++) a->kind[r + i] = NCP_ADMM_ROW_CONE;
            break;
        case NCP_UNILATERAL:
            a->kind[r] = NCP_ADMM_ROW_UNI;
            break;
        case NCP_BILATERAL:
            a->kind[r] = NCP_ADMM_ROW_FREE;
            break;
        case NCP_SOFT: {
            if (!(b->c >= 0.0) || !isfinite(b->k) || !isfinite(b->phi))
                return ncp_error_set(err, NCP_ERR_INPUT,
                                     "%s: soft block %d (row %d) has k = %g, c = %g, phi = %g; "
                                     "the convex form needs finite k, phi and damping c >= 0",
                                     a->name, bi, r, b->k, b->c, b->phi);
            double inv = 1.0 / b->c;
            if (b->c > 0.0 && isfinite(inv)) { /* compliance 1/c, Corollary 3 */
                a->kind[r] = NCP_ADMM_ROW_FREE;
                a->comp[r] = inv;
                a->shift[r] = b->k * b->phi * inv;
            } else { /* c = 0 (or 1/c overflows): lambda = -k phi, a one-point set */
                a->kind[r] = NCP_ADMM_ROW_FIXED;
                a->fixed[r] = -b->k * b->phi;
            }
            break;
        }
        default:
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: block %d has unknown type %d", a->name,
                                 bi, b->type);
        }
    }
    return NCP_OK;
}

/* w = diagonal of N = D + C, averaged over each contact's rows (or 1 without preconditioning). */
static void setup_weights(ncp_admm *a, int precond)
{
    const ncp_problem *p = a->p;
    int m = a->m;
    if (!precond) {
        for (int i = 0; i < m; i++) a->w[i] = 1.0;
    } else {
        double wmax = 0.0;
        for (int bi = 0; bi < p->nblocks; bi++) {
            const ncp_block *b = &p->blocks[bi];
            int r = b->row, n = ncp_block_type_size(b->type);
            double s = 0.0;
            for (int i = 0; i < n; i++) {
                double dii;
                ncp_dop_diag_block(&a->op, r + i, 1, &dii);
                s += dii + a->comp[r + i];
            }
            for (int i = 0; i < n; i++) a->w[r + i] = s / n;
            wmax = fmax(wmax, s / n);
        }
        double wfill = wmax > 0.0 ? wmax : 1.0;
        for (int i = 0; i < m; i++)
            if (!(a->w[i] > 1e-14 * wmax)) a->w[i] = wfill;
    }
    for (int i = 0; i < m; i++) a->sw[i] = sqrt(a->w[i]);
}

/* A B row: bilateral (free, no compliance), kept out of K (its Schur complement S_B). */
static int is_brow(const ncp_admm *a, int i)
{
    return a->kind[i] == NCP_ADMM_ROW_FREE && a->comp[i] == 0.0;
}

/* The saddle form's K = A + J_E^T d_E^{-1} J_E (n_v x n_v) dense or sparse. Its pattern is A's
 * (block diagonal per body on the simulator's block route) plus one clique per constraint block
 * over the dofs its rows of J touch (the bodies a contact couples), and does not depend on rho:
 * a sparse K is ordered (fill-reducing: CHOLMOD's AMD or METIS) and analysed once per solve,
 * then refactorised numerically per rho (core/sparse_chol.h: up-looking Cholesky, Davis 2006
 * §4.2), through the pattern builder SAP's A + J^T G J uses
 * (solvers/sap_sparse.h, with G = diag(1/d) on the E rows and 0 on the B rows, whose cliques
 * only store zeros). The wrecking ball's K (n_v 3606, 601 bodies, m 13 251) costs
 * 3606^3/3 = 1.6e10 flops dense, 3.6e6 sparse (nnz(L) 1.05e5).
 *
 * The choices (form = 0, k_factor = 0) are by estimated cost per iteration, continuous in the
 * problem's size (no row or dof threshold), in flops of the dense LAPACK kernels:
 *   dense form   m^3/3 / R + 2 m^2                       (Cholesky of N + Theta; two triangular
 *                                                         solves per iteration)
 *   saddle form  K_f / R + K_s + 4 nnz(J) + 8 m           (K's factor and solve; v = K^-1(b + J^T
 *                  + [nb K_s + 2 nnz(J_B) nb + nb^3/3] / R   t) and g = d^-1(q - J v); the Schur
 *                  + 2 nv nb + 2 nb^2                      complement of the B rows)
 *   K dense      K_f = nv^3/3,  K_s = 2 nv^2
 *   K sparse     K_f = GAIN x flops(L),  K_s = GAIN x 4 nnz(L)   (from the symbolic analysis)
 * R is the expected number of iterations per factorisation: the budget's iterations over the
 * factorisations rho's balancing may cause (1 + min(max_rho_changes, max_iter / n_s)), n_s the
 * interval each candidate would use (ncp_admm_interval: adapt_every, raised by adapt_work from
 * the candidate's own factorisation and iteration estimates).
 * GAIN = NCP_ADMM_SPARSE_K_GAIN charges the up-looking kernel's indirect addressing (it runs
 * slower per flop than LAPACK's blocked Cholesky, as admm-nosub, sap and the AL solvers account
 * for it). k_factor = 1 / 2 and form = 1 / 2 force a choice. The choice and both estimates go
 * to the row's note (ncp_run_note). */
#define NCP_ADMM_SPARSE_K_GAIN 4.0

int ncp_admm_interval(int adapt_every, double adapt_work, double F, double S)
{
    if (adapt_every <= 0 || !(adapt_work > 0.0) || !(S > 0.0)) return adapt_every;
    double n = ceil(adapt_work * F / S);
    return n > adapt_every ? (int)fmin(n, 1e9) : adapt_every;
}

/* A candidate's estimated flops: F one factorisation, S one iteration. */
typedef struct admm_est {
    double F, S;
} admm_est;

/* Estimated flops per iteration of a candidate (above): F / R + S, R the iterations per
 * factorisation at the interval it would use (*interval). */
static double amortised(const ncp_admm_cfg *cfg, int max_iter, admm_est e, int *interval)
{
    int ns = ncp_admm_interval(cfg->adapt_every, cfg->adapt_work, e.F, e.S);
    double it = max_iter > 0 ? (double)max_iter : 1000.0;
    double nf = 1.0;
    if (ns > 0) nf += fmin((double)cfg->max_changes, it / ns);
    if (interval) *interval = ns;
    return e.F / fmax(1.0, it / nf) + e.S;
}

/* Estimated flops per iteration of the dense form (above). */
double ncp_admm_cost_dense(int m, double R)
{
    double dm = m;
    return dm * dm * dm / 3.0 / R + 2.0 * dm * dm;
}

static admm_est est_dense(int m)
{
    double dm = m;
    return (admm_est){dm * dm * dm / 3.0, 2.0 * dm * dm};
}

/* The saddle form's estimates given K's factor (kf) and solve (ks) costs. */
static admm_est est_saddle(const ncp_admm *a, double kf, double ks)
{
    const ncp_csr *J = &a->p->J;
    double nb = a->nb, nv = a->p->nv, nnzb = 0.0;
    for (int i = 0; i < a->m; i++)
        if (is_brow(a, i)) nnzb += J->rowptr[i + 1] - J->rowptr[i];
    return (admm_est){kf + nb * ks + 2.0 * nnzb * nb + nb * nb * nb / 3.0,
                      ks + 4.0 * (double)J->nnz + 8.0 * a->m + 2.0 * nv * nb + 2.0 * nb * nb};
}

/* Decides K's factorisation (above) and returns the saddle form's cost estimate in *cost, its
 * factorisation and iteration estimates in *est. */
static int choose_k(ncp_admm *a, const ncp_admm_cfg *cfg, int max_iter, double *cost,
                    admm_est *est, ncp_error *err)
{
    const ncp_problem *p = a->p;
    double nv = p->nv;
    int rc, k_factor = cfg->k_factor;
    a->sparse_k = 0;
    /* a dense K above NCP_ADMM_SPARSE_MAX_NV dofs is out of memory's reach: sparse only */
    admm_est ed = est_saddle(a, nv * nv * nv / 3.0, 2.0 * nv * nv);
    double dense = p->nv <= NCP_ADMM_SPARSE_MAX_NV ? amortised(cfg, max_iter, ed, NULL) : INFINITY;
    *cost = dense;
    *est = ed;
    if (k_factor == NCP_ADMM_KFACTOR_DENSE) {
        if (p->nv <= NCP_ADMM_SPARSE_MAX_NV) return NCP_OK;
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: k_factor = 1 (dense K) with n_v = %d dofs, "
                             "above the %d-dof limit of a dense K; use k_factor = 0 or 2",
                             a->name, p->nv, NCP_ADMM_SPARSE_MAX_NV);
    }
    const ncp_csr *As = &p->A_sparse;
    if (!a->sparse_a) {
        if ((rc = ncp_csr_from_dense(&a->Aown, p->nv, p->nv, p->A, 0.0, err))) return rc;
        As = &a->Aown;
    }
    if ((rc = ncp_sap_hess_init(&a->hs, As, p, err))) return rc;
    double flops;
    size_t nnz_l;
    ncp_sap_hess_stats(&a->hs, NULL, &nnz_l, &flops);
    admm_est es = est_saddle(a, NCP_ADMM_SPARSE_K_GAIN * flops,
                             NCP_ADMM_SPARSE_K_GAIN * 4.0 * (double)nnz_l);
    double sparse = amortised(cfg, max_iter, es, NULL);
    if (k_factor == NCP_ADMM_KFACTOR_AUTO && !(sparse < dense)) {
        ncp_sap_hess_free(&a->hs); /* too much fill to pay: the dense K */
        ncp_csr_free(&a->Aown);
        return NCP_OK;
    }
    if (!(a->G9 = ncp_calloc(err, 9 * (size_t)p->nblocks + 1, sizeof(double))))
        return NCP_ERR_NOMEM;
    a->sparse_k = 1;
    *cost = sparse;
    *est = es;
    return NCP_OK;
}

/* Drops the saddle form's K choice (the dense form won). */
static void drop_k(ncp_admm *a)
{
    ncp_sap_hess_free(&a->hs);
    ncp_csr_free(&a->Aown);
    free(a->G9);
    a->G9 = NULL;
    a->sparse_k = 0;
}

int ncp_admm_setup(ncp_admm *a, const ncp_solver_desc *self, const ncp_solve_in *in,
                   const ncp_admm_cfg *cfg, ncp_error *err)
{
    const ncp_problem *p = in->prob;
    memset(a, 0, sizeof *a);
    a->p = p;
    a->name = self->name;
    a->m = p->m;
    a->nv = p->has_primal ? p->nv : 0;
    a->rho_b = cfg->rho_b;
    a->policy = cfg->policy;
    a->rho_sqrt = cfg->rho_sqrt;
    a->max_changes = cfg->max_changes;
    int rc = ncp_solver_need_dual_op(self, p, err);
    if (rc) return rc;
    int m = a->m;
    size_t mz = (size_t)m;
    a->kind = ncp_calloc(err, mz, 1);
    a->w = ncp_calloc(err, mz, sizeof(double));
    a->sw = ncp_calloc(err, mz, sizeof(double));
    a->comp = ncp_calloc(err, mz, sizeof(double));
    a->shift = ncp_calloc(err, mz, sizeof(double));
    a->fixed = ncp_calloc(err, mz, sizeof(double));
    a->theta = ncp_calloc(err, mz, sizeof(double));
    a->tm = ncp_calloc(err, mz, sizeof(double));
    if (!a->kind || !a->w || !a->sw || !a->comp || !a->shift || !a->fixed || !a->theta || !a->tm)
        return NCP_ERR_NOMEM;
    if ((rc = setup_rows(a, err))) return rc;

    int nb = 0;
    for (int i = 0; i < m; i++)
        if (is_brow(a, i)) nb++;
    a->nb = nb;
    int have_primal = p->has_primal && p->A && p->J.rowptr && p->J.m == m && p->J.n == p->nv;
    /* a problem that keeps A as a block-diagonal CSR (the simulator's block route, FCLib's M):
     * the saddle form's K is built from it (choose_k), at any size */
    if (!have_primal && p->has_sparse_primal && p->A_sparse.rowptr && p->A_sparse.m == p->nv &&
        p->A_sparse.n == p->nv && p->b && p->e && p->J.rowptr && p->J.m == m &&
        p->J.n == p->nv) {
        have_primal = 1;
        a->sparse_a = 1;
        a->nv = p->nv;
    }
    if (cfg->form == NCP_ADMM_FORM_SADDLE && !have_primal)
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "%s: form = 2 (saddle point) needs the primal data (A, J), which "
                             "problem '%s' does not have; use form = 0 or 1",
                             a->name, p->name ? p->name : "?");
    /* the forms' estimated costs per iteration (choose_k's comment); the dense form's only within
     * its row limit */
    admm_est edense = est_dense(m), esaddle = {0.0, 0.0};
    a->cost_dense = m <= NCP_ADMM_DENSE_MAX_ROWS ? amortised(cfg, in->budget.max_iter, edense, NULL)
                                                 : INFINITY;
    a->cost_saddle = INFINITY;
    if (have_primal && cfg->form != NCP_ADMM_FORM_DENSE &&
        (rc = choose_k(a, cfg, in->budget.max_iter, &a->cost_saddle, &esaddle, err)))
        return rc;
    if (cfg->form == NCP_ADMM_FORM_AUTO)
        a->form = have_primal && a->cost_saddle < a->cost_dense ? NCP_ADMM_FORM_SADDLE
                                                                : NCP_ADMM_FORM_DENSE;
    else
        a->form = cfg->form;
    if (a->form == NCP_ADMM_FORM_DENSE) drop_k(a);
    admm_est e = a->form == NCP_ADMM_FORM_DENSE ? edense : esaddle;
    a->flops_factor = e.F;
    a->flops_iter = e.S;
    a->adapt_every = ncp_admm_interval(cfg->adapt_every, cfg->adapt_work, e.F, e.S);
    snprintf(a->route, sizeof a->route, "form %s%s: est. %.2g flops/it, %s form %.2g; n_s %d",
             a->form == NCP_ADMM_FORM_DENSE ? "dense" : "saddle",
             a->form == NCP_ADMM_FORM_DENSE ? "" : a->sparse_k ? ", K sparse" : ", K dense",
             a->form == NCP_ADMM_FORM_DENSE ? a->cost_dense : a->cost_saddle,
             a->form == NCP_ADMM_FORM_DENSE ? "saddle" : "dense",
             a->form == NCP_ADMM_FORM_DENSE ? a->cost_saddle : a->cost_dense, a->adapt_every);
    if (a->form == NCP_ADMM_FORM_DENSE && m > NCP_ADMM_DENSE_MAX_ROWS) {
        a->unsupported = 1;
        ncp_error_set(err, NCP_ERR_INPUT,
                      "%s: the dense form would factorise the %d x %d matrix D + diag(C + Theta) "
                      "(%.2g flops, %.2g GiB), above the %d-row limit; the saddle-point form needs "
                      "the primal data",
                      a->name, m, m, (double)m * m * m / 3.0,
                      8.0 * (double)m * m / 1073741824.0, NCP_ADMM_DENSE_MAX_ROWS);
        return NCP_OK;
    }

    /* The dense form factorises D + diag(C + Theta) on the dense route even when D has low
     * rank: with the tiny rho_b of the bilateral rows, Woodbury's S^{-1} b - S^{-1} F (...) cancels
     * terms of size 1/rho_b (lambda differed by 1e-7 relative after 400 iterations on
     * tests/test_lowrank.c's problems); the saddle form, which form = 0 picks for such problems,
     * is the stable elimination of the same system at O(m n_v^2). */
    if (a->form == NCP_ADMM_FORM_DENSE && !p->has_dual) {
        /* the dense form factorises D + diag(C + Theta): its D, built here (setup) */
        if ((rc = ncp_problem_dual_view(p, &a->dview, &a->D_own, err))) return rc;
        a->p = p = &a->dview;
    }
    if ((rc = ncp_dop_init(&a->op, p, a->form == NCP_ADMM_FORM_DENSE ? NCP_DOP_DENSE : NCP_DOP_AUTO,
                           err)))
        return rc;
    setup_weights(a, cfg->precond); /* D's diagonal through the operator */
    if (a->form == NCP_ADMM_FORM_DENSE) {
        if (!(a->s = ncp_calloc(err, mz, sizeof(double)))) return NCP_ERR_NOMEM;
    } else {
        int nv = p->nv;
        if (!a->sparse_k && !(a->K = ncp_malloc(err, (size_t)nv * nv, sizeof(double))))
            return NCP_ERR_NOMEM;
        a->d = ncp_calloc(err, mz, sizeof(double));
        a->brow = ncp_calloc(err, (size_t)nb, sizeof(int));
        a->KJb = ncp_calloc(err, (size_t)nv * nb, sizeof(double));
        a->Sb = ncp_calloc(err, (size_t)nb * nb, sizeof(double));
        a->tb = ncp_calloc(err, (size_t)nb, sizeof(double));
        if (!a->d || !a->brow || !a->KJb || !a->Sb || !a->tb) return NCP_ERR_NOMEM;
        nb = 0;
        for (int i = 0; i < m; i++)
            if (is_brow(a, i)) a->brow[nb++] = i;
    }

    double vfn = ncp_norm2(m, p->vf);
    /* a tenth of the budget's tol by default: where the CCP and NCP solutions coincide the two
     * natural maps differ by the small De Saxcé term, and the harness's NCP test must fire first */
    double tol = cfg->tol_ccp > 0.0 ? cfg->tol_ccp : 0.1 * in->budget.tol;
    a->stop_thresh = tol * (vfn > 0.0 ? vfn : 1.0);
    return NCP_OK;
}

/* Theta(rho): rho_b on free rows (eq. 44), rho elsewhere, times the preconditioner (eq. 47). */
static void set_theta(ncp_admm *a, double rho)
{
    a->rho = rho;
    for (int i = 0; i < a->m; i++)
        a->theta[i] = (a->kind[i] == NCP_ADMM_ROW_FREE ? a->rho_b : rho) * a->w[i];
}

static int factor_dense(ncp_admm *a, ncp_error *err)
{
    for (int i = 0; i < a->m; i++) a->s[i] = a->comp[i] + a->theta[i]; /* > 0: theta > 0 */
    ncp_dop_shift_free(&a->N);
    return ncp_dop_shift_factor(&a->op, a->s, &a->N, err);
}

/* K = A + sum over E rows of J_i^T J_i / d_i (the eliminated multipliers), densely, factorised. */
static int factor_k_dense(ncp_admm *a, ncp_error *err)
{
    const ncp_problem *p = a->p;
    const ncp_csr *J = &p->J;
    int nv = p->nv;
    if (a->sparse_a) { /* the block-diagonal CSR A, scattered into the dense K */
        const ncp_csr *As = &p->A_sparse;
        ncp_zero(nv * nv, a->K);
        for (int i = 0; i < nv; i++)
            for (int k = As->rowptr[i]; k < As->rowptr[i + 1]; k++)
                a->K[i + (size_t)As->col[k] * nv] += As->val[k];
    } else {
        memcpy(a->K, p->A, (size_t)nv * nv * sizeof(double));
    }
    for (int i = 0; i < a->m; i++) {
        if (is_brow(a, i)) continue;
        double s = 1.0 / a->d[i];
        for (int ka = J->rowptr[i]; ka < J->rowptr[i + 1]; ka++) {
            double va = s * J->val[ka];
            for (int kb = J->rowptr[i]; kb < J->rowptr[i + 1]; kb++)
                a->K[J->col[kb] + (size_t)J->col[ka] * nv] += va * J->val[kb];
        }
    }
    return ncp_chol_factor(nv, a->K, err);
}

/* The same K on its fixed sparse pattern (choose_k): G = diag(1/d) on each block's E rows, 0 on
 * its B rows, scattered and refactorised numerically. */
static int factor_k_sparse(ncp_admm *a, ncp_error *err)
{
    const ncp_problem *p = a->p;
    for (int bi = 0; bi < p->nblocks; bi++) {
        int r = p->blocks[bi].row, s = ncp_block_type_size(p->blocks[bi].type);
        double *G = a->G9 + 9 * (size_t)bi;
        memset(G, 0, 9 * sizeof(double));
        for (int i = 0; i < s; i++)
            if (!is_brow(a, r + i)) G[i + s * i] = 1.0 / a->d[r + i];
    }
    return ncp_sap_hess_factor(&a->hs, p, a->G9, err);
}

static int factor_saddle(ncp_admm *a, ncp_error *err)
{
    const ncp_problem *p = a->p;
    const ncp_csr *J = &p->J;
    int m = a->m, nv = p->nv, nb = a->nb, rc;
    for (int i = 0; i < m; i++) a->d[i] = a->theta[i] + a->comp[i];
    if ((rc = a->sparse_k ? factor_k_sparse(a, err) : factor_k_dense(a, err))) return rc;
    if (nb == 0) return NCP_OK;
    /* K^{-1} J_B^T, then S_B = J_B K^{-1} J_B^T + d_B */
    ncp_zero(nv * nb, a->KJb);
    for (int j = 0; j < nb; j++) {
        int r = a->brow[j];
        for (int k = J->rowptr[r]; k < J->rowptr[r + 1]; k++)
            a->KJb[J->col[k] + (size_t)j * nv] += J->val[k];
    }
    if (a->sparse_k)
        for (int j = 0; j < nb; j++) ncp_sap_hess_solve(&a->hs, a->KJb + (size_t)j * nv);
    else if ((rc = ncp_chol_solve(nv, a->K, nb, a->KJb, err)))
        return rc;
    for (int j = 0; j < nb; j++)
        for (int i = 0; i < nb; i++)
            a->Sb[i + (size_t)j * nb] = ncp_csr_row_dot(J, a->brow[i], a->KJb + (size_t)j * nv);
    ncp_symmetrize(nb, a->Sb);
    for (int j = 0; j < nb; j++) a->Sb[j + (size_t)j * nb] += a->d[a->brow[j]];
    return ncp_chol_factor(nb, a->Sb, err);
}

int ncp_admm_factor(ncp_admm *a, double rho, ncp_error *err)
{
    set_theta(a, rho);
    int rc = a->form == NCP_ADMM_FORM_DENSE ? factor_dense(a, err) : factor_saddle(a, err);
    if (rc) ncp_error_prefix(err, "%s: factorising for rho = %g (%s form): ", a->name, rho,
                             a->form == NCP_ADMM_FORM_DENSE ? "dense" : "saddle-point");
    return rc;
}

static int solve_saddle(ncp_admm *a, const double *z, const double *y, double *g, double *v,
                        ncp_error *err)
{
    const ncp_problem *p = a->p;
    const ncp_csr *J = &p->J;
    int m = a->m, nv = p->nv, nb = a->nb, rc;
    double *q = g; /* q = Theta z - y - e - s, right-hand side of the second block row */
    for (int i = 0; i < m; i++) q[i] = a->theta[i] * z[i] - y[i] - p->e[i] - a->shift[i];
    /* tm = d_E^{-1} q_E (0 on B rows);  v = K^{-1}(b + J^T tm) [+ K^{-1} J_B^T g_B] */
    for (int i = 0; i < m; i++) a->tm[i] = q[i] / a->d[i];
    for (int j = 0; j < nb; j++) a->tm[a->brow[j]] = 0.0;
    ncp_copy(nv, p->b, v);
    ncp_csr_gemv_t(J, 1.0, a->tm, 1.0, v);
    if (a->sparse_k) ncp_sap_hess_solve(&a->hs, v);
    else if ((rc = ncp_chol_solve(nv, a->K, 1, v, err)))
        return rc;
    if (nb > 0) {
        for (int j = 0; j < nb; j++) a->tb[j] = q[a->brow[j]] - ncp_csr_row_dot(J, a->brow[j], v);
        if ((rc = ncp_chol_solve(nb, a->Sb, 1, a->tb, err))) return rc;
        ncp_gemv(0, nv, nb, 1.0, a->KJb, a->tb, 1.0, v);
    }
    /* g_E = d_E^{-1}(q_E - J_E v); g_B from the Schur complement */
    for (int i = 0; i < m; i++) g[i] = (q[i] - ncp_csr_row_dot(J, i, v)) / a->d[i];
    for (int j = 0; j < nb; j++) g[a->brow[j]] = a->tb[j];
    return NCP_OK;
}

int ncp_admm_solve(ncp_admm *a, const double *z, const double *y, double *g, double *v,
                   ncp_error *err)
{
    int rc;
    if (a->form == NCP_ADMM_FORM_DENSE) {
        const ncp_problem *p = a->p;
        for (int i = 0; i < a->m; i++)
            g[i] = a->theta[i] * z[i] - y[i] - p->vf[i] - a->shift[i];
        ncp_dop_shift_solve(&a->N, g, g);
        rc = NCP_OK;
    } else {
        rc = solve_saddle(a, z, y, g, v, err);
    }
    if (rc) ncp_error_prefix(err, "%s: ", a->name);
    return rc;
}

/* Pi_Y(x) into out, block by block. */
static void project(const ncp_admm *a, const double *x, double *out)
{
    const ncp_problem *p = a->p;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int r = b->row;
        if (b->type == NCP_CONTACT) {
            ncp_cone_project(b->mu, x + r, out + r);
            continue;
        }
        switch (a->kind[r]) {
        case NCP_ADMM_ROW_UNI: out[r] = fmax(0.0, x[r]); break;
        case NCP_ADMM_ROW_FIXED: out[r] = a->fixed[r]; break;
        default: out[r] = x[r]; break; /* free */
        }
    }
}

void ncp_admm_zstep(const ncp_admm *a, const double *g, const double *y, double *z)
{
    for (int i = 0; i < a->m; i++) z[i] = g[i] + y[i] / a->theta[i];
    project(a, z, z);
}

void ncp_admm_start(ncp_admm *a, const double *lambda0, double *g, double *y)
{
    const ncp_problem *p = a->p;
    int m = a->m;
    if (!lambda0) { /* cold start: Alg. 1 with y^0 = z^0 = 0 */
        ncp_zero(m, g);
        ncp_zero(m, y);
        return;
    }
    ncp_copy(m, lambda0, g);
    /* y = -(D g + v_f + C g + s): the paper's v^0 = H^{-1}(k + D_eps g) then
     * y^0 = -(D_eps^T v^0 + C g + b_eps) (Alg. 2), through the Delassus the harness provides */
    ncp_copy(m, p->vf, y);
    ncp_dop_apply(&a->op, 1.0, g, 1.0, y);
    for (int i = 0; i < m; i++) {
        y[i] = -(y[i] + a->comp[i] * g[i] + a->shift[i]);
        if (a->kind[i] == NCP_ADMM_ROW_FREE) y[i] = 0.0;
    }
}

double ncp_admm_ccp_residual(const ncp_admm *a, const double *g, const double *u)
{
    const ncp_problem *p = a->p;
    double s = 0.0;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int r = b->row;
        if (b->type == NCP_CONTACT) {
            double x[3], px[3];
            for (int i = 0; i < 3; i++) x[i] = g[r + i] - u[r + i];
            ncp_cone_project(b->mu, x, px);
            for (int i = 0; i < 3; i++) s += (g[r + i] - px[i]) * (g[r + i] - px[i]);
            continue;
        }
        double f;
        switch (a->kind[r]) {
        case NCP_ADMM_ROW_UNI: f = g[r] - fmax(0.0, g[r] - u[r]); break;
        case NCP_ADMM_ROW_FIXED: f = g[r] - a->fixed[r]; break;
        default: /* bilateral: u; compliant soft: c u' = c u + g + k phi (metrics' form) */
            f = a->comp[r] > 0.0 ? u[r] / a->comp[r] : u[r];
            break;
        }
        s += f * f;
    }
    return sqrt(s);
}

double ncp_admm_balance(ncp_admm *a, const double *rp, const double *rd, const double *z,
                        const double *g, const double *y)
{
    if (a->changes >= a->max_changes) return a->rho;
    double np = 0.0, nd = 0.0, nz = 0.0, ny = 0.0;
    for (int i = 0; i < a->m; i++) {
        np = fmax(np, fabs(rp[i]) * a->sw[i]);
        nd = fmax(nd, fabs(rd[i]) / a->sw[i]);
        nz = fmax(nz, fmax(fabs(z[i]), fabs(g[i])) * a->sw[i]);
        ny = fmax(ny, fabs(y[i]) / a->sw[i]);
    }
    if (a->policy == NCP_ADMM_RHO_NORMALIZED) { /* eq. 43 */
        np = nz > 0.0 ? np / nz : np;
        nd = ny > 0.0 ? nd / ny : nd;
    }
    double eta; /* eq. 42 (or 43): eta = r_p / r_d */
    if (np == 0.0 && nd == 0.0) eta = 1.0;
    else if (nd == 0.0) eta = ETA_MAX;
    else eta = np / nd;
    if (a->rho_sqrt) eta = sqrt(eta);
    eta = fmin(fmax(eta, 1.0 / ETA_MAX), ETA_MAX);
    if (eta >= 1.0 / ETA_DEADBAND && eta <= ETA_DEADBAND) return a->rho;
    double rho = fmin(fmax(a->rho * eta, RHO_MIN), RHO_MAX);
    if (rho != a->rho) a->changes++;
    return rho;
}

int ncp_admm_report(ncp_run *run, const ncp_admm *a, int k, const double *g, const double *v,
                    int *status)
{
    int saddle = a->form == NCP_ADMM_FORM_SADDLE;
    if (!ncp_all_finite(a->m, g) || (saddle && !ncp_all_finite(a->nv, v))) {
        *status = NCP_STATUS_FAILED;
        return 1;
    }
    return ncp_run_iterate(run, k, g, saddle ? v : NULL);
}

void ncp_admm_finish(const ncp_admm *a, ncp_solve_out *out, const double *g, const double *v,
                     int k, int status)
{
    ncp_copy(a->m, g, out->lambda);
    out->has_v = a->form == NCP_ADMM_FORM_SADDLE && out->v && v;
    if (out->has_v) ncp_copy(a->nv, v, out->v);
    out->iterations = k;
    if (status >= 0) out->status = status;
}
