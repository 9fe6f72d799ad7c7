/* Benchmark driver: every problem x solver, rows written in order as they complete (bench.h). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "util/fsutil.h"
#include "bench/output.h"
#include "util/progress.h"
#include "store/store.h"
#include "store/solutions.h"
#include "metrics/metrics.h"

typedef struct trace_row {
    int iter;
    double t;
    double vals[NCP_NMETRICS];
} trace_row;

typedef struct task {
    int prob, solver;
    int state;            /* 0 pending, 1 running, 2 done, 3 skipped */
    int rc;
    ncp_error err;
    ncp_result res;
    trace_row *trace;
    int ntrace, captrace;
    int trace_oom;
} task;

typedef struct bench_ctx {
    const ncp_problem *probs;
    int nprobs;
    const ncp_bench_opts *o;
    task *tasks;
    int ntasks;
    int next;             /* next task to hand out */
    int abort;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} bench_ctx;

static int trace_cb(void *ctx, int iter, double t, const ncp_metrics *mt)
{
    task *tk = ctx;
    if (tk->ntrace == tk->captrace) {
        int cap = tk->captrace ? 2 * tk->captrace : 64;
        trace_row *nr = realloc(tk->trace, (size_t)cap * sizeof *nr);
        if (!nr) {
            tk->trace_oom = 1; /* the trace is incomplete; the solve itself goes on */
            return 0;
        }
        tk->trace = nr;
        tk->captrace = cap;
    }
    trace_row *r = &tk->trace[tk->ntrace++];
    r->iter = iter;
    r->t = t;
    ncp_metrics_values(mt, r->vals);
    return 0;
}

static const ncp_params *params_for(const ncp_bench_opts *o, const char *solver)
{
    for (int i = 0; i < o->nparams; i++)
        if (strcmp(o->params[i].solver, solver) == 0) return &o->params[i].params;
    return NULL;
}

static void run_task(bench_ctx *c, task *tk)
{
    const ncp_problem *p = &c->probs[tk->prob];
    const ncp_solver_desc *s = c->o->solvers[tk->solver];
    if ((s->needs & NCP_NEEDS_STRUCTURE) && !p->structure) {
        tk->state = 3;
        return;
    }
    ncp_harness_opts ho;
    ncp_harness_opts_default(&ho);
    ho.budget = c->o->budget;
    ho.stop_metric = c->o->stop_metric;
    ho.interrupt = c->o->interrupt;
    if (c->o->traces) {
        ho.trace = trace_cb;
        ho.trace_ctx = tk;
    }
    ncp_error_clear(&tk->err);
    tk->rc = ncp_harness_solve(s, p, params_for(c->o, s->name), NULL, NULL, &ho, &tk->res,
                               &tk->err);
}

static void *worker(void *arg)
{
    bench_ctx *c = arg;
    for (;;) {
        pthread_mutex_lock(&c->mu);
        int abort = c->abort || (c->o->interrupt && *c->o->interrupt);
        int t = (!abort && c->next < c->ntasks) ? c->next++ : -1;
        if (t >= 0) c->tasks[t].state = 1;
        pthread_mutex_unlock(&c->mu);
        if (t < 0) break;
        run_task(c, &c->tasks[t]);
        pthread_mutex_lock(&c->mu);
        if (c->tasks[t].state == 1) c->tasks[t].state = 2;
        if (c->tasks[t].rc) c->abort = 1;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
    }
    return NULL;
}

typedef struct writers {
    FILE *metrics, *traces;
    ncp_solutions *sol;
} writers;

static int write_task(const bench_ctx *c, writers *w, task *tk, ncp_error *err)
{
    if (tk->state == 3) return NCP_OK;
    const ncp_problem *p = &c->probs[tk->prob];
    const char *sn = c->o->solvers[tk->solver]->name;
    if (ncp_out_metrics_row(w->metrics, p->name, sn, &tk->res))
        return ncp_error_set(err, NCP_ERR_IO, "cannot write %s/metrics.csv (disk full?)",
                             c->o->out_dir);
    if (w->traces) {
        for (int i = 0; i < tk->ntrace; i++)
            if (ncp_out_traces_row(w->traces, p->name, sn, tk->trace[i].iter, tk->trace[i].t,
                                   tk->trace[i].vals))
                return ncp_error_set(err, NCP_ERR_IO, "cannot write %s/traces.csv (disk full?)",
                                     c->o->out_dir);
        if (fflush(w->traces))
            return ncp_error_set(err, NCP_ERR_IO, "cannot write %s/traces.csv", c->o->out_dir);
    }
    free(tk->trace);
    tk->trace = NULL;
    return ncp_solutions_write(w->sol, sn, p->name, p->m, tk->res.lambda, tk->res.u,
                               tk->res.v ? p->nv : 0, tk->res.v, tk->res.iterations,
                               tk->res.converged, ncp_status_name(tk->res.status), err);
}

static void summarise(const bench_ctx *c, ncp_bench_summary *sum)
{
    int ns = c->o->nsolvers, nm = ncp_metrics_count();
    double *buf = malloc(sizeof(double) * (size_t)(c->nprobs > 0 ? c->nprobs : 1));
    sum->nsolvers = ns;
    for (int j = 0; j < ns; j++) {
        ncp_solver_summary *ss = &sum->solvers[j];
        memset(ss, 0, sizeof *ss);
        snprintf(ss->solver, sizeof ss->solver, "%s", c->o->solvers[j]->name);
        for (int k = 0; k < nm; k++) ss->median[k] = ss->max[k] = NAN;
        ss->median_iterations = ss->max_iterations = ss->median_solve_ms = NAN;
        ss->median_setup_ms = NAN;
        int n = 0;
        for (int i = 0; i < c->nprobs; i++) {
            const task *tk = &c->tasks[i * ns + j];
            if (tk->state != 2 || tk->rc) continue;
            n++;
            ss->converged += tk->res.converged;
            ss->failed += tk->res.status == NCP_STATUS_FAILED;
            ss->timeouts += tk->res.status == NCP_STATUS_TIMEOUT;
            ss->max_iters += tk->res.status == NCP_STATUS_MAX_ITER;
            ss->total_solve_ms += tk->res.solve_ms;
        }
        ss->problems = n;
        if (!buf || n == 0) continue;
#define AGG(EXPR, MED, MAX)                                                        \
    do {                                                                           \
        int k_ = 0;                                                                \
        double mx_ = -INFINITY;                                                    \
        for (int i = 0; i < c->nprobs; i++) {                                      \
            const task *tk = &c->tasks[i * ns + j];                                \
            if (tk->state != 2 || tk->rc) continue;                                \
            double x_ = (EXPR);                                                    \
            buf[k_++] = x_;                                                        \
            if (x_ > mx_ || isnan(x_)) mx_ = isnan(mx_) ? mx_ : x_;                \
        }                                                                          \
        MED = ncp_median(buf, k_);                                                 \
        MAX = mx_;                                                                 \
    } while (0)
        double dummy;
        AGG((double)tk->res.iterations, ss->median_iterations, ss->max_iterations);
        AGG(tk->res.solve_ms, ss->median_solve_ms, dummy);
        AGG(tk->res.setup_ms, ss->median_setup_ms, dummy);
        for (int k = 0; k < nm; k++) {
            AGG(ncp_metrics_at(&tk->res.final, k), ss->median[k], ss->max[k]);
        }
#undef AGG
        (void)dummy;
    }
    free(buf);
}

int ncp_bench_run(const ncp_problem *probs, int nprobs, const ncp_bench_opts *o,
                  ncp_bench_summary *sum, ncp_error *err)
{
    memset(sum, 0, sizeof *sum);
    if (o->nsolvers > (int)(sizeof sum->solvers / sizeof sum->solvers[0]))
        return ncp_error_set(err, NCP_ERR_INPUT, "too many solvers (%d)", o->nsolvers);
    int rc = ncp_mkdir_p(o->out_dir, err);
    if (rc) return rc;
    char path[4200];
    writers w = {0};
    bench_ctx c;
    memset(&c, 0, sizeof c);
    c.probs = probs;
    c.nprobs = nprobs;
    c.o = o;
    c.ntasks = nprobs * o->nsolvers;
    c.tasks = ncp_calloc(err, c.ntasks, sizeof(task));
    if (!c.tasks) return NCP_ERR_NOMEM;
    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.cv, NULL);
    for (int i = 0; i < c.ntasks; i++) {
        c.tasks[i].prob = i / o->nsolvers;
        c.tasks[i].solver = i % o->nsolvers;
    }
    pthread_t threads[NCP_BENCH_MAX_JOBS];
    int nthreads = 0;
    ncp_progress pg;
    ncp_progress_begin(&pg, "solving", c.ntasks, o->progress);

    if ((rc = ncp_path_join(path, sizeof path, o->out_dir, "metrics.csv", err))) goto done;
    if (!(w.metrics = fopen(path, "w"))) {
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot create %s", path);
        goto done;
    }
    ncp_out_metrics_header(w.metrics);
    if (o->traces) {
        if ((rc = ncp_path_join(path, sizeof path, o->out_dir, "traces.csv", err))) goto done;
        if (!(w.traces = fopen(path, "w"))) {
            rc = ncp_error_set(err, NCP_ERR_IO, "cannot create %s", path);
            goto done;
        }
        ncp_out_traces_header(w.traces);
    }
    if ((rc = ncp_path_join(path, sizeof path, o->out_dir, "solutions.h5", err))) goto done;
    if ((rc = ncp_solutions_create(path, &w.sol, err))) goto done;

    int jobs = o->jobs < 1 ? 1 : (o->jobs > NCP_BENCH_MAX_JOBS ? NCP_BENCH_MAX_JOBS : o->jobs);
    if (jobs == 1) {
        for (int t = 0; t < c.ntasks; t++) {
            if (o->interrupt && *o->interrupt) break;
            c.tasks[t].state = 1;
            run_task(&c, &c.tasks[t]);
            if (c.tasks[t].state == 1) c.tasks[t].state = 2;
            if (c.tasks[t].rc) {
                rc = c.tasks[t].rc;
                *err = c.tasks[t].err;
                break;
            }
            if ((rc = write_task(&c, &w, &c.tasks[t], err))) break;
            ncp_progress_update(&pg, t + 1, probs[c.tasks[t].prob].name);
        }
    } else {
        for (int i = 0; i < jobs; i++) {
            if (pthread_create(&threads[i], NULL, worker, &c) != 0) break;
            nthreads++;
        }
        if (nthreads == 0) {
            rc = ncp_error_set(err, NCP_ERR_INTERNAL, "cannot start worker threads");
            goto done;
        }
        /* write completed tasks in task order */
        int written = 0;
        pthread_mutex_lock(&c.mu);
        while (written < c.ntasks) {
            task *tk = &c.tasks[written];
            if (tk->state == 2 || tk->state == 3) {
                pthread_mutex_unlock(&c.mu);
                if (tk->rc) {
                    rc = tk->rc;
                    *err = tk->err;
                } else {
                    rc = write_task(&c, &w, tk, err);
                }
                pthread_mutex_lock(&c.mu);
                if (rc) {
                    c.abort = 1;
                    break;
                }
                written++;
                ncp_progress_update(&pg, written, probs[tk->prob].name);
                continue;
            }
            /* nothing more will come once workers stopped handing out tasks */
            if ((c.abort || (o->interrupt && *o->interrupt)) && tk->state == 0) break;
            pthread_cond_wait(&c.cv, &c.mu);
        }
        pthread_mutex_unlock(&c.mu);
    }
done:
    for (int i = 0; i < nthreads; i++) pthread_join(threads[i], NULL);
    ncp_progress_end(&pg);
    if (w.metrics && fclose(w.metrics) && !rc)
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot write %s/metrics.csv", o->out_dir);
    if (w.traces && fclose(w.traces) && !rc)
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot write %s/traces.csv", o->out_dir);
    if (w.sol) {
        ncp_error e2 = {0};
        if (ncp_solutions_close(w.sol, rc ? &e2 : err) && !rc) rc = err->code;
    }
    if (!rc) {
        sum->nproblems = nprobs;
        sum->interrupted = o->interrupt && *o->interrupt;
        summarise(&c, sum);
        if (!(rc = ncp_path_join(path, sizeof path, o->out_dir, "summary.json", err)))
            rc = ncp_out_summary(path, o, sum, err);
    }
    for (int i = 0; i < c.ntasks; i++) {
        ncp_result_free(&c.tasks[i].res);
        free(c.tasks[i].trace);
    }
    free(c.tasks);
    pthread_mutex_destroy(&c.mu);
    pthread_cond_destroy(&c.cv);
    return rc;
}
