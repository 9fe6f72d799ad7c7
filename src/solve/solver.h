/* The one solver interface (docs/design.md).
 *
 * A solver is a function that receives a problem, a budget, parameters, a warm start and a run
 * context. It must:
 *   1. do its setup (factorisations, Delassus, ...), then call ncp_run_setup_done(run);
 *   2. after every iteration call ncp_run_iterate(run, k, lambda, v) with its current iterate
 *      and stop when it returns non-zero (converged by the common metric, out of iterations,
 *      out of time, or the monitor asked to stop);
 *   3. set out->iterations, out->has_v and, only for STALLED / FAILED, out->status (or, to
 *      decline a problem that is not of its kind before iterating, UNSUPPORTED with the reason
 *      in err and NCP_OK returned).
 * The answer is the LAST iterate passed to ncp_run_iterate (so report the final iterate);
 * out->lambda / out->v are scratch buffers of the right size the solver may use.
 * The harness owns the clock: ncp_run_iterate pauses it while the common metrics are evaluated,
 * so time-versus-residual curves measure the solver only. Solvers never compute the reported
 * metrics themselves; they may keep an internal stopping test (e.g. stagnation) and then
 * return early with NCP_STATUS_STALLED.
 */
#ifndef NCP_SOLVER_H
#define NCP_SOLVER_H

#include "core/problem.h"

enum {
    /* The dense D itself (p->D, m x m) and v_f. A problem with primal data keeps no D
     * (core/problem.h): the harness builds it for the solve, after the solver's clock has
     * started (its setup), and frees it after. */
    NCP_NEEDS_DUAL = 1u << 0,
    NCP_NEEDS_PRIMAL = 1u << 1,    /* dense A, b, J, e */
    NCP_NEEDS_STRUCTURE = 1u << 2, /* subsystems and bodies */
    /* The algorithm assumes D = D^T (a Cholesky factor of D or of a matrix built from it, the
     * gradient of 1/2 l^T D l, an eigenvalue estimate of D). Sweeps and Newton methods that use
     * D as given (rows, columns, u = D l + v_f) do not set it. */
    NCP_NEEDS_SYMMETRIC = 1u << 3,
    /* The dual form through its operator only: v_f, and D applied by core/dop.h (products,
     * diagonal blocks, the low-rank shifted factor); no dense D is built for the solve (a
     * problem whose cheapest operator is the dense D gets it, as it is represented). A solver
     * that needs the matrix on some route only builds it there itself
     * (ncp_problem_dual_view), in its setup. */
    NCP_NEEDS_DUAL_OP = 1u << 4,
    /* With NCP_NEEDS_PRIMAL: a block-sparse A (A_sparse of a problem that keeps no dense A,
     * has_sparse_primal) does as well; the solver reads whichever A the problem keeps and the
     * harness densifies nothing. */
    NCP_NEEDS_PRIMAL_SPARSE = 1u << 5
};

typedef enum ncp_status {
    NCP_STATUS_CONVERGED = 0,   /* common stopping metric <= tol */
    NCP_STATUS_MAX_ITER = 1,    /* iteration budget used up */
    NCP_STATUS_TIMEOUT = 2,     /* time budget used up */
    NCP_STATUS_STALLED = 3,     /* solver's own test says it can make no progress */
    NCP_STATUS_FAILED = 4,      /* numerical failure (factorisation, NaN) */
    NCP_STATUS_STOPPED = 5,     /* stopped by the monitor / user interrupt */
    NCP_STATUS_UNSUPPORTED = 6, /* the problem lacks what the solver needs (the harness says
                                   what, ncp_result.note); the solver did not run. A solver may
                                   set it itself, before iterating, with the reason in err */
    NCP_STATUS_CRASHED = 7      /* set by the benchmark only (--isolate): the solve's forked
                                   child was killed by a signal or ended without a complete
                                   result; the note says how. No answer, NaN metrics */
} ncp_status;
/* The last status value, for loops over every status. */
#define NCP_STATUS_LAST NCP_STATUS_CRASHED

const char *ncp_status_name(int status);
/* Inverse of ncp_status_name: the status of a name, or -1. */
int ncp_status_from_name(const char *name);

typedef struct ncp_budget {
    double tol;        /* on the harness's stopping metric */
    int max_iter;
    double time_ms;    /* solver time (setup + iterations); <= 0: unlimited */
} ncp_budget;

/* Named solver parameters (from the scene's benchmark section or the CLI). */
typedef struct ncp_param {
    char name[48];
    double value;
} ncp_param;

typedef struct ncp_params {
    int n;
    ncp_param items[32];
} ncp_params;

/* A solver parameter as documented for `ncpbench list` and validated by the harness. */
typedef struct ncp_param_doc {
    const char *name;
    double def;
    const char *doc;
} ncp_param_doc;

/* The run context: opaque to solvers, implemented by the harness (harness.c), which owns the
 * clock and the stopping rule. */
typedef struct ncp_run ncp_run;

/* Ends the setup phase (its time is reported as setup_ms). Returns non-zero if the time budget
 * is already exhausted. */
int ncp_run_setup_done(ncp_run *run);
/* Reports iterate `iter` (1-based). lambda has m entries; v has nv entries or is NULL. Returns
 * non-zero when the solver must stop. */
int ncp_run_iterate(ncp_run *run, int iter, const double *lambda, const double *v);
/* Solver-clock milliseconds used so far (excluding monitor time). */
double ncp_run_elapsed_ms(const ncp_run *run);
/* Charges ms of CPU time spent for this solve outside the calling thread (the solver's own
 * worker threads, a child process) to the solver clock: counted under the CPU clock (the
 * default), ignored under the wall clock, which ran meanwhile. Call it before ncp_run_iterate
 * with what the workers spent since the last call. Returns non-zero when the time budget is
 * spent (status timeout): the solver must stop, its answer is its last reported iterate. May be
 * called with 0 to ask only that (a solver waiting on a process it can end). */
int ncp_run_add_cpu_ms(ncp_run *run, double ms);
/* For a solver whose work from here on runs outside the calling thread and is timed there (a
 * peer's child process, which measures the peer's own calls and sends the times back to be
 * charged with ncp_run_add_cpu_ms): the calling thread's CPU time stops counting, so what it
 * does for the harness (fork, waiting, copying messages) is not the solver's time. Under the
 * CPU clock (the default) returns 1: the caller must charge the child's work; under --clock
 * wall returns 0 and changes nothing (the wall clock counts everything, round trips too). */
int ncp_run_external(ncp_run *run);
/* Whether the run was interrupted (Ctrl-C, SIGTERM): a solver waiting on a process it can end
 * ends it and returns its answer (status stopped) instead of waiting for it. */
int ncp_run_interrupted(const ncp_run *run);
/* Records how the solver represents the problem when it chooses between routes by estimated
 * cost (e.g. "form saddle, K sparse: est. 1.2e+06 flops/it, dense form 3.4e+09"): the text goes
 * to the row's note (metrics.csv column note), "; "-separated after the harness's own. printf
 * style, the calls together cut at 400 characters (the row's note); a later call appends. run
 * may be NULL (a solver called outside the harness, as tests do): nothing happens. */
void ncp_run_note(ncp_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef struct ncp_solve_in {
    const ncp_problem *prob;
    ncp_budget budget;
    const ncp_params *params;
    const double *lambda0;  /* warm start (m) or NULL = cold start (zeros) */
    const double *v0;       /* warm start (nv) or NULL */
} ncp_solve_in;

typedef struct ncp_solve_out {
    double *lambda;  /* m, allocated by the harness (scratch) */
    double *v;       /* nv, allocated by the harness when the problem has primal data */
    int has_v;       /* 1 if the v passed to ncp_run_iterate is the solver's own velocity */
    int iterations;
    int status;      /* ncp_status: set by the solver only for STALLED / FAILED / UNSUPPORTED;
                        the harness fills the rest from the budget accounting */
} ncp_solve_out;

typedef int (*ncp_solve_fn)(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run,
                            ncp_error *err);

typedef struct ncp_solver_desc {
    const char *name;     /* registry key, e.g. "pgs" */
    const char *source;   /* paper and algorithm, e.g. "Lee et al. 2025 §VII baseline" */
    const char *summary;  /* one line */
    unsigned needs;       /* NCP_NEEDS_* */
    int ccp;              /* 1 if it solves the CCP relaxation, 0 for the NCP */
    const char *file;     /* source file, for `ncpbench list` */
    const ncp_param_doc *params; /* NULL-name terminated */
    ncp_solve_fn solve;
    int takes_v0;         /* 1 if it starts from the warm-start velocity in->v0 when one is
                             given (Lee et al. 2025 §V-D); solvers without it ignore v0 */
} ncp_solver_desc;

#endif
