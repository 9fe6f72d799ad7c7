/* The sparse D route of the semismooth Newton driver (nsn_common.h): the Newton matrix
 * J = P + Q D itself, assembled on D's block-sparse pattern and factorised by a sparse LU
 * (core/sparse_lu.h) with a symmetric ordering, instead of the saddle form of nsn_sparse.h.
 *
 * D = H A^-1 H^T (H the problem's constraint Jacobian, A block diagonal: one block per body or
 * tree) couples two constraint blocks exactly when their rows touch a common block of A, so D
 * is block-sparse: for a pile or a wall, a contact meets the contacts of its two bodies only.
 * Its blocks D_bc = H_b Y_c come from Y = A^-1 H^T kept sparse (core/sparse_chol.h ncp_jmap,
 * which the Gauss–Seidel bursts of the sparse routes hold anyway), once per solve: O(sum over
 * the rows of the entries of Y times the rows of H per DOF), no m x m array. P and Q are
 * block-diagonal, so J has D's block pattern: block (b, c) is Q_b D_bc, plus P_b when b = c.
 *
 * J's diagonal blocks P_b + Q_b D_bb are the dense route's own LU pivots' blocks: the pattern is
 * structurally symmetric and UMFPACK's symmetric strategy (AMD on J + J^T, diagonal pivots
 * preferred) keeps its order. Both forms solve the same systems: for Newton J d = b, for
 * Levenberg–Marquardt (J^T J + delta I) d = J^T b, here in the augmented form
 *
 *     [ I     J       ] [r]   [b]
 *     [ J^T  -delta I ] [d] = [0],                                                      (L)
 *
 * (r = b - J d eliminated gives the normal equations), symmetric quasi-definite for delta > 0
 * (Vanderbei 1995, SIAM J. Optim. 5(1): such a matrix has an LDL^T factorisation in every
 * symmetric order), of order 2m and J's pattern twice: J^T J, whose pattern is D's squared,
 * is never formed.
 *
 * The route pays where D's blocks stay few: a body of many contacts makes a clique of them in
 * D (a floor body, the wrecking ball on its wall; a brick of a wall meets ~8 contacts, so each
 * contact meets ~24 blocks), where the saddle form keeps it a column of H. On the scaling walls
 * the saddle form in its diagonal-pivot order is the faster (results/REPORT.md, "nsn's Newton
 * step"); the driver chooses between them by UMFPACK's estimated flops per step. */
#ifndef NCP_SOLVERS_NSN_DSPARSE_H
#define NCP_SOLVERS_NSN_DSPARSE_H

#include "core/problem.h"
#include "core/sparse_chol.h"
#include "core/sparse_lu.h"

typedef struct ncp_nsn_dsparse {
    const ncp_problem *p;
    int m;
    /* D's (and J's) block pattern by block columns: block column c holds the block rows
     * idx[ptr[c] .. ptr[c + 1]) ascending (c itself always), block (b, c) stored column-major
     * (n_b x n_c) at offset off[q] of D and Jv */
    int *ptr, *idx;
    size_t *off;
    size_t nval;        /* scalar entries of the pattern */
    double *D;          /* nval: D's blocks (ncp_nsn_dsparse_set_d) */
    double *Jv;         /* nval: J's blocks (ncp_nsn_dsparse_set) */
    int *ti, *tj;       /* J's positions in Jv's order, then (L)'s: 2 nval + 2 m */
    ncp_splu *N;        /* J, order m */
    ncp_splu *L;        /* (L), order 2 m (ncp_nsn_dsparse_init_lm) */
    double *lx;         /* (L)'s values: J, J^T, I, -delta I */
    double *rhs, *sol;  /* 2 m */
    const double *P, *Q; /* block storage (nsn_common.h), borrowed from ncp_nsn_dsparse_set on */
} ncp_nsn_dsparse;

/* D's block pattern for p (primal data: A dense or A_sparse, J; from A's connected components
 * and the columns of J, no factorisation) and the symbolic analysis of J on it.
 * NCP_ERR_INPUT without primal data or UMFPACK, NCP_ERR_NOMEM. */
int ncp_nsn_dsparse_init(ncp_nsn_dsparse *w, const ncp_problem *p, ncp_error *err);
/* The symbolic analysis of (L) (after init). */
int ncp_nsn_dsparse_init_lm(ncp_nsn_dsparse *w, ncp_error *err);
void ncp_nsn_dsparse_free(ncp_nsn_dsparse *w);
/* Estimated flops of one Newton step on this route: J's assembly, its numeric factorisation
 * (UMFPACK's symbolic estimate) and a solve with two steps of refinement. */
double ncp_nsn_dsparse_flops(const ncp_nsn_dsparse *w);
/* A lower bound on ncp_nsn_dsparse_flops for p from counts alone (D's pattern counted, not
 * stored: the entries nval, and the factorisation's flops at least E + 2 E^2 / m over its E =
 * (nval - m) / 2 edges in any order; no analysis): O(nnz J + nnz A + D's blocks).
 * NCP_ERR_INPUT as ncp_nsn_dsparse_init, NCP_ERR_NOMEM; *bound = INFINITY on error. */
int ncp_nsn_dsparse_flops_bound(const ncp_problem *p, double *bound, ncp_error *err);
/* D's blocks from Y = A^-1 J^T (the problem's J; Y over the same A, e.g. ncp_gs_vel's).
 * NCP_ERR_NOMEM; NCP_ERR_INTERNAL if Y reaches a row outside the pattern. */
int ncp_nsn_dsparse_set_d(ncp_nsn_dsparse *w, const ncp_jmap *Y, ncp_error *err);
/* Sets J's blocks P, Q (block storage, borrowed; Q with rho applied) and assembles J. */
void ncp_nsn_dsparse_set(ncp_nsn_dsparse *w, const double *P, const double *Q);
/* y = J x (x, y: m, not overlapping). */
void ncp_nsn_dsparse_apply(const ncp_nsn_dsparse *w, const double *x, double *y);
/* J d = b. Returns 1 with d, 0 when J is singular (or the LU fails). */
int ncp_nsn_dsparse_newton(ncp_nsn_dsparse *w, const double *b, double *d);
/* (J^T J + delta I) d = J^T b by (L), delta > 0. Returns 1, or 0 when the LU fails. */
int ncp_nsn_dsparse_lm(ncp_nsn_dsparse *w, double delta, const double *b, double *d);

#endif
