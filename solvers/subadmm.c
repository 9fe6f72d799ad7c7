/* subadmm — Subsystem-based ADMM (Lee et al. 2025 §VI, Alg. 2).
 *
 * Source: Lee, Lee, Park, Yun, Lee, "Variations of Augmented Lagrangian for Robotic Multi-Contact
 * Simulation" (IEEE T-RO 2025, arXiv 2502.16898), §VI and Appendix A. Formulas are the paper's,
 * translated to normal-first frames (n, t1, t2): the contact frame R_i has rows n, t1, t2, which
 * changes nothing below (R_i^T R_i = I in eq. 41, and T works per block in our order).
 *
 * The system is split into subsystems j (trees rooted at the ground: a free body, a robot; the
 * structure of problem.h, A block diagonal over them) and every constraint i into one piece per
 * body it acts on (eq. 31: a contact between two links of one robot becomes two pieces of that
 * robot, stacked row-wise), with J_p = J_{i,b} J_{b,j} and a slack z_p each (eq. 32). One
 * iteration (what the harness and the paper's figures count):
 *   1. per subsystem, in parallel (eq. 34):
 *        K_j v_j = b_j + sum_{p in j} J_p^T (beta z_p + lambda_i(p)),    (u_p = -lambda_i, eq. 39)
 *        K_j = A_j + beta sum_p J_p^T J_p = J_{B,j}^T blkdiag(H_b) J_{B,j} + diag(dof_diag_j)
 *        (eq. 40), H_b = M_b + beta sum_{p on b} J_{i,b}^T J_{i,b} (eq. 41, a full symmetric 6x6:
 *        joint-limit and closure rows are body rows too and break Appendix A's 10-number form);
 *   2. per constraint, in parallel (eqs. 35-38): y_p = beta J_p v_j - lambda_i,
 *        lambda_i = T(-(sum_p y_p + beta e_i) / |Z_i|), z_p = (y_p + lambda_i) / beta,
 *        T the strict operator of the block type (eq. 14 unilateral, identity bilateral, eq. 15
 *        soft with beta / |Z_i|, eq. 17 contact; solvers/al_common.c), and u = -lambda (eq. 39);
 *   3. theta_p = max_p ||J_p v_j - z_p||, theta_d = max_j ||A_j v_j - b_j - sum J_p^T lambda||
 *      (eq. 42); if adaptive and theta_p > gamma theta_d or theta_d > gamma theta_p:
 *      beta <- beta sqrt(theta_p / theta_d) (eq. 43) and every K_j is refactorised in parallel.
 * Factorisation (§VI-C, Appendix A): K_j has the sparsity of the tree's joint-space inertia,
 * whatever the contacts; it is assembled body by body over each body's root path and factorised
 * by the branch-induced sparse Cholesky K = L^T L (Featherstone 2008, §6.5; no fill-in, cost
 * sum_k depth(k)^2). The dof tree is read off the bodies' Jacobians J_{b,j} (the non-zero columns
 * of a body are its root path; dofs are numbered parents first); a structure whose paths are not
 * chains of one tree is factorised densely (LAPACK), with the same iterates.
 * Differences from the paper's implementation, all in cost, none in the iterates: Appendix A
 * accumulates H_b into composite inertias along the tree (CRBA); the structure stores each body's
 * J_{b,j}, not the joints' spatial transforms, so we sum J_b^T H_b J_b per body (the same matrix:
 * O(sum_b 6 |path_b|^2) instead of CRBA's O(sum_k 6 depth(k))). Remark 1's articulated-body
 * alternative is not implemented (the paper itself found factorisation faster).
 *
 * Choices the paper leaves open, and ours:
 *   - beta_0 (§VI-D): the geometric mean over bodies of m_b / n_b, n_b the contact points on the
 *     body (a body-body contact counts for both bodies; bodies without contacts or mass are left
 *     out; if no body has a contact, every constraint piece counts). beta0 > 0 overrides it.
 *     Already scale-free: a mass, proportional to the problem's masses (issue 11's concern is
 *     an absolute beta_0, which this is not).
 *   - eq. 43: "optional" in Alg. 2, gamma not given: on by default, checked after every
 *     iteration, gamma = 5 (OSQP's value). Measured at 100 iterations (median al_residual):
 *     laikago8 (the earlier 16-78 contact pile) 7.5e-5 / 3.8e-5 / 2.2e-5 for gamma = 10 / 5 / 2
 *     and 4.8e-4 with beta fixed at beta_0; dishes (quick) 5.6e-4 / 3.6e-4 / 4.1e-4 (8.2e-4 fixed); boltnut
 *     (quick) 1.1e-5 / 6.7e-6 / 1.6e-5 (6.6e-5 fixed) (measured with the literal rule below).
 *   - eq. 43 made scale-free (default; theta_mass = 1 gives the paper's literal rule): theta_p
 *     (eq. 42) is a velocity and theta_d a momentum, so the literal test theta_p > gamma theta_d
 *     and the factor sqrt(theta_p / theta_d) carry units of 1/kg: they balance the residuals as
 *     if every body weighed 1 kg. On 5 g pouring particles that holds beta far from the balance
 *     (issue 11). We compare m* theta_p with theta_d and update beta <- beta sqrt(m* theta_p /
 *     theta_d), m* the geometric mean of the masses of the bodies that carry a constraint piece
 *     (the blocks M_b of eq. 41 that beta is weighed against; theta_mass > 0 sets m* instead).
 *     For 1 kg bodies this is the literal rule. Scaling every mass by s scales beta_0, m*,
 *     theta_d and lambda by s and leaves theta_p and v unchanged, so the iterates are the same up
 *     to lambda x s (tests/test_subadmm.c); the literal rule's are not. Measured with subadmm
 *     (default vs literal; al_residual): pouring-45 to 1e-8 within 2000 iterations 17 / 30 cases
 *     vs 13 / 30, median iterations 457 vs 2000; boltnut 37 / 100 vs 36 / 100 (median residual
 *     at 2000 iterations 4.1e-8 vs 5.0e-8); dishes median 7.4e-6 vs 1.3e-5 at 2000 iterations;
 *     laikago8 (80-100 contacts) at 100 iterations 3.2e-4 vs 3.7e-4. Rejected scales: beta
 *     itself (boltnut 2 / 100), the subsystems' masses (laikago8 4.0e-3: a robot weighs ~20 kg
 *     but its pieces sit on ~1 kg links). Same gamma and round-off guard as below.
 *     beta stays within [beta_0 / beta_range, beta_0 beta_range], beta_range = 1e4. Eq. 43 is
 *     skipped once BOTH residuals are at their
 *     round-off level (theta_p <= 1e3 eps max(|J_p v|, |lambda| / beta), theta_d <= 1e3 eps
 *     |rhs of eq. 34|): their ratio is then noise, and on a fixed iteration count (Table III) it
 *     kept refactorising after convergence (17 times on an early laikago27 step).
 *   - theta_th (Alg. 2 line 13): 0 = off; the harness's tolerance and budgets stop the solver.
 *     The solver also stops (STALLED) when an iteration changes neither lambda nor any z nor beta
 *     (then every later iteration repeats it exactly).
 *   - initial iterate (Alg. 2 line 7): cold lambda = 0, z = 0; warm lambda = lambda0 (u = -lambda0)
 *     and z_p = J_p v0 with v0 given or A^{-1}(b + J^T lambda0) (one extra factorisation at
 *     beta = 0), so that a warm start from a solution is a fixed point.
 *   - e: the paper's contact bias has a normal entry only; the block's whole e is used (the
 *     constraint velocity of problem.h is J v + e).
 *   - a block with no pieces (all its bodies static: J_i = 0) gets T(-beta e_i).
 *   - threads: 1 by default (single-thread timings are the primary ones);
 *     phases 1-3 and the refactorisations are OpenMP loops over subsystems / constraints whose
 *     results do not depend on the thread count (solvers/subadmm_core.c).
 * The setup checks that the structure describes the problem (J = sum J_{i,b} J_{b,j}, each
 * diagonal block of A = sum J_b^T M_b J_b + diag), so a wrong structure is an input error, not a
 * wrong answer; that A has no entries between subsystems is checked by
 * ncp_subadmm_check_structure (O(nv^2), not per solve; the tests run it on the scenes).
 * Needs: primal (A dense, or block-sparse as the block route keeps it: A is read only by the setup's
 * checks and scale rules, solvers/subadmm_core.c a_block) and the subsystem structure. Solves the NCP (strict operator, no
 * relaxation). Ablations with the same core: admm-nosub (eq. 28), admm-nobody (no body split).
 */
#include "solvers/registry.h"
#include "solvers/subadmm_core.h"

/* Pieces per body (eq. 31), subsystem matrices factorised along their tree (Appendix A). */
const ncp_subadmm_config ncp_subadmm_config_subadmm = {
    .desc = &ncp_solver_subadmm,
    .split = NCP_SUBADMM_BODY,
};

static int subadmm_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    return ncp_subadmm_solve(&ncp_subadmm_config_subadmm, in, out, run, err);
}

const ncp_solver_desc ncp_solver_subadmm = {
    .name = "subadmm",
    .source = "Lee et al. 2025 §VI, Alg. 2 (subsystem-based ADMM with the body split, eqs. 31-43, App. A)",
    .summary = "ADMM per subsystem and per constraint, body-split slacks, tree-factorised "
               "subsystem matrices, adaptive beta",
    .needs = NCP_NEEDS_PRIMAL | NCP_NEEDS_PRIMAL_SPARSE | NCP_NEEDS_STRUCTURE,
    .ccp = 0,
    .takes_v0 = 1,
    .file = "solvers/subadmm.c",
    .params = ncp_subadmm_params,
    .solve = subadmm_solve,
};
