/* src/core/la.h against independent naive loops written here:
 *   - vector helpers by definition;
 *   - gemv / gemm in every transpose combination, with alpha and beta;
 *   - Cholesky: L L^T = A, solve residual, failure on indefinite and singular input;
 *   - LU: solve residual, failure on singular input; symmetric eigendecomposition;
 *   - CSR: dense -> CSR -> dense round trip, drop tolerance, sorted columns, copy, matvec,
 *     transposed matvec, row dot;
 *   - ncp_delassus against D = J A^{-1} J^T with A^{-1} from a Gauss-Jordan inverse here;
 *   - core/blockpat.h: a hand-worked pattern, then random ones against a dense boolean union
 *     (diagonal, A, every block's clique) and every block map against a linear search. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/blockpat.h"
#include "core/la.h"
#include "core/problem.h"
#include "tcheck.h"
#include "testutil.h"

/* column-major element */
#define AT(A, ld, i, j) ((A)[(size_t)(i) + (size_t)(j) * (size_t)(ld)])

static double *rand_mat(trng *r, int m, int n)
{
    double *A = malloc(sizeof(double) * (size_t)(m > 0 ? m : 1) * (size_t)(n > 0 ? n : 1));
    if (!A) abort();
    for (int i = 0; i < m * n; i++) A[i] = trng_normal(r);
    return A;
}

static double max_abs_diff(int n, const double *a, const double *b)
{
    double d = 0.0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

/* SPD test matrix: G G^T + n I (eigenvalues >= n). */
static double *rand_spd(trng *r, int n)
{
    double *G = rand_mat(r, n, n), *A = rand_mat(r, n, n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int k = 0; k < n; k++) s += AT(G, n, i, k) * AT(G, n, j, k);
            AT(A, n, i, j) = s + (i == j ? n : 0.0);
        }
    free(G);
    return A;
}

/* Gauss-Jordan inverse with partial pivoting; returns 0 on success. */
static int gj_inverse(int n, const double *A, double *Ainv)
{
    double *W = malloc(sizeof(double) * (size_t)n * (size_t)(2 * n));
    if (!W) abort();
    int ld = n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 2 * n; j++)
            AT(W, ld, i, j) = j < n ? AT(A, n, i, j) : (j - n == i ? 1.0 : 0.0);
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int i = c + 1; i < n; i++)
            if (fabs(AT(W, ld, i, c)) > fabs(AT(W, ld, piv, c))) piv = i;
        if (AT(W, ld, piv, c) == 0.0) {
            free(W);
            return 1;
        }
        for (int j = 0; j < 2 * n; j++) {
            double t = AT(W, ld, c, j);
            AT(W, ld, c, j) = AT(W, ld, piv, j);
            AT(W, ld, piv, j) = t;
        }
        double d = AT(W, ld, c, c);
        for (int j = 0; j < 2 * n; j++) AT(W, ld, c, j) /= d;
        for (int i = 0; i < n; i++) {
            if (i == c) continue;
            double f = AT(W, ld, i, c);
            if (f == 0.0) continue;
            for (int j = 0; j < 2 * n; j++) AT(W, ld, i, j) -= f * AT(W, ld, c, j);
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) AT(Ainv, n, i, j) = AT(W, ld, i, j + n);
    free(W);
    return 0;
}

static void test_vectors(void)
{
    double x[5] = {1.0, -2.0, 3.0, -4.0, 0.5}, y[5] = {2.0, 1.0, 0.0, -1.0, 4.0};
    CHECK_NEAR(ncp_dot(5, x, y), 2.0 - 2.0 + 0.0 + 4.0 + 2.0, 1e-15);
    CHECK_NEAR(ncp_norm2(5, x), sqrt(1.0 + 4.0 + 9.0 + 16.0 + 0.25), 1e-15);
    CHECK_NEAR(ncp_norminf(5, x), 4.0, 0.0);
    CHECK_NEAR(ncp_norm2(0, x), 0.0, 0.0);
    CHECK_NEAR(ncp_norminf(0, x), 0.0, 0.0);
    double z[5];
    ncp_copy(5, y, z);
    ncp_axpy(5, 2.0, x, z);
    for (int i = 0; i < 5; i++) CHECK_NEAR(z[i], y[i] + 2.0 * x[i], 1e-15);
    ncp_scal(5, -0.5, z);
    for (int i = 0; i < 5; i++) CHECK_NEAR(z[i], -0.5 * (y[i] + 2.0 * x[i]), 1e-15);
    ncp_zero(5, z);
    for (int i = 0; i < 5; i++) CHECK_NEAR(z[i], 0.0, 0.0);
    CHECK(ncp_all_finite(5, x) == 1);
    z[3] = NAN;
    CHECK(ncp_all_finite(5, z) == 0);
    z[3] = -INFINITY;
    CHECK(ncp_all_finite(5, z) == 0);
    CHECK(ncp_all_finite(0, z) == 1);
}

static void test_gemv_gemm(void)
{
    trng r = {2024};
    const int m = 7, n = 5, k = 4;
    double *A = rand_mat(&r, m, n);
    double x_n[5], x_m[7], y0[7], y[7], want[7];
    for (int i = 0; i < n; i++) x_n[i] = trng_normal(&r);
    for (int i = 0; i < m; i++) x_m[i] = trng_normal(&r), y0[i] = trng_normal(&r);
    const double alpha = 1.7, beta = -0.3;
    /* y = alpha A x + beta y */
    memcpy(y, y0, sizeof y);
    ncp_gemv(0, m, n, alpha, A, x_n, beta, y);
    for (int i = 0; i < m; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++) s += AT(A, m, i, j) * x_n[j];
        want[i] = alpha * s + beta * y0[i];
    }
    CHECK(max_abs_diff(m, y, want) < 1e-13);
    /* y = alpha A^T x + beta y (length n) */
    memcpy(y, y0, sizeof y);
    ncp_gemv(1, m, n, alpha, A, x_m, beta, y);
    for (int j = 0; j < n; j++) {
        double s = 0.0;
        for (int i = 0; i < m; i++) s += AT(A, m, i, j) * x_m[i];
        want[j] = alpha * s + beta * y0[j];
    }
    CHECK(max_abs_diff(n, y, want) < 1e-13);
    /* beta = 0 ignores y's old content, even NaN (BLAS semantics: callers pass scratch) */
    for (int i = 0; i < m; i++) y[i] = NAN;
    ncp_gemv(0, m, n, 1.0, A, x_n, 0.0, y);
    CHECK(ncp_all_finite(m, y));

    /* gemm: C (m x n) = alpha op(P) op(Q) + beta C, op(P) m x k, op(Q) k x n */
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            double *P = ta ? rand_mat(&r, k, m) : rand_mat(&r, m, k);
            double *Q = tb ? rand_mat(&r, n, k) : rand_mat(&r, k, n);
            double *C0 = rand_mat(&r, m, n), *C = rand_mat(&r, m, n), *W = rand_mat(&r, m, n);
            memcpy(C, C0, sizeof(double) * m * n);
            ncp_gemm(ta, tb, m, n, k, alpha, P, Q, beta, C);
            for (int i = 0; i < m; i++)
                for (int j = 0; j < n; j++) {
                    double s = 0.0;
                    for (int l = 0; l < k; l++) {
                        double pa = ta ? AT(P, k, l, i) : AT(P, m, i, l);
                        double qb = tb ? AT(Q, n, j, l) : AT(Q, k, l, j);
                        s += pa * qb;
                    }
                    AT(W, m, i, j) = alpha * s + beta * AT(C0, m, i, j);
                }
            CHECK(max_abs_diff(m * n, C, W) < 1e-13);
            free(P);
            free(Q);
            free(C0);
            free(C);
            free(W);
        }

    /* symmetrize */
    double S[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}; /* column-major */
    ncp_symmetrize(3, S);
    CHECK_NEAR(AT(S, 3, 0, 1), 3.0, 0.0); /* (4 + 2)/2 */
    CHECK_NEAR(AT(S, 3, 1, 0), 3.0, 0.0);
    CHECK_NEAR(AT(S, 3, 0, 2), 5.0, 0.0); /* (7 + 3)/2 */
    CHECK_NEAR(AT(S, 3, 1, 2), 7.0, 0.0); /* (8 + 6)/2 */
    CHECK_NEAR(AT(S, 3, 2, 1), 7.0, 0.0);
    CHECK_NEAR(AT(S, 3, 1, 1), 5.0, 0.0);
    free(A);
}

static void test_cholesky(void)
{
    trng r = {31};
    ncp_error err;
    for (int n = 1; n <= 12; n += 11) {
        double *A = rand_spd(&r, n), *L = rand_mat(&r, n, n);
        memcpy(L, A, sizeof(double) * n * n);
        ncp_error_clear(&err);
        CHECK_OK(ncp_chol_factor(n, L, &err), &err);
        /* L L^T = A using only the lower triangle; strict upper part untouched */
        double worst = 0.0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double s = 0.0;
                for (int l = 0; l <= (i < j ? i : j); l++) s += AT(L, n, i, l) * AT(L, n, j, l);
                worst = fmax(worst, fabs(s - AT(A, n, i, j)));
                if (j > i) CHECK_NEAR(AT(L, n, i, j), AT(A, n, i, j), 0.0);
            }
        CHECK(worst < 1e-12 * n);
        /* solve 3 right-hand sides: residual A X - B */
        const int nrhs = 3;
        double *B = rand_mat(&r, n, nrhs), *X = rand_mat(&r, n, nrhs);
        memcpy(X, B, sizeof(double) * n * nrhs);
        CHECK_OK(ncp_chol_solve(n, L, nrhs, X, &err), &err);
        double res = 0.0;
        for (int c = 0; c < nrhs; c++)
            for (int i = 0; i < n; i++) {
                double s = 0.0;
                for (int j = 0; j < n; j++) s += AT(A, n, i, j) * AT(X, n, j, c);
                res = fmax(res, fabs(s - AT(B, n, i, c)));
            }
        CHECK(res < 1e-12);
        free(A);
        free(L);
        free(B);
        free(X);
    }
    /* indefinite: eigenvalues 3 and -1 */
    double Ind[4] = {1.0, 2.0, 2.0, 1.0};
    ncp_error_clear(&err);
    CHECK(ncp_chol_factor(2, Ind, &err) == NCP_ERR_NUMERIC);
    CHECK(err.code == NCP_ERR_NUMERIC && err.msg[0] != '\0');
    /* singular PSD: [1 1; 1 1] */
    double Sing[4] = {1.0, 1.0, 1.0, 1.0};
    ncp_error_clear(&err);
    CHECK(ncp_chol_factor(2, Sing, &err) == NCP_ERR_NUMERIC);
    CHECK(err.msg[0] != '\0');
    /* zero matrix */
    double Z[9] = {0};
    ncp_error_clear(&err);
    CHECK(ncp_chol_factor(3, Z, &err) == NCP_ERR_NUMERIC);
}

static void test_lu(void)
{
    trng r = {57};
    ncp_error err;
    const int n = 9, nrhs = 2;
    double *A = rand_mat(&r, n, n), *W = rand_mat(&r, n, n);
    double *B = rand_mat(&r, n, nrhs), *X = rand_mat(&r, n, nrhs);
    int ipiv[9];
    memcpy(W, A, sizeof(double) * n * n);
    memcpy(X, B, sizeof(double) * n * nrhs);
    ncp_error_clear(&err);
    CHECK_OK(ncp_lu_solve(n, W, ipiv, nrhs, X, &err), &err);
    double res = 0.0;
    for (int c = 0; c < nrhs; c++)
        for (int i = 0; i < n; i++) {
            double s = 0.0;
            for (int j = 0; j < n; j++) s += AT(A, n, i, j) * AT(X, n, j, c);
            res = fmax(res, fabs(s - AT(B, n, i, c)));
        }
    CHECK(res < 1e-11);
    /* a matrix needing a pivot: [0 1; 1 0] x = (2, 3) -> x = (3, 2) */
    double P[4] = {0.0, 1.0, 1.0, 0.0}, pb[2] = {2.0, 3.0};
    CHECK_OK(ncp_lu_solve(2, P, ipiv, 1, pb, &err), &err);
    CHECK_NEAR(pb[0], 3.0, 1e-15);
    CHECK_NEAR(pb[1], 2.0, 1e-15);
    /* singular: an exactly zero column gives an exactly zero pivot (a column that is only
     * a combination of others may leave a round-off-sized pivot instead) */
    double S2[9] = {1, 2, 3, 0, 0, 0, 4, 5, 7}, sb2[3] = {1, 1, 1};
    ncp_error_clear(&err);
    CHECK(ncp_lu_solve(3, S2, ipiv, 1, sb2, &err) == NCP_ERR_NUMERIC);
    CHECK(err.msg[0] != '\0');
    free(A);
    free(W);
    free(B);
    free(X);
}

static void test_csr(void)
{
    trng r = {8};
    ncp_error err;
    ncp_error_clear(&err);
    const int m = 6, n = 8;
    double *A = rand_mat(&r, m, n);
    int nz_want = 0;
    /* make ~half the entries exactly zero and a few tiny ones */
    for (int i = 0; i < m * n; i++) {
        double u = trng_uniform(&r);
        if (u < 0.45) A[i] = 0.0;
        else if (u < 0.55) A[i] = 1e-9 * (A[i] > 0 ? 1.0 : -1.0);
        if (A[i] != 0.0) nz_want++;
    }
    /* one all-zero row, to test empty rows */
    for (int j = 0; j < n; j++) AT(A, m, 2, j) = 0.0;
    nz_want = 0;
    for (int i = 0; i < m * n; i++) nz_want += A[i] != 0.0;

    ncp_csr S = {0};
    CHECK_OK(ncp_csr_from_dense(&S, m, n, A, 0.0, &err), &err);
    CHECK(S.m == m && S.n == n && S.nnz == nz_want);
    CHECK(S.rowptr[0] == 0 && S.rowptr[m] == S.nnz);
    CHECK(S.rowptr[3] == S.rowptr[2]); /* empty row 2 */
    for (int i = 0; i < m; i++)
        for (int p = S.rowptr[i]; p + 1 < S.rowptr[i + 1]; p++) CHECK(S.col[p] < S.col[p + 1]);
    double *B = rand_mat(&r, m, n);
    ncp_csr_to_dense(&S, B);
    CHECK(max_abs_diff(m * n, A, B) == 0.0);

    /* the diagonal entries (square leading part; row 2 is empty: 0), against the dense A */
    for (int i = 0; i < m && i < n; i++) CHECK(ncp_csr_diag(&S, i) == AT(A, m, i, i));

    /* drop tolerance removes the 1e-9 entries */
    ncp_csr Sd = {0};
    CHECK_OK(ncp_csr_from_dense(&Sd, m, n, A, 1e-6, &err), &err);
    int nz_big = 0;
    for (int i = 0; i < m * n; i++) nz_big += fabs(A[i]) > 1e-6;
    CHECK(Sd.nnz == nz_big);
    ncp_csr_to_dense(&Sd, B);
    for (int i = 0; i < m * n; i++) CHECK_NEAR(B[i], fabs(A[i]) > 1e-6 ? A[i] : 0.0, 0.0);

    /* matvec, transposed matvec, row dot */
    double x[8], y0[6], y[8], w[8], xt[6];
    for (int j = 0; j < n; j++) x[j] = trng_normal(&r);
    for (int i = 0; i < m; i++) y0[i] = trng_normal(&r), xt[i] = trng_normal(&r);
    memcpy(y, y0, sizeof y0);
    ncp_csr_gemv(&S, -1.5, x, 0.25, y);
    for (int i = 0; i < m; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++) s += AT(A, m, i, j) * x[j];
        w[i] = -1.5 * s + 0.25 * y0[i];
        CHECK_NEAR(ncp_csr_row_dot(&S, i, x), s, 1e-14);
    }
    CHECK(max_abs_diff(m, y, w) < 1e-14);
    double yt0[8];
    for (int j = 0; j < n; j++) yt0[j] = trng_normal(&r);
    memcpy(y, yt0, sizeof yt0);
    ncp_csr_gemv_t(&S, 2.0, xt, -1.0, y);
    for (int j = 0; j < n; j++) {
        double s = 0.0;
        for (int i = 0; i < m; i++) s += AT(A, m, i, j) * xt[i];
        w[j] = 2.0 * s - yt0[j];
    }
    CHECK(max_abs_diff(n, y, w) < 1e-14);
    /* beta = 0 overwrites, even NaN */
    for (int j = 0; j < n; j++) y[j] = NAN;
    ncp_csr_gemv_t(&S, 1.0, xt, 0.0, y);
    CHECK(ncp_all_finite(n, y));
    for (int i = 0; i < m; i++) y[i] = NAN;
    ncp_csr_gemv(&S, 1.0, x, 0.0, y);
    CHECK(ncp_all_finite(m, y));

    /* deep copy */
    ncp_csr C = {0};
    CHECK_OK(ncp_csr_copy(&C, &S, &err), &err);
    CHECK(C.m == S.m && C.n == S.n && C.nnz == S.nnz);
    CHECK(C.val != S.val && C.col != S.col && C.rowptr != S.rowptr);
    ncp_csr_free(&S); /* the copy must survive */
    ncp_csr_to_dense(&C, B);
    CHECK(max_abs_diff(m * n, A, B) == 0.0);

    /* an all-zero matrix gives nnz = 0 and still round-trips */
    double Z[6] = {0};
    ncp_csr E = {0};
    CHECK_OK(ncp_csr_from_dense(&E, 2, 3, Z, 0.0, &err), &err);
    CHECK(E.nnz == 0 && E.rowptr[2] == 0);
    double Zb[6] = {1, 1, 1, 1, 1, 1};
    ncp_csr_to_dense(&E, Zb);
    for (int i = 0; i < 6; i++) CHECK_NEAR(Zb[i], 0.0, 0.0);

    ncp_csr_free(&C);
    ncp_csr_free(&Sd);
    ncp_csr_free(&E);
    free(A);
    free(B);
}

static void test_delassus(void)
{
    trng r = {99};
    ncp_error err;
    ncp_error_clear(&err);
    const int n = 7, m = 10;
    double *A = rand_spd(&r, n), *A0 = rand_mat(&r, n, n), *Jd = rand_mat(&r, m, n);
    for (int i = 0; i < m * n; i++)
        if (trng_uniform(&r) < 0.4) Jd[i] = 0.0;
    memcpy(A0, A, sizeof(double) * n * n);
    double b[7], e[10];
    for (int i = 0; i < n; i++) b[i] = trng_normal(&r);
    for (int i = 0; i < m; i++) e[i] = trng_normal(&r);
    ncp_csr J = {0};
    CHECK_OK(ncp_csr_from_dense(&J, m, n, Jd, 0.0, &err), &err);

    double *D = rand_mat(&r, m, m), vf[10];
    CHECK_OK(ncp_delassus(n, A, b, &J, e, D, vf, &err), &err);
    CHECK(max_abs_diff(n * n, A, A0) == 0.0); /* A not modified */

    /* independent: Ainv by Gauss-Jordan, D = J Ainv J^T, vf = J Ainv b + e */
    double *Ai = rand_mat(&r, n, n), *Dw = rand_mat(&r, m, m), vw[10];
    CHECK(gj_inverse(n, A, Ai) == 0);
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < m; j++) {
            double s = 0.0;
            for (int k = 0; k < n; k++)
                for (int l = 0; l < n; l++)
                    s += AT(Jd, m, i, k) * AT(Ai, n, k, l) * AT(Jd, m, j, l);
            AT(Dw, m, i, j) = s;
        }
        double s = 0.0;
        for (int k = 0; k < n; k++)
            for (int l = 0; l < n; l++) s += AT(Jd, m, i, k) * AT(Ai, n, k, l) * b[l];
        vw[i] = s + e[i];
    }
    CHECK(max_abs_diff(m * m, D, Dw) < 1e-12);
    CHECK(max_abs_diff(m, vf, vw) < 1e-12);
    /* D is exactly symmetric (the metrics and solvers rely on it) */
    double asym = 0.0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) asym = fmax(asym, fabs(AT(D, m, i, j) - AT(D, m, j, i)));
    CHECK(asym < 1e-14);

    /* either output may be NULL */
    double vf2[10];
    CHECK_OK(ncp_delassus(n, A, b, &J, e, NULL, vf2, &err), &err);
    CHECK(max_abs_diff(m, vf2, vw) < 1e-12);
    double *D2 = rand_mat(&r, m, m);
    CHECK_OK(ncp_delassus(n, A, b, &J, e, D2, NULL, &err), &err);
    CHECK(max_abs_diff(m * m, D2, Dw) < 1e-12);

    /* a non-SPD A is reported, not silently used */
    double *Abad = rand_mat(&r, n, n);
    memcpy(Abad, A, sizeof(double) * n * n);
    AT(Abad, n, 3, 3) = -50.0;
    ncp_error_clear(&err);
    CHECK(ncp_delassus(n, Abad, b, &J, e, D2, vf2, &err) == NCP_ERR_NUMERIC);
    CHECK(err.msg[0] != '\0');

    ncp_csr_free(&J);
    free(A);
    free(A0);
    free(Jd);
    free(D);
    free(Ai);
    free(Dw);
    free(D2);
    free(Abad);
}

/* Symmetric eigendecomposition: A Q = Q diag(w), Q^T Q = I, w ascending. */
static void test_sym_eig(void)
{
    trng r = {61};
    ncp_error err;
    ncp_error_clear(&err);
    const int n = 8;
    double *A = rand_mat(&r, n, n), *Q = rand_mat(&r, n, n), w[8];
    ncp_symmetrize(n, A);
    memcpy(Q, A, sizeof(double) * n * n);
    CHECK_OK(ncp_sym_eig(n, Q, w, &err), &err);
    double res = 0.0, orth = 0.0;
    for (int j = 0; j < n; j++) {
        if (j > 0) CHECK(w[j - 1] <= w[j]);
        for (int i = 0; i < n; i++) {
            double s = 0.0, o = 0.0;
            for (int k = 0; k < n; k++) {
                s += AT(A, n, i, k) * AT(Q, n, k, j);
                o += AT(Q, n, k, i) * AT(Q, n, k, j);
            }
            res = fmax(res, fabs(s - w[j] * AT(Q, n, i, j)));
            orth = fmax(orth, fabs(o - (i == j ? 1.0 : 0.0)));
        }
    }
    CHECK(res < 1e-12);
    CHECK(orth < 1e-12);
    /* the trace is the sum of the eigenvalues */
    double tr = 0.0, sw = 0.0;
    for (int i = 0; i < n; i++) tr += AT(A, n, i, i), sw += w[i];
    CHECK_NEAR(sw, tr, 1e-12);
    free(A);
    free(Q);
}

/* Position of (r, c) in pat by linear search, -1 if absent. */
static int pat_lookup(const ncp_blockpat *pat, int r, int c)
{
    for (int e = pat->ptr[r]; e < pat->ptr[r + 1]; e++)
        if (pat->idx[e] == c) return e;
    return -1;
}

static void test_blockpat(void)
{
    ncp_error err;
    ncp_blockpat pat;
    /* hand-worked: n = 4, A diagonal, blocks {0, 2} and {2, 3}; upper rows 0: {0, 2}, 1: {1},
     * 2: {2, 3}, 3: {3}; both triangles add (2, 0) and (3, 2) */
    {
        const int aptr[5] = {0, 1, 2, 3, 4}, aidx[4] = {0, 1, 2, 3};
        const int bptr[3] = {0, 2, 4}, bcol[4] = {0, 2, 2, 3};
        const int uptr[5] = {0, 2, 3, 5, 6}, uidx[6] = {0, 2, 1, 2, 3, 3};
        const int fptr[5] = {0, 2, 3, 6, 8}, fidx[8] = {0, 2, 1, 0, 2, 3, 2, 3};
        for (int upper = 0; upper < 2; upper++) {
            const int *ep = upper ? uptr : fptr, *ei = upper ? uidx : fidx;
            CHECK_OK(ncp_blockpat_build(4, aptr, aidx, 2, bptr, bcol, upper, &pat, &err), &err);
            CHECK(pat.n == 4);
            for (int r = 0; r <= 4; r++) CHECK(pat.ptr[r] == ep[r]);
            for (int e = 0; e < ep[4]; e++) CHECK(pat.idx[e] == ei[e]);
            /* block 0 = {0, 2}: (0,0) (2,0) (0,2) (2,2) column-major */
            const int *m0 = pat.map + pat.moff[0], *m1 = pat.map + pat.moff[1];
            CHECK(pat.moff[0] == 0 && pat.moff[1] == 4 && pat.moff[2] == 8);
            CHECK(m0[0] == 0 && m0[2] == 1 && m0[3] == (upper ? 3 : 4));
            CHECK(m0[1] == (upper ? -1 : 3));
            CHECK(m1[0] == (upper ? 3 : 4) && m1[2] == (upper ? 4 : 5));
            CHECK(m1[3] == (upper ? 5 : 7));
            CHECK(m1[1] == (upper ? -1 : 6));
            CHECK(ncp_blockpat_find(&pat, 1, 3) == -1 && ncp_blockpat_find(&pat, 0, 2) == 1);
            ncp_blockpat_free(&pat);
            CHECK(pat.ptr == NULL && pat.map == NULL);
        }
    }
    /* random: A symmetric with density 0.1 (given both triangles, or its upper triangle only),
     * up to 12 blocks of up to 6 columns */
    trng rng = {20261128ULL};
    for (int trial = 0; trial < 60; trial++) {
        int n = trial == 0 ? 0 : 1 + (int)(trng_uniform(&rng) * 40);
        int nb = n ? (int)(trng_uniform(&rng) * 13) : 0;
        size_t nn = (size_t)(n ? n : 1);
        unsigned char *a = calloc(nn * nn, 1), *u = calloc(nn * nn, 1);
        int *aptr = calloc(nn + 1, sizeof(int)), *aidx = malloc(nn * nn * sizeof(int));
        int *uptr = calloc(nn + 1, sizeof(int)), *uidx = malloc(nn * nn * sizeof(int));
        int *bptr = calloc((size_t)nb + 1, sizeof(int));
        int *bcol = malloc((size_t)(nb * 6 + 1) * sizeof(int));
        if (!a || !u || !aptr || !aidx || !uptr || !uidx || !bptr || !bcol) abort();
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                if (trng_uniform(&rng) < 0.1) a[i + nn * j] = a[j + nn * i] = 1;
        for (int i = 0; i < n; i++) {
            aptr[i + 1] = aptr[i];
            uptr[i + 1] = uptr[i];
            for (int j = n - 1; j >= 0; j--) /* any order within a row */
                if (a[i + nn * j]) {
                    aidx[aptr[i + 1]++] = j;
                    if (j > i) uidx[uptr[i + 1]++] = j;
                }
        }
        for (int b = 0; b < nb; b++) {
            int q = 0;
            for (int c = 0; c < n && q < 6; c++)
                if (trng_uniform(&rng) < 6.0 / n) bcol[bptr[b] + q++] = c;
            bptr[b + 1] = bptr[b] + q;
        }
        for (int upper = 0; upper < 2; upper++) {
            /* expected: the diagonal, A, every clique; upper: column >= row */
            memset(u, 0, nn * nn);
            for (int i = 0; i < n; i++) u[i + nn * i] = 1;
            for (int i = 0; i < n * n; i++) u[i] |= a[i];
            for (int b = 0; b < nb; b++)
                for (int x = bptr[b]; x < bptr[b + 1]; x++)
                    for (int y = bptr[b]; y < bptr[b + 1]; y++) u[bcol[x] + nn * bcol[y]] = 1;
            for (int give_upper = 0; give_upper <= upper; give_upper++) {
                const int *ap = give_upper ? uptr : aptr, *ai = give_upper ? uidx : aidx;
                CHECK_OK(ncp_blockpat_build(n, ap, ai, nb, bptr, bcol, upper, &pat, &err), &err);
                if (!pat.ptr) continue;
                int nz = 0;
                for (int r = 0; r < n; r++)
                    for (int c = upper ? r : 0; c < n; c++) nz += u[r + nn * c];
                CHECK(pat.ptr[0] == 0 && pat.ptr[n] == nz);
                for (int r = 0; r < n; r++)
                    for (int e = pat.ptr[r]; e < pat.ptr[r + 1]; e++) {
                        int c = pat.idx[e];
                        CHECK(c >= (upper ? r : 0) && c < n && u[r + nn * c]);
                        if (e > pat.ptr[r]) CHECK(pat.idx[e - 1] < c); /* sorted, distinct */
                    }
                for (int r = 0; r < n; r++)
                    for (int c = 0; c < n; c++)
                        CHECK(ncp_blockpat_find(&pat, r, c) == pat_lookup(&pat, r, c));
                size_t off = 0;
                for (int b = 0; b < nb; b++) {
                    int q = bptr[b + 1] - bptr[b];
                    const int *cols = bcol + bptr[b], *mp = pat.map + pat.moff[b];
                    CHECK(pat.moff[b] == off);
                    off += (size_t)q * q;
                    for (int x = 0; x < q; x++)
                        for (int y = 0; y < q; y++) {
                            int want = upper && x > y ? -1 : pat_lookup(&pat, cols[x], cols[y]);
                            CHECK(mp[x + q * y] == want && (want >= 0 || (upper && x > y)));
                        }
                }
                CHECK(pat.moff[nb] == off);
                ncp_blockpat_free(&pat);
            }
        }
        free(a);
        free(u);
        free(aptr);
        free(aidx);
        free(uptr);
        free(uidx);
        free(bptr);
        free(bcol);
    }
}

/* ncp_symmetrize (tiled) against (A + A^T)/2 computed entry by entry into another array: the
 * same expression, so equal bits, on sizes around the tile edge; and the problem's symmetry
 * flag (its tiled asymmetry scan) on a matrix with one asymmetric pair in the last tile. */
static void test_symmetrize(void)
{
    trng r = {57};
    const int sizes[] = {1, 2, 63, 64, 65, 130, 201};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        int n = sizes[t];
        double *A = rand_mat(&r, n, n), *W = rand_mat(&r, n, n);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                W[i + (size_t)j * n] = i == j ? A[i + (size_t)j * n]
                                     : 0.5 * (A[(i > j ? i : j) + (size_t)(i > j ? j : i) * n] +
                                              A[(i > j ? j : i) + (size_t)(i > j ? i : j) * n]);
        ncp_symmetrize(n, A);
        CHECK(memcmp(A, W, sizeof(double) * n * n) == 0);
        ncp_problem p;
        memset(&p, 0, sizeof p);
        p.m = n;
        p.has_dual = 1;
        p.D = A;
        ncp_problem_set_dual_symmetric(&p);
        CHECK(p.dual_symmetric == 1);
        if (n > 1) { /* one pair off by far more than NCP_DUAL_SYMMETRY_TOL allows */
            double big = 0.0;
            for (int k = 0; k < n * n; k++) big = fmax(big, fabs(A[k]));
            A[(n - 1) + (size_t)(n - 2) * n] += 1e-3 * big;
            ncp_problem_set_dual_symmetric(&p);
            CHECK(p.dual_symmetric == 0);
        }
        free(A);
        free(W);
    }
}

int main(void)
{
    test_vectors();
    test_gemv_gemm();
    test_cholesky();
    test_symmetrize();
    test_lu();
    test_sym_eig();
    test_csr();
    test_delassus();
    test_blockpat();
    return tcheck_exit("la");
}
