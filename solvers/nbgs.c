/* nbgs — NCP report 2025's NBGS: nonlinear block Gauss–Seidel with an exact per-contact solve.
 *
 * Source: NCP report 2025 Table I, Alg. 5 (eqs. 143-145) with the nonlinear-block projector P_NB of
 * Alg. 4 + MDP (Preclik et al. [56]): per contact, open if c_n >= 0; frictionless if mu = 0;
 * stick if -D_kk^{-1} c lies in K; otherwise the QCP (152) on the conic section where the cone
 * surface meets the plane (D_kk lambda + c)_n = 0, solved EXACTLY: the global minimiser of the
 * local objective on the section, from all stationary points (roots of one polynomial of degree
 * <= 6 in tan(theta/2), isolated exactly; solvers/local_contact.h). Preclik reduces the same
 * QCP to a quartic; both give the same minimiser (the paper's Appendix C forms are missing).
 * No De Saxcé estimate (Table I: "no").
 *
 * NCP, with Preclik's friction model: the fixed points have Signorini's condition and
 * lambda on bd K exactly, but at sliding contacts the tangential velocity is opposite lambda_t
 * (Coulomb's maximal dissipation) only when D_kk has no normal/tangent coupling; otherwise the
 * QCP's answer differs from Coulomb's (Lidec et al. [73], NCP report 2025 §VI-C). On such problems the
 * NCP natural map does not go to zero — that is the model, not a convergence failure; raisim-ds
 * adds the De Saxcé correction that removes it.
 * Not `raisim`: same local QCP, solved exactly here, by bisection search there.
 *
 * Parameters (defaults): omega 1, omega_min 0.7, omega_decay 0.99, stall_tol 1e-15
 * (solvers/splitting.h).
 * sweep 0 (the cheaper of the velocity form and D, solvers/common.h). Needs: dual (D, v_f), or
 * the primal data for the velocity form. Warm start: in->lambda0. Solves: the NCP (Preclik's QCP friction model).
 */
#include "solvers/common.h"
#include "solvers/registry.h"
#include "solvers/splitting.h"

static const ncp_param_doc nbgs_params[] = {
    NCP_SPLIT_DOC_OMEGA,     NCP_SPLIT_DOC_OMEGA_MIN, NCP_SPLIT_DOC_OMEGA_DECAY,
    NCP_SPLIT_DOC_STALL_TOL, NCP_GS_DOC_SWEEP, {NULL, 0.0, NULL},
};

static int nbgs_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    return ncp_split_run(&ncp_solver_nbgs, NCP_SPLIT_NB, NCP_NB_EXACT, 0, in, out, run, err);
}

const ncp_solver_desc ncp_solver_nbgs = {
    .name = "nbgs",
    .source = "NCP report 2025 Table I NBGS: Alg. 5 with Alg. 4 + MDP QCP (Preclik et al.), exact",
    .summary = "nonlinear block Gauss-Seidel, exact per-contact QCP solve (no De Saxcé)",
    .needs = NCP_NEEDS_DUAL_OP,
    .ccp = 0,
    .file = "solvers/nbgs.c",
    .params = nbgs_params,
    .solve = nbgs_solve,
};
