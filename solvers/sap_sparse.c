/* SAP's sparse Newton matrix (sap_sparse.h). */
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

/* Position of column c in H's row r. */
static int hpos(const ncp_sap_hess *h, int r, int c)
{
    return find_sorted(h->idx, h->ptr[r], h->ptr[r + 1] - 1, c);
}

void ncp_sap_hess_free(ncp_sap_hess *h)
{
    if (!h) return;
    free(h->ptr);
    free(h->idx);
    free(h->aval);
    free(h->val);
    free(h->bptr);
    free(h->bcol);
    free(h->ppos);
    free(h->pptr);
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
        return ncp_error_set(err, NCP_ERR_INTERNAL, "sap: sparse Newton matrix: A is %d x %d, "
                             "J %d x %d, nv = %d", A->m, A->n, J->m, J->n, n);
    size_t n1 = (size_t)n + 1;
    int *mark = ncp_malloc(err, n1, sizeof(int));
    int *cbptr = ncp_calloc(err, n1 + 1, sizeof(int));
    h->bptr = ncp_calloc(err, (size_t)nb + 1, sizeof(int));
    h->pptr = ncp_calloc(err, (size_t)nb + 1, sizeof(size_t));
    h->ptr = ncp_calloc(err, n1, sizeof(int));
    int *cbidx = NULL, *fill = NULL, rc = NCP_OK;
    if (!mark || !cbptr || !h->bptr || !h->pptr || !h->ptr) {
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
                h->pptr[b + 1] = h->pptr[b] + (size_t)cnt * cnt;
                if (cnt > h->maxcol) h->maxcol = cnt;
            }
        }
        if (!pass) {
            h->bcol = ncp_malloc(err, (size_t)h->bptr[nb] + 1, sizeof(int));
            h->ppos = ncp_malloc(err, h->pptr[nb] + 1, sizeof(int));
            h->jb = ncp_malloc(err, 3 * (size_t)h->maxcol + 1, sizeof(double));
            if (!h->bcol || !h->ppos || !h->jb) {
                rc = NCP_ERR_NOMEM;
                goto done;
            }
        }
    }
    /* blocks touching each column */
    for (int q = 0; q < h->bptr[nb]; q++) cbptr[h->bcol[q] + 1]++;
    for (int c = 0; c < n; c++) cbptr[c + 1] += cbptr[c];
    cbidx = ncp_malloc(err, (size_t)cbptr[n] + 1, sizeof(int));
    fill = ncp_calloc(err, n1, sizeof(int));
    if (!cbidx || !fill) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    for (int b = 0; b < nb; b++)
        for (int q = h->bptr[b]; q < h->bptr[b + 1]; q++)
            cbidx[cbptr[h->bcol[q]] + fill[h->bcol[q]]++] = b;
    /* H's rows (upper triangle): the diagonal, A's row from the diagonal on, and every column
     * >= c of the blocks touching c; count, then fill and sort */
    for (int i = 0; i < n; i++) mark[i] = -1;
    for (int pass = 0; pass < 2; pass++) {
        for (int c = 0; c < n; c++) {
            int cnt = 0, *out = pass ? h->idx + h->ptr[c] : NULL, tag = c + pass * n;
#define HS_ADD(col)                                                                        \
    do {                                                                                   \
        int col_ = (col);                                                                  \
        if (col_ >= c && mark[col_] != tag) {                                              \
            mark[col_] = tag;                                                              \
            if (out) out[cnt] = col_;                                                      \
            cnt++;                                                                         \
        }                                                                                  \
    } while (0)
            HS_ADD(c);
            for (int k = A->rowptr[c]; k < A->rowptr[c + 1]; k++) HS_ADD(A->col[k]);
            for (int t = cbptr[c]; t < cbptr[c + 1]; t++) {
                int b = cbidx[t];
                for (int q = h->bptr[b]; q < h->bptr[b + 1]; q++) HS_ADD(h->bcol[q]);
            }
#undef HS_ADD
            if (pass) isort(out, cnt);
            else h->ptr[c + 1] = h->ptr[c] + cnt;
        }
        if (!pass) {
            size_t nz = (size_t)h->ptr[n] + 1;
            h->idx = ncp_malloc(err, nz, sizeof(int));
            h->aval = ncp_calloc(err, nz, sizeof(double));
            h->val = ncp_calloc(err, nz, sizeof(double));
            if (!h->idx || !h->aval || !h->val) {
                rc = NCP_ERR_NOMEM;
                goto done;
            }
            for (int i = 0; i < n; i++) mark[i] = -1;
        }
    }
    h->n = n;
    /* A's upper triangle in H's pattern; the blocks' (a <= b) positions */
    for (int r = 0; r < n; r++)
        for (int k = A->rowptr[r]; k < A->rowptr[r + 1]; k++)
            if (A->col[k] >= r) h->aval[hpos(h, r, A->col[k])] = A->val[k];
    for (int b = 0; b < nb; b++) {
        const int *bc = h->bcol + h->bptr[b];
        int nc = h->bptr[b + 1] - h->bptr[b];
        int *pp = h->ppos + h->pptr[b];
        for (int x = 0; x < nc; x++)
            for (int y = 0; y < nc; y++) pp[x + nc * y] = x <= y ? hpos(h, bc[x], bc[y]) : -1;
    }
    rc = ncp_spchol_analyse(n, h->ptr, h->idx, &h->F, err);
done:
    free(mark);
    free(cbptr);
    free(cbidx);
    free(fill);
    if (rc) ncp_sap_hess_free(h);
    return rc;
}

int ncp_sap_hess_factor(ncp_sap_hess *h, const ncp_problem *p, const double *G9, ncp_error *err)
{
    const ncp_csr *J = &p->J;
    memcpy(h->val, h->aval, (size_t)h->ptr[h->n] * sizeof(double));
    for (int b = 0; b < p->nblocks; b++) {
        int r = p->blocks[b].row, s = ncp_block_type_size(p->blocks[b].type);
        const double *G = G9 + 9 * (size_t)b;
        int any = 0;
        for (int i = 0; i < s * s; i++) any |= G[i] != 0.0;
        if (!any) continue; /* open contact */
        const int *bc = h->bcol + h->bptr[b];
        const int nc = h->bptr[b + 1] - h->bptr[b];
        const int *pp = h->ppos + h->pptr[b];
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
    return rc ? ncp_error_prefix(err, "sap: sparse Newton matrix A + J^T G J: ") : NCP_OK;
}

void ncp_sap_hess_solve(ncp_sap_hess *h, double *x)
{
    ncp_spchol_solve(h->F, x);
}

void ncp_sap_hess_stats(const ncp_sap_hess *h, size_t *nnz_h, size_t *nnz_l, double *flops)
{
    if (nnz_h) *nnz_h = h->ptr ? (size_t)h->ptr[h->n] : 0;
    ncp_spchol_stats(h->F, nnz_l, flops);
}
