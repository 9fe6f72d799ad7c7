/* The Delassus operator: dense, as F F^T, or as J A^{-1} J^T with a sparse A (core/dop.h). */
#include "core/dop.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ncp_dop_free(ncp_dop *op)
{
    if (!op) return;
    free(op->F);
    free(op->Fr);
    free(op->t);
    free(op->w);
    if (op->chol) ncp_sparse_chol_free(op->chol);
    memset(op, 0, sizeof *op);
}

/* Whether p carries primal data the sparse route can use: J with A_sparse, or with the dense A
 * (factorised over its block pattern: a dense A of several bodies or trees is block diagonal). */
static int has_sparse_data(const ncp_problem *p)
{
    if (!(p->nv > 0 && p->J.rowptr && p->J.m == p->m && p->J.n == p->nv)) return 0;
    if (p->has_sparse_primal && p->A_sparse.rowptr)
        return p->A_sparse.m == p->nv && p->A_sparse.n == p->nv;
    return p->has_primal && p->A;
}

/* The routes' costs per product, in flops of the dense product (2 m^2), with the times per flop
 * measured on the development machine (benchmarks/bench_dop.c, results/REPORT.md "Route costs";
 * reference BLAS, thread CPU clock): dense 0.27-0.45 ns/flop while D fits the caches (m <= 1200),
 * 0.49-0.56 at m = 3000 (D streamed from memory); low rank (4 m r) 0.10-0.25; sparse (4 nnz(J) +
 * 2 entries of A's block factors) 0.49-0.72. A route is taken when its product is estimated
 * cheaper than the dense one by these constants (continuous in the sizes, no row threshold):
 *   sparse    NCP_DOP_SPARSE_FLOP x (4 nnz(J) + 2 factor entries) < 2 m^2, with the measured
 *             ratio 2.5 of its time per flop to the dense product's in cache (from m = 3000 on
 *             the dense product is slower still: a margin, not a cliff);
 *   low rank  NCP_DOP_LOWRANK_FLOP x 4 m r <= 2 m^2, i.e. r <= m/4: the product alone would pay
 *             up to r ~ 0.6 m (its flops are no slower than the dense ones), but the same route
 *             serves the solvers' systems (nsn's Newton/LM systems of up to 2r x 2r against the
 *             dense m x m, Woodbury's r x r capacitance) and builds F = J L^-T (r^3/3 + m r^2) once
 *             per operator: 2 keeps the 2r x 2r LU within m^3/3 x (1/8) of the dense one.
 * ncp_dop_describe states the route and both estimates for the results' notes. */
#define NCP_DOP_SPARSE_FLOP 2.5
#define NCP_DOP_LOWRANK_FLOP 2.0

/* Estimated flops of one product on op's route (sparse: in sparse-kernel flops). */
static double route_flops(const ncp_dop *op)
{
    if (op->chol)
        return 4.0 * (double)op->J.nnz + 2.0 * (double)ncp_sparse_chol_dense_entries(op->chol);
    if (op->rank) return 4.0 * (double)op->m * op->rank;
    return 2.0 * (double)op->m * op->m;
}

void ncp_dop_describe(const ncp_dop *op, char *buf, size_t size)
{
    double dense = 2.0 * (double)op->m * op->m;
    if (op->chol)
        snprintf(buf, size, "D sparse J A^-1 J^T: est. %.2g flops/product x %.2g (dense %.2g)",
                 route_flops(op), NCP_DOP_SPARSE_FLOP, dense);
    else if (op->rank)
        snprintf(buf, size, "D low rank F F^T (r = %d): est. %.2g flops/product (dense %.2g)",
                 op->rank, route_flops(op), dense);
    else
        snprintf(buf, size, "D dense: %.2g flops/product", dense);
}

/* The sparse route: A (A_sparse, or the dense A's block pattern) factorised block by block
 * (core/sparse_chol.h), never by CHOLMOD (its solves allocate). With `auto_route` a factor that
 * would not pay (above) is not kept: NCP_OK with op->chol NULL, the dense route serves. */
static int build_sparse(ncp_dop *op, const ncp_problem *p, int auto_route, ncp_error *err)
{
    const double m2 = 2.0 * (double)p->m * (double)p->m;
    /* J^T x and J w: 4 nnz(J) flops, before anything is factorised */
    if (auto_route && NCP_DOP_SPARSE_FLOP * 4.0 * (double)p->J.nnz >= m2) return NCP_OK;
    ncp_sparse_chol_opts opts = {.no_cholmod = 1};
    ncp_csr own;
    const ncp_csr *A;
    int rc = ncp_problem_mass_csr(p, &own, &A, err);
    if (!rc) rc = ncp_sparse_chol_factor(A, &opts, &op->chol, err); /* copies A's blocks */
    ncp_csr_free(&own);
    if (rc) {
        ncp_error_prefix(err, "Delassus operator: mass matrix A: ");
        return rc;
    }
    int max_block = 0;
    ncp_sparse_chol_stats(op->chol, NULL, &max_block, NULL);
    double cost = 4.0 * (double)p->J.nnz + 2.0 * (double)ncp_sparse_chol_dense_entries(op->chol);
    if (auto_route && NCP_DOP_SPARSE_FLOP * cost >= m2) {
        ncp_sparse_chol_free(op->chol);
        op->chol = NULL;
        return NCP_OK;
    }
    /* solves (nv + a block) and diagonal blocks of up to 3 rows (3 blocks' worth) */
    if (!(op->w = ncp_malloc(err, (size_t)p->nv + 3 * (size_t)max_block, sizeof(double)))) {
        ncp_sparse_chol_free(op->chol);
        op->chol = NULL;
        return NCP_ERR_NOMEM;
    }
    op->J = p->J;
    op->nv = p->nv;
    return NCP_OK;
}

/* y = alpha J A^{-1} J^T x + beta y on the sparse route. */
static void sparse_apply(ncp_dop *op, double alpha, const double *x, double beta, double *y)
{
    const ncp_csr *J = &op->J;
    double *w = op->w;
    for (int k = 0; k < op->nv; k++) w[k] = 0.0;
    for (int i = 0; i < op->m; i++) { /* w = J^T x */
        const double xi = x[i];
        if (xi == 0.0) continue;
        for (int q = J->rowptr[i]; q < J->rowptr[i + 1]; q++) w[J->col[q]] += J->val[q] * xi;
    }
    ncp_sparse_chol_solve1(op->chol, w, op->w + op->nv);
    for (int i = 0; i < op->m; i++) {
        const double s = ncp_csr_row_dot(J, i, w);
        y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
    }
}

/* F = J L^{-T} (m x nv): F^T = L^{-1} J^T, built column by column of J^T (rows of J). */
static int build_factor(ncp_dop *op, const ncp_problem *p, ncp_error *err)
{
    const int m = p->m, n = p->nv;
    double *L = ncp_malloc(err, (size_t)n * n, sizeof(double));
    double *Ft = ncp_calloc(err, (size_t)n * m, sizeof(double));
    int rc = NCP_OK;
    if (!L || !Ft) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    memcpy(L, p->A, (size_t)n * n * sizeof(double));
    if ((rc = ncp_chol_factor(n, L, err))) {
        ncp_error_prefix(err, "Delassus operator: mass matrix A: ");
        goto done;
    }
    for (int i = 0; i < m; i++)
        for (int k = p->J.rowptr[i]; k < p->J.rowptr[i + 1]; k++)
            Ft[p->J.col[k] + (size_t)i * n] += p->J.val[k];
    ncp_trsm_lower(0, n, L, m, Ft);
    if (!(op->F = ncp_malloc(err, (size_t)m * n, sizeof(double))) ||
        !(op->t = ncp_malloc(err, (size_t)n, sizeof(double)))) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    for (int i = 0; i < m; i++)
        for (int k = 0; k < n; k++) op->F[i + (size_t)k * m] = Ft[k + (size_t)i * n];
    op->rank = n;
done:
    free(L);
    free(Ft);
    return rc;
}

/* Whether D x = F (F^T x) (J A^{-1} J^T x on the sparse route) for a fixed pseudo-random x in
 * [-1, 1]^m, to 1e-10 of the scale sum_j |D_ij| |x_j| of each row (rounding of either route
 * stays far below). */
static int factor_matches(ncp_dop *op, ncp_error *err)
{
    const int m = op->m;
    double *x = ncp_malloc(err, (size_t)m, sizeof(double));
    double *y = ncp_malloc(err, (size_t)m, sizeof(double));
    double *z = ncp_malloc(err, (size_t)m, sizeof(double));
    int ok = x && y && z;
    uint64_t s = 0x9E3779B97F4A7C15ull; /* splitmix64: deterministic, no global state */
    for (int i = 0; ok && i < m; i++) {
        uint64_t v = (s += 0x9E3779B97F4A7C15ull);
        v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9ull;
        v = (v ^ (v >> 27)) * 0x94D049BB133111EBull;
        v ^= v >> 31;
        x[i] = 2.0 * ((double)(v >> 11) / 9007199254740992.0) - 1.0;
    }
    double *sc = ok ? ncp_calloc(err, (size_t)m, sizeof(double)) : NULL;
    ok = ok && sc;
    if (ok) {
        /* y = D x and the scales in one pass over D in column order (every metrics workspace
         * checks its problem, so this pass was a third of the harness's own time per solve):
         * y_i and sc_i each sum over j in ascending order, the order of the reference BLAS's
         * dgemv and of the row loop this replaces, so the decision is the same bit for bit */
        for (int i = 0; i < m; i++) y[i] = 0.0;
        int j = 0;
        for (; j + 4 <= m; j += 4) { /* four columns a pass, added one after another */
            const double x0 = x[j], x1 = x[j + 1], x2 = x[j + 2], x3 = x[j + 3];
            const double *d0 = op->D + (size_t)j * m, *d1 = d0 + m, *d2 = d1 + m, *d3 = d2 + m;
            for (int i = 0; i < m; i++) {
                const double p0 = d0[i] * x0, p1 = d1[i] * x1, p2 = d2[i] * x2, p3 = d3[i] * x3;
                y[i] = (((y[i] + p0) + p1) + p2) + p3;
                sc[i] = (((sc[i] + fabs(p0)) + fabs(p1)) + fabs(p2)) + fabs(p3);
            }
        }
        for (; j < m; j++) {
            const double xj = x[j], *Dj = op->D + (size_t)j * m;
            for (int i = 0; i < m; i++) {
                const double pij = Dj[i] * xj;
                y[i] += pij;
                sc[i] += fabs(pij);
            }
        }
        if (op->rank) {
            ncp_gemv(1, m, op->rank, 1.0, op->F, x, 0.0, op->t);
            ncp_gemv(0, m, op->rank, 1.0, op->F, op->t, 0.0, z);
        } else {
            sparse_apply(op, 1.0, x, 0.0, z);
        }
        for (int i = 0; ok && i < m; i++)
            ok = fabs(y[i] - z[i]) <= 1e-10 * sc[i] || (sc[i] == 0.0 && z[i] == 0.0);
    }
    free(x);
    free(y);
    free(z);
    free(sc);
    return ok;
}

/* The dense route: D alone (op->m and op->D set). */
static int dense_route(ncp_dop *op, const ncp_problem *p, ncp_error *err)
{
    if (!op->D && p->m > 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "problem %s has no dual data (D) for the "
                             "dense Delassus operator", p->name ? p->name : "?");
    return NCP_OK;
}

/* Back to the dense route after a failed or refused factor; NCP_ERR_NOMEM is kept. */
static int fall_back(ncp_dop *op, const ncp_problem *p, ncp_error *err)
{
    int oom = err && err->code == NCP_ERR_NOMEM;
    ncp_dop_free(op);
    op->m = p->m;
    op->D = p->D;
    return oom ? NCP_ERR_NOMEM : NCP_OK;
}

/* The low-rank route's rule (above): NCP_DOP_LOWRANK_FLOP x 4 m r <= 2 m^2 with r = nv. */
static int lowrank_pays(const ncp_problem *p)
{
    return NCP_DOP_LOWRANK_FLOP * 4.0 * (double)p->m * p->nv <= 2.0 * (double)p->m * p->m;
}

int ncp_dop_init(ncp_dop *op, const ncp_problem *p, int route, ncp_error *err)
{
    memset(op, 0, sizeof *op);
    op->m = p->m;
    op->D = p->has_dual ? p->D : NULL;
    int primal = p->has_primal && p->A && p->nv > 0 && p->J.rowptr && p->J.m == p->m &&
                 p->J.n == p->nv;
    int sparse = has_sparse_data(p);
    /* no D (built on demand only, core/problem.h): a route from the primal data, exact by
     * construction (nothing to check it against): the one ncp_dop_check_problem chose by cost
     * (sparse: 2), else whatever it costs against a D there is not */
    if (route == NCP_DOP_AUTO && !op->D && p->m > 0)
        route = (p->dop_route == 2 && sparse) || !primal ? (sparse ? NCP_DOP_SPARSE : NCP_DOP_DENSE)
                                                         : NCP_DOP_LOWRANK;
    /* the route decided for this problem already (ncp_dop_check_problem), when it has a D */
    int decided = route == NCP_DOP_AUTO && op->D ? p->dop_route : 0;
    if (route == NCP_DOP_DENSE || decided < 0) return dense_route(op, p, err);
    int rc;
    if (route == NCP_DOP_SPARSE || (route == NCP_DOP_AUTO && decided == 2) ||
        (route == NCP_DOP_AUTO && decided == 0 && !(primal && lowrank_pays(p)) && sparse &&
         op->D)) {
        if (!sparse)
            return ncp_error_set(err, NCP_ERR_INPUT, "problem %s has no sparse primal data "
                                 "(A_sparse, J) for the sparse Delassus operator",
                                 p->name ? p->name : "?");
        rc = build_sparse(op, p, route == NCP_DOP_AUTO && decided == 0, err);
        if (route == NCP_DOP_SPARSE) {
            if (rc) ncp_dop_free(op);
            return rc;
        }
        /* A not SPD to working precision (or a block too large for a dense factor), or a
         * factor that would not pay: the dense D still serves; out of memory is reported */
        if (rc && rc != NCP_ERR_NOMEM) ncp_error_clear(err);
        if (rc || !op->chol) return fall_back(op, p, err);
        if (decided == 0 && !factor_matches(op, err)) return fall_back(op, p, err);
        return NCP_OK;
    }
    if (route == NCP_DOP_AUTO && (!primal || !lowrank_pays(p))) return dense_route(op, p, err);
    if (!primal)
        return ncp_error_set(err, NCP_ERR_INPUT, "problem %s has no dense primal data (A, J) for "
                             "the low-rank Delassus operator", p->name ? p->name : "?");
    rc = build_factor(op, p, err);
    if (rc == NCP_ERR_NUMERIC && route == NCP_DOP_AUTO && op->D) {
        ncp_error_clear(err); /* A not SPD to working precision: the dense D still serves */
        return fall_back(op, p, err);
    }
    if (rc) {
        ncp_dop_free(op);
        return rc;
    }
    if (route == NCP_DOP_AUTO && op->D && decided == 0 && !factor_matches(op, err))
        return fall_back(op, p, err);
    return NCP_OK;
}

/* The route of a problem without D: the low-rank one when it is cheaper than the dense product,
 * the sparse one when it pays (build_sparse's test, on A_sparse or on the dense A's block
 * pattern: a dense A of many bodies is as block diagonal as a sparse one), else -1: the dense D
 * is the cheapest operator by the measured constants (a small or densely coupled problem), and a
 * solve that applies it builds it (solve/harness.c). */
static int route_without_d(ncp_problem *p, ncp_error *err)
{
    int primal = p->has_primal && p->A && p->nv > 0 && p->J.rowptr && p->J.m == p->m &&
                 p->J.n == p->nv;
    if (primal && lowrank_pays(p)) {
        p->dop_route = 1;
        return NCP_OK;
    }
    if (!has_sparse_data(p)) return NCP_OK;
    ncp_dop op;
    memset(&op, 0, sizeof op);
    op.m = p->m;
    ncp_error e = {0};
    int rc = build_sparse(&op, p, 1, &e);
    if (rc == NCP_OK) p->dop_route = op.chol ? 2 : -1;
    ncp_dop_free(&op);
    if (rc == NCP_ERR_NOMEM) return ncp_error_set(err, rc, "%s", e.msg);
    return NCP_OK; /* a factor that fails: left undecided, each operator meets it itself */
}

int ncp_dop_check_problem(ncp_problem *p, ncp_error *err)
{
    if (p->dop_route != 0) return NCP_OK;
    if (!p->has_dual || !p->D) return p->m > 0 ? route_without_d(p, err) : NCP_OK;
    ncp_dop op;
    ncp_error e = {0};
    int rc = ncp_dop_init(&op, p, NCP_DOP_AUTO, &e);
    if (rc == NCP_OK) p->dop_route = op.rank > 0 ? 1 : op.chol ? 2 : -1;
    ncp_dop_free(&op);
    if (rc == NCP_ERR_NOMEM) return ncp_error_set(err, rc, "%s", e.msg);
    return NCP_OK; /* any other failure: left undecided, each operator meets it itself */
}

/* t = F^T x and y = alpha F t + beta y for the thin F (m x r) of the low-rank route, in C
 * instead of two BLAS calls (t by BLAS when r > THIN_MAX): each product does the operations of the reference BLAS's
 * dgemv in its order (a dot product per column of F in row order; y scaled by beta, then the
 * columns of F added one after another), so its bits are those of the reference BLAS, while the
 * call overhead and the reference BLAS's unvectorised loops, which dominated on the m = 360,
 * r = 6 bolt-nut problems (the harness evaluates u after every iterate), are gone. The r dot
 * products are accumulated in one pass over the rows (each still in row order). */
enum { THIN_MAX = 8 };

/* r is a constant in each call below (the switch), so that the accumulators live in registers */
static inline __attribute__((always_inline)) void thin_t_fixed(int m, const int r, const double *F,
                                                              const double *x, double *t)
{
    double acc[THIN_MAX] = {0};
    for (int i = 0; i < m; i++) {
        const double xi = x[i];
        for (int j = 0; j < r; j++) acc[j] += F[i + (size_t)j * m] * xi;
    }
    for (int j = 0; j < r; j++) t[j] = acc[j];
}

static void thin_gemv_t(int m, int r, const double *F, const double *x, double *t)
{
    switch (r) {
    case 1: thin_t_fixed(m, 1, F, x, t); break;
    case 2: thin_t_fixed(m, 2, F, x, t); break;
    case 3: thin_t_fixed(m, 3, F, x, t); break;
    case 4: thin_t_fixed(m, 4, F, x, t); break;
    case 5: thin_t_fixed(m, 5, F, x, t); break;
    case 6: thin_t_fixed(m, 6, F, x, t); break;
    case 7: thin_t_fixed(m, 7, F, x, t); break;
    default: thin_t_fixed(m, 8, F, x, t); break;
    }
}

/* t = F^T x from the row-major copy Fr of F: for each row the r entries are adjacent, so the r
 * accumulators take one vector load per pair (the loop thin_t_fixed runs on the columns needs r
 * scattered loads per row); each t_j is the same sum in the same order, the same bits. */
static inline __attribute__((always_inline)) void thin_tr_fixed(int m, const int r,
                                                               const double *Fr,
                                                               const double *x, double *t)
{
    double acc[THIN_MAX] = {0};
    for (int i = 0; i < m; i++) {
        const double xi = x[i], *f = Fr + (size_t)i * r;
        for (int j = 0; j < r; j++) acc[j] += f[j] * xi;
    }
    for (int j = 0; j < r; j++) t[j] = acc[j];
}

static void thin_gemv_t_rows(int m, int r, const double *Fr, const double *x, double *t)
{
    switch (r) {
    case 1: thin_tr_fixed(m, 1, Fr, x, t); break;
    case 2: thin_tr_fixed(m, 2, Fr, x, t); break;
    case 3: thin_tr_fixed(m, 3, Fr, x, t); break;
    case 4: thin_tr_fixed(m, 4, Fr, x, t); break;
    case 5: thin_tr_fixed(m, 5, Fr, x, t); break;
    case 6: thin_tr_fixed(m, 6, Fr, x, t); break;
    case 7: thin_tr_fixed(m, 7, Fr, x, t); break;
    default: thin_tr_fixed(m, 8, Fr, x, t); break;
    }
}

static void thin_gemv_n(int m, int r, double alpha, const double *F, const double *t, double beta,
                        double *y)
{
    if (beta == 0.0) {
        for (int i = 0; i < m; i++) y[i] = 0.0;
    } else if (beta != 1.0) {
        for (int i = 0; i < m; i++) y[i] *= beta;
    }
    for (int j = 0; j < r; j++) {
        const double tj = alpha * t[j];
        const double *Fj = F + (size_t)j * m;
        for (int i = 0; i < m; i++) y[i] += tj * Fj[i];
    }
}

void ncp_dop_apply(ncp_dop *op, double alpha, const double *x, double beta, double *y)
{
    const int m = op->m;
    if (m <= 0) return;
    if (op->chol) {
        sparse_apply(op, alpha, x, beta, y);
        return;
    }
    if (!op->rank) {
        ncp_gemv(0, m, m, alpha, op->D, x, beta, y);
        return;
    }
    /* t as ncp_dop_begin_rows computes it (from its row-major copy when it made one: the
     * metrics' operator; the same bits), y by the loop ncp_dop_row repeats row by row */
    if (op->Fr) thin_gemv_t_rows(m, op->rank, op->Fr, x, op->t);
    else if (op->rank <= THIN_MAX) thin_gemv_t(m, op->rank, op->F, x, op->t);
    else ncp_gemv(1, m, op->rank, 1.0, op->F, x, 0.0, op->t);
    thin_gemv_n(m, op->rank, alpha, op->F, op->t, beta, y);
}

void ncp_dense_madd(int m, int n, const double *A, const double *x, double *y)
{
    int j = 0;
    /* four columns a pass: y_i still gets x_j A_ij added for one j after another, in order,
     * with a quarter of the loads and stores of y */
    for (; j + 4 <= n; j += 4) {
        const double x0 = x[j], x1 = x[j + 1], x2 = x[j + 2], x3 = x[j + 3];
        const double *a0 = A + (size_t)j * m, *a1 = a0 + m, *a2 = a1 + m, *a3 = a2 + m;
        for (int i = 0; i < m; i++)
            y[i] = (((y[i] + x0 * a0[i]) + x1 * a1[i]) + x2 * a2[i]) + x3 * a3[i];
    }
    for (; j < n; j++) {
        const double xj = x[j], *Aj = A + (size_t)j * m;
        for (int i = 0; i < m; i++) y[i] += xj * Aj[i];
    }
}

double ncp_dop_begin_rows(ncp_dop *op, const double *x)
{
    const int m = op->m, r = op->rank;
    /* the row-major copy, made on the first call (the stopping test's operator; solvers never
     * call this); without memory for it, the column loops below serve */
    if (!op->Fr && r <= THIN_MAX && (op->Fr = malloc((size_t)m * r * sizeof(double))))
        for (int i = 0; i < m; i++)
            for (int j = 0; j < r; j++) op->Fr[(size_t)i * r + j] = op->F[i + (size_t)j * m];
    if (op->Fr) thin_gemv_t_rows(m, r, op->Fr, x, op->t);
    else if (r <= THIN_MAX) thin_gemv_t(m, r, op->F, x, op->t);
    else ncp_gemv(1, m, r, 1.0, op->F, x, 0.0, op->t);
    double tmax = 0.0;
    for (int j = 0; j < op->rank; j++) tmax = fmax(tmax, fabs(op->t[j]));
    return tmax;
}

void ncp_dop_end_rows(const ncp_dop *op, double *y)
{
    thin_gemv_n(op->m, op->rank, 1.0, op->F, op->t, 1.0, y);
}

double ncp_dop_row_absmax(const ncp_dop *op)
{
    double best = 0.0;
    for (int i = 0; i < op->m; i++) {
        double s = 0.0;
        for (int j = 0; j < op->rank; j++) s += fabs(op->F[i + (size_t)j * op->m]);
        best = fmax(best, s);
    }
    return best;
}

/* Column b of the block on the sparse route: J_a A^{-1} J_b^T for rows a of the block, from
 * the blocks of A the rows touch (a contact's 3 rows: O(1), not O(nv)). */
static void sparse_diag_block(const ncp_dop *op, int r0, int k, double *B)
{
    const ncp_csr *J = &op->J;
    double *w = op->w; /* scratch of the operator: diag_block is not const in effect */
    if (k <= 3) {
        ncp_sparse_chol_delassus_block(op->chol, J, r0, k, B, w);
        return;
    }
    for (int b = 0; b < k; b++) {
        for (int c = 0; c < op->nv; c++) w[c] = 0.0;
        for (int q = J->rowptr[r0 + b]; q < J->rowptr[r0 + b + 1]; q++) w[J->col[q]] += J->val[q];
        ncp_sparse_chol_solve1(op->chol, w, op->w + op->nv);
        for (int a = 0; a < k; a++) B[a + (size_t)b * k] = ncp_csr_row_dot(J, r0 + a, w);
    }
}

void ncp_dop_diag_block(const ncp_dop *op, int r0, int k, double *B)
{
    const int m = op->m;
    if (op->chol && !op->D) {
        sparse_diag_block(op, r0, k, B);
        return;
    }
    for (int b = 0; b < k; b++)
        for (int a = 0; a < k; a++) {
            double s = 0.0;
            if (!op->rank) {
                s = op->D[(r0 + a) + (size_t)(r0 + b) * m];
            } else {
                for (int c = 0; c < op->rank; c++)
                    s += op->F[(r0 + a) + (size_t)c * m] * op->F[(r0 + b) + (size_t)c * m];
            }
            B[a + (size_t)b * k] = s;
        }
}

void ncp_dop_shift_free(ncp_dop_shift *f)
{
    if (!f) return;
    free(f->L);
    free(f->sinv);
    free(f->w);
    memset(f, 0, sizeof *f);
}

int ncp_dop_shift_factor(const ncp_dop *op, const double *s, ncp_dop_shift *f, ncp_error *err)
{
    memset(f, 0, sizeof *f);
    f->op = op;
    const int m = op->m, r = op->rank;
    int rc;
    if (!r) {
        if (!op->D && m > 0)
            return ncp_error_set(err, NCP_ERR_INPUT, "Delassus shift: the factorisation of "
                                 "D + diag(s) needs the problem's dense D");
        f->n = m;
        if (!(f->L = ncp_malloc(err, (size_t)m * m, sizeof(double)))) return NCP_ERR_NOMEM;
        memcpy(f->L, op->D, (size_t)m * m * sizeof(double));
        for (int i = 0; i < m; i++) f->L[i + (size_t)i * m] += s[i];
        if ((rc = ncp_chol_factor(m, f->L, err))) ncp_dop_shift_free(f);
        return rc;
    }
    f->n = r;
    f->L = ncp_calloc(err, (size_t)r * r, sizeof(double));
    f->sinv = ncp_malloc(err, (size_t)m, sizeof(double));
    f->w = ncp_malloc(err, (size_t)m + r, sizeof(double));
    if (!f->L || !f->sinv || !f->w) {
        ncp_dop_shift_free(f);
        return NCP_ERR_NOMEM;
    }
    for (int i = 0; i < m; i++) {
        if (!(s[i] > 0.0)) {
            ncp_dop_shift_free(f);
            return ncp_error_set(err, NCP_ERR_NUMERIC, "Delassus shift: diagonal entry %d is %g, "
                                 "must be > 0 on the low-rank route", i, s[i]);
        }
        f->sinv[i] = 1.0 / s[i];
    }
    /* C = I + F^T S^{-1} F: symmetric positive definite (rank x rank) */
    for (int b = 0; b < r; b++)
        for (int a = b; a < r; a++) {
            double c = a == b ? 1.0 : 0.0;
            const double *fa = op->F + (size_t)a * m, *fb = op->F + (size_t)b * m;
            for (int i = 0; i < m; i++) c += fa[i] * f->sinv[i] * fb[i];
            f->L[a + (size_t)b * r] = f->L[b + (size_t)a * r] = c;
        }
    if ((rc = ncp_chol_factor(r, f->L, err))) ncp_dop_shift_free(f);
    return rc;
}

void ncp_dop_shift_solve(ncp_dop_shift *f, const double *b, double *x)
{
    const ncp_dop *op = f->op;
    const int m = op->m, r = op->rank;
    if (m <= 0) return;
    if (!r) {
        if (x != b) ncp_copy(m, b, x);
        ncp_chol_solve(m, f->L, 1, x, NULL);
        return;
    }
    /* Woodbury: x = w - S^{-1} F C^{-1} F^T w, w = S^{-1} b */
    double *w = f->w, *t = f->w + m;
    for (int i = 0; i < m; i++) w[i] = f->sinv[i] * b[i];
    ncp_gemv(1, m, r, 1.0, op->F, w, 0.0, t);
    ncp_chol_solve(r, f->L, 1, t, NULL);
    ncp_gemv(0, m, r, 1.0, op->F, t, 0.0, x);
    for (int i = 0; i < m; i++) x[i] = w[i] - f->sinv[i] * x[i];
}
