/* Harness: budgets, clock pausing during the monitor, answer = last reported iterate, status
 * bookkeeping. Uses a test-only solver that reports a scripted sequence of iterates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/clock.h"
#include "solve/harness.h"
#include "tcheck.h"
#include "testutil.h"
#include "solve/params.h"

/* Spins for about `ms` of wall time (the solver's "work"). */
static void spin(double ms)
{
    double t0 = ncp_now_ms();
    volatile double x = 0;
    while (ncp_now_ms() - t0 < ms) x += 1.0;
}

/* Iterate k is lambda0 * (1 - 2^-k) (or the scripted target), so the natural map falls
 * geometrically when lambda0 is an exact solution. */
static int scripted_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    (void)err;
    int m = in->prob->m;
    double work = ncp_params_get(in->params, "work_ms", 0.0);
    const double *target = in->lambda0;
    spin(ncp_params_get(in->params, "setup_ms", 0.0));
    if (ncp_run_setup_done(run)) return NCP_OK;
    for (int k = 1;; k++) {
        spin(work);
        double f = 1.0 - ldexp(1.0, -k);
        for (int i = 0; i < m; i++) out->lambda[i] = target ? f * target[i] : 0.0;
        out->iterations = k;
        if (ncp_run_iterate(run, k, out->lambda, NULL)) break;
        if (k >= (int)ncp_params_get(in->params, "give_up", 1e9)) {
            out->status = NCP_STATUS_STALLED;
            break;
        }
    }
    return NCP_OK;
}

static const ncp_solver_desc scripted = {"scripted", "test", "test", NCP_NEEDS_DUAL, 0, "test",
                                         NULL, scripted_solve};

typedef struct slow_trace {
    double sleep_ms;
    int calls;
    double last_t;
} slow_trace;

static int slow_cb(void *ctx, int iter, double t, const ncp_metrics *mt)
{
    (void)iter;
    (void)mt;
    slow_trace *s = ctx;
    s->calls++;
    s->last_t = t;
    spin(s->sleep_ms);
    return 0;
}

/* A problem whose exact solution is known: one contact with D = I, v_f = (-1, 0, 0):
 * lambda = (1, 0, 0), u = 0 (sticking at rest). */
static void one_contact(ncp_problem *p, ncp_error *err)
{
    ncp_problem_init(p);
    ncp_problem_alloc_blocks(p, 1, err);
    p->blocks[0].type = NCP_CONTACT;
    p->blocks[0].mu = 0.5;
    ncp_problem_layout(p);
    p->D = calloc(9, sizeof(double));
    p->vf = calloc(3, sizeof(double));
    p->D[0] = p->D[4] = p->D[8] = 1.0;
    p->vf[0] = -1.0;
    p->has_dual = 1;
    p->name = strdup("one");
}

int main(void)
{
    ncp_error err = {0};
    ncp_problem p;
    one_contact(&p, &err);
    double sol[3] = {1.0, 0.0, 0.0};
    ncp_params ps = {0};
    ncp_harness_opts o;
    ncp_harness_opts_default(&o);
    ncp_result r;

    /* 1. converges by the common metric: natural map of iterate k is |1 - f_k| = 2^-k (the
     * contact sticks, F = lambda - Pi(lambda - u) = lambda - 1 for the normal), relative
     * Siconos form divides by max(1, ||lambda||, ||u||) = 1. tol 1e-3 -> first k with
     * 2^-k <= 1e-3 is k = 10. */
    o.budget.tol = 1e-3;
    CHECK_OK(ncp_harness_solve(&scripted, &p, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_CONVERGED);
    CHECK(r.converged == 1);
    CHECK(r.iterations == 10);
    CHECK_NEAR(r.lambda[0], 1.0 - ldexp(1.0, -10), 1e-15); /* answer = last iterate */
    CHECK_NEAR(r.final.natural_map_abs, ldexp(1.0, -10), 1e-15);
    CHECK_NEAR(r.u[0], -1.0 + r.lambda[0], 1e-15);
    ncp_result_free(&r);

    /* 2. iteration budget is exact */
    o.budget.tol = 1e-300;
    o.budget.max_iter = 7;
    CHECK_OK(ncp_harness_solve(&scripted, &p, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_MAX_ITER);
    CHECK(r.iterations == 7);
    CHECK(r.converged == 0);
    ncp_result_free(&r);

    /* 3. the solver's own stop (stalled) is kept */
    o.budget.max_iter = 100;
    ncp_params_set(&ps, "give_up", 3, &err);
    CHECK_OK(ncp_harness_solve(&scripted, &p, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_STALLED);
    CHECK(r.iterations == 3);
    ncp_result_free(&r);
    ps.n = 0;

    /* 4. the clock is paused in the monitor: 20 iterations with 1 ms of solver work and a
     * monitor that spins 20 ms each; solver time must stay far below the 400 ms spent in the
     * monitor (accounting invariant, generous margin: it is not a speed test). */
    slow_trace st = {20.0, 0, 0.0};
    o.budget.max_iter = 20;
    o.trace = slow_cb;
    o.trace_ctx = &st;
    ncp_params_set(&ps, "work_ms", 1.0, &err);
    double t0 = ncp_now_ms();
    CHECK_OK(ncp_harness_solve(&scripted, &p, &ps, sol, NULL, &o, &r, &err), &err);
    double wall = ncp_now_ms() - t0;
    CHECK(st.calls == 20);
    CHECK(wall >= 400.0);
    CHECK(r.setup_ms + r.solve_ms >= 20.0 * 1.0);     /* the work itself is counted */
    CHECK(r.setup_ms + r.solve_ms < 0.5 * wall);       /* the monitor's 400 ms are not */
    CHECK(st.last_t <= r.setup_ms + r.solve_ms + 1e-9); /* trace times are solver times */
    ncp_result_free(&r);
    o.trace = NULL;

    /* 5. time budget: 2 ms per iteration, 10 ms budget -> TIMEOUT; the overshoot is at most one
     * iteration, i.e. the iteration count cannot exceed budget / work + 1 plus scheduling
     * noise; we check the structural property (stopped by time, long before max_iter). */
    ps.n = 0;
    ncp_params_set(&ps, "work_ms", 2.0, &err);
    o.budget.max_iter = 100000;
    o.budget.time_ms = 10.0;
    CHECK_OK(ncp_harness_solve(&scripted, &p, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_TIMEOUT);
    CHECK(r.iterations >= 1 && r.iterations <= 6);
    ncp_result_free(&r);

    /* 6. setup exceeding the budget: no iteration, answer = start point */
    ps.n = 0;
    ncp_params_set(&ps, "setup_ms", 15.0, &err);
    double start[3] = {2.0, 0.0, 0.0}; /* not a solution: natural map 1 */
    CHECK_OK(ncp_harness_solve(&scripted, &p, &ps, start, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_TIMEOUT);
    CHECK(r.iterations == 0);
    CHECK_NEAR(r.lambda[0], 2.0, 0.0);
    CHECK_NEAR(r.final.natural_map_abs, 1.0, 1e-15);
    CHECK(r.setup_ms >= 15.0);
    ncp_result_free(&r);

    /* 7. interrupt flag stops the solver after the current iteration */
    volatile int flag = 1;
    o.budget.time_ms = 0.0;
    o.budget.max_iter = 100;
    o.interrupt = &flag;
    ps.n = 0;
    CHECK_OK(ncp_harness_solve(&scripted, &p, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_STOPPED);
    CHECK(r.iterations == 1);
    ncp_result_free(&r);

    /* 8. a solver that needs the structure is refused with a clear message */
    ncp_solver_desc needs_struct = scripted;
    needs_struct.needs |= NCP_NEEDS_STRUCTURE;
    ncp_error e2 = {0};
    CHECK(ncp_harness_solve(&needs_struct, &p, &ps, sol, NULL, &o, &r, &e2) == NCP_ERR_INPUT);
    CHECK(strstr(e2.msg, "structure") != NULL);

    ncp_problem_free(&p);
    return tcheck_exit("harness");
}
