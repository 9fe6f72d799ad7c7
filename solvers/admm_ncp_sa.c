/* admm-ncp-sa — proximal ADMM on the NCP with the Spectral Adaptation penalty rule (NCP report 2025
 * Table I, "ADMM-NCP-SA").
 *
 * Source: NCP report 2025 §VI-F, Alg. 6 (eqs. 165-170) with the penalty rule eq. 172, Carpentier
 * et al.'s scheme after the analysis of Nishihara et al. (the paper's [84]):
 *     L = lambda_max(D) (power iteration), m = eta, kappa = L / m,
 *     rho0 = sqrt(L m) kappa^p0,
 *     rho <- rho kappa^alpha if r_p / r_d > mu_thr;  rho kappa^-alpha if r_d / r_p > mu_thr.
 * m = eta rather than lambda_min(D): "it is not actually necessary to compute m, since eta
 * ensures that it will be its worst-case value. Thus we can always set m = eta", and L "need
 * not be exact" (power iteration, 1e-6 relative change or 200 products; admm_proximal.c). With
 * the defaults and L = 1: rho0 = 1e-3 x 1e6^0.2 ~ 0.016, factor 1e6^0.05 ~ 2 per change.
 * The iteration, residuals and block handling are in solvers/admm_proximal.c.
 *
 * Convergence: as admm-ncp-fp (no guarantee for the non-convex NCP; fixed points are solutions).
 *
 * Parameters (defaults, the paper's typical values): eta 1e-6 (> 0: it is also m), mu_thr 10,
 * p0 0.2, alpha 0.05, relax 1, eps_p 1e-12, eps_d 1e-12, eps_cp 1e-12, form 0, k_factor 0.
 * Needs: the Delassus operator (D or the primal data); a power iteration and D + (rho + eta) I
 * factorised by solvers/dshift.h per penalty change. Solves the NCP.
 */
#include <math.h>

#include "solvers/admm_proximal.h"
#include "solvers/common.h"
#include "solvers/registry.h"

static const ncp_param_doc admm_ncp_sa_params[] = {
    {"eta", 1e-6, "proximal parameter of eq. 166, also the modulus m of eq. 172 (> 0)"},
    {"mu_thr", 10.0, "residual-ratio threshold of eq. 172 (>= 1)"},
    {"p0", 0.2, "initialisation power: rho0 = sqrt(L m) kappa^p0, in [-1, 1]"},
    {"alpha", 0.05, "adaptation power: rho *= kappa^(+-alpha), in [0, 1]"},
    NCP_ADMM_PROX_COMMON_PARAMS,
    {NULL, 0.0, NULL},
};

static int admm_ncp_sa_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run,
                             ncp_error *err)
{
    const ncp_solver_desc *self = &ncp_solver_admm_ncp_sa;
    const ncp_params *ps = in->params;
    ncp_admm_prox_opts o = {.desaxce = 1, .rule = NCP_ADMM_PROX_SPECTRAL};
    int rc;
    if ((rc = ncp_solver_param_real(self, ps, "eta", 0.0, INFINITY, NCP_PARAM_LO_OPEN, &o.eta,
                                    err)) ||
        (rc = ncp_solver_param_real(self, ps, "mu_thr", 1.0, INFINITY, 0, &o.mu_thr, err)) ||
        (rc = ncp_solver_param_real(self, ps, "p0", -1.0, 1.0, 0, &o.p0, err)) ||
        (rc = ncp_solver_param_real(self, ps, "alpha", 0.0, 1.0, 0, &o.alpha, err)) ||
        (rc = ncp_admm_prox_common_params(self, ps, &o, err)))
        return rc;
    return ncp_admm_prox_solve(self, &o, in, out, run, err);
}

const ncp_solver_desc ncp_solver_admm_ncp_sa = {
    .name = "admm-ncp-sa",
    .source = "NCP report 2025 Alg. 6 (Carpentier et al.), spectral penalty adaptation eq. 172",
    .summary = "proximal ADMM on the NCP, rho from the spectrum of D (sqrt(L m) kappa^0.2)",
    .needs = NCP_NEEDS_DUAL_OP | NCP_NEEDS_SYMMETRIC,
    .ccp = 0,
    .file = "solvers/admm_ncp_sa.c",
    .params = admm_ncp_sa_params,
    .solve = admm_ncp_sa_solve,
};
