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

/* Problems the harness may build for a solver that needs what a problem lacks (bits of
 * ncp_harness_opts.allow; none by default). Each changes what the SOLVER is given, never what it
 * is graded against: the metrics, u and the convergence test always use the problem as given.
 * What was built is recorded in ncp_result.applied and .note. */
enum {
    /* dual-only problem, primal solver: A = I, J = Q diag(sqrt w), b = 0, e = v_f from
     * D = Q diag(w) Q^T (ncp_problem_primal_from_dual); needs a symmetric D */
    NCP_RECON_PRIMAL_FROM_D = 1u << 0,
    /* sparse-primal problem (FCLib global), primal solver: A densified, if it fits in memory */
    NCP_RECON_PRIMAL_DENSE = 1u << 1,
    /* non-symmetric D, NCP_NEEDS_SYMMETRIC solver (or a primal built from D): (D + D^T)/2 */
    NCP_RECON_SYMMETRIZE = 1u << 2
};
#define NCP_RECON_COUNT 3
/* Short name of one NCP_RECON_* bit ("primal reconstructed from D", ...), for notes and
 * summaries; NULL for anything else. */
const char *ncp_recon_name(unsigned bit);

/* Why a solve is unsupported (ncp_result.unsupported); 0 = it is not. */
enum {
    NCP_UNSUP_NONE = 0,
    NCP_UNSUP_STRUCTURE = 1,  /* no subsystem structure */
    NCP_UNSUP_PRIMAL = 2,     /* dual-only problem, primal solver, no NCP_RECON_PRIMAL_FROM_D */
    NCP_UNSUP_SPARSE = 3,     /* sparse-primal problem, primal solver, no NCP_RECON_PRIMAL_DENSE */
    NCP_UNSUP_MEMORY = 4,     /* densifying A, or building the dense D, would exceed the
                                 memory limit */
    NCP_UNSUP_SYMMETRIC = 5,  /* non-symmetric D, no NCP_RECON_SYMMETRIZE */
    NCP_UNSUP_SOLVER = 6      /* the solver itself declined the problem (solver.h: it set
                                 NCP_STATUS_UNSUPPORTED and left the reason in err) */
};
#define NCP_UNSUP_COUNT 7
/* Short, problem-independent text of a reason ("needs a symmetric D", ...), the key under which
 * summaries count them; NULL for NCP_UNSUP_NONE or an unknown value. */
const char *ncp_unsupported_name(int kind);

typedef struct ncp_harness_opts {
    ncp_budget budget;
    int stop_metric;          /* index into the metric columns (ncp_metrics_index) */
    ncp_trace_fn trace;       /* may be NULL */
    void *trace_ctx;
    /* 0: every metric and the trace callback after every iterate. 1: only the stopping metric
     * after every iterate (the decision stays exact), every metric and the callback at the
     * iterates of the log sample (util/stats.h ncp_log_sample_keep) and at the last one. */
    int trace_sample;
    const volatile int *interrupt; /* if non-NULL and *interrupt != 0, stop (status STOPPED) */
    unsigned allow;           /* NCP_RECON_* the caller allows (0: none) */
    /* Largest dense A, in bytes, that NCP_RECON_PRIMAL_DENSE may build (with the Cholesky copy
     * the harness makes for v, twice that is allocated): the memory budget (--max-memory);
     * <= 0: the default budget (util/membudget.h, half the physical memory). */
    double dense_max_bytes;
    /* An unsupported solve returns NCP_OK with status NCP_STATUS_UNSUPPORTED and the reason in
     * ncp_result.note when set (the benchmark records a row); NCP_ERR_INPUT with the reason as
     * the message when 0 (callers with no row to record it in, e.g. the trajectory driver). */
    int unsupported_ok;
    /* The solver clock (util/clock.h ncp_clock_kind): NCP_CLOCK_CPU (0, the default), the
     * solving thread's CPU time plus what the solver charges with ncp_run_add_cpu_ms (worker
     * threads, a peer's process); NCP_CLOCK_WALL, elapsed time (--clock wall). Budgets, setup_ms,
     * solve_ms, monitor_ms and the trace's times are on it; solver_wall_ms is always wall. */
    int clock;
} ncp_harness_opts;

/* The default stopping rule of every command (the harness, a scene's benchmark.budget, the CLI,
 * grade), written once; the presets of --tol: high and low accuracy (qpbenchmark's "high" and
 * "low"). Plain literals so that the CLI's help can print them (NCP_XSTR). */
#define NCP_TOL_HIGH 1e-8
#define NCP_TOL_LOW 1e-4
#define NCP_DEFAULT_TOL NCP_TOL_HIGH
#define NCP_DEFAULT_MAX_ITER 1000
#define NCP_STR_(x) #x
#define NCP_XSTR(x) NCP_STR_(x)

/* Fills defaults: tol NCP_DEFAULT_TOL, max_iter NCP_DEFAULT_MAX_ITER, time unlimited, the CPU clock, stop metric natural_map_rel_acary
 * (divides by the fixed norm of v_f: the Siconos form divides by max(||v_f||, ||lambda||, ||u||),
 * which a diverging iterate drives to zero, so it would report divergence as convergence), no
 * reconstruction, unsupported solves as errors. */
void ncp_harness_opts_default(ncp_harness_opts *o);

/* Whether D counts as symmetric: p->dual_symmetric, or measured symmetric to round-off
 * (max |D_ij - D_ji| <= 1e-12 max |D_ij|; problems built in code need not set the flag).
 * *asym and *scale (may be NULL) get max |D_ij - D_ji| and max |D_ij|. */
int ncp_harness_dual_symmetric(const ncp_problem *p, double *asym, double *scale);

typedef struct ncp_result {
    double *lambda;     /* m */
    double *u;          /* m: D lambda + v_f, recomputed by the harness */
    double *v;          /* nv or NULL: A^{-1}(b + J^T lambda), the velocity of the graded lambda */
    double *solver_v;   /* nv or NULL: the solver's own v when it reports one (an ADMM's or
                           sap's primal iterate: off v until it has converged) */
    int has_solver_v;   /* solver_v != NULL */
    int iterations;
    int status;         /* ncp_status */
    int converged;      /* final stopping metric <= tol */
    double setup_ms;
    double solve_ms;    /* iterations only (setup excluded) */
    double monitor_ms;  /* the harness's own time during the solve, excluded from setup_ms and
                           solve_ms: metrics after every iterate, the stopping test and the trace
                           callback (docs/design.md §5, "where the time goes") */
    double wall_ms;     /* the whole ncp_harness_solve call: solver + monitor + the harness's
                           preparation and final evaluation (wall clock) */
    double solver_wall_ms; /* setup_ms + solve_ms measured on the wall clock, whichever clock
                              the budget ran on (monitor excluded) */
    double total_ms;    /* the whole call as wall_ms, but on the run's clock: what the harness's
                           own share (profile harness_ms) is measured against */
    int clock;          /* the clock of setup_ms, solve_ms, monitor_ms (ncp_clock_kind) */
    /* --repeat N (bench.c; the harness leaves repeats 0): the solve was run N times with the
     * same answer, setup_ms / solve_ms / solver_wall_ms / monitor_ms are the repeat of median
     * time, time_min_ms and time_max_ms the extremes of setup_ms + solve_ms */
    int repeats;
    double time_min_ms, time_max_ms;
    ncp_metrics final;  /* metrics of the returned lambda (all NaN when unsupported) */
    unsigned applied;   /* NCP_RECON_* the solver was given */
    int unsupported;    /* NCP_UNSUP_* when status is NCP_STATUS_UNSUPPORTED, else 0 */
    /* Unsupported: the reason, naming what is missing and the option that would supply it.
     * Otherwise what was reconstructed ("; "-separated), "" when nothing was. */
    char note[400];
} ncp_result;

void ncp_result_free(ncp_result *r);

/* Runs `s` on `p`. The dual data are derived from the primal when absent (exact, for the
 * metrics). What else s->needs must be in p, or be built as opts->allow permits; otherwise the
 * solve is unsupported (opts->unsupported_ok). An unsupported result has status
 * NCP_STATUS_UNSUPPORTED, no iterate (lambda, u, v NULL), zero times and NaN metrics.
 * v (nv) is the problem's generalised velocity: NULL when the problem has no dense primal
 * data, or only a primal reconstructed from D (whose velocity is not the problem's). A problem
 * that keeps A sparse (has_sparse_primal, no dense A) has one too for a solver that takes v0
 * and runs on the sparse form as it is (sap): it gets v0. res->v is A^{-1}(b + J^T lambda) for
 * the graded lambda (by A's dense or sparse factor), whatever the solver reports; a solver's own
 * velocity goes to res->solver_v. */
int ncp_harness_solve(const ncp_solver_desc *s, const ncp_problem *p, const ncp_params *params,
                      const double *lambda0, const double *v0, const ncp_harness_opts *opts,
                      ncp_result *res, ncp_error *err);

/* Grades an answer computed elsewhere (ncpbench grade, bench/grade.h) exactly as the final
 * iterate of ncp_harness_solve is graded: the metrics module on the problem as given (dual data
 * derived from the primal when absent), u = D lambda + v_f, v = A^{-1}(b + J^T lambda) when the
 * problem has dense primal data. lambda (m) must be finite. v (nv or NULL): the program's
 * velocity, kept as res->solver_v (res->v is A^{-1}(b + J^T lambda), NULL without dense primal
 * data); with dense primal data its relative distance to
 * A^{-1}(b + J^T lambda) is written into res->note. trace_lambda (ntrace x m, row-major, may be
 * NULL with ntrace 0): iterates whose metrics go to trace_out[k] (ntrace entries). Sets final,
 * converged (opts->stop_metric <= opts->budget.tol) and status: CONVERGED, or STALLED (the
 * program stopped by a test of its own). Times, iterations are left 0 for the caller. */
int ncp_harness_grade(const ncp_problem *p, const double *lambda, const double *v,
                      const double *trace_lambda, int ntrace, ncp_metrics *trace_out,
                      const ncp_harness_opts *opts, ncp_result *res, ncp_error *err);

#endif
