/* One solver on one problem under a budget, with the solver clock paused while the common
 * metrics are evaluated (see harness.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/stats.h"
#include "util/membudget.h"
#include "solve/harness.h"
#include "metrics/metrics.h"
#include "core/dop.h"
#include "core/sparse_chol.h"

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
    double monitor_ms;     /* time spent in ncp_run_iterate (clock paused), on the clock's kind */
    int traced_iter;       /* last iterate handed to the trace callback (0: none) */
    double last_t;         /* solver time at the last reported iterate */
    int cut_between;       /* the budget ran out between iterates (ncp_run_add_cpu_ms) */
    double charged_ms;     /* CPU time charged with ncp_run_add_cpu_ms (CPU clock only) */
    char route[400];       /* the solver's ncp_run_note text, for res->note (as long) */
};

void ncp_harness_opts_default(ncp_harness_opts *o)
{
    memset(o, 0, sizeof *o);
    o->budget.tol = NCP_DEFAULT_TOL;
    o->budget.max_iter = NCP_DEFAULT_MAX_ITER;
    o->budget.time_ms = 0.0;
    o->stop_metric = ncp_metrics_index("natural_map_rel_acary");
}

void ncp_result_free(ncp_result *r)
{
    if (!r) return;
    free(r->lambda);
    free(r->u);
    free(r->v);
    free(r->solver_v);
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

int ncp_run_add_cpu_ms(ncp_run *run, double ms)
{
    ncp_clock_add_cpu(&run->clock, ms);
    if (run->clock.kind == NCP_CLOCK_CPU && ms > 0.0) run->charged_ms += ms;
    const double budget = run->opts->budget.time_ms;
    if (run->status < 0 && budget > 0.0 && ncp_clock_ms(&run->clock) >= budget) {
        run->status = NCP_STATUS_TIMEOUT;
        run->cut_between = 1;
    }
    return run->status == NCP_STATUS_TIMEOUT;
}

int ncp_run_external(ncp_run *run) { return ncp_clock_external(&run->clock); }

int ncp_run_interrupted(const ncp_run *run)
{
    return run->opts->interrupt && *run->opts->interrupt;
}

void ncp_run_note(ncp_run *run, const char *fmt, ...)
{
    if (!run) return;
    size_t n = strlen(run->route);
    if (n + 3 >= sizeof run->route) return;
    if (n) {
        memcpy(run->route + n, "; ", 3);
        n += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->route + n, sizeof run->route - n, fmt, ap);
    va_end(ap);
}

/* The trace row of the last iterate under sampling (the harness stops the solver here, or the
 * solver returned on its own after it). */
static int trace_last(ncp_run *run, const double *lambda, int iter, double t)
{
    if (run->traced_iter == iter) return NCP_OK;
    int rc = ncp_metrics_eval(run->ws, lambda, &run->last, run->err);
    if (rc) return rc;
    run->have_last = 1;
    run->traced_iter = iter;
    run->opts->trace(run->opts->trace_ctx, iter, t, &run->last);
    return NCP_OK;
}

int ncp_run_iterate(ncp_run *run, int iter, const double *lambda, const double *v)
{
    /* one clock reading ends the solver's time and starts the monitor's, one ends the
     * monitor's and restarts the solver's (half the clock reads per iterate, and no instant
     * counted in neither) */
    const ncp_instant t0 = ncp_clock_now(&run->clock);
    ncp_clock_pause_at(&run->clock, t0);
    if (run->cut_between) { /* the solver went on after ncp_run_add_cpu_ms said stop: this
                               iterate is its answer, decided as any other */
        run->cut_between = 0;
        run->status = -1;
    }
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
    /* Full metrics when a trace row is wanted here; else only the stopping metric (same bits),
     * and the full row after all if this iterate turns out to be the last. */
    int full = o->trace && (!o->trace_sample || ncp_log_sample_keep(iter));
    double r = NAN;
    int rc = full ? ncp_metrics_eval(run->ws, lambda, &run->last, run->err)
                  : ncp_metrics_eval_stop(run->ws, lambda, o->stop_metric, o->budget.tol, &r,
                                          run->err);
    if (rc) {
        run->metric_error = 1;
        run->status = NCP_STATUS_FAILED;
        stop = 1;
    } else {
        run->have_last = full;
        if (full) r = metric_value(&run->last, o->stop_metric);
        if (full) run->traced_iter = iter;
        if (full && o->trace && o->trace(o->trace_ctx, iter, t, &run->last)) {
            run->status = NCP_STATUS_STOPPED;
            stop = 1;
        } else if (isnan(r)) { /* every metric is NaN at a non-finite iterate (metrics.h) */
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
        if (stop && !full && o->trace && trace_last(run, lambda, iter, t)) {
            run->metric_error = 1;
            run->status = NCP_STATUS_FAILED;
        }
    }
    run->last_t = t;
    const ncp_instant t1 = ncp_clock_now(&run->clock);
    run->monitor_ms += t1.t - t0.t;
    ncp_clock_resume_at(&run->clock, t1);
    return stop;
}

const char *ncp_recon_name(unsigned bit)
{
    switch (bit) {
    case NCP_RECON_PRIMAL_FROM_D: return "primal reconstructed from D";
    case NCP_RECON_PRIMAL_DENSE: return "A densified";
    case NCP_RECON_SYMMETRIZE: return "D symmetrised";
    default: return NULL;
    }
}

const char *ncp_unsupported_name(int kind)
{
    switch (kind) {
    case NCP_UNSUP_STRUCTURE: return "needs the subsystem structure";
    case NCP_UNSUP_PRIMAL: return "needs primal data (A, b, J, e)";
    case NCP_UNSUP_SPARSE: return "needs a dense A";
    case NCP_UNSUP_MEMORY: return "needs a dense matrix too large for the memory limit";
    case NCP_UNSUP_SYMMETRIC: return "needs a symmetric D";
    case NCP_UNSUP_SOLVER: return "declined by the solver";
    default: return NULL;
    }
}

int ncp_harness_dual_symmetric(const ncp_problem *p, double *asym, double *scale)
{
    double a = 0.0, sc = 0.0;
    const int m = p->m;
    for (int j = 0; p->D && j < m; j++)
        for (int i = 0; i <= j; i++) {
            double x = p->D[i + (size_t)j * m], y = p->D[j + (size_t)i * m];
            a = fmax(a, fabs(x - y));
            sc = fmax(sc, fmax(fabs(x), fabs(y)));
        }
    if (asym) *asym = a;
    if (scale) *scale = sc;
    return p->dual_symmetric || a <= 1e-12 * sc;
}

/* Limit of a densified A (with its factor): the memory budget (util/membudget.h; --max-memory
 * sets dense_max_bytes, default half the physical memory), the one the readers apply. */
static double dense_limit(const ncp_harness_opts *o)
{
    return ncp_mem_budget_or_default(o->dense_max_bytes);
}

/* Appends "; text" (or "text") to res->note. */
static void note_add(ncp_result *res, const char *text)
{
    size_t n = strlen(res->note);
    snprintf(res->note + n, sizeof res->note - n, "%s%s", n ? "; " : "", text);
}

/* Marks res unsupported (kind, reason); returns NCP_OK or, for callers that record no row,
 * NCP_ERR_INPUT with the reason. */
static int unsupported(const ncp_solver_desc *s, const ncp_problem *p, const ncp_harness_opts *o,
                       int kind, const char *reason, ncp_result *res, ncp_error *err)
{
    res->status = NCP_STATUS_UNSUPPORTED;
    res->unsupported = kind;
    snprintf(res->note, sizeof res->note, "%s", reason);
#define NCP_NAN_FIELD(name, doc) res->final.name = NAN;
    NCP_METRIC_COLUMNS(NCP_NAN_FIELD)
#undef NCP_NAN_FIELD
    if (o->unsupported_ok) return NCP_OK;
    return ncp_error_set(err, NCP_ERR_INPUT, "solver %s on problem %s: %s", s->name,
                         p->name ? p->name : "?", reason);
}

/* The two problems of a solve: *pm, graded (the given problem; for one whose cheapest Delassus
 * operator is the dense D (dop_route -1) and that keeps none, a view tm with D built from the
 * primal data, outside every clock, as the problem is represented: *tm_own to free), and *ps,
 * the solver's (*pm, or a copy in ts with what opts->allow lets the harness build). The dense D
 * an NCP_NEEDS_DUAL solver needs on a problem that keeps none is built later, on the solver's
 * clock (ncp_harness_solve); here only its size is checked. Sets res->applied, res->note; for
 * an unsupported solve res->status (the return value is then that of unsupported()). */
static int prepare(const ncp_solver_desc *s, const ncp_problem *p0, const ncp_harness_opts *o,
                   ncp_problem *tm, double **tm_own, ncp_problem *ts, const ncp_problem **pm,
                   const ncp_problem **ps, ncp_result *res, ncp_error *err)
{
    char why[400];
    int rc;
    *pm = *ps = p0;
    if ((s->needs & NCP_NEEDS_STRUCTURE) && !p0->structure) {
        snprintf(why, sizeof why, "%s: problem %s has none (subsystems, bodies; imported from "
                 "FCLib or captured without it)", ncp_unsupported_name(NCP_UNSUP_STRUCTURE),
                 p0->name ? p0->name : "?");
        return unsupported(s, p0, o, NCP_UNSUP_STRUCTURE, why, res, err);
    }
    if (!p0->has_dual && !p0->has_primal && !p0->has_sparse_primal)
        return ncp_error_set(err, NCP_ERR_INPUT, "problem %s has neither D, v_f nor primal "
                             "data to derive them from", p0->name ? p0->name : "?");
    const double dbytes = 8.0 * (double)p0->m * (double)p0->m;
    if (!p0->has_dual && (s->needs & NCP_NEEDS_DUAL) && dbytes > dense_limit(o)) {
        snprintf(why, sizeof why, "%s: the solver needs the dense Delassus matrix D (m = %d: "
                 "%.3g GiB), the limit is %.3g GiB", ncp_unsupported_name(NCP_UNSUP_MEMORY),
                 p0->m, dbytes / 1073741824.0, dense_limit(o) / 1073741824.0);
        return unsupported(s, p0, o, NCP_UNSUP_MEMORY, why, res, err);
    }
    if (!p0->has_dual && p0->dop_route < 0 && dbytes <= dense_limit(o)) {
        if ((rc = ncp_problem_dual_view(p0, tm, tm_own, err))) return rc;
        *pm = *ps = tm;
    }
    const ncp_problem *g = *pm;
    double asym = 0.0, dscale = 0.0;
    /* a D flagged symmetric (captured, or checked when read) is not measured again per solve
     * (an O(m^2) pass, a fifth of the harness's own time per solve on the bolt-nut problems);
     * asym and dscale are only reported when D is not symmetric */
    int sym = g->dual_symmetric || ncp_harness_dual_symmetric(g, &asym, &dscale);
    int need_primal = (s->needs & NCP_NEEDS_PRIMAL) && !g->has_primal &&
                      !((s->needs & NCP_NEEDS_PRIMAL_SPARSE) && g->has_sparse_primal);
    int from_d = need_primal && !g->has_sparse_primal;
    int need_sym = !sym && ((s->needs & NCP_NEEDS_SYMMETRIC) || from_d);
    if (need_primal && g->has_sparse_primal) {
        double bytes = 2.0 * (double)g->nv * (double)g->nv * sizeof(double), lim = dense_limit(o);
        if (!(o->allow & NCP_RECON_PRIMAL_DENSE)) {
            snprintf(why, sizeof why, "%s: the problem's A is sparse (nv = %d: an FCLib global "
                     "problem, or a capture with many free bodies); --primal dense densifies it "
                     "(recorded)",
                     ncp_unsupported_name(NCP_UNSUP_SPARSE), g->nv);
            return unsupported(s, g, o, NCP_UNSUP_SPARSE, why, res, err);
        }
        if (bytes > lim) {
            snprintf(why, sizeof why, "%s: nv = %d takes %.3g GiB with its factor, the limit is "
                     "%.3g GiB", ncp_unsupported_name(NCP_UNSUP_MEMORY), g->nv,
                     bytes / 1073741824.0, lim / 1073741824.0);
            return unsupported(s, g, o, NCP_UNSUP_MEMORY, why, res, err);
        }
    } else if (from_d && !(o->allow & NCP_RECON_PRIMAL_FROM_D)) {
        snprintf(why, sizeof why, "%s: the problem is dual-only (D, v_f; an FCLib local problem); "
                 "--reconstruct-primal builds A = I, J = Q diag(sqrt w) from D (recorded)",
                 ncp_unsupported_name(NCP_UNSUP_PRIMAL));
        return unsupported(s, g, o, NCP_UNSUP_PRIMAL, why, res, err);
    }
    if (need_sym && !(o->allow & NCP_RECON_SYMMETRIZE)) {
        snprintf(why, sizeof why, "%s: %smax |D - D^T| = %.2g (max |D| = %.2g); --symmetrize "
                 "solves with (D + D^T)/2 (recorded)", ncp_unsupported_name(NCP_UNSUP_SYMMETRIC),
                 (s->needs & NCP_NEEDS_SYMMETRIC) ? "" : "(to rebuild the primal data from it) ",
                 asym, dscale);
        return unsupported(s, g, o, NCP_UNSUP_SYMMETRIC, why, res, err);
    }
    if (!need_primal && !need_sym) return NCP_OK;
    /* the solver's own copy: the graded problem stays as given */
    if ((rc = ncp_problem_copy(ts, g, err))) return rc;
    ts->dop_route = 0; /* D, A or J change below: the operator's route is decided again */
    *ps = ts;
    if (need_sym) {
        char t[160];
        ncp_symmetrize(ts->m, ts->D);
        ts->dual_symmetric = 1;
        res->applied |= NCP_RECON_SYMMETRIZE;
        snprintf(t, sizeof t, "%s (max |D - D^T| = %.2g)", ncp_recon_name(NCP_RECON_SYMMETRIZE),
                 asym);
        note_add(res, t);
    }
    if (need_primal && ts->has_sparse_primal) {
        const int nv = ts->nv;
        if (!(ts->A = ncp_calloc(err, (size_t)nv * nv, sizeof(double)))) return NCP_ERR_NOMEM;
        ncp_csr_to_dense(&ts->A_sparse, ts->A);
        ts->has_primal = 1;
        res->applied |= NCP_RECON_PRIMAL_DENSE;
        note_add(res, ncp_recon_name(NCP_RECON_PRIMAL_DENSE));
    } else if (need_primal) {
        if ((rc = ncp_problem_primal_from_dual(ts, err)) == NCP_ERR_INPUT) {
            /* D not positive semi-definite: no primal form exists, the run goes on */
            snprintf(why, sizeof why, "%s: no primal form can be built from D (%.300s)",
                     ncp_unsupported_name(NCP_UNSUP_PRIMAL), err->msg);
            ncp_error_clear(err);
            res->applied = 0;
            return unsupported(s, g, o, NCP_UNSUP_PRIMAL, why, res, err);
        }
        if (rc) return rc;
        res->applied |= NCP_RECON_PRIMAL_FROM_D;
        note_add(res, ncp_recon_name(NCP_RECON_PRIMAL_FROM_D));
    }
    return NCP_OK;
}

int ncp_harness_solve(const ncp_solver_desc *s, const ncp_problem *p0, const ncp_params *params,
                      const double *lambda0, const double *v0, const ncp_harness_opts *opts,
                      ncp_result *res, ncp_error *err)
{
    memset(res, 0, sizeof *res);
    double wall0 = ncp_now_ms();
    ncp_clock whole; /* the whole call on the run's clock (total_ms) */
    ncp_clock_start(&whole, opts->clock);
    if (opts->stop_metric < 0 || opts->stop_metric >= ncp_metrics_count())
        return ncp_error_set(err, NCP_ERR_INTERNAL, "invalid stopping metric index %d",
                             opts->stop_metric);
    ncp_problem tm, ts, td;
    double *tm_own = NULL, *td_own = NULL;
    ncp_problem_init(&tm);
    ncp_problem_init(&ts);
    const ncp_problem *pg, *p;
    int rc = prepare(s, p0, opts, &tm, &tm_own, &ts, &pg, &p, res, err);
    ncp_run run;
    memset(&run, 0, sizeof run);
    ncp_solve_out out;
    memset(&out, 0, sizeof out);
    if (rc || res->status == NCP_STATUS_UNSUPPORTED) goto done;
    /* nv: the solver's primal size (scratch); nvo: the problem's own velocity, reported. A
     * problem that keeps A sparse (no dense A) has a velocity too: a solver that takes v0 and
     * runs on it as it is (sap) gets v0 and may report its v. */
    int sparse_v = !p->has_primal && p->has_sparse_primal && s->takes_v0 && p->nv > 0;
    int m = p->m, nv = p->has_primal || sparse_v ? p->nv : 0;
    int nvo = (res->applied & NCP_RECON_PRIMAL_FROM_D) ? 0 : nv;
    res->lambda = ncp_calloc(err, m, sizeof(double));
    res->u = ncp_calloc(err, m, sizeof(double));
    run.best_lambda = ncp_calloc(err, m, sizeof(double));
    out.lambda = ncp_calloc(err, m, sizeof(double));
    if (nv) {
        run.best_v = ncp_calloc(err, nv, sizeof(double));
        out.v = ncp_calloc(err, nv, sizeof(double));
    }
    if (nvo) res->v = ncp_calloc(err, nvo, sizeof(double));
    if (!res->lambda || !res->u || !run.best_lambda || !out.lambda ||
        (nv && (!run.best_v || !out.v)) || (nvo && !res->v)) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    /* graded against the problem as given, whatever the solver was handed */
    if ((rc = ncp_metrics_ws_create(pg, &run.ws, err))) goto done;
    run.prob = p;
    run.opts = opts;
    run.status = -1;
    run.err = err;
    if (lambda0) ncp_copy(m, lambda0, run.best_lambda);

    /* a velocity of the problem's own primal form means nothing in a reconstructed one */
    ncp_solve_in in = {p, opts->budget, params, lambda0, nvo ? v0 : NULL};
    out.status = -1;
    ncp_clock_start(&run.clock, opts->clock);
    /* the dense D the solver's algorithm needs, from the primal data: its setup (counted in
     * its time), freed after the solve; the metrics keep grading the problem without it */
    if ((s->needs & NCP_NEEDS_DUAL) && !p->has_dual) {
        if ((rc = ncp_problem_dual_view(p, &td, &td_own, err))) {
            ncp_clock_pause(&run.clock);
            goto done;
        }
        in.prob = &td;
    }
    int src = s->solve(&in, &out, &run, err);
    ncp_clock_pause(&run.clock);
    double total = ncp_clock_ms(&run.clock);
    /* a solver that returned on its own (stalled, failed): its last iterate's trace row */
    if (opts->trace && opts->trace_sample && run.iterations > 0 && !run.metric_error &&
        run.traced_iter != run.iterations) {
        ncp_instant t0 = ncp_clock_now(&run.clock);
        if (trace_last(&run, run.best_lambda, run.iterations, run.last_t)) run.metric_error = 1;
        run.monitor_ms += ncp_clock_now(&run.clock).t - t0.t;
    }
    if (run.metric_error) {
        rc = err->code ? err->code : NCP_ERR_INTERNAL;
        goto done;
    }
    if (src == NCP_ERR_NOMEM || src == NCP_ERR_INTERNAL || src == NCP_ERR_INPUT) {
        rc = src;
        goto done;
    }
    if (src == NCP_OK && out.status == NCP_STATUS_UNSUPPORTED) {
        /* the solver declined the problem before iterating; its reason is in err */
        char why[400];
        snprintf(why, sizeof why, "%.399s", err->msg[0] ? err->msg : "the solver declines it");
        ncp_error_clear(err);
        ncp_result_free(res);
        rc = unsupported(s, p0, opts, NCP_UNSUP_SOLVER, why, res, err);
        goto done;
    }
    if (src != NCP_OK) { /* numerical failure inside the solver: a result, not an error; its
                            * message (the solver's or the engine's reason) goes to the note */
        out.status = NCP_STATUS_FAILED;
        if (err->msg[0]) note_add(res, err->msg);
        ncp_error_clear(err);
    }
    res->monitor_ms = run.monitor_ms;
    res->setup_ms = run.setup_done ? run.setup_ms : total;
    res->solve_ms = total - res->setup_ms;
    res->solver_wall_ms = ncp_clock_wall_ms(&run.clock);
    res->clock = run.clock.kind;
    if (run.cut_between) {
        char t[160];
        snprintf(t, sizeof t, "time budget spent inside iteration %d: the solve was ended there, "
                 "its answer is iterate %d", run.iterations + 1, run.iterations);
        note_add(res, t);
    }
    res->iterations = run.iterations;
    if (run.route[0]) note_add(res, run.route);
    /* The answer is the last iterate the solver reported (solver.h); with no iteration at all
     * (time budget used up by the setup, or failure) it is the start point. */
    if (run.iterations > 0) ncp_copy(m, run.best_lambda, res->lambda);
    else if (lambda0) ncp_copy(m, lambda0, res->lambda);
    /* status: the harness's decision wins (it stopped the solver); otherwise the solver's */
    if (run.status >= 0) res->status = run.status;
    else if (out.status >= 0) res->status = out.status;
    else res->status = NCP_STATUS_STALLED; /* returned on its own without saying why */
    if (out.status == NCP_STATUS_FAILED) res->status = NCP_STATUS_FAILED;

    if (run.iterations > 0 && run.have_last && run.traced_iter == run.iterations)
        res->final = run.last; /* the trace's last row evaluated this very iterate (same bits) */
    else if ((rc = ncp_metrics_eval(run.ws, res->lambda, &res->final, err)))
        goto done;
    /* the reference BLAS's bits, or the sparse route's product (metrics.h); u = v_f at
     * lambda = 0 (a solve stopped before its first iterate) without a product */
    ncp_metrics_velocity(run.ws, res->lambda, res->u);
    if (nvo) {
        if (run.have_v && out.has_v) {
            /* kept apart: until it has converged an ADMM's v is not its lambda's velocity */
            if (!(res->solver_v = ncp_malloc(err, nvo, sizeof(double)))) {
                rc = NCP_ERR_NOMEM;
                goto done;
            }
            ncp_copy(nvo, run.best_v, res->solver_v);
            res->has_solver_v = 1;
        }
        if (sparse_v) {
            /* v = A^{-1}(b + J^T lambda) with A's sparse factor */
            ncp_sparse_chol *F = NULL;
            ncp_copy(nvo, p->b, res->v);
            ncp_csr_gemv_t(&p->J, 1.0, res->lambda, 1.0, res->v);
            rc = ncp_sparse_chol_factor(&p->A_sparse, NULL, &F, err);
            if (!rc) rc = ncp_sparse_chol_solve(F, 1, res->v, err);
            ncp_sparse_chol_free(F);
            if (rc) goto done;
        } else {
            /* v = A^{-1}(b + J^T lambda): the velocity the step would produce */
            double *L = ncp_malloc(err, (size_t)nvo * nvo, sizeof(double));
            if (!L) {
                rc = NCP_ERR_NOMEM;
                goto done;
            }
            memcpy(L, p->A, (size_t)nvo * nvo * sizeof(double));
            ncp_copy(nvo, p->b, res->v);
            ncp_csr_gemv_t(&p->J, 1.0, res->lambda, 1.0, res->v);
            rc = ncp_chol_factor(nvo, L, err);
            if (!rc) rc = ncp_chol_solve(nvo, L, 1, res->v, err);
            free(L);
            if (rc) goto done;
        }
    }
    double r = metric_value(&res->final, opts->stop_metric);
    res->converged = !isnan(r) && r <= opts->budget.tol;
    if (res->converged && res->status != NCP_STATUS_FAILED) res->status = NCP_STATUS_CONVERGED;
done:
    ncp_metrics_ws_free(run.ws);
    res->wall_ms = ncp_now_ms() - wall0;
    res->total_ms = ncp_clock_ms(&whole) + run.charged_ms;
    free(run.best_lambda);
    free(run.best_v);
    free(out.lambda);
    free(out.v);
    free(tm_own); /* tm and td are views: only the D built for them is theirs */
    free(td_own);
    ncp_problem_free(&ts);
    if (rc) ncp_result_free(res);
    return rc;
}

/* An answer computed elsewhere, graded as ncp_harness_solve grades its final iterate (harness.h).
 * Self-contained (the solve path above is left as it is). */
int ncp_harness_grade(const ncp_problem *p0, const double *lambda, const double *v,
                      const double *trace_lambda, int ntrace, ncp_metrics *trace_out,
                      const ncp_harness_opts *opts, ncp_result *res, ncp_error *err)
{
    memset(res, 0, sizeof *res);
    double wall0 = ncp_now_ms();
    if (opts->stop_metric < 0 || opts->stop_metric >= ncp_metrics_count())
        return ncp_error_set(err, NCP_ERR_INTERNAL, "invalid stopping metric index %d",
                             opts->stop_metric);
    const int m = p0->m;
    if (!ncp_all_finite(m, lambda) || (v && p0->nv > 0 && !ncp_all_finite(p0->nv, v)))
        return ncp_error_set(err, NCP_ERR_INPUT, "problem %s: the answer is not finite",
                             p0->name ? p0->name : "?");
    ncp_problem tm;
    double *tm_own = NULL;
    const ncp_problem *g = p0;
    ncp_metrics_ws *ws = NULL;
    double *L = NULL, *vl = NULL;
    int rc = NCP_OK;
    if (!p0->has_dual && !p0->has_primal && !p0->has_sparse_primal) {
        rc = ncp_error_set(err, NCP_ERR_INPUT, "problem %s has neither D, v_f nor primal "
                           "data to derive them from", p0->name ? p0->name : "?");
        goto done;
    }
    /* graded as a solve grades it: with the dense D only where that is the problem's operator */
    if (!p0->has_dual && p0->dop_route < 0 &&
        8.0 * (double)p0->m * (double)p0->m <= dense_limit(opts)) {
        if ((rc = ncp_problem_dual_view(p0, &tm, &tm_own, err))) goto done;
        g = &tm;
    }
    /* the problem's own velocity: dense primal data only (as ncp_harness_solve reports it) */
    const int nvo = g->has_primal ? g->nv : 0;
    res->lambda = ncp_calloc(err, m, sizeof(double));
    res->u = ncp_calloc(err, m, sizeof(double));
    if (!res->lambda || !res->u) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    if ((rc = ncp_metrics_ws_create(g, &ws, err))) goto done;
    for (int k = 0; k < ntrace; k++)
        if ((rc = ncp_metrics_eval(ws, trace_lambda + (size_t)k * m, &trace_out[k], err)))
            goto done;
    ncp_copy(m, lambda, res->lambda);
    if ((rc = ncp_metrics_eval(ws, res->lambda, &res->final, err))) goto done;
    ncp_metrics_velocity(ws, res->lambda, res->u);
    if (nvo) {
        /* v = A^{-1}(b + J^T lambda): the velocity the step would produce */
        L = ncp_malloc(err, (size_t)nvo * nvo, sizeof(double));
        vl = ncp_malloc(err, nvo, sizeof(double));
        res->v = ncp_calloc(err, nvo, sizeof(double));
        if (!L || !vl || !res->v) {
            rc = NCP_ERR_NOMEM;
            goto done;
        }
        memcpy(L, g->A, (size_t)nvo * nvo * sizeof(double));
        ncp_copy(nvo, g->b, vl);
        ncp_csr_gemv_t(&g->J, 1.0, res->lambda, 1.0, vl);
        if ((rc = ncp_chol_factor(nvo, L, err)) || (rc = ncp_chol_solve(nvo, L, 1, vl, err)))
            goto done;
        ncp_copy(nvo, vl, res->v);
        if (v) {
            if (!(res->solver_v = ncp_malloc(err, nvo, sizeof(double)))) {
                rc = NCP_ERR_NOMEM;
                goto done;
            }
            ncp_copy(nvo, v, res->solver_v);
            /* the program's v is its answer; how far it is from the one its lambda gives */
            double nr = ncp_norm2(nvo, vl);
            ncp_axpy(nvo, -1.0, v, vl);
            char t[160];
            snprintf(t, sizeof t, "v given: ||v - A^-1(b + J^T lambda)|| / ||A^-1(b + J^T "
                     "lambda)|| = %.3g", nr > 0.0 ? ncp_norm2(nvo, vl) / nr : ncp_norm2(nvo, vl));
            note_add(res, t);
        }
    } else if (v && p0->nv > 0) {
        /* kept as given: no dense A to check it against (res->v stays NULL) */
        if (!(res->solver_v = ncp_malloc(err, p0->nv, sizeof(double)))) {
            rc = NCP_ERR_NOMEM;
            goto done;
        }
        ncp_copy(p0->nv, v, res->solver_v);
    }
    res->has_solver_v = res->solver_v != NULL;
    double r = metric_value(&res->final, opts->stop_metric);
    res->converged = !isnan(r) && r <= opts->budget.tol;
    res->status = res->converged ? NCP_STATUS_CONVERGED : NCP_STATUS_STALLED;
done:
    ncp_metrics_ws_free(ws);
    free(L);
    free(vl);
    free(tm_own);
    res->wall_ms = ncp_now_ms() - wall0;
    if (rc) ncp_result_free(res);
    return rc;
}
