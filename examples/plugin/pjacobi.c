/* pjacobi-example — a complete ncpbench solver plugin: projected block Jacobi with
 * over-relaxation on the NCP with the De Saxcé term, written only against the installed headers
 * (#include <ncpbench/ncpbench.h>; see README.md beside this file and docs/plugins.md).
 *
 * The iteration is that of ncpbench's built-in `jacobi` (solvers/jacobi.c; NCP report 2025
 * eq. 141 with Alg. 5's De Saxcé step): every block is updated from the SAME previous iterate,
 *     u        = D lambda + v_f
 *     lambda_b <- P_b( lambda_b - omega theta r_b g_b(lambda, u) )
 * with, per block b,
 *     contact     g = u + Gamma(u) = u + (mu |u_t|, 0, 0),  P = projection onto K_mu,
 *                 r = 1 / lambda_max(sym. 3x3 diagonal block of D)
 *     bilateral   g = u,  P = identity,   r = 1 / D_rr
 *     unilateral  g = u,  P = max(0, .),  r = 1 / D_rr
 *     soft, c > 0 g = u + (lambda + k phi) / c,  P = identity,  r = 1 / (D_rr + 1/c)
 *     soft, c = 0 lambda = -k phi (r = 1)
 * A block whose curvature is below 1e-14 of the largest diagonal entry of D does not influence
 * its own velocity and is left as it is. theta = 1 / lambda_max(P^1/2 N P^1/2), P = diag(r),
 * N = D + diag(1/c) on the soft rows (power iteration at setup), so that omega = 1 is a safe
 * projected-gradient step on the CCP and omega in (0, 2) over- or under-relaxes it
 * (auto_scale = 0: theta = 1, plain Jacobi). The same algorithm with the same parameters as the
 * built-in jacobi gives the same iterates: tests/test_plugin_example.sh checks it.
 */
#include <math.h>
#include <stdlib.h>

#include <ncpbench/ncpbench.h>

static const ncp_param_doc pj_params[] = {
    {"omega", 1.0, "relaxation in (0, 2) multiplying the step inside the projection"},
    {"auto_scale", 1.0,
     "1: step theta r_b with theta = 1/lambda_max(P^1/2 N P^1/2) (power iteration); "
     "0: theta = 1 (plain Jacobi)"},
    {"stall_tol", 1e-15,
     "stop (STALLED) when an iteration changes lambda by <= stall_tol * max(1, |lambda|_inf)"},
    {NULL, 0.0, NULL},
};

/* Work arrays of one solve. */
typedef struct pj_ws {
    double *lambda, *next, *u, *step, *sp, *v, *w, *tmp;
    ncp_dop op; /* D, dense or low rank (core/dop.h) */
} pj_ws;

static void pj_ws_free(pj_ws *w)
{
    free(w->lambda);
    free(w->next);
    free(w->u);
    free(w->step);
    free(w->sp);
    free(w->v);
    free(w->w);
    free(w->tmp);
    ncp_dop_free(&w->op);
}

/* The value of a documented parameter (ps, else the default of pj_params), range-checked:
 * lo < x < hi, or lo <= x when hi is infinite; integral if `integer`. */
static int pj_param(const ncp_params *ps, int idx, double lo, double hi, int integer, double *out,
                    ncp_error *err)
{
    const ncp_param_doc *d = &pj_params[idx];
    double x = ncp_params_get(ps, d->name, d->def);
    int ok = integer ? (x >= lo && x <= hi && x == floor(x))
                     : (isinf(hi) ? x >= lo && !isinf(x) : x > lo && x < hi);
    if (!ok)
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "pjacobi-example: parameter %s = %g must lie in %s%g, %g%s", d->name,
                             x, integer || isinf(hi) ? "[" : "(", lo, hi, integer ? "]" : ")");
    *out = x;
    return NCP_OK;
}

/* Step r_b of every block (see the header); 0 for a block without self-influence. */
static int pj_steps(const ncp_problem *p, double *step, ncp_error *err)
{
    int m = p->m;
    double dscale = 0.0;
    for (int i = 0; i < m; i++) dscale = fmax(dscale, p->D[i + (size_t)i * m]);
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int r = b->row;
        double d;
        if (b->type == NCP_CONTACT) {
            double B[9], ev[3];
            for (int j = 0; j < 3; j++)
                for (int i = 0; i < 3; i++)
                    B[i + 3 * j] = 0.5 * (p->D[(r + i) + (size_t)(r + j) * m] +
                                          p->D[(r + j) + (size_t)(r + i) * m]);
            int rc = ncp_sym_eig(3, B, ev, err); /* ascending eigenvalues */
            if (rc) {
                ncp_error_prefix(err, "pjacobi-example: contact block at row %d: ", r);
                return rc;
            }
            d = ev[2];
        } else {
            d = p->D[r + (size_t)r * m];
        }
        step[bi] = d > 1e-14 * dscale && d > 0.0 ? 1.0 / d : 0.0;
        if (b->type == NCP_SOFT) {
            double drr = step[bi] > 0.0 ? 1.0 / step[bi] : 0.0;
            step[bi] = b->c > 0.0 ? 1.0 / (drr + 1.0 / b->c) : 1.0;
        }
    }
    return NCP_OK;
}

/* y = P^1/2 N P^1/2 x with sp = sqrt(r) per row (0 on rows that do not move). */
static void pj_scaled_apply(const ncp_problem *p, pj_ws *w, const double *x, double *y)
{
    int m = p->m;
    for (int i = 0; i < m; i++) w->tmp[i] = w->sp[i] * x[i];
    ncp_dop_apply(&w->op, 1.0, w->tmp, 0.0, y);
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        if (b->type == NCP_SOFT && b->c > 0.0) y[b->row] += w->tmp[b->row] / b->c;
    }
    for (int i = 0; i < m; i++) y[i] *= w->sp[i];
}

/* theta = 1 / lambda_max(P^1/2 N P^1/2) by power iteration (at most 100 products, 1e-6
 * relative change of the Rayleigh quotient) from a fixed positive, uneven start vector; 1 when
 * the operator is zero. */
static double pj_theta(const ncp_problem *p, pj_ws *w)
{
    int m = p->m;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int moving = w->step[bi] > 0.0 && !(b->type == NCP_SOFT && !(b->c > 0.0));
        double s = moving ? sqrt(w->step[bi]) : 0.0;
        for (int i = 0; i < ncp_block_type_size(b->type); i++) w->sp[b->row + i] = s;
    }
    if (m <= 0) return 1.0;
    double *v = w->v, *y = w->w, lam = 0.0;
    for (int i = 0; i < m; i++) v[i] = 1.0 + (double)((i * 7919) % 101) / 202.0;
    ncp_scal(m, 1.0 / ncp_norm2(m, v), v);
    for (int it = 0; it < 100; it++) {
        pj_scaled_apply(p, w, v, y);
        double rq = ncp_dot(m, v, y), ny = ncp_norm2(m, y);
        if (!(ny > 0.0) || !isfinite(ny)) {
            lam = rq;
            break;
        }
        int done = it > 0 && fabs(rq - lam) <= 1e-6 * fabs(rq);
        lam = rq;
        if (done) break;
        for (int i = 0; i < m; i++) v[i] = y[i] / ny;
    }
    lam = fmax(lam, 0.0);
    return lam > 0.0 ? 1.0 / lam : 1.0;
}

/* The descent direction g_b and the projection P_b of one block (see the header). */
static void pj_block_update(const ncp_block *b, const double *lambda, const double *u, double t,
                            double *out)
{
    double g[3] = {0.0, 0.0, 0.0}, x[3];
    switch (b->type) {
    case NCP_CONTACT:
        ncp_desaxce(b->mu, u, g);
        for (int i = 0; i < 3; i++) x[i] = lambda[i] - t * g[i];
        ncp_cone_project(b->mu, x, out);
        return;
    case NCP_SOFT:
        if (!(b->c > 0.0)) {
            out[0] = -b->k * b->phi;
            return;
        }
        g[0] = u[0] + (lambda[0] + b->k * b->phi) / b->c;
        out[0] = lambda[0] - t * g[0];
        return;
    case NCP_UNILATERAL:
        out[0] = fmax(0.0, lambda[0] - t * u[0]);
        return;
    default: /* NCP_BILATERAL */
        out[0] = lambda[0] - t * u[0];
        return;
    }
}

static void pj_iterate(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, double omega,
                       double theta, double stall_tol, pj_ws *w)
{
    const ncp_problem *p = in->prob;
    int m = p->m, k = 0, status = -1;
    if (in->lambda0) ncp_copy(m, in->lambda0, w->lambda);
    if (ncp_run_setup_done(run) == 0) {
        for (k = 1;; k++) {
            ncp_copy(m, p->vf, w->u);
            ncp_dop_apply(&w->op, 1.0, w->lambda, 1.0, w->u); /* u = D lambda + v_f */
            double dmax = 0.0;
            for (int bi = 0; bi < p->nblocks; bi++) {
                const ncp_block *b = &p->blocks[bi];
                int r = b->row, n = ncp_block_type_size(b->type);
                if (w->step[bi] == 0.0) {
                    for (int i = 0; i < n; i++) w->next[r + i] = w->lambda[r + i];
                    continue;
                }
                pj_block_update(b, w->lambda + r, w->u + r, omega * theta * w->step[bi],
                                w->next + r);
                for (int i = 0; i < n; i++)
                    dmax = fmax(dmax, fabs(w->next[r + i] - w->lambda[r + i]));
            }
            double *s = w->lambda;
            w->lambda = w->next;
            w->next = s;
            /* the protocol of solve/solver.h: a non-finite iterate is a failure; report the
             * iterate and stop when the harness says so; then the solver's own stall test */
            if (!ncp_all_finite(m, w->lambda)) {
                status = NCP_STATUS_FAILED;
                break;
            }
            if (ncp_run_iterate(run, k, w->lambda, NULL)) break;
            if (dmax <= stall_tol * fmax(1.0, ncp_norminf(m, w->lambda))) {
                status = NCP_STATUS_STALLED;
                break;
            }
        }
    }
    ncp_copy(m, w->lambda, out->lambda); /* the answer is the last reported iterate */
    out->has_v = 0;
    out->iterations = k;
    if (status >= 0) out->status = status;
}

static int pj_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    const ncp_problem *p = in->prob;
    double omega = 0.0, auto_scale = 0.0, stall_tol = 0.0;
    int rc;
    if ((rc = pj_param(in->params, 0, 0.0, 2.0, 0, &omega, err)) ||
        (rc = pj_param(in->params, 1, 0.0, 1.0, 1, &auto_scale, err)) ||
        (rc = pj_param(in->params, 2, 0.0, INFINITY, 0, &stall_tol, err)))
        return rc;
    if (!p->has_dual || !p->D || !p->vf) /* NCP_NEEDS_DUAL: the harness provides D and v_f */
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "pjacobi-example: problem '%s' has no dual data (D, v_f)",
                             p->name ? p->name : "?");
    size_t m = (size_t)p->m;
    pj_ws w = {0};
    w.lambda = ncp_calloc(err, m, sizeof(double));
    w.next = ncp_calloc(err, m, sizeof(double));
    w.u = ncp_calloc(err, m, sizeof(double));
    w.step = ncp_calloc(err, (size_t)p->nblocks, sizeof(double));
    w.sp = ncp_calloc(err, m, sizeof(double));
    w.v = ncp_calloc(err, m, sizeof(double));
    w.w = ncp_calloc(err, m, sizeof(double));
    w.tmp = ncp_calloc(err, m, sizeof(double));
    if (!w.lambda || !w.next || !w.u || !w.step || !w.sp || !w.v || !w.w || !w.tmp) {
        rc = NCP_ERR_NOMEM;
    } else if ((rc = pj_steps(p, w.step, err)) == NCP_OK &&
               (rc = ncp_dop_init(&w.op, p, NCP_DOP_AUTO, err)) != NCP_OK) {
        ncp_error_prefix(err, "pjacobi-example: ");
    } else if (rc == NCP_OK) {
        double theta = auto_scale != 0.0 ? pj_theta(p, &w) : 1.0;
        pj_iterate(in, out, run, omega, theta, stall_tol, &w);
    }
    pj_ws_free(&w);
    return rc;
}

static const ncp_solver_desc pj_desc = {
    .name = "pjacobi-example",
    .source = "NCP report 2025 eq. 141 (block Jacobi) with Alg. 5's De Saxcé step "
              "(examples/plugin: a plugin built out of tree)",
    .summary = "projected block Jacobi with over-relaxation, as a plugin",
    .needs = NCP_NEEDS_DUAL,
    .ccp = 0,
    .file = "examples/plugin/pjacobi.c",
    .params = pj_params,
    .solve = pj_solve,
    .takes_v0 = 0,
};

static const ncp_solver_desc *const pj_solvers[] = {&pj_desc};

static const ncp_plugin_info pj_info = {
    .abi_version = NCP_PLUGIN_ABI_VERSION,
    .name = "pjacobi-example",
    .version = "1.0",
    .n_solvers = 1,
    .solvers = pj_solvers,
};

NCP_PLUGIN_EXPORT const ncp_plugin_info *ncp_plugin_entry(void)
{
    return &pj_info;
}
