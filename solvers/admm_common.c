/* The parts of Tasora et al. 2021's ADMM that admm and fadmm share (see admm_common.h). */
#include "solvers/admm_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/common.h"
#include "core/cone.h"
#include "core/la.h"

/* Residual balancing safeguards (Tasora et al. 2021 §5.2 defaults) and our bound on rho. */
#define ETA_MAX 50.0
#define ETA_DEADBAND 2.0
#define RHO_MIN 1e-6
#define RHO_MAX 1e6

int ncp_admm_read_params(const ncp_solver_desc *d, const ncp_params *ps, ncp_admm_cfg *cfg,
                         ncp_error *err)
{
    int rc;
    if ((rc = ncp_solver_param_real(d, ps, "rho", 0.0, INFINITY, NCP_PARAM_LO_OPEN, &cfg->rho0,
                                    err)) ||
        (rc = ncp_solver_param_real(d, ps, "rho_b", 0.0, INFINITY, NCP_PARAM_LO_OPEN,
                                    &cfg->rho_b, err)) ||
        (rc = ncp_solver_param_int(d, ps, "adapt_every", 0, 1000000, &cfg->adapt_every, err)) ||
        (rc = ncp_solver_param_real(d, ps, "adapt_work", 0.0, 1e6, 0, &cfg->adapt_work, err)) ||
        (rc = ncp_solver_param_int(d, ps, "rho_policy", 1, 2, &cfg->policy, err)) ||
        (rc = ncp_solver_param_int(d, ps, "rho_sqrt", 0, 1, &cfg->rho_sqrt, err)) ||
        (rc = ncp_solver_param_int(d, ps, "max_rho_changes", 0, 1000000, &cfg->max_changes,
                                   err)) ||
        (rc = ncp_solver_param_int(d, ps, "precond", 0, 1, &cfg->precond, err)) ||
        (rc = ncp_solver_param_int(d, ps, "form", 0, 2, &cfg->form, err)) ||
        (rc = ncp_solver_param_int(d, ps, "k_factor", 0, 2, &cfg->k_factor, err)) ||
        (rc = ncp_solver_param_real(d, ps, "tol_ccp", 0.0, INFINITY, 0, &cfg->tol_ccp, err)))
        return rc;
    return NCP_OK;
}

void ncp_admm_free(ncp_admm *a)
{
    free(a->kind);
    free(a->w);
    free(a->sw);
    free(a->comp);
    free(a->shift);
    free(a->fixed);
    free(a->theta);
    free(a->d);
    ncp_dshift_free(&a->ls);
    memset(a, 0, sizeof *a);
}

/* Row kinds, compliance, shift and one-point sets from the block types (admm_common.h). */
static int setup_rows(ncp_admm *a, ncp_error *err)
{
    const ncp_problem *p = a->p;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int r = b->row;
        switch (b->type) {
        case NCP_CONTACT:
            if (!(b->mu >= 0.0) || !isfinite(b->mu))
                return ncp_error_set(err, NCP_ERR_INPUT,
                                     "%s: contact block %d (row %d) has friction mu = %g; it "
                                     "must be finite and >= 0",
                                     a->name, bi, r, b->mu);
            for (int i = 0; i < 3; i++) a->kind[r + i] = NCP_ADMM_ROW_CONE;
            break;
        case NCP_UNILATERAL:
            a->kind[r] = NCP_ADMM_ROW_UNI;
            break;
        case NCP_BILATERAL:
            a->kind[r] = NCP_ADMM_ROW_FREE;
            break;
        case NCP_SOFT: {
            if (!(b->c >= 0.0) || !isfinite(b->k) || !isfinite(b->phi))
                return ncp_error_set(err, NCP_ERR_INPUT,
                                     "%s: soft block %d (row %d) has k = %g, c = %g, phi = %g; "
                                     "the convex form needs finite k, phi and damping c >= 0",
                                     a->name, bi, r, b->k, b->c, b->phi);
            double inv = 1.0 / b->c;
            if (b->c > 0.0 && isfinite(inv)) { /* compliance 1/c, Corollary 3 */
                a->kind[r] = NCP_ADMM_ROW_FREE;
                a->comp[r] = inv;
                a->shift[r] = b->k * b->phi * inv;
            } else { /* c = 0 (or 1/c overflows): lambda = -k phi, a one-point set */
                a->kind[r] = NCP_ADMM_ROW_FIXED;
                a->fixed[r] = -b->k * b->phi;
            }
            break;
        }
        default:
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: block %d has unknown type %d", a->name,
                                 bi, b->type);
        }
    }
    return NCP_OK;
}

/* w = diagonal of N = D + C, averaged over each contact's rows (or 1 without preconditioning). */
static void setup_weights(ncp_admm *a, int precond)
{
    const ncp_problem *p = a->p;
    int m = a->m;
    if (!precond) {
        for (int i = 0; i < m; i++) a->w[i] = 1.0;
    } else {
        double wmax = 0.0;
        for (int bi = 0; bi < p->nblocks; bi++) {
            const ncp_block *b = &p->blocks[bi];
            int r = b->row, n = ncp_block_type_size(b->type);
            double s = 0.0;
            for (int i = 0; i < n; i++) {
                double dii;
                ncp_dop_diag_block(&a->ls.op, r + i, 1, &dii);
                s += dii + a->comp[r + i];
            }
            for (int i = 0; i < n; i++) a->w[r + i] = s / n;
            wmax = fmax(wmax, s / n);
        }
        double wfill = wmax > 0.0 ? wmax : 1.0;
        for (int i = 0; i < m; i++)
            if (!(a->w[i] > 1e-14 * wmax)) a->w[i] = wfill;
    }
    for (int i = 0; i < m; i++) a->sw[i] = sqrt(a->w[i]);
}

/* A B row: bilateral (free, no compliance), kept out of the saddle form's K (dshift.h). */
static int is_brow(const ncp_admm *a, int i)
{
    return a->kind[i] == NCP_ADMM_ROW_FREE && a->comp[i] == 0.0;
}

int ncp_admm_interval(int adapt_every, double adapt_work, double F, double S)
{
    if (adapt_every <= 0 || !(adapt_work > 0.0) || !(S > 0.0)) return adapt_every;
    double n = ceil(adapt_work * F / S);
    return n > adapt_every ? (int)fmin(n, 1e9) : adapt_every;
}

typedef struct admm_costctx {
    const ncp_admm_cfg *cfg;
    int max_iter;
} admm_costctx;

/* A form's estimated flops per iteration (dshift.h's F and S): F / R + S, R the expected
 * iterations per factorisation: the budget's iterations over the factorisations rho's balancing
 * may cause (1 + min(max_rho_changes, max_iter / n_s)), n_s the interval that form would use
 * (ncp_admm_interval: adapt_every, raised by adapt_work from its own F and S). */
static double amortised(void *ctx, ncp_dshift_est e)
{
    const admm_costctx *c = ctx;
    int ns = ncp_admm_interval(c->cfg->adapt_every, c->cfg->adapt_work, e.F, e.S);
    double it = c->max_iter > 0 ? (double)c->max_iter : 1000.0;
    double nf = 1.0;
    if (ns > 0) nf += fmin((double)c->cfg->max_changes, it / ns);
    return e.F / fmax(1.0, it / nf) + e.S;
}

int ncp_admm_setup(ncp_admm *a, const ncp_solver_desc *self, const ncp_solve_in *in,
                   const ncp_admm_cfg *cfg, ncp_error *err)
{
    const ncp_problem *p = in->prob;
    memset(a, 0, sizeof *a);
    a->p = p;
    a->name = self->name;
    a->m = p->m;
    a->rho_b = cfg->rho_b;
    a->policy = cfg->policy;
    a->rho_sqrt = cfg->rho_sqrt;
    a->max_changes = cfg->max_changes;
    int rc = ncp_solver_need_dual_op(self, p, err);
    if (rc) return rc;
    int m = a->m;
    size_t mz = (size_t)m;
    a->kind = ncp_calloc(err, mz, 1);
    a->w = ncp_calloc(err, mz, sizeof(double));
    a->sw = ncp_calloc(err, mz, sizeof(double));
    a->comp = ncp_calloc(err, mz, sizeof(double));
    a->shift = ncp_calloc(err, mz, sizeof(double));
    a->fixed = ncp_calloc(err, mz, sizeof(double));
    a->theta = ncp_calloc(err, mz, sizeof(double));
    if (!a->kind || !a->w || !a->sw || !a->comp || !a->shift || !a->fixed || !a->theta)
        return NCP_ERR_NOMEM;
    if ((rc = setup_rows(a, err))) return rc;

    unsigned char *brows = ncp_calloc(err, mz + 1, 1);
    if (!brows) return NCP_ERR_NOMEM;
    for (int i = 0; i < m; i++) brows[i] = (unsigned char)is_brow(a, i);
    admm_costctx cc = {cfg, in->budget.max_iter};
    /* no Woodbury form: the bilateral rows' tiny rho_b would cancel in it (dshift.h) */
    ncp_dshift_opts lo = {brows, cfg->form, cfg->k_factor, 0, amortised, &cc};
    rc = ncp_dshift_init(&a->ls, a->name, p, &lo, err);
    free(brows);
    if (rc) return rc;
    a->p = p = a->ls.p; /* the dense form's view with D */
    a->nv = a->ls.form == NCP_ADMM_FORM_SADDLE ? a->ls.nv : 0;
    a->adapt_every = ncp_admm_interval(cfg->adapt_every, cfg->adapt_work, a->ls.est.F,
                                       a->ls.est.S);
    char form[128];
    ncp_dshift_describe(&a->ls, form, sizeof form);
    snprintf(a->route, sizeof a->route, "%s; n_s %d", form, a->adapt_every);
    if (a->ls.unsupported) {
        a->unsupported = 1;
        return NCP_OK;
    }
    setup_weights(a, cfg->precond); /* D's diagonal through the operator */
    if (!(a->d = ncp_calloc(err, mz + 1, sizeof(double)))) return NCP_ERR_NOMEM;

    double vfn = ncp_norm2(m, p->vf);
    /* a tenth of the budget's tol by default: where the CCP and NCP solutions coincide the two
     * natural maps differ by the small De Saxcé term, and the harness's NCP test must fire first */
    double tol = cfg->tol_ccp > 0.0 ? cfg->tol_ccp : 0.1 * in->budget.tol;
    a->stop_thresh = tol * (vfn > 0.0 ? vfn : 1.0);
    return NCP_OK;
}

/* Theta(rho): rho_b on free rows (eq. 44), rho elsewhere, times the preconditioner (eq. 47). */
static void set_theta(ncp_admm *a, double rho)
{
    a->rho = rho;
    for (int i = 0; i < a->m; i++)
        a->theta[i] = (a->kind[i] == NCP_ADMM_ROW_FREE ? a->rho_b : rho) * a->w[i];
}

int ncp_admm_factor(ncp_admm *a, double rho, ncp_error *err)
{
    set_theta(a, rho);
    for (int i = 0; i < a->m; i++) a->d[i] = a->comp[i] + a->theta[i]; /* > 0: theta > 0 */
    int rc = ncp_dshift_factor(&a->ls, a->d, err);
    if (rc) ncp_error_prefix(err, "%s: factorising for rho = %g (%s form): ", a->name, rho,
                             a->ls.form == NCP_ADMM_FORM_DENSE ? "dense" : "saddle-point");
    return rc;
}

int ncp_admm_solve(ncp_admm *a, const double *z, const double *y, double *g, double *v,
                   ncp_error *err)
{
    /* (N + Theta) g = Theta z - y - r, r = v_f + s: dshift.h's system with q = Theta z - y - s */
    for (int i = 0; i < a->m; i++) g[i] = a->theta[i] * z[i] - y[i] - a->shift[i];
    int rc = ncp_dshift_solve(&a->ls, g, g, v, err);
    if (rc) ncp_error_prefix(err, "%s: ", a->name);
    return rc;
}

/* Pi_Y(x) into out, block by block. */
static void project(const ncp_admm *a, const double *x, double *out)
{
    const ncp_problem *p = a->p;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int r = b->row;
        if (b->type == NCP_CONTACT) {
            ncp_cone_project(b->mu, x + r, out + r);
            continue;
        }
        switch (a->kind[r]) {
        case NCP_ADMM_ROW_UNI: out[r] = fmax(0.0, x[r]); break;
        case NCP_ADMM_ROW_FIXED: out[r] = a->fixed[r]; break;
        default: out[r] = x[r]; break; /* free */
        }
    }
}

void ncp_admm_zstep(const ncp_admm *a, const double *g, const double *y, double *z)
{
    for (int i = 0; i < a->m; i++) z[i] = g[i] + y[i] / a->theta[i];
    project(a, z, z);
}

void ncp_admm_start(ncp_admm *a, const double *lambda0, double *g, double *y)
{
    const ncp_problem *p = a->p;
    int m = a->m;
    if (!lambda0) { /* cold start: Alg. 1 with y^0 = z^0 = 0 */
        ncp_zero(m, g);
        ncp_zero(m, y);
        return;
    }
    ncp_copy(m, lambda0, g);
    /* y = -(D g + v_f + C g + s): the paper's v^0 = H^{-1}(k + D_eps g) then
     * y^0 = -(D_eps^T v^0 + C g + b_eps) (Alg. 2), through the Delassus the harness provides */
    ncp_copy(m, p->vf, y);
    ncp_dop_apply(&a->ls.op, 1.0, g, 1.0, y);
    for (int i = 0; i < m; i++) {
        y[i] = -(y[i] + a->comp[i] * g[i] + a->shift[i]);
        if (a->kind[i] == NCP_ADMM_ROW_FREE) y[i] = 0.0;
    }
}

double ncp_admm_ccp_residual(const ncp_admm *a, const double *g, const double *u)
{
    const ncp_problem *p = a->p;
    double s = 0.0;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int r = b->row;
        if (b->type == NCP_CONTACT) {
            double x[3], px[3];
            for (int i = 0; i < 3; i++) x[i] = g[r + i] - u[r + i];
            ncp_cone_project(b->mu, x, px);
            for (int i = 0; i < 3; i++) s += (g[r + i] - px[i]) * (g[r + i] - px[i]);
            continue;
        }
        double f;
        switch (a->kind[r]) {
        case NCP_ADMM_ROW_UNI: f = g[r] - fmax(0.0, g[r] - u[r]); break;
        case NCP_ADMM_ROW_FIXED: f = g[r] - a->fixed[r]; break;
        default: /* bilateral: u; compliant soft: c u' = c u + g + k phi (metrics' form) */
            f = a->comp[r] > 0.0 ? u[r] / a->comp[r] : u[r];
            break;
        }
        s += f * f;
    }
    return sqrt(s);
}

double ncp_admm_balance(ncp_admm *a, const double *rp, const double *rd, const double *z,
                        const double *g, const double *y)
{
    if (a->changes >= a->max_changes) return a->rho;
    double np = 0.0, nd = 0.0, nz = 0.0, ny = 0.0;
    for (int i = 0; i < a->m; i++) {
        np = fmax(np, fabs(rp[i]) * a->sw[i]);
        nd = fmax(nd, fabs(rd[i]) / a->sw[i]);
        nz = fmax(nz, fmax(fabs(z[i]), fabs(g[i])) * a->sw[i]);
        ny = fmax(ny, fabs(y[i]) / a->sw[i]);
    }
    if (a->policy == NCP_ADMM_RHO_NORMALIZED) { /* eq. 43 */
        np = nz > 0.0 ? np / nz : np;
        nd = ny > 0.0 ? nd / ny : nd;
    }
    double eta; /* eq. 42 (or 43): eta = r_p / r_d */
    if (np == 0.0 && nd == 0.0) eta = 1.0;
    else if (nd == 0.0) eta = ETA_MAX;
    else eta = np / nd;
    if (a->rho_sqrt) eta = sqrt(eta);
    eta = fmin(fmax(eta, 1.0 / ETA_MAX), ETA_MAX);
    if (eta >= 1.0 / ETA_DEADBAND && eta <= ETA_DEADBAND) return a->rho;
    double rho = fmin(fmax(a->rho * eta, RHO_MIN), RHO_MAX);
    if (rho != a->rho) a->changes++;
    return rho;
}

int ncp_admm_report(ncp_run *run, const ncp_admm *a, int k, const double *g, const double *v,
                    int *status)
{
    int saddle = a->ls.form == NCP_ADMM_FORM_SADDLE;
    if (!ncp_all_finite(a->m, g) || (saddle && !ncp_all_finite(a->nv, v))) {
        *status = NCP_STATUS_FAILED;
        return 1;
    }
    return ncp_run_iterate(run, k, g, saddle ? v : NULL);
}

void ncp_admm_finish(const ncp_admm *a, ncp_solve_out *out, const double *g, const double *v,
                     int k, int status)
{
    ncp_copy(a->m, g, out->lambda);
    out->has_v = a->ls.form == NCP_ADMM_FORM_SADDLE && out->v && v;
    if (out->has_v) ncp_copy(a->nv, v, out->v);
    out->iterations = k;
    if (status >= 0) out->status = status;
}
