/* pgs-ncp — NCP report 2025's PGS-NCP: block projected Gauss–Seidel with decoupled normal/tangent steps.
 *
 * Source: NCP report 2025 Table I, Alg. 5 (eqs. 143-145) with the local projector P_NCP of Alg. 3 (the
 * classic PGS adapted to 3D cones): per contact, with z = u_k computed once,
 *     lambda_n <- max(0, lambda_n - z_n / D_nn)                               (eq. 147)
 *     lambda_t <- Pi_disk(mu lambda_n)(lambda_t - z_t / min(D_t1t1, D_t2t2))   (eq. 148)
 * (solvers/local_contact.h). No De Saxcé estimate (Table I: "no").
 *
 * NCP, although Gamma is never used: a fixed point has lambda_n = max(0, lambda_n - u_n/D_nn),
 * i.e. 0 <= u_n ⊥ lambda_n >= 0, and lambda_t = Pi_disk(lambda_t - u_t/d), i.e. lambda_t in the
 * disk of radius mu lambda_n with u_t = 0 or lambda_t = -mu lambda_n u_t/|u_t| — Coulomb's law
 * with zero normal velocity, which is the NCP. Convergence is not guaranteed (the decoupling
 * ignores the normal/tangent coupling of D_kk, NCP report 2025 §VI-C), and the tangential step, the
 * inverse of the SMALLEST tangential diagonal (as the text says), is the longer of the two
 * candidates: on 200 seeded random problems with coupled blocks (tests/test_ncpreport_pgs.c's
 * family) and no relaxation (omega_min = 1) it oscillated without converging on 5; either the
 * default relaxation decay or tangent_max = 1 (step 1/max(D_tt, D_oo)) converged on all 200.
 * Not `pgs`: pgs projects the De Saxcé-corrected step onto the cone jointly (Alg. 2 + Gamma).
 *
 * Parameters (defaults): tangent_max 0 (the paper's step), omega 1, omega_min 0.7,
 * omega_decay 0.99, stall_tol 1e-15 (solvers/splitting.h).
 * sweep 0 (the cheaper of the velocity form and D, solvers/common.h). Needs: dual (D, v_f), or
 * the primal data for the velocity form. Warm start: in->lambda0. Solves: the NCP.
 */
#include "solvers/common.h"
#include "solvers/registry.h"
#include "solvers/splitting.h"

static const ncp_param_doc pgs_ncp_params[] = {
    {"tangent_max", 0.0,
     "1: tangential step 1/max(D_tt, D_oo) instead of the paper's 1/min(D_tt, D_oo)"},
    NCP_SPLIT_DOC_OMEGA,
    NCP_SPLIT_DOC_OMEGA_MIN,
    NCP_SPLIT_DOC_OMEGA_DECAY,
    NCP_SPLIT_DOC_STALL_TOL,
    NCP_GS_DOC_SWEEP, {NULL, 0.0, NULL},
};

static int pgs_ncp_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    return ncp_split_run(&ncp_solver_pgs_ncp, NCP_SPLIT_PNCP, NCP_NB_EXACT, 0, in, out, run, err);
}

const ncp_solver_desc ncp_solver_pgs_ncp = {
    .name = "pgs-ncp",
    .source = "NCP report 2025 Table I PGS-NCP: Alg. 5 (eqs. 143-145) with Alg. 3",
    .summary = "block PGS, decoupled normal (orthant) and tangential (disk) steps per contact",
    .needs = NCP_NEEDS_DUAL_OP,
    .ccp = 0,
    .file = "solvers/pgs_ncp.c",
    .params = pgs_ncp_params,
    .solve = pgs_ncp_solve,
};
