/* admm-ncp-fp — proximal ADMM on the NCP with a fixed penalty (NCP report 2025 Table I,
 * "ADMM-NCP-FP").
 *
 * Source: NCP report 2025 §VI-F, Alg. 6, eqs. 165-170 (after Carpentier et al., the paper's [32]):
 * each iteration freezes the De Saxcé term at the dual iterate, s = Gamma(z) (167a), and takes one
 * ADMM step on the convex SOCP (127) with the proximal term eta/2 ||x - x_prev||^2 (166), which
 * makes D + (rho + eta) I positive definite "while totally avoiding any biasing effects in the
 * solution". Penalty: fixed, rho = rho0 = 1 by default ("we have found rho0 = 1 to work well
 * across all problems"). The iteration, residuals and block handling are in
 * solvers/admm_proximal.c.
 *
 * Convergence: the NCP is non-convex (the paper calls it NP-hard), so there is no guarantee; the
 * paper's claim is empirical. Every fixed point is an NCP solution (admm_proximal.c).
 *
 * Parameters (defaults): rho 1, eta 1e-6 (the paper's typical value), relax 1, eps_p 1e-12,
 * eps_d 1e-12, eps_cp 1e-12, form 0, k_factor 0.
 * Needs: the Delassus operator (D or the primal data); D + (rho + eta) I factorised once by
 * solvers/dshift.h (dense, or the saddle form on (A, J)). Solves the NCP.
 */
#include <math.h>

#include "solvers/admm_proximal.h"
#include "solvers/common.h"
#include "solvers/registry.h"

static const ncp_param_doc admm_ncp_fp_params[] = {
    {"rho", 1.0, "ALM penalty, fixed (> 0)"},
    {"eta", 1e-6, "proximal parameter of eq. 166 (>= 0)"},
    NCP_ADMM_PROX_COMMON_PARAMS,
    {NULL, 0.0, NULL},
};

static int admm_ncp_fp_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run,
                             ncp_error *err)
{
    const ncp_solver_desc *self = &ncp_solver_admm_ncp_fp;
    ncp_admm_prox_opts o = {.desaxce = 1, .rule = NCP_ADMM_PROX_FIXED};
    int rc;
    if ((rc = ncp_solver_param_real(self, in->params, "rho", 0.0, INFINITY, NCP_PARAM_LO_OPEN,
                                    &o.rho0, err)) ||
        (rc = ncp_solver_param_real(self, in->params, "eta", 0.0, INFINITY, 0, &o.eta, err)) ||
        (rc = ncp_admm_prox_common_params(self, in->params, &o, err)))
        return rc;
    return ncp_admm_prox_solve(self, &o, in, out, run, err);
}

const ncp_solver_desc ncp_solver_admm_ncp_fp = {
    .name = "admm-ncp-fp",
    .source = "NCP report 2025 Alg. 6, eqs. 165-170 (Carpentier et al.), fixed penalty (Table I)",
    .summary = "proximal ADMM on the NCP, De Saxcé estimate from the dual iterate, rho fixed",
    .needs = NCP_NEEDS_DUAL_OP | NCP_NEEDS_SYMMETRIC,
    .ccp = 0,
    .file = "solvers/admm_ncp_fp.c",
    .params = admm_ncp_fp_params,
    .solve = admm_ncp_fp_solve,
};
