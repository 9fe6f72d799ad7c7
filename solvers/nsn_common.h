/* The semismooth Newton driver shared by nsn-nm (natural map) and nsn-fb (Fischer–Burmeister):
 * both solve an equation F(lambda) = 0 whose zeros are the NCP's solutions, per block with a
 * scaling rho_b, and differ only in F and its generalised Jacobian. The globalisation lives here,
 * once:
 *
 *   Merit theta = 1/2 |F|^2, Armijo backtracking (halving) with sufficient decrease `armijo`,
 *   nonmonotone (Grippo, Lampariello, Lucidi 1986): the reference is the largest theta of the last
 *   `nonmonotone` iterations, which lets full Newton steps cross the kinks of F.
 *   1. Newton: J d = -F by LU (ncp_lu_solve). Used if the LU succeeds, d is finite and a descent
 *      direction (F^T J d < 0; with `strict_descent`, F^T J d <= -1e-8 |d|^2.1, the test of De
 *      Luca, Facchinei, Kanzow 1996) and the line search succeeds within `newton_ls` halvings.
 *   2. Otherwise Levenberg–Marquardt: (J^T J + delta I) d = -J^T F by Cholesky, delta = |F| /
 *      max(1, |F_phase|), F_phase the residual at the start of the Newton phase (Fan & Yuan 2005
 *      take delta = |F|: quadratic under a local error bound even when the solutions are not
 *      isolated, the usual case since D is often rank-deficient; any constant factor keeps that
 *      rate); delta x100, up to 4 times, when its line search (`lm_ls` halvings) fails. Why the
 *      factor: J's rows are O(1) (the rho scaling), F's carry the impulses' unit. On the
 *      scaling walls (scenes/scaling/) the wrecking ball's pendulum joint carries 1.5e5-4.2e5,
 *      so delta = |F| ~ 5e5 against J^T J ~ 1 made each LM step a gradient step of length
 *      |J^T F| / delta = O(1): nsn-nm moved the joint's impulses by ~1 per iteration and
 *      converged on none of the 10^2 wall's 5 problems in 200 iterations (1 with the factor,
 *      whose iterates scale with the impulses once |F_phase| > 1: tests/test_nsn_scale.c).
 *      Where |F_phase| <= 1 the step is Fan and Yuan's as before.
 *   3. Stagnation (both fail, or theta has not dropped below 0.1x its value `window` Newton/LM
 *      iterations ago): a burst of projected Gauss–Seidel sweeps (ncp_pgs_sweep, the pgs update:
 *      omega 1, one step 1/lambda_max(D_kk) per contact), `pgs_burst` of them the first time and
 *      twice as many each later time; then Newton resumes with a fresh nonmonotone history and,
 *      when `rho_cycle` = 1, the next scaling of the cycle rho_scale x 10^c, c = 0, 1, -1, 2, -2,
 *      0, ...; if the Newton phase that just ended did not even halve theta, it resumes from the
 *      initial iterate (lambda0 or 0) rather than from the burst's end.
 *      Why: theta is not a merit function of the non-monotone Coulomb NCP; Newton and LM can
 *      settle in a local minimum of theta that is not a zero. On box-on-plane (NCP report 2025's
 *      hyperstatic primitive) step 17 (problem 000007) has four nearly coplanar corner contacts
 *      sliding: nsn-nm from 0 with rho_scale 1 reaches in 5 iterations a point where all four
 *      carry load and slide, u_n = (-8.5, 8.5, 8.5, -8.5) 1e-5 (the twist that four non-coplanar
 *      points of a rigid body cannot all cancel), natural map 9.8e-5 relative; the solution
 *      (checked with Siconos 4.4 NSN-NM/NSN-FB/NSGS/PROX and a convex fixed point, to 1e-15) lifts
 *      the second corner (lambda = 0, u_n = 3.4e-4). Gauss–Seidel leaves that plateau only after
 *      ~3500 sweeps; Newton from the burst's end returns to it for rho_scale x 10 and x 0.1; from
 *      0, rho_scale 0.1, 0.3, 3 or 10 all converge. With the cycle and the restart nsn-nm solves it
 *      in 70 iterations (nsn-fb in 10), and all 240 box-on-plane problems (239 before). Each sweep
 *      is one reported iteration; a Newton/LM step is one iteration.
 *   If neither a Newton/LM step nor a sweep changes lambda (sweep change <= 1e-15 max(1,
 *   ||lambda||_inf)), the solver stops with STALLED.
 * Singular by count. Rows whose P block is 0 are rows of Q D, which lie in D's row space, of
 * dimension rank D <= nv (D = J A^-1 J^T; rank F on the low-rank route): bilateral rows always,
 * and for the natural map the sticking contacts (P = I - G = 0; also the cone's apex, where the
 * element G = I is taken) and the active unilateral rows. More such rows than that bound make J
 * singular exactly, on every route, and the Newton step is skipped for LM without a
 * factorisation (the low-rank route's k > r test, in counts; not applied to a D read from a
 * file, which may be regularised). The iterations are the same as when the factorisation was
 * tried (its step was then never accepted: on full captures of the 10^2 wall, box-on-plane,
 * bolt-nut, laikago8 and sphere-stack, the same iterations and natural maps to all digits);
 * the note counts the iterations where it held. On a hyperstatic stack at rest most contacts
 * stick, so the natural map's J is singular by construction: on the 10^2 wall (nv 102, m
 * 267-312) 18 to 204 of J's singular values are 0 at nsn-nm's iterates (from a finite-difference
 * Jacobian, numpy), the count catches the iterations of two of its five problems, and on the
 * others a body's stuck contacts over-determine that body (rows of Q D touching one body lie in
 * its 6-dimensional span) while the global count stays below nv: there the dense and sparse
 * LUs meet the singularity (a zero or rounding-sized pivot) and the step goes to LM as before.
 * nsn-fb's J has no zero P block on contacts away from the apex, and takes Newton steps there.
 * Per-block rho: rho_b = rho_scale / lambda_max(D_kk) for contacts, rho_scale / D_rr for scalar rows
 * (a diagonal below 1e-14 of the largest uses the largest instead, see ncp_block_steps), so the
 * equation's rows are O(1) whatever the mass scale.
 *
 * The Newton matrix. Both equations depend on lambda and on u = D lambda + v_f block by block, so
 * the generalised Jacobian is J = P + Q D with P = dF/dlambda and Q = dF/du block-diagonal
 * (blocks of 1 or 3 rows). The equation writes P_b and Q_b (block_jac); the driver holds them in
 * "block storage" (m x 3: block b's n x n matrix, column-major, at offset 3 b->row) and uses the
 * one Delassus operator (core/dop.h) for u and for J d. Two routes, chosen by ncp_dop_init
 * (NCP_DOP_AUTO):
 *   dense (D given as a matrix): J = P + Q D formed (m x m), Newton by LU, LM by J^T J + delta I
 *     and Cholesky, O(m^3) per iteration;
 *   low rank (D = F F^T, F m x r, r = nv <= m/4, verified by ncp_dop_init): no m x m matrix,
 *     O(m r^2) per iteration, solving the SAME linear systems exactly (ncp_nsn_lowrank_*):
 *   Newton, J d = b with U = Q F (m x r), y = F^T d: P d + U y = b. Per block, the SVD
 *     P_b = W S V^T (one-sided Jacobi, exact to rounding for 3x3; singular values <= 1e-12 x
 *     max(|P_b|, |U_b F^T|_F) count as 0, a rounding-level change of J) splits d_b = V_+ S_+^-1
 *     W_+^T (b_b - U_b y) + V_0 z_b: the nonzero singular values fix d_b's range part given y, z_b
 *     is free, and the null rows W_0^T give constraints W_0^T U_b y = W_0^T b_b. With d = d0 - E y
 *     + N z (d0_b = V_+ S_+^-1 W_+^T b_b, E_b = V_+ S_+^-1 W_+^T U_b, N = the V_0 columns, k of
 *     them in all) and the closure y = F^T d, the (r + k) x (r + k) system
 *         [ I + F^T E   -F^T N ] [y]   [F^T d0 ]
 *         [ W_0^T U       0    ] [z] = [W_0^T b],
 *     solved by LU, has exactly the solutions (y, z) = (F^T d, N^T d) of J d = b, and it is
 *     singular iff J is (d = d0 - E y + N z = 0 forces y = F^T d = 0, then z = 0). Its last k
 *     rows involve y only, so k > r makes it (and J) singular without any factorisation: then
 *     the step is LM, as when the dense LU fails (the dense LU of an exactly singular J may
 *     meet a rounding-sized pivot instead of 0 and return a huge step, which the descent test
 *     or the line search then rejects). k <= r keeps the system at most 2r x 2r. The
 *     elimination divides by the P blocks' singular values, which can be small (FB's smoothed
 *     elements): alone it left residuals |J d - b| up to 1e5 x the dense LU's on bolt-nut, so
 *     one step of iterative refinement follows, d += J^-1 (b - J d) with J applied exactly
 *     (after it, the residuals are at the dense LU's level).
 *   LM, (J^T J + delta I) d = J^T b: J^T J + delta I = B + Z C Z^T with the block-diagonal SPD
 *     B = P^T P + delta I, Z = [P^T U, F] (m x 2r), C = [[0, I], [I, U^T U]] (2r x 2r), and by
 *     the Sherman–Morrison–Woodbury identity (Golub & Van Loan, Matrix Computations, 4th ed.,
 *     §2.1.4), C^{-1} = [[-U^T U, I], [I, 0]],
 *         d = B^-1 g - B^-1 Z (C^-1 + Z^T B^-1 Z)^-1 Z^T B^-1 g,   g = J^T b = P^T b + F U^T b,
 *     with 3x3 Cholesky factors of B's blocks and an LU of the 2r x 2r capacitance matrix (which
 *     is nonsingular exactly when J^T J + delta I is: det(B + Z C Z^T) = det(B) det(C)
 *     det(C^-1 + Z^T B^-1 Z)). Woodbury loses digits to cancellation when B^-1 is large (small
 *     delta on singular P blocks: residuals up to 1e5 x the dense Cholesky's), so one step of
 *     iterative refinement follows, d += (same solve)(g - J^T J d - delta d), J applied exactly.
 *   sparse (primal data A, J and UMFPACK): no dense D and no m x m matrix: u = D lambda + v_f
 *     through the operator's sparse route, rho and the Gauss–Seidel steps from the diagonal
 *     blocks J_k A^-1 J_k^T, the bursts in velocity form (ncp_gs_vel); the Newton and LM
 *     systems refactorised per step over a pattern analysed once, in one of two forms:
 *     saddle (solvers/nsn_sparse.h): [[A, -H^T], [Q H, P]] in A and J = H (the problem's
 *       Jacobian), of order nv + m, in an order that keeps the pivots on the diagonal where
 *       P's blocks vanish (each constraint block eliminated right after its first body);
 *     sparse D (solvers/nsn_dsparse.h): P + Q D itself on D's block-sparse pattern (blocks
 *       that share a body), of order m, LM as [[I, J], [J^T, -delta I]].
 * The route (parameter route): 0, the default, takes the cheapest by estimated time per Newton
 * step: D's route (the low-rank estimate 2 m r^2 + 30 m r + 70 m + 6 r^3 flops when the
 * operator will be low rank, else (2/3) m^3 + 6 m^2) against NSN_SPARSE_FLOP (4) x the saddle
 * form's and NSN_DSPARSE_FLOP (2) x the sparse D form's estimated flops (the factorisation plus
 * the solves and products; the saddle form's factorisation counted for diagonal pivots in its
 * order, core/sparse_lu.h, the sparse D form's by UMFPACK's symbolic estimate, an upper bound),
 * a comparison continuous in size, with no row threshold; a form is analysed for its estimate
 * only when a lower bound on it from counts can still win (ncp_nsn_route_auto below; on
 * bolt-nut, one body under 120 contacts, neither is: building both for their estimates took
 * 7 ms a problem there, 9x the rest of the setup; the sparse D form's bound counts its
 * factorisation as at least E + 2 E^2 / m flops over the E edges of D's scalar pattern, any
 * order, but not the fill: on the scaling walls and on laikago8 it stays 1.5-3.3x below the
 * saddle form's estimate, so the sparse D form is still analysed there, 80-160 ms of a wall-1e4
 * problem's setup, results/REPORT.md); a sparse form only where J A^-1 J^T
 * is the problem's D (a problem that keeps no D, or whose D the operator checked: a D read from
 * a file may be regularised). 1 forces D's routes (D built in the setup when the problem keeps
 * none), 2 the saddle form, 3 the sparse D form. The factors: a sparse form's time per
 * estimated flop over the dense LU's, measured with the forms forced (release build, reference
 * LAPACK, CPU clock, nsn-fb, 20 steps): on a quick laikago8 capture (m 284, nv 144) dense 3.9
 * ms per step for 1.5e7 flops, saddle 2.1 ms for 2.4e6, sparse D 2.2 ms for 4.6e6 (factors 3.3
 * and 1.8); on the 10^2-contact wall (m ~300, nv ~100) dense 3.3-6.1 ms for 1.1e7-2.1e7, saddle
 * 0.97-1.4 ms for 4.6e5-6.9e5 (about 6), sparse D 1.1-1.8 ms for 2.4e6-3.0e6 (about 1.8): the
 * sparse kernels' overhead per flop is larger on small factorisations.
 * Both routes make the same decisions up to rounding (tests/test_nsn_lowrank.c: identical
 * iterations on random problems). On bolt-nut (scenes/boltnut.json, 100 problems, m = 360,
 * r = 6) the iteration counts of nsn-fb differ on 28 problems, and so do they when the dense
 * route's Newton step alone is multiplied by 1 + 1e-15 noise: the globalised iteration there
 * amplifies rounding. Median time per iteration (same machine and session): nsn-nm 0.07 ms
 * instead of 56 ms, nsn-fb 0.11 ms instead of 7.6 ms.
 */
#ifndef NCP_SOLVERS_NSN_COMMON_H
#define NCP_SOLVERS_NSN_COMMON_H

#include "solve/solver.h"
#include "core/dop.h"

/* The equation of one solver. Bilateral and soft rows are the same in both solvers and are
 * written by the driver: F_r = rho_r u_r (bilateral), F_r = lambda_r + k phi + c u_r (soft, the
 * row's own law). */
typedef struct ncp_nsn_eq {
    /* F on the rows of one UNILATERAL (1 row) or CONTACT (3 rows) block b with scaling rho; lam,
     * u (= D lambda + v_f) and F point at the block's first row. */
    void (*block_F)(const ncp_block *b, double rho, const double *lam, const double *u,
                    double *F);
    /* An element of the generalised Jacobian of block_F at (lam, u): P = dF/dlambda_b and
     * Q = dF/du_b (n x n, column-major, n = 3 for a contact, 1 for a unilateral row; every entry
     * written), so that the block's rows of J are P E_b + Q D_b. */
    void (*block_jac)(const ncp_block *b, double rho, const double *lam, const double *u,
                      double *P, double *Q);
    int strict_descent; /* 1: the De Luca–Facchinei–Kanzow descent test on the Newton step */
    /* 1: block_jac's Q leaves out the block's rho, which the driver applies after the product
     * with D: rho (Q D) rather than (rho Q) D, so that the dense Jacobian has the bits of the
     * natural map's original assembly (its Newton matrix is singular to rounding on hyperstatic
     * contact sets, e.g. four coplanar corners, where last-bit differences change the step). */
    int q_without_rho;
} ncp_nsn_eq;

/* The parameter rows that nsn-nm and nsn-fb document alike, in the order of both tables (after
 * their own rho_scale, armijo, newton_ls, lm_ls and nonmonotone rows); ends the table. */
#define NCP_NSN_PARAM_DOCS_TAIL                                                                  \
    {"window", 10.0,                                                                             \
     "Newton/LM iterations within which theta must drop 10x, else a Gauss-Seidel burst"},        \
    {"pgs_burst", 10.0, "Gauss-Seidel sweeps in the first stagnation burst (doubled each time)"}, \
    {"rho_cycle", 1.0,                                                                           \
     "1: after each Gauss-Seidel burst use rho_scale x 10^c (c = 0, 1, -1, 2, -2, ...), and "     \
     "restart from lambda0 if the last Newton phase did not halve theta (nsn_common.h)"},        \
    {"route", 0.0,                                                                               \
     "Newton matrix: 0 the cheapest by estimated flops per step; 1 from D (dense LU, or F F^T "   \
     "when nv <= m/4; D built in the setup if the problem keeps none); 2 the sparse saddle-point " \
     "form [[A, -J^T], [Q J, P]] by UMFPACK, no D (needs A and J: nsn_sparse.h); 3 P + Q D on "   \
     "D's block-sparse pattern by UMFPACK (needs A and J: nsn_dsparse.h)"},                      \
    {NULL, 0.0, NULL}

/* The row (h1, h2) = mu u_t^T / |u_t| of dGamma/du = [0, h; 0, 0], the derivative of the De
 * Saxcé term Gamma(u) = (mu |u_t|, 0, 0) of contact velocity u; at u_t = 0, where Gamma is not
 * differentiable, both solvers take the element h = 0. */
void ncp_nsn_dgamma(double mu, const double u[3], double h[2]);

/* Runs the driver for solver d (named in messages) with equation eq; protocol of solver.h. Reads
 * the parameters rho_scale, armijo, newton_ls, lm_ls, nonmonotone, window, pgs_burst and
 * rho_cycle, which d's parameter table must document (with d's own defaults), and checks their
 * ranges (NCP_ERR_INPUT naming the solver and parameter), and route. Needs v_f and a Delassus
 * operator (D or the primal data); on the dense route declines m > NCP_DENSE_FACTOR_MAX_ROWS
 * (solvers/common.h): NCP_OK with out->status = NCP_STATUS_UNSUPPORTED and the reason in err. */
int ncp_nsn_solve(const ncp_solver_desc *d, const ncp_nsn_eq *eq, const ncp_solve_in *in,
                  ncp_solve_out *out, ncp_run *run, ncp_error *err);

/* The automatic choice of the Newton matrix's route (route = 0, above) for p with primal data,
 * op its Delassus operator (borrowed by the saddle form). Each sparse form has a lower bound
 * on its factor x estimated flops from counts alone (ncp_nsn_sparse_flops_bound,
 * ncp_nsn_dsparse_flops_bound: O(nnz J + nnz A) and D's blocks counted, no pattern stored,
 * no ordering); the forms are analysed
 * least bound first, and one whose bound cannot beat the estimates known by then is not
 * analysed (with full = 1 every buildable form is: the reference the cheap choice is tested
 * against). Since a bound never exceeds its estimate, the choice is the full one's. On return
 * the chosen sparse form (route 2: *sp, route 3: *dsp) is analysed; the other is empty.
 * NCP_ERR_NOMEM (a form that cannot be built is left out of the choice, its bound
 * INFINITY). */
typedef struct ncp_nsn_route_est {
    double d;           /* the D route's estimated flops per step */
    double bound[2];    /* the saddle form's [0] and the sparse D form's [1] lower bounds */
    double est[2];      /* their factor x estimated flops per step; INFINITY if not analysed */
    int analysed[2];    /* 1: the form was built and analysed for its estimate */
    int route;          /* the choice: 1 D, 2 the saddle form, 3 the sparse D form */
} ncp_nsn_route_est;

struct ncp_nsn_sparse;
struct ncp_nsn_dsparse;
int ncp_nsn_route_auto(const ncp_problem *p, ncp_dop *op, int full, ncp_nsn_route_est *r,
                       struct ncp_nsn_sparse *sp, struct ncp_nsn_dsparse *dsp, ncp_error *err);

/* ---- the linear algebra of the low-rank route (formulas above) ---- */

/* J = P + Q F F^T for the blocks of p and the low-rank operator op (op->rank = r > 0); P and Q in
 * block storage (3 m entries, see above), borrowed from ncp_nsn_lowrank_set on. */
typedef struct ncp_nsn_lowrank {
    const ncp_problem *p;
    const ncp_dop *op;
    int m, r;
    const double *P, *Q;
    double *U;      /* m x r: Q F */
    double *FtF;    /* r x r: F^T F (row scales of U F^T) */
    double *E;      /* m x r (Newton) */
    double *d0;     /* m (Newton) */
    double *Cr;     /* r x r: the constraint rows W_0^T U (Newton) */
    double *Cc;     /* r x r: the columns -F^T N (Newton) */
    double *Nv;     /* 3 r: the null vectors V_0, by block (Newton) */
    int *Nrow;      /* r: their blocks' first rows (Newton) */
    int k;          /* their number (Newton) */
    double *Wb, *Vb, *Sb; /* block storage (Sb: m): the SVDs of the P blocks (Newton) */
    double *Z, *Y;  /* m x 2r: [P^T U, F] and B^-1 Z (LM) */
    double *Bf;     /* block storage: Cholesky factors of B = P^T P + delta I (LM) */
    double *T;      /* (2r)^2: the reduced matrix (Newton) or the capacitance (LM) */
    double *M;      /* (2r)^2: work, LU of a copy of T */
    double *rhs;    /* 2r */
    double *t;      /* 6r scratch */
    double *v;      /* 2m scratch (LM) */
    int *ipiv;      /* 2r */
} ncp_nsn_lowrank;

/* Allocates for p and op (NCP_ERR_NOMEM; NCP_ERR_INPUT if op is not low rank). */
int ncp_nsn_lowrank_init(ncp_nsn_lowrank *w, const ncp_problem *p, const ncp_dop *op,
                         ncp_error *err);
void ncp_nsn_lowrank_free(ncp_nsn_lowrank *w);
/* Sets J's blocks P, Q (borrowed) and computes U = Q F. */
void ncp_nsn_lowrank_set(ncp_nsn_lowrank *w, const double *P, const double *Q);
/* y = J x (x, y: m, not overlapping). */
void ncp_nsn_lowrank_apply(ncp_nsn_lowrank *w, const double *x, double *y);
/* J d = b (d, b: m, not overlapping). Returns 1 with d, or 0 when J is singular (more than r null
 * directions in the P blocks, or a singular reduced system); d is then unspecified. */
int ncp_nsn_lowrank_newton(ncp_nsn_lowrank *w, const double *b, double *d);
/* (J^T J + delta I) d = J^T b, delta > 0 (d, b: m, not overlapping). Returns 1, or 0 when a
 * factorisation fails (only for non-finite input, or rounding with a delta far below |J|^2
 * eps). */
int ncp_nsn_lowrank_lm(ncp_nsn_lowrank *w, double delta, const double *b, double *d);

#endif
