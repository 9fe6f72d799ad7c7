/* Shared linear algebra: the one place where BLAS/LAPACK are called. Dense matrices are
 * column-major (LAPACK's order) with explicit dimensions; sparse matrices are CSR (rows are
 * constraints, so J_i is a contiguous row range). Every solver and metric uses these. */
#ifndef NCP_LA_H
#define NCP_LA_H

#include "util/ncp_error.h"

/* ---- dense vectors ---- */
double ncp_dot(int n, const double *x, const double *y);
double ncp_norm2(int n, const double *x);
double ncp_norminf(int n, const double *x);
void ncp_axpy(int n, double a, const double *x, double *y);         /* y += a x */
void ncp_copy(int n, const double *x, double *y);
void ncp_scal(int n, double a, double *x);
void ncp_zero(int n, double *x);
int ncp_all_finite(int n, const double *x);                          /* 1 if no NaN/Inf */
int ncp_all_zero(int n, const double *x);                            /* 1 if every x_i == 0 */

/* ---- dense matrices (column-major, leading dimension = rows) ---- */
/* y = alpha * op(A) x + beta y, A is m x n, op = A (trans = 0) or A^T (trans = 1). */
void ncp_gemv(int trans, int m, int n, double alpha, const double *A, const double *x,
              double beta, double *y);
/* C = alpha op(A) op(B) + beta C; op(A) is m x k, op(B) is k x n. */
void ncp_gemm(int transa, int transb, int m, int n, int k, double alpha, const double *A,
              const double *B, double beta, double *C);
/* Tile edge of the blocked passes over a dense matrix and its transpose (ncp_symmetrize). */
#define NCP_LA_TILE 64
void ncp_symmetrize(int n, double *A); /* A = (A + A^T)/2 */

/* Cholesky of an SPD n x n matrix, in place (lower factor L, A = L L^T); the strict upper part
 * is left untouched. Returns NCP_ERR_NUMERIC with a message if A is not positive definite. */
int ncp_chol_factor(int n, double *A, ncp_error *err);
/* Solve (L L^T) X = B in place for nrhs right-hand sides (B is n x nrhs). */
int ncp_chol_solve(int n, const double *L, int nrhs, double *B, ncp_error *err);
/* Solve L X = B in place (trans = 0) or L^T X = B (trans = 1) with the lower Cholesky factor
 * of ncp_chol_factor; B is n x nrhs. */
void ncp_trsm_lower(int trans, int n, const double *L, int nrhs, double *B);
/* Solve a general square system A X = B by LU with partial pivoting; A is overwritten, ipiv
 * needs n ints. Returns NCP_ERR_NUMERIC if singular. */
int ncp_lu_solve(int n, double *A, int *ipiv, int nrhs, double *B, ncp_error *err);

/* Symmetric eigendecomposition A = Q diag(w) Q^T (LAPACK dsyev): A (n x n, column-major) is
 * overwritten by Q, w (n) receives the eigenvalues in ascending order. */
int ncp_sym_eig(int n, double *A, double *w, ncp_error *err);

/* ---- sparse CSR ---- */
typedef struct ncp_csr {
    int m, n, nnz;
    int *rowptr; /* m + 1 */
    int *col;    /* nnz, sorted within each row */
    double *val; /* nnz */
} ncp_csr;

int ncp_csr_alloc(ncp_csr *S, int m, int n, int nnz, ncp_error *err);
void ncp_csr_free(ncp_csr *S);
/* Builds S from a dense column-major m x n matrix, keeping entries with |a| > drop (use 0 to
 * keep every non-zero). */
int ncp_csr_from_dense(ncp_csr *S, int m, int n, const double *A, double drop, ncp_error *err);
void ncp_csr_to_dense(const ncp_csr *S, double *A); /* A is m x n column-major, overwritten */
int ncp_csr_copy(ncp_csr *dst, const ncp_csr *src, ncp_error *err);
/* y = alpha S x + beta y */
void ncp_csr_gemv(const ncp_csr *S, double alpha, const double *x, double beta, double *y);
/* y = alpha S^T x + beta y */
void ncp_csr_gemv_t(const ncp_csr *S, double alpha, const double *x, double beta, double *y);
/* Row r of S times x. */
double ncp_csr_row_dot(const ncp_csr *S, int r, const double *x);
/* S_ii (square S): the stored entry (i, i), the last one if the row repeats it; 0 if absent. */
double ncp_csr_diag(const ncp_csr *S, int i);

/* Delassus operator and free velocity from the primal data, the same algebra everywhere:
 *   D = J A^{-1} J^T (m x m, column-major), v_f = J A^{-1} b + e.
 * A is n x n SPD (not modified). Either output may be NULL. */
int ncp_delassus(int n, const double *A, const double *b, const ncp_csr *J, const double *e,
                 double *D, double *vf, ncp_error *err);

#endif
