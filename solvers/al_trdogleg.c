/* al-trdogleg — the AL of Lee et al. 2025 eq. 19 with each surrogate solved by a trust-region
 * dogleg method (Table II, "TRDogleg").
 *
 * Source: Lee et al. 2025 §VII-D1 (ablation of CANAL): the same AL loop as canal (al_common.c)
 * without the cascade: strict operator (eqs. 16-17), true bias e, and the surrogate equation
 *   r(v) = A v - b - sum_i J_i^T T_i(lambda^l_i - beta (J_i v + e_i))        (eq. 19)
 * solved directly. Method: Nocedal & Wright, Numerical Optimization (2nd ed., ref. [48]),
 * Alg. 4.1 (trust region) with the dogleg step of §4.1, applied to nonlinear equations as in §11.2:
 * merit f = 1/2 ||r||^2, Gauss-Newton model m(p) = 1/2 ||r + Jr p||^2, Jr = A + beta sum J_i^T D_i
 * J_i (D_i the strict operator's Jacobian, non-symmetric):
 *   pN = -Jr^{-1} r (LU per connected component), g = Jr^T r, pU = -(||g||^2 / ||Jr g||^2) g;
 *   dogleg: pN if ||pN|| <= Delta; -Delta g/||g|| if ||pU|| >= Delta (or pN unavailable and pU
 *   outside); otherwise pU + tau (pN - pU) on the boundary;
 *   rho = (f(v) - f(v + p)) / (m(0) - m(p)); Delta <- ||p||/4 if rho < 1/4, 2 Delta if rho > 3/4
 *   and the step reached the boundary; the step is accepted if rho > eta.
 * Every trial step is one inner iteration (Alg. 4.1 counts them; a rejected step reuses the LU).
 * The inner solve fails when inner_max trials pass, or Delta shrinks below 1e-15 (1 + ||v||)
 * ("stuck where the merit function cannot be reduced", §VII-D1); the AL loop goes on from the
 * last accepted v.
 * Choices the paper leaves open: Delta_0 = ||pN|| of the loop's first step (the full Newton step
 * is tried first; ||pU|| if pN is unavailable), no upper bound on Delta, eta 1e-4; inner stop as
 * canal; other parameters shared with canal (scale-free beta0, kappa, zeta, theta_N and the
 * start: solvers/canal.c).
 * Accuracy (what tests/test_canal.c checks): on its 40 seeded random problems 36 reach natural
 * map 1e-9 within 300 AL loops; on the other 4 the strict surrogate's inner solves fail (merit
 * stuck) and the iterate does not converge, sometimes diverging (|lambda| growing): the
 * "occasional failure" of Table II, more frequent on these over-constrained random problems than
 * on the paper's dishes. When they converge they need fewer AL loops than canal (no lagged De
 * Saxcé term).
 * Sensitivity to rounding (solvers/al.h, the ablations): about a fifth of the bolt-nut cases
 * (22-24 of 100) fail, different ones when the problem is perturbed at round-off level.
 * Needs: primal. Solves the NCP.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "solvers/al_common.h"
#include "solvers/common.h"
#include "core/la.h"
#include "solvers/registry.h"

static int tr_inner(ncp_al_ws *w, int *ok, ncp_error *err);
static int tr_read_params(const ncp_solver_desc *self, const ncp_params *ps, ncp_al_settings *s,
                          ncp_error *err);

static const ncp_param_doc tr_params[] = {
    NCP_AL_DOC_COMMON("inner loop", "trust-region trial steps"),
    {"eta", 1e-4, "accept a trial step when actual/predicted reduction > eta, in [0, 0.25)"},
    {NULL, 0.0, NULL},
};

/* Eq. 19 (strict operator, true e), each loop's r(v) = 0 by trust-region dogleg steps. */
const ncp_al_config ncp_al_config_trdogleg = {
    .desc = &ncp_solver_al_trdogleg,
    .cascade = 0,
    .read_params = tr_read_params,
    .inner = tr_inner,
};

static int tr_read_params(const ncp_solver_desc *self, const ncp_params *ps, ncp_al_settings *s,
                          ncp_error *err)
{
    return ncp_solver_param_real(self, ps, "eta", 0.0, 0.25, NCP_PARAM_HI_OPEN, &s->tr_eta, err);
}

static double sq(double a) { return a * a; }

static int tr_inner(ncp_al_ws *w, int *ok, ncp_error *err)
{
    int n = w->n, steps = 0, need_jac = 1, newton_ok = 0;
    double delta = -1.0, pn_norm = 0.0, pu_norm = 0.0, g_norm = 0.0;
    double *pN = w->d, *g = w->g, *pU = w->t1, *Jx = w->t2, *trial = w->vt;
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
        if (need_jac) { /* Newton and Cauchy points at the current v */
            ncp_al_jac_apply(w, 1, w->r, g);
            ncp_al_jac_apply(w, 0, g, Jx);
            g_norm = ncp_norm2(n, g);
            double jg2 = ncp_dot(n, Jx, Jx);
            if (jg2 > 0.0) {
                double s = -ncp_dot(n, g, g) / jg2;
                for (int i = 0; i < n; i++) pU[i] = s * g[i];
                pu_norm = ncp_norm2(n, pU);
            } else {
                pu_norm = INFINITY;
            }
            for (int i = 0; i < n; i++) pN[i] = -w->r[i];
            int rc = ncp_al_lin_solve(w, 0, pN, err);
            if (rc && rc != NCP_ERR_NUMERIC) return rc;
            ncp_error_clear(err);
            newton_ok = !rc && ncp_all_finite(n, pN);
            pn_norm = newton_ok ? ncp_norm2(n, pN) : INFINITY;
            if (delta < 0.0) delta = newton_ok ? pn_norm : pu_norm;
            need_jac = 0;
            if (!(g_norm > 0.0) && !newton_ok) { /* stationary point of f, no Newton step */
                *ok = w->rnorm <= w->rfloor;
                break;
            }
        }
        steps++;
        w->st->inner_iterations++;
        /* dogleg step into trial (as p first) */
        if (newton_ok && pn_norm <= delta) {
            ncp_copy(n, pN, trial);
        } else if (pu_norm >= delta) {
            for (int i = 0; i < n; i++) trial[i] = -delta * g[i] / g_norm;
        } else if (!newton_ok) {
            ncp_copy(n, pU, trial);
        } else {
            double a = 0.0, b = 0.0, c = sq(pu_norm) - sq(delta);
            for (int i = 0; i < n; i++) {
                double q = pN[i] - pU[i];
                a += q * q;
                b += 2.0 * pU[i] * q;
            }
            double tau = a > 0.0 ? (-b + sqrt(fmax(0.0, b * b - 4.0 * a * c))) / (2.0 * a) : 0.0;
            for (int i = 0; i < n; i++) trial[i] = pU[i] + tau * (pN[i] - pU[i]);
        }
        double pnorm = ncp_norm2(n, trial);
        ncp_al_jac_apply(w, 0, trial, Jx); /* predicted: m(0) - m(p) */
        double m0 = 0.5 * sq(w->rnorm), mp = 0.0;
        for (int i = 0; i < n; i++) mp += sq(w->r[i] + Jx[i]);
        double pred = m0 - 0.5 * mp;
        ncp_axpy(n, 1.0, w->v, trial);
        ncp_al_eval(w, trial, 0);
        w->st->ls_evals++;
        double ared = m0 - 0.5 * sq(w->rnorm);
        double rho = pred > 0.0 ? ared / pred : -1.0;
        if (rho < 0.25) delta = 0.25 * pnorm;
        else if (rho > 0.75 && pnorm >= delta * (1.0 - 1e-12)) delta = 2.0 * delta;
        int accept = rho > w->set.tr_eta && isfinite(ared);
        ncp_al_notify_step(w, steps, w->v, accept ? trial : w->v, accept ? 1.0 : 0.0,
                           sqrt(2.0 * m0));
        if (accept) {
            ncp_copy(n, trial, w->v);
            ncp_al_eval(w, w->v, 1);
            need_jac = 1;
        } else {
            ncp_al_eval(w, w->v, 0); /* back to v; G is still the one at v */
        }
        if (delta <= 1e-15 * (1.0 + ncp_norm2(n, w->v))) { /* radius collapsed: stuck */
            *ok = w->rnorm <= w->rfloor;
            break;
        }
    }
    return NCP_OK;
}

static int tr_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    return ncp_al_solve(&ncp_al_config_trdogleg, in, out, run, err);
}

const ncp_solver_desc ncp_solver_al_trdogleg = {
    .name = "al-trdogleg",
    .source = "Lee et al. 2025 §VII-D1 Table II (TRDogleg); Nocedal & Wright Alg. 4.1 + dogleg",
    .summary = "AL of eq. 19 (strict operator), each surrogate by trust-region dogleg on "
               "1/2||r||^2",
    .needs = NCP_NEEDS_PRIMAL,
    .ccp = 0,
    .takes_v0 = 1,
    .file = "solvers/al_trdogleg.c",
    .params = tr_params,
    .solve = tr_solve,
};
