/* Shared dense/sparse linear algebra over reference BLAS/LAPACK (see la.h).
 * The LAPACKE *_work entry points are used: the plain ones scan the whole n x n input for NaN
 * on every call (16% of a factor-once/solve-many ADMM's time), and finiteness is checked where
 * data enters (ncp_problem_validate) and on every iterate (harness). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "core/la.h"

double ncp_dot(int n, const double *x, const double *y)
{
    return n > 0 ? cblas_ddot(n, x, 1, y, 1) : 0.0;
}

double ncp_norm2(int n, const double *x)
{
    return n > 0 ? cblas_dnrm2(n, x, 1) : 0.0;
}

double ncp_norminf(int n, const double *x)
{
    /* NaN must propagate: a NaN entry makes the norm NaN (fmax would hide it). */
    double r = 0.0;
    for (int i = 0; i < n; i++) {
        double a = fabs(x[i]);
        if (a > r || isnan(a)) r = a;
        if (isnan(r)) return r;
    }
    return r;
}

void ncp_axpy(int n, double a, const double *x, double *y)
{
    if (n > 0) cblas_daxpy(n, a, x, 1, y, 1);
}

void ncp_copy(int n, const double *x, double *y)
{
    if (n > 0 && x != y) memmove(y, x, (size_t)n * sizeof(double));
}

void ncp_scal(int n, double a, double *x)
{
    if (n > 0) cblas_dscal(n, a, x, 1);
}

void ncp_zero(int n, double *x)
{
    if (n > 0) memset(x, 0, (size_t)n * sizeof(double));
}

int ncp_all_zero(int n, const double *x)
{
    for (int i = 0; i < n; i++)
        if (x[i] != 0.0) return 0;
    return 1;
}

int ncp_all_finite(int n, const double *x)
{
    /* Inf and NaN are the numbers whose exponent bits are all ones: tested on the bits, in
     * blocks without a branch per entry (vectorised; isfinite() per entry with an early return
     * cost a twentieth of the harness's time per iterate) */
    /* (b & EXP) + 2^52 carries into the sign bit exactly when the exponent is all ones: only
     * and, add and or, which SSE2 has for 64-bit lanes (it has no 64-bit compare) */
    const uint64_t EXP = 0x7FF0000000000000ull, ONE = 0x0010000000000000ull;
    for (int i0 = 0; i0 < n; i0 += 64) {
        const int i1 = n - i0 < 64 ? n : i0 + 64;
        uint64_t bad = 0;
        for (int i = i0; i < i1; i++) {
            uint64_t b;
            memcpy(&b, &x[i], sizeof b);
            bad |= (b & EXP) + ONE;
        }
        if (bad >> 63) return 0;
    }
    return 1;
}

void ncp_gemv(int trans, int m, int n, double alpha, const double *A, const double *x,
              double beta, double *y)
{
    int leny = trans ? n : m;
    if (leny <= 0) return;
    if (m <= 0 || n <= 0) {
        if (beta == 0.0) ncp_zero(leny, y);
        else ncp_scal(leny, beta, y);
        return;
    }
    cblas_dgemv(CblasColMajor, trans ? CblasTrans : CblasNoTrans, m, n, alpha, A, m, x, 1, beta,
                y, 1);
}

void ncp_gemm(int transa, int transb, int m, int n, int k, double alpha, const double *A,
              const double *B, double beta, double *C)
{
    if (m <= 0 || n <= 0) return;
    if (k <= 0) {
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) C[i + (size_t)j * m] = beta == 0.0 ? 0.0 : beta * C[i + (size_t)j * m];
        return;
    }
    int lda = transa ? k : m, ldb = transb ? n : k;
    cblas_dgemm(CblasColMajor, transa ? CblasTrans : CblasNoTrans,
                transb ? CblasTrans : CblasNoTrans, m, n, k, alpha, A, lda, B, ldb, beta, C, m);
}

void ncp_symmetrize(int n, double *A)
{
    /* Tiles of NCP_LA_TILE x NCP_LA_TILE below the diagonal with their mirror tiles: the
     * transposed reads of a plain loop miss the cache on every element once a column outgrows
     * it (a 13 260-row Delassus matrix took seconds). Each pair (i, j) is still computed once, by
     * the same expression: the same bits in any order. */
    const int T = NCP_LA_TILE;
    for (int jb = 0; jb < n; jb += T)
        for (int ib = jb; ib < n; ib += T) {
            int je = jb + T < n ? jb + T : n, ie = ib + T < n ? ib + T : n;
            for (int j = jb; j < je; j++)
                for (int i = (ib > j + 1 ? ib : j + 1); i < ie; i++) {
                    double s = 0.5 * (A[i + (size_t)j * n] + A[j + (size_t)i * n]);
                    A[i + (size_t)j * n] = A[j + (size_t)i * n] = s;
                }
        }
}

int ncp_chol_factor(int n, double *A, ncp_error *err)
{
    if (n <= 0) return NCP_OK;
    lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, A, n);
    if (info > 0)
        return ncp_error_set(err, NCP_ERR_NUMERIC,
                             "Cholesky factorisation failed: the %d x %d matrix is not positive "
                             "definite (leading minor %d)", n, n, (int)info);
    if (info < 0)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "dpotrf: illegal argument %d", (int)-info);
    return NCP_OK;
}

int ncp_chol_solve(int n, const double *L, int nrhs, double *B, ncp_error *err)
{
    if (n <= 0 || nrhs <= 0) return NCP_OK;
    lapack_int info = LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, nrhs, L, n, B, n);
    if (info != 0)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "dpotrs: illegal argument %d", (int)-info);
    return NCP_OK;
}

void ncp_trsm_lower(int trans, int n, const double *L, int nrhs, double *B)
{
    if (n <= 0 || nrhs <= 0) return;
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, trans ? CblasTrans : CblasNoTrans,
                CblasNonUnit, n, nrhs, 1.0, L, n, B, n);
}

int ncp_lu_solve(int n, double *A, int *ipiv, int nrhs, double *B, ncp_error *err)
{
    if (n <= 0 || nrhs <= 0) return NCP_OK;
    lapack_int *piv = (lapack_int *)ipiv;
    _Static_assert(sizeof(lapack_int) == sizeof(int), "lapack_int must be int (LP64)");
    lapack_int info = LAPACKE_dgesv_work(LAPACK_COL_MAJOR, n, nrhs, A, n, piv, B, n);
    if (info > 0)
        return ncp_error_set(err, NCP_ERR_NUMERIC,
                             "LU factorisation failed: the %d x %d matrix is singular "
                             "(U(%d,%d) = 0)", n, n, (int)info, (int)info);
    if (info < 0)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "dgesv: illegal argument %d", (int)-info);
    return NCP_OK;
}

int ncp_sym_eig(int n, double *A, double *w, ncp_error *err)
{
    if (n <= 0) return NCP_OK;
    lapack_int info = LAPACKE_dsyev(LAPACK_COL_MAJOR, 'V', 'L', n, A, n, w);
    if (info > 0)
        return ncp_error_set(err, NCP_ERR_NUMERIC, "symmetric eigensolver did not converge "
                             "(%d off-diagonal elements)", (int)info);
    if (info < 0)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "dsyev: illegal argument %d", (int)-info);
    return NCP_OK;
}

/* ---- CSR ---- */

int ncp_csr_alloc(ncp_csr *S, int m, int n, int nnz, ncp_error *err)
{
    memset(S, 0, sizeof *S);
    if (m < 0 || n < 0 || nnz < 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "sparse matrix with negative size %d x %d, nnz %d",
                             m, n, nnz);
    S->rowptr = ncp_calloc(err, (size_t)m + 1, sizeof(int));
    S->col = ncp_calloc(err, nnz, sizeof(int));
    S->val = ncp_calloc(err, nnz, sizeof(double));
    if (!S->rowptr || !S->col || !S->val) {
        ncp_csr_free(S);
        return NCP_ERR_NOMEM;
    }
    S->m = m;
    S->n = n;
    S->nnz = nnz;
    return NCP_OK;
}

void ncp_csr_free(ncp_csr *S)
{
    if (!S) return;
    free(S->rowptr);
    free(S->col);
    free(S->val);
    memset(S, 0, sizeof *S);
}

int ncp_csr_from_dense(ncp_csr *S, int m, int n, const double *A, double drop, ncp_error *err)
{
    int nnz = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            if (fabs(A[i + (size_t)j * m]) > drop || isnan(A[i + (size_t)j * m])) nnz++;
    int rc = ncp_csr_alloc(S, m, n, nnz, err);
    if (rc) return rc;
    int k = 0;
    for (int i = 0; i < m; i++) {
        S->rowptr[i] = k;
        for (int j = 0; j < n; j++) {
            double a = A[i + (size_t)j * m];
            if (fabs(a) > drop || isnan(a)) {
                S->col[k] = j;
                S->val[k] = a;
                k++;
            }
        }
    }
    S->rowptr[m] = k;
    return NCP_OK;
}

void ncp_csr_to_dense(const ncp_csr *S, double *A)
{
    memset(A, 0, (size_t)S->m * S->n * sizeof(double));
    for (int i = 0; i < S->m; i++)
        for (int k = S->rowptr[i]; k < S->rowptr[i + 1]; k++)
            A[i + (size_t)S->col[k] * S->m] += S->val[k];
}

int ncp_csr_copy(ncp_csr *dst, const ncp_csr *src, ncp_error *err)
{
    int rc = ncp_csr_alloc(dst, src->m, src->n, src->nnz, err);
    if (rc) return rc;
    memcpy(dst->rowptr, src->rowptr, ((size_t)src->m + 1) * sizeof(int));
    if (src->nnz) {
        memcpy(dst->col, src->col, (size_t)src->nnz * sizeof(int));
        memcpy(dst->val, src->val, (size_t)src->nnz * sizeof(double));
    }
    return NCP_OK;
}

void ncp_csr_gemv(const ncp_csr *S, double alpha, const double *x, double beta, double *y)
{
    for (int i = 0; i < S->m; i++) {
        double s = 0.0;
        for (int k = S->rowptr[i]; k < S->rowptr[i + 1]; k++) s += S->val[k] * x[S->col[k]];
        y[i] = alpha * s + (beta == 0.0 ? 0.0 : beta * y[i]);
    }
}

void ncp_csr_gemv_t(const ncp_csr *S, double alpha, const double *x, double beta, double *y)
{
    if (beta == 0.0) ncp_zero(S->n, y);
    else if (beta != 1.0) ncp_scal(S->n, beta, y);
    for (int i = 0; i < S->m; i++) {
        double a = alpha * x[i];
        if (a == 0.0) continue;
        for (int k = S->rowptr[i]; k < S->rowptr[i + 1]; k++) y[S->col[k]] += S->val[k] * a;
    }
}

double ncp_csr_diag(const ncp_csr *S, int i)
{
    double d = 0.0;
    for (int k = S->rowptr[i]; k < S->rowptr[i + 1]; k++)
        if (S->col[k] == i) d = S->val[k];
    return d;
}

double ncp_csr_row_dot(const ncp_csr *S, int r, const double *x)
{
    double s = 0.0;
    for (int k = S->rowptr[r]; k < S->rowptr[r + 1]; k++) s += S->val[k] * x[S->col[k]];
    return s;
}

int ncp_delassus(int n, const double *A, const double *b, const ncp_csr *J, const double *e,
                 double *D, double *vf, ncp_error *err)
{
    int m = J->m, rc = NCP_OK;
    if (J->n != n)
        return ncp_error_set(err, NCP_ERR_INPUT, "J has %d columns but A is %d x %d", J->n, n, n);
    double *L = ncp_malloc(err, (size_t)n * n, sizeof(double));
    /* X = A^{-1} J^T (n x m), then D = J X; one Cholesky, m solves. */
    double *X = D ? ncp_malloc(err, (size_t)n * (m > 0 ? m : 1), sizeof(double)) : NULL;
    double *y = ncp_malloc(err, n, sizeof(double));
    if (!L || (D && !X) || !y) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    memcpy(L, A, (size_t)n * n * sizeof(double));
    if ((rc = ncp_chol_factor(n, L, err))) {
        ncp_error_prefix(err, "mass matrix A: ");
        goto done;
    }
    if (D && m > 0) {
        /* X columns = rows of J, densified */
        memset(X, 0, (size_t)n * m * sizeof(double));
        for (int i = 0; i < m; i++)
            for (int k = J->rowptr[i]; k < J->rowptr[i + 1]; k++)
                X[J->col[k] + (size_t)i * n] += J->val[k];
        if ((rc = ncp_chol_solve(n, L, m, X, err))) goto done;
        for (int j = 0; j < m; j++) ncp_csr_gemv(J, 1.0, X + (size_t)j * n, 0.0, D + (size_t)j * m);
        ncp_symmetrize(m, D); /* exact symmetry up to rounding: D_ij and D_ji use different sums */
    }
    if (vf) {
        if (b) memcpy(y, b, (size_t)n * sizeof(double));
        else ncp_zero(n, y);
        if ((rc = ncp_chol_solve(n, L, 1, y, err))) goto done;
        ncp_csr_gemv(J, 1.0, y, 0.0, vf);
        if (e) ncp_axpy(m, 1.0, e, vf);
    }
done:
    free(L);
    free(X);
    free(y);
    return rc;
}
