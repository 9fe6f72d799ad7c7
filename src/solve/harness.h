/* Runs one solver on one problem under a budget, with honest monitoring: the solver clock is
 * paused while the common metrics are evaluated after each iteration (docs/design.md). Used by the
 * benchmark driver (every problem x solver) and by the simulator (the trajectory's driver
 * solver), so both stop by the same rule. */
#ifndef NCP_HARNESS_H
#define NCP_HARNESS_H

#include "metrics/metrics.h"
#include "solve/solver.h"

/* Called after each iteration with the metrics of the current iterate and the solver time so
 * far (ms, setup included). Return non-zero to stop the solver (status STOPPED). */
typedef int (*ncp_trace_fn)(void *ctx, int iter, double elapsed_ms, const ncp_metrics *mt);

typedef struct ncp_harness_opts {
    ncp_budget budget;
    int stop_metric;          /* index into the metric columns (ncp_metrics_index) */
    ncp_trace_fn trace;       /* may be NULL */
    void *trace_ctx;
    const volatile int *interrupt; /* if non-NULL and *interrupt != 0, stop (status STOPPED) */
} ncp_harness_opts;

/* Fills defaults: tol 1e-8, max_iter 1000, time unlimited, stop metric natural_map_rel_acary
 * (divides by the fixed norm of v_f: the Siconos form divides by max(||v_f||, ||lambda||, ||u||),
 * which a diverging iterate drives to zero, so it would report divergence as convergence). */
void ncp_harness_opts_default(ncp_harness_opts *o);

typedef struct ncp_result {
    double *lambda;     /* m */
    double *u;          /* m: D lambda + v_f, recomputed by the harness */
    double *v;          /* nv or NULL: the solver's v if it has one, else A^{-1}(b + J^T lambda) */
    int has_solver_v;
    int iterations;
    int status;         /* ncp_status */
    int converged;      /* final stopping metric <= tol */
    double setup_ms;
    double solve_ms;    /* iterations only (setup excluded) */
    ncp_metrics final;  /* metrics of the returned lambda */
} ncp_result;

void ncp_result_free(ncp_result *r);

/* Runs `s` on `p` (which must provide what s->needs; the harness derives the dual from the
 * primal or the primal from the dual when needed, see ncp_problem_*). */
int ncp_harness_solve(const ncp_solver_desc *s, const ncp_problem *p, const ncp_params *params,
                      const double *lambda0, const double *v0, const ncp_harness_opts *opts,
                      ncp_result *res, ncp_error *err);

#endif
