/* The semismooth Newton driver of nsn-nm and nsn-fb (see nsn_common.h for the algorithm). */
#include "solvers/nsn_common.h"

#include <math.h>
#include <stdlib.h>

#include "solvers/common.h"
#include "core/la.h"

enum { NSN_HIST = 64, NSN_MAX_BURST = 1 << 20 };

typedef struct nsn_opts {
    double rho_scale, armijo;
    int newton_ls, lm_ls, nonmonotone, window, pgs_burst, rho_cycle;
} nsn_opts;

static int nsn_read_params(const ncp_solver_desc *d, const ncp_params *ps, nsn_opts *o,
                           ncp_error *err)
{
    int rc;
    if ((rc = ncp_solver_param_real(d, ps, "rho_scale", 0.0, INFINITY, NCP_PARAM_LO_OPEN,
                                    &o->rho_scale, err)) ||
        (rc = ncp_solver_param_real(d, ps, "armijo", 0.0, 0.5,
                                    NCP_PARAM_LO_OPEN | NCP_PARAM_HI_OPEN, &o->armijo, err)) ||
        (rc = ncp_solver_param_int(d, ps, "newton_ls", 0, 60, &o->newton_ls, err)) ||
        (rc = ncp_solver_param_int(d, ps, "lm_ls", 0, 60, &o->lm_ls, err)) ||
        (rc = ncp_solver_param_int(d, ps, "nonmonotone", 1, NSN_HIST, &o->nonmonotone, err)) ||
        (rc = ncp_solver_param_int(d, ps, "window", 1, 1000000, &o->window, err)) ||
        (rc = ncp_solver_param_int(d, ps, "pgs_burst", 1, NSN_MAX_BURST, &o->pgs_burst, err)) ||
        (rc = ncp_solver_param_int(d, ps, "rho_cycle", 0, 1, &o->rho_cycle, err)))
        return rc;
    return NCP_OK;
}

typedef struct nsn_ws {
    const ncp_nsn_eq *eq;
    int m;
    double *rho;           /* per block: the equation's scaling */
    double *rho0;          /* per block: rho at rho_scale (the cycle multiplies it) */
    double *gs;            /* per block: Gauss-Seidel step 1/D_rr or 1/lambda_max(D_kk); 0 = skip */
    double *lam, *u, *F;   /* current iterate */
    double *lt, *ut, *Ft;  /* trial iterate */
    double *d, *Jd;        /* direction and J d */
    double *Jm;            /* m x m generalised Jacobian */
    double *W;             /* m x m work: LU copy or J^T J + delta I */
    int *ipiv;
    double theta_ref;      /* nonmonotone reference: max theta over the last iterations */
} nsn_ws;

static void nsn_ws_free(nsn_ws *w)
{
    free(w->rho);
    free(w->rho0);
    free(w->gs);
    free(w->lam);
    free(w->u);
    free(w->F);
    free(w->lt);
    free(w->ut);
    free(w->Ft);
    free(w->d);
    free(w->Jd);
    free(w->Jm);
    free(w->W);
    free(w->ipiv);
}

static int nsn_ws_alloc(nsn_ws *w, const ncp_problem *p, ncp_error *err)
{
    size_t m = (size_t)p->m, mm = m * m, nb = (size_t)p->nblocks;
    w->m = p->m;
    w->rho = ncp_calloc(err, nb, sizeof(double));
    w->rho0 = ncp_calloc(err, nb, sizeof(double));
    w->gs = ncp_calloc(err, nb, sizeof(double));
    w->lam = ncp_calloc(err, m, sizeof(double));
    w->u = ncp_calloc(err, m, sizeof(double));
    w->F = ncp_calloc(err, m, sizeof(double));
    w->lt = ncp_calloc(err, m, sizeof(double));
    w->ut = ncp_calloc(err, m, sizeof(double));
    w->Ft = ncp_calloc(err, m, sizeof(double));
    w->d = ncp_calloc(err, m, sizeof(double));
    w->Jd = ncp_calloc(err, m, sizeof(double));
    w->Jm = ncp_calloc(err, mm, sizeof(double));
    w->W = ncp_calloc(err, mm, sizeof(double));
    w->ipiv = ncp_calloc(err, m, sizeof(int));
    if (!w->rho || !w->rho0 || !w->gs || !w->lam || !w->u || !w->F || !w->lt || !w->ut ||
        !w->Ft || !w->d || !w->Jd || !w->Jm || !w->W || !w->ipiv)
        return NCP_ERR_NOMEM;
    return NCP_OK;
}

void ncp_nsn_dgamma(double mu, const double u[3], double h[2])
{
    double st = hypot(u[1], u[2]);
    h[0] = st > 0.0 ? mu * u[1] / st : 0.0;
    h[1] = st > 0.0 ? mu * u[2] / st : 0.0;
}

/* u = D lambda + v_f and F(lambda) (the equation's rows, the shared bilateral and soft rows
 * here); returns theta = 1/2 |F|^2. */
static double nsn_eval(const ncp_problem *p, nsn_ws *w, const double *lam, double *u, double *F)
{
    int m = p->m;
    const double *rho = w->rho;
    ncp_copy(m, p->vf, u);
    ncp_gemv(0, m, m, 1.0, p->D, lam, 1.0, u);
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int r = b->row;
        switch (b->type) {
        case NCP_BILATERAL:
            F[r] = rho[bi] * u[r];
            break;
        case NCP_SOFT:
            F[r] = lam[r] + b->k * b->phi + b->c * u[r];
            break;
        case NCP_UNILATERAL:
        case NCP_CONTACT:
            w->eq->block_F(b, rho[bi], lam + r, u + r, F + r);
            break;
        default:
            break;
        }
    }
    return 0.5 * ncp_dot(m, F, F);
}

/* Armijo backtracking along w->d from the current iterate: accept the first t = 2^-j,
 * j <= max_halvings, with theta(lam + t d) <= ref + sigma t g (g = F^T J d < 0, ref = the
 * nonmonotone reference, at least theta). On success the trial becomes the current iterate. */
static int nsn_line_search(const ncp_problem *p, nsn_ws *w, double *theta, double g,
                           double sigma, int max_halvings)
{
    double ref = fmax(*theta, w->theta_ref);
    int m = p->m;
    double t = 1.0;
    for (int j = 0; j <= max_halvings; j++, t *= 0.5) {
        for (int i = 0; i < m; i++) w->lt[i] = w->lam[i] + t * w->d[i];
        double th = nsn_eval(p, w, w->lt, w->ut, w->Ft);
        if (isfinite(th) && th <= ref + sigma * t * g) {
            double *s;
            s = w->lam; w->lam = w->lt; w->lt = s;
            s = w->u; w->u = w->ut; w->ut = s;
            s = w->F; w->F = w->Ft; w->Ft = s;
            *theta = th;
            return 1;
        }
    }
    return 0;
}

/* g = F^T J d; returns 1 if d is finite and a descent direction of theta (strict: the De Luca,
 * Facchinei, Kanzow test g <= -1e-8 |d|^2.1). */
static int nsn_descent(nsn_ws *w, int strict, double *g)
{
    int m = w->m;
    if (!ncp_all_finite(m, w->d)) return 0;
    ncp_gemv(0, m, m, 1.0, w->Jm, w->d, 0.0, w->Jd);
    *g = ncp_dot(m, w->F, w->Jd);
    if (!isfinite(*g) || !(*g < 0.0)) return 0;
    return !strict || *g <= -1e-8 * pow(ncp_norm2(m, w->d), 2.1);
}

/* Step 1: Newton by LU. */
static int nsn_newton(const ncp_problem *p, nsn_ws *w, double *theta, const nsn_opts *o)
{
    int m = p->m;
    ncp_error e;
    ncp_error_clear(&e);
    ncp_copy(m * m, w->Jm, w->W);
    for (int i = 0; i < m; i++) w->d[i] = -w->F[i];
    if (ncp_lu_solve(m, w->W, w->ipiv, 1, w->d, &e) != NCP_OK) return 0; /* singular: fall back */
    double g;
    if (!nsn_descent(w, w->eq->strict_descent, &g)) return 0;
    return nsn_line_search(p, w, theta, g, o->armijo, o->newton_ls);
}

/* Step 2: Levenberg–Marquardt on the normal equations, delta = |F| then x100. */
static int nsn_lm(const ncp_problem *p, nsn_ws *w, double *theta, const nsn_opts *o)
{
    int m = p->m;
    double delta = sqrt(2.0 * *theta);
    for (int attempt = 0; attempt < 5; attempt++, delta *= 100.0) {
        ncp_error e;
        ncp_error_clear(&e);
        ncp_gemm(1, 0, m, m, m, 1.0, w->Jm, w->Jm, 0.0, w->W);
        for (int i = 0; i < m; i++) w->W[i + (size_t)i * m] += delta;
        ncp_gemv(1, m, m, -1.0, w->Jm, w->F, 0.0, w->d);
        if (ncp_chol_factor(m, w->W, &e) != NCP_OK) continue;
        if (ncp_chol_solve(m, w->W, 1, w->d, &e) != NCP_OK) continue;
        double g;
        if (!nsn_descent(w, 0, &g)) continue;
        if (nsn_line_search(p, w, theta, g, o->armijo, o->lm_ls)) return 1;
    }
    return 0;
}

/* Step 3: one projected Gauss–Seidel sweep (the pgs update with omega = 1, one local step per
 * contact; soft rows solved exactly), then u and theta recomputed exactly. Returns 1 if the sweep
 * changed lambda by more than 1e-15 max(1, ||lambda||_inf). */
static int nsn_gs_step(const ncp_problem *p, nsn_ws *w, double *theta)
{
    double change = ncp_pgs_sweep(p, w->gs, 1.0, 1, w->lam, w->u);
    int moved = change > 1e-15 * fmax(1.0, ncp_norminf(p->m, w->lam));
    *theta = nsn_eval(p, w, w->lam, w->u, w->F);
    return moved;
}

/* rho = rho0 x 10^c with c the j-th term of 0, 1, -1, 2, -2 (repeating). */
static void nsn_set_rho(const ncp_problem *p, nsn_ws *w, int j)
{
    static const double cycle[5] = {1.0, 10.0, 0.1, 100.0, 0.01};
    double f = cycle[j % 5];
    for (int bi = 0; bi < p->nblocks; bi++) w->rho[bi] = f * w->rho0[bi];
}

int ncp_nsn_solve(const ncp_solver_desc *d, const ncp_nsn_eq *eq, const ncp_solve_in *in,
                  ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    nsn_opts opts, *o = &opts;
    int rc = nsn_read_params(d, in->params, o, err);
    if (rc) return rc;
    const ncp_problem *p = in->prob;
    if ((rc = ncp_solver_need_dual(d, p, err))) return rc;
    int m = p->m;
    if (m > 46340) /* m * m must fit the int lengths of la.h */
        return ncp_error_set(err, NCP_ERR_NOMEM,
                             "%s: problem '%s' has m = %d rows; the dense m x m Newton matrices "
                             "(%.0f MB each) are out of reach, use a first-order solver",
                             d->name, p->name ? p->name : "?", m,
                             (double)m * (double)m * 8.0 / 1e6);
    nsn_ws w = {0};
    w.eq = eq;
    if ((rc = nsn_ws_alloc(&w, p, err))) {
        nsn_ws_free(&w);
        return rc;
    }
    /* Gauss–Seidel steps and rho_b = rho_scale / lambda_max(D_kk) or / D_rr (the largest
     * diagonal entry where that is negligible), see ncp_block_steps. */
    if ((rc = ncp_block_steps(p, w.gs, w.rho0, err))) {
        nsn_ws_free(&w);
        ncp_error_prefix(err, "%s: ", d->name);
        return rc;
    }
    for (int bi = 0; bi < p->nblocks; bi++) w.rho0[bi] = o->rho_scale / w.rho0[bi];
    int cycle = 0;
    nsn_set_rho(p, &w, cycle);

    if (in->lambda0) ncp_copy(m, in->lambda0, w.lam);
    double theta = nsn_eval(p, &w, w.lam, w.u, w.F);

    double hist[NSN_HIST]; /* theta of the last iterations, newest first */
    for (int i = 0; i < NSN_HIST; i++) hist[i] = theta;
    int burst = o->pgs_burst, burst_left = 0, bursting = 0, since = 0, status = -1, k = 0;
    double theta_win = theta;   /* theta at the start of the current stagnation window */
    double theta_phase = theta; /* theta at the start of the current Newton phase */
    int stuck = 0;
    if (ncp_run_setup_done(run) == 0) {
        for (k = 1;; k++) {
            int ok = 0;
            if (burst_left > 0) {
                ok = nsn_gs_step(p, &w, &theta);
                burst_left--;
            } else if (theta > 0.0) {
                w.theta_ref = 0.0;
                for (int i = 0; i < o->nonmonotone; i++) w.theta_ref = fmax(w.theta_ref, hist[i]);
                eq->jacobian(p, w.rho, w.lam, w.u, w.Jm);
                ok = nsn_newton(p, &w, &theta, o) || nsn_lm(p, &w, &theta, o);
                since++;
                if (!ok || (since >= o->window && theta > 0.1 * theta_win)) {
                    /* stuck: this Newton phase did not halve theta (same rho throughout) */
                    stuck = theta > 0.5 * theta_phase;
                    burst_left = burst;
                    bursting = 1;
                    burst = burst < NSN_MAX_BURST / 2 ? 2 * burst : NSN_MAX_BURST;
                    if (!ok) { /* this iteration becomes the burst's first sweep */
                        ok = nsn_gs_step(p, &w, &theta);
                        burst_left--;
                    }
                } else if (since >= o->window) {
                    theta_win = theta;
                    since = 0;
                }
                for (int i = NSN_HIST - 1; i > 0; i--) hist[i] = hist[i - 1];
                hist[0] = theta;
            }
            if (bursting && burst_left == 0) { /* back to Newton: next rho, fresh history */
                if (o->rho_cycle) {
                    nsn_set_rho(p, &w, ++cycle);
                    if (stuck) { /* same basin again: start over from the initial iterate */
                        if (in->lambda0) ncp_copy(m, in->lambda0, w.lam);
                        else ncp_zero(m, w.lam);
                    }
                    theta = nsn_eval(p, &w, w.lam, w.u, w.F);
                }
                for (int i = 0; i < NSN_HIST; i++) hist[i] = theta;
                theta_win = theta_phase = theta;
                since = 0;
                bursting = 0;
            }
            if (!isfinite(theta)) { /* (a non-finite lambda: ncp_solver_iter_end) */
                status = NCP_STATUS_FAILED;
                break;
            }
            if (ncp_solver_iter_end(run, k, m, w.lam, !ok, &status)) break;
        }
    }
    ncp_solver_finish(out, m, w.lam, k, status);
    nsn_ws_free(&w);
    return NCP_OK;
}
