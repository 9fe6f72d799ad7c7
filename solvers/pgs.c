/* pgs — projected Gauss–Seidel on the NCP with the De Saxcé term.
 *
 * Source: Lee et al. 2025 §VII, the paper's "universal baseline" (dual, Delassus-based, "handles the
 * NCP without model relaxation"); the paper gives no details, so the sweep follows NCP report 2025
 * Alg. 5 (projective splitting / block Gauss–Seidel, eqs. 143-145) in the block order of the
 * assembly (bilateral, unilateral, contact, soft = NCP report 2025's joints -> limits -> contacts),
 * with the per-contact step of NCP report 2025 Alg. 2 plus the De Saxcé estimate of Alg. 5 line 16:
 *     u_k     = v_f,k + sum_m D_km lambda_m          (current, Gauss–Seidel)
 *     lambda_k <- Pi_K( lambda_k - omega r_k (u_k + Gamma(u_k)) ),   r_k = 1 / lambda_max(D_kk)
 * Fixed points of this map are exactly the solutions of K* ∋ u + Gamma(u) ⊥ lambda ∈ K (any
 * r_k > 0), so it targets the NCP, not the CCP relaxation.
 *
 * Block updates (the exact 1-D Gauss–Seidel solves, NCP report 2025 Alg. 5 lines 5 and 10):
 *   bilateral  lambda <- lambda - omega u / D_rr
 *   unilateral lambda <- max(0, lambda - omega u / D_rr)
 *   soft       lambda* = (-k phi - c u_o) / (1 + c D_rr), u_o = u - D_rr lambda (the row's law
 *              lambda = -k phi - c u solved with its own diagonal);
 *              lambda <- lambda + omega (lambda* - lambda)
 *   contact    as above; `local_iter` > 1 repeats the local step with the local velocity updated
 *              through D_kk and Gamma re-estimated (the "-DS" successive approximation), before
 *              the coupling to the other rows is updated once.
 * Step choice r_k = 1/lambda_max(D_kk) = 1/L, the classical projected-gradient step for the local
 * convexified problem min 1/2 l^T D_kk l + l^T (u_k + Gamma) over K (Gamma frozen): it decreases
 * that objective monotonically for any omega in (0, 2). The NCP report 2025 Alg. 2's 3/trace(D_kk) is the
 * inverse of the MEAN eigenvalue and exceeds 2/L (no decrease guaranteed) when D_kk is
 * anisotropic, which contact blocks often are (normal and tangential masses differ).
 * Over-relaxation: omega multiplies the step INSIDE the projection (projected SOR, Cryer 1971)
 * rather than blending after it as in NCP report 2025 eq. 145: for omega > 1 the blend can leave K
 * (e.g. a negative normal impulse), the in-projection form keeps every iterate feasible; both
 * are plain Gauss–Seidel for omega = 1.
 * Rows whose diagonal is (numerically) zero do not influence their own velocity; Gauss–Seidel has
 * no information for them, so their lambda is left as it is.
 *
 * Cost: u = D lambda + v_f is kept up to date incrementally (ncp_gs_vel, parameter `sweep`): by
 * default the cheaper per sweep of the velocity form on sparse J (v = A^{-1}(b + J^T lambda)
 * followed through Y = A^{-1} J^T restricted to the bodies each row touches: O(nnz J + nnz Y),
 * linear in the contacts, D never read) and the Delassus route (one column axpy of D per updated
 * row, O(m^2); O(m rank) with a low-rank D = F F^T, core/dop.h).
 * The steps and the sweep live in solvers/common.c (ncp_block_steps, ncp_pgs_sweep), shared with
 * nsn-nm's Gauss–Seidel fallback; this file holds the parameters and the iteration loop.
 *
 * Parameters (defaults): omega 1, local_iter 1, stall_tol 1e-15 (stop with STALLED when a sweep
 * changes lambda by <= stall_tol * max(1, ||lambda||_inf) in the max norm), sweep 0 (the cheaper
 * route; solvers/common.h NCP_GS_*).
 * Needs: dual (D, v_f), or primal data for the velocity form. Warm start: in->lambda0.
 */
#include <math.h>
#include <stdlib.h>

#include "solvers/common.h"
#include "core/la.h"
#include "solvers/registry.h"

static const ncp_param_doc pgs_params[] = {
    {"omega", 1.0,
     "over-relaxation factor in (0, 2), applied inside the projection (1 = Gauss-Seidel)"},
    {"local_iter", 1.0,
     "projected steps per contact per sweep (integer >= 1), Gamma re-estimated each step"},
    {"stall_tol", 1e-15,
     "stop (STALLED) when a sweep changes lambda by <= stall_tol * max(1, |lambda|_inf)"},
    NCP_GS_DOC_SWEEP,
    {NULL, 0.0, NULL},
};

/* The iterations, from the warm start (or zero), on allocated lambda, velocity and steps. */
static void pgs_iterate(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, double omega,
                        int local_iter, double stall_tol, const double *step, double *lambda,
                        ncp_gs_vel *g)
{
    const ncp_problem *p = in->prob;
    int m = p->m;
    if (in->lambda0) ncp_copy(m, in->lambda0, lambda);
    ncp_gs_vel_start(g, lambda); /* u = D lambda0 + v_f */

    int status = -1, k = 0;
    if (ncp_run_setup_done(run) == 0) {
        for (k = 1;; k++) {
            double dmax = ncp_pgs_sweep_vel(p, g, step, omega, local_iter, lambda);
            int stalled = dmax <= stall_tol * fmax(1.0, ncp_norminf(m, lambda));
            if (ncp_solver_iter_end(run, k, m, lambda, stalled, &status)) break;
        }
    }
    ncp_solver_finish(out, m, lambda, k, status);
}

static int pgs_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    const ncp_solver_desc *self = &ncp_solver_pgs;
    const ncp_problem *p = in->prob;
    double omega, stall_tol;
    int local_iter, sweep, rc;
    if ((rc = ncp_solver_param_real(self, in->params, "omega", 0.0, 2.0,
                                    NCP_PARAM_LO_OPEN | NCP_PARAM_HI_OPEN, &omega, err)) ||
        (rc = ncp_solver_param_int(self, in->params, "local_iter", 1, 1000000, &local_iter,
                                   err)) ||
        (rc = ncp_solver_param_real(self, in->params, "stall_tol", 0.0, INFINITY, 0, &stall_tol,
                                    err)) ||
        (rc = ncp_solver_param_int(self, in->params, "sweep", NCP_GS_AUTO, NCP_GS_VELOCITY,
                                   &sweep, err)))
        return rc;

    double *lambda = ncp_calloc(err, (size_t)p->m, sizeof(double));
    double *u = ncp_calloc(err, (size_t)p->m, sizeof(double)); /* D lambda + v_f, kept current */
    double *step = ncp_calloc(err, (size_t)p->nblocks, sizeof(double)); /* 0 = skip the block */
    ncp_gs_vel g = {0};
    if (!lambda || !u || !step)
        rc = NCP_ERR_NOMEM;
    else if ((rc = ncp_gs_vel_setup(&g, p, sweep, u, err)) ||
             (rc = ncp_block_steps_diag(p, g.dblk, step, NULL, err)))
        ncp_error_prefix(err, "pgs: ");
    else {
        ncp_note_gs(run, &g);
        pgs_iterate(in, out, run, omega, local_iter, stall_tol, step, lambda, &g);
    }
    ncp_gs_vel_free(&g);
    free(lambda);
    free(u);
    free(step);
    return rc;
}

const ncp_solver_desc ncp_solver_pgs = {
    .name = "pgs",
    .source = "Lee et al. 2025 §VII baseline; NCP report 2025 Alg. 5 (eqs. 143-145) with Alg. 2 + De Saxcé",
    .summary = "projected Gauss-Seidel on the NCP (De Saxcé-corrected per-contact cone step)",
    .needs = NCP_NEEDS_DUAL_OP,
    .ccp = 0,
    .file = "solvers/pgs.c",
    .params = pgs_params,
    .solve = pgs_solve,
};
