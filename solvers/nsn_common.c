/* The semismooth Newton driver of nsn-nm and nsn-fb (see nsn_common.h for the algorithm). */
#include "solvers/nsn_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/common.h"
#include "solvers/nsn_dsparse.h"
#include "solvers/nsn_sparse.h"
#include "core/la.h"

enum { NSN_HIST = 64, NSN_MAX_BURST = 1 << 20 };

/* The Newton matrix's routes (parameter route). */
enum { NSN_ROUTE_AUTO = 0, NSN_ROUTE_D = 1, NSN_ROUTE_SADDLE = 2, NSN_ROUTE_DSPARSE = 3 };

/* Time per estimated flop of a sparse route's Newton step over the dense LU's (reference
 * LAPACK, both on the thread's CPU clock): a sparse route is taken when its factor x its
 * estimated flops per Newton step are the least. Measured (nsn_common.h). */
#define NSN_SPARSE_FLOP 4.0
#define NSN_DSPARSE_FLOP 2.0

typedef struct nsn_opts {
    double rho_scale, armijo;
    int newton_ls, lm_ls, nonmonotone, window, pgs_burst, rho_cycle, route;
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
        (rc = ncp_solver_param_int(d, ps, "rho_cycle", 0, 1, &o->rho_cycle, err)) ||
        (rc = ncp_solver_param_int(d, ps, "route", 0, 3, &o->route, err)))
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
    double *rhs;           /* -F */
    double *P, *Q;         /* J = P + Q D in block storage (3 m, nsn_common.h) */
    ncp_dop op;            /* D: dense or F F^T */
    ncp_nsn_lowrank lr;    /* low-rank route (op.rank > 0) */
    int sparse;            /* 1: a sparse route; no dense D, no m x m matrix */
    int dform;             /* on it, 1: J on D's block pattern (nsn_dsparse.h); 0: the saddle
                            * form (nsn_sparse.h) */
    ncp_nsn_sparse sp;     /* the saddle-point systems */
    ncp_nsn_dsparse dsp;   /* J on D's pattern */
    ncp_gs_vel gv;         /* its Gauss-Seidel bursts in velocity form (solvers/common.h) */
    ncp_problem dview;     /* D route on a problem that keeps no D: the problem with D built in
                            * the setup (ncp_problem_dual_view), D_own its allocation */
    double *D_own;
    double *Jm;            /* m x m generalised Jacobian (dense route) */
    double *W;             /* m x m work: LU copy or J^T J + delta I (dense route) */
    int *ipiv;
    double theta_ref;      /* nonmonotone reference: max theta over the last iterations */
    int n_lm;              /* Levenberg-Marquardt factorisations tried (the run's note) */
    int rank_max;          /* a bound on rank D: nv with primal data, else m (no bound) */
    int singular;          /* J singular by count at the current iterate (nsn_jacobian) */
    int n_singular;        /* Newton iterations where it was (the run's note) */
    int unsupported;       /* nsn_ws_alloc declined the problem (too large): UNSUPPORTED */
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
    free(w->rhs);
    free(w->P);
    free(w->Q);
    ncp_nsn_lowrank_free(&w->lr);
    ncp_nsn_sparse_free(&w->sp);
    ncp_nsn_dsparse_free(&w->dsp);
    ncp_gs_vel_free(&w->gv);
    ncp_dop_free(&w->op);
    free(w->D_own);
    free(w->Jm);
    free(w->W);
    free(w->ipiv);
}

/* Whether the D route will be the low-rank one (ncp_dop_init's NCP_DOP_AUTO: decided for the
 * problem, or dense primal data of nv <= m / 4 not yet checked). */
static int nsn_lowrank_likely(const ncp_problem *p)
{
    return p->dop_route == 1 ||
           (p->dop_route == 0 && p->has_primal && p->A && 4 * (double)p->nv <= p->m);
}

/* Builds the Delassus operator (the sparse route: J A^-1 J^T over A's blocks; the D route:
 * NCP_DOP_AUTO) and allocates for its route; the m x m matrices only on the dense route. */
static int nsn_ws_alloc(nsn_ws *w, const ncp_problem *p, ncp_error *err)
{
    size_t m = (size_t)p->m, nb = (size_t)p->nblocks;
    int rc;
    w->m = p->m;
    int big = !w->sparse && p->m > NCP_DENSE_FACTOR_MAX_ROWS;
    if ((!big || nsn_lowrank_likely(p)) &&
        (rc = ncp_dop_init(&w->op, p, w->sparse ? NCP_DOP_SPARSE : NCP_DOP_AUTO, err)))
        return rc;
    if (big && !w->op.rank) {
        w->unsupported = 1; /* declined, not failed (solvers/common.h) */
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "problem '%s' has m = %d rows; each Newton step would multiply and "
                             "factorise dense m x m matrices (%.2g flops, %.0f MB each), above the "
                             "%d-row limit: use a first-order solver, or the sparse route "
                             "(route = 2: primal data and UMFPACK)",
                             p->name ? p->name : "?", p->m, (double)m * (double)m * (double)m,
                             (double)m * (double)m * 8.0 / 1e6, NCP_DENSE_FACTOR_MAX_ROWS);
    }
    size_t mm = w->op.rank || w->sparse ? 0 : m * m;
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
    w->rhs = ncp_calloc(err, m, sizeof(double));
    w->P = ncp_calloc(err, 3 * m, sizeof(double));
    w->Q = ncp_calloc(err, 3 * m, sizeof(double));
    w->Jm = ncp_calloc(err, mm, sizeof(double));
    w->W = ncp_calloc(err, mm, sizeof(double));
    w->ipiv = ncp_calloc(err, m, sizeof(int));
    if (!w->rho || !w->rho0 || !w->gs || !w->lam || !w->u || !w->F || !w->lt || !w->ut ||
        !w->Ft || !w->d || !w->Jd || !w->rhs || !w->P || !w->Q || (mm && (!w->Jm || !w->W)) ||
        !w->ipiv)
        return NCP_ERR_NOMEM;
    if (w->sparse)
        return w->dform ? ncp_nsn_dsparse_init_lm(&w->dsp, err) : ncp_nsn_sparse_init_lm(&w->sp, err);
    if (w->op.rank) return ncp_nsn_lowrank_init(&w->lr, p, &w->op, err);
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
    ncp_dop_apply(&w->op, 1.0, lam, 1.0, u);
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

static int nsn_block_rows(const ncp_block *b) { return b->type == NCP_CONTACT ? 3 : 1; }

/* J = P + Q D at the current iterate: P, Q in block storage (bilateral rows P = 0, Q = rho; soft
 * rows P = 1, Q = c; the others from the equation), then on the dense route Jm = P + Q D and on
 * the low-rank route U = Q F. */
static void nsn_jacobian(const ncp_problem *p, nsn_ws *w)
{
    const int m = p->m;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int r = b->row;
        double *P = w->P + 3 * (size_t)r, *Q = w->Q + 3 * (size_t)r;
        switch (b->type) {
        case NCP_BILATERAL:
            P[0] = 0.0;
            Q[0] = w->rho[bi];
            break;
        case NCP_SOFT:
            P[0] = 1.0;
            Q[0] = b->c;
            break;
        case NCP_UNILATERAL:
        case NCP_CONTACT:
            w->eq->block_jac(b, w->rho[bi], w->lam + r, w->u + r, P, Q);
            break;
        default:
            P[0] = Q[0] = 0.0;
            break;
        }
    }
    /* Rows whose P block is 0 (bilateral rows, and the equation's: the natural map's sticking
     * contacts and active unilateral rows) are rows of Q D, so they lie in D's row space, of
     * dimension rank D <= nv: more of them than that make J singular, exactly and on every route
     * (nsn_common.h, "Singular by count"). */
    int zero_rows = 0;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        const int n = nsn_block_rows(b);
        const double *P = w->P + 3 * (size_t)b->row;
        int zero = b->type == NCP_BILATERAL || b->type == NCP_UNILATERAL ||
                   b->type == NCP_CONTACT;
        for (int i = 0; zero && i < n * n; i++) zero = P[i] == 0.0;
        if (zero) zero_rows += n;
    }
    w->singular = zero_rows > w->rank_max;
    /* the blocks whose Q leaves out rho (ncp_nsn_eq.q_without_rho): scale per block */
    const int scaled = w->eq->q_without_rho;
    if (w->op.rank || w->sparse) {
        for (int bi = 0; scaled && bi < p->nblocks; bi++) {
            const ncp_block *b = &p->blocks[bi];
            if (b->type != NCP_UNILATERAL && b->type != NCP_CONTACT) continue;
            int n = nsn_block_rows(b);
            ncp_scal(n * n, w->rho[bi], w->Q + 3 * (size_t)b->row);
        }
        if (w->sparse && w->dform)
            ncp_nsn_dsparse_set(&w->dsp, w->P, w->Q);
        else if (w->sparse)
            ncp_nsn_sparse_set(&w->sp, w->P, w->Q);
        else
            ncp_nsn_lowrank_set(&w->lr, w->P, w->Q);
        return;
    }
    const double *D = p->D;
    double *Jm = w->Jm;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int r = b->row, n = nsn_block_rows(b);
        const double *P = w->P + 3 * (size_t)r, *Q = w->Q + 3 * (size_t)r;
        if (b->type != NCP_BILATERAL && b->type != NCP_SOFT && b->type != NCP_UNILATERAL &&
            b->type != NCP_CONTACT)
            n = 1; /* rows of an unknown type stay 0, as P = Q = 0 says */
        const double qs = scaled && (b->type == NCP_UNILATERAL || b->type == NCP_CONTACT)
                              ? w->rho[bi] : 1.0;
        for (int c = 0; c < m; c++) {
            const double *Dc = D + (size_t)c * m + r; /* D(r..r+n-1, c) */
            for (int i = 0; i < n; i++) {
                double s = 0.0;
                for (int j = 0; j < n; j++) s += Q[i + n * j] * Dc[j];
                Jm[r + i + (size_t)c * m] = qs * s;
            }
        }
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) Jm[r + i + (size_t)(r + j) * m] += P[i + n * j];
    }
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
    if (w->sparse && w->dform)
        ncp_nsn_dsparse_apply(&w->dsp, w->d, w->Jd);
    else if (w->sparse)
        ncp_nsn_sparse_apply(&w->sp, w->d, w->Jd);
    else if (w->op.rank)
        ncp_nsn_lowrank_apply(&w->lr, w->d, w->Jd);
    else
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
    if (w->singular) return 0; /* singular by count: no factorisation can give the step */
    for (int i = 0; i < m; i++) w->rhs[i] = -w->F[i];
    if (w->sparse && w->dform) {
        if (!ncp_nsn_dsparse_newton(&w->dsp, w->rhs, w->d)) return 0; /* singular: fall back */
    } else if (w->sparse) {
        if (!ncp_nsn_sparse_newton(&w->sp, w->rhs, w->d)) return 0; /* singular: fall back */
    } else if (w->op.rank) {
        if (!ncp_nsn_lowrank_newton(&w->lr, w->rhs, w->d)) return 0; /* singular: fall back */
    } else {
        ncp_copy(m * m, w->Jm, w->W);
        ncp_copy(m, w->rhs, w->d);
        if (ncp_lu_solve(m, w->W, w->ipiv, 1, w->d, &e) != NCP_OK) return 0; /* singular */
    }
    double g;
    if (!nsn_descent(w, w->eq->strict_descent, &g)) return 0;
    return nsn_line_search(p, w, theta, g, o->armijo, o->newton_ls);
}

/* Step 2: Levenberg–Marquardt on the normal equations, delta = |F| / max(1, |F_phase|) then
 * x100, with theta_phase = 1/2 |F_phase|^2 at the start of the Newton phase (nsn_common.h). */
static int nsn_lm(const ncp_problem *p, nsn_ws *w, double *theta, double theta_phase,
                  const nsn_opts *o)
{
    int m = p->m;
    double delta = sqrt(*theta / fmax(0.5, theta_phase));
    for (int attempt = 0; attempt < 5; attempt++, delta *= 100.0) {
        w->n_lm++;
        if (w->sparse) {
            for (int i = 0; i < m; i++) w->rhs[i] = -w->F[i];
            if (!(w->dform ? ncp_nsn_dsparse_lm(&w->dsp, delta, w->rhs, w->d)
                           : ncp_nsn_sparse_lm(&w->sp, delta, w->rhs, w->d)))
                continue;
        } else if (w->op.rank) {
            for (int i = 0; i < m; i++) w->rhs[i] = -w->F[i];
            if (!ncp_nsn_lowrank_lm(&w->lr, delta, w->rhs, w->d)) continue;
        } else {
            ncp_error e;
            ncp_error_clear(&e);
            ncp_gemm(1, 0, m, m, m, 1.0, w->Jm, w->Jm, 0.0, w->W);
            for (int i = 0; i < m; i++) w->W[i + (size_t)i * m] += delta;
            ncp_gemv(1, m, m, -1.0, w->Jm, w->F, 0.0, w->d);
            if (ncp_chol_factor(m, w->W, &e) != NCP_OK) continue;
            if (ncp_chol_solve(m, w->W, 1, w->d, &e) != NCP_OK) continue;
        }
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
    double change;
    if (w->sparse) { /* velocity form: u is current on entry (nsn_eval), J A^-1 J^T its D */
        w->gv.u = w->u;
        change = ncp_pgs_sweep_vel(p, &w->gv, w->gs, 1.0, 1, w->lam);
    } else {
        change = ncp_pgs_sweep(p, w->gs, 1.0, 1, w->lam, w->u);
    }
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

/* Estimated flops of one Newton step on the D route: the low-rank route's O(m r^2) (U = Q F, E,
 * the SVDs of the P blocks, F^T E, the reduced LU and the refinement, nsn_common.h), else forming
 * J = P + Q D (6 m^2) and its LU ((2/3) m^3). */
static double nsn_d_route_flops(const ncp_problem *p)
{
    const double m = p->m, r = p->nv;
    if (nsn_lowrank_likely(p)) return 2.0 * m * r * r + 30.0 * m * r + 70.0 * m + 6.0 * r * r * r;
    return 2.0 / 3.0 * m * m * m + 6.0 * m * m;
}

int ncp_nsn_route_auto(const ncp_problem *p, ncp_dop *op, int full, ncp_nsn_route_est *r,
                       ncp_nsn_sparse *sp, ncp_nsn_dsparse *dsp, ncp_error *err)
{
    static const double factor[2] = {NSN_SPARSE_FLOP, NSN_DSPARSE_FLOP};
    memset(sp, 0, sizeof *sp);
    memset(dsp, 0, sizeof *dsp);
    r->d = nsn_d_route_flops(p);
    r->route = NSN_ROUTE_D;
    for (int f = 0; f < 2; f++) {
        r->est[f] = INFINITY;
        r->analysed[f] = 0;
        int rc = f ? ncp_nsn_dsparse_flops_bound(p, &r->bound[f], err)
                   : ncp_nsn_sparse_flops_bound(p, &r->bound[f], err);
        if (rc == NCP_ERR_NOMEM) return rc;
        if (rc) ncp_error_clear(err); /* a form that cannot be built is left out */
        r->bound[f] *= factor[f];
    }
    /* The least estimate wins, ties going to the D route, then the saddle form (the order of
     * the comparisons of the full choice). A form is analysed, least bound first, unless its
     * bound cannot win against the estimates known by then: that choice equals the full one. */
    const int first = r->bound[1] < r->bound[0];
    for (int i = 0; i < 2; i++) {
        const int f = i ? !first : first;
        if (!isfinite(r->bound[f])) continue;
        const double other = r->est[!f];
        const int beaten = f ? !(r->bound[f] < fmin(r->d, other))
                             : !(r->bound[f] < r->d) || r->bound[f] > other;
        if (beaten && !full) continue;
        int rc = f ? ncp_nsn_dsparse_init(dsp, p, err) : ncp_nsn_sparse_init(sp, p, op, err);
        if (rc == NCP_ERR_NOMEM) return rc;
        if (rc) {
            ncp_error_clear(err);
            continue;
        }
        r->analysed[f] = 1;
        r->est[f] = factor[f] * (f ? ncp_nsn_dsparse_flops(dsp) : ncp_nsn_sparse_flops(sp));
    }
    const int f = r->est[1] < r->est[0];
    if (r->est[f] < r->d) r->route = f ? NSN_ROUTE_DSPARSE : NSN_ROUTE_SADDLE;
    /* only the chosen form stays */
    if (r->route != NSN_ROUTE_SADDLE) ncp_nsn_sparse_free(sp);
    if (r->route != NSN_ROUTE_DSPARSE) ncp_nsn_dsparse_free(dsp);
    return NCP_OK;
}

/* The estimate of form f (0 saddle, 1 sparse D) for the note: its value, or its bound when it
 * was not analysed. */
static void nsn_note_est(const ncp_nsn_route_est *r, int f, char *s, size_t size)
{
    if (r->analysed[f]) snprintf(s, size, "%.2g", r->est[f]);
    else if (isfinite(r->bound[f])) snprintf(s, size, "not analysed (>= %.2g)", r->bound[f]);
    else snprintf(s, size, "not buildable");
}

/* The Newton matrix's route (parameter route, nsn_common.h): sets w->sparse and w->dform, with
 * w->sp or w->dsp analysed on a sparse route, and the note that records the choice and the
 * estimates it was made on. */
static int nsn_choose_route(const ncp_solver_desc *d, const ncp_problem *p, int want, nsn_ws *w,
                            char *note, size_t size, ncp_error *err)
{
    const char *name = p->name ? p->name : "?";
    int primal = ((p->has_primal && p->A) || (p->has_sparse_primal && p->A_sparse.rowptr)) &&
                 p->J.rowptr && p->J.m == p->m && p->J.n == p->nv && p->nv > 0 && p->e;
    double dense = nsn_d_route_flops(p);
    const char *dname = nsn_lowrank_likely(p) ? "low rank" : "dense";
    w->sparse = w->dform = 0;
    snprintf(note, size, "Newton matrix from D (%s): est. %.2g flops/step", dname, dense);
    if (want == NSN_ROUTE_D) {
        if (!p->has_dual && !primal)
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: route = 1 needs D or the primal data "
                                 "to build it; problem '%s' has neither", d->name, name);
        snprintf(note, size, "Newton matrix from D (%s, as asked)", dname);
        return NCP_OK;
    }
    if ((want == NSN_ROUTE_SADDLE || want == NSN_ROUTE_DSPARSE) && !primal)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: route = %d (sparse Newton matrix) needs "
                             "the primal data A and J; problem '%s' has only D", d->name, want,
                             name);
    int rc;
    if (want != NSN_ROUTE_AUTO) { /* the form asked for, analysed */
        w->sparse = 1;
        w->dform = want == NSN_ROUTE_DSPARSE;
        if ((rc = w->dform ? ncp_nsn_dsparse_init(&w->dsp, p, err)
                           : ncp_nsn_sparse_init(&w->sp, p, &w->op, err)))
            return rc;
        const double est = w->dform ? NSN_DSPARSE_FLOP * ncp_nsn_dsparse_flops(&w->dsp)
                                    : NSN_SPARSE_FLOP * ncp_nsn_sparse_flops(&w->sp);
        snprintf(note, size, "Newton matrix %s (UMFPACK): est. %.2g flops/step x time per flop "
                 "(D route %s %.2g), as asked", w->dform ? "sparse on D's pattern"
                 : "sparse saddle form", est, dname, dense);
        return NCP_OK;
    }
    /* automatic: only where J A^-1 J^T is the problem's D (no D kept, or the operator's check
     * found them equal: a D given by a file may be regularised) */
    if (!primal || !ncp_splu_available() || (p->has_dual && p->D && p->dop_route <= 0))
        return NCP_OK;
    ncp_nsn_route_est r;
    if ((rc = ncp_nsn_route_auto(p, &w->op, 0, &r, &w->sp, &w->dsp, err))) return rc;
    char sad[48], dsp[48];
    nsn_note_est(&r, 0, sad, sizeof sad);
    nsn_note_est(&r, 1, dsp, sizeof dsp);
    if (r.route == NSN_ROUTE_D) {
        if (isfinite(r.bound[0]) || isfinite(r.bound[1]))
            snprintf(note, size, "Newton matrix from D (%s): est. %.2g flops/step (x time per "
                     "flop: sparse D form %s, saddle form %s)", dname, dense, dsp, sad);
        return NCP_OK;
    }
    w->sparse = 1;
    w->dform = r.route == NSN_ROUTE_DSPARSE;
    snprintf(note, size, "Newton matrix %s (UMFPACK): est. %.2g flops/step x time per flop "
             "(%s form %s, D route %s %.2g)", w->dform ? "sparse on D's pattern" : "sparse "
             "saddle form", r.est[w->dform], w->dform ? "saddle" : "sparse D",
             w->dform ? sad : dsp, dname, dense);
    return NCP_OK;
}

int ncp_nsn_solve(const ncp_solver_desc *d, const ncp_nsn_eq *eq, const ncp_solve_in *in,
                  ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    nsn_opts opts, *o = &opts;
    int rc = nsn_read_params(d, in->params, o, err);
    if (rc) return rc;
    const ncp_problem *p = in->prob;
    if ((rc = ncp_solver_need_dual_op(d, p, err))) return rc;
    int m = p->m;
    nsn_ws w = {0};
    w.eq = eq;
    char note[256];
    if ((rc = nsn_choose_route(d, p, o->route, &w, note, sizeof note, err))) {
        nsn_ws_free(&w);
        return rc;
    }
    if (!w.sparse && (!p->has_dual || !p->D)) {
        /* the D route on a problem that keeps no D: D built here (setup), unless the dense route
         * would decline the problem anyway (nsn_ws_alloc) */
        if (!(m > NCP_DENSE_FACTOR_MAX_ROWS && !nsn_lowrank_likely(p)) &&
            (rc = ncp_problem_dual_view(p, &w.dview, &w.D_own, err))) {
            nsn_ws_free(&w);
            return ncp_error_prefix(err, "%s: ", d->name), rc;
        }
        if (w.D_own || w.dview.D) p = &w.dview;
    }
    if ((rc = nsn_ws_alloc(&w, p, err))) {
        int declined = w.unsupported;
        nsn_ws_free(&w);
        ncp_error_prefix(err, "%s: ", d->name);
        if (!declined) return rc;
        out->status = NCP_STATUS_UNSUPPORTED; /* the reason stays in err, as admm's */
        out->iterations = 0;
        return NCP_OK;
    }
    /* a bound on rank D for the count in nsn_jacobian: J A^-1 J^T on the sparse routes and for
     * a D built here from the primal data, rank F on the low-rank route; none (m) for a D given
     * by a file, which may be regularised */
    w.rank_max = w.sparse || p == &w.dview ? p->nv : w.op.rank > 0 ? w.op.rank : m;
    ncp_run_note(run, "%s", note);
    ncp_note_dop(run, &w.op);
    /* Gauss–Seidel steps and rho_b = rho_scale / lambda_max(D_kk) or / D_rr (the largest
     * diagonal entry where that is negligible), see ncp_block_steps; on the sparse route from
     * the diagonal blocks J_k A^-1 J_k^T of the velocity form, which the bursts sweep. */
    if (w.sparse)
        rc = ncp_gs_vel_setup(&w.gv, p, NCP_GS_VELOCITY, w.u, err);
    if (!rc && w.sparse && w.dform) rc = ncp_nsn_dsparse_set_d(&w.dsp, &w.gv.Y, err);
    if (!rc)
        rc = w.sparse ? ncp_block_steps_diag(p, w.gv.dblk, w.gs, w.rho0, err)
                      : ncp_block_steps(p, w.gs, w.rho0, err);
    if (rc) {
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
    int n_newton = 0, n_sweep = 0; /* for the run's note */
    if (ncp_run_setup_done(run) == 0) {
        for (k = 1;; k++) {
            int ok = 0;
            if (burst_left > 0) {
                ok = nsn_gs_step(p, &w, &theta);
                burst_left--;
                n_sweep++;
            } else if (theta > 0.0) {
                n_newton++;
                w.theta_ref = 0.0;
                for (int i = 0; i < o->nonmonotone; i++) w.theta_ref = fmax(w.theta_ref, hist[i]);
                nsn_jacobian(p, &w);
                w.n_singular += w.singular;
                ok = nsn_newton(p, &w, &theta, o) || nsn_lm(p, &w, &theta, theta_phase, o);
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
                        n_sweep++;
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
    /* What the iterations were (scripts/bench_scaling.py times a Newton iteration from it): a
     * Newton iteration factorises the Newton matrix once and, when that step fails, the LM
     * matrix up to 5 times, and when those fail too it also makes the burst's first sweep; the
     * other iterations are the bursts' sweeps or (theta = 0) empty. So Newton iterations <=
     * iterations <= Newton iterations + sweeps (no sweep: all iterations Newton's or empty). */
    ncp_run_note(run, "Newton iterations %d (+%d LM factorisations), Gauss-Seidel sweeps %d",
                 n_newton, w.n_lm, n_sweep);
    if (w.n_singular)
        ncp_run_note(run, "Newton matrix singular by count (rows with P_b = 0 > rank D <= %d) on "
                     "%d of them: LM without a Newton factorisation", w.rank_max, w.n_singular);
    ncp_solver_finish(out, m, w.lam, k, status);
    nsn_ws_free(&w);
    return NCP_OK;
}

/* ---------- the low-rank route: J = P + Q F F^T (formulas in nsn_common.h) ---------- */

void ncp_nsn_lowrank_free(ncp_nsn_lowrank *w)
{
    if (!w) return;
    free(w->U);
    free(w->FtF);
    free(w->E);
    free(w->d0);
    free(w->Cr);
    free(w->Cc);
    free(w->Nv);
    free(w->Nrow);
    free(w->Z);
    free(w->Y);
    free(w->T);
    free(w->M);
    free(w->rhs);
    free(w->t);
    free(w->ipiv);
    free(w->Bf);
    free(w->Wb);
    free(w->Vb);
    free(w->Sb);
    free(w->v);
    memset(w, 0, sizeof *w);
}

int ncp_nsn_lowrank_init(ncp_nsn_lowrank *w, const ncp_problem *p, const ncp_dop *op,
                         ncp_error *err)
{
    memset(w, 0, sizeof *w);
    if (op->rank <= 0 || op->m != p->m)
        return ncp_error_set(err, NCP_ERR_INPUT, "low-rank Newton matrix: the Delassus operator "
                             "of problem '%s' is not low rank", p->name ? p->name : "?");
    const size_t m = (size_t)p->m, r = (size_t)op->rank, q = 2 * r;
    w->p = p;
    w->op = op;
    w->m = p->m;
    w->r = op->rank;
    w->U = ncp_malloc(err, m * r, sizeof(double));
    w->FtF = ncp_malloc(err, r * r, sizeof(double));
    w->E = ncp_malloc(err, m * r, sizeof(double));
    w->d0 = ncp_malloc(err, m, sizeof(double));
    w->Cr = ncp_malloc(err, r * r, sizeof(double));
    w->Cc = ncp_malloc(err, r * r, sizeof(double));
    w->Nv = ncp_malloc(err, 3 * r, sizeof(double));
    w->Nrow = ncp_malloc(err, r, sizeof(int));
    w->Z = ncp_malloc(err, m * q, sizeof(double));
    w->Y = ncp_malloc(err, m * q, sizeof(double));
    w->T = ncp_malloc(err, 4 * r * r, sizeof(double));
    w->M = ncp_malloc(err, 4 * r * r, sizeof(double));
    w->rhs = ncp_malloc(err, 2 * r, sizeof(double));
    w->t = ncp_malloc(err, 3 * q, sizeof(double));
    w->ipiv = ncp_malloc(err, 2 * r, sizeof(int));
    w->Bf = ncp_malloc(err, 3 * m, sizeof(double));
    w->Wb = ncp_malloc(err, 3 * m, sizeof(double));
    w->Vb = ncp_malloc(err, 3 * m, sizeof(double));
    w->Sb = ncp_malloc(err, m, sizeof(double));
    w->v = ncp_malloc(err, 2 * m, sizeof(double));
    if (!w->Bf || !w->Wb || !w->Vb || !w->Sb || !w->v || !w->U || !w->FtF || !w->E || !w->d0 || !w->Cr || !w->Cc || !w->Nv || !w->Nrow || !w->Z ||
        !w->Y || !w->T || !w->M || !w->rhs || !w->t || !w->ipiv) {
        ncp_nsn_lowrank_free(w);
        return NCP_ERR_NOMEM;
    }
    ncp_gemm(1, 0, w->r, w->r, w->m, 1.0, op->F, op->F, 0.0, w->FtF);
    return NCP_OK;
}

void ncp_nsn_lowrank_set(ncp_nsn_lowrank *w, const double *P, const double *Q)
{
    const int m = w->m, r = w->r;
    const double *F = w->op->F;
    w->P = P;
    w->Q = Q;
    for (int bi = 0; bi < w->p->nblocks; bi++) {
        const ncp_block *b = &w->p->blocks[bi];
        const int r0 = b->row, n = nsn_block_rows(b);
        const double *Qb = Q + 3 * (size_t)r0;
        for (int c = 0; c < r; c++)
            for (int i = 0; i < n; i++) {
                double s = 0.0;
                for (int j = 0; j < n; j++) s += Qb[i + n * j] * F[r0 + j + (size_t)c * m];
                w->U[r0 + i + (size_t)c * m] = s;
            }
    }
}

/* y = J x (trans 0) or J^T x = P^T x + F U^T x (trans 1) */
static void lr_apply_op(ncp_nsn_lowrank *w, int trans, const double *x, double *y)
{
    const int m = w->m, r = w->r;
    ncp_gemv(1, m, r, 1.0, trans ? w->U : w->op->F, x, 0.0, w->t);
    ncp_gemv(0, m, r, 1.0, trans ? w->op->F : w->U, w->t, 0.0, y);
    for (int bi = 0; bi < w->p->nblocks; bi++) {
        const ncp_block *b = &w->p->blocks[bi];
        const int r0 = b->row, n = nsn_block_rows(b);
        const double *Pb = w->P + 3 * (size_t)r0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                y[r0 + i] += (trans ? Pb[j + n * i] : Pb[i + n * j]) * x[r0 + j];
    }
}

void ncp_nsn_lowrank_apply(ncp_nsn_lowrank *w, const double *x, double *y)
{
    lr_apply_op(w, 0, x, y);
}

/* A = W diag(s) V^T for n <= 3 (A, W, V n x n column-major) by one-sided Jacobi (Hestenes
 * 1958; Demmel & Veselić 1992 for its relative accuracy): rotate column pairs of A until they
 * are orthogonal; s_j = |column j|, V = the rotations. A zero singular value comes out at the
 * level of rounding of A's entries, not of sqrt(eps), which an eigensolver on A^T A would give.
 * W's columns for s_j <= tol (the null rows) are completed to an orthonormal basis. */
static void lr_svd(int n, const double *A, double tol, double *W, double *s, double *V)
{
    double G[9];
    memcpy(G, A, sizeof(double) * (size_t)(n * n));
    for (int i = 0; i < n * n; i++) V[i] = i % (n + 1) == 0 ? 1.0 : 0.0;
    for (int sweep = 0; sweep < 40; sweep++) {
        int rotated = 0;
        for (int a = 0; a < n; a++)
            for (int b = a + 1; b < n; b++) {
                double al = 0.0, be = 0.0, ga = 0.0;
                for (int i = 0; i < n; i++) {
                    al += G[i + n * a] * G[i + n * a];
                    be += G[i + n * b] * G[i + n * b];
                    ga += G[i + n * a] * G[i + n * b];
                }
                if (!(fabs(ga) > 1e-15 * sqrt(al * be))) continue;
                double zeta = (be - al) / (2.0 * ga);
                double t = copysign(1.0, zeta) / (fabs(zeta) + hypot(1.0, zeta));
                double c = 1.0 / hypot(1.0, t), sn = c * t;
                for (int i = 0; i < n; i++) {
                    double ga_ = G[i + n * a], gb = G[i + n * b];
                    G[i + n * a] = c * ga_ - sn * gb;
                    G[i + n * b] = sn * ga_ + c * gb;
                    double va = V[i + n * a], vb = V[i + n * b];
                    V[i + n * a] = c * va - sn * vb;
                    V[i + n * b] = sn * va + c * vb;
                }
                rotated = 1;
            }
        if (!rotated) break;
    }
    for (int j = 0; j < n; j++) {
        double nj = 0.0;
        for (int i = 0; i < n; i++) nj += G[i + n * j] * G[i + n * j];
        s[j] = sqrt(nj);
        for (int i = 0; i < n; i++) W[i + n * j] = s[j] > tol ? G[i + n * j] / s[j] : 0.0;
    }
    /* null rows: of e_1..e_n, the one left longest after removing the columns set so far
     * (Gram–Schmidt twice) */
    for (int j = 0; j < n; j++) {
        if (s[j] > tol) continue;
        double best[3] = {0.0, 0.0, 0.0}, bn = -1.0;
        for (int k = 0; k < n; k++) {
            double v[3] = {0.0, 0.0, 0.0};
            v[k] = 1.0;
            for (int pass = 0; pass < 2; pass++)
                for (int c = 0; c < n; c++) {
                    if (c == j || (s[c] <= tol && c > j)) continue;
                    double dot = 0.0;
                    for (int i = 0; i < n; i++) dot += W[i + n * c] * v[i];
                    for (int i = 0; i < n; i++) v[i] -= dot * W[i + n * c];
                }
            double vn = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            if (vn > bn) {
                bn = vn;
                for (int i = 0; i < 3; i++) best[i] = v[i] / vn;
            }
        }
        for (int i = 0; i < n; i++) W[i + n * j] = best[i];
    }
}

/* The b-independent part of J d = b: per block the SVD of P_b (W, V in Wb, Vb; the singular
 * values in Sb, 0 for those counted as 0), E, the constraint rows and columns of the reduced
 * matrix, which goes to T (order r + k, kept for the solves). Returns 0 when k > r. */
static int lr_newton_factor(ncp_nsn_lowrank *w)
{
    const int m = w->m, r = w->r;
    const double *F = w->op->F;
    double *wU = w->t;
    int k = 0;
    ncp_zero(m * r, w->E);
    for (int bi = 0; bi < w->p->nblocks; bi++) {
        const ncp_block *blk = &w->p->blocks[bi];
        const int r0 = blk->row, n = nsn_block_rows(blk);
        const double *Pb = w->P + 3 * (size_t)r0;
        double *W = w->Wb + 3 * (size_t)r0, *V = w->Vb + 3 * (size_t)r0, *sv = w->Sb + r0;
        /* scale of the block's rows of J: |P_b| and |U_b F^T|_F^2 = sum_i U_i FtF U_i^T */
        double pn = 0.0, un = 0.0;
        for (int i = 0; i < n * n; i++) pn += Pb[i] * Pb[i];
        for (int i = 0; i < n; i++)
            for (int a = 0; a < r; a++)
                for (int c = 0; c < r; c++)
                    un += w->U[r0 + i + (size_t)a * m] * w->FtF[a + (size_t)c * r] *
                          w->U[r0 + i + (size_t)c * m];
        double tol = 1e-12 * sqrt(pn + fmax(un, 0.0));
        lr_svd(n, Pb, tol, W, sv, V);
        for (int j = 0; j < n; j++) {
            const double *wj = W + n * j, *vj = V + n * j;
            for (int c = 0; c < r; c++) {
                double x = 0.0;
                for (int i = 0; i < n; i++) x += wj[i] * w->U[r0 + i + (size_t)c * m];
                wU[c] = x;
            }
            if (sv[j] > tol) { /* range part: d_b += v_j (w_j^T (b_b - U_b y)) / s_j */
                for (int i = 0; i < n; i++)
                    for (int c = 0; c < r; c++)
                        w->E[r0 + i + (size_t)c * m] += vj[i] / sv[j] * wU[c];
                continue;
            }
            sv[j] = 0.0;
            if (k == r) return 0; /* more than r constraints on y: J is singular */
            for (int c = 0; c < r; c++) {
                w->Cr[k + (size_t)c * r] = wU[c];
                double x = 0.0;
                for (int i = 0; i < n; i++) x += F[r0 + i + (size_t)c * m] * vj[i];
                w->Cc[c + (size_t)k * r] = -x;
            }
            w->Nrow[k] = r0;
            for (int i = 0; i < 3; i++) w->Nv[3 * k + i] = i < n ? vj[i] : 0.0;
            k++;
        }
    }
    w->k = k;
    const int nr = r + k;
    ncp_gemm(1, 0, r, r, m, 1.0, F, w->E, 0.0, w->M); /* F^T E (r x r) */
    for (int j = 0; j < nr; j++)
        for (int i = 0; i < nr; i++) {
            double x;
            if (i < r && j < r)
                x = (i == j ? 1.0 : 0.0) + w->M[i + (size_t)j * r];
            else if (i < r)
                x = w->Cc[i + (size_t)(j - r) * r];
            else if (j < r)
                x = w->Cr[(i - r) + (size_t)j * r];
            else
                x = 0.0;
            w->T[i + (size_t)j * nr] = x;
        }
    return 1;
}

/* d = J^-1 b with the factors of lr_newton_factor (d0 and the right-hand side from b, the
 * reduced system by LU of a copy of T). Returns 0 if the reduced system is singular. */
static int lr_newton_solve(ncp_nsn_lowrank *w, const double *b, double *d)
{
    const int m = w->m, r = w->r, nr = r + w->k;
    int kk = 0;
    ncp_zero(m, w->d0);
    for (int bi = 0; bi < w->p->nblocks; bi++) {
        const ncp_block *blk = &w->p->blocks[bi];
        const int r0 = blk->row, n = nsn_block_rows(blk);
        const double *W = w->Wb + 3 * (size_t)r0, *V = w->Vb + 3 * (size_t)r0, *sv = w->Sb + r0;
        for (int j = 0; j < n; j++) {
            double wb = 0.0;
            for (int i = 0; i < n; i++) wb += W[i + n * j] * b[r0 + i];
            if (sv[j] > 0.0)
                for (int i = 0; i < n; i++) w->d0[r0 + i] += V[i + n * j] / sv[j] * wb;
            else
                w->rhs[r + kk++] = wb;
        }
    }
    ncp_gemv(1, m, r, 1.0, w->op->F, w->d0, 0.0, w->rhs);
    ncp_copy(nr * nr, w->T, w->M);
    ncp_error e;
    ncp_error_clear(&e);
    if (ncp_lu_solve(nr, w->M, w->ipiv, 1, w->rhs, &e) != NCP_OK) return 0;
    /* d = d0 - E y + N z */
    ncp_copy(m, w->d0, d);
    ncp_gemv(0, m, r, -1.0, w->E, w->rhs, 1.0, d);
    for (int j = 0; j < w->k; j++) {
        int r0 = w->Nrow[j];
        for (int i = 0; i < 3 && r0 + i < m; i++) d[r0 + i] += w->rhs[r + j] * w->Nv[3 * j + i];
    }
    return 1;
}

int ncp_nsn_lowrank_newton(ncp_nsn_lowrank *w, const double *b, double *d)
{
    const int m = w->m;
    double *res = w->v, *dd = w->v + m;
    if (!lr_newton_factor(w) || !lr_newton_solve(w, b, d)) return 0;
    /* one step of iterative refinement, d += J^-1 (b - J d) with J applied exactly: the
     * elimination divides by the P blocks' singular values, which can be small (FB's smoothed
     * elements), and alone leaves residuals up to 1e5 x the dense LU's on bolt-nut */
    lr_apply_op(w, 0, d, res);
    for (int i = 0; i < m; i++) res[i] = b[i] - res[i];
    if (!lr_newton_solve(w, res, dd)) return 0;
    ncp_axpy(m, 1.0, dd, d);
    return 1;
}

/* x = (B + Z C Z^T)^-1 g with B's block factors in w->Bf and the capacitance K in w->T (first
 * (2r)^2 entries, kept; its LU is done on a copy in w->M): x = B^-1 g - Y K^-1 Z^T B^-1 g,
 * Y = B^-1 Z. Returns 0 if K is singular. */
static int lr_lm_solve(ncp_nsn_lowrank *w, const double *g, double *x)
{
    const int m = w->m, r2 = 2 * w->r;
    ncp_error e;
    ncp_error_clear(&e);
    ncp_copy(m, g, x);
    for (int bi = 0; bi < w->p->nblocks; bi++) {
        const ncp_block *blk = &w->p->blocks[bi];
        const int r0 = blk->row;
        ncp_chol_solve(nsn_block_rows(blk), w->Bf + 3 * (size_t)r0, 1, x + r0, &e);
    }
    ncp_gemv(1, m, r2, 1.0, w->Z, x, 0.0, w->rhs);
    ncp_copy(r2 * r2, w->T, w->M);
    if (ncp_lu_solve(r2, w->M, w->ipiv, 1, w->rhs, &e) != NCP_OK) return 0;
    ncp_gemv(0, m, r2, -1.0, w->Y, w->rhs, 1.0, x);
    return 1;
}

int ncp_nsn_lowrank_lm(ncp_nsn_lowrank *w, double delta, const double *b, double *d)
{
    const int m = w->m, r = w->r, r2 = 2 * r;
    const double *F = w->op->F;
    double *Z = w->Z, *Y = w->Y, *buf = w->t;
    ncp_error e;
    ncp_error_clear(&e);
    /* Z = [P^T U, F]; B_b = P_b^T P_b + delta I (Cholesky factor in Bf); Y = B^-1 Z */
    ncp_copy(m * r, F, Z + (size_t)r * m);
    for (int bi = 0; bi < w->p->nblocks; bi++) {
        const ncp_block *blk = &w->p->blocks[bi];
        const int r0 = blk->row, n = nsn_block_rows(blk);
        const double *Pb = w->P + 3 * (size_t)r0;
        double *B = w->Bf + 3 * (size_t)r0;
        for (int i = 0; i < n; i++)
            for (int c = 0; c < r; c++) {
                double x = 0.0;
                for (int a = 0; a < n; a++) x += Pb[a + n * i] * w->U[r0 + a + (size_t)c * m];
                Z[r0 + i + (size_t)c * m] = x;
            }
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double x = i == j ? delta : 0.0;
                for (int a = 0; a < n; a++) x += Pb[a + n * i] * Pb[a + n * j];
                B[i + n * j] = x;
            }
        if (ncp_chol_factor(n, B, &e) != NCP_OK) return 0;
        for (int c = 0; c < r2; c++)
            for (int i = 0; i < n; i++) buf[i + n * c] = Z[r0 + i + (size_t)c * m];
        if (ncp_chol_solve(n, B, r2, buf, &e) != NCP_OK) return 0;
        for (int c = 0; c < r2; c++)
            for (int i = 0; i < n; i++) Y[r0 + i + (size_t)c * m] = buf[i + n * c];
    }
    /* capacitance K = C^-1 + Z^T Y, C^-1 = [[-U^T U, I], [I, 0]], into T */
    double *K = w->T;
    ncp_gemm(1, 0, r2, r2, m, 1.0, Z, Y, 0.0, K);
    ncp_gemm(1, 0, r, r, m, -1.0, w->U, w->U, 0.0, w->M); /* -U^T U (r x r) */
    for (int j = 0; j < r; j++) {
        for (int i = 0; i < r; i++) K[i + (size_t)j * r2] += w->M[i + (size_t)j * r];
        K[j + (size_t)(r + j) * r2] += 1.0;
        K[(r + j) + (size_t)j * r2] += 1.0;
    }
    /* d = A^-1 g, g = J^T b, A = J^T J + delta I, and one step of iterative refinement
     * d += A^-1 (g - A d) with A applied exactly through J: Woodbury alone loses accuracy to
     * cancellation when B^-1 is large (delta small, singular P blocks); the refinement brings
     * the residual back to the dense Cholesky's level (tests/test_nsn_lowrank.c). */
    double *g = w->v, *res = w->v + m, *Jd = w->E;
    lr_apply_op(w, 1, b, g);
    if (!lr_lm_solve(w, g, d)) return 0;
    ncp_nsn_lowrank_apply(w, d, Jd);
    lr_apply_op(w, 1, Jd, res);
    for (int i = 0; i < m; i++) res[i] = g[i] - res[i] - delta * d[i];
    if (!lr_lm_solve(w, res, Jd)) return 0;
    ncp_axpy(m, 1.0, Jd, d);
    return 1;
}
