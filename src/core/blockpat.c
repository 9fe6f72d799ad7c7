/* Union sparsity pattern of A and of the blocks' cliques (blockpat.h). */
#include "core/blockpat.h"

#include <stdlib.h>
#include <string.h>

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

void ncp_blockpat_free(ncp_blockpat *pat)
{
    if (!pat) return;
    free(pat->ptr);
    free(pat->idx);
    free(pat->map);
    free(pat->moff);
    memset(pat, 0, sizeof *pat);
}

int ncp_blockpat_find(const ncp_blockpat *pat, int r, int c)
{
    int lo = pat->ptr[r], hi = pat->ptr[r + 1];
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (pat->idx[mid] < c) lo = mid + 1;
        else hi = mid;
    }
    return lo < pat->ptr[r + 1] && pat->idx[lo] == c ? lo : -1;
}

int ncp_blockpat_build(int n, const int *aptr, const int *aidx, int nb, const int *bptr,
                       const int *bcol, int upper, ncp_blockpat *pat, ncp_error *err)
{
    memset(pat, 0, sizeof *pat);
    if (n < 0 || nb < 0)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "blockpat: n = %d, %d blocks", n, nb);
    const size_t n1 = (size_t)n + 1;
    const int nbc = nb > 0 ? bptr[nb] : 0;
    int *cbptr = ncp_calloc(err, n1 + 1, sizeof(int)); /* column -> (block, local index) */
    int *cbl = ncp_malloc(err, 2 * (size_t)nbc + 1, sizeof(int));
    int *mark = ncp_malloc(err, n1, sizeof(int));
    int *pos = ncp_malloc(err, n1, sizeof(int));
    pat->ptr = ncp_calloc(err, n1, sizeof(int));
    pat->moff = ncp_calloc(err, (size_t)nb + 1, sizeof(size_t));
    int rc = NCP_OK;
    if (!cbptr || !cbl || !mark || !pos || !pat->ptr || !pat->moff) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    for (int e = 0; e < nbc; e++) cbptr[bcol[e] + 1]++;
    for (int c = 0; c < n; c++) cbptr[c + 1] += cbptr[c];
    for (int c = 0; c < n; c++) pos[c] = cbptr[c]; /* fill pointer */
    for (int b = 0; b < nb; b++) {
        int q = bptr[b + 1] - bptr[b];
        for (int x = 0; x < q; x++) {
            int t = pos[bcol[bptr[b] + x]]++;
            cbl[2 * t] = b;
            cbl[2 * t + 1] = x;
        }
        pat->moff[b + 1] = pat->moff[b] + (size_t)q * (size_t)q;
    }
    pat->map = ncp_malloc(err, pat->moff[nb] + 1, sizeof(int));
    if (!pat->map) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    /* row r: the diagonal, A's row r and the columns of every block touching r (from r on if
     * upper); pass 0 counts, pass 1 fills and sorts */
    for (int pass = 0; pass < 2; pass++) {
        for (int c = 0; c < n; c++) mark[c] = -1;
        for (int r = 0; r < n; r++) {
            int cnt = 0, *out = pass ? pat->idx + pat->ptr[r] : NULL;
#define BP_ADD(col)                                                                        \
    do {                                                                                   \
        int c_ = (col);                                                                    \
        if ((!upper || c_ >= r) && mark[c_] != r) {                                        \
            mark[c_] = r;                                                                  \
            if (out) out[cnt] = c_;                                                        \
            cnt++;                                                                         \
        }                                                                                  \
    } while (0)
            BP_ADD(r);
            if (aptr)
                for (int e = aptr[r]; e < aptr[r + 1]; e++) BP_ADD(aidx[e]);
            for (int t = cbptr[r]; t < cbptr[r + 1]; t++) {
                int b = cbl[2 * t];
                for (int e = bptr[b]; e < bptr[b + 1]; e++) BP_ADD(bcol[e]);
            }
#undef BP_ADD
            if (!pass) {
                pat->ptr[r + 1] = pat->ptr[r] + cnt;
                continue;
            }
            qsort(out, (size_t)cnt, sizeof(int), cmp_int);
            for (int k = 0; k < cnt; k++) pos[out[k]] = pat->ptr[r] + k;
            /* row r is column x of block b: its map row x (entries below the diagonal -1) */
            for (int t = cbptr[r]; t < cbptr[r + 1]; t++) {
                int b = cbl[2 * t], x = cbl[2 * t + 1], q = bptr[b + 1] - bptr[b];
                const int *cols = bcol + bptr[b];
                int *mp = pat->map + pat->moff[b];
                for (int y = 0; y < q; y++)
                    mp[x + (size_t)q * y] = !upper || cols[y] >= r ? pos[cols[y]] : -1;
            }
        }
        if (!pass) {
            pat->idx = ncp_malloc(err, (size_t)pat->ptr[n] + 1, sizeof(int));
            if (!pat->idx) {
                rc = NCP_ERR_NOMEM;
                goto done;
            }
        }
    }
    pat->n = n;
done:
    free(cbptr);
    free(cbl);
    free(mark);
    free(pos);
    if (rc) ncp_blockpat_free(pat);
    return rc;
}
