/* admm-nosub — vanilla ADMM on the whole system, the "No Sub" ablation of Lee et al. 2025
 * Table III.
 *
 * Source: Lee et al. (T-RO 2025) §VI, eq. 28 and §VII-D2. ADMM on the surrogate (11)
 * without any splitting of the system: one piece per constraint (|Z_i| = 1), the z / lambda update
 * of eq. 13 / 18 with the strict operator and u = -lambda, and the v-update
 *     (A + beta J^T J) v = b + J^T (beta z - u)                                     (eq. 28)
 * with ONE factorisation of the whole n x n matrix, refactorised whenever eq. 43 changes beta.
 * The factorisation is what a competent implementation would use (issue 11): A + beta J^T J is
 * sparse (A block diagonal per robot, J^T J adds the couplings of the contacts between them) and
 * its pattern does not depend on beta, so it is ordered (fill-reducing) and analysed once per
 * solve and only refactorised numerically per beta (sparse up-looking Cholesky,
 * core/sparse_chol.h); dense LAPACK Cholesky when its flop count is lower by the factor
 * NOSUB_SPARSE_GAIN (small or dense systems). Parameter nosub_factor = 1 / 2 forces dense /
 * sparse; the iterates are the same to round-off (tests/test_subadmm.c), so Table III's ratio
 * measures the splitting, not dense linear algebra. Everything else —
 * beta_0, eq. 42, eq. 43, the initial iterate, the parameters and their defaults — is subadmm's
 * (solvers/subadmm.c, same core solvers/subadmm_core.c), so that Table III compares splittings
 * only (our reading: strict T and the same beta policy, which the paper does not state). With
 * one subsystem and no constraint acting on two of its bodies, subadmm's iterates are this
 * solver's (tests/test_subadmm.c).
 * The whole-system factorisation is the ablation ("requires solving a full system size linear
 * equation (28)"): one coupled system instead of independent subsystems, whose fill the
 * contacts between robots create.
 * Needs: primal (A, b, J, e). beta_0 uses the subsystem structure when the problem has one; without
 * it (e.g. an imported FCLib problem) the same pseudo-density rule per dof: the geometric mean of
 * A_kk / (blocks touching dof k) — our extension. Solves the NCP.
 */
#include "solvers/registry.h"
#include "solvers/subadmm_core.h"

/* One piece per constraint row block, one dense factorisation of the whole system (eq. 28). */
const ncp_subadmm_config ncp_subadmm_config_nosub = {
    .desc = &ncp_solver_admm_nosub,
    .split = NCP_SUBADMM_NOSUB,
};

static int nosub_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    return ncp_subadmm_solve(&ncp_subadmm_config_nosub, in, out, run, err);
}

const ncp_solver_desc ncp_solver_admm_nosub = {
    .name = "admm-nosub",
    .source = "Lee et al. 2025 §VI eq. 28, Table III \"No Sub\" (vanilla ADMM, whole-system "
              "factorisation)",
    .summary = "ADMM without subsystem split: one sparse (or dense) Cholesky of A + beta J^T J, "
               "strict operator, adaptive beta",
    .needs = NCP_NEEDS_PRIMAL,
    .ccp = 0,
    .takes_v0 = 1,
    .file = "solvers/admm_nosub.c",
    .params = ncp_subadmm_params,
    .solve = nosub_solve,
};
