/* One time step (step.h).
 *
 * The integrators of dynamics.c, primal form (docs/design.md):
 *   collision (pairs the model excludes dropped) -> the world's rows (limits, closures,
 *   springs) -> step matrices A, b -> assembly -> hook (capture) -> the caller's contact solve
 *   (capture/ runs the driver solver under the harness, the benchmark's stopping rule) ->
 *   v = A^{-1}(b + J^T lambda) (the solve's v) -> positions and velocities
 *   (ncp_world_integrate).
 *
 * Warm start: the previous step's impulses are kept keyed by row identity. Contacts are keyed by
 * (shape pair, feature) and kept as world vectors projected onto the new contact frames (cheap,
 * and correct when the tangent basis turns with the normal); joint rows by (producer, index,
 * row). A row without a match starts at 0.
 *
 * Every problem carries the state its step starts from (problem.h guess_v, guess_lambda; Lee et
 * al. 2025 §V-D warm-starts the first iteration from the previous time step): the velocity
 * w->v before the step and the matched impulses above, whether or not this step's own solve
 * warm-starts. The solve gets both when o->warm_start is set (lambda0, and p->guess_v). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/spatial.h"
#include "sim/assemble.h"
#include "sim/collide.h"
#include "sim/step.h"
#include "geometry/contact.h"
#include "sim/constraints.h"
#include "sim/dynamics.h"

struct ncp_warm_entry {
    int key[4];
    double impulse[3]; /* contacts: lambda_n n + lambda_t1 t1 + lambda_t2 t2, world; else [0] */
};

static int cmp_warm(const void *x, const void *y)
{
    const struct ncp_warm_entry *a = x, *b = y;
    for (int i = 0; i < 4; i++)
        if (a->key[i] != b->key[i]) return (a->key[i] > b->key[i]) - (a->key[i] < b->key[i]);
    return 0;
}

static void warm_start_guess(const ncp_world *w, const ncp_contact *con, const ncp_problem *p,
                             const int *keys, double *lambda0)
{
    ncp_zero(p->m, lambda0);
    for (int i = 0; i < p->nblocks; i++) {
        const ncp_block *bk = &p->blocks[i];
        struct ncp_warm_entry key;
        memcpy(key.key, keys + 4 * i, sizeof key.key);
        const struct ncp_warm_entry *hit =
            w->nwarm ? bsearch(&key, w->warm, (size_t)w->nwarm, sizeof key, cmp_warm) : NULL;
        if (!hit) continue;
        if (bk->type == NCP_CONTACT) {
            const ncp_contact *c = &con[bk->contact];
            for (int r = 0; r < 3; r++) lambda0[bk->row + r] = ncp_v3_dot(c->frame + 3 * r, hit->impulse);
        } else {
            lambda0[bk->row] = hit->impulse[0];
        }
    }
}

static int warm_store(ncp_world *w, const ncp_contact *con, const ncp_problem *p, const int *keys,
                      const double *lambda, ncp_error *err)
{
    if (p->nblocks > w->capwarm) {
        struct ncp_warm_entry *nw = realloc(w->warm, (size_t)p->nblocks * sizeof *nw);
        if (!nw) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory keeping warm-start impulses");
        w->warm = nw;
        w->capwarm = p->nblocks;
    }
    int n = 0;
    for (int i = 0; i < p->nblocks; i++) {
        const ncp_block *bk = &p->blocks[i];
        struct ncp_warm_entry *e = &w->warm[n++];
        memcpy(e->key, keys + 4 * i, sizeof e->key);
        ncp_v3_set(e->impulse, 0, 0, 0);
        if (bk->type == NCP_CONTACT) {
            const ncp_contact *c = &con[bk->contact];
            for (int r = 0; r < 3; r++) ncp_v3_axpy(lambda[bk->row + r], c->frame + 3 * r, e->impulse);
        } else {
            e->impulse[0] = lambda[bk->row];
        }
    }
    qsort(w->warm, (size_t)n, sizeof *w->warm, cmp_warm);
    /* a key seen twice (cannot happen with distinct features) would make bsearch ambiguous:
     * keep the first */
    int k = 0;
    for (int i = 0; i < n; i++)
        if (k == 0 || cmp_warm(&w->warm[k - 1], &w->warm[i]) != 0) w->warm[k++] = w->warm[i];
    w->nwarm = k;
    return NCP_OK;
}

/* A numeric failure while building the step's matrices (A not positive definite, ...) names the
 * step, and the state it started from: a diverged simulation (velocities of 1e20 after a
 * driver's inaccurate answers, e.g. an AL iterate stopped early by --step-budget-ms) makes the
 * mass matrix of the garbage configuration fail, and the message should say so, not only
 * "problem ?: mass matrix A". */
static int step_failed(const ncp_world *w, int rc, ncp_error *err)
{
    if (rc != NCP_ERR_NUMERIC) return rc;
    double vmax = 0.0;
    int finite = ncp_all_finite(w->model->nq, w->q);
    for (int i = 0; i < w->model->nv; i++) {
        if (!isfinite(w->v[i])) finite = 0;
        else vmax = fmax(vmax, fabs(w->v[i]));
    }
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    ncp_error_clear(err); /* ncp_error_set keeps a first message */
    if (finite)
        return ncp_error_set(err, rc, "step %d (t = %g s): %s (the step starts from generalised "
                             "velocities up to %.3g: if that is not physical, the simulation "
                             "diverged on earlier answers of the driver solver; try a larger "
                             "--step-budget-ms, another driver or a smaller timestep)", w->step,
                             w->time, msg, vmax);
    return ncp_error_set(err, rc, "step %d (t = %g s): %s (the step starts from a non-finite "
                         "state: the simulation diverged on earlier answers of the driver "
                         "solver; try a larger --step-budget-ms, another driver or a smaller "
                         "timestep)", w->step, w->time, msg);
}

int ncp_world_step(ncp_world *w, const ncp_step_opts *o, ncp_step_hook hook, void *ctx,
                   ncp_step_info *info, ncp_error *err)
{
    const ncp_model *m = w->model;
    int nv = m->nv;
    ncp_step_info dummy;
    if (!info) info = &dummy;
    memset(info, 0, sizeof *info);
    info->status = -1;
    ncp_contact_list cl = {0, 0, NULL};
    ncp_problem p;
    ncp_problem_init(&p);
    ncp_step_solve_out res;
    memset(&res, 0, sizeof res);
    ncp_cons_entry *rows = NULL;
    int nrows = 0, *keys = NULL;
    double mscale = 1.0;
    /* dense nv x nv A, or per-subsystem blocks above the block-route threshold (dynamics.h) */
    const int packed = ncp_model_block_mass(m);
    ncp_stepmat A = {0, NULL, NULL};
    double *buf = ncp_malloc(err, 3 * (size_t)nv, sizeof(double)); /* b, diag, v */
    int rc = !buf ? NCP_ERR_NOMEM : ncp_stepmat_alloc(m, packed, &A, err);
    if (!rc) rc = ncp_world_collide(w, &cl, err);
    if (!rc) rc = ncp_world_rows(w, &rows, &nrows, err);
    if (!rc) rc = step_failed(w, ncp_world_step_matrices_sm(w, &A, buf, buf + nv, &mscale, err),
                              err);
    if (rc) goto done;
    info->ncontacts = cl.n;
    if (cl.n == 0 && nrows == 0) {
        /* unconstrained step: v = A^{-1} b; nothing to capture */
        if ((rc = step_failed(w, ncp_world_solve_sm(w, &A, buf, buf + 2 * nv, err), err)))
            goto done;
        ncp_world_integrate(w, buf + 2 * nv);
        w->nwarm = 0;
        goto done;
    }
    keys = ncp_malloc(err, 4 * (size_t)(nrows + cl.n), sizeof(int));
    if (!keys) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    rc = ncp_assemble_rows(w, &A, buf, buf + nv, mscale, rows, nrows, cl.c, cl.n, &p, keys, err);
    if ((rc = step_failed(w, rc, err))) goto done;
    info->nrows = p.m;
    char name[32];
    snprintf(name, sizeof name, "step%06d", w->step);
    p.name = ncp_strdup(err, name);
    p.scene = ncp_strdup(err, "");
    p.driver = ncp_strdup(err, o->driver ? o->driver : "");
    if (!p.name || !p.scene || !p.driver) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    p.step = w->step;
    p.guess_lambda = ncp_malloc(err, (size_t)p.m, sizeof(double));
    p.guess_v = ncp_malloc(err, (size_t)nv, sizeof(double));
    if (!p.guess_lambda || !p.guess_v) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    warm_start_guess(w, cl.c, &p, keys, p.guess_lambda);
    if (nv) memcpy(p.guess_v, w->v, (size_t)nv * sizeof(double));
    if (hook && (rc = hook(ctx, &p, err))) goto done;

    res.lambda = ncp_malloc(err, (size_t)p.m, sizeof(double));
    res.v = ncp_malloc(err, (size_t)nv, sizeof(double));
    if (!res.lambda || !res.v) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    if ((rc = o->solve(o->solve_ctx, &p, o->warm_start ? p.guess_lambda : NULL, &res, err))) {
        ncp_error_prefix(err, "step %d, driver %s: ", w->step, p.driver);
        goto done;
    }
    info->iterations = res.iterations;
    info->status = res.status;
    info->residual = res.residual;
    if (res.interrupted) {
        info->interrupted = 1; /* partial impulses: leave the state as it is */
        goto done;
    }
    if (packed && !res.failed && ncp_all_finite(p.m, res.lambda)) {
        /* the problem has no dense A, so the solve gives no v (step.h): v = A^{-1}(b + J^T
         * lambda) with the subsystem blocks */
        memcpy(buf + 2 * nv, buf, (size_t)nv * sizeof(double));
        ncp_csr_gemv_t(&p.J, 1.0, res.lambda, 1.0, buf + 2 * nv);
        if ((rc = ncp_world_solve_sm(w, &A, buf + 2 * nv, res.v, err))) goto done;
    }
    if (res.failed || !ncp_all_finite(nv, res.v) || !ncp_all_finite(p.m, res.lambda)) {
        rc = ncp_error_set(err, NCP_ERR_NUMERIC, "step %d (t = %g s): driver solver %s failed "
                           "(status %s) on %d contacts and %d other rows; try another driver or a "
                           "smaller timestep", w->step, w->time, p.driver,
                           res.status_name[0] ? res.status_name : "?", p.ncontacts,
                           p.m - 3 * p.ncontacts);
        goto done;
    }
    if ((rc = warm_store(w, cl.c, &p, keys, res.lambda, err))) goto done;
    ncp_world_integrate(w, res.v);
done:
    ncp_stepmat_free(&A);
    free(buf);
    free(keys);
    free(rows);
    free(res.lambda);
    free(res.v);
    ncp_problem_free(&p);
    ncp_contact_list_free(&cl);
    return rc;
}
