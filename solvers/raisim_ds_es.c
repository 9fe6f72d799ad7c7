/* raisim-ds-es — NCP report 2025's RAISIM-DS-ES: raisim-ds with early stopping on objective plateaus.
 *
 * Source: NCP report 2025 Table I, Alg. 5 with Alg. 4 + bisection + De Saxcé (solvers/raisim_ds.c), whose
 * termination is replaced by the relative objective improvement of eq. 160 (MuJoCo's PGS rule):
 *     r_f = |f(lambda^i) - f(lambda^{i-1})| / I_total <= es_tol,
 *     f(lambda) = 1/2 lambda^T D lambda + lambda^T v_f (eq. 17a), I_total = sum of the diagonal
 *     of the mass matrix A.
 * The text of eq. 160 is garbled; this is its prose ("relative improvement of (17a) scaled by the
 * total diagonal inertia"). The stop is reported as STALLED (the solver's own test); the
 * harness's common metric still ends the run earlier if it reaches tol. Dual-only problems carry
 * no A: I_total is then the `inertia` parameter if set, else m (the trace of the identity mass
 * matrix of the dual-only conversion, docs/design.md).
 *
 * Parameters (defaults): es_tol 1e-8 (MuJoCo's default `tolerance`; the paper gives none),
 * inertia 0 (= tr(A)), omega 1, omega_min 0.7, omega_decay 0.99, bisect_tol 1e-12 rad,
 * local_iter 1, stall_tol 1e-15 (solvers/splitting.h).
 * sweep 0 (the cheaper of the velocity form and D, solvers/common.h). Needs: dual (D, v_f), or
 * the primal data for the velocity form; uses A when present. Warm start: in->lambda0. Solves:
 * the NCP (to the accuracy its early stop allows).
 */
#include "solvers/common.h"
#include "solvers/registry.h"
#include "solvers/splitting.h"

static const ncp_param_doc raisim_ds_es_params[] = {
    {"es_tol", 1e-8, "stop (STALLED) when |f^i - f^(i-1)| / I_total <= es_tol (eq. 160), > 0"},
    {"inertia", 0.0, "I_total of eq. 160; 0: sum of diag(A), or m for dual-only problems"},
    NCP_SPLIT_DOC_OMEGA,
    NCP_SPLIT_DOC_OMEGA_MIN,
    NCP_SPLIT_DOC_OMEGA_DECAY,
    NCP_SPLIT_DOC_BISECT_TOL,
    NCP_SPLIT_DOC_LOCAL_ITER,
    NCP_SPLIT_DOC_STALL_TOL,
    NCP_GS_DOC_SWEEP, {NULL, 0.0, NULL},
};

static int raisim_ds_es_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run,
                              ncp_error *err)
{
    return ncp_split_run(&ncp_solver_raisim_ds_es, NCP_SPLIT_NB, NCP_NB_BISECT, 1,
                         in, out, run, err);
}

const ncp_solver_desc ncp_solver_raisim_ds_es = {
    .name = "raisim-ds-es",
    .source = "NCP report 2025 Table I RAISIM-DS-ES: raisim-ds stopped by eq. 160 (relative objective "
              "improvement)",
    .summary = "raisim-ds with MuJoCo-style early stopping on the objective's relative improvement",
    .needs = NCP_NEEDS_DUAL_OP,
    .ccp = 0,
    .file = "solvers/raisim_ds_es.c",
    .params = raisim_ds_es_params,
    .solve = raisim_ds_es_solve,
};
