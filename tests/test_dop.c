/* The Delassus operator (core/dop.h): the low-rank route F F^T against the dense D that
 * ncp_delassus builds, the sparse route J A_sparse^{-1} J^T against the dense D that the block
 * factorisation builds, the Woodbury shift solve against a residual computed with the dense D,
 * and the choice of route (a D that is not J A^{-1} J^T must be used as given). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dop.h"
#include "core/sparse_chol.h"
#include "tcheck.h"
#include "testutil.h"

/* Max |D x - y| relative to max_i sum_j |D_ij x_j|. */
static double rel_err(const ncp_problem *p, const double *x, const double *y)
{
    double e = 0.0, sc = 0.0;
    for (int i = 0; i < p->m; i++) {
        double s = 0.0, a = 0.0;
        for (int j = 0; j < p->m; j++) {
            s += p->D[i + (size_t)j * p->m] * x[j];
            a += fabs(p->D[i + (size_t)j * p->m] * x[j]);
        }
        e = fmax(e, fabs(s - y[i]));
        sc = fmax(sc, a);
    }
    return e / sc;
}

static void check_problem(uint64_t seed, int nv, int nc)
{
    ncp_problem p;
    ncp_error err = {0};
    trng r = {seed};
    CHECK_OK(tutil_random_problem(&p, seed, nv, nc, 0, 0, 0, &err), &err);
    const int m = p.m;
    double *x = malloc(sizeof(double) * m), *y = malloc(sizeof(double) * m);
    double *s = malloc(sizeof(double) * m), *z = malloc(sizeof(double) * m);
    for (int i = 0; i < m; i++) {
        x[i] = trng_normal(&r);
        s[i] = 0.1 + trng_uniform(&r);
    }
    ncp_dop op;
    CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_AUTO, &err), &err);
    CHECK(op.rank == (4 * nv <= m ? nv : 0)); /* low rank exactly when it is cheaper */

    /* y = 2 D x - y0 */
    for (int i = 0; i < m; i++) y[i] = 1.0;
    ncp_dop_apply(&op, 2.0, x, -1.0, y);
    for (int i = 0; i < m; i++) y[i] = 0.5 * (y[i] + 1.0);
    CHECK(rel_err(&p, x, y) < 1e-13);

    /* row by row (the stopping test's lazy rows): the bits of the whole product */
    if (op.rank > 0) {
        for (int i = 0; i < m; i++) z[i] = s[i];
        ncp_dop_apply(&op, 1.0, x, 1.0, z);
        double tmax = ncp_dop_begin_rows(&op, x), rowabs = ncp_dop_row_absmax(&op);
        int same = 1;
        for (int i = 0; i < m; i++) {
            double yi = ncp_dop_row(&op, i, s[i]);
            same &= yi == z[i];
            CHECK(fabs(yi - s[i]) <= rowabs * tmax * (1.0 + 1e-12)); /* the overflow bound */
        }
        CHECK(same);
    }

    double B[9];
    ncp_dop_diag_block(&op, 3, 3, B);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            CHECK_NEAR(B[a + 3 * b], p.D[(3 + a) + (size_t)(3 + b) * m],
                       1e-13 * fabs(p.D[(3 + a) + (size_t)(3 + a) * m]));

    /* (D + diag s) z = x, residual with the dense D */
    ncp_dop_shift f;
    CHECK_OK(ncp_dop_shift_factor(&op, s, &f, &err), &err);
    ncp_dop_shift_solve(&f, x, z);
    double res = 0.0, xn = 0.0;
    for (int i = 0; i < m; i++) {
        double t = s[i] * z[i] - x[i];
        for (int j = 0; j < m; j++) t += p.D[i + (size_t)j * m] * z[j];
        res = fmax(res, fabs(t));
        xn = fmax(xn, fabs(x[i]));
    }
    CHECK(res < 1e-10 * xn);
    /* in place */
    memcpy(y, x, sizeof(double) * m);
    ncp_dop_shift_solve(&f, y, y);
    CHECK(tutil_maxdiff(m, y, z) <= 1e-14 * (1.0 + ncp_norminf(m, z)));
    ncp_dop_shift_free(&f);
    ncp_dop_free(&op);

    /* the route decided once per problem (ncp_dop_check_problem) is the one AUTO takes when it
     * checks F F^T against D itself: same route, same bits */
    CHECK(p.dop_route == 0);
    CHECK_OK(ncp_dop_check_problem(&p, &err), &err);
    CHECK(p.dop_route == (4 * nv <= m ? 1 : -1));
    CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_AUTO, &err), &err);
    CHECK(op.rank == (4 * nv <= m ? nv : 0));
    ncp_dop_apply(&op, 1.0, x, 0.0, y);
    ncp_dop_free(&op);
    p.dop_route = 0;
    CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_AUTO, &err), &err);
    ncp_dop_apply(&op, 1.0, x, 0.0, z);
    CHECK(memcmp(y, z, (size_t)m * sizeof *y) == 0);
    ncp_dop_free(&op);

    /* A D that is not J A^{-1} J^T (regularised): AUTO must use it as given */
    if (4 * nv <= m) {
        for (int i = 0; i < m; i++) p.D[i + (size_t)i * m] += 1e-6 * (1.0 + p.D[i + (size_t)i * m]);
        /* decided once for the changed D (dop_route back to 0, as problem.h asks): dense */
        CHECK_OK(ncp_dop_check_problem(&p, &err), &err);
        CHECK(p.dop_route == -1);
        CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_AUTO, &err), &err);
        CHECK(op.rank == 0);
        ncp_dop_free(&op);
        p.dop_route = 0;
        CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_AUTO, &err), &err);
        CHECK(op.rank == 0);
        ncp_dop_apply(&op, 1.0, x, 0.0, y);
        CHECK(rel_err(&p, x, y) < 1e-14);
        ncp_dop_free(&op);
        /* forced low rank ignores D */
        CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_LOWRANK, &err), &err);
        CHECK(op.rank == nv);
        ncp_dop_free(&op);
    }
    /* dense route without D, low rank without primal data: input errors, no crash */
    ncp_problem q;
    ncp_problem_init(&q);
    q.m = 3;
    CHECK(ncp_dop_init(&op, &q, NCP_DOP_DENSE, &err) == NCP_ERR_INPUT);
    ncp_error_clear(&err);
    CHECK(ncp_dop_init(&op, &q, NCP_DOP_LOWRANK, &err) == NCP_ERR_INPUT);
    ncp_error_clear(&err);
    free(x);
    free(y);
    free(s);
    free(z);
    ncp_problem_free(&p);
}

/* The sparse route on a pile of nb bodies with nc contacts (m = 3 nc rows). */
static void check_sparse(uint64_t seed, int nb, int nc)
{
    ncp_problem p;
    ncp_error err = {0};
    trng r = {seed};
    CHECK_OK(tutil_sparse_bodies_problem(&p, seed, nb, nc, &err), &err);
    const int m = p.m;
    double *x = malloc(sizeof(double) * m), *y = malloc(sizeof(double) * m);
    double *s = malloc(sizeof(double) * m), *z = malloc(sizeof(double) * m);
    for (int i = 0; i < m; i++) {
        x[i] = i % 7 == 3 ? 0.0 : trng_normal(&r); /* zeros: skipped entries of J^T x */
        s[i] = 0.1 + trng_uniform(&r);
    }
    ncp_dop op;
    CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_AUTO, &err), &err);
    CHECK(op.chol != NULL && op.rank == 0); /* taken: far cheaper than 2 m^2 */
    for (int i = 0; i < m; i++) y[i] = 1.0;
    ncp_dop_apply(&op, 2.0, x, -1.0, y);
    for (int i = 0; i < m; i++) y[i] = 0.5 * (y[i] + 1.0);
    CHECK(rel_err(&p, x, y) < 1e-13);
    ncp_dop_apply(&op, 1.0, x, 0.0, y); /* beta = 0: y's old values (here finite) ignored */
    CHECK(rel_err(&p, x, y) < 1e-13);

    /* (D + diag s) z = x with the dense D (the sparse route keeps D for factorisations) */
    ncp_dop_shift f;
    CHECK_OK(ncp_dop_shift_factor(&op, s, &f, &err), &err);
    ncp_dop_shift_solve(&f, x, z);
    double res = 0.0, xn = ncp_norminf(m, x);
    for (int i = 0; i < m; i++) {
        double t = s[i] * z[i] - x[i];
        for (int j = 0; j < m; j++) t += p.D[i + (size_t)j * m] * z[j];
        res = fmax(res, fabs(t));
    }
    CHECK(res < 1e-10 * xn);
    ncp_dop_shift_free(&f);
    ncp_dop_free(&op);

    /* decided once: the same route and bits as the operator that checks for itself */
    CHECK_OK(ncp_dop_check_problem(&p, &err), &err);
    CHECK(p.dop_route == 2);
    CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_AUTO, &err), &err);
    CHECK(op.chol != NULL);
    ncp_dop_apply(&op, 1.0, x, 0.0, z);
    ncp_dop_free(&op);
    CHECK(memcmp(y, z, (size_t)m * sizeof *y) == 0);

    /* a diagonal block without D (forced route, dual data hidden): J_a A^{-1} J_b^T */
    double B[9], B0[9];
    const int r0 = 3 * (nc / 2);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) B0[a + 3 * b] = p.D[(r0 + a) + (size_t)(r0 + b) * m];
    p.has_dual = 0;
    CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_SPARSE, &err), &err);
    CHECK(op.chol != NULL && op.D == NULL);
    ncp_dop_diag_block(&op, r0, 3, B);
    for (int q = 0; q < 9; q++) CHECK_NEAR(B[q], B0[q], 1e-13 * fabs(B0[0]));
    CHECK(ncp_dop_shift_factor(&op, s, &f, &err) == NCP_ERR_INPUT); /* needs D: refused */
    ncp_error_clear(&err);
    ncp_dop_free(&op);
    p.has_dual = 1;

    /* a D that is not J A^{-1} J^T: AUTO uses it as given */
    for (int i = 0; i < m; i++) p.D[i + (size_t)i * m] += 1e-6 * (1.0 + p.D[i + (size_t)i * m]);
    p.dop_route = 0;
    CHECK_OK(ncp_dop_check_problem(&p, &err), &err);
    CHECK(p.dop_route == -1);
    p.dop_route = 0;
    CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_AUTO, &err), &err);
    CHECK(op.chol == NULL && op.rank == 0);
    ncp_dop_apply(&op, 1.0, x, 0.0, y);
    CHECK(rel_err(&p, x, y) < 1e-14);
    ncp_dop_free(&op);

    /* A not positive definite: the forced route says so, AUTO falls back to the dense D */
    for (int q = p.A_sparse.rowptr[0]; q < p.A_sparse.rowptr[1]; q++)
        if (p.A_sparse.col[q] == 0) p.A_sparse.val[q] = -1.0;
    CHECK(ncp_dop_init(&op, &p, NCP_DOP_SPARSE, &err) == NCP_ERR_NUMERIC);
    CHECK(strstr(err.msg, "mass matrix A") != NULL);
    ncp_error_clear(&err);
    CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_AUTO, &err), &err);
    CHECK(op.chol == NULL);
    ncp_dop_free(&op);
    free(x);
    free(y);
    free(s);
    free(z);
    ncp_problem_free(&p);

    /* a small pile: 2 m^2 is no dearer than the indexed loops, the dense route serves */
    CHECK_OK(tutil_sparse_bodies_problem(&p, seed + 1, 3, 4, &err), &err);
    CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_AUTO, &err), &err);
    CHECK(op.chol == NULL && op.rank == 0);
    ncp_dop_free(&op);
    ncp_problem_free(&p);
    /* the sparse route on a dense A (its block pattern: here one block) is J A^{-1} J^T; without
     * primal data it is an input error */
    CHECK_OK(tutil_random_problem(&p, seed + 2, 6, 4, 0, 0, 0, &err), &err);
    double xs[12], ys[12];
    for (int i = 0; i < p.m; i++) xs[i] = 1.0 + 0.1 * i;
    CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_SPARSE, &err), &err);
    CHECK(op.chol != NULL && p.m <= 12);
    ncp_dop_apply(&op, 1.0, xs, 0.0, ys);
    CHECK(rel_err(&p, xs, ys) < 1e-13);
    ncp_dop_free(&op);
    p.has_primal = 0;
    CHECK(ncp_dop_init(&op, &p, NCP_DOP_SPARSE, &err) == NCP_ERR_INPUT);
    ncp_error_clear(&err);
    p.has_primal = 1;
    ncp_problem_free(&p);
}

/* dop.c's rule for the sparse route, recomputed with a block factorisation of A of our own:
 * 2.5 x (4 nnz(J) + 2 factor entries) < 2 m^2. */
static int sparse_route_expected(const ncp_problem *p)
{
    ncp_error err = {0};
    ncp_sparse_chol *F = NULL;
    ncp_sparse_chol_opts opts = {.no_cholmod = 1};
    CHECK_OK(ncp_sparse_chol_factor(&p->A_sparse, &opts, &F, &err), &err);
    if (!F) return -1;
    double cost = 4.0 * p->J.nnz + 2.0 * (double)ncp_sparse_chol_dense_entries(F);
    ncp_sparse_chol_free(F);
    return 2.5 * cost < 2.0 * (double)p->m * p->m;
}

/* The route choice is by estimated cost, continuous in size: on piles of the same 12 bodies with
 * more and more contacts the sparse route's product grows like nnz(J) and the dense one's like
 * m^2, so AUTO goes from dense to sparse once and stays there, each time exactly when the rule
 * stated in dop.c holds (2.5 x (4 nnz(J) + 2 factor entries) < 2 m^2, the factor entries counted
 * here from a block factorisation of A of our own); the low-rank route likewise for dense data
 * exactly when 2 x 4 m nv <= 2 m^2. ncp_dop_describe names the route taken. */
static void check_route_costs(void)
{
    ncp_error err = {0};
    int flips = 0, prev = 0;
    for (int nc = 1; nc <= 40; nc++) {
        ncp_problem p;
        CHECK_OK(tutil_sparse_bodies_problem(&p, 77, 12, nc, &err), &err);
        int want = sparse_route_expected(&p);
        ncp_dop op;
        CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_AUTO, &err), &err);
        int got = op.chol != NULL;
        CHECK(got == want);
        char text[160];
        ncp_dop_describe(&op, text, sizeof text);
        CHECK(strstr(text, got ? "D sparse" : "D dense") == text);
        if (got != prev) flips++;
        prev = got;
        ncp_dop_free(&op);
        ncp_problem_free(&p);
    }
    CHECK(flips == 1 && prev == 1);
    /* the same piles with A dense and no D, as a capture of up to 600 dofs keeps them: the
     * route decided without D (ncp_dop_check_problem) is the sparse one on the dense A's blocks
     * exactly when the same rule holds (formerly -1 at any size: the harness built the dense D
     * for solvers whose product through A's blocks was far cheaper), and the operator without
     * D then takes it, with D's products */
    flips = prev = 0;
    for (int nc = 1; nc <= 40; nc++) {
        ncp_problem p;
        CHECK_OK(tutil_sparse_bodies_problem(&p, 77, 12, nc, &err), &err);
        int want = sparse_route_expected(&p);
        double *Ad = calloc((size_t)p.nv * p.nv, sizeof(double));
        double *x = malloc((size_t)p.m * sizeof(double)), *y = malloc((size_t)p.m * sizeof(double));
        CHECK(Ad && x && y);
        if (Ad && x && y) {
            ncp_csr_to_dense(&p.A_sparse, Ad);
            ncp_problem q = p;
            q.A = Ad;
            q.has_primal = 1;
            q.has_sparse_primal = 0;
            q.has_dual = 0;
            q.D = NULL;
            q.dop_route = 0;
            CHECK_OK(ncp_dop_check_problem(&q, &err), &err);
            CHECK(q.dop_route == (want ? 2 : -1));
            if (q.dop_route == 2) {
                ncp_dop op;
                CHECK_OK(ncp_dop_init(&op, &q, NCP_DOP_AUTO, &err), &err);
                CHECK(op.chol != NULL && op.rank == 0 && !op.D);
                for (int i = 0; i < p.m; i++) x[i] = sin(1.0 + i);
                ncp_dop_apply(&op, 1.0, x, 0.0, y);
                CHECK(rel_err(&p, x, y) < 1e-13);
                ncp_dop_free(&op);
            }
            if ((q.dop_route == 2) != prev) flips++;
            prev = q.dop_route == 2;
        }
        free(Ad);
        free(x);
        free(y);
        ncp_problem_free(&p);
    }
    CHECK(flips == 1 && prev == 1);
    flips = prev = 0;
    for (int nc = 1; nc <= 30; nc++) { /* 10 dofs, m = 3 nc: low rank from m >= 40 on */
        ncp_problem p;
        CHECK_OK(tutil_random_problem(&p, 78, 10, nc, 0, 0, 0, &err), &err);
        ncp_dop op;
        CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_AUTO, &err), &err);
        int got = op.rank > 0;
        CHECK(got == (2.0 * 4.0 * p.m * p.nv <= 2.0 * (double)p.m * p.m));
        if (got != prev) flips++;
        prev = got;
        ncp_dop_free(&op);
        ncp_problem_free(&p);
    }
    CHECK(flips == 1 && prev == 1);
}

int main(void)
{
    check_problem(1, 6, 40);   /* m = 120, nv = 6: low rank */
    check_problem(2, 12, 16);  /* m = 48, nv = 12: low rank (4 nv = m) */
    check_problem(3, 30, 8);   /* m = 24 < 4 nv: dense */
    check_sparse(4, 20, 100);  /* m = 300, nv = 120, 20 bodies: sparse */
    check_route_costs();
    return tcheck_exit("dop");
}
