/* pgs-decoupled — projected Gauss–Seidel as Lee et al. 2025's baseline: decoupled normal /
 * tangent steps with a radial friction clamp, the Delassus operator built and timed inside the
 * solver.
 *
 * Source: Lee et al. 2025 §VII ("as a universal baseline, we have implemented the Projected
 * Gauss-Seidel (PGS) solver ... [that] can handle NCP without the need for model relaxation";
 * dual-based, built on the Delassus operator, whose construction "increases superlinearly" with
 * the system size and is part of PGS's cost in Fig. 11, §VII-C); the paper's short version cites
 * Macklin et al. 2014 and Horak & Trinkle 2019 for it. The paper gives nothing else.
 *
 * Why not `pgs`: solvers/pgs.c projects a De Saxcé-corrected block step onto the cone (NCP report
 * 2025 Alg. 5 + Alg. 2), the Euclidean ("proximal") projection. The references and the paper's
 * own NCP machinery use the other form: the normal clamped to >= 0, then the tangent clamped
 * radially onto the disk of radius mu lambda_n (the strict operator, Lee et al. 2025 eq. 17).
 * That is the NCP report 2025's local projector P_NCP (Alg. 3, solvers/local_contact.c), which
 * `pgs-ncp` runs; this solver is the same sweep (solvers/splitting.c, no code of its own)
 * configured as Lee et al. 2025 need it:
 *   per contact k, with u = D lambda + v_f kept current (Gauss–Seidel between contacts):
 *     lambda_n <- max(0, lambda_n - u_n / D_nn)
 *     lambda_t <- radial clamp onto mu lambda_n of (lambda_t - u_t / max(D_t1t1, D_t2t2))
 *   (fixed points: Signorini and Coulomb's maximal dissipation exactly, the NCP).
 * Choices the paper leaves open, and ours:
 *   - the tangential step 1/max(D_t1t1, D_t2t2) (pgs-ncp's tangent_max = 1): one common step for
 *     both tangents keeps the clamped direction along -u_t, and the larger diagonal makes each
 *     1-D step a contraction (the NCP report 2025's 1/min oscillated on 5 of 200 random problems,
 *     see solvers/pgs_ncp.c);
 *   - no relaxation (omega = omega_min = 1: "without the need for model relaxation"; pgs-ncp's
 *     default decays omega to 0.7), one local solve per contact, no De Saxcé term;
 *   - block order of the assembly (bilateral, unilateral, contact, soft; scalar rows by their
 *     exact 1-D solves, as pgs);
 *   - what the sweep needs is rebuilt here from the primal data and counted as setup time, as
 *     the paper counts the dual construction in PGS's cost (pgs and pgs-ncp take the captured
 *     v_f for free): W = D and v_f (ncp_delassus: Cholesky of A, solves for A^{-1} J^T) on the
 *     Delassus routes; v_f, Y = A^{-1} J^T and the diagonal blocks of D on the velocity form;
 *   - warm start from in->lambda0; stop by the harness's tolerance and budgets, own stall test
 *     (a sweep changing lambda by <= stall_tol max(1, |lambda|_inf) ends with STALLED);
 *   - how u = D lambda + v_f follows the sweep (`sweep`, solvers/common.h): by default the
 *     cheaper per sweep of the velocity form on sparse J (O(nnz J + nnz A^{-1} J^T): linear in
 *     the contacts, no D built; bolt-nut: nv = 6, m = 360) and the Delassus operator's route
 *     (D's columns, or F F^T); `sweep=1` reads the assembled D's
 *     nonzeros, O(nnz D) per sweep, the dual PGS the paper describes: "the Delassus operator
 *     becomes large and dense (i.e., many contacts are coupled), which slows down the iteration
 *     scheme" (§VII-A), "the computation time for each Gauss-Seidel iteration step increases near
 *     linearly" with the particles, whose D is sparse (§VII-C). The Lee et al. 2025 study's paper
 *     configuration runs sweep=1 (src/figures/lee2025/study.c); both give the same iterates up to rounding.
 * Parameters (defaults): stall_tol 1e-15, sweep 0 (2: the Delassus operator's route, 3: the
 * velocity form). Needs: primal (A, b, J, e). Solves the NCP.
 */
#include <math.h>
#include <stdlib.h>

#include "solvers/common.h"
#include "core/la.h"
#include "solvers/registry.h"
#include "solvers/splitting.h"

static const ncp_param_doc pgs_decoupled_params[] = {
    NCP_SPLIT_DOC_STALL_TOL,
    NCP_GS_DOC_SWEEP,
    {NULL, 0.0, NULL},
};

static int pgs_decoupled_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run,
                               ncp_error *err)
{
    const ncp_solver_desc *self = &ncp_solver_pgs_decoupled;
    const ncp_problem *p = in->prob;
    ncp_split_opts o;
    ncp_split_defaults(&o);
    o.local = NCP_SPLIT_PNCP;
    o.tangent_max = 1;
    o.omega = o.omega_min = 1.0;
    o.desaxce = 0;
    o.local_iter = 1;
    int rc = ncp_split_params(self, in->params, &o, err); /* stall_tol, sweep */
    if (rc) return rc;
    if (!p->has_primal || !p->A || !p->b || !p->e)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: problem '%s' has no primal data (A, b, J, e)",
                             self->name, p->name ? p->name : "?");
    /* a view of p without its dual data: whatever the route needs is built (and timed) here */
    ncp_problem q = *p;
    q.has_dual = 0;
    q.D = q.vf = NULL;
    q.dop_route = 0;
    ncp_solve_in qin = *in;
    qin.prob = &q;
    int route;
    if ((rc = ncp_gs_vel_route(&q, o.sweep, &route, err))) {
        ncp_error_prefix(err, "%s: ", self->name);
        return rc;
    }
    /* o.sweep stays as asked: the setup makes the same choice on q (D or not) and records it */
    if (route == NCP_GS_VELOCITY) return ncp_split_solve(self, &o, &qin, out, run, err);
    size_t m = (size_t)(p->m > 0 ? p->m : 1);
    double *D = ncp_calloc(err, m * m, sizeof(double));
    double *vf = ncp_calloc(err, m, sizeof(double));
    if (!D || !vf) {
        rc = NCP_ERR_NOMEM;
    } else if ((rc = ncp_delassus(p->nv, p->A, p->b, &p->J, p->e, D, vf, err))) {
        ncp_error_prefix(err, "%s: ", self->name);
    } else {
        q.D = D;
        q.vf = vf;
        q.has_dual = 1;
        rc = ncp_split_solve(self, &o, &qin, out, run, err);
    }
    free(D);
    free(vf);
    return rc;
}

const ncp_solver_desc ncp_solver_pgs_decoupled = {
    .name = "pgs-decoupled",
    .source = "Lee et al. 2025 §VII baseline (refs. Macklin 2014, Horak & Trinkle 2019); sweep of NCP "
              "report 2025 Alg. 5 with Alg. 3",
    .summary = "projected Gauss-Seidel, normal then radially clamped tangent per contact, no "
               "relaxation; Delassus built and timed inside",
    .needs = NCP_NEEDS_PRIMAL,
    .ccp = 0,
    .file = "solvers/pgs_decoupled.c",
    .params = pgs_decoupled_params,
    .solve = pgs_decoupled_solve,
};
