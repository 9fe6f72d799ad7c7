/* The solvers' shared toolkit (see common.h). The projected Gauss–Seidel sweep here is the one
 * described in the header of solvers/pgs.c. */
#include "solvers/common.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cone.h"
#include "core/la.h"
#include "solve/params.h"
#include "util/clock.h"

/* ---------- parameters ---------- */

static const ncp_param_doc *param_doc(const ncp_solver_desc *d, const char *name)
{
    for (const ncp_param_doc *pd = d->params; pd && pd->name; pd++)
        if (strcmp(pd->name, name) == 0) return pd;
    return NULL;
}

double ncp_solver_param(const ncp_solver_desc *d, const ncp_params *ps, const char *name)
{
    const ncp_param_doc *pd = param_doc(d, name);
    return pd ? ncp_params_get(ps, name, pd->def) : NAN;
}

/* A solver asking for a parameter it does not document is a bug in the solver, not bad input. */
static int undocumented(const ncp_solver_desc *d, const char *name, ncp_error *err)
{
    return ncp_error_set(err, NCP_ERR_INTERNAL,
                         "%s: parameter %s is read but missing from the solver's parameter table "
                         "(%s)",
                         d->name, name, d->file);
}

int ncp_solver_param_real(const ncp_solver_desc *d, const ncp_params *ps, const char *name,
                          double lo, double hi, unsigned open, double *out, ncp_error *err)
{
    if (!param_doc(d, name)) return undocumented(d, name, err);
    double v = ncp_solver_param(d, ps, name);
    int lo_open = (open & NCP_PARAM_LO_OPEN) != 0, hi_open = (open & NCP_PARAM_HI_OPEN) != 0;
    int ok = isfinite(v) && (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
    if (!ok && isinf(hi))
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "%s: parameter %s = %g must be a finite number %s %g", d->name, name,
                             v, lo_open ? ">" : ">=", lo);
    if (!ok)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: parameter %s = %g must lie in %c%g, %g%c",
                             d->name, name, v, lo_open ? '(' : '[', lo, hi, hi_open ? ')' : ']');
    *out = v;
    return NCP_OK;
}

int ncp_solver_param_int(const ncp_solver_desc *d, const ncp_params *ps, const char *name, int lo,
                         int hi, int *out, ncp_error *err)
{
    if (!param_doc(d, name)) return undocumented(d, name, err);
    double v = ncp_solver_param(d, ps, name);
    if (!(v >= lo && v <= hi && v == floor(v)))
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "%s: parameter %s = %g must be an integer in [%d, %d]", d->name, name,
                             v, lo, hi);
    *out = (int)v;
    return NCP_OK;
}

int ncp_solver_need_dual(const ncp_solver_desc *d, const ncp_problem *p, ncp_error *err)
{
    if (!p->has_dual || !p->D || !p->vf)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: problem '%s' has no dual data (D, v_f)",
                             d->name, p->name ? p->name : "?");
    return NCP_OK;
}

int ncp_solver_need_dual_op(const ncp_solver_desc *d, const ncp_problem *p, ncp_error *err)
{
    int primal = (p->has_primal && p->A) || (p->has_sparse_primal && p->A_sparse.rowptr);
    if (!p->vf || !((p->has_dual && p->D) || primal))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: problem '%s' has no Delassus operator "
                             "(D, or primal data) and v_f", d->name, p->name ? p->name : "?");
    return NCP_OK;
}

/* ---------- the sweep ---------- */

/* Entry (a, b) of block bi's diagonal block: from dblk (9 per block) or p's D. */
static double dentry(const ncp_problem *p, const double *dblk, int bi, int a, int b)
{
    if (dblk) return dblk[9 * (size_t)bi + a + 3 * b];
    const int r = p->blocks[bi].row;
    return p->D[(r + a) + (size_t)(r + b) * p->m];
}

/* Largest diagonal entry of D (from the blocks: every row is in one). */
static double diag_max(const ncp_problem *p, const double *dblk)
{
    double dscale = 0.0;
    for (int bi = 0; bi < p->nblocks; bi++)
        for (int i = 0; i < ncp_block_type_size(p->blocks[bi].type); i++)
            dscale = fmax(dscale, dentry(p, dblk, bi, i, i));
    return dscale;
}

/* Largest eigenvalue of the 3x3 diagonal block bi (symmetrised copy). */
static int block_max_eig(const ncp_problem *p, const double *dblk, int bi, double *lmax,
                         ncp_error *err)
{
    double B[9], ev[3];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            B[i + 3 * j] = 0.5 * (dentry(p, dblk, bi, i, j) + dentry(p, dblk, bi, j, i));
    int rc = ncp_sym_eig(3, B, ev, err);
    *lmax = ev[2];
    return rc;
}

int ncp_block_steps(const ncp_problem *p, double *step, double *scale, ncp_error *err)
{
    if (p->has_dual && p->D) return ncp_block_steps_diag(p, NULL, step, scale, err);
    /* no D (built on demand only, core/problem.h): the diagonal blocks J_i A^{-1} J_i^T
     * through the operator's primal route */
    ncp_dop op;
    int rc = ncp_dop_init(&op, p, NCP_DOP_AUTO, err);
    if (rc) return rc;
    double *dk = ncp_malloc(err, 9 * (size_t)(p->nblocks > 0 ? p->nblocks : 1), sizeof(double));
    if (!dk) rc = NCP_ERR_NOMEM;
    for (int bi = 0; !rc && bi < p->nblocks; bi++) {
        const int k = ncp_block_type_size(p->blocks[bi].type);
        double B[9];
        ncp_dop_diag_block(&op, p->blocks[bi].row, k, B);
        for (int b = 0; b < k; b++) /* dblk's layout: entry (a, b) at a + 3 b */
            for (int a = 0; a < k; a++) dk[9 * (size_t)bi + a + 3 * b] = B[a + k * b];
    }
    if (!rc) rc = ncp_block_steps_diag(p, dk, step, scale, err);
    free(dk);
    ncp_dop_free(&op);
    return rc;
}

int ncp_block_steps_diag(const ncp_problem *p, const double *dblk, double *step, double *scale,
                         ncp_error *err)
{
    /* A curvature below 1e-14 of the largest diagonal entry is treated as zero (no
     * self-influence). */
    double dscale = diag_max(p, dblk);
    double dmin = 1e-14 * dscale;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        double d;
        if (b->type == NCP_CONTACT) {
            int rc = block_max_eig(p, dblk, bi, &d, err);
            if (rc) {
                ncp_error_prefix(err, "contact block at row %d: ", b->row);
                return rc;
            }
        } else {
            d = dentry(p, dblk, bi, 0, 0);
        }
        int tiny = !(d > dmin && d > 0.0);
        step[bi] = tiny ? 0.0 : 1.0 / d;
        if (scale) scale[bi] = tiny ? (dscale > 0.0 ? dscale : 1.0) : d;
    }
    return NCP_OK;
}

double ncp_gs_diag_max(const ncp_problem *p, const double *dblk)
{
    return diag_max(p, dblk);
}

/* ---------- the velocity during a sweep ---------- */

/* Binds u to op with no route data yet (g zeroed: no velocity route, nothing owned). */
static void gs_vel_bind(ncp_gs_vel *g, const ncp_dop *op, double *u)
{
    memset(g, 0, sizeof *g);
    g->op = op;
    g->u = u;
}

/* The low-rank route's F^T when op has rank > 0 (nothing on the dense route). */
static int gs_vel_lowrank(ncp_gs_vel *g, ncp_error *err)
{
    const ncp_dop *op = g->op;
    const int m = op->m, r = op->rank;
    if (r == 0) return NCP_OK;
    if (!(g->t = ncp_calloc(err, (size_t)r, sizeof(double))) ||
        !(g->Ft = ncp_malloc(err, (size_t)r * m, sizeof(double))))
        return NCP_ERR_NOMEM;
    for (int i = 0; i < m; i++)
        for (int c = 0; c < r; c++) g->Ft[c + (size_t)i * r] = op->F[i + (size_t)c * m];
    return NCP_OK;
}

/* The nonzeros route's runs of D's columns. */
static int gs_vel_nonzeros(ncp_gs_vel *g, ncp_error *err)
{
    const ncp_dop *op = g->op;
    if (op->rank != 0 || op->chol || !op->D)
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "the Gauss-Seidel sweep on D's nonzeros needs the dense D (route "
                             "NCP_DOP_DENSE)");
    const int m = op->m;
    if (!(g->run_ptr = ncp_malloc(err, (size_t)m + 1, sizeof(size_t)))) return NCP_ERR_NOMEM;
    /* two passes: count the runs of each column, then record them */
    for (int pass = 0; pass < 2; pass++) {
        size_t nr = 0;
        for (int j = 0; j < m; j++) {
            const double *col = op->D + (size_t)j * m;
            if (pass == 0) g->run_ptr[j] = nr;
            for (int i = 0; i < m;) {
                if (col[i] == 0.0) {
                    i++;
                    continue;
                }
                int first = i;
                while (i < m && col[i] != 0.0) i++;
                if (pass == 1) {
                    g->run[2 * nr] = first;
                    g->run[2 * nr + 1] = i - first;
                }
                nr++;
            }
        }
        if (pass == 0) {
            g->run_ptr[m] = nr;
            if (!(g->run = ncp_malloc(err, 2 * (nr > 0 ? nr : 1), sizeof(int))))
                return NCP_ERR_NOMEM;
        }
    }
    return NCP_OK;
}

int ncp_gs_vel_init(ncp_gs_vel *g, const ncp_dop *op, double *u, ncp_error *err)
{
    gs_vel_bind(g, op, u);
    int rc = gs_vel_lowrank(g, err);
    if (rc) ncp_gs_vel_free(g);
    return rc;
}

int ncp_gs_vel_init_nonzeros(ncp_gs_vel *g, const ncp_dop *op, double *u, ncp_error *err)
{
    gs_vel_bind(g, op, u);
    int rc = gs_vel_nonzeros(g, err);
    if (rc) ncp_gs_vel_free(g);
    return rc;
}

/* Whether p has the primal data of the velocity route: J, e, A (dense or A_sparse), and v_f or
 * b to build it from. */
static int has_velocity_data(const ncp_problem *p)
{
    int J = p->nv > 0 && p->J.rowptr && p->J.m == p->m && p->J.n == p->nv;
    int dense = p->has_primal && p->A;
    int sparse = p->has_sparse_primal && p->A_sparse.rowptr && p->A_sparse.m == p->nv &&
                 p->A_sparse.n == p->nv;
    int vf = p->vf || p->b;
    return J && (dense || sparse) && p->e && vf;
}

/* ncp_gs_vel_route, with the two estimates (flops per sweep, halved: velocity form, Delassus
 * route) in est when it compares them (else left as they are). */
static int gs_route(const ncp_problem *p, int sweep, int *route, double est[2], ncp_error *err)
{
    *route = sweep;
    if (sweep == NCP_GS_VELOCITY && !has_velocity_data(p))
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "problem '%s' has no primal data (A, J, e, and v_f or b) for the "
                             "velocity-form sweep (sweep = 3)", p->name ? p->name : "?");
    if (sweep != NCP_GS_AUTO) return NCP_OK;
    *route = NCP_GS_DELASSUS;
    if (!has_velocity_data(p)) return NCP_OK;
    ncp_csr own;
    const ncp_csr *A;
    int rc = ncp_problem_mass_csr(p, &own, &A, err);
    const int nv = p->nv;
    int *block = rc ? NULL : ncp_malloc(err, (size_t)nv, sizeof(int));
    int *size = rc ? NULL : ncp_calloc(err, (size_t)nv, sizeof(int));
    int *mark = rc ? NULL : ncp_malloc(err, (size_t)nv, sizeof(int));
    if (!rc && (!block || !size || !mark)) rc = NCP_ERR_NOMEM;
    if (!rc) {
        int nb = ncp_csr_components(A, block, err);
        if (nb < 0) {
            rc = -nb;
        } else {
            for (int i = 0; i < nv; i++) size[block[i]]++;
            const double m = p->m;
            double vel = 2.0 * p->J.nnz + (double)ncp_jmap_nnz(nb, block, size, &p->J, mark);
            double del = m * m;
            if (p->has_primal && p->A && 4 * nv <= p->m) del = fmin(del, 3.0 * m * nv);
            if (NCP_GS_VEL_FLOP_WEIGHT * vel <= del) *route = NCP_GS_VELOCITY;
            est[0] = vel;
            est[1] = del;
        }
    }
    ncp_csr_free(&own);
    free(block);
    free(size);
    free(mark);
    return rc;
}

int ncp_gs_vel_route(const ncp_problem *p, int sweep, int *route, ncp_error *err)
{
    double est[2];
    return gs_route(p, sweep, route, est, err);
}

/* The velocity route: A factorised block by block, Y = A^{-1} J^T, D_kk = J_k Y_k, v_f. */
static int gs_vel_velocity(ncp_gs_vel *g, const ncp_problem *p, ncp_error *err)
{
    const int nv = p->nv;
    ncp_csr own;
    const ncp_csr *A;
    ncp_sparse_chol *F = NULL;
    int rc = ncp_problem_mass_csr(p, &own, &A, err);
    if (!rc) rc = ncp_sparse_chol_factor(A, NULL, &F, err);
    if (rc == NCP_ERR_NUMERIC || rc == NCP_ERR_INPUT) ncp_error_prefix(err, "mass matrix A: ");
    if (!rc) rc = ncp_sparse_chol_jmap(F, &p->J, &g->Y, err);
    /* the problem's v_f whenever it keeps one (a completed primal problem keeps v_f without D,
     * core/problem.h): the v_f the answer is graded with, not a copy rebuilt in the solver's
     * setup that differs from it by rounding */
    if (!rc && !p->vf) { /* v_f = J A^{-1} b + e, block by block */
        if (!(g->vf_own = ncp_malloc(err, (size_t)(p->m > 0 ? p->m : 1), sizeof(double))))
            rc = NCP_ERR_NOMEM;
        else
            rc = ncp_sparse_chol_delassus(F, p->b, &p->J, p->e, NULL, g->vf_own, err);
    }
    g->vf = p->vf ? p->vf : g->vf_own;
    ncp_sparse_chol_free(F);
    ncp_csr_free(&own);
    if (!rc && !(g->dv = ncp_calloc(err, (size_t)nv, sizeof(double)))) rc = NCP_ERR_NOMEM;
    if (rc) return rc;
    g->J = &p->J;
    /* D_kk(a, b) = J_{k,a} . Y_{k,b}: Y's column scattered into dv (zero again after) */
    const ncp_jmap *Y = &g->Y;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        const int k = ncp_block_type_size(b->type);
        for (int c = 0; c < k; c++) {
            const int col = b->row + c;
            for (size_t q = Y->ptr[col]; q < Y->ptr[col + 1]; q++) g->dv[Y->idx[q]] += Y->val[q];
            for (int a = 0; a < k; a++)
                g->dblk[9 * (size_t)bi + a + 3 * c] = ncp_csr_row_dot(&p->J, b->row + a, g->dv);
            for (size_t q = Y->ptr[col]; q < Y->ptr[col + 1]; q++) g->dv[Y->idx[q]] = 0.0;
        }
    }
    return NCP_OK;
}

/* Whether the diagonal blocks J_k Y_k agree with the problem's D to 1e-10 of the block's largest
 * diagonal entry (1 when p has no D or its route was verified against J A^{-1} J^T). O(m). */
static int blocks_match(const ncp_gs_vel *g, const ncp_problem *p)
{
    if (!p->has_dual || !p->D || p->dop_route == 1 || p->dop_route == 2) return 1;
    /* a D that is not symmetric is no J A^{-1} J^T (the primal form read with it describes
     * its symmetric part), whatever its diagonal blocks */
    if (!p->dual_symmetric) return 0;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const int k = ncp_block_type_size(p->blocks[bi].type);
        double sc = 0.0;
        for (int a = 0; a < k; a++) sc = fmax(sc, fabs(dentry(p, NULL, bi, a, a)));
        for (int c = 0; c < k; c++)
            for (int a = 0; a < k; a++)
                if (!(fabs(g->dblk[9 * (size_t)bi + a + 3 * c] - dentry(p, NULL, bi, a, c)) <=
                      1e-10 * sc))
                    return 0;
    }
    return 1;
}

int ncp_gs_vel_setup(ncp_gs_vel *g, const ncp_problem *p, int sweep, double *u, ncp_error *err)
{
    gs_vel_bind(g, NULL, u);
    double est[2] = {0.0, 0.0};
    int route, rc = gs_route(p, sweep, &route, est, err);
    g->est_vel = est[0];
    g->est_del = est[1];
    g->asked = sweep != NCP_GS_AUTO;
    if (!rc && !(g->dblk = ncp_calloc(err, 9 * (size_t)(p->nblocks > 0 ? p->nblocks : 1),
                                      sizeof(double))))
        rc = NCP_ERR_NOMEM;
    if (!rc && route == NCP_GS_VELOCITY) {
        rc = gs_vel_velocity(g, p, err);
        /* Under the automatic choice D still serves when A is not SPD to working precision, or
         * when the problem carries a D that is not J A^{-1} J^T (a file's regularised D; not
         * checked where the Delassus operator verified it already) */
        int differs = !rc && sweep == NCP_GS_AUTO && !blocks_match(g, p);
        if (differs || (rc && rc != NCP_ERR_NOMEM && sweep == NCP_GS_AUTO && p->has_dual && p->D)) {
            const char *why = differs ? "D is not J A^-1 J^T" : "A is not positive definite";
            ncp_error_clear(err);
            double *dblk = g->dblk;
            g->dblk = NULL;
            ncp_gs_vel_free(g);
            gs_vel_bind(g, NULL, u);
            g->dblk = dblk;
            g->est_vel = est[0];
            g->est_del = est[1];
            g->asked = 0;
            g->fallback = why;
            route = NCP_GS_DELASSUS;
            rc = NCP_OK;
        }
    }
    g->route = route;
    /* a problem that keeps no D (core/problem.h): the low-rank route serves without it (F F^T
     * and its diagonal blocks); the routes that read D build it here, in the solver's setup */
    const int lowrank = route == NCP_GS_DELASSUS && !(p->has_dual && p->D) && p->dop_route == 1;
    if (!rc && route != NCP_GS_VELOCITY && !lowrank && !(p->has_dual && p->D) &&
        (p->has_primal || p->has_sparse_primal)) {
        rc = ncp_problem_dual_view(p, &g->dview, &g->D_own, err);
        p = &g->dview;
    }
    if (!rc && route != NCP_GS_VELOCITY) {
        if (!((lowrank || (p->has_dual && p->D)) && p->vf))
            rc = ncp_error_set(err, NCP_ERR_INPUT,
                               "problem '%s' has no dual data (D, v_f) for the Gauss-Seidel sweep "
                               "on D (sweep = %d)", p->name ? p->name : "?", route);
        else if (!(rc = ncp_dop_init(&g->own, p,
                                     route == NCP_GS_NONZEROS ? NCP_DOP_DENSE : NCP_DOP_AUTO,
                                     err))) {
            g->op = &g->own;
            g->vf = p->vf;
            rc = route == NCP_GS_NONZEROS ? gs_vel_nonzeros(g, err) : gs_vel_lowrank(g, err);
            for (int bi = 0; !rc && bi < p->nblocks; bi++) {
                const int k = ncp_block_type_size(p->blocks[bi].type);
                double B[9];
                if (lowrank) ncp_dop_diag_block(&g->own, p->blocks[bi].row, k, B);
                for (int c = 0; c < k; c++)
                    for (int a = 0; a < k; a++)
                        g->dblk[9 * (size_t)bi + a + 3 * c] =
                            lowrank ? B[a + k * c] : dentry(p, NULL, bi, a, c);
            }
        }
    }
    if (rc) ncp_gs_vel_free(g);
    return rc;
}

void ncp_gs_vel_describe(const ncp_gs_vel *g, char *buf, size_t size)
{
    char what[64];
    if (g->route == NCP_GS_VELOCITY)
        snprintf(what, sizeof what, "velocity form");
    else if (g->route == NCP_GS_NONZEROS)
        snprintf(what, sizeof what, "D nonzeros");
    else if (g->op && g->op->rank > 0)
        snprintf(what, sizeof what, "D low rank F F^T (r = %d)", g->op->rank);
    else
        snprintf(what, sizeof what, "D columns");
    int n;
    if (g->asked)
        n = snprintf(buf, size, "sweep %s (as asked)", what);
    else if (g->est_vel > 0.0 || g->est_del > 0.0) /* flops per sweep, 2x the halved estimates */
        n = snprintf(buf, size, "sweep %s: est. velocity form %.2g flops/sweep, D route %.2g",
                     what, 2.0 * g->est_vel, 2.0 * g->est_del);
    else
        n = snprintf(buf, size, "sweep %s (no primal data for the velocity form)", what);
    if (g->fallback && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, " (%s)", g->fallback);
}

void ncp_gs_vel_start(ncp_gs_vel *g, const double *lambda)
{
    const int m = g->op ? g->op->m : g->Y.m;
    if (g->dv) { /* u = v_f + J (Y lambda) */
        const ncp_jmap *Y = &g->Y;
        ncp_zero(Y->n, g->dv);
        for (int i = 0; i < m; i++) {
            if (lambda[i] == 0.0) continue;
            for (size_t q = Y->ptr[i]; q < Y->ptr[i + 1]; q++)
                g->dv[Y->idx[q]] += Y->val[q] * lambda[i];
        }
        for (int i = 0; i < m; i++) g->u[i] = g->vf[i] + ncp_csr_row_dot(g->J, i, g->dv);
        ncp_zero(Y->n, g->dv);
        return;
    }
    ncp_copy(m, g->vf, g->u);
    ncp_dop_apply(&g->own, 1.0, lambda, 1.0, g->u);
}

void ncp_gs_vel_free(ncp_gs_vel *g)
{
    free(g->t);
    free(g->Ft);
    free(g->run_ptr);
    free(g->run);
    ncp_jmap_free(&g->Y);
    free(g->dv);
    free(g->dblk);
    free(g->vf_own);
    ncp_dop_free(&g->own);
    free(g->D_own);
    double *u = g->u;
    memset(g, 0, sizeof *g);
    g->u = u;
}

void ncp_gs_vel_begin(ncp_gs_vel *g)
{
    if (g->t) ncp_zero(g->op->rank, g->t);
    if (g->dv) ncp_zero(g->Y.n, g->dv);
}

void ncp_gs_vel_end(ncp_gs_vel *g)
{
    if (g->dv) { /* u += J dv */
        const ncp_csr *J = g->J;
        for (int i = 0; i < J->m; i++) g->u[i] += ncp_csr_row_dot(J, i, g->dv);
        return;
    }
    const ncp_dop *op = g->op;
    if (g->t && op->m > 0) ncp_gemv(0, op->m, op->rank, 1.0, op->F, g->t, 1.0, g->u);
}

void ncp_gs_vel_get(const ncp_gs_vel *g, int r, int n, double *out)
{
    if (g->dv) { /* u_i + J_i dv */
        for (int i = 0; i < n; i++) out[i] = g->u[r + i] + ncp_csr_row_dot(g->J, r + i, g->dv);
        return;
    }
    const int k = g->op->rank;
    for (int i = 0; i < n; i++) {
        double s = g->u[r + i];
        if (g->t) { /* + F_{r+i,:} t */
            const double *f = g->Ft + (size_t)(r + i) * k;
            for (int c = 0; c < k; c++) s += f[c] * g->t[c];
        }
        out[i] = s;
    }
}

void ncp_gs_vel_add(ncp_gs_vel *g, int r, int n, const double *dl)
{
    const ncp_dop *op = g->op;
    for (int j = 0; j < n; j++) {
        if (dl[j] == 0.0) continue;
        if (g->dv) { /* dv += Y_{:, r+j} dl_j */
            const ncp_jmap *Y = &g->Y;
            const int *idx = Y->idx;
            const double *val = Y->val;
            for (size_t q = Y->ptr[r + j]; q < Y->ptr[r + j + 1]; q++) g->dv[idx[q]] += val[q] * dl[j];
        } else if (g->t) { /* t += F_{r+j,:}^T dl_j */
            const double *f = g->Ft + (size_t)(r + j) * op->rank;
            for (int c = 0; c < op->rank; c++) g->t[c] += f[c] * dl[j];
        } else if (g->run_ptr) { /* u += D(:, r+j) dl_j over the column's nonzero runs */
            const double *col = op->D + (size_t)(r + j) * op->m;
            for (size_t q = g->run_ptr[r + j]; q < g->run_ptr[r + j + 1]; q++) {
                int first = g->run[2 * q], len = g->run[2 * q + 1];
                ncp_axpy(len, dl[j], col + first, g->u + first);
            }
        } else { /* u += D(:, r+j) dl_j (D symmetric column-major, columns contiguous) */
            ncp_axpy(op->m, dl[j], op->D + (size_t)(r + j) * op->m, g->u);
        }
    }
}

/* ---------- projected Gauss–Seidel ---------- */

/* One contact block: local projected steps, then the coupling update. Returns max |delta|. */
static double sweep_contact(const ncp_problem *p, ncp_gs_vel *g, int bi, double step,
                            double omega, int local_iter, double *lambda)
{
    const ncp_block *b = &p->blocks[bi];
    int row = b->row;
    double *lam = lambda + row;
    /* D_kk(i, j) = Dk[i + j m] */
    const size_t m = g->dblk ? 3 : (size_t)p->m;
    const double *Dk = g->dblk ? g->dblk + 9 * (size_t)bi : p->D + row + (size_t)row * m;
    double ul[3], old[3], z[3], x[3], dl[3];
    ncp_gs_vel_get(g, row, 3, ul);
    for (int i = 0; i < 3; i++) old[i] = lam[i];
    for (int it = 0; it < local_iter; it++) {
        double prev[3] = {lam[0], lam[1], lam[2]};
        ncp_desaxce(b->mu, ul, z); /* z = u + Gamma(u), NCP report 2025 Alg. 5 line 16 */
        for (int i = 0; i < 3; i++) x[i] = lam[i] - omega * step * z[i];
        ncp_cone_project(b->mu, x, lam);
        /* local velocity follows lambda through D_kk only (other rows are frozen) */
        for (int i = 0; i < 3; i++) dl[i] = lam[i] - prev[i];
        for (int i = 0; i < 3; i++)
            ul[i] += Dk[i] * dl[0] + Dk[i + m] * dl[1] + Dk[i + 2 * m] * dl[2];
        if (dl[0] == 0.0 && dl[1] == 0.0 && dl[2] == 0.0) break;
    }
    double dmax = 0.0;
    for (int i = 0; i < 3; i++) {
        dl[i] = lam[i] - old[i];
        dmax = fmax(dmax, fabs(dl[i]));
    }
    /* the exact coupling update (also refreshes u_k itself, discarding the local estimate) */
    ncp_gs_vel_add(g, row, 3, dl);
    return dmax;
}

/* One scalar block (the exact 1-D Gauss–Seidel solve, relaxed by omega). Returns |delta|. */
double ncp_pgs_scalar(ncp_gs_vel *g, const ncp_block *b, double invd, double omega,
                      double *lambda)
{
    int r = b->row;
    double lam = lambda[r], ur, nl = lam;
    ncp_gs_vel_get(g, r, 1, &ur);
    switch (b->type) {
    case NCP_BILATERAL:
        nl = lam - omega * ur * invd;
        break;
    case NCP_UNILATERAL:
        nl = fmax(0.0, lam - omega * ur * invd);
        break;
    case NCP_SOFT: {
        /* lambda = -k phi - c (u_o + D_rr lambda)  =>  lambda = (-k phi - c u_o)/(1 + c D_rr) */
        double drr = 1.0 / invd;
        double uo = ur - drr * lam;
        double ls = (-b->k * b->phi - b->c * uo) / (1.0 + b->c * drr);
        nl = lam + omega * (ls - lam);
        break;
    }
    default:
        break;
    }
    double dl = nl - lam;
    lambda[r] = nl;
    ncp_gs_vel_add(g, r, 1, &dl);
    return fabs(dl);
}

double ncp_pgs_sweep_vel(const ncp_problem *p, ncp_gs_vel *g, const double *step, double omega,
                         int local_iter, double *lambda)
{
    double dmax = 0.0;
    ncp_gs_vel_begin(g);
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        if (step[bi] == 0.0) continue; /* no self-influence: Gauss–Seidel has nothing to say */
        double d = (b->type == NCP_CONTACT)
                       ? sweep_contact(p, g, bi, step[bi], omega, local_iter, lambda)
                       : ncp_pgs_scalar(g, b, step[bi], omega, lambda);
        dmax = fmax(dmax, d);
    }
    ncp_gs_vel_end(g);
    return dmax;
}

double ncp_pgs_sweep(const ncp_problem *p, const double *step, double omega, int local_iter,
                     double *lambda, double *u)
{
    ncp_dop op = {.m = p->m, .D = p->D}; /* the dense route: nothing to allocate */
    ncp_gs_vel g = {.op = &op, .u = u};
    return ncp_pgs_sweep_vel(p, &g, step, omega, local_iter, lambda);
}

/* ---------- the iteration protocol ---------- */

int ncp_peer_wait(ncp_run *run, double budget_ms, int cpu, int fd, int pid, double from_ms)
{
    for (;;) {
        double pending = 0.0;
        if (cpu) {
            double now = ncp_process_cpu_ms(pid); /* NaN once the child is gone: nothing */
            if (now > from_ms) pending = now - from_ms;
        }
        double spent = ncp_run_elapsed_ms(run) + pending;
        if ((budget_ms > 0.0 && spent >= budget_ms) || ncp_run_interrupted(run)) {
            (void)ncp_run_add_cpu_ms(run, pending);
            return 1;
        }
        int timeout = 100; /* the interrupt, and a threaded child's CPU outrunning the wall */
        if (budget_ms > 0.0 && budget_ms - spent < 100.0)
            timeout = budget_ms - spent >= 1.0 ? (int)ceil(budget_ms - spent) : 1;
        struct pollfd pf = {fd, POLLIN, 0};
        int r = poll(&pf, 1, timeout);
        if (r < 0 && errno == EINTR) continue;
        if (r != 0) return 0; /* data, end of file or an error: the caller's read tells */
    }
}

int ncp_solver_iter_end(ncp_run *run, int k, int m, const double *lambda, int stalled,
                        int *status)
{
    if (!ncp_all_finite(m, lambda)) {
        *status = NCP_STATUS_FAILED;
        return 1;
    }
    if (ncp_run_iterate(run, k, lambda, NULL)) return 1;
    if (stalled) {
        *status = NCP_STATUS_STALLED;
        return 1;
    }
    return 0;
}

void ncp_solver_finish(ncp_solve_out *out, int m, const double *lambda, int k, int status)
{
    ncp_copy(m, lambda, out->lambda);
    out->has_v = 0;
    out->iterations = k;
    if (status >= 0) out->status = status;
}

/* ---------- projected first-order steps ---------- */

void ncp_ccp_hessian_apply(const ncp_problem *p, ncp_dop *op, const double *x, double *y)
{
    ncp_dop_apply(op, 1.0, x, 0.0, y);
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        if (b->type == NCP_SOFT && b->c > 0.0) y[b->row] += x[b->row] / b->c;
    }
}

void ncp_block_gradient(const ncp_block *b, int desaxce, const double *lambda, const double *u,
                        double *g)
{
    switch (b->type) {
    case NCP_BILATERAL:
    case NCP_UNILATERAL:
        g[0] = u[0];
        break;
    case NCP_SOFT:
        g[0] = b->c > 0.0 ? u[0] + (lambda[0] + b->k * b->phi) / b->c : 0.0;
        break;
    case NCP_CONTACT:
        if (desaxce) {
            ncp_desaxce(b->mu, u, g);
        } else {
            g[0] = u[0];
            g[1] = u[1];
            g[2] = u[2];
        }
        break;
    default:
        break;
    }
}

void ncp_block_project(const ncp_block *b, const double *x, double *out)
{
    switch (b->type) {
    case NCP_BILATERAL:
        out[0] = x[0];
        break;
    case NCP_UNILATERAL:
        out[0] = fmax(0.0, x[0]);
        break;
    case NCP_SOFT:
        out[0] = b->c > 0.0 ? x[0] : -b->k * b->phi;
        break;
    case NCP_CONTACT:
        ncp_cone_project(b->mu, x, out);
        break;
    default:
        break;
    }
}

int ncp_block_fo_steps(const ncp_problem *p, double *step, ncp_error *err)
{
    int rc = ncp_block_steps(p, step, NULL, err);
    if (rc) return rc;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        if (b->type != NCP_SOFT) continue;
        /* D_rr below the negligible threshold counts as 0 here too (ncp_block_steps) */
        double drr = step[bi] > 0.0 ? 1.0 / step[bi] : 0.0;
        step[bi] = b->c > 0.0 ? 1.0 / (drr + 1.0 / b->c) : 1.0;
    }
    return NCP_OK;
}

double ncp_power_lmax(int m, void (*apply)(void *ctx, const double *x, double *y), void *ctx,
                      int max_iter, double rtol, double *v, double *w)
{
    if (m <= 0) return 0.0;
    /* positive, unequal entries: not orthogonal to the top eigenvector of the usual
     * (entrywise mostly non-negative on the diagonal blocks) Delassus operators */
    for (int i = 0; i < m; i++) v[i] = 1.0 + (double)((i * 7919) % 101) / 202.0;
    ncp_scal(m, 1.0 / ncp_norm2(m, v), v);
    double lam = 0.0;
    for (int it = 0; it < max_iter; it++) {
        apply(ctx, v, w);
        double rq = ncp_dot(m, v, w); /* Rayleigh quotient, |v| = 1 */
        double nw = ncp_norm2(m, w);
        if (!(nw > 0.0) || !isfinite(nw)) return fmax(rq, 0.0);
        int done = it > 0 && fabs(rq - lam) <= rtol * fabs(rq);
        lam = rq;
        if (done) break;
        for (int i = 0; i < m; i++) v[i] = w[i] / nw;
    }
    return fmax(lam, 0.0);
}

void ncp_direct_io(const ncp_problem *p, const ncp_params *ps, int iterations,
                   const double *lambda0, const double *v0, double *lambda, double *v,
                   ncp_solve_in *in, ncp_solve_out *out)
{
    ncp_budget budget = {0.0, iterations, 0.0};
    ncp_solve_in tmp = {p, budget, ps, lambda0, v0};
    *in = tmp;
    memset(out, 0, sizeof *out);
    out->lambda = lambda;
    out->v = v;
    out->status = -1;
}

void ncp_note_gs(ncp_run *run, const ncp_gs_vel *g)
{
    char text[160];
    ncp_gs_vel_describe(g, text, sizeof text);
    ncp_run_note(run, "%s", text);
}

void ncp_note_dop(ncp_run *run, const ncp_dop *op)
{
    char text[160];
    ncp_dop_describe(op, text, sizeof text);
    ncp_run_note(run, "%s", text);
}
