/* raisim — NCP report 2025's RAISIM: nonlinear block Gauss–Seidel with the per-contact bisection search.
 *
 * Source: NCP report 2025 Table I, Alg. 5 (eqs. 143-145) with P_NB of Alg. 4 + BS: Hwangbo, Lee,
 * Hutter, "Per-contact iteration method for solving contact dynamics", RA-L 2018 (RaiSim).
 * Per contact: open / frictionless / stick as in nbgs; in the slip case the same QCP on the
 * conic section, solved by a bisection search on the angle of lambda_t: from the angle of the
 * unconstrained solution, walk downhill along the section until the slope of the objective
 * changes sign, then bisect to bisect_tol (solvers/local_contact.h). It finds the local
 * minimiser nearest the start, which is the global one except on sections where the objective
 * has several minima. No De Saxcé estimate (Table I: "no").
 *
 * NCP, with Preclik's QCP friction model: see nbgs.c — exact Coulomb only where D_kk has no
 * normal/tangent coupling (Lidec et al. [73]); raisim-ds corrects it.
 *
 * Parameters (defaults): omega 1, omega_min 0.7, omega_decay 0.99, bisect_tol 1e-12 rad,
 * stall_tol 1e-15 (solvers/splitting.h). The bracketing constants (first step 0.01 rad, x1.3
 * growth, x0.5 shrink) are fixed, and each phase takes at most 200 steps.
 * sweep 0 (the cheaper of the velocity form and D, solvers/common.h). Needs: dual (D, v_f), or
 * the primal data for the velocity form. Warm start: in->lambda0. Solves: the NCP (Preclik's QCP friction model).
 */
#include "solvers/common.h"
#include "solvers/registry.h"
#include "solvers/splitting.h"

static const ncp_param_doc raisim_params[] = {
    NCP_SPLIT_DOC_OMEGA,      NCP_SPLIT_DOC_OMEGA_MIN, NCP_SPLIT_DOC_OMEGA_DECAY,
    NCP_SPLIT_DOC_BISECT_TOL, NCP_SPLIT_DOC_STALL_TOL, NCP_GS_DOC_SWEEP, {NULL, 0.0, NULL},
};

static int raisim_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    return ncp_split_run(&ncp_solver_raisim, NCP_SPLIT_NB, NCP_NB_BISECT, 0, in, out, run, err);
}

const ncp_solver_desc ncp_solver_raisim = {
    .name = "raisim",
    .source = "NCP report 2025 Table I RAISIM: Alg. 5 with Alg. 4 + bisection (Hwangbo et al. 2018)",
    .summary = "nonlinear block Gauss-Seidel, per-contact bisection on the QCP (no De Saxcé)",
    .needs = NCP_NEEDS_DUAL_OP,
    .ccp = 0,
    .file = "solvers/raisim.c",
    .params = raisim_params,
    .solve = raisim_solve,
};
