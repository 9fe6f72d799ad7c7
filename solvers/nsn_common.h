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
 *   2. Otherwise Levenberg–Marquardt: (J^T J + delta I) d = -J^T F by Cholesky, delta = |F| (Fan &
 *      Yuan 2005: quadratic under a local error bound even when the solutions are not isolated,
 *      the usual case since D is often rank-deficient); delta x100, up to 4 times, when its line
 *      search (`lm_ls` halvings) fails.
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
 * Per-block rho: rho_b = rho_scale / lambda_max(D_kk) for contacts, rho_scale / D_rr for scalar rows
 * (a diagonal below 1e-14 of the largest uses the largest instead, see ncp_block_steps), so the
 * equation's rows are O(1) whatever the mass scale.
 * Cost: a dense m x m Jacobian and an LU (or J^T J and a Cholesky) per iteration, O(m^3).
 */
#ifndef NCP_SOLVERS_NSN_COMMON_H
#define NCP_SOLVERS_NSN_COMMON_H

#include "solve/solver.h"

/* The equation of one solver. Bilateral and soft rows are the same in both solvers and are
 * written by the driver: F_r = rho_r u_r (bilateral), F_r = lambda_r + k phi + c u_r (soft, the
 * row's own law). */
typedef struct ncp_nsn_eq {
    /* F on the rows of one UNILATERAL (1 row) or CONTACT (3 rows) block b with scaling rho; lam,
     * u (= D lambda + v_f) and F point at the block's first row. */
    void (*block_F)(const ncp_block *b, double rho, const double *lam, const double *u,
                    double *F);
    /* An element of the generalised Jacobian of F at (lambda, u) into Jm (m x m, column-major,
     * every entry written). */
    void (*jacobian)(const ncp_problem *p, const double *rho, const double *lambda,
                     const double *u, double *Jm);
    int strict_descent; /* 1: the De Luca–Facchinei–Kanzow descent test on the Newton step */
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
    {NULL, 0.0, NULL}

/* The row (h1, h2) = mu u_t^T / |u_t| of dGamma/du = [0, h; 0, 0], the derivative of the De
 * Saxcé term Gamma(u) = (mu |u_t|, 0, 0) of contact velocity u; at u_t = 0, where Gamma is not
 * differentiable, both solvers take the element h = 0. */
void ncp_nsn_dgamma(double mu, const double u[3], double h[2]);

/* Runs the driver for solver d (named in messages) with equation eq; protocol of solver.h. Reads
 * the parameters rho_scale, armijo, newton_ls, lm_ls, nonmonotone, window, pgs_burst and
 * rho_cycle, which d's parameter table must document (with d's own defaults), and checks their
 * ranges (NCP_ERR_INPUT naming the solver and parameter). Needs the dual data; refuses m > 46340
 * (m^2 must fit la.h's int lengths) with NCP_ERR_NOMEM. */
int ncp_nsn_solve(const ncp_solver_desc *d, const ncp_nsn_eq *eq, const ncp_solve_in *in,
                  ncp_solve_out *out, ncp_run *run, ncp_error *err);

#endif
