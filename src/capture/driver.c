/* The harness-backed contact solve of a step (driver.h). */
#include <stdio.h>
#include <string.h>

#include "capture/driver.h"
#include "solve/harness.h"
#include "solvers/registry.h"
#include "metrics/metrics.h"
#include "sim/step.h"

int ncp_driver_for_scene(const ncp_scene *s, const char *name, const volatile int *interrupt,
                         ncp_driver *d, ncp_error *err)
{
    const ncp_bench_cfg *bc = ncp_scene_bench(s);
    const char *dname = name ? name : bc->driver;
    memset(d, 0, sizeof *d);
    /* the scene's catalog: the one its names were checked against, plugins included */
    const ncp_solver_catalog *cat = ncp_scene_catalog(s);
    d->solver = cat ? ncp_catalog_find(cat, dname) : ncp_solver_find(dname);
    if (!d->solver)
        return ncp_error_set(err, NCP_ERR_INPUT, "unknown driver solver \"%s\" (see `ncpbench "
                             "list`; a plugin's solver needs --plugin FILE.so)", dname);
    d->params = ncp_solver_params_find(bc->params, bc->nparams, d->solver->name);
    d->budget = bc->driver_budget;
    d->interrupt = interrupt;
    return NCP_OK;
}

static int driver_solve_stats(const ncp_driver *d, ncp_driver_stats *stats, const ncp_problem *p,
                              const double *lambda0, ncp_step_solve_out *out, ncp_error *err)
{
    ncp_harness_opts ho;
    ncp_harness_opts_default(&ho);
    ho.budget = d->budget;
    ho.interrupt = d->interrupt;
    ncp_result res;
    memset(&res, 0, sizeof res);
    /* warm start: the matched impulses and the velocity the step starts from (step.h) */
    int rc = ncp_harness_solve(d->solver, p, d->params, lambda0, lambda0 ? p->guess_v : NULL, &ho,
                               &res, err);
    if (rc) {
        ncp_result_free(&res);
        return rc;
    }
    out->iterations = res.iterations;
    out->status = res.status;
    snprintf(out->status_name, sizeof out->status_name, "%s", ncp_status_name(res.status));
    out->residual = ncp_metrics_at(&res.final, ho.stop_metric);
    if (stats) {
        stats->solve_ms = res.setup_ms + res.solve_ms;
        stats->iterations = res.iterations;
        stats->status = res.status;
        stats->stop_value = out->residual;
        stats->al_residual = ncp_metrics_at(&res.final, ncp_metrics_index("al_residual"));
        stats->active = ncp_metrics_at(&res.final, ncp_metrics_index("active_contacts"));
    }
    if (res.status == NCP_STATUS_STOPPED && d->interrupt && *d->interrupt) {
        out->interrupted = 1;
    } else if (res.status == NCP_STATUS_FAILED || (!res.v && !p->has_sparse_primal) || !res.lambda) {
        out->failed = 1;
    } else {
        /* a problem without a dense A (the step's block route) gets no v: the step computes
         * it from lambda (step.h) */
        memcpy(out->lambda, res.lambda, (size_t)p->m * sizeof(double));
        /* the solver's own velocity when it has one: the step it would take */
        const double *v = res.solver_v ? res.solver_v : res.v;
        if (v) memcpy(out->v, v, (size_t)p->nv * sizeof(double));
    }
    ncp_result_free(&res);
    return NCP_OK;
}

static int driver_solve(void *ctx, const ncp_problem *p, const double *lambda0,
                        ncp_step_solve_out *out, ncp_error *err)
{
    return driver_solve_stats(ctx, NULL, p, lambda0, out, err);
}

static int probe_solve(void *ctx, const ncp_problem *p, const double *lambda0,
                       ncp_step_solve_out *out, ncp_error *err)
{
    ncp_driver_probe *pr = ctx;
    return driver_solve_stats(pr->driver, &pr->last, p, lambda0, out, err);
}

void ncp_driver_set_step_budget(ncp_driver *d, double ms)
{
    if (ms > 0.0) d->budget.time_ms = ms;
}

void ncp_driver_step_opts(const ncp_driver *d, int warm_start, ncp_step_opts *o)
{
    memset(o, 0, sizeof *o);
    o->driver = d->solver->name;
    o->solve = driver_solve;
    o->solve_ctx = (void *)d;
    o->warm_start = warm_start;
}

void ncp_driver_step_opts_probe(ncp_driver_probe *probe, int warm_start, ncp_step_opts *o)
{
    ncp_driver_step_opts(probe->driver, warm_start, o);
    o->solve = probe_solve;
    o->solve_ctx = probe;
}
