/* The fixed sparsity pattern of a Newton matrix A + sum_b J_b^T W_b J_b (SAP's H, Castro et al.
 * 2023 eq. 24's Hessian; canal's A + beta sum_i J_i^T G_i J_i, Lee et al. 2025 eq. 25): the
 * union of A's pattern and of every block's clique on the columns its J rows touch, with the
 * diagonal. It does not depend on the blocks' weights (a block with W_b = 0 only stores zeros),
 * so a solver builds it once per solve, analyses it once (core/sparse_chol.h,
 * ncp_spchol_analyse) and scatters each Newton step's values through the blocks' maps before
 * ncp_spchol_factor. The values stay with the solver: this module only says where they go. */
#ifndef NCP_BLOCKPAT_H
#define NCP_BLOCKPAT_H

#include <stddef.h>

#include "util/ncp_error.h"

typedef struct ncp_blockpat {
    int n;
    int *ptr, *idx; /* the pattern, CSR (ptr[n + 1], idx[ptr[n]]), each row sorted ascending,
                       the diagonal always included */
    int *map;       /* block b: q x q column-major, entry (x, y) = position in idx of
                       (bcol[x], bcol[y]), -1 where not stored (upper: x > y); at map + moff[b] */
    size_t *moff;   /* nb + 1 offsets */
} ncp_blockpat;

/* Builds the union pattern for n x n A (pattern aptr[n + 1], aidx: rows of A, any order,
 * duplicates and the diagonal allowed; aptr NULL: no A) and nb blocks, block b's columns being
 * bcol[bptr[b] .. bptr[b + 1]) (sorted ascending, distinct, in [0, n)). upper = 1 keeps the
 * upper triangle only (column >= row; an entry of aidx below the diagonal is left out, so give
 * A's upper triangle or both), upper = 0 both triangles (A's pattern must then be symmetric for
 * the result to be). On error pat is left empty. */
int ncp_blockpat_build(int n, const int *aptr, const int *aidx, int nb, const int *bptr,
                       const int *bcol, int upper, ncp_blockpat *pat, ncp_error *err);
/* Position of entry (r, c) in pat->idx, -1 if not stored. */
int ncp_blockpat_find(const ncp_blockpat *pat, int r, int c);
void ncp_blockpat_free(ncp_blockpat *pat);

#endif
