/* The sparse route of the semismooth Newton driver (nsn_common.h): the Newton and
 * Levenberg–Marquardt systems of J = P + Q D, D = H A^-1 H^T (H the problem's constraint
 * Jacobian, m x nv, sparse; A the mass matrix, block-sparse), solved without forming D or any
 * m x m matrix, as sparse saddle-point systems factorised by a sparse LU (core/sparse_lu.h).
 *
 * Newton, J d = b. With y = A^-1 H^T d (nv),
 *
 *     [ A     -H^T ] [y]   [0]
 *     [ Q H    P   ] [d] = [b],                                                       (N)
 *
 * whose second block row is P d + Q H A^-1 H^T d = J d = b. Block elimination of y (A is SPD)
 * leaves exactly J, so det(N) = det(A) det(J): (N) is singular exactly when J is, and its d is
 * the dense LU's d. J = P + Q W is the generalised Jacobian of the semismooth Newton methods on
 * the local (dual) formulation (Acary, Brémond, Huber 2018, INRIA RR-9118, NSN-NM and NSN-FB,
 * W = D); writing W = H A^-1 H^T and keeping y as an unknown is the elimination of Tasora et al.
 * 2021 (Theorem 1, eq. 32: (N + rho I) gamma = r replaced by the saddle-point system in
 * (v, gamma)) applied to J instead of N + rho I. The reduction to nv unknowns,
 * A + H^T P^-1 Q H, is not used: P is singular on sticking contacts (natural map: P = I - G = 0
 * there), and unsymmetric for both equations.
 *
 * Levenberg–Marquardt, (J^T J + delta I) d = J^T b. With r = b - J d the system reads
 * J d + r = b, J^T r - delta d = 0 (eliminating r gives it back), and J^T r = P^T r + H z with
 * z = A^-1 H^T Q^T r (D is symmetric). In the unknowns (y, z, d, r),
 *
 *     [ A     0      -H^T    0        ] [y]   [0]
 *     [ 0     A       0     -(Q H)^T  ] [z]   [0]
 *     [ Q H   0       P      I        ] [d] = [b]
 *     [ 0     H    -delta I  P^T      ] [r]   [0],                                    (L)
 *
 * nonsingular for every delta > 0 (eliminating y, z and r leaves J^T J + delta I).
 *
 * Both patterns are fixed through a solve (P and Q keep their blocks' full n x n pattern), so
 * each is analysed once (fill-reducing ordering, symbolic factor) and refactorised numerically
 * per Newton step: O(the LU's flops), about linear in nnz for chains and trees of bodies and
 * O(n^1.5) for a planar coupling graph (the nested-dissection bound), instead of the dense
 * route's (2/3) m^3.
 *
 * The order. P's blocks are zero or small wherever the equation sticks or the row is bilateral
 * (the natural map's P = I - G = 0 on sticking contacts), so a fill-reducing order of the
 * pattern alone, which puts the contact rows first (they have the fewest entries), meets zero
 * pivots, and partial pivoting then leaves the diagonal and the order (nsn-fb's factorisations
 * on the 10^3-contact wall: 2.4e7-6.7e7 flops, against 7.8e6-8.3e6 in the order below, with no
 * pivot off the diagonal). The order used instead keeps
 * every pivot on the diagonal: the bodies (A's connected components) are ordered by a
 * fill-reducing ordering of the body graph (two bodies adjacent when a constraint block touches
 * both; ncp_sym_order: AMD), and each constraint block is eliminated right after the first of
 * its bodies in that order (its owner). By then the body's DOFs y_B are eliminated, and the
 * block's diagonal is P_b + Q_b H_bB A_B^-1 H_bB^T (a Schur complement): rho D-like where P = 0,
 * nonsingular when H_bB has full row rank, as a contact's rows on a rigid body have. For (L) the
 * body's y and z, then the owned blocks' d and r rows, by the same argument for r (P^T + H_bB
 * A_B^-1 H_bB^T Q_b^T). UMFPACK's symmetric strategy keeps that order (core/sparse_lu.h), with
 * a pivot off the diagonal only where the diagonal is below 1e-3 of its column. */
#ifndef NCP_SOLVERS_NSN_SPARSE_H
#define NCP_SOLVERS_NSN_SPARSE_H

#include "core/dop.h"
#include "core/sparse_lu.h"

typedef struct ncp_nsn_sparse {
    const ncp_problem *p;
    ncp_dop *op;            /* D x for J x (borrowed) */
    int m, nv;
    const ncp_csr *A, *H;   /* A as CSR (the problem's A_sparse or Aown), H = p->J */
    ncp_csr Aown;
    size_t nqh;             /* entries of Q H (with duplicates), in the order of `set` */
    double *qh;             /* their values */
    /* Newton (N): order nv + m; positions, values, the fixed entries first */
    size_t nzn, fixn;
    int *ni, *nj;
    double *nx;
    ncp_splu *N;
    /* Levenberg–Marquardt (L): order 2 nv + 2 m, analysed by ncp_nsn_sparse_init_lm */
    size_t nzl, fixl;
    int *li, *lj;
    double *lx;
    ncp_splu *L;
    /* the elimination order of both systems (ncp_nsn_sparse_init): the bodies (A's connected
     * components, DOFs by component at cdof[cptr[k] .. cptr[k + 1])) in a fill-reducing order,
     * each followed by the constraint blocks it owns; seq lists them, k >= 0 a body, -1 - b a
     * constraint block */
    int *cptr, *cdof, *seq;
    int nseq;
    const double *P, *Q;    /* block storage, borrowed from ncp_nsn_sparse_set on */
    double *rhs, *sol;      /* 2 (nv + m) */
    double *t;              /* m */
} ncp_nsn_sparse;

/* NCP_ERR_INPUT, saying what is missing, unless p has J (m x nv) and ncpbench has UMFPACK: what
 * both sparse forms (this one and nsn_dsparse.h) need besides A. */
int ncp_nsn_sparse_check(const ncp_problem *p, ncp_error *err);
/* Builds and analyses (N) for p (primal data: A dense or A_sparse, J) with op the problem's
 * Delassus operator (J A^-1 J^T, any route). NCP_ERR_INPUT without primal data or UMFPACK,
 * NCP_ERR_NOMEM. */
int ncp_nsn_sparse_init(ncp_nsn_sparse *w, const ncp_problem *p, ncp_dop *op, ncp_error *err);
/* Builds and analyses (L) (after init). */
int ncp_nsn_sparse_init_lm(ncp_nsn_sparse *w, ncp_error *err);
void ncp_nsn_sparse_free(ncp_nsn_sparse *w);
/* Estimated flops of one Newton step on this route: (N)'s numeric factorisation and a solve
 * with two steps of refinement. */
double ncp_nsn_sparse_flops(const ncp_nsn_sparse *w);
/* A lower bound on ncp_nsn_sparse_flops for p from counts alone (J's entries per block, m,
 * nv; no pattern built, no analysis): O(nnz J). NCP_ERR_INPUT as ncp_nsn_sparse_check,
 * NCP_ERR_NOMEM; *bound = INFINITY on error. */
int ncp_nsn_sparse_flops_bound(const ncp_problem *p, double *bound, ncp_error *err);
/* Sets J's blocks P, Q (block storage, borrowed; Q with rho applied) and computes Q H. */
void ncp_nsn_sparse_set(ncp_nsn_sparse *w, const double *P, const double *Q);
/* y = J x = P x + Q (D x) (x, y: m, not overlapping). */
void ncp_nsn_sparse_apply(ncp_nsn_sparse *w, const double *x, double *y);
/* J d = b by (N). Returns 1 with d, 0 when J is singular (or the LU fails). */
int ncp_nsn_sparse_newton(ncp_nsn_sparse *w, const double *b, double *d);
/* (J^T J + delta I) d = J^T b by (L), delta > 0. Returns 1, or 0 when the LU fails. */
int ncp_nsn_sparse_lm(ncp_nsn_sparse *w, double delta, const double *b, double *d);

#endif
