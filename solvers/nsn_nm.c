/* nsn-nm — semismooth Newton on the natural map of the NCP (Siconos NSN_NM style).
 *
 * Source: Acary, Brémond, Huber, "On solving contact problems with Coulomb friction:
 * formulations and numerical comparisons" (2018, INRIA RR-9118), the NSN-NM solver (Siconos
 * fc3d id 520, fc3d_nonsmooth_Newton_NaturalMap).
 * Equation solved, per block with u = D lambda + v_f (metrics/metrics.h conventions):
 *   contact    F_k = lambda_k - Pi_K(x_k),  x_k = lambda_k - rho_k (u_k + Gamma(u_k))
 *              (NCP report 2025 eq. 163 with a step rho_k; any rho_k > 0 has the same zeros)
 *   bilateral  F_r = rho_r u_r                                  (= lambda - Pi_R(lambda - rho u))
 *   unilateral F_r = lambda_r - max(0, lambda_r - rho_r u_r)
 *   soft       F_r = lambda_r + k phi + c u_r                   (the row's own law)
 * Generalised Jacobian (one element of the B-subdifferential), with G = dPi_K/dx from
 * ncp_cone_project_jacobian (Lee et al. 2025 eq. 23) and dGamma/du = [0, mu u_t^T/||u_t||; 0, 0]:
 *   contact    dF_k = (I - G) E_k + rho_k G (I + dGamma/du) D_k.
 *              At u_t = 0, Gamma is not differentiable; we pick the element 0 (so dGamma/du = 0).
 *   bilateral  rho D_r;  unilateral rho D_r if lambda - rho u > 0 else e_r (at the kink we pick
 *              e_r);  soft e_r + c D_r.
 *
 * On a sticking contact (x in the cone's interior, or at its apex, where G = I is taken) P = 0,
 * so the block's rows of J are rows of rho Q D: where more rows stick than rank D <= nv (a
 * hyperstatic stack at rest, the scaling walls: 100 contacts, 300 rows on 102 DOFs), or a body's
 * stuck contacts have more rows than its DOFs, J is singular by construction, not by a wrong
 * block (the formulas above match a finite-difference Jacobian of F to 4e-7 on the 10^2 wall),
 * and the step is Levenberg–Marquardt's, correctly (nsn_common.h, "Singular by count": then
 * without trying the LU).
 *
 * Globalisation and per-block rho: the semismooth Newton driver shared with nsn-fb
 * (solvers/nsn_common.h): nonmonotone Armijo on theta = 1/2 ||F||^2; Newton by LU, else
 * Levenberg–Marquardt; on stagnation a burst of projected Gauss–Seidel sweeps and the next
 * scaling rho_scale x 10^c of a fixed cycle (theta's local minima depend on rho, F's zeros do not).
 * rho_k = rho_scale / lambda_max(D_kk) for contacts, rho_scale / D_rr for scalar rows.
 *
 * Parameters (defaults): rho_scale 1, armijo 1e-4, newton_ls 10, lm_ls 30, nonmonotone 10,
 * window 10, pgs_burst 10, rho_cycle 1.
 * Needs: v_f and D or the primal data. Per iteration a dense m x m Jacobian and an LU (O(m^3)),
 * or with dense primal data of few dofs (nv <= m/4) the same Newton and LM systems solved
 * through D = F F^T in O(m nv^2), or with primal data the sparse saddle-point form in A and J
 * (no D; nsn_sparse.h), whichever is estimated cheapest (parameter route, nsn_common.h).
 * Solves the NCP.
 */
#include <math.h>
#include <stdlib.h>

#include "solvers/common.h"
#include "core/cone.h"
#include "solvers/nsn_common.h"
#include "solvers/registry.h"

static const ncp_param_doc nsn_params[] = {
    {"rho_scale", 1.0, "natural-map step: rho_k = rho_scale / lambda_max(D_kk) (> 0)"},
    {"armijo", 1e-4, "Armijo sufficient-decrease constant on 1/2||F||^2, in (0, 0.5)"},
    {"newton_ls", 10.0, "max step halvings for the Newton direction before falling back to LM"},
    {"lm_ls", 30.0, "max step halvings for the Levenberg-Marquardt direction"},
    {"nonmonotone", 10.0, "Armijo reference = max theta over this many last iterations (1..64)"},
    NCP_NSN_PARAM_DOCS_TAIL,
};

/* F on a unilateral row or a contact block (the driver does the bilateral and soft rows). */
static void nm_block_F(const ncp_block *b, double rho, const double *lam, const double *u,
                       double *F)
{
    if (b->type == NCP_UNILATERAL) {
        F[0] = lam[0] - fmax(0.0, lam[0] - rho * u[0]);
        return;
    }
    double z[3], x[3], px[3];
    ncp_desaxce(b->mu, u, z);
    for (int i = 0; i < 3; i++) x[i] = lam[i] - rho * z[i];
    ncp_cone_project(b->mu, x, px);
    for (int i = 0; i < 3; i++) F[i] = lam[i] - px[i];
}

/* The block's generalised Jacobian (header): P = dF/dlambda_b, Q = dF/du_b (n x n). */
static void nm_block_jac(const ncp_block *b, double rho, const double *lam, const double *u,
                         double *P, double *Q)
{
    if (b->type == NCP_UNILATERAL) {
        int active = lam[0] - rho * u[0] > 0.0; /* at the kink we pick e_r */
        P[0] = active ? 0.0 : 1.0;
        Q[0] = active ? 1.0 : 0.0; /* times rho by the driver (q_without_rho) */
        return;
    }
    double z[3], x[3], G[9];
    ncp_desaxce(b->mu, u, z);
    for (int i = 0; i < 3; i++) x[i] = lam[i] - rho * z[i];
    ncp_cone_project_jacobian(b->mu, x, G);
    /* Q = rho G (I + dGamma/du); dGamma/du has the single row (0, mu t^T), t = u_t/|u_t|, and
     * is taken as 0 at u_t = 0 (see the header). P = I - G. */
    double h[2];
    ncp_nsn_dgamma(b->mu, u, h);
    for (int i = 0; i < 3; i++) { /* times rho by the driver (q_without_rho) */
        Q[i] = G[i];
        Q[i + 3] = G[i + 3] + h[0] * G[i];
        Q[i + 6] = G[i + 6] + h[1] * G[i];
    }
    for (int i = 0; i < 9; i++) P[i] = (i % 4 == 0 ? 1.0 : 0.0) - G[i];
}

static const ncp_nsn_eq nm_equation = {nm_block_F, nm_block_jac, 0, 1};

static int nsn_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    return ncp_nsn_solve(&ncp_solver_nsn_nm, &nm_equation, in, out, run, err);
}

const ncp_solver_desc ncp_solver_nsn_nm = {
    .name = "nsn-nm",
    .source = "Acary, Brémond, Huber 2018 (INRIA RR-9118), NSN-NM; Siconos fc3d id 520",
    .summary = "semismooth Newton on the natural map, Armijo + Levenberg-Marquardt safeguard",
    .needs = NCP_NEEDS_DUAL_OP,
    .ccp = 0,
    .file = "solvers/nsn_nm.c",
    .params = nsn_params,
    .solve = nsn_solve,
};
