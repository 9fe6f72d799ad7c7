/* SAP's sparse Newton matrix, also admm's and fadmm's sparse K (sap_sparse.h). */
#include "solvers/sap_sparse.h"

#include <stdlib.h>
#include <string.h>

static void isort(int *a, int n)
{
    for (int i = 1; i < n; i++) {
        int x = a[i], j = i - 1;
        for (; j >= 0 && a[j] > x; j--) a[j + 1] = a[j];
        a[j + 1] = x;
    }
}

/* Index of c in the sorted a[lo .. hi] (present by construction). */
static int find_sorted(const int *a, int lo, int hi, int c)
{
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (a[mid] < c) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

void ncp_sap_hess_free(ncp_sap_hess *h)
{
    if (!h) return;
    ncp_blockpat_free(&h->pat);
    free(h->aval);
    free(h->val);
    free(h->bptr);
    free(h->bcol);
    free(h->jb);
    ncp_spchol_free(h->F);
    memset(h, 0, sizeof *h);
}

int ncp_sap_hess_init(ncp_sap_hess *h, const ncp_csr *A, const ncp_problem *p, ncp_error *err)
{
    memset(h, 0, sizeof *h);
    const int n = p->nv, nb = p->nblocks;
    const ncp_csr *J = &p->J;
    if (A->m != n || A->n != n || J->n != n || J->m != p->m)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "sparse A + J^T G J: A is %d x %d, "
                             "J %d x %d, nv = %d", A->m, A->n, J->m, J->n, n);
    int *mark = ncp_malloc(err, (size_t)n + 1, sizeof(int));
    h->bptr = ncp_calloc(err, (size_t)nb + 1, sizeof(int));
    int rc = NCP_OK;
    if (!mark || !h->bptr) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    for (int i = 0; i < n; i++) mark[i] = -1;
    /* each block's distinct columns: count, then fill and sort */
    for (int pass = 0; pass < 2; pass++) {
        for (int b = 0; b < nb; b++) {
            int r = p->blocks[b].row, s = ncp_block_type_size(p->blocks[b].type), cnt = 0;
            int *out = pass ? h->bcol + h->bptr[b] : NULL;
            for (int i = r; i < r + s; i++)
                for (int k = J->rowptr[i]; k < J->rowptr[i + 1]; k++)
                    if (mark[J->col[k]] != b + pass * nb) {
                        mark[J->col[k]] = b + pass * nb;
                        if (out) out[cnt] = J->col[k];
                        cnt++;
                    }
            if (pass) {
                isort(out, cnt);
            } else {
                h->bptr[b + 1] = h->bptr[b] + cnt;
                if (cnt > h->maxcol) h->maxcol = cnt;
            }
        }
        if (!pass) {
            h->bcol = ncp_malloc(err, (size_t)h->bptr[nb] + 1, sizeof(int));
            h->jb = ncp_malloc(err, 3 * (size_t)h->maxcol + 1, sizeof(double));
            if (!h->bcol || !h->jb) {
                rc = NCP_ERR_NOMEM;
                goto done;
            }
        }
    }
    /* H's upper triangle: the diagonal, A's and the blocks' cliques (core/blockpat.h) */
    if ((rc = ncp_blockpat_build(n, A->rowptr, A->col, nb, h->bptr, h->bcol, 1, &h->pat, err)))
        goto done;
    size_t nz = (size_t)h->pat.ptr[n] + 1;
    h->aval = ncp_calloc(err, nz, sizeof(double));
    h->val = ncp_calloc(err, nz, sizeof(double));
    if (!h->aval || !h->val) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    h->n = n;
    /* A's upper triangle in H's pattern */
    for (int r = 0; r < n; r++)
        for (int k = A->rowptr[r]; k < A->rowptr[r + 1]; k++)
            if (A->col[k] >= r) h->aval[ncp_blockpat_find(&h->pat, r, A->col[k])] = A->val[k];
    rc = ncp_spchol_analyse(n, h->pat.ptr, h->pat.idx, &h->F, err);
done:
    free(mark);
    if (rc) ncp_sap_hess_free(h);
    return rc;
}

int ncp_sap_hess_factor(ncp_sap_hess *h, const ncp_problem *p, const double *G9, ncp_error *err)
{
    const ncp_csr *J = &p->J;
    memcpy(h->val, h->aval, (size_t)h->pat.ptr[h->n] * sizeof(double));
    for (int b = 0; b < p->nblocks; b++) {
        int r = p->blocks[b].row, s = ncp_block_type_size(p->blocks[b].type);
        const double *G = G9 + 9 * (size_t)b;
        int any = 0;
        for (int i = 0; i < s * s; i++) any |= G[i] != 0.0;
        if (!any) continue; /* open contact */
        const int *bc = h->bcol + h->bptr[b];
        const int nc = h->bptr[b + 1] - h->bptr[b];
        const int *pp = h->pat.map + h->pat.moff[b];
        double *jb = h->jb; /* s x nc, column-major */
        memset(jb, 0, (size_t)s * nc * sizeof(double));
        for (int i = 0; i < s; i++)
            for (int k = J->rowptr[r + i]; k < J->rowptr[r + i + 1]; k++)
                jb[i + s * find_sorted(bc, 0, nc - 1, J->col[k])] += J->val[k];
        /* (J_b^T G J_b)_xy = sum_ij J_ix G_ij J_jy, upper triangle (x <= y) */
        for (int y = 0; y < nc; y++) {
            double gj[3] = {0.0, 0.0, 0.0}; /* G J_b(:, y) */
            for (int i = 0; i < s; i++)
                for (int j = 0; j < s; j++) gj[i] += G[i + s * j] * jb[j + s * y];
            for (int x = 0; x <= y; x++) {
                double t = 0.0;
                for (int i = 0; i < s; i++) t += jb[i + s * x] * gj[i];
                h->val[pp[x + nc * y]] += t;
            }
        }
    }
    int rc = ncp_spchol_factor(h->F, h->val, NULL, 0.0, err);
    return rc ? ncp_error_prefix(err, "sparse A + J^T G J: ") : NCP_OK;
}

void ncp_sap_hess_solve(ncp_sap_hess *h, double *x)
{
    ncp_spchol_solve(h->F, x);
}

void ncp_sap_hess_stats(const ncp_sap_hess *h, size_t *nnz_h, size_t *nnz_l, double *flops)
{
    if (nnz_h) *nnz_h = h->pat.ptr ? (size_t)h->pat.ptr[h->n] : 0;
    ncp_spchol_stats(h->F, nnz_l, flops);
}
