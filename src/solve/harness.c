/* One solver on one problem under a budget, with the solver clock paused while the common
 * metrics are evaluated (see harness.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "solve/harness.h"
#include "metrics/metrics.h"

struct ncp_run {
    const ncp_problem *prob;
    const ncp_harness_opts *opts;
    ncp_metrics_ws *ws;
    ncp_clock clock;
    double setup_ms;
    int setup_done;
    int iterations;
    int status;            /* set when the harness decides to stop; -1 while running */
    ncp_metrics last;      /* metrics of the last reported iterate */
    int have_last;
    double *best_lambda;   /* copy of the last reported iterate (the solver's out may lag) */
    double *best_v;
    int have_v;
    ncp_error *err;
    int metric_error;
};

void ncp_harness_opts_default(ncp_harness_opts *o)
{
    memset(o, 0, sizeof *o);
    o->budget.tol = 1e-8;
    o->budget.max_iter = 1000;
    o->budget.time_ms = 0.0;
    o->stop_metric = ncp_metrics_index("natural_map_rel_acary");
}

void ncp_result_free(ncp_result *r)
{
    if (!r) return;
    free(r->lambda);
    free(r->u);
    free(r->v);
    memset(r, 0, sizeof *r);
}

static double metric_value(const ncp_metrics *mt, int idx) { return ncp_metrics_at(mt, idx); }

int ncp_run_setup_done(ncp_run *run)
{
    if (!run->setup_done) {
        run->setup_ms = ncp_clock_ms(&run->clock);
        run->setup_done = 1;
    }
    const ncp_budget *b = &run->opts->budget;
    if (b->time_ms > 0.0 && run->setup_ms >= b->time_ms) {
        run->status = NCP_STATUS_TIMEOUT;
        return 1;
    }
    return 0;
}

double ncp_run_elapsed_ms(const ncp_run *run) { return ncp_clock_ms(&run->clock); }

int ncp_run_iterate(ncp_run *run, int iter, const double *lambda, const double *v)
{
    ncp_clock_pause(&run->clock);
    double t = ncp_clock_ms(&run->clock);
    if (!run->setup_done) { /* a solver that forgot: its setup counts as zero */
        run->setup_done = 1;
        run->setup_ms = 0.0;
    }
    const ncp_problem *p = run->prob;
    const ncp_harness_opts *o = run->opts;
    run->iterations = iter;
    ncp_copy(p->m, lambda, run->best_lambda);
    if (v && run->best_v) {
        ncp_copy(p->nv, v, run->best_v);
        run->have_v = 1;
    }
    int stop = 0;
    if (ncp_metrics_eval(run->ws, lambda, &run->last, run->err)) {
        run->metric_error = 1;
        run->status = NCP_STATUS_FAILED;
        stop = 1;
    } else {
        run->have_last = 1;
        double r = metric_value(&run->last, o->stop_metric);
        if (o->trace && o->trace(o->trace_ctx, iter, t, &run->last)) {
            run->status = NCP_STATUS_STOPPED;
            stop = 1;
        } else if (isnan(r) || !ncp_all_finite(p->m, lambda)) {
            run->status = NCP_STATUS_FAILED;
            stop = 1;
        } else if (r <= o->budget.tol) {
            run->status = NCP_STATUS_CONVERGED;
            stop = 1;
        } else if (o->interrupt && *o->interrupt) {
            run->status = NCP_STATUS_STOPPED;
            stop = 1;
        } else if (iter >= o->budget.max_iter) {
            run->status = NCP_STATUS_MAX_ITER;
            stop = 1;
        } else if (o->budget.time_ms > 0.0 && t >= o->budget.time_ms) {
            run->status = NCP_STATUS_TIMEOUT;
            stop = 1;
        }
    }
    ncp_clock_resume(&run->clock);
    return stop;
}

/* Makes sure the problem has what the solver needs; returns the problem to use (p itself or
 * a completed copy in *tmp). */
static int complete_problem(const ncp_problem *p, unsigned needs, ncp_problem *tmp,
                            const ncp_problem **use, ncp_error *err)
{
    *use = p;
    int need_dual = 1; /* metrics always need the dual data */
    int need_primal = (needs & NCP_NEEDS_PRIMAL) != 0;
    if ((!need_dual || p->has_dual) && (!need_primal || p->has_primal)) return NCP_OK;
    int rc = ncp_problem_copy(tmp, p, err);
    if (rc) return rc;
    if (!tmp->has_dual && (rc = ncp_problem_compute_dual(tmp, err))) return rc;
    if (need_primal && !tmp->has_primal && (rc = ncp_problem_primal_from_dual(tmp, err))) return rc;
    *use = tmp;
    return NCP_OK;
}

int ncp_harness_solve(const ncp_solver_desc *s, const ncp_problem *p0, const ncp_params *params,
                      const double *lambda0, const double *v0, const ncp_harness_opts *opts,
                      ncp_result *res, ncp_error *err)
{
    memset(res, 0, sizeof *res);
    if ((s->needs & NCP_NEEDS_STRUCTURE) && !p0->structure)
        return ncp_error_set(err, NCP_ERR_INPUT, "solver %s needs the subsystem structure, which "
                             "problem %s does not have (captured without structure or imported "
                             "from FCLib)", s->name, p0->name ? p0->name : "?");
    if (opts->stop_metric < 0 || opts->stop_metric >= ncp_metrics_count())
        return ncp_error_set(err, NCP_ERR_INTERNAL, "invalid stopping metric index %d",
                             opts->stop_metric);
    ncp_problem tmp;
    ncp_problem_init(&tmp);
    const ncp_problem *p;
    int rc = complete_problem(p0, s->needs, &tmp, &p, err);
    ncp_run run;
    memset(&run, 0, sizeof run);
    ncp_solve_out out;
    memset(&out, 0, sizeof out);
    if (rc) goto done;
    int m = p->m, nv = p->has_primal ? p->nv : 0;
    res->lambda = ncp_calloc(err, m, sizeof(double));
    res->u = ncp_calloc(err, m, sizeof(double));
    run.best_lambda = ncp_calloc(err, m, sizeof(double));
    out.lambda = ncp_calloc(err, m, sizeof(double));
    if (nv) {
        res->v = ncp_calloc(err, nv, sizeof(double));
        run.best_v = ncp_calloc(err, nv, sizeof(double));
        out.v = ncp_calloc(err, nv, sizeof(double));
    }
    if (!res->lambda || !res->u || !run.best_lambda || !out.lambda ||
        (nv && (!res->v || !run.best_v || !out.v))) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    if ((rc = ncp_metrics_ws_create(p, &run.ws, err))) goto done;
    run.prob = p;
    run.opts = opts;
    run.status = -1;
    run.err = err;
    if (lambda0) ncp_copy(m, lambda0, run.best_lambda);

    ncp_solve_in in = {p, opts->budget, params, lambda0, v0};
    out.status = -1;
    ncp_clock_start(&run.clock);
    int src = s->solve(&in, &out, &run, err);
    ncp_clock_pause(&run.clock);
    double total = ncp_clock_ms(&run.clock);
    if (run.metric_error) {
        rc = err->code ? err->code : NCP_ERR_INTERNAL;
        goto done;
    }
    if (src == NCP_ERR_NOMEM || src == NCP_ERR_INTERNAL || src == NCP_ERR_INPUT) {
        rc = src;
        goto done;
    }
    if (src != NCP_OK) { /* numerical failure inside the solver: a result, not an error */
        out.status = NCP_STATUS_FAILED;
        ncp_error_clear(err);
    }
    res->setup_ms = run.setup_done ? run.setup_ms : total;
    res->solve_ms = total - res->setup_ms;
    res->iterations = run.iterations;
    /* The answer is the last iterate the solver reported (solver.h); with no iteration at all
     * (time budget used up by the setup, or failure) it is the start point. */
    if (run.iterations > 0) ncp_copy(m, run.best_lambda, res->lambda);
    else if (lambda0) ncp_copy(m, lambda0, res->lambda);
    /* status: the harness's decision wins (it stopped the solver); otherwise the solver's */
    if (run.status >= 0) res->status = run.status;
    else if (out.status >= 0) res->status = out.status;
    else res->status = NCP_STATUS_STALLED; /* returned on its own without saying why */
    if (out.status == NCP_STATUS_FAILED) res->status = NCP_STATUS_FAILED;

    if ((rc = ncp_metrics_eval(run.ws, res->lambda, &res->final, err))) goto done;
    ncp_copy(m, p->vf, res->u);
    ncp_gemv(0, m, m, 1.0, p->D, res->lambda, 1.0, res->u);
    if (nv) {
        if (run.have_v && out.has_v) {
            ncp_copy(nv, run.best_v, res->v);
            res->has_solver_v = 1;
        } else {
            /* v = A^{-1}(b + J^T lambda): the velocity the step would produce */
            double *L = ncp_malloc(err, (size_t)nv * nv, sizeof(double));
            if (!L) {
                rc = NCP_ERR_NOMEM;
                goto done;
            }
            memcpy(L, p->A, (size_t)nv * nv * sizeof(double));
            ncp_copy(nv, p->b, res->v);
            ncp_csr_gemv_t(&p->J, 1.0, res->lambda, 1.0, res->v);
            rc = ncp_chol_factor(nv, L, err);
            if (!rc) rc = ncp_chol_solve(nv, L, 1, res->v, err);
            free(L);
            if (rc) goto done;
        }
    }
    double r = metric_value(&res->final, opts->stop_metric);
    res->converged = !isnan(r) && r <= opts->budget.tol;
    if (res->converged && res->status != NCP_STATUS_FAILED) res->status = NCP_STATUS_CONVERGED;
done:
    ncp_metrics_ws_free(run.ws);
    free(run.best_lambda);
    free(run.best_v);
    free(out.lambda);
    free(out.v);
    ncp_problem_free(&tmp);
    if (rc) ncp_result_free(res);
    return rc;
}
