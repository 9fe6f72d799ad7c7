/* The sparse D route of the semismooth Newton driver: J = P + Q D on D's block pattern
 * (nsn_dsparse.h). */
#include "solvers/nsn_dsparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/la.h"
#include "solvers/nsn_sparse.h"

static int block_rows(const ncp_block *b) { return ncp_block_type_size(b->type); }

void ncp_nsn_dsparse_free(ncp_nsn_dsparse *w)
{
    if (!w) return;
    free(w->ptr);
    free(w->idx);
    free(w->off);
    free(w->D);
    free(w->Jv);
    free(w->ti);
    free(w->tj);
    ncp_splu_free(w->N);
    ncp_splu_free(w->L);
    free(w->lx);
    free(w->rhs);
    free(w->sol);
    memset(w, 0, sizeof *w);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Per constraint block, the components of A its rows touch (bc_ptr / bc_idx, nb + 1 and the
 * list), and per component the blocks touching it (cb_ptr / cb_idx). */
typedef struct adjacency {
    int ncomp;
    int *bc_ptr, *bc_idx, *cb_ptr, *cb_idx;
} adjacency;

static void adjacency_free(adjacency *a)
{
    free(a->bc_ptr);
    free(a->bc_idx);
    free(a->cb_ptr);
    free(a->cb_idx);
}

static int adjacency_build(const ncp_problem *p, const int *comp, int ncomp, adjacency *a,
                           ncp_error *err)
{
    const int nb = p->nblocks;
    const ncp_csr *H = &p->J;
    memset(a, 0, sizeof *a);
    a->ncomp = ncomp;
    int *mark = ncp_malloc(err, (size_t)ncomp + 1, sizeof(int));
    a->bc_ptr = ncp_calloc(err, (size_t)nb + 1, sizeof(int));
    a->cb_ptr = ncp_calloc(err, (size_t)ncomp + 1, sizeof(int));
    if (!mark || !a->bc_ptr || !a->cb_ptr) {
        free(mark);
        return NCP_ERR_NOMEM;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < ncomp; k++) mark[k] = -1;
        size_t n = 0;
        for (int bi = 0; bi < nb; bi++) {
            const ncp_block *b = &p->blocks[bi];
            for (int i = b->row; i < b->row + block_rows(b); i++)
                for (int q = H->rowptr[i]; q < H->rowptr[i + 1]; q++) {
                    const int k = comp[H->col[q]];
                    if (mark[k] == bi) continue;
                    mark[k] = bi;
                    if (pass) {
                        a->bc_idx[n] = k;
                        a->cb_idx[a->cb_ptr[k]++] = bi; /* filled forward, shifted back below */
                    } else {
                        a->cb_ptr[k + 1]++;
                    }
                    n++;
                }
            if (!pass) a->bc_ptr[bi + 1] = (int)n;
        }
        if (!pass) {
            for (int k = 0; k < ncomp; k++) a->cb_ptr[k + 1] += a->cb_ptr[k];
            a->bc_idx = ncp_malloc(err, n ? n : 1, sizeof(int));
            a->cb_idx = ncp_malloc(err, n ? n : 1, sizeof(int));
            if (!a->bc_idx || !a->cb_idx) {
                free(mark);
                adjacency_free(a);
                return NCP_ERR_NOMEM;
            }
        }
    }
    for (int k = ncomp; k > 0; k--) a->cb_ptr[k] = a->cb_ptr[k - 1];
    a->cb_ptr[0] = 0;
    free(mark);
    return NCP_OK;
}

/* The adjacency of p's constraint blocks and A's connected components (the bodies). */
static int adjacency_of(const ncp_problem *p, adjacency *a, ncp_error *err)
{
    ncp_csr own;
    const ncp_csr *A;
    int rc = ncp_problem_mass_csr(p, &own, &A, err);
    if (rc) return rc;
    int *comp = NULL, ncomp = 0;
    if (A->m != p->nv || A->n != p->nv) {
        rc = ncp_error_set(err, NCP_ERR_INPUT, "sparse Newton matrix: problem '%s': A is %d x %d, "
                           "J has %d columns", p->name ? p->name : "?", A->m, A->n, p->nv);
    } else if (!(comp = ncp_malloc(err, (size_t)p->nv, sizeof(int)))) {
        rc = NCP_ERR_NOMEM;
    } else if ((ncomp = ncp_csr_components(A, comp, err)) < 0) {
        rc = -ncomp;
    }
    ncp_csr_free(&own);
    if (!rc) rc = adjacency_build(p, comp, ncomp, a, err);
    free(comp);
    return rc;
}

/* D's block pattern: block column c meets c and every block touching a component c touches. */
static int pattern_build(ncp_nsn_dsparse *w, const adjacency *a, ncp_error *err)
{
    const ncp_problem *p = w->p;
    const int nb = p->nblocks;
    int *mark = ncp_malloc(err, (size_t)nb + 1, sizeof(int));
    w->ptr = ncp_calloc(err, (size_t)nb + 1, sizeof(int));
    if (!mark || !w->ptr) {
        free(mark);
        return NCP_ERR_NOMEM;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (int bi = 0; bi < nb; bi++) mark[bi] = -1;
        size_t n = 0;
        for (int c = 0; c < nb; c++) {
            const size_t start = n;
            mark[c] = c;
            if (pass) w->idx[n] = c;
            n++;
            for (int t = a->bc_ptr[c]; t < a->bc_ptr[c + 1]; t++) {
                const int k = a->bc_idx[t];
                for (int s = a->cb_ptr[k]; s < a->cb_ptr[k + 1]; s++) {
                    const int b = a->cb_idx[s];
                    if (mark[b] == c) continue;
                    mark[b] = c;
                    if (pass) w->idx[n] = b;
                    n++;
                }
            }
            if (n > 0x7fffffff) {
                free(mark);
                return ncp_error_set(err, NCP_ERR_INPUT, "sparse Newton matrix of problem '%s': "
                                     "D has more than 2^31 nonzero blocks", p->name ? p->name
                                                                                  : "?");
            }
            if (pass) qsort(w->idx + start, n - start, sizeof(int), cmp_int);
            else w->ptr[c + 1] = (int)n;
        }
        if (!pass && !(w->idx = ncp_malloc(err, n ? n : 1, sizeof(int)))) {
            free(mark);
            return NCP_ERR_NOMEM;
        }
    }
    free(mark);
    const size_t nq = (size_t)w->ptr[nb];
    if (!(w->off = ncp_malloc(err, nq + 1, sizeof(size_t)))) return NCP_ERR_NOMEM;
    size_t o = 0;
    for (int c = 0; c < nb; c++)
        for (int q = w->ptr[c]; q < w->ptr[c + 1]; q++) {
            w->off[q] = o;
            o += (size_t)block_rows(&p->blocks[w->idx[q]]) * (size_t)block_rows(&p->blocks[c]);
        }
    w->off[nq] = o;
    w->nval = o;
    return NCP_OK;
}

int ncp_nsn_dsparse_init(ncp_nsn_dsparse *w, const ncp_problem *p, ncp_error *err)
{
    memset(w, 0, sizeof *w);
    const char *name = p->name ? p->name : "?";
    int rc = ncp_nsn_sparse_check(p, err);
    if (rc) return rc;
    w->p = p;
    w->m = p->m;
    adjacency a;
    rc = adjacency_of(p, &a, err);
    if (!rc) {
        rc = pattern_build(w, &a, err);
        adjacency_free(&a);
    }
    const size_t nval = w->nval, m = (size_t)p->m;
    if (!rc) {
        w->D = ncp_calloc(err, nval ? nval : 1, sizeof(double));
        w->Jv = ncp_calloc(err, nval ? nval : 1, sizeof(double));
        w->ti = ncp_malloc(err, 2 * nval + 2 * m, sizeof(int));
        w->tj = ncp_malloc(err, 2 * nval + 2 * m, sizeof(int));
        w->rhs = ncp_calloc(err, 2 * m, sizeof(double));
        w->sol = ncp_calloc(err, 2 * m, sizeof(double));
        if (!w->D || !w->Jv || !w->ti || !w->tj || !w->rhs || !w->sol) rc = NCP_ERR_NOMEM;
    }
    if (!rc) { /* J's positions, in Jv's order */
        size_t k = 0;
        for (int c = 0; c < p->nblocks; c++) {
            const int rc0 = p->blocks[c].row, nc = block_rows(&p->blocks[c]);
            for (int q = w->ptr[c]; q < w->ptr[c + 1]; q++) {
                const ncp_block *b = &p->blocks[w->idx[q]];
                for (int jj = 0; jj < nc; jj++)
                    for (int ii = 0; ii < block_rows(b); ii++, k++) {
                        w->ti[k] = b->row + ii;
                        w->tj[k] = rc0 + jj;
                    }
            }
        }
        rc = ncp_splu_analyse(p->m, nval, w->ti, w->tj, 1, NULL, &w->N, err);
        if (rc) ncp_error_prefix(err, "sparse Newton matrix of problem '%s': ", name);
    }
    if (rc) ncp_nsn_dsparse_free(w);
    return rc;
}

int ncp_nsn_dsparse_init_lm(ncp_nsn_dsparse *w, ncp_error *err)
{
    if (w->L) return NCP_OK;
    const int m = w->m;
    const size_t nval = w->nval, nz = 2 * nval + 2 * (size_t)m;
    if (!(w->lx = ncp_malloc(err, nz, sizeof(double)))) return NCP_ERR_NOMEM;
    /* (r, d) at offsets 0, m: J at (i, m + j), J^T at (m + j, i), then the two diagonals */
    int *ti = w->ti, *tj = w->tj;
    for (size_t k = 0; k < nval; k++) {
        const int i = ti[k], j = tj[k];
        ti[nval + k] = m + j;
        tj[nval + k] = i;
        tj[k] = m + j; /* (i, j) of N becomes (i, m + j); N keeps its own copy of the pattern */
    }
    for (int i = 0; i < m; i++) {
        ti[2 * nval + (size_t)i] = tj[2 * nval + (size_t)i] = i;
        ti[2 * nval + (size_t)m + (size_t)i] = tj[2 * nval + (size_t)m + (size_t)i] = m + i;
    }
    int rc = ncp_splu_analyse(2 * m, nz, ti, tj, 1, NULL, &w->L, err);
    if (rc)
        return ncp_error_prefix(err, "Levenberg-Marquardt matrix of problem '%s': ",
                                w->p->name ? w->p->name : "?");
    return NCP_OK;
}

double ncp_nsn_dsparse_flops(const ncp_nsn_dsparse *w)
{
    double flops, lu;
    ncp_splu_stats(w->N, &flops, &lu);
    /* J's assembly (Q_b D_bc: 2 n_b flops per entry, at most 6), the factorisation, a solve (2
     * flops per entry of L and U) with two refinement steps (each a solve and a product) */
    return 6.0 * (double)w->nval + flops + 3.0 * 2.0 * lu + 2.0 * 2.0 * (double)w->nval;
}

int ncp_nsn_dsparse_flops_bound(const ncp_problem *p, double *bound, ncp_error *err)
{
    *bound = INFINITY;
    int rc = ncp_nsn_sparse_check(p, err);
    adjacency a;
    if (rc || (rc = adjacency_of(p, &a, err))) return rc;
    const int nb = p->nblocks;
    /* the pattern's scalar entries, counted as pattern_build lists its blocks (no list kept) */
    int *mark = ncp_malloc(err, (size_t)nb + 1, sizeof(int));
    if (!mark) {
        adjacency_free(&a);
        return NCP_ERR_NOMEM;
    }
    for (int b = 0; b < nb; b++) mark[b] = -1;
    double nval = 0.0;
    for (int c = 0; c < nb; c++) {
        const double nc = block_rows(&p->blocks[c]);
        mark[c] = c;
        nval += nc * nc;
        for (int t = a.bc_ptr[c]; t < a.bc_ptr[c + 1]; t++)
            for (int s = a.cb_ptr[a.bc_idx[t]]; s < a.cb_ptr[a.bc_idx[t] + 1]; s++) {
                const int b = a.cb_idx[s];
                if (mark[b] == c) continue;
                mark[b] = c;
                nval += nc * block_rows(&p->blocks[b]);
            }
    }
    free(mark);
    adjacency_free(&a);
    /* The factorisation's flops, UMFPACK's estimate, bound the count of any elimination in its
     * column order with the pivots on the diagonal (the estimate assumes any pivot row): with
     * l_j the entries of L's column j below the diagonal (U's row j has as many, the pattern
     * being symmetric), l_j divisions and 2 l_j^2 for the update (UMFPACK's and AMD's count).
     * In any order l_j >= the neighbours of j eliminated after it, which sum to the pattern's
     * E = (nval - m) / 2 edges, so sum l_j >= E and sum l_j^2 >= E^2 / m (Cauchy-Schwarz):
     * flops >= E + 2 E^2 / m, whatever order AMD picks (the fill, which this leaves out, is
     * what only the analysis knows). Then as ncp_nsn_dsparse_flops, with UMFPACK's estimated
     * entries of L and U (each with its diagonal) at least the pattern's. */
    const double m = p->m > 0 ? p->m : 1, e = 0.5 * (nval - (double)p->m);
    *bound = (6.0 + 3.0 * 2.0 + 2.0 * 2.0) * nval + e + 2.0 * e * e / m;
    return NCP_OK;
}

int ncp_nsn_dsparse_set_d(ncp_nsn_dsparse *w, const ncp_jmap *Y, ncp_error *err)
{
    const ncp_problem *p = w->p;
    const ncp_csr *H = &p->J;
    const int m = p->m, nv = p->nv, nb = p->nblocks;
    if (Y->m != m || Y->n != nv)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "sparse D: Y = A^-1 J^T has %d columns "
                             "over %d DOFs, J is %d x %d", Y->m, Y->n, m, nv);
    /* H^T by columns of H: the rows of each DOF */
    int *tp = ncp_calloc(err, (size_t)nv + 1, sizeof(int));
    int *tr = ncp_malloc(err, (size_t)H->nnz + 1, sizeof(int));
    double *tv = ncp_malloc(err, (size_t)H->nnz + 1, sizeof(double));
    double *acc = ncp_calloc(err, (size_t)m, sizeof(double));
    int *blk = ncp_malloc(err, (size_t)m, sizeof(int));
    int *touched = ncp_malloc(err, (size_t)m, sizeof(int));
    char *on = ncp_calloc(err, (size_t)m, 1);
    int *pos = ncp_malloc(err, (size_t)nb + 1, sizeof(int));
    int rc = NCP_OK;
    if (!tp || !tr || !tv || !acc || !blk || !touched || !on || !pos) rc = NCP_ERR_NOMEM;
    if (!rc) {
        for (int q = 0; q < H->nnz; q++) tp[H->col[q] + 1]++;
        for (int k = 0; k < nv; k++) tp[k + 1] += tp[k];
        for (int i = 0; i < m; i++)
            for (int q = H->rowptr[i]; q < H->rowptr[i + 1]; q++) {
                const int t = tp[H->col[q]]++;
                tr[t] = i;
                tv[t] = H->val[q];
            }
        for (int k = nv; k > 0; k--) tp[k] = tp[k - 1];
        tp[0] = 0;
        for (int i = 0; i < m; i++) blk[i] = -1;
        for (int bi = 0; bi < nb; bi++) {
            pos[bi] = -1;
            for (int i = 0; i < block_rows(&p->blocks[bi]); i++) blk[p->blocks[bi].row + i] = bi;
        }
    }
    /* column j of D = H Y_j: Y_j scattered through H^T into acc, then read off the blocks */
    for (int c = 0; !rc && c < nb; c++) {
        const int rc0 = p->blocks[c].row, nc = block_rows(&p->blocks[c]);
        for (int q = w->ptr[c]; q < w->ptr[c + 1]; q++) pos[w->idx[q]] = q;
        for (int jj = 0; !rc && jj < nc; jj++) {
            int nt = 0;
            for (size_t e = Y->ptr[rc0 + jj]; e < Y->ptr[rc0 + jj + 1]; e++) {
                const int k = Y->idx[e];
                const double y = Y->val[e];
                for (int t = tp[k]; t < tp[k + 1]; t++) {
                    const int i = tr[t];
                    acc[i] += tv[t] * y;
                    if (!on[i]) {
                        on[i] = 1;
                        touched[nt++] = i;
                    }
                }
            }
            for (int t = 0; t < nt; t++) {
                const int i = touched[t], b = blk[i];
                if (b < 0 || pos[b] < 0) {
                    rc = ncp_error_set(err, NCP_ERR_INTERNAL, "sparse D of problem '%s': row %d "
                                       "meets row %d outside D's block pattern",
                                       p->name ? p->name : "?", rc0 + jj, i);
                    break;
                }
                const int nbk = block_rows(&p->blocks[b]);
                w->D[w->off[pos[b]] + (size_t)(i - p->blocks[b].row) + (size_t)nbk * jj] = acc[i];
            }
            for (int t = 0; t < nt; t++) {
                acc[touched[t]] = 0.0;
                on[touched[t]] = 0;
            }
        }
        for (int q = w->ptr[c]; q < w->ptr[c + 1]; q++) pos[w->idx[q]] = -1;
    }
    free(tp);
    free(tr);
    free(tv);
    free(acc);
    free(blk);
    free(touched);
    free(on);
    free(pos);
    return rc;
}

void ncp_nsn_dsparse_set(ncp_nsn_dsparse *w, const double *P, const double *Q)
{
    const ncp_problem *p = w->p;
    w->P = P;
    w->Q = Q;
    for (int c = 0; c < p->nblocks; c++) {
        const int nc = block_rows(&p->blocks[c]);
        for (int q = w->ptr[c]; q < w->ptr[c + 1]; q++) {
            const int bi = w->idx[q];
            const ncp_block *b = &p->blocks[bi];
            const int n = block_rows(b);
            const double *Qb = Q + 3 * (size_t)b->row, *Pb = P + 3 * (size_t)b->row;
            const double *Db = w->D + w->off[q];
            double *Jb = w->Jv + w->off[q];
            for (int jj = 0; jj < nc; jj++)
                for (int ii = 0; ii < n; ii++) {
                    double s = 0.0;
                    for (int l = 0; l < n; l++) s += Qb[ii + n * l] * Db[l + n * jj];
                    Jb[ii + n * jj] = bi == c ? s + Pb[ii + n * jj] : s;
                }
        }
    }
}

void ncp_nsn_dsparse_apply(const ncp_nsn_dsparse *w, const double *x, double *y)
{
    const ncp_problem *p = w->p;
    ncp_zero(w->m, y);
    for (int c = 0; c < p->nblocks; c++) {
        const int rc0 = p->blocks[c].row, nc = block_rows(&p->blocks[c]);
        for (int q = w->ptr[c]; q < w->ptr[c + 1]; q++) {
            const ncp_block *b = &p->blocks[w->idx[q]];
            const int n = block_rows(b);
            const double *Jb = w->Jv + w->off[q];
            for (int jj = 0; jj < nc; jj++) {
                const double xj = x[rc0 + jj];
                for (int ii = 0; ii < n; ii++) y[b->row + ii] += Jb[ii + n * jj] * xj;
            }
        }
    }
}

int ncp_nsn_dsparse_newton(ncp_nsn_dsparse *w, const double *b, double *d)
{
    ncp_error e;
    ncp_error_clear(&e);
    if (ncp_splu_factor(w->N, w->Jv, &e) != NCP_OK) return 0; /* singular (or failed) */
    return ncp_splu_solve(w->N, b, d, &e) == NCP_OK;
}

int ncp_nsn_dsparse_lm(ncp_nsn_dsparse *w, double delta, const double *b, double *d)
{
    const int m = w->m;
    const size_t nval = w->nval;
    ncp_error e;
    ncp_error_clear(&e);
    if (ncp_nsn_dsparse_init_lm(w, &e) != NCP_OK) return 0;
    memcpy(w->lx, w->Jv, nval * sizeof(double));
    memcpy(w->lx + nval, w->Jv, nval * sizeof(double));
    for (int i = 0; i < m; i++) {
        w->lx[2 * nval + (size_t)i] = 1.0;
        w->lx[2 * nval + (size_t)m + (size_t)i] = -delta;
    }
    if (ncp_splu_factor(w->L, w->lx, &e) != NCP_OK) return 0;
    ncp_copy(m, b, w->rhs);
    ncp_zero(m, w->rhs + m);
    if (ncp_splu_solve(w->L, w->rhs, w->sol, &e) != NCP_OK) return 0;
    ncp_copy(m, w->sol + m, d);
    return 1;
}
