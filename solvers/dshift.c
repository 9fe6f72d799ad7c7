/* The shifted Delassus system (D + diag(d)) g = q - v_f by the cheaper exact form (dshift.h). */
#include "solvers/dshift.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/la.h"
#include "solvers/common.h"

void ncp_dshift_free(ncp_dshift *s)
{
    ncp_dop_shift_free(&s->N);
    ncp_dop_free(&s->op);
    free(s->D_own);
    free(s->d);
    free(s->K);
    ncp_sap_hess_free(&s->hs);
    free(s->G9);
    ncp_csr_free(&s->Aown);
    free(s->isb);
    free(s->brow);
    free(s->KJb);
    free(s->Sb);
    free(s->tm);
    free(s->tb);
    memset(s, 0, sizeof *s);
}

static ncp_dshift_est est_dense(int m)
{
    double dm = m;
    return (ncp_dshift_est){dm * dm * dm / 3.0, 2.0 * dm * dm};
}

/* Woodbury on F (m x r): the capacitance matrix's entries and Cholesky, then per solve two
 * products with F and the diagonal scalings (dop.c, ncp_dop_shift_factor / _solve). */
static ncp_dshift_est est_lowrank(int m, int r)
{
    double dm = m, dr = r;
    return (ncp_dshift_est){dm * dr * (dr + 1.0) + dr * dr * dr / 3.0,
                            4.0 * dm * dr + 2.0 * dr * dr + 2.0 * dm};
}

/* The saddle form's estimates given K's factor (kf) and solve (ks) costs (dshift.h), with K's
 * assembly: J_i^T J_i / d_i over the E rows, 2 nnz(J_i)^2 flops each. */
static ncp_dshift_est est_saddle(const ncp_dshift *s, double kf, double ks)
{
    const ncp_csr *J = &s->p->J;
    double nb = s->nb, nv = s->nv, nnzb = 0.0, assembly = 0.0;
    for (int i = 0; i < s->m; i++) {
        double n = J->rowptr[i + 1] - J->rowptr[i];
        if (s->isb[i]) nnzb += n;
        else assembly += 2.0 * n * n;
    }
    return (ncp_dshift_est){assembly + kf + nb * ks + 2.0 * nnzb * nb + nb * nb * nb / 3.0,
                            ks + 4.0 * (double)J->nnz + 8.0 * s->m + 2.0 * nv * nb +
                                2.0 * nb * nb};
}

/* Decides K's factorisation and returns the saddle form's cost per iteration in *cost and its
 * estimates in *est. The sparse K's symbolic analysis is skipped when the form cannot win with
 * any K: its cost with K free (kf = ks = 0, a lower bound) already at least another's (bound). */
static int choose_k(ncp_dshift *s, const ncp_dshift_opts *o, double bound, double *cost,
                    ncp_dshift_est *est, ncp_error *err)
{
    int k_factor = o->k_factor;
    const ncp_problem *p = s->p;
    double nv = s->nv;
    int rc;
    s->sparse_k = 0;
    /* a dense K above NCP_DSHIFT_SPARSE_MAX_NV dofs is out of memory's reach: sparse only */
    ncp_dshift_est ed = est_saddle(s, nv * nv * nv / 3.0, 2.0 * nv * nv);
    double dense = s->nv <= NCP_DSHIFT_SPARSE_MAX_NV ? o->cost(o->ctx, ed) : INFINITY;
    *cost = dense;
    *est = ed;
    if (k_factor == NCP_DSHIFT_K_DENSE) {
        if (s->nv <= NCP_DSHIFT_SPARSE_MAX_NV) return NCP_OK;
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: k_factor = 1 (dense K) with n_v = %d dofs, "
                             "above the %d-dof limit of a dense K; use k_factor = 0 or 2",
                             s->name, s->nv, NCP_DSHIFT_SPARSE_MAX_NV);
    }
    double lb = o->cost(o->ctx, est_saddle(s, 0.0, 0.0));
    if (k_factor == NCP_DSHIFT_K_AUTO && !(lb < fmin(dense, bound)))
        return NCP_OK; /* no K makes the saddle form the cheapest: not analysed */
    const ncp_csr *As;
    if ((rc = ncp_problem_mass_csr(p, &s->Aown, &As, err))) return rc;
    if ((rc = ncp_sap_hess_init(&s->hs, As, p, err))) return rc;
    double flops;
    size_t nnz_l;
    ncp_sap_hess_stats(&s->hs, NULL, &nnz_l, &flops);
    ncp_dshift_est es = est_saddle(s, NCP_DSHIFT_SPARSE_K_GAIN * flops,
                                   NCP_DSHIFT_SPARSE_K_GAIN * 4.0 * (double)nnz_l);
    double sparse = o->cost(o->ctx, es);
    if (k_factor == NCP_DSHIFT_K_AUTO && !(sparse < dense)) {
        ncp_sap_hess_free(&s->hs); /* too much fill to pay: the dense K */
        ncp_csr_free(&s->Aown);
        return NCP_OK;
    }
    if (!(s->G9 = ncp_calloc(err, 9 * (size_t)p->nblocks + 1, sizeof(double))))
        return NCP_ERR_NOMEM;
    s->sparse_k = 1;
    *cost = sparse;
    *est = es;
    return NCP_OK;
}

/* Drops the saddle form's K choice (the dense form won). */
static void drop_k(ncp_dshift *s)
{
    ncp_sap_hess_free(&s->hs);
    ncp_csr_free(&s->Aown);
    free(s->G9);
    s->G9 = NULL;
    s->sparse_k = 0;
}

/* Whether p has the primal data the saddle form eliminates on: dense A, or a block-diagonal CSR
 * A (the simulator's block route, FCLib's M), with b, J and e. */
static int saddle_data(const ncp_problem *p, int *sparse_a)
{
    int jok = p->J.rowptr && p->J.m == p->m && p->J.n == p->nv && p->b && p->e;
    *sparse_a = 0;
    if (p->has_primal && p->A && jok) return 1;
    if (p->has_sparse_primal && p->A_sparse.rowptr && p->A_sparse.m == p->nv &&
        p->A_sparse.n == p->nv && jok) {
        *sparse_a = 1;
        return 1;
    }
    return 0;
}

/* The B rows' index list, from brows. */
static int setup_brows(ncp_dshift *s, const unsigned char *brows, ncp_error *err)
{
    int m = s->m;
    if (!(s->isb = ncp_calloc(err, (size_t)m + 1, 1))) return NCP_ERR_NOMEM;
    for (int i = 0; i < m; i++)
        if (brows && brows[i]) {
            s->isb[i] = 1;
            s->nb++;
        }
    if (!(s->brow = ncp_calloc(err, (size_t)s->nb + 1, sizeof(int)))) return NCP_ERR_NOMEM;
    for (int i = 0, j = 0; i < m; i++)
        if (s->isb[i]) s->brow[j++] = i;
    return NCP_OK;
}

/* The chosen form's arrays (the dense form's D, built for the solve when p keeps none). */
static int setup_form(ncp_dshift *s, ncp_error *err)
{
    const ncp_problem *p = s->p;
    int rc, m = s->m, nv = s->nv, nb = s->nb;
    if (s->form == NCP_DSHIFT_DENSE) { /* the dense D, built for the solve when p keeps none */
        ncp_dop_free(&s->op);
        if (!p->has_dual) {
            if ((rc = ncp_problem_dual_view(p, &s->dview, &s->D_own, err))) return rc;
            s->p = p = &s->dview;
        }
        if ((rc = ncp_dop_init(&s->op, p, NCP_DOP_DENSE, err))) return rc;
    }
    if (!(s->d = ncp_calloc(err, (size_t)m + 1, sizeof(double)))) return NCP_ERR_NOMEM;
    if (s->form != NCP_DSHIFT_SADDLE) return NCP_OK;
    if (!s->sparse_k && !(s->K = ncp_malloc(err, (size_t)nv * nv + 1, sizeof(double))))
        return NCP_ERR_NOMEM;
    s->KJb = ncp_calloc(err, (size_t)nv * nb + 1, sizeof(double));
    s->Sb = ncp_calloc(err, (size_t)nb * nb + 1, sizeof(double));
    s->tm = ncp_calloc(err, (size_t)m + 1, sizeof(double));
    s->tb = ncp_calloc(err, (size_t)nb + 1, sizeof(double));
    return s->KJb && s->Sb && s->tm && s->tb ? NCP_OK : NCP_ERR_NOMEM;
}

/* The form of lowest cost among the candidates, or the forced one (an error when it lacks its
 * data). */
static int choose_form(ncp_dshift *s, int form, int have_primal, ncp_error *err)
{
    const char *pname = s->p->name ? s->p->name : "?";
    if (form == NCP_DSHIFT_SADDLE && !have_primal)
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "%s: form = 2 (saddle point) needs the primal data (A, J), which "
                             "problem '%s' does not have; use form = 0 or 1", s->name, pname);
    if (form == NCP_DSHIFT_LOWRANK && !isfinite(s->cost_lowrank))
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "%s: form = 3 (Woodbury on a low-rank D) needs the Delassus "
                             "operator's low-rank route (dense primal data with few dofs), which "
                             "problem '%s' does not take; use form = 0, 1 or 2", s->name, pname);
    if (form != NCP_DSHIFT_AUTO) {
        s->form = form;
        return NCP_OK;
    }
    s->form = NCP_DSHIFT_DENSE;
    double best = s->cost_dense;
    if (s->cost_saddle < best) {
        s->form = NCP_DSHIFT_SADDLE;
        best = s->cost_saddle;
    }
    if (s->cost_lowrank < best) s->form = NCP_DSHIFT_LOWRANK;
    return NCP_OK;
}

int ncp_dshift_init(ncp_dshift *s, const char *name, const ncp_problem *p,
                    const ncp_dshift_opts *o, ncp_error *err)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    s->name = name;
    s->m = p->m;
    int rc, have_primal = saddle_data(p, &s->sparse_a);
    s->nv = have_primal ? p->nv : 0;
    if ((rc = setup_brows(s, o->brows, err))) return rc;
    ncp_dshift_est edense = est_dense(s->m), esaddle = {0.0, 0.0}, elow = {0.0, 0.0};
    s->cost_dense = s->m <= NCP_DENSE_FACTOR_MAX_ROWS ? o->cost(o->ctx, edense) : INFINITY;
    s->cost_saddle = s->cost_lowrank = INFINITY;
    /* every form but the dense one applies D through the cheapest operator (products, D's
     * diagonal): built once here, its low-rank factor F is also the Woodbury form's */
    if (o->form != NCP_DSHIFT_DENSE && (rc = ncp_dop_init(&s->op, p, NCP_DOP_AUTO, err))) return rc;
    int lowrank_ok = o->form == NCP_DSHIFT_AUTO || o->form == NCP_DSHIFT_LOWRANK;
    if (o->lowrank && s->op.rank > 0 && lowrank_ok) {
        elow = est_lowrank(s->m, s->op.rank);
        s->cost_lowrank = o->cost(o->ctx, elow);
    }
    if (have_primal && (o->form == NCP_DSHIFT_AUTO || o->form == NCP_DSHIFT_SADDLE) &&
        (rc = choose_k(s, o,
                       o->form == NCP_DSHIFT_AUTO ? fmin(s->cost_dense, s->cost_lowrank) : INFINITY,
                       &s->cost_saddle, &esaddle, err)))
        return rc;
    if ((rc = choose_form(s, o->form, have_primal, err))) return rc;
    if (s->form != NCP_DSHIFT_SADDLE) drop_k(s);
    s->est = s->form == NCP_DSHIFT_DENSE ? edense : s->form == NCP_DSHIFT_SADDLE ? esaddle : elow;
    if (s->form == NCP_DSHIFT_DENSE && s->m > NCP_DENSE_FACTOR_MAX_ROWS) {
        int m = s->m;
        s->unsupported = 1;
        ncp_error_set(err, NCP_ERR_INPUT,
                      "%s: the dense form would factorise the %d x %d matrix D + diag(d) "
                      "(%.2g flops, %.2g GiB), above the %d-row limit; the saddle-point form needs "
                      "the primal data",
                      name, m, m, (double)m * m * m / 3.0, 8.0 * (double)m * m / 1073741824.0,
                      NCP_DENSE_FACTOR_MAX_ROWS);
        return NCP_OK;
    }
    return setup_form(s, err);
}

static const char *form_name(int form)
{
    return form == NCP_DSHIFT_DENSE ? "dense" : form == NCP_DSHIFT_SADDLE ? "saddle" : "lowrank";
}

void ncp_dshift_describe(const ncp_dshift *s, char *buf, size_t size)
{
    const double cost[4] = {0.0, s->cost_dense, s->cost_saddle, s->cost_lowrank};
    int next = 0; /* the cheapest other form (the dense one when none is available) */
    for (int f = NCP_DSHIFT_DENSE; f <= NCP_DSHIFT_LOWRANK; f++)
        if (f != s->form && (next == 0 || cost[f] < cost[next])) next = f;
    snprintf(buf, size, "form %s%s: est. %.2g flops/it, %s form %.2g", form_name(s->form),
             s->form != NCP_DSHIFT_SADDLE ? "" : s->sparse_k ? ", K sparse" : ", K dense",
             cost[s->form], form_name(next), cost[next]);
}

/* K = A + sum over E rows of J_i^T J_i / d_i (the eliminated multipliers), densely, factorised. */
static int factor_k_dense(ncp_dshift *s, ncp_error *err)
{
    const ncp_problem *p = s->p;
    const ncp_csr *J = &p->J;
    int nv = s->nv;
    if (s->sparse_a) { /* the block-diagonal CSR A, scattered into the dense K */
        const ncp_csr *As = &p->A_sparse;
        ncp_zero(nv * nv, s->K);
        for (int i = 0; i < nv; i++)
            for (int k = As->rowptr[i]; k < As->rowptr[i + 1]; k++)
                s->K[i + (size_t)As->col[k] * nv] += As->val[k];
    } else {
        memcpy(s->K, p->A, (size_t)nv * nv * sizeof(double));
    }
    for (int i = 0; i < s->m; i++) {
        if (s->isb[i]) continue;
        double w = 1.0 / s->d[i];
        for (int ka = J->rowptr[i]; ka < J->rowptr[i + 1]; ka++) {
            double va = w * J->val[ka];
            for (int kb = J->rowptr[i]; kb < J->rowptr[i + 1]; kb++)
                s->K[J->col[kb] + (size_t)J->col[ka] * nv] += va * J->val[kb];
        }
    }
    return ncp_chol_factor(nv, s->K, err);
}

/* The same K on its fixed sparse pattern: G = diag(1/d) on each block's E rows, 0 on its B rows,
 * scattered and refactorised numerically. */
static int factor_k_sparse(ncp_dshift *s, ncp_error *err)
{
    const ncp_problem *p = s->p;
    for (int bi = 0; bi < p->nblocks; bi++) {
        int r = p->blocks[bi].row, n = ncp_block_type_size(p->blocks[bi].type);
        double *G = s->G9 + 9 * (size_t)bi;
        memset(G, 0, 9 * sizeof(double));
        for (int i = 0; i < n; i++)
            if (!s->isb[r + i]) G[i + n * i] = 1.0 / s->d[r + i];
    }
    return ncp_sap_hess_factor(&s->hs, p, s->G9, err);
}

static int factor_saddle(ncp_dshift *s, ncp_error *err)
{
    const ncp_csr *J = &s->p->J;
    int nv = s->nv, nb = s->nb, rc;
    if ((rc = s->sparse_k ? factor_k_sparse(s, err) : factor_k_dense(s, err))) return rc;
    if (nb == 0) return NCP_OK;
    /* K^{-1} J_B^T, then S_B = J_B K^{-1} J_B^T + d_B */
    ncp_zero(nv * nb, s->KJb);
    for (int j = 0; j < nb; j++) {
        int r = s->brow[j];
        for (int k = J->rowptr[r]; k < J->rowptr[r + 1]; k++)
            s->KJb[J->col[k] + (size_t)j * nv] += J->val[k];
    }
    if (s->sparse_k)
        for (int j = 0; j < nb; j++) ncp_sap_hess_solve(&s->hs, s->KJb + (size_t)j * nv);
    else if ((rc = ncp_chol_solve(nv, s->K, nb, s->KJb, err)))
        return rc;
    for (int j = 0; j < nb; j++)
        for (int i = 0; i < nb; i++)
            s->Sb[i + (size_t)j * nb] = ncp_csr_row_dot(J, s->brow[i], s->KJb + (size_t)j * nv);
    ncp_symmetrize(nb, s->Sb);
    for (int j = 0; j < nb; j++) s->Sb[j + (size_t)j * nb] += s->d[s->brow[j]];
    return ncp_chol_factor(nb, s->Sb, err);
}

int ncp_dshift_factor(ncp_dshift *s, const double *d, ncp_error *err)
{
    ncp_copy(s->m, d, s->d);
    if (s->form == NCP_DSHIFT_SADDLE) return factor_saddle(s, err);
    if (s->m == 0) return NCP_OK;
    ncp_dop_shift_free(&s->N);
    return ncp_dop_shift_factor(&s->op, s->d, &s->N, err);
}

/* The elimination of the saddle system (dshift.h): q' = q - e, v = K^{-1}(b + J_E^T d_E^{-1}
 * q'_E) corrected by the B rows' Schur complement, g_E = d_E^{-1}(q'_E - J_E v). */
static int solve_saddle(ncp_dshift *s, const double *q, double *g, double *v, ncp_error *err)
{
    const ncp_problem *p = s->p;
    const ncp_csr *J = &p->J;
    int m = s->m, nv = s->nv, nb = s->nb, rc;
    for (int i = 0; i < m; i++) g[i] = q[i] - p->e[i];
    for (int i = 0; i < m; i++) s->tm[i] = s->isb[i] ? 0.0 : g[i] / s->d[i];
    ncp_copy(nv, p->b, v);
    ncp_csr_gemv_t(J, 1.0, s->tm, 1.0, v);
    if (s->sparse_k) ncp_sap_hess_solve(&s->hs, v);
    else if ((rc = ncp_chol_solve(nv, s->K, 1, v, err)))
        return rc;
    if (nb > 0) {
        for (int j = 0; j < nb; j++) s->tb[j] = g[s->brow[j]] - ncp_csr_row_dot(J, s->brow[j], v);
        if ((rc = ncp_chol_solve(nb, s->Sb, 1, s->tb, err))) return rc;
        ncp_gemv(0, nv, nb, 1.0, s->KJb, s->tb, 1.0, v);
    }
    for (int i = 0; i < m; i++) g[i] = (g[i] - ncp_csr_row_dot(J, i, v)) / s->d[i];
    for (int j = 0; j < nb; j++) g[s->brow[j]] = s->tb[j];
    return NCP_OK;
}

int ncp_dshift_solve(ncp_dshift *s, const double *q, double *g, double *v, ncp_error *err)
{
    if (s->form == NCP_DSHIFT_SADDLE) return solve_saddle(s, q, g, v, err);
    if (s->m == 0) return NCP_OK;
    const double *vf = s->p->vf;
    for (int i = 0; i < s->m; i++) g[i] = q[i] - vf[i];
    ncp_dop_shift_solve(&s->N, g, g);
    return NCP_OK;
}
