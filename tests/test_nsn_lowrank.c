/* The semismooth Newton solvers on the low-rank route (solvers/nsn_common.h):
 * (a) the linear algebra: J = P + Q F F^T with random P, Q blocks (among them singular P blocks
 *     of rounding-level and of exact rank deficiency, k null directions in all, k < r, k = r and
 *     k > r) and P blocks with small singular values, against J formed here with the problem's
 *     dense D: J x, the Newton solve J d = b against a dense LU solve (1e-9 relative, residual
 *     at rounding level) with the same singular verdict (dense: the smallest eigenvalue of J^T J
 *     below 1e-13 of the largest, or an exactly zero LU pivot), the LM identity
 *     J^T J + delta I = B + Z C Z^T formed densely, and the LM solve against a dense Cholesky
 *     solve of (J^T J + delta I) d = J^T b (1e-9 relative or the condition number's bound,
 *     residual at rounding level);
 *     The sparse route's saddle-point systems (solvers/nsn_sparse.h, with UMFPACK) on the same
 *     J through A and J's blocks: J x, the Newton solve against the dense LU (same verdict where
 *     J is exactly singular or clearly not, 1e-9 relative, residual at rounding level) and the
 *     LM solve against the dense Cholesky (as the low-rank one);
 * (b) nsn-nm and nsn-fb through the harness on random problems of nv = 6 dofs and 30..60
 *     contacts, with the primal data (low-rank route) and without (has_primal = 0: dense route):
 *     same status and iterations, the same lambda to 1e-8 relative. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dop.h"
#include "core/la.h"
#include "solvers/nsn_common.h"
#include "solvers/nsn_sparse.h"
#include "solvers/registry.h"
#include "tcheck.h"
#include "testutil.h"

static int block_rows(const ncp_block *b) { return b->type == NCP_CONTACT ? 3 : 1; }

/* The dense J = P + Q D (m x m) from block storage. */
static void dense_J(const ncp_problem *p, const double *P, const double *Q, double *J)
{
    const int m = p->m;
    memset(J, 0, sizeof(double) * (size_t)m * m);
    for (int bi = 0; bi < p->nblocks; bi++) {
        const int r = p->blocks[bi].row, n = block_rows(&p->blocks[bi]);
        const double *Pb = P + 3 * r, *Qb = Q + 3 * r;
        for (int i = 0; i < n; i++) {
            for (int c = 0; c < m; c++) {
                double s = 0.0;
                for (int j = 0; j < n; j++) s += Qb[i + n * j] * p->D[(r + j) + (size_t)c * m];
                J[(r + i) + (size_t)c * m] = s;
            }
            for (int j = 0; j < n; j++) J[(r + i) + (size_t)(r + j) * m] += Pb[i + n * j];
        }
    }
}

/* Kinds of P block: invertible, rank n - 1 or n - 2 (a product of random factors: singular up
 * to rounding), exactly zero, zero with Q = 0 as well (rows of J exactly zero), or rank n - 1
 * plus 1e-7 noise (invertible, a small singular value: what FB's smoothed elements give). */
enum { PB_FULL, PB_RANK1DEF, PB_RANK2DEF, PB_ZERO, PB_ZERO_ROWS, PB_NEAR };

/* Random P, Q blocks; kinds[bi] picks block bi's P. Returns k, the total nullity of the P's. */
static int random_blocks(const ncp_problem *p, trng *g, const int *kinds, double *P, double *Q)
{
    int k = 0;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const int r = p->blocks[bi].row, n = block_rows(&p->blocks[bi]);
        double *Pb = P + 3 * r, *Qb = Q + 3 * r;
        for (int i = 0; i < n * n; i++) Qb[i] = trng_normal(g);
        int def = kinds[bi] == PB_FULL ? 0 : kinds[bi] == PB_RANK1DEF ? 1
                : kinds[bi] == PB_RANK2DEF ? 2 : kinds[bi] == PB_NEAR ? (n > 1) : n;
        if (def > n) def = n;
        int rk = n - def;
        double X[9], Yf[9];
        for (int i = 0; i < 9; i++) {
            X[i] = trng_normal(g);
            Yf[i] = trng_normal(g);
        }
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double s = 0.0;
                for (int l = 0; l < rk; l++) s += X[i + n * l] * Yf[l + n * j];
                Pb[i + n * j] = rk == n ? (i == j ? 2.0 : 0.0) + 0.5 * X[i + n * j] : s;
            }
        if (kinds[bi] == PB_ZERO_ROWS)
            for (int i = 0; i < n * n; i++) Qb[i] = 0.0;
        if (kinds[bi] == PB_NEAR) {
            for (int i = 0; i < n * n; i++) Pb[i] += 1e-7 * trng_normal(g);
            def = 0;
        }
        k += def;
    }
    return k;
}

/* lambda_min / lambda_max of J^T J (m x m) by the symmetric eigensolver; *lmax = lambda_max. */
static double jtj_ratio(int m, const double *J, double *lmax)
{
    double *A = malloc(sizeof(double) * (size_t)m * m), *w = malloc(sizeof(double) * m);
    ncp_error err = {0};
    ncp_gemm(1, 0, m, m, m, 1.0, J, J, 0.0, A);
    CHECK_OK(ncp_sym_eig(m, A, w, &err), &err);
    double ratio = w[0] / w[m - 1];
    *lmax = w[m - 1];
    free(A);
    free(w);
    return ratio;
}

/* The sparse route on p's J = P + Q D (dense J given): J x, Newton (a verdict only where J is
 * clearly invertible, `regular`, or exactly singular, `zero_rows`), LM for three deltas. */
static void check_sparse(const ncp_problem *p, const double *P, const double *Q, const double *J,
                         const double *b, const double *x, int regular, int zero_rows,
                         double lmax)
{
    const int m = p->m;
    ncp_error err = {0};
    ncp_dop op;
    ncp_nsn_sparse sp;
    CHECK_OK(ncp_dop_init(&op, p, NCP_DOP_SPARSE, &err), &err);
    CHECK_OK(ncp_nsn_sparse_init(&sp, p, &op, &err), &err);
    CHECK(ncp_nsn_sparse_flops(&sp) > 0.0);
    ncp_nsn_sparse_set(&sp, P, Q);
    double *y = malloc(sizeof(double) * m), *y2 = malloc(sizeof(double) * m);
    double *d = malloc(sizeof(double) * m), *dd = malloc(sizeof(double) * m);
    double *L = malloc(sizeof(double) * (size_t)m * m), *A0 = malloc(sizeof(double) * (size_t)m * m);
    int *ipiv = malloc(sizeof(int) * m);
    ncp_nsn_sparse_apply(&sp, x, y);
    ncp_gemv(0, m, m, 1.0, J, x, 0.0, y2);
    CHECK(tutil_maxdiff(m, y, y2) <= 1e-12 * ncp_norminf(m, y2));
    double jmax = 0.0;
    for (size_t i = 0; i < (size_t)m * m; i++) jmax = fmax(jmax, fabs(J[i]));
    int ok = ncp_nsn_sparse_newton(&sp, b, d);
    if (zero_rows) CHECK(!ok); /* rows of J exactly zero: the saddle matrix is singular too */
    if (regular) {
        CHECK(ok);
        memcpy(L, J, sizeof(double) * (size_t)m * m);
        memcpy(dd, b, sizeof(double) * m);
        CHECK_OK(ncp_lu_solve(m, L, ipiv, 1, dd, &err), &err);
        double dn = ncp_norminf(m, dd);
        ncp_gemv(0, m, m, 1.0, J, d, -1.0, memcpy(y, b, sizeof(double) * m));
        double res = ncp_norminf(m, y) / (jmax * ncp_norminf(m, d));
        printf("  sparse Newton: |d - d_dense| / |d_dense| %.1e, residual %.1e\n",
               tutil_maxdiff(m, d, dd) / dn, res);
        CHECK(tutil_maxdiff(m, d, dd) <= 1e-9 * dn);
        CHECK(res <= 1e-14);
    }
    for (int t = 0; t < 3; t++) {
        const double delta = t == 0 ? 1e-3 : t == 1 ? 0.3 : 10.0;
        ncp_gemm(1, 0, m, m, m, 1.0, J, J, 0.0, L);
        for (int i = 0; i < m; i++) L[i + (size_t)i * m] += delta;
        memcpy(A0, L, sizeof(double) * (size_t)m * m);
        ncp_gemv(1, m, m, 1.0, J, b, 0.0, dd);
        CHECK_OK(ncp_chol_factor(m, L, &err), &err);
        CHECK_OK(ncp_chol_solve(m, L, 1, dd, &err), &err);
        CHECK(ncp_nsn_sparse_lm(&sp, delta, b, d) == 1);
        double kappa = (lmax + delta) / delta, amax = 0.0;
        for (size_t i = 0; i < (size_t)m * m; i++) amax = fmax(amax, fabs(A0[i]));
        ncp_gemv(1, m, m, 1.0, J, b, 0.0, y);
        ncp_gemv(0, m, m, 1.0, A0, d, -1.0, y);
        double res = ncp_norminf(m, y) / (amax * ncp_norminf(m, d));
        double lmdiff = tutil_maxdiff(m, d, dd) / ncp_norminf(m, dd);
        printf("  sparse LM delta %-5g: |d - d_dense| / |d_dense| %.1e, residual %.1e\n", delta,
               lmdiff, res);
        CHECK(res <= 1e-14);
        CHECK(lmdiff <= fmax(1e-9, 1e-15 * kappa));
    }
    free(y);
    free(y2);
    free(d);
    free(dd);
    free(L);
    free(A0);
    free(ipiv);
    ncp_nsn_sparse_free(&sp);
    ncp_dop_free(&op);
}

/* One case of (a): problem seed, nc contacts plus nbil/nuni/nsoft scalar rows, the P kinds of
 * the first nfirst blocks (the rest invertible). */
static void check_linear(uint64_t seed, int nc, int nbil, int nuni, int nsoft, const int *first,
                         int nfirst, const char *what)
{
    ncp_problem p;
    ncp_error err = {0};
    CHECK_OK(tutil_random_problem(&p, seed, 6, nc, nbil, nuni, nsoft, &err), &err);
    const int m = p.m;
    ncp_dop op;
    CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_AUTO, &err), &err);
    CHECK(op.rank == 6);
    const int r = op.rank;
    ncp_nsn_lowrank lr;
    CHECK_OK(ncp_nsn_lowrank_init(&lr, &p, &op, &err), &err);

    trng g = {seed * 31 + 7};
    int *kinds = calloc((size_t)p.nblocks, sizeof(int));
    for (int i = 0; i < nfirst && i < p.nblocks; i++) kinds[i] = first[i];
    double *P = calloc(3 * (size_t)m, sizeof(double)), *Q = calloc(3 * (size_t)m, sizeof(double));
    int k = random_blocks(&p, &g, kinds, P, Q);
    ncp_nsn_lowrank_set(&lr, P, Q);

    double *J = malloc(sizeof(double) * (size_t)m * m), *W = malloc(sizeof(double) * (size_t)m * m);
    double *b = malloc(sizeof(double) * m), *x = malloc(sizeof(double) * m);
    double *y = malloc(sizeof(double) * m), *y2 = malloc(sizeof(double) * m);
    double *d = malloc(sizeof(double) * m), *dd = malloc(sizeof(double) * m);
    int *ipiv = malloc(sizeof(int) * m);
    dense_J(&p, P, Q, J);
    for (int i = 0; i < m; i++) {
        b[i] = trng_normal(&g);
        x[i] = trng_normal(&g);
    }

    /* J x */
    ncp_nsn_lowrank_apply(&lr, x, y);
    ncp_gemv(0, m, m, 1.0, J, x, 0.0, y2);
    CHECK(tutil_maxdiff(m, y, y2) <= 1e-12 * ncp_norminf(m, y2));

    /* Newton: J d = b; verdicts */
    int lr_ok = ncp_nsn_lowrank_newton(&lr, b, d);
    memcpy(W, J, sizeof(double) * (size_t)m * m);
    memcpy(dd, b, sizeof(double) * m);
    ncp_error e2 = {0};
    int lu_ok = ncp_lu_solve(m, W, ipiv, 1, dd, &e2) == NCP_OK;
    double lmax;
    double ratio = jtj_ratio(m, J, &lmax);
    int dense_singular = !lu_ok || ratio < 1e-13;
    printf("%-28s m %3d  k %2d  lambda_min/max(J^T J) %.2e  dense LU %s  low rank %s\n", what, m,
           k, ratio, lu_ok ? "ok" : "singular", lr_ok ? "ok" : "singular");
    CHECK(lr_ok == !dense_singular);
    if (k > r) CHECK(!lr_ok && dense_singular); /* more than r null rows: singular */
    if (lr_ok && lu_ok) {
        double dn = ncp_norminf(m, dd);
        CHECK(tutil_maxdiff(m, d, dd) <= 1e-9 * dn);
        /* backward stable like the LU: residual at the rounding level of |J| |d| */
        double jmax = 0.0;
        for (size_t i = 0; i < (size_t)m * m; i++) jmax = fmax(jmax, fabs(J[i]));
        ncp_gemv(0, m, m, 1.0, J, d, -1.0, memcpy(y, b, sizeof(double) * m));
        double res = ncp_norminf(m, y) / (jmax * ncp_norminf(m, d));
        printf("  Newton: |d - d_dense| / |d_dense| %.1e, residual %.1e\n",
               tutil_maxdiff(m, d, dd) / dn, res);
        CHECK(res <= 1e-14);
    }

    /* LM: J^T J + delta I = B + Z C Z^T, with B = P^T P + delta I (blocks), Z = [P^T U, F],
     * C = [[0, I], [I, U^T U]], U = Q F, formed densely */
    for (int t = 0; t < 3; t++) {
        const double delta = t == 0 ? 1e-3 : t == 1 ? 0.3 : 10.0;
        double *L = W; /* the dense J^T J + delta I */
        ncp_gemm(1, 0, m, m, m, 1.0, J, J, 0.0, L);
        for (int i = 0; i < m; i++) L[i + (size_t)i * m] += delta;
        if (t == 0) {
            double *U = malloc(sizeof(double) * (size_t)m * r);
            double *Z = calloc((size_t)m * 2 * r, sizeof(double));
            double *C = calloc((size_t)4 * r * r, sizeof(double));
            double *ZC = malloc(sizeof(double) * (size_t)m * 2 * r);
            double *R = malloc(sizeof(double) * (size_t)m * m);
            for (int bi = 0; bi < p.nblocks; bi++) {
                const int r0 = p.blocks[bi].row, n = block_rows(&p.blocks[bi]);
                const double *Pb = P + 3 * r0, *Qb = Q + 3 * r0;
                for (int c = 0; c < r; c++)
                    for (int i = 0; i < n; i++) {
                        double s = 0.0;
                        for (int j = 0; j < n; j++) s += Qb[i + n * j] * op.F[r0 + j + (size_t)c * m];
                        U[r0 + i + (size_t)c * m] = s;
                    }
                for (int c = 0; c < r; c++)
                    for (int i = 0; i < n; i++) {
                        double s = 0.0;
                        for (int j = 0; j < n; j++) s += Pb[j + n * i] * U[r0 + j + (size_t)c * m];
                        Z[r0 + i + (size_t)c * m] = s;
                    }
            }
            memcpy(Z + (size_t)r * m, op.F, sizeof(double) * (size_t)m * r);
            ncp_gemm(1, 0, r, r, m, 1.0, U, U, 0.0, y2); /* U^T U (r x r) into scratch */
            for (int j = 0; j < r; j++) {
                C[j + (size_t)(r + j) * 2 * r] = C[(r + j) + (size_t)j * 2 * r] = 1.0;
                for (int i = 0; i < r; i++) C[(r + i) + (size_t)(r + j) * 2 * r] = y2[i + r * j];
            }
            ncp_gemm(0, 0, m, 2 * r, 2 * r, 1.0, Z, C, 0.0, ZC);
            ncp_gemm(0, 1, m, m, 2 * r, 1.0, ZC, Z, 0.0, R); /* Z C Z^T */
            for (int bi = 0; bi < p.nblocks; bi++) {
                const int r0 = p.blocks[bi].row, n = block_rows(&p.blocks[bi]);
                const double *Pb = P + 3 * r0;
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < n; i++) {
                        double s = i == j ? delta : 0.0;
                        for (int a = 0; a < n; a++) s += Pb[a + n * i] * Pb[a + n * j];
                        R[(r0 + i) + (size_t)(r0 + j) * m] += s;
                    }
            }
            double dev = 0.0, sc = 0.0;
            for (size_t i = 0; i < (size_t)m * m; i++) {
                dev = fmax(dev, fabs(R[i] - L[i]));
                sc = fmax(sc, fabs(L[i]));
            }
            CHECK(dev <= 1e-12 * sc);
            free(U);
            free(Z);
            free(C);
            free(ZC);
            free(R);
        }
        ncp_gemv(1, m, m, 1.0, J, b, 0.0, dd);
        double *A0 = malloc(sizeof(double) * (size_t)m * m);
        memcpy(A0, L, sizeof(double) * (size_t)m * m);
        CHECK_OK(ncp_chol_factor(m, L, &err), &err);
        CHECK_OK(ncp_chol_solve(m, L, 1, dd, &err), &err);
        CHECK(ncp_nsn_lowrank_lm(&lr, delta, b, d) == 1);
        /* both solves are backward stable (residual at rounding level of |A| |d|); their
         * difference is then bounded by the condition number kappa = (lmax + delta) / delta of
         * A = J^T J + delta I: 1e-9 relative, or kappa x 1e-15 where that is larger (delta =
         * 1e-3: kappa ~ 5e6) */
        double lmdiff = tutil_maxdiff(m, d, dd) / ncp_norminf(m, dd);
        double kappa = (lmax + delta) / delta, amax = 0.0;
        for (size_t i = 0; i < (size_t)m * m; i++) amax = fmax(amax, fabs(A0[i]));
        ncp_gemv(1, m, m, 1.0, J, b, 0.0, y);
        ncp_gemv(0, m, m, 1.0, A0, d, -1.0, y);
        double res = ncp_norminf(m, y) / (amax * ncp_norminf(m, d));
        printf("  LM delta %-5g kappa %.1e: |d - d_dense| / |d_dense| %.1e, residual %.1e\n", delta,
               kappa, lmdiff, res);
        CHECK(res <= 1e-14);
        CHECK(lmdiff <= fmax(1e-9, 1e-15 * kappa));
        free(A0);
    }

    if (ncp_splu_available())
        check_sparse(&p, P, Q, J, b, x, lu_ok && !dense_singular, kinds[0] == PB_ZERO_ROWS, lmax);

    free(kinds);
    free(P);
    free(Q);
    free(J);
    free(W);
    free(b);
    free(x);
    free(y);
    free(y2);
    free(d);
    free(dd);
    free(ipiv);
    ncp_nsn_lowrank_free(&lr);
    ncp_dop_free(&op);
    ncp_problem_free(&p);
}

static void part_a(void)
{
    /* (contact blocks come first in tutil_random_problem, then bilateral, unilateral, soft) */
    const int none[1] = {PB_FULL};
    const int k_lt_r[4] = {PB_RANK1DEF, PB_NEAR, PB_RANK2DEF, PB_RANK1DEF};          /* k = 4 */
    const int near[6] = {PB_NEAR, PB_NEAR, PB_NEAR, PB_NEAR, PB_NEAR, PB_NEAR};      /* k = 0 */
    const int k_eq_r[4] = {PB_ZERO, PB_RANK1DEF, PB_FULL, PB_RANK2DEF};              /* k = 6 */
    const int k_gt_r[5] = {PB_ZERO, PB_RANK2DEF, PB_RANK1DEF, PB_FULL, PB_RANK2DEF}; /* k = 8 */
    const int many[12] = {PB_ZERO, PB_ZERO, PB_ZERO, PB_ZERO, PB_ZERO, PB_ZERO,
                          PB_ZERO, PB_ZERO, PB_ZERO, PB_ZERO, PB_ZERO, PB_ZERO};     /* k = 36 */
    const int zero_rows[2] = {PB_ZERO_ROWS, PB_FULL}; /* k = 3 <= r, J exactly singular */
    for (uint64_t s = 1; s <= 3; s++) {
        check_linear(100 + s, 30, 0, 0, 0, none, 1, "invertible P, contacts");
        check_linear(200 + s, 30, 2, 2, 2, none, 1, "invertible P, mixed rows");
        check_linear(300 + s, 30, 0, 0, 0, k_lt_r, 4, "k < r");
        check_linear(350 + s, 30, 0, 0, 0, near, 6, "small singular values");
        check_linear(400 + s, 36, 0, 0, 0, k_eq_r, 4, "k = r");
        check_linear(450 + s, 30, 2, 2, 2, k_eq_r, 4, "mixed rows, singular P");
        check_linear(500 + s, 30, 0, 0, 0, k_gt_r, 5, "k > r");
        check_linear(600 + s, 40, 0, 0, 0, many, 12, "k >> r");
        check_linear(700 + s, 30, 0, 0, 0, zero_rows, 2, "zero rows in J (k < r)");
    }
}

/* (b) the solvers through the harness on both routes. */
static void part_b(const char *name)
{
    const ncp_solver_desc *s = ncp_solver_find(name);
    CHECK(s != NULL);
    if (!s) return;
    int total_lr = 0, total_dense = 0, nconv = 0;
    for (int i = 0; i < 12; i++) {
        ncp_problem p;
        ncp_error err = {0};
        trng g = {9000 + (uint64_t)i};
        int nc = 30 + (int)(31.0 * trng_uniform(&g));
        CHECK_OK(tutil_random_problem(&p, 9100 + (uint64_t)i, 6, nc, 0, 0, 0, &err), &err);
        tutil_feasible_shift(&p);
        ncp_dop op;
        CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_AUTO, &err), &err);
        CHECK(op.rank == 6); /* the primal run below takes the low-rank route */
        ncp_dop_free(&op);
        ncp_result lr, de;
        int rc1 = tutil_solve(s, &p, NULL, NULL, 1e-10, 500, &lr);
        p.has_primal = 0; /* the dense route */
        int rc2 = tutil_solve(s, &p, NULL, NULL, 1e-10, 500, &de);
        p.has_primal = 1;
        CHECK(rc1 == NCP_OK && rc2 == NCP_OK);
        if (rc1 == NCP_OK && rc2 == NCP_OK) {
            double diff = tutil_maxdiff(p.m, lr.lambda, de.lambda);
            double ln = ncp_norminf(p.m, de.lambda);
            printf("%s problem %2d (m %3d): status %d / %d, iterations %3d / %3d, "
                   "|lambda_lr - lambda_dense| %.2e of %.2e, solve %.2f / %.2f ms\n",
                   name, i, p.m, lr.status, de.status, lr.iterations, de.iterations, diff, ln,
                   lr.solve_ms, de.solve_ms);
            CHECK(lr.status == de.status);
            CHECK(lr.iterations == de.iterations);
            CHECK(diff <= 1e-8 * fmax(1.0, ln));
            total_lr += lr.iterations;
            total_dense += de.iterations;
            nconv += lr.converged;
        }
        if (rc1 == NCP_OK) ncp_result_free(&lr);
        if (rc2 == NCP_OK) ncp_result_free(&de);
        ncp_problem_free(&p);
    }
    printf("%s: %d of 12 converged, iterations %d (low rank) / %d (dense)\n", name, nconv,
           total_lr, total_dense);
    CHECK(nconv == 12);
}

int main(void)
{
    part_a();
    part_b("nsn-nm");
    part_b("nsn-fb");
    return tcheck_exit("nsn_lowrank");
}
