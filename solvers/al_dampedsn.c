/* al-dampedsn — the AL of Lee et al. 2025 eq. 19 with each surrogate solved by a damped semismooth
 * Newton method (Table II, "DampedSN").
 *
 * Source: Lee et al. 2025 §VII-D1 (ablation of CANAL): the same AL loop as canal (al_common.c:
 * eq. 12 updates, u = -lambda, the beta schedule of eq. 27) but WITHOUT the cascade: the
 * surrogate keeps the strict operator of eqs. 16-17 and the true bias e, and its equation
 *   r(v) = A v - b - sum_i J_i^T T_i(lambda^l_i - beta (J_i v + e_i))        (eq. 19)
 * is solved directly. Its generalised Jacobian A + beta sum J_i^T D_i J_i (D_i the strict
 * operator's Jacobian, al_common.c) is non-symmetric and may be singular.
 * Method: De Luca, Facchinei, Kanzow, "A semismooth equation approach to the solution of
 * nonlinear complementarity problems" (Math. Prog. 1996, ref. [56]), Alg. 3.1, applied to r:
 * merit Psi = 1/2 ||r||^2, grad Psi = Jr^T r (matrix-free);
 *   d = -Jr^{-1} r by LU (ncp_lu_solve per connected component); if Jr is singular, d is not
 *   finite, or grad Psi^T d > -rho ||d||^p, then d = -grad Psi (the paper's steepest-descent
 *   fallback);
 *   Armijo backtracking: t = 1, 1/2, 1/4, ... until Psi(v + t d) <= Psi(v) + armijo t grad Psi^T d,
 *   at most ls_max halvings. If none is accepted ("stuck in a zone where it cannot effectively
 *   reduce the merit function", §VII-D1) the smallest step t = 2^-ls_max is taken and the
 *   iteration goes on, so a stuck loop spends its inner_max steps and is counted a failure as in
 *   the paper's baseline (which reports inner steps and failures, not aborted loops); ls_abort 1
 *   restores the old behaviour: the loop ends there, failed (62 % of loops on the dishes, which
 *   made the baseline look cheaper than CANAL).
 * Inner stop as canal (al_common.h, ncp_al_eval): ||r|| < theta_N, or r at its round-off level and
 * no longer halving; inner_max steps. One
 * inner iteration = one direction + its line search (Table II counts these).
 * Choices the paper leaves open: rho 1e-8, p 2.1, armijo 1e-4 (DFK's typical values), ls_max
 * 30, ls_abort 0 (DFK's Armijo rule has no cap; the paper gives none); everything else shared
 * with canal (scale-free beta0, kappa, zeta, theta_N and the start: solvers/canal.c).
 * Accuracy (what tests/test_canal.c checks): on its 40 seeded random problems 36 reach natural
 * map 1e-9 within 300 AL loops; on the other 4 the strict surrogate's inner solves fail (merit
 * stuck) and the iterate does not converge, sometimes diverging (|lambda| growing): the
 * "occasional failure" of Table II, more frequent on these over-constrained random problems than
 * on the paper's dishes. When they converge they need fewer AL loops than canal (no lagged De
 * Saxcé term).
 * Sensitivity to rounding (solvers/al.h, the ablations): 2-3 of the 100 bolt-nut cases fail,
 * different ones when the problem is perturbed at round-off level.
 * Needs: primal. Solves the NCP (strict operator: a fixed point satisfies Signorini-Coulomb).
 */
#include <math.h>
#include <stdlib.h>

#include "solvers/al_common.h"
#include "solvers/common.h"
#include "core/la.h"
#include "solvers/registry.h"

static int dsn_inner(ncp_al_ws *w, int *ok, ncp_error *err);
static int dsn_read_params(const ncp_solver_desc *self, const ncp_params *ps, ncp_al_settings *s,
                           ncp_error *err);

static const ncp_param_doc dsn_params[] = {
    NCP_AL_DOC_COMMON("inner loop", "damped Newton steps"),
    {"armijo", 1e-4, "Armijo sufficient-decrease constant on 1/2||r||^2, in (0, 0.5)"},
    {"ls_max", 30.0, "max step halvings per line search (integer >= 1)"},
    {"ls_abort", 0.0,
     "0: when no halving gives Armijo decrease take the smallest step and go on; 1: end the "
     "AL loop's inner solve there (failed)"},
    {"rho", 1e-8, "Newton direction kept if grad^T d <= -rho ||d||^p, else steepest descent; > 0"},
    {"p", 2.1, "exponent of the descent test, > 2"},
    {NULL, 0.0, NULL},
};

/* Eq. 19 (strict operator, true e), each loop's r(v) = 0 by damped semismooth Newton steps. */
const ncp_al_config ncp_al_config_dampedsn = {
    .desc = &ncp_solver_al_dampedsn,
    .cascade = 0,
    .read_params = dsn_read_params,
    .inner = dsn_inner,
};

static int dsn_read_params(const ncp_solver_desc *self, const ncp_params *ps, ncp_al_settings *s,
                           ncp_error *err)
{
    int rc;
    if ((rc = ncp_solver_param_real(self, ps, "armijo", 0.0, 0.5,
                                    NCP_PARAM_LO_OPEN | NCP_PARAM_HI_OPEN, &s->armijo, err)) ||
        (rc = ncp_solver_param_int(self, ps, "ls_max", 1, 1000, &s->ls_max, err)) ||
        (rc = ncp_solver_param_int(self, ps, "ls_abort", 0, 1, &s->ls_abort, err)) ||
        (rc = ncp_solver_param_real(self, ps, "rho", 0.0, INFINITY, NCP_PARAM_LO_OPEN,
                                    &s->dsn_rho, err)) ||
        (rc = ncp_solver_param_real(self, ps, "p", 2.0, INFINITY, NCP_PARAM_LO_OPEN, &s->dsn_p,
                                    err)))
        return rc;
    return NCP_OK;
}

static int dsn_inner(ncp_al_ws *w, int *ok, ncp_error *err)
{
    int n = w->n, steps = 0;
    double prev = INFINITY;
    *ok = 0;
    ncp_al_eval(w, w->v, 1);
    for (;;) {
        if (ncp_al_inner_done(w, prev)) {
            *ok = 1;
            break;
        }
        if (steps >= w->set.inner_max) break;
        prev = w->rnorm;
        steps++;
        w->st->inner_iterations++;
        double psi0 = 0.5 * w->rnorm * w->rnorm;
        ncp_al_jac_apply(w, 1, w->r, w->g); /* grad Psi = Jr^T r */
        for (int i = 0; i < n; i++) w->d[i] = -w->r[i];
        int rc = ncp_al_lin_solve(w, 0, w->d, err);
        if (rc && rc != NCP_ERR_NUMERIC) return rc;
        double dn = ncp_norm2(n, w->d);
        if (rc || !ncp_all_finite(n, w->d) ||
            ncp_dot(n, w->g, w->d) > -w->set.dsn_rho * pow(dn, w->set.dsn_p)) {
            ncp_error_clear(err);
            for (int i = 0; i < n; i++) w->d[i] = -w->g[i];
        }
        double slope = ncp_dot(n, w->g, w->d);
        if (!(slope < 0.0)) { /* grad Psi = 0 away from a zero: a stationary point of Psi */
            *ok = w->rnorm <= w->rfloor;
            break;
        }
        ncp_copy(n, w->v, w->vt);
        double t = 1.0;
        int accepted = 0;
        for (int h = 0; h <= w->set.ls_max; h++) {
            for (int i = 0; i < n; i++) w->t1[i] = w->vt[i] + t * w->d[i];
            ncp_al_eval(w, w->t1, 0);
            w->st->ls_evals++;
            if (0.5 * w->rnorm * w->rnorm <= psi0 + w->set.armijo * t * slope) {
                accepted = 1;
                break;
            }
            if (h < w->set.ls_max) t *= 0.5;
        }
        if (!accepted && w->set.ls_abort) { /* stuck: restore the last iterate, end the loop */
            ncp_al_notify_step(w, steps, w->vt, w->vt, 0.0, sqrt(2.0 * psi0));
            ncp_al_eval(w, w->vt, 0);
            *ok = w->rnorm <= w->rfloor;
            break;
        }
        /* accepted, or (ls_abort 0) the smallest step t = 2^-ls_max: the baseline runs to its
         * inner cap as in the paper instead of giving up the loop */
        ncp_al_notify_step(w, steps, w->vt, w->t1, t, sqrt(2.0 * psi0));
        ncp_copy(n, w->t1, w->v);
        ncp_al_eval(w, w->v, 1); /* derivative at the new point for the next step */
    }
    return NCP_OK;
}

static int dsn_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    return ncp_al_solve(&ncp_al_config_dampedsn, in, out, run, err);
}

const ncp_solver_desc ncp_solver_al_dampedsn = {
    .name = "al-dampedsn",
    .source = "Lee et al. 2025 §VII-D1 Table II (DampedSN); De Luca, Facchinei, Kanzow 1996",
    .summary = "AL of eq. 19 (strict operator), each surrogate by damped semismooth Newton with "
               "Armijo backtracking on 1/2||r||^2",
    .needs = NCP_NEEDS_PRIMAL,
    .ccp = 0,
    .takes_v0 = 1,
    .file = "solvers/al_dampedsn.c",
    .params = dsn_params,
    .solve = dsn_solve,
};
