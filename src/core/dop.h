/* The Delassus operator D of a problem, applied without forming products with the dense D when
 * the primal data make that cheaper.
 *
 * A contact problem of a few rigid bodies with many contacts has a D of low rank: D = J A^{-1} J^T
 * with J m x nv and nv << m (bolt-nut: m = 360, nv = 6). With A = L L^T (Cholesky),
 *
 *     D = F F^T,   F = J L^{-T}   (m x nv),
 *
 * so D x costs 4 m nv flops instead of 2 m^2, and (D + S)^{-1} for a diagonal S > 0 costs an
 * nv x nv Cholesky by the Sherman–Morrison–Woodbury identity (Golub & Van Loan, Matrix
 * Computations, 4th ed., §2.1.4):
 *
 *     (S + F F^T)^{-1} = S^{-1} - S^{-1} F (I + F^T S^{-1} F)^{-1} F^T S^{-1}.
 *
 * A problem of many bodies keeps its mass matrix sparse (A_sparse: block diagonal, one block per
 * body or kinematic tree) and J sparse (each contact row touches two bodies): there D is full rank
 * but D x = J (A^{-1} (J^T x)) costs O(nnz(J) + the blocks' factors) instead of 2 m^2 (the
 * wrecking ball: m = 13 251, nnz(J) = 77 333, 601 blocks of 6: about 1/500 of the dense product,
 * which streams a 1.4 GB D through memory). This is the sparse route; diagonal blocks come from
 * J and A's factor too (J_i A^{-1} J_i^T over the blocks of A row i touches); shifted
 * factorisations and Gauss–Seidel columns need the dense D.
 *
 * A problem with primal data keeps no D (core/problem.h: built on demand only): NCP_DOP_AUTO
 * then takes the low-rank route on dense primal data, or the sparse one (on A_sparse, or on a
 * dense A's block pattern: a capture of up to 600 dofs keeps A dense but block diagonal) when
 * its product is estimated cheaper (ncp_dop_check_problem, below), exact by construction
 * (nothing to check them against); otherwise the harness builds D for the solve.
 *
 * A route is taken when its product is estimated cheaper than the dense one, by flops weighted
 * with times per flop measured on this machine (dop.c: the low-rank route for nv <= m / 4, the
 * sparse route when 2.5 x its flops < 2 m^2: the indexed loops run slower per flop); with a D,
 * either only after checking that the problem's D is J A^{-1} J^T (a D given by a file,
 * regularised or symmetrised, need not be): one product with a fixed pseudo-random vector,
 * agreement to 1e-10 of sum_j |D_ij| |x_j|. Otherwise the dense D is used. All routes give the
 * same vectors up to rounding.
 *
 * The operator borrows the problem (its D, J); it owns F, the sparse factor and scratch vectors,
 * so one operator must not be used by two threads at once. Every solver, the metrics and the
 * harness use this one implementation. */
#ifndef NCP_DOP_H
#define NCP_DOP_H

#include "core/problem.h"

enum {
    NCP_DOP_AUTO = 0,    /* low rank when cheaper and verified, else dense */
    NCP_DOP_DENSE = 1,   /* always the dense D (needs the dual data) */
    NCP_DOP_LOWRANK = 2, /* F F^T from the primal data, unverified (needs dense primal data) */
    NCP_DOP_SPARSE = 3   /* J A^{-1} J^T over A's blocks (A_sparse, or the dense A's block
                          * pattern), unverified (needs J and A; blocks all factorised densely,
                          * i.e. none by CHOLMOD) */
};

typedef struct ncp_dop {
    int m;
    int rank;          /* columns of F on the low-rank route, 0 on the dense route */
    const double *D;   /* the problem's D (borrowed), NULL when it has none */
    double *F;         /* m x rank, column-major (low-rank route) */
    double *Fr;        /* F row-major, made by ncp_dop_begin_rows (NULL before, or without memory) */
    double *t;         /* rank scratch */
    /* sparse route (chol != NULL, rank = 0) */
    ncp_csr J;         /* the problem's J: a view of its arrays (borrowed, not freed), copied
                        * because callers pass views of problems that do not outlive init */
    ncp_sparse_chol *chol; /* A_sparse factorised block by block */
    double *w;         /* nv + largest block: scratch */
    int nv;
} ncp_dop;

/* Builds the operator of p by `route` (NCP_DOP_*). NCP_DOP_AUTO takes the low-rank route for
 * dense primal data with nv <= m / 4, the sparse route (A_sparse, or a dense A's blocks) where it is
 * estimated cheaper, and falls back to dense when neither applies or when the problem's D is not
 * J A^{-1} J^T. Errors: NCP_ERR_INPUT when the route needs data p lacks, NCP_ERR_NUMERIC when A
 * is not SPD (low-rank or sparse route requested), NCP_ERR_NOMEM. */
int ncp_dop_init(ncp_dop *op, const ncp_problem *p, int route, ncp_error *err);
/* Decides p->dop_route (core/problem.h) once: the route ncp_dop_init takes with NCP_DOP_AUTO
 * when p->dop_route is 0, so that later operators skip the check of F F^T against D (the same
 * decision, made once per problem instead of once per operator). For a problem without D: 1
 * when the low-rank product is cheaper than the dense one, 2 when the sparse one pays, -1 when
 * the dense D would be the cheapest operator (solve/harness.c then builds it for a solve).
 * Nothing when p->dop_route is already set. NCP_ERR_NOMEM only; a problem the operator cannot
 * serve is left at 0. */
int ncp_dop_check_problem(ncp_problem *p, ncp_error *err);
void ncp_dop_free(ncp_dop *op);
/* The route op took with its estimated flops per product and the dense route's, for the
 * results' notes (e.g. "D sparse J A^-1 J^T: est. 3.1e+05 flops/product x 2.5 (dense 3.5e+08)"). */
void ncp_dop_describe(const ncp_dop *op, char *buf, size_t size);

/* y = alpha D x + beta y (x and y must not overlap). */
void ncp_dop_apply(ncp_dop *op, double alpha, const double *x, double beta, double *y);

/* Row by row on the low-rank route (rank > 0 only), for a caller that may need only some rows
 * of y = D x + y0: ncp_dop_begin_rows keeps t = F^T x in op->t and returns max_j |t_j|;
 * ncp_dop_row(op, i, y0i) is then y0i + (F t)_i, the same bits as row i of
 * ncp_dop_apply(op, 1, x, 1, y) with y_i = y0i. ncp_dop_row_absmax: max_i sum_j |F_ij|, so that
 * |(F t)_i| <= row_absmax * max_j |t_j| (an overflow test without computing the rows). */
double ncp_dop_begin_rows(ncp_dop *op, const double *x);
static inline double ncp_dop_row(const ncp_dop *op, int i, double y0i)
{
    double y = y0i;
    if (op->Fr) {
        const double *f = op->Fr + (size_t)i * op->rank;
        for (int j = 0; j < op->rank; j++) y += op->t[j] * f[j];
    } else {
        for (int j = 0; j < op->rank; j++) y += op->t[j] * op->F[i + (size_t)j * op->m];
    }
    return y;
}
double ncp_dop_row_absmax(const ncp_dop *op);
/* y += F t for the t of ncp_dop_begin_rows, all rows at once: begin_rows then end_rows give the
 * bits of ncp_dop_apply(op, 1, x, 1, y) (rank > 0 only). */
void ncp_dop_end_rows(const ncp_dop *op, double *y);

/* y += A x for a dense column-major m x n A, in the reference BLAS's dgemv order (alpha = beta =
 * 1: y_i += x_j A_ij for j = 0, 1, ..., no column skipped for x_j = 0): the same bits as
 * ncp_gemv(0, m, n, 1, A, x, 1, y) with the reference BLAS, in a loop the compiler vectorises
 * across rows (the harness's u = D lambda + v_f of every answer: 3x fewer instructions). */
void ncp_dense_madd(int m, int n, const double *A, const double *x, double *y);

/* The k x k diagonal block of D at rows r0..r0+k-1 into B (k x k, column-major). */
void ncp_dop_diag_block(const ncp_dop *op, int r0, int k, double *B);

/* (D + diag(s)) with s > 0 elementwise, factorised for repeated solves: on the low-rank route the
 * Woodbury capacitance matrix I + F^T diag(s)^{-1} F (rank x rank), on the dense route the
 * Cholesky factor of D + diag(s) (m x m). */
typedef struct ncp_dop_shift {
    const ncp_dop *op;
    int n;             /* order of L: rank (low rank) or m (dense) */
    double *L;         /* n x n lower Cholesky factor */
    double *sinv;      /* m: 1 / s (low rank) */
    double *w;         /* m + rank scratch (low rank) */
} ncp_dop_shift;

/* Factorises D + diag(s) (s: m entries, each > 0; on the dense route s may also be 0 where D's
 * diagonal keeps the sum positive definite; the sparse route factorises the dense D + diag(s)
 * too and needs the problem's D). NCP_ERR_NUMERIC when it is not positive definite. */
int ncp_dop_shift_factor(const ncp_dop *op, const double *s, ncp_dop_shift *f, ncp_error *err);
/* x = (D + diag(s))^{-1} b (x may be b). */
void ncp_dop_shift_solve(ncp_dop_shift *f, const double *b, double *x);
void ncp_dop_shift_free(ncp_dop_shift *f);

#endif
