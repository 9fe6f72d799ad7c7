/* The whole pipeline for one scene: load -> capture (problems.h5) -> every solver on every
 * problem (bench) -> figures. Shared by `ncpbench run` and `ncpbench check`. */
#ifndef NCP_PIPELINE_H
#define NCP_PIPELINE_H

#include <stdint.h>

#include "bench/bench.h"
#include "store/store.h"

typedef struct ncp_pipeline_opts {
    /* overrides of the scene's benchmark section; *_set = 0 keeps the scene's value */
    const char *solvers_csv;       /* NULL = scene's list (empty = all registered) */
    ncp_budget budget;
    int tol_set, max_iter_set, time_set;
    const char *stop_metric;       /* NULL = natural_map_rel_acary (ncp_harness_opts_default) */
    const char *driver;            /* NULL = scene's driver */
    int steps;                     /* > 0 overrides captured steps */
    double step_budget_ms;         /* > 0 overrides the driver's time budget per step */
    uint64_t seed;
    int quick;
    int jobs;
    int traces;                    /* traces.h5 (and figures) */
    int traces_csv;                /* --traces-csv: traces.csv too */
    int trace_every;               /* --trace-every: every iteration, not the log sample */
    int figures;
    int progress;
    int quiet;                     /* no summary table on stdout */
    int profile;                   /* print where the time went (summary.json has it always) */
    const ncp_solver_params_entry *params; /* CLI --param, override the scene's */
    int nparams;
    const char *out_dir;           /* NULL = results/<scene name> */
    const volatile int *interrupt;
    unsigned allow;                /* NCP_RECON_* the harness may build (default none) */
    double sym_tol;                /* --sym-tol (store.h ncp_load_problems_isolated_tol); <= 0: default */
    double max_memory;             /* --max-memory: budget of the readers and of a densified A
                                    * (util/membudget.h); <= 0: the default */
    int warm_start;                /* NCP_WARM_* (default velocity) */
    int clock;                     /* --clock: solver clock, NCP_CLOCK_CPU (default) or _WALL */
    int repeat;                    /* --repeat N: every pair solved N times (bench.h) */
    int fresh;                     /* discard earlier results in out_dir (--fresh) */
    int resume;                    /* keep the results of the same configuration in out_dir
                                      (bench/resume.h; the CLI's run and solve); 0 = start
                                      over (the default: `check` and the figures' runs must
                                      measure this build, not reuse an earlier one's rows) */
    int store_fclib;               /* run: FCLib groups inside problems.h5 (--store-fclib) */
    /* The solvers --solvers, --param and the scene's lists may name: the registry and the
     * loaded plugins (solve/plugin_load.h), owned by the caller; NULL = the registry. The
     * trajectory driver (--driver) is always a built-in solver. */
    const ncp_solver_catalog *catalog;
    int isolate;                   /* NCP_ISOLATE_* (bench.h): --isolate, --no-isolate */
    double deadline_ms;            /* --deadline-ms: the watchdog's (bench.h); <= 0 default */
} ncp_pipeline_opts;

void ncp_pipeline_opts_default(ncp_pipeline_opts *o);

/* Resolves a comma-separated solver list into descriptors (NULL catalog = the registry). An
 * item is a solver name or a set word (solve/catalog.h: default, peers, all; a set adds its
 * solvers not already listed); "" or NULL = "default", every solver but the peers. Unknown
 * names -> NCP_ERR_INPUT listing the known ones. */
int ncp_resolve_solvers(const ncp_solver_catalog *cat, const char *csv,
                        const ncp_solver_desc **out, int cap, int *n, ncp_error *err);

/* The solver variants of a run (solve/catalog.h: pgs@omega=1.3), owned by the caller for as
 * long as the resolved descriptors and parameters are used. */
typedef struct ncp_solver_variants {
    int n;
    ncp_solver_variant v[NCP_MAX_BENCH_SOLVERS];
    ncp_solver_params_entry params[2 * NCP_MAX_BENCH_SOLVERS]; /* ncp_variants_params's */
    int nparams;
} ncp_solver_variants;

/* ncp_resolve_solvers with variants allowed, kept in *vs (refused with vs NULL). Two items
 * naming the same solver with the same parameters are refused as a duplicate. */
int ncp_resolve_solvers_v(const ncp_solver_catalog *cat, const char *csv,
                          const ncp_solver_desc **out, int cap, int *n, ncp_solver_variants *vs,
                          ncp_error *err);

/* The run's parameter entries: ps[0..n) (validated: ncp_pipeline_params_validate) and, for
 * every variant of vs, an entry under its name with its base solver's parameters of ps
 * overridden by its own. *out points into vs. */
int ncp_variants_params(ncp_solver_variants *vs, const ncp_solver_params_entry *ps, int n,
                        const ncp_solver_params_entry **out, int *nout, ncp_error *err);

/* Every given parameter must be one the solver documents (a typo must not pass silently), of a
 * solver of cat (NULL = the registry): else NCP_ERR_INPUT naming it. */
int ncp_pipeline_params_validate(const ncp_solver_catalog *cat, const ncp_solver_params_entry *ps,
                                 int n, ncp_error *err);

/* Merges budget/params: scene values, then CLI overrides. */
int ncp_pipeline_run_scene(const char *scene_path, const ncp_pipeline_opts *o,
                           ncp_bench_summary *sum, char *out_dir_used, size_t cap, ncp_error *err);

/* Solves already-loaded problems with the same driver (no resume: earlier results in the
 * output directory are replaced). */
int ncp_pipeline_solve(const ncp_problem *probs, int n, const char *source, const ncp_pipeline_opts *o,
                       ncp_bench_summary *sum, ncp_error *err);

/* ncpbench solve: every problem of the files and directories (bench/collection.h), read file
 * by file; resumes an earlier run of the same configuration in the output directory (default
 * results/solve; bench/resume.h) unless o->fresh. */
int ncp_pipeline_solve_files(const char *const *paths, int npaths, const ncp_pipeline_opts *o,
                             ncp_bench_summary *sum, ncp_error *err);

/* Capture callback (ncp_capture_fn) that keeps a copy of every captured problem and appends it
 * to `store` when that is non-NULL. Zero-initialise; free the copies with
 * ncp_capture_sink_free (which does not touch the store). */
typedef struct ncp_capture_sink {
    ncp_store *store;
    ncp_problem *probs;
    int n, cap;
} ncp_capture_sink;

int ncp_capture_sink_fn(void *ctx, const ncp_problem *p, ncp_error *err);
void ncp_capture_sink_free(ncp_capture_sink *s);

/* Prints the profile (where the time of the run went) as a small table. */
void ncp_pipeline_print_profile(const ncp_profile *p);

/* Prints the per-solver summary table. */
void ncp_pipeline_print_summary(const ncp_bench_summary *sum, const char *stop_metric_name);

#endif
