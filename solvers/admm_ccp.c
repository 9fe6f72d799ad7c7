/* admm-ccp — ADMM on the CCP relaxation (NCP report 2025 Table I, "ADMM-CCP").
 *
 * Source: NCP report 2025 §VI-F and Alg. 6 with the relaxation the paper states: "to extract
 * ADMM-CCP ... neglect (167a), i.e. s = 0, and omit eta/2 ||x - x~||^2 from (166)" — the
 * algorithm of Lidec et al. (the paper's [38]; cf. Tasora et al. [45]): plain ADMM on the
 * SOCP (19)
 *     min_{x ∈ K} 1/2 x^T D x + x^T v_f,
 * whose KKT conditions are the CCP K* ∋ D lambda + v_f ⊥ lambda ∈ K (eq. 18). Table I: Euclidean
 * projector (150), no De Saxcé term, termination (156)-(158), fixed penalty. The iteration,
 * residuals and block handling are in solvers/admm_proximal.c.
 *
 * It solves the CCP, not the NCP: at a sliding contact the CCP solution has u_n = mu ||u_t|| > 0
 * (the "forces at a distance" artefact, NCP report 2025 §III-C), so its NCP natural map is not
 * zero there; the metrics evaluate it with the NCP definitions like every solver (NCP report 2025
 * §VII-D).
 * So where contacts slide, the harness's stopping metric (an NCP natural map) never reaches the
 * tolerance: the run ends by the solver's own rule (eq. 170 residuals <= eps, status stalled)
 * or by the budget.
 *
 * Parameters (defaults): rho 1 (the fixed penalty; the paper gives no value for ADMM-CCP, so
 * the ADMM-NCP-FP default), relax 1, eps_p 1e-12, eps_d 1e-12, eps_cp 1e-12, form 0, k_factor 0.
 * Needs: the Delassus operator (D or the primal data); D + rho I factorised once by
 * solvers/dshift.h (dense, or the saddle form on (A, J)). Solves the CCP.
 */
#include <math.h>

#include "solvers/admm_proximal.h"
#include "solvers/common.h"
#include "solvers/registry.h"

static const ncp_param_doc admm_ccp_params[] = {
    {"rho", 1.0, "ALM penalty, fixed (> 0)"},
    NCP_ADMM_PROX_COMMON_PARAMS,
    {NULL, 0.0, NULL},
};

static int admm_ccp_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run,
                          ncp_error *err)
{
    const ncp_solver_desc *self = &ncp_solver_admm_ccp;
    ncp_admm_prox_opts o = {.desaxce = 0, .eta = 0.0, .rule = NCP_ADMM_PROX_FIXED};
    int rc;
    if ((rc = ncp_solver_param_real(self, in->params, "rho", 0.0, INFINITY, NCP_PARAM_LO_OPEN,
                                    &o.rho0, err)) ||
        (rc = ncp_admm_prox_common_params(self, in->params, &o, err)))
        return rc;
    return ncp_admm_prox_solve(self, &o, in, out, run, err);
}

const ncp_solver_desc ncp_solver_admm_ccp = {
    .name = "admm-ccp",
    .source = "NCP report 2025 Alg. 6 without De Saxcé and proximal terms (Table I ADMM-CCP)",
    .summary = "ADMM on the convex CCP relaxation (SOCP), fixed penalty",
    .needs = NCP_NEEDS_DUAL_OP | NCP_NEEDS_SYMMETRIC,
    .ccp = 1,
    .file = "solvers/admm_ccp.c",
    .params = admm_ccp_params,
    .solve = admm_ccp_solve,
};
