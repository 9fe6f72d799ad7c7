/* The ncpbench command line (cli.h). Each subcommand validates every input before it creates
 * any output, so bad input leaves nothing behind. */
#include <dirent.h>
#include <sys/stat.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/check.h"
#include "bench/mpi_pool.h"
#include "app/cli.h"
#include "app/cmd_grade.h"
#include "util/fsutil.h"
#include "ncp_config.h"
#include "bench/pipeline.h"
#include "figures/fig_util.h"
#include "figures/figures.h"
#include "bench/plot.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/machine.h"
#include "util/membudget.h"
#include "solvers/registry.h"
#include "store/fclib_io.h"
#include "solve/params.h"
#include "solve/plugin_load.h"
#include "capture/capture.h"
#include "bench/task.h"

#define EXIT_CHECK_FAILED NCP_EXIT_CHECK_FAILED
#define EXIT_BAD_INPUT NCP_EXIT_BAD_INPUT
#define EXIT_FAILURE_IO NCP_EXIT_FAILURE
#define EXIT_INTERRUPTED NCP_EXIT_INTERRUPTED
#define EXIT_FILES_FAILED NCP_EXIT_FILES_FAILED

static const char *COMMON_HELP =
    "Common options:\n"
    "  --solvers a,b       solvers to run (default: the scene's list, else every registered one\n"
    "                      but the peers); the words default, peers (Siconos's solvers, when\n"
    "                      built with them) and all name sets: --solvers default,peers = all\n"
    "  --tol X|high|low    tolerance on the stopping metric (default: scene, else 1e-8);\n"
    "                      presets: high = 1e-8, low = 1e-4 (high and low accuracy)\n"
    "  --max-iter N        iteration budget per solve (default: scene, else 1000)\n"
    "  --budget-ms X       solver-time budget per solve in ms, setup included (default: none)\n"
    "  --clock cpu|wall    the solver clock of budgets and reported times (default cpu: the\n"
    "                      solving thread's CPU time, plus its worker threads' and a peer\n"
    "                      process's; wall: elapsed time, which the machine's load changes).\n"
    "                      The wall time is recorded beside it (metrics.csv wall_ms)\n"
    "  --repeat N          solve every problem x solver pair N times (default 1): the row's\n"
    "                      times are the repeat of median time, time_min_ms / time_max_ms the\n"
    "                      spread; the answers must be identical bits, else the run fails\n"
    "  --stop-metric NAME  metric compared with --tol (default natural_map_rel_acary;\n"
    "                      see `ncpbench list metrics`)\n"
    "  --param S.NAME=X    solver parameter, e.g. --param pgs.omega=1.2 (repeatable)\n"
    "  --seed N            seed for everything random (default 1)\n"
    "  --out DIR           output directory\n"
    "  --quick             small sizes (the scene's quick_steps), for CI\n"
    "  -j N                solve N problem x solver pairs in parallel threads (default 1;\n"
    "                      timings are only comparable with -j 1)\n"
    "  --no-traces         do not write traces (and no figures)\n"
    "  --traces-csv        also write the traces as OUT/traces.csv (text, large)\n"
    "  --trace-every       store every iteration in the traces (default: iterations 1..20,\n"
    "                      then about 20 per decade, and the last one)\n"
    "  --no-figures        do not run gnuplot\n"
    "  --profile           print where the time went: capture, solvers, the harness's\n"
    "                      monitoring, writing, figures (always in summary.json \"profile\")\n"
    "  --no-progress       no progress bar (it is shown only on a terminal anyway)\n"
    "  --sym-tol X         a global problem's M with |M - M^T|_F / |M|_F <= X is read as its\n"
    "                      symmetric part, with a note (default 1e-6; solve)\n"
    "  --max-memory SIZE   memory budget (e.g. 8G, 512M, 40%; default half the physical\n"
    "                      memory): input files declaring more, and densified matrices above\n"
    "                      it, are refused\n"
    "  --reconstruct-primal  let primal solvers run on dual-only problems with A = I,\n"
    "                      J = Q diag(sqrt w) built from D = Q diag(w) Q^T (recorded per row)\n"
    "  --primal dense      let primal solvers run on sparse-primal (FCLib global) problems\n"
    "                      with A densified, if it fits in memory (recorded; default sparse:\n"
    "                      such rows are unsupported)\n"
    "  --symmetrize        solvers that need a symmetric D get (D + D^T)/2 when D is not\n"
    "                      symmetric (recorded; metrics always use D as given)\n"
    "  --warm-start zero|velocity|guess  where solves start (recorded): velocity (default)\n"
    "                      = solvers that take a velocity start from the problem's previous\n"
    "                      velocity, impulses 0 (captured problems carry it; zero where a\n"
    "                      problem has none); guess = its impulses too (FCLib /guesses)\n"
    "Without these options a solver that needs what a problem lacks gets a row with status\n"
    "unsupported and the reason in the column note.\n"
    "  --plugin FILE.so    load a solver plugin (repeatable; also $NCPBENCH_PLUGINS, a\n"
    "                      colon-separated list of files): its solvers are listed, selected\n"
    "                      with --solvers and run, graded and drawn like built-in ones (see\n"
    "                      `ncpbench list solvers --plugin FILE.so`, docs/plugins.md)\n"
    "  --isolate           run every problem x solver solve in a forked child process (a\n"
    "                      plugin's solves always are, unless --no-isolate): a solver that\n"
    "                      crashes or calls exit() gives a row with status crashed (the note\n"
    "                      says how), one that passes its hard deadline is killed (row\n"
    "                      `timeout (killed)`), and the run goes on (exit 4 at its end).\n"
    "                      Times are the child's solver clock; they include its first\n"
    "                      writes to memory shared with the parent (copy-on-write): compare\n"
    "                      isolated with isolated\n"
    "  --no-isolate        run plugins' solves in ncpbench's process too (trusted plugins)\n"
    "  --deadline-ms X     the watchdog's hard deadline of one solve in wall ms (default 10 x\n"
    "                      --budget-ms + 5000, 1800000 without a budget): an isolated solve\n"
    "                      past it is killed; an in-process one that ignores the stop request\n"
    "                      stops the run (exit 5, finished rows written)\n";

static void usage_main(FILE *f)
{
    fprintf(f,
            "ncpbench %s — benchmark contact solvers on captured robot-simulation problems\n\n"
            "Usage: ncpbench COMMAND [options]\n\n"
            "Commands:\n"
            "  run SCENE           capture the scene, solve every problem with every solver,\n"
            "                      write metrics, traces, solutions and figures\n"
            "  capture SCENE -o F  only capture the scene's problems into the HDF5 file F\n"
            "  solve FILE|DIR...   solve problems from our HDF5 files or plain FCLib files\n"
            "                      (directories searched recursively; resumes an earlier run)\n"
            "  plot DIR            (re)draw the figures of an output directory\n"
            "  list [WHAT]         list solvers (with their source), metrics and scenes\n"
            "  export --fclib DIR FILE...  write every problem as a plain FCLib file\n"
            "  check BASELINE      rerun the baseline's quick scenes, compare, exit 1 on regression\n"
            "  task SCENE          run the scene's task once per solver under a per-step budget\n"
            "  grade PROBLEMS ANSWERS.h5  grade answers computed by another program with the\n"
            "                      same metrics (docs/answers.md)\n"
            "  figures [...]       regenerate the papers' figures and tables, performance profiles\n"
            "  version             version, BLAS backend and the data directory in use (scenes,\n"
            "                      gnuplot scripts, baselines: $NCPBENCH_DATA, else the source\n"
            "                      tree of an uninstalled build, else PREFIX/share/ncpbench)\n\n"
            "`ncpbench COMMAND --help` describes each command. Exit codes: 0 success, 1 check\n"
            "found regressions, 2 bad input or usage, 3 I/O or internal failure, 130 interrupted\n"
            "(finished results are kept).\n",
            NCP_VERSION);
}

typedef struct cli {
    const char *cmd;
    ncp_pipeline_opts po;
    ncp_solver_params_entry params[NCP_MAX_BENCH_SOLVERS];
    int nparams;
    const char *output;   /* capture -o */
    const char *fclib;    /* export --fclib */
    const char *metric;   /* plot --metric */
    int update;           /* check --update */
    const char *pos[256];
    int npos;
    const char *plugin_paths[64]; /* --plugin, then $NCPBENCH_PLUGINS */
    int nplugin_paths;
    char plugin_env[8192];        /* the variable's copy the paths point into */
    ncp_plugins *plugins;         /* loaded for run, solve, list; its catalog is po.catalog */
} cli;

static int bad(cli *c, const char *fmt, const char *a, const char *b)
{
    if (ncp_mpi_rank() > 0) return EXIT_BAD_INPUT; /* every MPI rank parses the same words */
    fprintf(stderr, "ncpbench %s: ", c->cmd);
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n(see `ncpbench %s --help`)\n", c->cmd);
    return EXIT_BAD_INPUT;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(x)) return -1;
    *out = x;
    return 0;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (errno || end == s || *end || x < lo || x > hi) return -1;
    *out = x;
    return 0;
}

static int add_param(cli *c, const char *spec)
{
    ncp_error err = {0};
    if (ncp_solver_params_add(c->params, &c->nparams, NCP_MAX_BENCH_SOLVERS, spec, &err))
        return bad(c, "%s%s", err.msg, "");
    return 0;
}

/* Parses options shared by all commands; unknown options are errors. */
static int parse_args(cli *c, int argc, char **argv, int *help)
{
    *help = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE()                                                          \
    do {                                                                      \
        if (!v) return bad(c, "option %s needs a value%s", a, "");            \
        i++;                                                                  \
    } while (0)
        double d;
        long l;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            *help = 1;
        } else if (!strcmp(a, "--plugin")) {
            NEED_VALUE();
            if (c->nplugin_paths >= (int)(sizeof c->plugin_paths / sizeof c->plugin_paths[0]))
                return bad(c, "too many --plugin files (at most 64)%s%s", "", "");
            c->plugin_paths[c->nplugin_paths++] = v;
        } else if (!strcmp(a, "--isolate")) {
            c->po.isolate = NCP_ISOLATE_ALL;
        } else if (!strcmp(a, "--no-isolate")) {
            c->po.isolate = NCP_ISOLATE_NONE;
        } else if (!strcmp(a, "--deadline-ms")) {
            NEED_VALUE();
            if (parse_double(v, &d) || d <= 0) return bad(c, "--deadline-ms: expected a number > 0, got '%s'%s", v, "");
            c->po.deadline_ms = d;
        } else if (!strcmp(a, "--solvers")) {
            NEED_VALUE();
            c->po.solvers_csv = v;
        } else if (!strcmp(a, "--tol")) {
            NEED_VALUE();
            /* presets: the two accuracies users compare (qpbenchmark's "high" and "low") */
            if (!strcmp(v, "high")) d = 1e-8;
            else if (!strcmp(v, "low")) d = 1e-4;
            else if (parse_double(v, &d) || d < 0)
                return bad(c, "--tol: expected a number >= 0, 'high' (1e-8) or 'low' (1e-4), got '%s'%s", v, "");
            c->po.budget.tol = d;
            c->po.tol_set = 1;
        } else if (!strcmp(a, "--max-iter")) {
            NEED_VALUE();
            if (parse_int(v, 1, 100000000, &l)) return bad(c, "--max-iter: expected an integer >= 1, got '%s'%s", v, "");
            c->po.budget.max_iter = (int)l;
            c->po.max_iter_set = 1;
        } else if (!strcmp(a, "--budget-ms")) {
            NEED_VALUE();
            if (parse_double(v, &d) || d <= 0) return bad(c, "--budget-ms: expected a number > 0, got '%s'%s", v, "");
            c->po.budget.time_ms = d;
            c->po.time_set = 1;
        } else if (!strcmp(a, "--clock")) {
            NEED_VALUE();
            int k = ncp_clock_parse(v);
            if (k < 0) return bad(c, "--clock: expected cpu or wall, got '%s'%s", v, "");
            c->po.clock = k;
        } else if (!strcmp(a, "--repeat")) {
            NEED_VALUE();
            if (parse_int(v, 1, 1000, &l)) return bad(c, "--repeat: expected an integer in 1..1000, got '%s'%s", v, "");
            c->po.repeat = (int)l;
        } else if (!strcmp(a, "--stop-metric")) {
            NEED_VALUE();
            c->po.stop_metric = v;
        } else if (!strcmp(a, "--param")) {
            NEED_VALUE();
            int rc = add_param(c, v);
            if (rc) return rc;
        } else if (!strcmp(a, "--seed")) {
            NEED_VALUE();
            char *end;
            errno = 0;
            unsigned long long s = strtoull(v, &end, 10);
            if (errno || end == v || *end || v[0] == '-') return bad(c, "--seed: expected a non-negative integer, got '%s'%s", v, "");
            c->po.seed = (uint64_t)s;
        } else if (!strcmp(a, "--out")) {
            NEED_VALUE();
            c->po.out_dir = v;
        } else if (!strcmp(a, "--quick")) {
            c->po.quick = 1;
        } else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) {
            NEED_VALUE();
            if (parse_int(v, 1, 64, &l)) return bad(c, "-j: expected an integer in 1..64, got '%s'%s", v, "");
            c->po.jobs = (int)l;
        } else if (!strcmp(a, "--no-traces")) {
            c->po.traces = 0;
        } else if (!strcmp(a, "--traces-csv")) {
            c->po.traces_csv = 1;
        } else if (!strcmp(a, "--trace-every")) {
            c->po.trace_every = 1;
        } else if (!strcmp(a, "--no-figures")) {
            c->po.figures = 0;
        } else if (!strcmp(a, "--profile")) {
            c->po.profile = 1;
        } else if (!strcmp(a, "--no-progress")) {
            c->po.progress = 0;
        } else if (!strcmp(a, "--driver")) {
            NEED_VALUE();
            c->po.driver = v;
        } else if (!strcmp(a, "--step-budget-ms")) {
            NEED_VALUE();
            if (parse_double(v, &d) || d <= 0) return bad(c, "--step-budget-ms: expected a number > 0, got '%s'%s", v, "");
            c->po.step_budget_ms = d;
        } else if (!strcmp(a, "--steps")) {
            NEED_VALUE();
            if (parse_int(v, 1, 100000000, &l)) return bad(c, "--steps: expected an integer >= 1, got '%s'%s", v, "");
            c->po.steps = (int)l;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            NEED_VALUE();
            c->output = v;
        } else if (!strcmp(a, "--fclib")) {
            NEED_VALUE();
            c->fclib = v;
        } else if (!strcmp(a, "--metric")) {
            NEED_VALUE();
            c->metric = v;
        } else if (!strcmp(a, "--update")) {
            c->update = 1;
        } else if (!strcmp(a, "--sym-tol")) {
            NEED_VALUE();
            char *end = NULL;
            c->po.sym_tol = strtod(v, &end);
            if (end == v || *end || !(c->po.sym_tol > 0.0) || !(c->po.sym_tol < 1.0))
                return bad(c, "--sym-tol: expected a number in (0, 1), got '%s'%s", v, "");
        } else if (!strcmp(a, "--max-memory")) {
            NEED_VALUE();
            ncp_error me = {0};
            if (ncp_mem_parse(v, "--max-memory", &c->po.max_memory, &me)) return bad(c, "%s%s", me.msg, "");
        } else if (!strcmp(a, "--fresh")) {
            c->po.fresh = 1;
        } else if (!strcmp(a, "--resume")) {
            /* the default (bench/resume.h); accepted to say so */
        } else if (!strcmp(a, "--store-fclib")) {
            c->po.store_fclib = 1;
        } else if (!strcmp(a, "--reconstruct-primal")) {
            c->po.allow |= NCP_RECON_PRIMAL_FROM_D;
        } else if (!strcmp(a, "--symmetrize")) {
            c->po.allow |= NCP_RECON_SYMMETRIZE;
        } else if (!strcmp(a, "--primal")) {
            NEED_VALUE();
            if (!strcmp(v, "dense")) c->po.allow |= NCP_RECON_PRIMAL_DENSE;
            else if (!strcmp(v, "sparse")) c->po.allow &= ~(unsigned)NCP_RECON_PRIMAL_DENSE;
            else return bad(c, "--primal: expected dense or sparse, got '%s'%s", v, "");
        } else if (!strcmp(a, "--warm-start")) {
            NEED_VALUE();
            int ws = ncp_warm_start_from_name(v);
            if (ws < 0) return bad(c, "--warm-start: expected zero, velocity or guess, got '%s'%s", v, "");
            c->po.warm_start = ws;
        } else if (a[0] == '-' && a[1] != '\0') {
            return bad(c, "unknown option '%s'%s", a, "");
        } else {
            if (c->npos >= (int)(sizeof c->pos / sizeof c->pos[0])) return bad(c, "too many arguments%s%s", "", "");
            c->pos[c->npos++] = a;
        }
#undef NEED_VALUE
    }
    c->po.params = c->params;
    c->po.nparams = c->nparams;
    return 0;
}

static int exit_for(int rc)
{
    if (rc == NCP_ERR_INPUT) return EXIT_BAD_INPUT;
    return EXIT_FAILURE_IO;
}

static int report(cli *c, const ncp_error *err)
{
    if (ncp_mpi_rank() > 0)
        fprintf(stderr, "ncpbench %s (MPI rank %d): %s\n", c->cmd, ncp_mpi_rank(),
                err->msg[0] ? err->msg : "failed");
    else
        fprintf(stderr, "ncpbench %s: %s\n", c->cmd, err->msg[0] ? err->msg : "failed");
    return exit_for(err->code ? err->code : NCP_ERR_INTERNAL);
}

/* The scene argument of capture and task: a file, else a shipped scene by name
 * (util/fsutil.h), loaded with the --max-memory budget. NULL on error (reported). */
static ncp_scene *load_scene_arg(cli *c, int *rc)
{
    ncp_error err = {0};
    ncp_scene *scene = NULL;
    char scene_path[4200];
    if (ncp_find_scene(c->pos[0], NULL, scene_path, sizeof scene_path, &err) ||
        ncp_scene_load(scene_path, c->po.catalog ? c->po.catalog : ncp_registry_catalog(), &scene,
                       &err)) {
        *rc = report(c, &err);
        return NULL;
    }
    ncp_scene_set_max_memory(scene, c->po.max_memory); /* --max-memory */
    return scene;
}

/* A finished run's code: 4 when a row crashed or was killed by the watchdog (a solver that
 * misbehaves must not pass for a clean run), else 0. */
static int finished_code(const ncp_bench_summary *sum)
{
    int bad = 0;
    for (int i = 0; i < sum->nsolvers; i++) bad += sum->solvers[i].crashed + sum->solvers[i].killed;
    if (bad) fprintf(stderr, "ncpbench: %d solve%s crashed or %s killed at the hard deadline "
                     "(rows crashed / timeout (killed); exit %d)\n", bad, bad == 1 ? "" : "s",
                     bad == 1 ? "was" : "were", NCP_EXIT_SOLVER);
    return bad ? NCP_EXIT_SOLVER : 0;
}

static int cmd_run(cli *c, int help)
{
    if (help) {
        printf("Usage: ncpbench run SCENE [options]\n\n"
               "Simulates SCENE (a JSON file, or a shipped scene by name: `ncpbench run boltnut`,\n"
               "`tasks/dish-stack`; see `ncpbench list scenes`), captures every step's contact problem into\n"
               "OUT/problems.h5, solves each with every selected solver under the budget, and\n"
               "writes OUT/metrics.csv, OUT/traces.h5, OUT/solutions.h5, OUT/summary.json, the\n"
               "figures OUT/residual_vs_time.{png,svg}, OUT/time_vs_iteration.{png,svg} (one\n"
               "panel per solver family) and OUT/index.md linking them with a summary table.\n"
               "OUT defaults to results/<scene name>. A rerun into OUT resumes it, as `solve`\n"
               "does (the scene's text, seed and capture options are part of the\n"
               "configuration; see `ncpbench solve --help`).\n"
               "  --resume       the default: keep the finished pairs of the same configuration\n"
               "  --fresh        discard the results in OUT and start over\n\n"
               "  --driver NAME  solver that drives the trajectory (default: the scene's)\n"
               "  --steps N      number of captured steps (default: the scene's)\n"
               "  --step-budget-ms X  the driver's solver-time budget per step, ms (setup\n"
               "                 included; default: the scene's driver_budget): the driver stops\n"
               "                 there and the step goes on with its current impulses\n"
               "  --store-fclib  also store the FCLib groups fclib_local / fclib_global in\n"
               "                 problems.h5 (compressed; default: primal data only, see\n"
               "                 `ncpbench export --fclib` for plain FCLib files)\n\n%s",
               COMMON_HELP);
        return 0;
    }
    if (c->npos != 1) return bad(c, "expected exactly one SCENE file, got %s argument(s)%s", c->npos ? "several" : "no", "");
    ncp_bench_summary sum;
    ncp_error err = {0};
    char scene_path[4200]; /* a file, else a shipped scene by name (util/fsutil.h) */
    if (ncp_find_scene(c->pos[0], NULL, scene_path, sizeof scene_path, &err)) return report(c, &err);
    int rc = ncp_pipeline_run_scene(scene_path, &c->po, &sum, NULL, 0, &err);
    if (rc) return report(c, &err);
    return sum.interrupted ? EXIT_INTERRUPTED : finished_code(&sum);
}

typedef struct count_sink {
    void *store;
    int n;
} count_sink;

static int capture_fn(void *ctx, const ncp_problem *p, ncp_error *err)
{
    count_sink *s = ctx;
    s->n++;
    return ncp_store_append((ncp_store *)s->store, p, err);
}

static int cmd_capture(cli *c, int help)
{
    if (help) {
        printf("Usage: ncpbench capture SCENE -o FILE [--seed N] [--quick] [--steps N] "
               "[--driver NAME] [--step-budget-ms X] [--store-fclib]\n\n"
               "Simulates SCENE and stores every captured contact problem in FILE (HDF5: the\n"
               "primal data A, b, J, e with blocks and contacts, compressed; D = J A^-1 J^T is\n"
               "rebuilt on loading; see README.md). --store-fclib also stores the FCLib groups\n"
               "fclib_local / fclib_global (`ncpbench export --fclib` writes plain FCLib files).\n"
               "--plugin FILE.so (repeatable; also $NCPBENCH_PLUGINS) lets a plugin solver drive.\n");
        return 0;
    }
    if (c->npos != 1) return bad(c, "expected exactly one SCENE file%s%s", "", "");
    if (!c->output) return bad(c, "missing -o FILE (where to write the problems)%s%s", "", "");
    ncp_error err = {0};
    int lrc = 0;
    ncp_scene *scene = load_scene_arg(c, &lrc);
    if (!scene) return lrc;
    ncp_scene_set_driver_time(scene, c->po.step_budget_ms); /* --step-budget-ms */
    if (c->po.driver && !ncp_solver_find(c->po.driver)) {
        ncp_scene_free(scene);
        return bad(c, "--driver: unknown solver '%s'%s", c->po.driver, "");
    }
    ncp_store *st = NULL;
    if (ncp_store_create(c->output, ncp_scene_name(scene), ncp_scene_text(scene), c->po.seed, &st, &err)) {
        ncp_scene_free(scene);
        return report(c, &err);
    }
    ncp_store_set_fclib_groups(st, c->po.store_fclib);
    count_sink sink = {st, 0};
    ncp_capture_opts co = {c->po.seed, c->po.quick, c->po.steps, c->po.driver, c->po.interrupt};
    int rc = ncp_capture_scene(scene, &co, capture_fn, &sink, &err);
    ncp_scene_free(scene);
    if (rc) {
        ncp_store_abort(st);
        return report(c, &err);
    }
    if (ncp_store_close(st, &err)) return report(c, &err);
    printf("captured %d problems into %s\n", sink.n, c->output);
    return c->po.interrupt && *c->po.interrupt ? EXIT_INTERRUPTED : 0;
}

static int cmd_solve(cli *c, int help)
{
    if (help) {
        printf("Usage: ncpbench solve FILE|DIR... [options]\n\n"
               "Solves every problem of the given files — ncpbench problems.h5 files or plain\n"
               "FCLib files (fclib_local or fclib_global) — and of every such *.h5 / *.hdf5 file\n"
               "in the given directories (recursively), with every selected solver, and writes\n"
               "the same outputs as `run` into --out (default results/solve), plus Dolan-More\n"
               "performance profiles over the problems: perf_profiles.{dat,png,svg}, profile.md\n"
               "and \"performance_profile\" in summary.json (share solved, median time, rho(1), rho(10)).\n\n"
               "Resuming: OUT/journal.ncpj records the configuration (solvers, budget, stopping\n"
               "metric, parameters, the options below, traces; config.json is a readable copy)\n"
               "and every finished (problem, solver) pair; the outputs are rebuilt from it.\n"
               "Rerun with the same options (even after a crash or kill) and the pairs already\n"
               "finished are kept, not solved again; another configuration is refused (exit 2).\n"
               "  --resume       the default: keep the finished pairs of the same configuration\n"
               "  --fresh        discard the results in OUT and start over\n\n%s",
               COMMON_HELP);
        return 0;
    }
    if (c->npos < 1) return bad(c, "expected at least one problem FILE or DIR%s%s", "", "");
    ncp_error err = {0};
    ncp_bench_summary sum;
    if (ncp_pipeline_solve_files(c->pos, c->npos, &c->po, &sum, &err)) return report(c, &err);
    if (ncp_mpi_rank() > 0) return sum.interrupted ? EXIT_INTERRUPTED : 0; /* rank 0 writes */
    const char *out = c->po.out_dir ? c->po.out_dir : "results/solve";
    if (sum.interrupted) return EXIT_INTERRUPTED;
    if (sum.nproblems == 0) { /* failed files were named on stderr */
        fprintf(stderr, "ncpbench solve: the given files hold no problem%s\n",
                sum.files_failed ? " that could be loaded" : "");
        return EXIT_BAD_INPUT;
    }
    if (ncp_fig_collection_profiles(out, c->po.figures, 0, &err)) return report(c, &err);
    /* the index page again, now that the profiles' figures exist too */
    if (c->po.figures && c->po.traces && ncp_plot_index(out, &err)) return report(c, &err);
    /* a crashed or hung solve (4, 5) says more than files that failed to load (6) */
    int code = finished_code(&sum);
    return code ? code : sum.files_failed ? EXIT_FILES_FAILED : 0;
}

static int cmd_plot(cli *c, int help)
{
    if (help) {
        printf("Usage: ncpbench plot DIR [--metric NAME]\n\n"
               "Redraws DIR/residual_vs_time.{png,svg} and DIR/time_vs_iteration.{png,svg} from\n"
               "DIR/traces.h5 (or the traces.csv of older runs) with gnuplot (median and\n"
               "interquartile band over problems, one curve per solver, one panel per solver\n"
               "family), and DIR/index.md. --metric chooses the residual (default al_residual).\n");
        return 0;
    }
    if (c->npos != 1) return bad(c, "expected exactly one output DIR%s%s", "", "");
    if (c->metric && ncp_metrics_index(c->metric) < 0) return bad(c, "--metric: unknown metric '%s'%s", c->metric, "");
    ncp_error err = {0};
    int rc = ncp_plot_dir(c->pos[0], NULL, c->metric, &err);
    if (rc == NCP_PLOT_SKIPPED) {
        fprintf(stderr, "ncpbench plot: %s\n", err.msg);
        return 0;
    }
    if (rc) return report(c, &err);
    printf("figures written to %s\n", c->pos[0]);
    return 0;
}

static void list_solvers(const ncp_solver_catalog *cat)
{
    printf("Solvers (%d; a run without --solvers or a scene list runs all but the peers):\n",
           cat->n);
    for (int i = 0; i < cat->n; i++) {
        const ncp_solver_desc *d = cat->solvers[i];
        const char *plugin = ncp_catalog_plugin_file(cat, i), *fam = ncp_registry_family(d->name);
        printf("  %-14s %s\n", d->name, d->summary ? d->summary : "");
        printf("  %-14s family: %s%s\n", "",
               plugin ? NCP_REGISTRY_PLUGIN_FAMILY : fam ? fam : "(none)",
               !plugin && ncp_registry_is_peer(d->name)
                   ? " (not in a default run: --solvers peers or all)" : "");
        if (plugin) {
            const char *pn = ncp_catalog_plugin_name(cat, i);
            printf("  %-14s plugin: %s (%s)\n", "", pn ? pn : "unnamed", plugin);
        }
        printf("  %-14s source: %s\n", "", d->source ? d->source : "");
        printf("  %-14s needs: %s%s%s%s%s; solves the %s%s; file %s\n", "",
               d->needs & NCP_NEEDS_DUAL ? "dense-D " : "",
               d->needs & NCP_NEEDS_DUAL_OP ? "dual-operator " : "",
               d->needs & NCP_NEEDS_PRIMAL ? "primal " : "",
               d->needs & NCP_NEEDS_STRUCTURE ? "structure " : "",
               d->needs & NCP_NEEDS_SYMMETRIC ? "symmetric-D " : "",
               !plugin && ncp_registry_model(d->name) ? ncp_registry_model(d->name)
               : d->ccp                               ? "CCP relaxation"
                                                      : "NCP",
               d->takes_v0 ? "; starts from the previous velocity v0" : "",
               d->file ? d->file : plugin ? plugin : "?");
        for (const ncp_param_doc *p = d->params; p && p->name; p++)
            printf("  %-14s   param %s = %g: %s\n", "", p->name, p->def, p->doc ? p->doc : "");
    }
}

static void list_metrics(void)
{
    printf("Metrics (%d; columns of metrics.csv and of the traces):\n", ncp_metrics_count());
    for (int i = 0; i < ncp_metrics_count(); i++)
        printf("  %-24s %s\n", ncp_metrics_name(i), ncp_metrics_doc(i));
    printf("  plus per row: iterations, converged, status, setup_ms, solve_ms, ms_per_iter,\n"
           "  wall_ms, and\n"
           "  at the end note, problem_title, problem_description\n");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds the *.json names of dir (prefixed "sub/" when sub is not NULL) to names[*n..cap). */
static void collect_json(const char *dir, const char *sub, char **names, int *n, int cap)
{
    char path[4200];
    if (sub) snprintf(path, sizeof path, "%s/%s", dir, sub);
    else snprintf(path, sizeof path, "%s", dir);
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) && *n < cap) {
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".json")) {
            char name[600];
            if (sub) snprintf(name, sizeof name, "%s/%s", sub, e->d_name);
            else snprintf(name, sizeof name, "%s", e->d_name);
            names[*n] = strdup(name);
            if (names[*n]) (*n)++;
        }
    }
    closedir(d);
}

/* The shipped scenes: the .json files of scenes/ and of one level of folders (tasks/,
 * pouring-sweep/; robots/ holds robot models, not scenes). */
static void list_scenes(void)
{
    const char *dir = ncp_scenes_dir();
    DIR *d = opendir(dir);
    printf("Scenes (%s):\n", dir);
    if (!d) {
        printf("  (cannot open the directory)\n");
        return;
    }
    char *names[512];
    int n = 0;
    collect_json(dir, NULL, names, &n, 512);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "robots")) continue;
        char path[4200];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            collect_json(dir, e->d_name, names, &n, 512);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    for (int i = 0; i < n; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        ncp_scene *s = NULL;
        ncp_error err = {0};
        if (ncp_scene_load(path, ncp_registry_catalog(), &s, &err) == 0) {
            const ncp_bench_cfg *b = ncp_scene_bench(s);
            printf("  %-34s capture %s, %d steps (%d with --quick), driver %s", names[i],
                   b->capture, b->steps, b->quick_steps, b->driver);
            if (ncp_scene_task(s))
                printf("; task, %g ms per step", ncp_scene_task(s)->step_budget_ms);
            putchar('\n');
            ncp_scene_free(s);
        } else {
            printf("  %-34s INVALID: %s\n", names[i], err.msg);
        }
        free(names[i]);
    }
}

static int cmd_list(cli *c, int help)
{
    if (help) {
        printf("Usage: ncpbench list [solvers|metrics|scenes]\n\n"
               "Lists the registered solvers (source paper, needs, parameters), the metrics and\n"
               "the shipped scenes; everything when WHAT is omitted.\n"
               "  --plugin FILE.so  list the plugin's solvers too, with its file and name\n"
               "                    (repeatable; also $NCPBENCH_PLUGINS, colon-separated)\n");
        return 0;
    }
    const char *what = c->npos ? c->pos[0] : "all";
    if (c->npos > 1) return bad(c, "expected at most one of solvers, metrics, scenes%s%s", "", "");
    int all = !strcmp(what, "all");
    if (!all && strcmp(what, "solvers") && strcmp(what, "metrics") && strcmp(what, "scenes"))
        return bad(c, "unknown list '%s' (expected solvers, metrics or scenes)%s", what, "");
    if (all || !strcmp(what, "solvers"))
        list_solvers(c->po.catalog ? c->po.catalog : ncp_registry_catalog());
    if (all || !strcmp(what, "metrics")) list_metrics();
    if (all || !strcmp(what, "scenes")) list_scenes();
    return 0;
}

static int cmd_export(cli *c, int help)
{
    if (help) {
        printf("Usage: ncpbench export --fclib DIR FILE...\n\n"
               "Writes every problem of FILE... as a plain FCLib file DIR/<file>-<problem>.hdf5\n"
               "(fclib_local, plus fclib_global when expressible). Problems with unilateral or\n"
               "soft rows cannot be expressed in FCLib: they are listed and skipped.\n");
        return 0;
    }
    if (!c->fclib) return bad(c, "missing --fclib DIR%s%s", "", "");
    if (c->npos < 1) return bad(c, "expected at least one problem FILE%s%s", "", "");
    ncp_error err = {0};
    ncp_problem *all = NULL;
    int n = 0;
    for (int f = 0; f < c->npos; f++) { /* validate every input first */
        ncp_problem *ps = NULL;
        int k = 0;
        if (ncp_load_problems_isolated(c->pos[f], c->po.max_memory, &ps, &k, &err)) return report(c, &err);
        ncp_problems_free(ps, k);
    }
    if (ncp_mkdir_p(c->fclib, &err)) return report(c, &err);
    int written = 0, skipped = 0;
    for (int f = 0; f < c->npos; f++) {
        if (ncp_load_problems_budget(c->pos[f], c->po.max_memory, &all, &n, &err)) return report(c, &err);
        char stem[256];
        ncp_path_stem(c->pos[f], stem, sizeof stem);
        for (int i = 0; i < n; i++) {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s-%s.hdf5", c->fclib, stem, all[i].name);
            ncp_error e2 = {0};
            int rc = ncp_fclib_export(&all[i], path, &e2);
            if (rc == NCP_ERR_INPUT) {
                printf("not expressible in FCLib: %s problem %s: %s\n", c->pos[f], all[i].name, e2.msg);
                skipped++;
            } else if (rc) {
                ncp_problems_free(all, n);
                return report(c, &e2);
            } else {
                written++;
            }
        }
        ncp_problems_free(all, n);
    }
    printf("wrote %d FCLib file%s into %s; %d problem%s not expressible\n", written,
           written == 1 ? "" : "s", c->fclib, skipped, skipped == 1 ? "" : "s");
    return 0;
}

static int cmd_check(cli *c, int help)
{
    if (help) {
        printf("Usage: ncpbench check BASELINE [--update] [--out DIR] [-j N]\n\n"
               "Reruns the quick scenes named in BASELINE (JSON, e.g.\n"
               "results/baselines/quick.json) and compares, per scene x solver, the number of\n"
               "problems and of converged solves, the median iterations, the median final\n"
               "natural_map_rel_acary and al_residual against the stored values and bands.\n"
               "Prints a table; exits 1 if anything regressed. --update rewrites the baseline's\n"
               "values from this run (bands kept). Outputs go to --out (default results/check).\n");
        return 0;
    }
    if (c->npos != 1) return bad(c, "expected exactly one BASELINE file%s%s", "", "");
    ncp_check_opts co = {c->pos[0], c->po.out_dir ? c->po.out_dir : "results/check", c->update,
                         c->po.jobs, c->po.interrupt};
    int regressions = 0;
    ncp_error err = {0};
    if (ncp_check_run(&co, &regressions, &err)) return report(c, &err);
    if (c->po.interrupt && *c->po.interrupt) return EXIT_INTERRUPTED;
    return regressions ? EXIT_CHECK_FAILED : 0;
}

static int cmd_task(cli *c, int help)
{
    if (help) {
        printf("Usage: ncpbench task SCENE [--solvers a,b] [--step-budget-ms X] [--steps N] [--quick]\n"
               "                    [--param S.NAME=X]... [--out DIR] [-j N] [--no-figures]\n\n"
               "Runs the task of SCENE (its \"task\" section, scenes/README.md) once per solver: each\n"
               "solver drives its own simulation from the initial state, warm-started from the\n"
               "previous step (impulses and velocity), under a per-step budget of solver time\n"
               "(setup + iterations; the solver stops there and the step goes on with its current\n"
               "impulses) and the task's tol / max_iter. A solver succeeds when its simulation\n"
               "completes and every criterion holds. Writes OUT/steps.csv (one row per solver x\n"
               "step), OUT/task.json (per solver: success, every criterion's measured value and\n"
               "verdict, solve-time percentiles, steps over budget, max penetration, wall time),\n"
               "OUT/task.md and the figures OUT/task_timeseries.{png,svg} (residual and penetration\n"
               "over time) and OUT/task_solve_hist.{png,svg} (solve time per step, budget marked).\n"
               "OUT defaults to results/<scene name>/task. The budget is the solving thread's CPU\n"
               "time: the trajectories depend on the machine's speed (the load is recorded in\n"
               "task.json, each step's wall time in steps.csv).\n\n"
               "  --solvers a,b       solvers (default: the task's list, else the scene's driver)\n"
               "  --step-budget-ms X  per-step budget in ms (default: task.step_budget_ms)\n"
               "  --steps N           simulate only the first N steps\n"
               "  --quick             simulate the scene's quick_steps steps (CI)\n"
               "  --param S.NAME=X    solver parameter on top of the scene's benchmark.params\n"
               "                      (repeatable)\n"
               "  --out DIR           output directory\n"
               "  -j N                run N solvers in parallel threads (the budget is wall-clock\n"
               "                      time: only -j 1 gives each solver the machine's speed)\n"
               "  --no-figures        do not run gnuplot\n"
               "  --plugin FILE.so    load a solver plugin (repeatable; also $NCPBENCH_PLUGINS):\n"
               "                      its solvers can be --solvers or the scene's driver\n");
        return 0;
    }
    if (c->npos != 1) return bad(c, "expected exactly one SCENE file, got %s argument(s)%s", c->npos ? "several" : "no", "");
    /* the stopping rule is the scene's (task.tol, task.max_iter): options that would silently
     * not apply are refused; --param goes on top of the scene's benchmark.params */
    if (c->po.tol_set || c->po.max_iter_set || c->po.time_set || c->po.driver ||
        c->po.stop_metric)
        return bad(c, "--tol, --max-iter, --budget-ms, --driver and --stop-metric do not "
                   "apply to task (the scene's task.tol and task.max_iter do; the budget is "
                   "--step-budget-ms)%s%s", "", "");
    ncp_error err = {0};
    int lrc = 0;
    ncp_scene *scene = load_scene_arg(c, &lrc);
    if (!scene) return lrc;
    const ncp_task_cfg *t = ncp_scene_task(scene);
    if (!t) {
        ncp_scene_free(scene);
        return bad(c, "%s has no \"task\" section (see scenes/README.md, \"Task\")%s", c->pos[0], "");
    }
    const ncp_solver_desc *sd[NCP_MAX_BENCH_SOLVERS];
    const char *names[NCP_MAX_BENCH_SOLVERS];
    int n = 0, rc = 0;
    if (c->po.solvers_csv) {
        if (ncp_resolve_solvers(c->po.catalog, c->po.solvers_csv, sd, NCP_MAX_BENCH_SOLVERS, &n,
                                &err)) {
            ncp_scene_free(scene);
            return report(c, &err);
        }
        for (int i = 0; i < n; i++) names[i] = sd[i]->name;
    } else if (t->nsolvers) {
        for (n = 0; n < t->nsolvers; n++) names[n] = t->solvers[n];
    } else {
        names[n++] = ncp_scene_bench(scene)->driver;
    }
    char out[4096];
    if (c->po.out_dir) snprintf(out, sizeof out, "%s", c->po.out_dir);
    else snprintf(out, sizeof out, "results/%s/task", ncp_scene_name(scene));
    ncp_task_opts o;
    ncp_task_opts_default(&o);
    o.step_budget_ms = c->po.step_budget_ms;
    o.steps = c->po.steps;
    o.quick = c->po.quick;
    o.interrupt = c->po.interrupt;
    o.verbose = 1;
    o.params = c->params; /* --param, on top of the scene's benchmark.params */
    o.nparams = c->nparams;
    if (ncp_pipeline_params_validate(c->po.catalog, c->params, c->nparams, &err)) {
        ncp_scene_free(scene);
        return report(c, &err);
    }
    double load[3];
    int have_load = ncp_load_average(load);
    ncp_task_result *r = calloc((size_t)n, sizeof *r);
    if (!r) {
        ncp_scene_free(scene);
        fprintf(stderr, "ncpbench task: out of memory\n");
        return EXIT_FAILURE_IO;
    }
    printf("task %s: %d solver%s, budget %g ms per step%s\n", ncp_scene_name(scene), n, n == 1 ? "" : "s",
           o.step_budget_ms > 0 ? o.step_budget_ms : t->step_budget_ms, c->po.quick ? " (quick)" : "");
    fflush(stdout);
    rc = ncp_task_run_many(scene, names, n, &o, c->po.jobs, r, &err);
    /* an interrupt keeps the solvers that finished, like `run` */
    int interrupted = c->po.interrupt && *c->po.interrupt;
    int kept = rc ? 0 : ncp_task_keep_finished(r, n);
    if (!rc && kept > 0) {
        rc = ncp_task_write(out, scene, r, kept, have_load ? load : NULL, c->po.figures, &err);
        if (!rc) printf("results in %s (task.md, task.json, steps.csv)\n", out);
    }
    for (int i = 0; i < n; i++) ncp_task_result_free(&r[i]);
    free(r);
    ncp_scene_free(scene);
    if (rc) return report(c, &err);
    return interrupted ? EXIT_INTERRUPTED : 0;
}

/* --plugin files, then $NCPBENCH_PLUGINS's, for the commands that run or list solvers; the
 * CLI owns them for the command's lifetime (no global registry of plugins). Every MPI rank
 * parses the same arguments and environment, so every rank loads the same plugins. */
static int load_plugins(cli *c)
{
    int takes = !strcmp(c->cmd, "run") || !strcmp(c->cmd, "solve") || !strcmp(c->cmd, "list") ||
                !strcmp(c->cmd, "capture") || !strcmp(c->cmd, "task");
    if (!takes) {
        if (c->nplugin_paths)
            return bad(c, "--plugin applies to run, solve, capture, task and list (not %s)%s",
                       c->cmd, "");
        if (c->po.isolate) return bad(c, "--isolate and --no-isolate apply to run and solve (not %s)%s", c->cmd, "");
        return 0;
    }
    if (c->po.isolate && !strcmp(c->cmd, "list"))
        return bad(c, "--isolate and --no-isolate apply to run and solve (not %s)%s", c->cmd, "");
    const char *env = getenv(NCP_PLUGINS_ENV);
    int cap = (int)(sizeof c->plugin_paths / sizeof c->plugin_paths[0]) - c->nplugin_paths;
    int k = ncp_plugins_split(env, c->plugin_env, sizeof c->plugin_env,
                              c->plugin_paths + c->nplugin_paths, cap);
    if (k < 0)
        return bad(c, "$%s is too long or names too many files (with --plugin, at most 64)%s",
                   NCP_PLUGINS_ENV, "");
    c->nplugin_paths += k;
    if (c->nplugin_paths == 0) return 0;
    ncp_error err = {0};
    if (ncp_plugins_load(c->plugin_paths, c->nplugin_paths, ncp_registry_catalog(), &c->plugins,
                         &err))
        return report(c, &err);
    c->po.catalog = ncp_plugins_catalog(c->plugins);
    return 0;
}

int ncp_cli_main(int argc, char **argv, const volatile int *interrupt)
{
    if (argc < 2) {
        usage_main(stderr);
        return EXIT_BAD_INPUT;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage_main(stdout);
        return 0;
    }
    /* a bad $NCPBENCH_DATA is refused before any command reads from it */
    ncp_error data_err = {0};
    if (ncp_data_dir_check(&data_err)) {
        fprintf(stderr, "ncpbench: %s\n", data_err.msg);
        return EXIT_BAD_INPUT;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("ncpbench %s (BLAS/LAPACK: %s)\n", NCP_VERSION, NCP_BLAS_BACKEND);
        printf("data directory: %s\n  (%s)\n", ncp_data_dir(), ncp_data_dir_origin());
        return 0;
    }
    static const struct {
        const char *name;
        int (*fn)(cli *, int);
    } cmds[] = {{"run", cmd_run},       {"capture", cmd_capture}, {"solve", cmd_solve},
                {"plot", cmd_plot},     {"list", cmd_list},       {"export", cmd_export},
                {"check", cmd_check},   {"task", cmd_task}};
    /* `grade` (app/cmd_grade.c) and `figures` (src/figures.c) have their own options and no
     * ranks to spread: under mpirun they are refused */
    int own = !strcmp(cmd, "grade") ? 1 : !strcmp(cmd, "figures") ? 2 : 0;
    if (own && ncp_mpi_size() > 1) {
        if (ncp_mpi_rank() == 0)
            fprintf(stderr, "ncpbench %s: start it without mpirun (only run and solve spread "
                    "over MPI ranks)\n", cmd);
        ncp_mpi_end(1);
        return EXIT_BAD_INPUT;
    }
    if (own == 1) return ncp_cli_grade(argc - 2, argv + 2);
    if (own == 2) return ncp_figures_cli(argc - 2, argv + 2, interrupt);
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        if (strcmp(cmd, cmds[i].name)) continue;
        cli *c = calloc(1, sizeof *c);
        if (!c) {
            fprintf(stderr, "ncpbench: out of memory\n");
            return EXIT_FAILURE_IO;
        }
        c->cmd = cmds[i].name;
        ncp_pipeline_opts_default(&c->po);
        c->po.resume = 1; /* run and solve resume their folder (bench/resume.h) */
        c->po.interrupt = interrupt;
        int help = 0;
        int rc = parse_args(c, argc - 2, argv + 2, &help);
        /* Under mpirun (bench/mpi_pool.h) run and solve spread their tasks over the ranks;
         * rank 0 prints and writes everything, the other ranks only solve. */
        int mpi = ncp_mpi_size() > 1, worker = ncp_mpi_rank() > 0;
        if (!rc && mpi && strcmp(c->cmd, "run") && strcmp(c->cmd, "solve"))
            rc = bad(c, "only run and solve spread over MPI ranks: start `ncpbench %s` without "
                     "mpirun%s", c->cmd, "");
        if (worker) {
            c->po.quiet = 1;
            c->po.progress = 0;
            c->po.figures = 0;
        }
        /* --max-memory bounds the process and its children from here on (plugins' own
         * allocations included; util/membudget.h) */
        if (!rc && !help) ncp_mem_cap_process(c->po.max_memory);
        if (!rc && !help) rc = load_plugins(c);
        if (!rc && !(help && worker)) rc = cmds[i].fn(c, help);
        if (mpi) ncp_mpi_end(rc != 0);
        ncp_plugins_free(c->plugins); /* after every solve: descriptors live in the plugins */
        free(c);
        return rc;
    }
    fprintf(stderr, "ncpbench: unknown command '%s'\n\n", cmd);
    usage_main(stderr);
    return EXIT_BAD_INPUT;
}
