/* admm-nobody — subsystem-based ADMM without the body split, the "No Body" ablation of Lee et
 * al. 2025 Table III (the algorithm of the authors' prior work, Lee, Lee, Lee, ICRA 2023, ref.
 * [34]).
 *
 * Source: Lee et al. (T-RO 2025) §VI-A eq. 30 and §VII-D2. The system is split into
 * subsystems as in subadmm, but a constraint gets one piece per SUBSYSTEM it touches, not per body:
 *     J_ij = sum_{b in B_j} J_{i,b} J_{b,j}                                          (eq. 30)
 * (a contact between two links of one robot is one piece whose Jacobian is the sum), |Z_i| counts
 * subsystems, and
 *     K_j = A_j + beta sum_i J_ij^T J_ij
 * has a fill pattern set by the contacts, so neither the body-level assembly of eqs. 40-41 nor the
 * tree factorisation applies: K_j is assembled densely (G_j = sum J_ij^T J_ij once per solve, then
 * A_j + beta G_j) and factorised by dense LAPACK Cholesky per subsystem, in parallel. theta_d of
 * eq. 42 uses the dense A_j. Everything else — the z / lambda updates (eqs. 35-39), beta_0, eq. 43,
 * the initial iterate, the parameters and their defaults — is subadmm's (solvers/subadmm.c, same
 * core solvers/subadmm_core.c). The paper does not restate [34]'s assembly and factorisation; dense
 * is our reading. Its iterates differ from subadmm's only on constraints acting on
 * two bodies of one subsystem (on rigid-body scenes, one body per subsystem, they are the same).
 * Needs: primal (A, b, J, e) and the subsystem structure. Solves the NCP.
 */
#include "solvers/registry.h"
#include "solvers/subadmm_core.h"

/* One piece per subsystem a constraint touches (eq. 30), dense factorisation per subsystem. */
const ncp_subadmm_config ncp_subadmm_config_nobody = {
    .desc = &ncp_solver_admm_nobody,
    .split = NCP_SUBADMM_NOBODY,
};

static int nobody_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    return ncp_subadmm_solve(&ncp_subadmm_config_nobody, in, out, run, err);
}

const ncp_solver_desc ncp_solver_admm_nobody = {
    .name = "admm-nobody",
    .source = "Lee et al. 2025 §VI-A eq. 30, Table III \"No Body\" (subsystem ADMM of ref. [34])",
    .summary = "subsystem ADMM without the body split: dense per-subsystem Cholesky of "
               "A_j + beta sum J_ij^T J_ij",
    .needs = NCP_NEEDS_PRIMAL | NCP_NEEDS_PRIMAL_SPARSE | NCP_NEEDS_STRUCTURE,
    .ccp = 0,
    .takes_v0 = 1,
    .file = "solvers/admm_nobody.c",
    .params = ncp_subadmm_params,
    .solve = nobody_solve,
};
