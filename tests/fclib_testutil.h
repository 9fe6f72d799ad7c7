/* Dense helpers shared by the FCLib tests (test_fclib.c, test_fclib_read.c), written
 * independently of src/core: FCLib matrices to and from dense column-major arrays, and the
 * condensation W = H^T M^-1 H, q = w + H^T M^-1 f by Gaussian elimination. */
#ifndef NCP_FCLIB_TESTUTIL_H
#define NCP_FCLIB_TESTUTIL_H

#include <fclib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline double maxabs(size_t n, const double *a)
{
    double m = 0;
    for (size_t k = 0; k < n; k++) m = fmax(m, fabs(a[k]));
    return m;
}

static inline double maxdiff(size_t n, const double *a, const double *b)
{
    double m = 0;
    for (size_t k = 0; k < n; k++) m = fmax(m, fabs(a[k] - b[k]));
    return m;
}

/* Dense column-major m x n of an FCLib matrix in any storage (duplicates summed; triplets as
 * CSparse and Siconos lay them out: i = rows, p = columns). */
static inline double *fc_dense(const struct fclib_matrix *A)
{
    double *D = calloc((size_t)A->m * A->n + 1, sizeof(double));
    if (A->nz >= 0) {
        for (int k = 0; k < A->nz; k++) D[A->i[k] + (size_t)A->p[k] * A->m] += A->x[k];
    } else if (A->nz == -1) {
        for (int j = 0; j < A->n; j++)
            for (int k = A->p[j]; k < A->p[j + 1]; k++) D[A->i[k] + (size_t)j * A->m] += A->x[k];
    } else {
        for (int r = 0; r < A->m; r++)
            for (int k = A->p[r]; k < A->p[r + 1]; k++) D[r + (size_t)A->i[k] * A->m] += A->x[k];
    }
    return D;
}

/* FCLib matrix of a dense column-major m x n in the given storage. Triplet storage (i = rows,
 * p = columns, as CSparse and Siconos write it) lists the entries in reverse order and, when
 * split != 0, stores the first non-zero as two halves (a duplicate that readers must sum:
 * x/2 + x/2 == x exactly). */
static inline struct fclib_matrix fc_from_dense(int m, int n, const double *A, int storage,
                                                 int split)
{
    struct fclib_matrix M;
    memset(&M, 0, sizeof M);
    M.m = m;
    M.n = n;
    int nnz = 0;
    for (size_t k = 0; k < (size_t)m * n; k++) nnz += A[k] != 0.0;
    int cap = nnz + 1;
    M.i = malloc(sizeof(int) * (size_t)cap);
    M.x = malloc(sizeof(double) * (size_t)cap);
    int k = 0;
    if (storage == -1) { /* CSC */
        M.p = malloc(sizeof(int) * ((size_t)n + 1));
        M.p[0] = 0;
        for (int j = 0; j < n; j++) {
            for (int r = 0; r < m; r++)
                if (A[r + (size_t)j * m] != 0.0) {
                    M.i[k] = r;
                    M.x[k++] = A[r + (size_t)j * m];
                }
            M.p[j + 1] = k;
        }
        M.nz = -1;
        M.nzmax = k;
    } else if (storage == -2) { /* CSR */
        M.p = malloc(sizeof(int) * ((size_t)m + 1));
        M.p[0] = 0;
        for (int r = 0; r < m; r++) {
            for (int j = 0; j < n; j++)
                if (A[r + (size_t)j * m] != 0.0) {
                    M.i[k] = j;
                    M.x[k++] = A[r + (size_t)j * m];
                }
            M.p[r + 1] = k;
        }
        M.nz = -2;
        M.nzmax = k;
    } else { /* triplet: i = row, p = column */
        M.p = malloc(sizeof(int) * (size_t)cap);
        for (int j = n - 1; j >= 0; j--)
            for (int r = m - 1; r >= 0; r--) {
                double v = A[r + (size_t)j * m];
                if (v == 0.0) continue;
                if (split && k == 0) {
                    M.i[k] = r;
                    M.p[k] = j;
                    M.x[k++] = 0.5 * v;
                    M.i[k] = r;
                    M.p[k] = j;
                    M.x[k++] = 0.5 * v;
                } else {
                    M.i[k] = r;
                    M.p[k] = j;
                    M.x[k++] = v;
                }
            }
        M.nz = k;
        M.nzmax = k;
    }
    return M;
}

static inline void fc_free(struct fclib_matrix *M)
{
    free(M->p);
    free(M->i);
    free(M->x);
}

/* Independent dense solve (Gaussian elimination with partial pivoting): X = A^-1 B. */
static inline void gauss_solve(int n, const double *A0, int nrhs, double *B)
{
    double *A = malloc(sizeof(double) * (size_t)n * n);
    memcpy(A, A0, sizeof(double) * (size_t)n * n);
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(A[r + (size_t)c * n]) > fabs(A[piv + (size_t)c * n])) piv = r;
        for (int j = 0; j < n; j++) {
            double t = A[c + (size_t)j * n];
            A[c + (size_t)j * n] = A[piv + (size_t)j * n];
            A[piv + (size_t)j * n] = t;
        }
        for (int j = 0; j < nrhs; j++) {
            double t = B[c + (size_t)j * n];
            B[c + (size_t)j * n] = B[piv + (size_t)j * n];
            B[piv + (size_t)j * n] = t;
        }
        for (int r = c + 1; r < n; r++) {
            double f = A[r + (size_t)c * n] / A[c + (size_t)c * n];
            for (int j = c; j < n; j++) A[r + (size_t)j * n] -= f * A[c + (size_t)j * n];
            for (int j = 0; j < nrhs; j++) B[r + (size_t)j * n] -= f * B[c + (size_t)j * n];
        }
    }
    for (int j = 0; j < nrhs; j++)
        for (int r = n - 1; r >= 0; r--) {
            double s = B[r + (size_t)j * n];
            for (int c = r + 1; c < n; c++) s -= A[r + (size_t)c * n] * B[c + (size_t)j * n];
            B[r + (size_t)j * n] = s / A[r + (size_t)r * n];
        }
    free(A);
}

/* W = H^T M^-1 H and q = w + H^T M^-1 f from global data (M nv x nv, H nv x mc). */
static inline void local_from_global(int nv, int mc, const double *M, const double *H,
                                     const double *f, const double *w, double *W, double *q)
{
    double *X = malloc(sizeof(double) * (size_t)nv * (mc + 1));
    memcpy(X, H, sizeof(double) * (size_t)nv * mc);
    memcpy(X + (size_t)nv * mc, f, sizeof(double) * (size_t)nv);
    gauss_solve(nv, M, mc + 1, X);
    for (int i = 0; i < mc; i++) {
        for (int j = 0; j < mc; j++) {
            double s = 0;
            for (int k = 0; k < nv; k++) s += H[k + (size_t)i * nv] * X[k + (size_t)j * nv];
            W[i + (size_t)j * mc] = s;
        }
        double s = 0;
        for (int k = 0; k < nv; k++) s += H[k + (size_t)i * nv] * X[k + (size_t)mc * nv];
        q[i] = w[i] + s;
    }
    free(X);
}

#endif
