/* admm-ncp-la — proximal ADMM on the NCP with the Linear Adaptation penalty rule (NCP report 2025
 * Table I, "ADMM-NCP-LA").
 *
 * Source: NCP report 2025 §VI-F, Alg. 6 (eqs. 165-170, after Carpentier et al.) with the penalty
 * rule eq. 171 ("Linear Adaptation", the residual balancing of Boyd et al. 2011 §3.4.1):
 *     rho <- tau_inc rho   if r_p / r_d > mu_thr
 *     rho <- rho / tau_dec if r_d / r_p > mu_thr,   unchanged otherwise,
 * with r_p, r_d the primal and dual residuals of the iteration (eq. 170a-b); every change
 * refactorises D + (rho + eta) I. "LA" is the paper's name for this rule, nothing to do with
 * linearisation. Typical values from the paper: mu_thr 10, tau_inc = tau_dec = 1.5. The
 * iteration, residuals and block handling are in solvers/admm_proximal.c.
 *
 * Convergence: as admm-ncp-fp (no guarantee for the non-convex NCP; fixed points are
 * solutions). Residual balancing can also oscillate rho; Boyd et al. suggest freezing it after a
 * while for convex problems, the paper does not, and neither do we.
 *
 * Parameters (defaults): rho0 1 (initial penalty; the paper gives none for LA, so the FP
 * default), eta 1e-6, mu_thr 10, tau_inc 1.5, tau_dec 1.5, relax 1, eps_p 1e-12, eps_d 1e-12,
 * eps_cp 1e-12, form 0, k_factor 0.
 * Needs: the Delassus operator (D or the primal data); D + (rho + eta) I factorised by
 * solvers/dshift.h per penalty change. Solves the NCP.
 */
#include <math.h>

#include "solvers/admm_proximal.h"
#include "solvers/common.h"
#include "solvers/registry.h"

static const ncp_param_doc admm_ncp_la_params[] = {
    {"rho0", 1.0, "initial ALM penalty (> 0)"},
    {"eta", 1e-6, "proximal parameter of eq. 166 (>= 0)"},
    {"mu_thr", 10.0, "residual-ratio threshold of eq. 171 (>= 1)"},
    {"tau_inc", 1.5, "penalty increase factor when r_p > mu_thr r_d (>= 1)"},
    {"tau_dec", 1.5, "penalty decrease divisor when r_d > mu_thr r_p (>= 1)"},
    NCP_ADMM_PROX_COMMON_PARAMS,
    {NULL, 0.0, NULL},
};

static int admm_ncp_la_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run,
                             ncp_error *err)
{
    const ncp_solver_desc *self = &ncp_solver_admm_ncp_la;
    const ncp_params *ps = in->params;
    ncp_admm_prox_opts o = {.desaxce = 1, .rule = NCP_ADMM_PROX_LINEAR};
    int rc;
    if ((rc = ncp_solver_param_real(self, ps, "rho0", 0.0, INFINITY, NCP_PARAM_LO_OPEN, &o.rho0,
                                    err)) ||
        (rc = ncp_solver_param_real(self, ps, "eta", 0.0, INFINITY, 0, &o.eta, err)) ||
        (rc = ncp_solver_param_real(self, ps, "mu_thr", 1.0, INFINITY, 0, &o.mu_thr, err)) ||
        (rc = ncp_solver_param_real(self, ps, "tau_inc", 1.0, INFINITY, 0, &o.tau_inc, err)) ||
        (rc = ncp_solver_param_real(self, ps, "tau_dec", 1.0, INFINITY, 0, &o.tau_dec, err)) ||
        (rc = ncp_admm_prox_common_params(self, ps, &o, err)))
        return rc;
    return ncp_admm_prox_solve(self, &o, in, out, run, err);
}

const ncp_solver_desc ncp_solver_admm_ncp_la = {
    .name = "admm-ncp-la",
    .source = "NCP report 2025 Alg. 6 (Carpentier et al.), linear penalty adaptation eq. 171",
    .summary = "proximal ADMM on the NCP, rho balanced by residual ratio (x or / 1.5)",
    .needs = NCP_NEEDS_DUAL_OP | NCP_NEEDS_SYMMETRIC,
    .ccp = 0,
    .file = "solvers/admm_ncp_la.c",
    .params = admm_ncp_la_params,
    .solve = admm_ncp_la_solve,
};
