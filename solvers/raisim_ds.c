/* raisim-ds — NCP report 2025's RAISIM-DS: RaiSim's bisection with successive De Saxcé approximation.
 *
 * Source: NCP report 2025 Table I, Alg. 5 with P_NB of Alg. 4 + BS and the De Saxcé estimate of line 16,
 * after Le Lidec et al. [73] (the fix for RaiSim's maximal-dissipation violation): per contact
 * the bisection of raisim (solvers/raisim.c) on the objective 1/2 l^T D_kk l + l^T (c + s),
 * s = Gamma(u_k) = (mu |u_k,t|, 0, 0) estimated from the current velocity, on the same conic
 * section (plane (D_kk l + c)_n = 0), started from the angle of -D_kk^{-1}(c + s).
 * local_iter > 1 repeats the local solve with s re-estimated from the local velocity.
 *
 * Stick test. Alg. 4 line 1 writes lambda0 = -D_kk^{-1}(c + s) for the stick test too; we test
 * sticking on the uncorrected -D_kk^{-1} c, as Le Lidec et al.'s own RaiSim-DS (ContactBench's
 * RaisimCorrectedSolver) does: a sticking candidate has u = 0, whose estimate is Gamma(0) = 0.
 * The literal reading has spurious fixed points: a slipping iterate's s_n = mu |u_t| > 0 pulls
 * the stick candidate out of K, the slip search then keeps |u_t| (and s) up, and the sweep
 * settles where u_t is ALONG lambda_t (cos ~ +0.995). On scenes/quadruped.json (seed 1,
 * |D_nt| ~ 0.75 D_nn at the feet) it stalled at natural_map_inf ~0.13 on 125 of 200 problems
 * (raisim-ds-es on 199) while -D_kk^{-1} c was inside K by margin 0.155 at the fixed point;
 * with the stick test on c, 200/200 reach 1e-8 (median 6 sweeps). On the 200 seeded random
 * problems of tests/test_ncpreport_pgs.c's family (tutil_random_family, coupled blocks) it went
 * from 196 converged, 3 STALLED, 1 cycling to 200/200 converged to natural map 1e-8.
 *
 * NCP: at a fixed point s = Gamma(u), and the exact Coulomb slip point is then stationary on the
 * section (u + s is normal to the cone there), so the NCP's solutions are fixed points also where
 * D_kk couples normal and tangent (solvers/local_contact.h). The converse is not proved: the
 * slope along the section also vanishes where u + s = a g + b grad(cone) with a != 0 (g the
 * plane's normal), a slip point with u_t not opposite lambda_t; no run above ended at one.
 *
 * Parameters (defaults): omega 1, omega_min 0.7, omega_decay 0.99, bisect_tol 1e-12 rad,
 * local_iter 1, stall_tol 1e-15 (solvers/splitting.h).
 * sweep 0 (the cheaper of the velocity form and D, solvers/common.h). Needs: dual (D, v_f), or
 * the primal data for the velocity form. Warm start: in->lambda0. Solves: the NCP.
 */
#include "solvers/common.h"
#include "solvers/registry.h"
#include "solvers/splitting.h"

static const ncp_param_doc raisim_ds_params[] = {
    NCP_SPLIT_DOC_OMEGA,      NCP_SPLIT_DOC_OMEGA_MIN,  NCP_SPLIT_DOC_OMEGA_DECAY,
    NCP_SPLIT_DOC_BISECT_TOL, NCP_SPLIT_DOC_LOCAL_ITER, NCP_SPLIT_DOC_STALL_TOL,
    NCP_GS_DOC_SWEEP, {NULL, 0.0, NULL},
};

static int raisim_ds_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    return ncp_split_run(&ncp_solver_raisim_ds, NCP_SPLIT_NB, NCP_NB_BISECT, 1, in, out, run, err);
}

const ncp_solver_desc ncp_solver_raisim_ds = {
    .name = "raisim-ds",
    .source = "NCP report 2025 Table I RAISIM-DS: Alg. 5 with Alg. 4 + bisection + De Saxcé "
              "(Lidec et al.)",
    .summary = "RaiSim's per-contact bisection with the successive De Saxcé estimate",
    .needs = NCP_NEEDS_DUAL_OP,
    .ccp = 0,
    .file = "solvers/raisim_ds.c",
    .params = raisim_ds_params,
    .solve = raisim_ds_solve,
};
