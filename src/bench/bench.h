/* The benchmark driver: every problem x every selected solver under one budget, with
 * per-iteration traces, writing metrics.csv, traces.h5, solutions.h5 and summary.json into an
 * output directory (docs/design.md). Rows are journaled as soon as they are complete, and the
 * outputs list them in a deterministic order (problem-major, solvers in the given order)
 * whatever -j is, so an interrupted or killed run keeps every finished row.
 *
 * Problems come in batches (ncp_bench_source), so that a collection of many files is read one
 * batch at a time, each file once. Every finished pair goes to the journal of the output
 * directory, and the outputs are rebuilt from it at the end (bench/resume.h); a run resumes an
 * earlier one of the same configuration in the same directory: the pairs it finished are kept,
 * not solved again. */
#ifndef NCP_BENCH_H
#define NCP_BENCH_H

#include <stdint.h>

#include "solve/harness.h"
#include "scene/scene.h"
#include "solve/catalog.h"

/* Start point of every solve (--warm-start). A captured problem's guess is the state its step
 * starts from (problem.h), so `velocity` is Lee et al. 2025 §V-D's protocol: every solver that
 * takes a velocity starts from the previous step's, impulses from zero. */
enum {
    NCP_WARM_ZERO = 0,     /* lambda = 0 (and no v) */
    NCP_WARM_GUESS = 1,    /* the file's warm start (ncp_problem.guess_lambda, guess_v) when it
                              has one, else zero; recorded in the row's note */
    NCP_WARM_VELOCITY = 2  /* v0 = guess_v, lambda0 = 0, per problem: zero when the problem has
                              no guess_v (no error). The default of ncpbench (pipeline.h);
                              recorded in the note of every row the harness handed v0 (the
                              problem's own dense primal form), used by the solvers that take
                              a velocity, ignored by the others */
};
/* "zero", "guess", "velocity"; the inverse gives -1 for an unknown name. */
const char *ncp_warm_start_name(int mode);
int ncp_warm_start_from_name(const char *name);

struct ncp_jresult; /* one finished pair as journaled (bench/resume.h) */

typedef struct ncp_bench_opts {
    const ncp_solver_desc **solvers;
    int nsolvers;
    ncp_budget budget;
    int stop_metric;
    const ncp_solver_params_entry *params; /* per-solver parameters */
    int nparams;
    int jobs;               /* worker threads (>= 1); timings are honest only with 1 */
    int traces;             /* write traces.h5 (bench/output.h) */
    int traces_csv;         /* also traces.csv (--traces-csv; only with traces) */
    int trace_every;        /* store every iteration, not the log sample (--trace-every) */
    int progress;           /* allow a progress bar */
    const volatile int *interrupt;
    const char *out_dir;
    const char *scene_name; /* for summary.json */
    const char *source;     /* scene file or problem files, for summary.json */
    uint64_t seed;
    int quick;
    unsigned allow;         /* NCP_RECON_* (--reconstruct-primal, --primal dense, --symmetrize) */
    double max_memory;      /* --max-memory (util/membudget.h): limit of a densified A; <= 0 default */
    /* --sym-tol (store.h ncp_load_problems_isolated_tol): how the problems were read, part of
     * the configuration (another tolerance can read another M); <= 0: the default */
    double sym_tol;
    int warm_start;         /* NCP_WARM_* */
    int clock;              /* the solver clock (util/clock.h ncp_clock_kind; 0 = CPU) */
    /* --repeat N (>= 1; 0 counts as 1): every pair solved N times; the row reports the repeat
     * of median time (setup + solve) and the min / max (ncp_result.repeats). The answers must
     * be the same bits (iterations, status, lambda, every metric): a solver that differs ends
     * the run with an internal error naming the pair. A pair stopped by the time budget in
     * any repeat is exempt (the budget decides its iterate): its note says so. */
    int repeat;
    /* Resume (bench/resume.h): the configuration text recorded in OUT's journal
     * (ncp_resume_config); NULL = a fresh run that keeps nothing. `fresh` discards results of
     * any configuration. `input`: what the problems are captured from (ncpbench run: the
     * scene's text fingerprint and the capture options), part of the configuration. */
    const char *config;
    int fresh;
    const char *input;
    double capture_ms;      /* time the caller spent capturing, for the profile (0: none) */
    /* Which solves run in a forked child (one fork per problem x solver pair): NCP_ISOLATE_*.
     * A child killed by a signal, or ending without sending a complete result (a plugin's
     * exit() included), gives a row with status crashed whose note says how, and the run goes
     * on. The child's own solver clock is reported, as in-process. */
    int isolate;
    /* The watchdog's hard deadline of one solve, wall ms (docs/design.md §5.7.1); <= 0: the
     * default, ncp_bench_deadline_ms. */
    double deadline_ms;
    int out_locked;         /* the caller holds out_dir's lock (util/fsutil.h ncp_out_lock) */
    /* Where the solvers' descriptions come from for the outputs (summary.json's source and
     * plugin file): NULL = the registry (solvers/registry.h). */
    const ncp_solver_catalog *catalog;
    /* Solvers of `solvers` whose rows are graded answers (bench/grade.h), journaled before the
     * run and never solved: self-timed in the outputs, "graded" in the configuration. A run
     * adds the graded solvers of its folder's journal that it does not name (resume.h). */
    const char *const *graded;
    int ngraded;
    /* NULL, or called on the main thread after each batch whose pairs have all finished (not
     * after an interrupted or failed one), before the next batch is read: batch_row with each
     * of the batch's rows in the order of metrics.csv (r valid during the call only), then
     * batch_done with the batch's problems. pipeline.c labels a collection's problems so, from
     * the batches already read. An error ends the run. Their time is not in the solve phase's
     * wall time. */
    int (*batch_row)(void *ctx, const struct ncp_jresult *r, ncp_error *err);
    int (*batch_done)(void *ctx, const ncp_problem *probs, int n, ncp_error *err);
    void *batch_ctx;
} ncp_bench_opts;

/* 1 if `solver` is one of o->graded. */
int ncp_bench_is_graded(const ncp_bench_opts *o, const char *solver);

/* ncp_bench_opts.isolate: plugins' solvers in a child (the default: a plugin may crash, hang
 * or call exit()), every solver (--isolate), none (--no-isolate). */
enum { NCP_ISOLATE_PLUGINS = 0, NCP_ISOLATE_ALL = 1, NCP_ISOLATE_NONE = -1 };

/* The watchdog (docs/design.md §5.7.1): a solve's hard deadline D is NCP_DEADLINE_FACTOR x its
 * time budget + NCP_DEADLINE_FLOOR_MS (NCP_DEADLINE_NO_BUDGET_MS without a time budget, or
 * --deadline-ms), counted as bench/deadline.h says: CPU time, or wall time without progress. */
#define NCP_DEADLINE_FACTOR 10.0
#define NCP_DEADLINE_FLOOR_MS 5000.0
#define NCP_DEADLINE_NO_BUDGET_MS 1800000.0
double ncp_bench_deadline_ms(const ncp_bench_opts *o);

/* Capacities of one benchmark run: solvers compared, worker threads (-j). */
#define NCP_BENCH_MAX_SOLVERS 64
#define NCP_BENCH_MAX_JOBS 64
#define NCP_BENCH_MAX_DECLINED 4

/* Aggregates of one solver over all problems (for summary.json and `ncpbench check`). Medians
 * and maxima are over the rows that ran (`problems`); unsupported rows are counted apart. */
typedef struct ncp_solver_summary {
    char solver[32];
    int problems;     /* rows that ran (unsupported ones excluded) */
    int converged;
    int failed;
    int timeouts;
    int max_iters;
    int crashed;      /* NCP_STATUS_CRASHED rows (--isolate): counted in problems, not in the
                         medians (they have no answer) */
    int killed;       /* rows of children killed by the watchdog (NCP_NOTE_KILLED, status
                         timeout; also in timeouts): not in the medians either */
    int unsupported;
    int self_timed;   /* a graded solver (ncp_bench_opts.graded): its times are its program's */
    int unsupported_by[NCP_UNSUP_COUNT];  /* per NCP_UNSUP_* (ncp_unsupported_name) */
    /* NCP_UNSUP_SOLVER rows by the solver's own reason (its text up to the first ';'), the
     * first NCP_BENCH_MAX_DECLINED distinct ones; the rest stay in unsupported_by only */
    int ndeclined;
    char declined[NCP_BENCH_MAX_DECLINED][160];
    int declined_count[NCP_BENCH_MAX_DECLINED];
    int reconstructed[NCP_RECON_COUNT];   /* per NCP_RECON_* bit, in bit order */
    int warm_guess;                       /* rows started from the file's guess */
    int warm_velocity;                    /* rows handed the previous velocity (velocity mode) */
    double median_iterations;
    double max_iterations;
    double median_solve_ms;
    double total_solve_ms;
    double median_setup_ms;
    double median[NCP_NMETRICS]; /* per metric column */
    double max[NCP_NMETRICS];
} ncp_solver_summary;

/* Where the time of a run goes (summary.json "profile", `--profile`), milliseconds: the
 * per-solve parts on the run's clock (summary.json "clock"), the pipeline parts (capture, load,
 * the solve phase, write, figures) on the wall clock. The per-solve parts are sums over the
 * solves (with -j N or MPI they add up to more than the wall
 * time of the solve phase); the pipeline parts are wall times of their phase. */
typedef struct ncp_profile {
    double capture_ms;    /* simulating the scene and writing problems.h5 (run) */
    double load_ms;       /* reading problem files (solve) */
    double solve_wall_ms; /* the solve phase, start to the last row written */
    double solver_ms;     /* sum of setup_ms + solve_ms: the solvers' own clock */
    double monitor_ms;    /* sum of the harness's per-iterate metrics and stopping test */
    double harness_ms;    /* sum of the rest of each solve: preparing, final metrics, v */
    double write_ms;      /* writing rows: metrics.csv, traces, solutions.h5 */
    double figures_ms;    /* aggregating traces and running gnuplot, the index page */
} ncp_profile;

typedef struct ncp_bench_summary {
    double load_start[3]; /* /proc/loadavg when the solve phase started (NaN: unreadable) */
    uint64_t problem_checksum; /* ncp_bench_problem_checksum over the run's problems in order */
    int nsolvers;
    ncp_solver_summary solvers[NCP_BENCH_MAX_SOLVERS];
    int nproblems;
    int interrupted;
    int files_failed; /* ncp_pipeline_solve_files: problem files that failed to load */
    int kept;         /* rows copied from an earlier run of the same configuration (resume) */
    int dropped;      /* earlier rows of problems no longer in the collection, not kept */
    int hidden;       /* rows of solvers of the folder the run does not name: in the journal,
                         not in these outputs (a rerun with a subset of the solvers) */
    ncp_profile profile;
} ncp_bench_summary;

/* The checksum of a problem set (summary.json "problem_set_checksum"): FNV-1a 64 over 64-bit
 * words, chained over the problems in the run's order; per problem its name (bytes), m, nv,
 * nblocks, h, each block's type, first row and mu, then the data that define it as read: with
 * primal data A (dense nv x nv, or A_sparse's row pointers, columns and values), b, J (row
 * pointers, columns, values) and e; without, D (m x m) and v_f. Derived data (D of a primal
 * problem) are not covered: they follow from what is. Doubles are hashed as their bits, so the
 * same file read twice gives the same sum and any changed bit another. Start from
 * NCP_CHECKSUM_START. */
#define NCP_CHECKSUM_START 14695981039346656037ull
uint64_t ncp_bench_problem_checksum(uint64_t h, const ncp_problem *p);

/* What a row's note says, parsed back (the note is the one record of it in metrics.csv). */
typedef struct ncp_note_info {
    int unsupported;   /* NCP_UNSUP_* */
    unsigned applied;  /* NCP_RECON_* */
    int warm_guess;    /* 1: started from the file's guess */
    int warm_velocity; /* 1: handed the previous velocity as v0 (--warm-start velocity) */
    int killed;        /* 1: its child was killed (watchdog or interrupt): no answer */
} ncp_note_info;
void ncp_note_parse(const char *note, ncp_note_info *ni);

/* The note texts of a warm start (--warm-start guess, velocity). */
#define NCP_NOTE_WARM_GUESS "warm start: the file's guess"
#define NCP_NOTE_WARM_NONE "warm start: zero (the file has no guess)"
#define NCP_NOTE_WARM_VELOCITY "warm start: v0 = the previous velocity"
/* The note of a solve whose child the watchdog killed at its hard deadline (status timeout). */
#define NCP_NOTE_KILLED "timeout (killed)"

/* Batches of problems: next() hands out the next batch, valid until the following call (n = 0:
 * no more). An error stops the run (finished rows are kept). */
typedef struct ncp_bench_source {
    int (*next)(void *ctx, const ncp_problem **probs, int *n, ncp_error *err);
    void *ctx;
    int total_hint; /* problems expected (for the progress bar), 0 if unknown */
    /* NULL, or a source whose batches come as stored: finish(ctx, i) derives the rest of
     * problem i of the current batch in place (store.h ncp_problem_finish), called once per
     * problem by the first solve of it on this process; the name, title, description and m of
     * a problem are final before it. */
    int (*finish)(void *ctx, int i, ncp_error *err);
    /* NULL, or release(ctx, i): problem i back to its state before finish (store.h
     * ncp_problem_release: its derived D freed), called once no task of it is left on this
     * process; returns 1 if it did (finish is then called again should a task of it come),
     * 0 if the problem stays finished. */
    int (*release)(void *ctx, int i);
} ncp_bench_source;

/* Makes room for item n of the array *arrp (arrp: the address of a T * holding *cap items of
 * elem bytes), doubling it (at least 64). NCP_ERR_NOMEM, err set when non-NULL, if that fails
 * (the array is then unchanged). */
int ncp_bench_grow(void *arrp, int *cap, int n, size_t elem, ncp_error *err);

int ncp_bench_run(const ncp_problem *probs, int nprobs, const ncp_bench_opts *o,
                  ncp_bench_summary *sum, ncp_error *err);
int ncp_bench_run_source(const ncp_bench_source *src, const ncp_bench_opts *o,
                         ncp_bench_summary *sum, ncp_error *err);

#endif
