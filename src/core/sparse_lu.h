/* Sparse LU of a general (unsymmetric) square matrix with a fixed pattern: analysed once,
 * refactorised numerically for each value set, by UMFPACK (Davis 2004, "Algorithm 832: UMFPACK
 * V4.3, an unsymmetric-pattern multifrontal method", ACM TOMS 30(2)) when ncpbench is built with
 * SuiteSparse (NCP_HAVE_UMFPACK, -Dsuitesparse); without it ncp_splu_available() is 0 and
 * ncp_splu_analyse returns NCP_ERR_INPUT saying so.
 *
 * The matrix is given as a list of nz (row, column) positions, duplicates allowed (summed), in
 * a fixed order; each factorisation reads the nz values in that order. The semismooth Newton
 * solvers' sparse Newton systems (solvers/nsn_sparse.h, nsn_dsparse.h) are its users. */
#ifndef NCP_SPARSE_LU_H
#define NCP_SPARSE_LU_H

#include <stddef.h>

#include "util/ncp_error.h"

typedef struct ncp_splu ncp_splu;

/* 1 when built with UMFPACK. */
int ncp_splu_available(void);
/* Orders and analyses the n x n pattern of the nz positions (ti[k], tj[k]), 0-based, with a
 * fill-reducing ordering: sym = 0 UMFPACK's automatic strategy (a column ordering with partial
 * pivoting anywhere in the column for an unsymmetric pattern, e.g. a saddle form with zero
 * diagonal blocks); sym = 1 its symmetric strategy (the diagonal preferred as pivot: the order
 * AMD's on A + A^T, the diagonal accepted when at least 1e-3 of its column's largest entry; or
 * `order` when given, order[k] = the k-th unknown, kept for rows and columns, the diagonal
 * accepted down to 1e-10 of its column: static pivoting), for a structurally symmetric
 * pattern whose diagonal is pivotable in that order. NCP_ERR_INPUT without UMFPACK or for an
 * index out of range, NCP_ERR_NOMEM. */
int ncp_splu_analyse(int n, size_t nz, const int *ti, const int *tj, int sym, const int *order,
                     ncp_splu **out, ncp_error *err);
/* Estimated flops of one numeric factorisation and entries of L and U, before any
 * factorisation: UMFPACK's symbolic estimates (upper bounds: any row may pivot); with an order
 * given, those of diagonal pivots in that order (twice the Cholesky counts of A + A^T's pattern,
 * by CHOLMOD's symbolic analysis), exact while the pivots stay on the diagonal. */
void ncp_splu_stats(const ncp_splu *F, double *flops, double *lu_nnz);
/* Numeric factorisation with the values tx (nz, in the positions' order; duplicates summed).
 * Returns NCP_OK, 1 when the matrix is singular (a zero pivot: the factor is unusable), or
 * NCP_ERR_NOMEM / NCP_ERR_NUMERIC. */
int ncp_splu_factor(ncp_splu *F, const double *tx, ncp_error *err);
/* x = A^-1 b for the last factorisation (with UMFPACK's iterative refinement on A, at most two
 * steps); x and b must not overlap. NCP_ERR_NUMERIC when the solve fails (singular factor). */
int ncp_splu_solve(ncp_splu *F, const double *b, double *x, ncp_error *err);
void ncp_splu_free(ncp_splu *F);

#endif
