/* The captured problem: allocation, layout, dual from primal and primal from dual,
 * validation (see problem.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dop.h"
#include "core/problem.h"

const char *ncp_block_type_name(int type)
{
    switch (type) {
    case NCP_BILATERAL: return "bilateral";
    case NCP_UNILATERAL: return "unilateral";
    case NCP_CONTACT: return "contact";
    case NCP_SOFT: return "soft";
    default: return "unknown";
    }
}

int ncp_block_type_size(int type) { return type == NCP_CONTACT ? 3 : 1; }

void ncp_problem_init(ncp_problem *p)
{
    memset(p, 0, sizeof *p);
    p->step = -1;
    p->case_index = -1;
}

void ncp_structure_free(ncp_structure *s)
{
    if (!s) return;
    free(s->sub_dof_start);
    free(s->sub_ndof);
    if (s->bodies)
        for (int i = 0; i < s->nbodies; i++) free(s->bodies[i].Jb);
    free(s->bodies);
    if (s->links)
        for (int i = 0; i < s->nlinks; i++) free(s->links[i].Jib);
    free(s->links);
    free(s->dof_diag);
    free(s);
}

void ncp_problem_free(ncp_problem *p)
{
    if (!p) return;
    free(p->name);
    free(p->blocks);
    free(p->contacts);
    free(p->A);
    free(p->b);
    ncp_csr_free(&p->J);
    free(p->e);
    free(p->D);
    free(p->vf);
    ncp_structure_free(p->structure);
    ncp_csr_free(&p->A_sparse);
    free(p->title);
    free(p->description);
    free(p->guess_lambda);
    free(p->guess_v);
    free(p->provenance_note);
    free(p->scene);
    free(p->driver);
    ncp_problem_init(p);
}

int ncp_problem_alloc_blocks(ncp_problem *p, int nblocks, ncp_error *err)
{
    free(p->blocks);
    p->blocks = ncp_calloc(err, nblocks, sizeof(ncp_block));
    if (!p->blocks) return NCP_ERR_NOMEM;
    p->nblocks = nblocks;
    for (int i = 0; i < nblocks; i++) p->blocks[i].contact = -1;
    return NCP_OK;
}

void ncp_problem_layout(ncp_problem *p)
{
    int row = 0, nc = 0;
    for (int i = 0; i < p->nblocks; i++) {
        ncp_block *bk = &p->blocks[i];
        bk->row = row;
        row += ncp_block_type_size(bk->type);
        bk->contact = bk->type == NCP_CONTACT ? nc++ : -1;
    }
    p->m = row;
    p->ncontacts = nc;
}

/* D (when D is not NULL, m x m) and v_f (when vf is not NULL) from p's primal data, dense or
 * sparse, by the one builder of each kind (ncp_delassus, ncp_sparse_chol_delassus: D and v_f
 * are the same bits whichever of them is asked for). With `noted`, how M was factorised (sparse
 * primal data) goes to noted's provenance_note. p itself is not changed. */
static int derive(const ncp_problem *p, const ncp_sparse_chol_opts *opts, double *D, double *vf,
                  ncp_problem *noted, ncp_error *err)
{
    const char *nm = p->name ? p->name : "?";
    if (p->has_primal) {
        int rc = ncp_delassus(p->nv, p->A, p->b, &p->J, p->e, D, vf, err);
        return rc ? ncp_error_prefix(err, "problem %s: ", nm) : NCP_OK;
    }
    if (!p->has_sparse_primal)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "problem %s has no primal data to derive D "
                             "and v_f from", nm);
    if (p->A_sparse.m != p->nv || p->A_sparse.n != p->nv || p->J.n != p->nv || p->J.m != p->m)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "problem %s: sparse primal data of "
                             "inconsistent sizes", nm);
    ncp_sparse_chol *F = NULL;
    int rc = ncp_sparse_chol_factor(&p->A_sparse, opts, &F, err);
    if (!rc) rc = ncp_sparse_chol_delassus(F, p->b, &p->J, p->e, D, vf, err);
    if (rc) {
        ncp_sparse_chol_free(F);
        return ncp_error_prefix(err, "problem %s: mass matrix: ", nm);
    }
    int nb, big, nch;
    ncp_sparse_chol_stats(F, &nb, &big, &nch);
    ncp_sparse_chol_free(F);
    if (!noted) return NCP_OK;
    if (nch)
        return ncp_problem_note(noted, err, "M factorised in %d blocks (largest block %d DOFs; %d "
                                "by CHOLMOD)", nb, big, nch);
    return ncp_problem_note(noted, err, "M factorised in %d blocks (largest block %d DOFs; dense "
                            "Cholesky)", nb, big);
}

static int compute_dual(ncp_problem *p, const ncp_sparse_chol_opts *opts, ncp_error *err)
{
    free(p->D);
    free(p->vf);
    p->has_dual = 0;
    p->dop_route = 0; /* a new D: the operator's route is decided again */
    p->D = ncp_malloc(err, (size_t)p->m * p->m > 0 ? (size_t)p->m * p->m : 1, sizeof(double));
    p->vf = ncp_malloc(err, p->m > 0 ? p->m : 1, sizeof(double));
    if (!p->D || !p->vf) return NCP_ERR_NOMEM;
    int rc = derive(p, opts, p->D, p->vf, p, err);
    if (rc) return rc;
    p->has_dual = 1;
    p->dual_symmetric = 1; /* both builders symmetrise */
    return NCP_OK;
}

int ncp_problem_compute_dual(ncp_problem *p, ncp_error *err)
{
    if (!p->has_primal && !p->has_sparse_primal)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "problem %s has no primal data to derive D from",
                             p->name ? p->name : "?");
    return compute_dual(p, NULL, err);
}

int ncp_problem_compute_dual_sparse(ncp_problem *p, const ncp_sparse_chol_opts *opts,
                                    ncp_error *err)
{
    if (!p->has_sparse_primal)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "problem %s has no sparse primal data",
                             p->name ? p->name : "?");
    return compute_dual(p, opts, err);
}

int ncp_problem_derive(const ncp_problem *p, double *D, double *vf, ncp_error *err)
{
    return derive(p, NULL, D, vf, NULL, err);
}

int ncp_problem_compute_vf(ncp_problem *p, ncp_error *err)
{
    free(p->vf);
    p->vf = ncp_malloc(err, p->m > 0 ? p->m : 1, sizeof(double));
    if (!p->vf) return NCP_ERR_NOMEM;
    return derive(p, NULL, NULL, p->vf, p, err);
}

int ncp_problem_need_dual(ncp_problem *p, ncp_error *err)
{
    if (p->has_dual && p->D && p->vf) return NCP_OK;
    return ncp_problem_compute_dual(p, err);
}

int ncp_problem_drop_dual(ncp_problem *p)
{
    if (!p->has_dual || !(p->has_primal || p->has_sparse_primal) || !p->vf) return 0;
    free(p->D);
    p->D = NULL;
    p->has_dual = 0;
    p->dual_symmetric = 1;
    return 1;
}

int ncp_problem_mass_csr(const ncp_problem *p, ncp_csr *own, const ncp_csr **A, ncp_error *err)
{
    memset(own, 0, sizeof *own);
    *A = NULL;
    if (p->has_sparse_primal && p->A_sparse.rowptr) {
        *A = &p->A_sparse;
        return NCP_OK;
    }
    if (!p->has_primal || !p->A)
        return ncp_error_set(err, NCP_ERR_INPUT, "problem %s has no mass matrix A",
                             p->name ? p->name : "?");
    int rc = ncp_csr_from_dense(own, p->nv, p->nv, p->A, 0.0, err);
    if (!rc) *A = own;
    return rc;
}

int ncp_problem_dual_view(const ncp_problem *p, ncp_problem *view, double **owned,
                          ncp_error *err)
{
    *view = *p;
    *owned = NULL;
    if (p->has_dual && p->D && p->vf) return NCP_OK;
    if (!p->has_primal && !p->has_sparse_primal)
        return ncp_error_set(err, NCP_ERR_INPUT, "problem %s has neither D nor primal data to "
                             "derive it from", p->name ? p->name : "?");
    /* D, and v_f behind it when the problem has none yet (one allocation to free) */
    size_t mm = (size_t)p->m * p->m, extra = p->vf ? 0 : (size_t)p->m;
    double *D = ncp_malloc(err, mm + extra > 0 ? mm + extra : 1, sizeof(double));
    if (!D) return NCP_ERR_NOMEM;
    int rc = derive(p, NULL, D, p->vf ? NULL : D + mm, NULL, err);
    if (rc) {
        free(D);
        return rc;
    }
    view->D = D;
    if (!p->vf) view->vf = D + mm;
    view->has_dual = 1;
    view->dual_symmetric = 1;
    *owned = D;
    return NCP_OK;
}

/* Largest |D_ij - D_ji| and largest |D_ij|. */
/* fmax(acc, v) for acc never NaN (a NaN v is skipped, as fmax does), inline: glibc's fmax is a
 * call per element, a tenth of loading a 13 260-row Delassus matrix. */
static inline double max_skip_nan(double acc, double v)
{
    return v > acc ? v : acc;
}

static double dense_asymmetry(int m, const double *D, double *dmax)
{
    /* max |D| over every entry and max |D_ij - D_ji| over i > j, tile by tile (core/la.h's
     * NCP_LA_TILE, as ncp_symmetrize): a plain loop's transposed reads miss the cache once a
     * column outgrows it. A maximum does not depend on the order (max_skip_nan skips a NaN
     * wherever it stands), so the values are the plain loop's. */
    double worst = 0.0, big = 0.0;
    const int T = NCP_LA_TILE;
    for (size_t k = 0; k < (size_t)m * m; k++) big = max_skip_nan(big, fabs(D[k]));
    for (int jb = 0; jb < m; jb += T)
        for (int ib = jb; ib < m; ib += T) {
            int je = jb + T < m ? jb + T : m, ie = ib + T < m ? ib + T : m;
            for (int j = jb; j < je; j++)
                for (int i = (ib > j + 1 ? ib : j + 1); i < ie; i++)
                    worst = max_skip_nan(worst, fabs(D[i + (size_t)j * m] - D[j + (size_t)i * m]));
        }
    if (dmax) *dmax = big;
    return worst;
}

void ncp_problem_set_dual_symmetric(ncp_problem *p)
{
    double big;
    p->dual_symmetric = 1;
    if (p->has_dual && p->D)
        p->dual_symmetric = dense_asymmetry(p->m, p->D, &big) <= NCP_DUAL_SYMMETRY_TOL * big;
}

int ncp_problem_note(ncp_problem *p, ncp_error *err, const char *fmt, ...)
{
    char line[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t old = p->provenance_note ? strlen(p->provenance_note) : 0;
    char *s = ncp_malloc(err, old + strlen(line) + 3, 1);
    if (!s) return NCP_ERR_NOMEM;
    if (old) {
        memcpy(s, p->provenance_note, old);
        memcpy(s + old, "; ", 2);
        old += 2;
    }
    strcpy(s + old, line);
    free(p->provenance_note);
    p->provenance_note = s;
    return NCP_OK;
}

static int complete_data(ncp_problem *p, int derive_primal, ncp_error *err);

int ncp_problem_complete(ncp_problem *p, int derive_primal, ncp_error *err)
{
    int rc = complete_data(p, derive_primal, err);
    /* the Delassus operator's route, once for every solve of this problem */
    return rc ? rc : ncp_dop_check_problem(p, err);
}

static int complete_data(ncp_problem *p, int derive_primal, ncp_error *err)
{
    int rc = NCP_OK;
    if (!p->has_dual && (p->has_primal || p->has_sparse_primal)) {
        /* v_f only, O(nnz): D is built on demand (ncp_problem_dual_view), symmetric by
         * construction when it is. A factorisation that fails here is bad input: A (M) is
         * not positive definite, which the problem's definition requires */
        if (!p->vf && (rc = ncp_problem_compute_vf(p, err))) {
            if (rc == NCP_ERR_NUMERIC) err->code = rc = NCP_ERR_INPUT;
            return rc;
        }
        p->dual_symmetric = 1;
    } else {
        ncp_problem_set_dual_symmetric(p);
    }
    if (!p->dual_symmetric) {
        double big, asym = dense_asymmetry(p->m, p->D, &big);
        rc = ncp_problem_note(p, err, "W is not symmetric: max |W - W^T| = %.3g, max |W| = %.3g; kept as given", asym, big);
    }
    if (rc || !derive_primal || p->has_primal || p->has_sparse_primal || !p->has_dual) return rc;
    rc = ncp_problem_primal_from_dual(p, err);
    if (rc == NCP_ERR_INPUT) {
        /* W not positive semi-definite (its symmetric part): the dual solvers and the metrics
         * still apply; only a primal form cannot be built. Report it, do not refuse the file. */
        rc = ncp_problem_note(p, err, "no primal form: %s", err->msg);
        ncp_error_clear(err);
    } else if (!rc && !p->dual_symmetric) {
        rc = ncp_problem_note(p, err, "primal form built from the symmetric part (W + W^T)/2");
    }
    return rc;
}

int ncp_problem_primal_from_dual(ncp_problem *p, ncp_error *err)
{
    if (!p->has_dual)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "problem %s has no dual data",
                             p->name ? p->name : "?");
    if (p->has_sparse_primal)
        return ncp_error_set(err, NCP_ERR_INPUT, "problem %s has sparse primal data (M of an FCLib global problem, "
                             "%d x %d, kept sparse); a dense primal form is not derived from D for it",
                             p->name ? p->name : "?", p->nv, p->nv);
    int m = p->m, rc;
    p->dop_route = 0; /* new primal data: the operator's route is decided again */
    /* Any factor D = F F^T gives A = I, J = F, b = 0, e = v_f with J A^{-1} J^T = D and
     * J A^{-1} b + e = v_f. (docs/design.md writes J = L^T for D = L L^T; with A = I that gives
     * L^T L, so the factor itself is used.) D is often only semi-definite (more contact rows
     * than DOFs), where Cholesky fails; the symmetric eigendecomposition D = Q diag(w) Q^T with
     * F = Q diag(sqrt(max(w, 0))) is exact for PSD D and needs no regularising shift. */
    double *L = ncp_malloc(err, (size_t)m * m, sizeof(double));
    double *w = ncp_malloc(err, m, sizeof(double));
    if (!L || !w) {
        free(L);
        free(w);
        return NCP_ERR_NOMEM;
    }
    memcpy(L, p->D, (size_t)m * m * sizeof(double));
    if (dense_asymmetry(m, L, NULL) > 0.0) ncp_symmetrize(m, L); /* S = (D + D^T)/2 */
    rc = ncp_sym_eig(m, L, w, err);
    if (rc) {
        free(L);
        free(w);
        return ncp_error_prefix(err, "problem %s: cannot build a primal form from D: ",
                                p->name ? p->name : "?");
    }
    double wmax = 0.0;
    for (int i = 0; i < m; i++) wmax = fmax(wmax, fabs(w[i]));
    for (int j = 0; j < m; j++) {
        /* eigenvalues below -1e-10 relative mean D is not a Delassus matrix at all */
        if (w[j] < -1e-10 * (wmax > 0 ? wmax : 1.0)) {
            double wj = w[j];
            free(L);
            free(w);
            return ncp_error_set(err, NCP_ERR_INPUT, "problem %s: W (the Delassus matrix) has a "
                                 "negative eigenvalue %g (of its symmetric part, max |eigenvalue| %g): "
                                 "it is not positive semi-definite", p->name ? p->name : "?", wj, wmax);
        }
        double sj = sqrt(w[j] > 0 ? w[j] : 0.0);
        ncp_scal(m, sj, L + (size_t)j * m);
    }
    free(w);
    free(p->A);
    free(p->b);
    free(p->e);
    ncp_csr_free(&p->J);
    p->A = ncp_calloc(err, (size_t)m * m, sizeof(double));
    p->b = ncp_calloc(err, m, sizeof(double));
    p->e = ncp_malloc(err, m, sizeof(double));
    if (!p->A || !p->b || !p->e) {
        free(L);
        return NCP_ERR_NOMEM;
    }
    for (int i = 0; i < m; i++) p->A[i + (size_t)i * m] = 1.0;
    memcpy(p->e, p->vf, (size_t)m * sizeof(double));
    rc = ncp_csr_from_dense(&p->J, m, m, L, 0.0, err);
    free(L);
    if (rc) return rc;
    p->nv = m;
    p->has_primal = 1;
    return NCP_OK;
}

static int check_finite(const double *x, size_t n, const char *where, const char *field,
                        ncp_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: %s[%zu] is %s (must be finite)", where,
                                 field, i, isnan(x[i]) ? "NaN" : "infinite");
    return NCP_OK;
}

/* A CSR matrix of the problem: rows x cols, pointers spanning its entries, column indices in
 * range, finite values. */
static int check_csr(const ncp_csr *S, int rows, int cols, const char *where, const char *field,
                     ncp_error *err)
{
    if (S->m != rows || S->n != cols || !S->rowptr)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: %s is %d x %d, expected %d x %d", where, field,
                             S->m, S->n, rows, cols);
    if (S->rowptr[0] != 0 || S->rowptr[S->m] != S->nnz)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: %s row pointers do not span its %d entries",
                             where, field, S->nnz);
    for (int i = 0; i < S->m; i++)
        if (S->rowptr[i + 1] < S->rowptr[i])
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: %s row pointer %d decreases", where, field, i);
    for (int k = 0; k < S->nnz; k++)
        if (S->col[k] < 0 || S->col[k] >= cols)
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: %s column index %d out of range [0, %d)",
                                 where, field, S->col[k], cols);
    return check_finite(S->val, (size_t)S->nnz, where, field, err);
}

int ncp_problem_validate(const ncp_problem *p, const char *where, ncp_error *err)
{
    int rc;
    if (p->m < 0 || p->nv < 0 || p->nblocks < 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: negative sizes (m %d, nv %d, blocks %d)",
                             where, p->m, p->nv, p->nblocks);
    int row = 0, nc = 0;
    for (int i = 0; i < p->nblocks; i++) {
        const ncp_block *bk = &p->blocks[i];
        if (bk->type < NCP_BILATERAL || bk->type > NCP_SOFT)
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: blocks/type[%d] = %d is not a block type "
                                 "(0 bilateral, 1 unilateral, 2 contact, 3 soft)", where, i, bk->type);
        if (bk->row != row)
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: blocks/row[%d] = %d, expected %d (blocks "
                                 "must tile the rows in order)", where, i, bk->row, row);
        row += ncp_block_type_size(bk->type);
        if (bk->type == NCP_CONTACT) {
            if (!(bk->mu >= 0.0 && bk->mu <= NCP_MU_MAX))
                return ncp_error_set(err, NCP_ERR_INPUT, "%s: friction coefficient mu of contact %d "
                                     "(block %d; blocks/mu, FCLib vectors/mu[%d]) is %g: must be in "
                                     "[0, %g]", where, nc, i, nc, bk->mu, NCP_MU_MAX);
            nc++;
        }
        if (bk->type == NCP_SOFT &&
            (!isfinite(bk->k) || !isfinite(bk->c) || !isfinite(bk->phi) || bk->k < 0 || bk->c < 0))
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: soft block %d has k = %g, c = %g, phi = %g "
                                 "(k, c must be finite and >= 0)", where, i, bk->k, bk->c, bk->phi);
    }
    if (row != p->m)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: blocks cover %d rows but the problem has m = %d",
                             where, row, p->m);
    if (nc != p->ncontacts)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: %d contact blocks but ncontacts = %d", where, nc,
                             p->ncontacts);
    if (!p->has_primal && !p->has_sparse_primal && !p->has_dual)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: neither primal (A, b, J, e) nor dual (D, v_f) "
                             "data", where);
    if (!(p->h >= 0.0) || !isfinite(p->h))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: time step h = %g (must be finite, >= 0)", where,
                             p->h);
    if (p->has_primal || p->has_sparse_primal) {
        if ((p->has_primal && !p->A) || !p->b || !p->e)
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: primal data incomplete", where);
        if ((rc = check_csr(&p->J, p->m, p->nv, where, "J", err))) return rc;
        if ((rc = check_finite(p->b, p->nv, where, "b", err))) return rc;
        if ((rc = check_finite(p->e, p->m, where, "e", err))) return rc;
    }
    if (p->has_sparse_primal) {
        if ((rc = check_csr(&p->A_sparse, p->nv, p->nv, where, "M (sparse A)", err))) return rc;
        for (int i = 0; i < p->nv; i++) {
            double d = ncp_csr_diag(&p->A_sparse, i);
            if (!(d > 0.0))
                return ncp_error_set(err, NCP_ERR_INPUT, "%s: M[%d,%d] = %g: M must be symmetric "
                                     "positive definite", where, i, i, d);
        }
    }
    if (p->has_primal) {
        if ((rc = check_finite(p->A, (size_t)p->nv * p->nv, where, "A", err))) return rc;
        for (int i = 0; i < p->nv; i++)
            if (!(p->A[i + (size_t)i * p->nv] > 0.0))
                return ncp_error_set(err, NCP_ERR_INPUT, "%s: A[%d,%d] = %g: A must be symmetric "
                                     "positive definite", where, i, i, p->A[i + (size_t)i * p->nv]);
    }
    if (p->has_dual) {
        if (!p->D || !p->vf)
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: dual data incomplete", where);
        if ((rc = check_finite(p->D, (size_t)p->m * p->m, where, "D", err))) return rc;
        if ((rc = check_finite(p->vf, p->m, where, "v_f", err))) return rc;
        /* A Delassus matrix J A^-1 J^T is positive semi-definite, so its diagonal is >= 0: a
         * negative diagonal entry (D = -I) is not a contact problem and is refused for every
         * input alike. The full PSD test (an eigendecomposition) is left to what needs it: a
         * primal form built from D (ncp_problem_primal_from_dual), where the solvers that need
         * one get an unsupported row with the reason; symmetry likewise (dual_symmetric). */
        double big = 0.0;
        for (size_t k = 0; k < (size_t)p->m * p->m; k++) big = max_skip_nan(big, fabs(p->D[k]));
        for (int i = 0; i < p->m; i++)
            if (p->D[i + (size_t)i * p->m] < -NCP_DUAL_SYMMETRY_TOL * big)
                return ncp_error_set(err, NCP_ERR_INPUT, "%s: D[%d,%d] = %g is negative: D (FCLib "
                                     "W) is not positive semi-definite, which a Delassus matrix "
                                     "J A^-1 J^T always is", where, i, i, p->D[i + (size_t)i * p->m]);
    }
    if (p->contacts)
        for (int i = 0; i < p->ncontacts; i++)
            if (!isfinite(p->contacts[i].gap))
                return ncp_error_set(err, NCP_ERR_INPUT, "%s: contacts/gap[%d] is not finite", where,
                                     i);
    if (p->guess_lambda && (rc = check_finite(p->guess_lambda, p->m, where, "guesses/1 lambda", err)))
        return rc;
    if (p->guess_v && (rc = check_finite(p->guess_v, p->nv, where, "guesses/1/v", err))) return rc;
    return NCP_OK;
}

static int dup_array(ncp_error *err, void **dst, const void *src, size_t n, size_t size)
{
    *dst = NULL;
    if (!src) return NCP_OK;
    *dst = ncp_malloc(err, n, size);
    if (!*dst) return NCP_ERR_NOMEM;
    if (n) memcpy(*dst, src, n * size);
    return NCP_OK;
}

static int copy_structure(ncp_structure **dst, const ncp_structure *s, ncp_error *err)
{
    *dst = NULL;
    if (!s) return NCP_OK;
    ncp_structure *d = ncp_calloc(err, 1, sizeof *d);
    if (!d) return NCP_ERR_NOMEM;
    *dst = d;
    d->nsub = s->nsub;
    d->nbodies = s->nbodies;
    d->nlinks = s->nlinks;
    if (dup_array(err, (void **)&d->sub_dof_start, s->sub_dof_start, s->nsub, sizeof(int)) ||
        dup_array(err, (void **)&d->sub_ndof, s->sub_ndof, s->nsub, sizeof(int)))
        return NCP_ERR_NOMEM;
    d->bodies = ncp_calloc(err, s->nbodies, sizeof *d->bodies);
    d->links = ncp_calloc(err, s->nlinks, sizeof *d->links);
    if (!d->bodies || !d->links) return NCP_ERR_NOMEM;
    for (int i = 0; i < s->nbodies; i++) {
        d->bodies[i] = s->bodies[i];
        d->bodies[i].Jb = NULL;
        if (dup_array(err, (void **)&d->bodies[i].Jb, s->bodies[i].Jb, 6 * (size_t)s->bodies[i].ndof,
                      sizeof(double)))
            return NCP_ERR_NOMEM;
    }
    for (int i = 0; i < s->nlinks; i++) {
        d->links[i] = s->links[i];
        d->links[i].Jib = NULL;
    }
    return NCP_OK;
}

/* p's sizes and flags kept, every pointer NULL (the copy's and the receiver's start). */
static void scalars_only(ncp_problem *p)
{
    p->name = p->scene = p->driver = NULL;
    p->blocks = NULL;
    p->contacts = NULL;
    p->A = p->b = p->e = p->D = p->vf = NULL;
    p->J.rowptr = p->J.col = NULL;
    p->J.val = NULL;
    p->A_sparse.rowptr = p->A_sparse.col = NULL;
    p->A_sparse.val = NULL;
    p->structure = NULL;
    p->title = p->description = p->provenance_note = NULL;
    p->guess_lambda = p->guess_v = NULL;
}

int ncp_problem_copy(ncp_problem *dst, const ncp_problem *src, ncp_error *err)
{
    ncp_problem_init(dst);
    *dst = *src;
    scalars_only(dst);
    size_t nv = src->nv, m = src->m;
    int rc = NCP_OK;
    if ((src->name && !(dst->name = ncp_strdup(err, src->name))) ||
        (src->scene && !(dst->scene = ncp_strdup(err, src->scene))) ||
        (src->driver && !(dst->driver = ncp_strdup(err, src->driver))) ||
        (src->title && !(dst->title = ncp_strdup(err, src->title))) ||
        (src->description && !(dst->description = ncp_strdup(err, src->description))) ||
        (src->provenance_note && !(dst->provenance_note = ncp_strdup(err, src->provenance_note))))
        rc = NCP_ERR_NOMEM;
    if (!rc) rc = dup_array(err, (void **)&dst->blocks, src->blocks, src->nblocks, sizeof(ncp_block));
    if (!rc) rc = dup_array(err, (void **)&dst->contacts, src->contacts, src->ncontacts,
                            sizeof(ncp_contact_info));
    if (!rc && (src->has_primal || src->has_sparse_primal)) {
        rc = dup_array(err, (void **)&dst->b, src->b, nv, sizeof(double));
        if (!rc) rc = dup_array(err, (void **)&dst->e, src->e, m, sizeof(double));
        if (!rc) rc = ncp_csr_copy(&dst->J, &src->J, err);
    }
    if (!rc && src->has_primal) rc = dup_array(err, (void **)&dst->A, src->A, nv * nv, sizeof(double));
    if (!rc && src->has_sparse_primal) rc = ncp_csr_copy(&dst->A_sparse, &src->A_sparse, err);
    if (!rc && src->guess_lambda)
        rc = dup_array(err, (void **)&dst->guess_lambda, src->guess_lambda, m, sizeof(double));
    if (!rc && src->guess_v)
        rc = dup_array(err, (void **)&dst->guess_v, src->guess_v, nv, sizeof(double));
    if (!rc && src->has_dual) rc = dup_array(err, (void **)&dst->D, src->D, m * m, sizeof(double));
    if (!rc && src->vf) rc = dup_array(err, (void **)&dst->vf, src->vf, m, sizeof(double));
    if (!rc) rc = copy_structure(&dst->structure, src->structure, err);
    if (!rc && src->structure) /* link Jacobians: rows of the block x 6 */
        for (int i = 0; i < src->structure->nlinks && !rc; i++) {
            const ncp_structure_link *l = &src->structure->links[i];
            int rows = (l->block >= 0 && l->block < src->nblocks)
                           ? ncp_block_type_size(src->blocks[l->block].type) : 0;
            rc = dup_array(err, (void **)&dst->structure->links[i].Jib, l->Jib, 6 * (size_t)rows,
                           sizeof(double));
        }
    if (!rc && src->structure) /* joint-space diagonal: nv entries */
        rc = dup_array(err, (void **)&dst->structure->dof_diag, src->structure->dof_diag,
                       (size_t)src->nv, sizeof(double));
    if (rc) ncp_problem_free(dst);
    return rc;
}

int ncp_problem_velocity(const ncp_problem *p, const double *lambda, double *u, ncp_error *err)
{
    if (p->has_dual) {
        ncp_copy(p->m, p->vf, u);
        ncp_gemv(0, p->m, p->m, 1.0, p->D, lambda, 1.0, u);
        return NCP_OK;
    }
    if (!p->has_primal && p->has_sparse_primal && p->vf) {
        /* A kept sparse: u = v_f + D lambda through the operator's sparse route (no D) */
        ncp_dop op;
        int rc = ncp_dop_init(&op, p, NCP_DOP_AUTO, err);
        if (rc) return rc;
        ncp_copy(p->m, p->vf, u);
        ncp_dop_apply(&op, 1.0, lambda, 1.0, u);
        ncp_dop_free(&op);
        return NCP_OK;
    }
    if (!p->has_primal)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "problem without data");
    int n = p->nv, rc;
    double *L = ncp_malloc(err, (size_t)n * n, sizeof(double));
    double *v = ncp_malloc(err, n, sizeof(double));
    if (!L || !v) {
        free(L);
        free(v);
        return NCP_ERR_NOMEM;
    }
    memcpy(L, p->A, (size_t)n * n * sizeof(double));
    ncp_copy(n, p->b, v);
    ncp_csr_gemv_t(&p->J, 1.0, lambda, 1.0, v);
    rc = ncp_chol_factor(n, L, err);
    if (!rc) rc = ncp_chol_solve(n, L, 1, v, err);
    if (!rc) {
        ncp_csr_gemv(&p->J, 1.0, v, 0.0, u);
        ncp_axpy(p->m, 1.0, p->e, u);
    }
    free(L);
    free(v);
    return rc;
}

/* ---------- a problem between processes (problem.h) ---------- */

/* One direction of ncp_problem_send / _receive: both walk the problem's arrays in the same
 * order (wire_problem), the sender writing each as its length (-1: NULL) and its bytes, the
 * receiver reading it into a fresh block. After a failure the receiver only sets the remaining
 * pointers NULL, so that the problem can be freed. */
typedef struct wire {
    FILE *f;
    int receive, bad;
} wire;

static void wire_array(wire *w, void *slot, size_t n, size_t size)
{
    void **ptr = slot;
    if (!w->receive) {
        long long c = *ptr ? (long long)n : -1;
        if (!w->bad && (fwrite(&c, sizeof c, 1, w->f) != 1 ||
                        (c > 0 && fwrite(*ptr, size, n, w->f) != n)))
            w->bad = 1;
        return;
    }
    *ptr = NULL;
    long long c = -1;
    if (w->bad || fread(&c, sizeof c, 1, w->f) != 1 || c > (long long)(SIZE_MAX / 2 / size)) {
        w->bad = 1;
        return;
    }
    if (c < 0) return;
    *ptr = malloc((size_t)c * size + 1);
    if (!*ptr || fread(*ptr, size, (size_t)c, w->f) != (size_t)c) {
        free(*ptr);
        *ptr = NULL;
        w->bad = 1;
    }
}

static void wire_string(wire *w, char **s)
{
    wire_array(w, s, !w->receive && *s ? strlen(*s) + 1 : 0, 1);
}

static void wire_csr(wire *w, ncp_csr *S)
{
    wire_array(w, &S->rowptr, (size_t)S->m + 1, sizeof(int));
    wire_array(w, &S->col, (size_t)S->nnz, sizeof(int));
    wire_array(w, &S->val, (size_t)S->nnz, sizeof(double));
}

static void wire_problem(wire *w, ncp_problem *p)
{
    const size_t m = (size_t)p->m, nv = (size_t)p->nv;
    wire_string(w, &p->name);
    wire_string(w, &p->scene);
    wire_string(w, &p->driver);
    wire_string(w, &p->title);
    wire_string(w, &p->description);
    wire_string(w, &p->provenance_note);
    wire_array(w, &p->blocks, (size_t)p->nblocks, sizeof(ncp_block));
    wire_array(w, &p->contacts, (size_t)p->ncontacts, sizeof(ncp_contact_info));
    wire_array(w, &p->A, nv * nv, sizeof(double));
    wire_array(w, &p->b, nv, sizeof(double));
    wire_array(w, &p->e, m, sizeof(double));
    wire_array(w, &p->D, m * m, sizeof(double));
    wire_array(w, &p->vf, m, sizeof(double));
    wire_array(w, &p->guess_lambda, m, sizeof(double));
    wire_array(w, &p->guess_v, nv, sizeof(double));
    wire_csr(w, &p->J);
    wire_csr(w, &p->A_sparse);
    wire_array(w, &p->structure, 1, sizeof(ncp_structure));
    ncp_structure *s = p->structure;
    if (!s) return;
    if (w->receive) { /* its pointers are the sender's until read below */
        s->sub_dof_start = s->sub_ndof = NULL;
        s->bodies = NULL;
        s->links = NULL;
        s->dof_diag = NULL;
        if (w->bad) return;
    }
    wire_array(w, &s->sub_dof_start, (size_t)s->nsub, sizeof(int));
    wire_array(w, &s->sub_ndof, (size_t)s->nsub, sizeof(int));
    wire_array(w, &s->dof_diag, nv, sizeof(double));
    wire_array(w, &s->bodies, (size_t)s->nbodies, sizeof(ncp_structure_body));
    for (int i = 0; s->bodies && i < s->nbodies; i++)
        wire_array(w, &s->bodies[i].Jb, 6 * (size_t)s->bodies[i].ndof, sizeof(double));
    wire_array(w, &s->links, (size_t)s->nlinks, sizeof(ncp_structure_link));
    for (int i = 0; s->links && i < s->nlinks; i++) {
        const ncp_structure_link *l = &s->links[i];
        int rows = (p->blocks && l->block >= 0 && l->block < p->nblocks)
                       ? ncp_block_type_size(p->blocks[l->block].type) : 0;
        wire_array(w, &s->links[i].Jib, 6 * (size_t)rows, sizeof(double));
    }
}

int ncp_problem_send(FILE *f, const ncp_problem *p)
{
    ncp_problem q = *p; /* the walk takes the pointers' addresses; it writes through none */
    wire w = {f, 0, fwrite(&q, sizeof q, 1, f) != 1};
    wire_problem(&w, &q);
    return w.bad ? -1 : 0;
}

int ncp_problem_receive(FILE *f, ncp_problem *p, ncp_error *err)
{
    ncp_problem_init(p);
    wire w = {f, 1, fread(p, sizeof *p, 1, f) != 1};
    scalars_only(p);
    if (w.bad) ncp_problem_init(p);
    wire_problem(&w, p);
    if (!w.bad) return NCP_OK;
    ncp_problem_free(p);
    return ncp_error_set(err, NCP_ERR_IO, "a problem handed to this process is short or cannot "
                         "be held in memory");
}
