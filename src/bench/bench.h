/* The benchmark driver: every problem x every selected solver under one budget, with
 * per-iteration traces, writing metrics.csv, traces.csv, solutions.h5 and summary.json into an
 * output directory (docs/design.md). Rows are written as soon as they are complete and in a
 * deterministic order (problem-major, solvers in the given order) whatever -j is, so an
 * interrupted run keeps every finished row. */
#ifndef NCP_BENCH_H
#define NCP_BENCH_H

#include <stdint.h>

#include "solve/harness.h"
#include "scene/scene.h"

typedef struct ncp_bench_opts {
    const ncp_solver_desc **solvers;
    int nsolvers;
    ncp_budget budget;
    int stop_metric;
    const ncp_solver_params_entry *params; /* per-solver parameters */
    int nparams;
    int jobs;               /* worker threads (>= 1); timings are honest only with 1 */
    int traces;             /* write traces.csv */
    int progress;           /* allow a progress bar */
    const volatile int *interrupt;
    const char *out_dir;
    const char *scene_name; /* for summary.json */
    const char *source;     /* scene file or problem files, for summary.json */
    uint64_t seed;
    int quick;
} ncp_bench_opts;

/* Capacities of one benchmark run: solvers compared, worker threads (-j). */
#define NCP_BENCH_MAX_SOLVERS 64
#define NCP_BENCH_MAX_JOBS 64

/* Aggregates of one solver over all problems (for summary.json and `ncpbench check`). */
typedef struct ncp_solver_summary {
    char solver[32];
    int problems;
    int converged;
    int failed;
    int timeouts;
    int max_iters;
    double median_iterations;
    double max_iterations;
    double median_solve_ms;
    double total_solve_ms;
    double median_setup_ms;
    double median[NCP_NMETRICS]; /* per metric column */
    double max[NCP_NMETRICS];
} ncp_solver_summary;

typedef struct ncp_bench_summary {
    int nsolvers;
    ncp_solver_summary solvers[NCP_BENCH_MAX_SOLVERS];
    int nproblems;
    int interrupted;
} ncp_bench_summary;

int ncp_bench_run(const ncp_problem *probs, int nprobs, const ncp_bench_opts *o,
                  ncp_bench_summary *sum, ncp_error *err);

#endif
