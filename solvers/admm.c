/* admm — ADMM on the cone complementarity problem, with adaptive step, warm start and
 * preconditioning.
 *
 * Source: Tasora et al. 2021, A. Tasora, D. Mangoni, S. Benatti, R. Garziera, "Solving variational
 * inequalities and cone complementarity problems in nonsmooth dynamics using the alternating
 * direction method of multipliers", IJNME 122(16), 2021: Algorithm 1 (eqs. 36-38 with the
 * per-row step of eq. 44), its preconditioned form (eq. 47, §6.1), residual balancing (§5.2,
 * eqs. 41-43) and the warm start of Algorithm 2 (§6.2). The problem, the row types, the two
 * linear-algebra forms (dense Delassus / saddle point on the primal data) and the stopping test
 * are described in solvers/admm_common.h.
 *
 * Solves the CCP (Anitescu's convex relaxation, Tasora et al. 2021 eq. 14), NOT the NCP: a sliding
 * contact's solution has u_n = mu ||u_t|| > 0 (lift-off) where the NCP has u_n = 0, so the
 * harness's NCP natural map stays at the relaxation gap there. Where no contact slides (open,
 * sticking or frictionless contacts, and all non-contact rows) the CCP and NCP solutions agree.
 *
 * Iteration k (Alg. 1, Theta = Theta(rho^k), u = N g + r):
 *   (N + Theta) g^{k+1} = Theta z^k - r - y^k            (eq. 31/47a; saddle form: eq. 32/33a)
 *   z^{k+1} = Pi_Y(g^{k+1} + Theta^{-1} y^k)             (eq. 35/47b)
 *   y^{k+1} = y^k + Theta (g^{k+1} - z^{k+1})            (eq. 38/47c)
 *   r_p = g^{k+1} - z^{k+1},  r_d = Theta (z^{k+1} - z^k)  (eq. 39, Alg. 1 line 7)
 * then g^{k+1} is reported; the CCP natural map at g^{k+1} uses u = -y^{k+1} - r_d (exact: see
 * admm_common.h). Every n_s-th iteration (k = n_s, 2 n_s, ...: the paper's text and Chrono; its
 * listing adapts every iteration) rho is rebalanced and, if it changed, the matrix refactorised.
 * n_s is adapt_every (5, the paper's §8.1 tradeoff). adapt_work > 0 (e.g. 0.5) raises it to
 * ceil(adapt_work F / S) where that is larger (F, S: one factorisation's and one iteration's
 * estimated flops), so that the iterations between two updates do at least adapt_work
 * factorisations' work (ncp_admm_interval in
 * admm_common.h, after the paper's own remark that the optimal n_s grows with the
 * factorisation's cost relative to the back solve). The default 0 is the paper's fixed n_s: on
 * the scaling walls 0.5 changed no measurable k, and on tests/test_admm's random problems it
 * cost iterations (REPORT "Scaling"). The n_s used is in the row's note.
 * Start: warm, Alg. 2 with g^0 = lambda0, y^0 = -(N g^0 + r) (0 on free rows), z^0 = g^0 (not
 * projected, as the paper writes); cold, y^0 = z^0 = 0 (see ncp_admm_start for why not Alg. 2
 * from zero). v0 is not used (Alg. 2 line 2 computes v^0 from g^0; a velocity from elsewhere
 * need not match g^0).
 *
 * Parameters (defaults): rho 0.1 (§6.2), rho_b 1e-9 (§5.3), adapt_every 5 (n_s, §8.1),
 * adapt_work 0 (the paper's n_s; ours above),
 * rho_policy 1 (balanced, eq. 42, the paper's Fig. 3 choice), rho_sqrt 1, max_rho_changes 10
 * (see ncp_admm_balance), precond 1, form 0 (auto), tol_ccp 0 (a tenth of the budget's tol).
 * Needs: dual (D, v_f); the saddle-point form also uses the primal data (A, b, J, e) when present
 * (a block-diagonal sparse A of the simulator's block route too: admm_common.h) and reports the
 * velocity v it produces. The dense form is declined (UNSUPPORTED) above NCP_DENSE_FACTOR_MAX_ROWS
 * rows. Solves the CCP.
 */
#include <math.h>
#include <stdlib.h>

#include "solvers/admm_common.h"
#include "core/la.h"
#include "solvers/registry.h"

static const ncp_param_doc admm_params[] = {
    NCP_ADMM_PARAM_DOCS(0.1, 5.0),
    {NULL, 0.0, NULL},
};

typedef struct admm_vecs {
    double *g, *z, *zold, *y, *u, *rp, *rd, *v;
} admm_vecs;

static int admm_iterate(ncp_admm *a, ncp_run *run, admm_vecs *w, int *kout, int *status,
                        ncp_error *err)
{
    int m = a->m, rc = NCP_OK, k = 0;
    if (ncp_run_setup_done(run)) {
        *kout = 0;
        return NCP_OK;
    }
    for (k = 1;; k++) {
        ncp_copy(m, w->z, w->zold);
        if ((rc = ncp_admm_solve(a, w->z, w->y, w->g, w->v, err))) break;
        ncp_admm_zstep(a, w->g, w->y, w->z);
        for (int i = 0; i < m; i++) {
            w->rp[i] = w->g[i] - w->z[i];
            w->y[i] += a->theta[i] * w->rp[i];
            w->rd[i] = a->theta[i] * (w->z[i] - w->zold[i]);
            w->u[i] = -w->y[i] - w->rd[i]; /* = N g + r */
        }
        if (ncp_admm_report(run, a, k, w->g, w->v, status)) break;
        if (ncp_admm_ccp_residual(a, w->g, w->u) <= a->stop_thresh) {
            *status = NCP_STATUS_STALLED; /* CCP solved: see admm_common.h */
            break;
        }
        if (a->adapt_every > 0 && k % a->adapt_every == 0) {
            double rho = ncp_admm_balance(a, w->rp, w->rd, w->z, w->g, w->y);
            if (rho != a->rho && (rc = ncp_admm_factor(a, rho, err))) break;
        }
    }
    *kout = k;
    return rc;
}

static int admm_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    const ncp_solver_desc *self = &ncp_solver_admm;
    ncp_admm_cfg cfg;
    ncp_admm a;
    admm_vecs w = {0};
    int rc = ncp_admm_read_params(self, in->params, &cfg, err);
    if (rc) return rc;
    rc = ncp_admm_setup(&a, self, in, &cfg, err);
    if (!rc && !a.unsupported) ncp_run_note(run, "%s", a.route);
    if (!rc && a.unsupported) { /* too large for the dense form: the reason is in err */
        ncp_admm_free(&a);
        out->status = NCP_STATUS_UNSUPPORTED;
        out->iterations = 0;
        return NCP_OK;
    }
    int m = in->prob->m, k = 0, status = -1;
    if (!rc) {
        double **vecs[7] = {&w.g, &w.z, &w.zold, &w.y, &w.u, &w.rp, &w.rd};
        for (int i = 0; i < 7 && !rc; i++)
            if (!(*vecs[i] = ncp_calloc(err, (size_t)m, sizeof(double)))) rc = NCP_ERR_NOMEM;
        if (!rc && !(w.v = ncp_calloc(err, (size_t)(a.nv > 0 ? a.nv : 1), sizeof(double))))
            rc = NCP_ERR_NOMEM;
    }
    if (!rc) {
        ncp_admm_start(&a, in->lambda0, w.g, w.y);
        ncp_copy(m, w.g, w.z); /* z^0 = g^0 */
        rc = ncp_admm_factor(&a, cfg.rho0, err);
    }
    if (!rc) {
        rc = admm_iterate(&a, run, &w, &k, &status, err);
        ncp_admm_finish(&a, out, w.g, w.v, k, status);
    }
    ncp_admm_free(&a);
    free(w.g);
    free(w.z);
    free(w.zold);
    free(w.y);
    free(w.u);
    free(w.rp);
    free(w.rd);
    free(w.v);
    return rc;
}

const ncp_solver_desc ncp_solver_admm = {
    .name = "admm",
    .source = "Tasora et al. 2021 Alg. 1-2 (eqs. 31-47): ADMM, adaptive rho, warm start, preconditioning",
    .summary = "ADMM on the CCP relaxation; dense Delassus or saddle-point form, balanced rho",
    .needs = NCP_NEEDS_DUAL_OP | NCP_NEEDS_SYMMETRIC,
    .ccp = 1,
    .file = "solvers/admm.c",
    .params = admm_params,
    .solve = admm_solve,
};
