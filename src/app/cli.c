/* The ncpbench command line (cli.h). Each subcommand validates every input before it creates
 * any output, so bad input leaves nothing behind. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/check.h"
#include "bench/mpi_pool.h"
#include "app/cli.h"
#include "app/cmd_describe.h"
#include "app/cmd_grade.h"
#include "app/options.h"
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
#include "metrics/metrics.h"
#include "solve/harness.h"

#define EXIT_CHECK_FAILED NCP_EXIT_CHECK_FAILED
#define EXIT_BAD_INPUT NCP_EXIT_BAD_INPUT
#define EXIT_FAILURE_IO NCP_EXIT_FAILURE
#define EXIT_INTERRUPTED NCP_EXIT_INTERRUPTED
#define EXIT_FILES_FAILED NCP_EXIT_FILES_FAILED

static void usage_main(FILE *f)
{
    fprintf(f,
            "ncpbench %s — benchmark contact solvers on captured robot-simulation problems\n\n"
            "Usage: ncpbench COMMAND [options]\n\nCommands:\n",
            NCP_VERSION);
    ncp_cmd_overview(f);
    fprintf(f, "\n`ncpbench COMMAND --help` describes each command, `ncpbench help OPTION` an\n"
               "option. Exit codes: 0 success, 1 check found regressions, 2 bad input or usage,\n"
               "3 I/O or internal failure, 4 a solve crashed or was killed, 5 a solver ignored\n"
               "the stop request, 6 some problem files failed to load (solve), 130 interrupted\n"
               "(finished results are kept).\n");
}

typedef struct cli {
    const char *cmd;
    ncp_pipeline_opts po;
    ncp_solver_params_entry params[NCP_MAX_BENCH_SOLVERS];
    int nparams;
    const char *output;   /* capture -o */
    const char *fclib;    /* export --fclib */
    const char *metric;   /* plot --metric */
    const char *compare;  /* plot --compare */
    int update;           /* check --update */
    int strict;           /* check, grade --strict */
    const char *junit;    /* check --junit */
    const char *name;     /* grade --name */
    const char *papers[16]; /* figures --paper, --profiles */
    int npapers, all_figures;
    const char *scenes, *parts; /* figures --scenes, --parts */
    const char *split_by, *from; /* figures --split-by, --from */
    const char *csv, *json;     /* describe --csv, --json */
    ncp_labels_opts labels;     /* describe --eig-max, --lanczos */
    const char *pos[NCP_ARGS_MAX];
    int npos;
    const char *plugin_paths[64]; /* --plugin, then $NCPBENCH_PLUGINS */
    int nplugin_paths;
    char plugin_env[8192];        /* the variable's copy the paths point into */
    ncp_plugins *plugins;         /* loaded for the commands that take --plugin; its catalog
                                     is po.catalog */
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

/* Checks one option's value and stores it (the option table, options.h, has already refused
 * the options this command does not take). a: the option as written, v: its value. */
static int apply_option(cli *c, int opt, const char *a, const char *v)
{
    double d;
    long l;
    ncp_error err = {0};
    switch (opt) {
    case NCP_OPT_PLUGIN:
        if (c->nplugin_paths >= (int)(sizeof c->plugin_paths / sizeof c->plugin_paths[0]))
            return bad(c, "too many --plugin files (at most 64)%s%s", "", "");
        c->plugin_paths[c->nplugin_paths++] = v;
        return 0;
    case NCP_OPT_ISOLATE: c->po.isolate = NCP_ISOLATE_ALL; return 0;
    case NCP_OPT_NO_ISOLATE: c->po.isolate = NCP_ISOLATE_NONE; return 0;
    case NCP_OPT_DEADLINE_MS:
        if (parse_double(v, &d) || d <= 0) return bad(c, "--deadline-ms: expected a number > 0, got '%s'%s", v, "");
        c->po.deadline_ms = d;
        return 0;
    case NCP_OPT_SOLVERS: c->po.solvers_csv = v; return 0;
    case NCP_OPT_TOL:
        if (!strcmp(v, "high")) d = NCP_TOL_HIGH;
        else if (!strcmp(v, "low")) d = NCP_TOL_LOW;
        else if (parse_double(v, &d) || d < 0)
            return bad(c, "--tol: expected a number >= 0, 'high' (" NCP_XSTR(NCP_TOL_HIGH)
                       ") or 'low' (" NCP_XSTR(NCP_TOL_LOW) "), got '%s'%s", v, "");
        c->po.budget.tol = d;
        c->po.tol_set = 1;
        return 0;
    case NCP_OPT_MAX_ITER:
        if (parse_int(v, 1, 100000000, &l)) return bad(c, "--max-iter: expected an integer >= 1, got '%s'%s", v, "");
        c->po.budget.max_iter = (int)l;
        c->po.max_iter_set = 1;
        return 0;
    case NCP_OPT_BUDGET_MS:
        if (parse_double(v, &d) || d <= 0) return bad(c, "--budget-ms: expected a number > 0, got '%s'%s", v, "");
        c->po.budget.time_ms = d;
        c->po.time_set = 1;
        return 0;
    case NCP_OPT_CLOCK: {
        int k = ncp_clock_parse(v);
        if (k < 0) return bad(c, "--clock: expected cpu or wall, got '%s'%s", v, "");
        c->po.clock = k;
        return 0;
    }
    case NCP_OPT_REPEAT:
        if (parse_int(v, 1, 1000, &l)) return bad(c, "--repeat: expected an integer in 1..1000, got '%s'%s", v, "");
        c->po.repeat = (int)l;
        return 0;
    case NCP_OPT_STOP_METRIC: c->po.stop_metric = v; return 0;
    case NCP_OPT_PARAM:
        if (ncp_solver_params_add(c->params, &c->nparams, NCP_MAX_BENCH_SOLVERS, v, &err))
            return bad(c, "%s%s", err.msg, "");
        return 0;
    case NCP_OPT_SEED: {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(v, &end, 10);
        if (errno || end == v || *end || v[0] == '-') return bad(c, "--seed: expected a non-negative integer, got '%s'%s", v, "");
        c->po.seed = (uint64_t)s;
        return 0;
    }
    case NCP_OPT_OUT: c->po.out_dir = v; return 0;
    case NCP_OPT_QUICK: c->po.quick = 1; return 0;
    case NCP_OPT_JOBS:
        if (parse_int(v, 1, 64, &l)) return bad(c, "%s: expected an integer in 1..64, got '%s'", a, v);
        c->po.jobs = (int)l;
        return 0;
    case NCP_OPT_NO_TRACES: c->po.traces = 0; return 0;
    case NCP_OPT_TRACES_CSV: c->po.traces_csv = 1; return 0;
    case NCP_OPT_TRACE_EVERY: c->po.trace_every = 1; return 0;
    case NCP_OPT_NO_FIGURES: c->po.figures = 0; return 0;
    case NCP_OPT_PROFILE: c->po.profile = 1; return 0;
    case NCP_OPT_NO_PROGRESS: c->po.progress = 0; return 0;
    case NCP_OPT_DRIVER: c->po.driver = v; return 0;
    case NCP_OPT_STEP_BUDGET_MS:
        if (parse_double(v, &d) || d <= 0) return bad(c, "--step-budget-ms: expected a number > 0, got '%s'%s", v, "");
        c->po.step_budget_ms = d;
        return 0;
    case NCP_OPT_STEPS:
        if (parse_int(v, 1, 100000000, &l)) return bad(c, "--steps: expected an integer >= 1, got '%s'%s", v, "");
        c->po.steps = (int)l;
        return 0;
    case NCP_OPT_OUTPUT: c->output = v; return 0;
    case NCP_OPT_FCLIB: c->fclib = v; return 0;
    case NCP_OPT_METRIC: c->metric = v; return 0;
    case NCP_OPT_COMPARE:
        if (!v[0] || strstr(v, ",,") || v[0] == ',' || v[strlen(v) - 1] == ',')
            return bad(c, "--compare: expected solver names separated by commas, got '%s'%s", v,
                       "");
        c->compare = v;
        return 0;
    case NCP_OPT_UPDATE: c->update = 1; return 0;
    case NCP_OPT_STRICT: c->strict = 1; return 0;
    case NCP_OPT_JUNIT: c->junit = v; return 0;
    case NCP_OPT_NAME: c->name = v; return 0;
    case NCP_OPT_SYM_TOL: {
        char *end = NULL;
        c->po.sym_tol = strtod(v, &end);
        if (end == v || *end || !(c->po.sym_tol > 0.0) || !(c->po.sym_tol < 1.0))
            return bad(c, "--sym-tol: expected a number in (0, 1), got '%s'%s", v, "");
        return 0;
    }
    case NCP_OPT_MAX_MEMORY:
        if (ncp_mem_parse(v, "--max-memory", &c->po.max_memory, &err)) return bad(c, "%s%s", err.msg, "");
        return 0;
    case NCP_OPT_FRESH: c->po.fresh = 1; return 0;
    case NCP_OPT_RESUME: return 0; /* the default (bench/resume.h); accepted to say so */
    case NCP_OPT_STORE_FCLIB: c->po.store_fclib = 1; return 0;
    case NCP_OPT_RECONSTRUCT_PRIMAL: c->po.allow |= NCP_RECON_PRIMAL_FROM_D; return 0;
    case NCP_OPT_SYMMETRIZE: c->po.allow |= NCP_RECON_SYMMETRIZE; return 0;
    case NCP_OPT_PRIMAL:
        if (!strcmp(v, "dense")) c->po.allow |= NCP_RECON_PRIMAL_DENSE;
        else if (!strcmp(v, "sparse")) c->po.allow &= ~(unsigned)NCP_RECON_PRIMAL_DENSE;
        else return bad(c, "--primal: expected dense or sparse, got '%s'%s", v, "");
        return 0;
    case NCP_OPT_WARM_START: {
        int ws = ncp_warm_start_from_name(v);
        if (ws < 0) return bad(c, "--warm-start: expected zero, velocity or guess, got '%s'%s", v, "");
        c->po.warm_start = ws;
        return 0;
    }
    case NCP_OPT_PAPER:
    case NCP_OPT_PROFILES:
        if (c->npapers >= (int)(sizeof c->papers / sizeof c->papers[0]))
            return bad(c, "too many figure sets (at most 16)%s%s", "", "");
        c->papers[c->npapers++] = opt == NCP_OPT_PAPER ? v : "profiles";
        return 0;
    case NCP_OPT_ALL: c->all_figures = 1; return 0;
    case NCP_OPT_SCENES: c->scenes = v; return 0;
    case NCP_OPT_PARTS: c->parts = v; return 0;
    case NCP_OPT_SPLIT_BY: {
        ncp_labels probe;
        memset(&probe, 0, sizeof probe);
        if (!ncp_labels_class(&probe, v))
            return bad(c, "--split-by: unknown label '%s' (known: %s)", v, NCP_LABELS_SPLITS);
        c->split_by = v;
        return 0;
    }
    case NCP_OPT_FROM: c->from = v; return 0;
    case NCP_OPT_CSV: c->csv = v; return 0;
    case NCP_OPT_JSON: c->json = v; return 0;
    case NCP_OPT_EIG_MAX:
    case NCP_OPT_LANCZOS:
        if (parse_int(v, 1, 1000000, &l))
            return bad(c, "%s: expected an integer >= 1, got '%s'", a, v);
        if (opt == NCP_OPT_EIG_MAX) c->labels.eig_max = (int)l;
        else c->labels.lanczos = (int)l;
        return 0;
    default: /* every option of the table has its case: a missing one is this bug */
        return bad(c, "option %s is not implemented%s", a, "");
    }
}

/* Applies the parsed options in order (a later one overrides an earlier one). */
static int apply_args(cli *c, const ncp_parsed_args *pa)
{
    for (int i = 0; i < pa->n; i++) {
        int rc = apply_option(c, pa->opt[i], pa->word[i], pa->val[i]);
        if (rc) return rc;
    }
    for (int i = 0; i < pa->npos; i++) c->pos[i] = pa->pos[i];
    c->npos = pa->npos;
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

/* The end of `run` and `solve` on rank 0: the performance profiles of the run (profile.md,
 * perf_profiles.{png,svg}), the index page again now that they exist, then where the results
 * table and the page are (the last lines printed). */
static int finish_pages(cli *c, const char *out, ncp_error *err)
{
    int rc = ncp_fig_collection_profiles(out, c->po.figures, 0, err);
    if (!rc && c->po.figures && c->po.traces) rc = ncp_plot_index(out, err);
    if (!rc) ncp_plot_print_pages(out, c->po.figures && c->po.traces);
    return rc;
}

static int cmd_run(cli *c)
{
    if (c->npos != 1) return bad(c, "expected exactly one SCENE file, got %s argument(s)%s", c->npos ? "several" : "no", "");
    ncp_bench_summary sum;
    ncp_error err = {0};
    char scene_path[4200]; /* a file, else a shipped scene by name (util/fsutil.h) */
    if (ncp_find_scene(c->pos[0], NULL, scene_path, sizeof scene_path, &err)) return report(c, &err);
    char out[4096];
    int rc = ncp_pipeline_run_scene(scene_path, &c->po, &sum, out, sizeof out, &err);
    if (rc) return report(c, &err);
    if (ncp_mpi_rank() > 0) return sum.interrupted ? EXIT_INTERRUPTED : finished_code(&sum);
    if (sum.interrupted) return EXIT_INTERRUPTED;
    if (sum.nproblems > 0 && finish_pages(c, out, &err)) return report(c, &err);
    return finished_code(&sum);
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

static int cmd_capture(cli *c)
{
    if (c->npos != 1) return bad(c, "expected exactly one SCENE file%s%s", "", "");
    if (!c->output) return bad(c, "missing -o FILE (where to write the problems)%s%s", "", "");
    ncp_error err = {0};
    int lrc = 0;
    ncp_scene *scene = load_scene_arg(c, &lrc);
    if (!scene) return lrc;
    ncp_scene_set_driver_time(scene, c->po.step_budget_ms); /* --step-budget-ms */
    if (c->po.driver && !ncp_solver_find(c->po.driver)) {
        ncp_scene_free(scene);
        const char *near = ncp_catalog_closest(ncp_registry_catalog(), c->po.driver);
        char hint[100] = "";
        if (near) snprintf(hint, sizeof hint, " (did you mean %s?)", near);
        return bad(c, "--driver: unknown solver '%s'%s", c->po.driver, hint);
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

static int cmd_solve(cli *c)
{
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
    if (finish_pages(c, out, &err)) return report(c, &err);
    /* a crashed or hung solve (4, 5) says more than files that failed to load (6) */
    int code = finished_code(&sum);
    return code ? code : sum.files_failed ? EXIT_FILES_FAILED : 0;
}

static int cmd_plot(cli *c)
{
    if (c->npos != 1) return bad(c, "expected exactly one output DIR%s%s", "", "");
    if (c->metric && ncp_metrics_index(c->metric) < 0) return bad(c, "--metric: unknown metric '%s'%s", c->metric, "");
    ncp_error err = {0};
    int rc = ncp_plot_dir_compare(c->pos[0], NULL, c->metric, c->compare, &err);
    if (rc == NCP_PLOT_SKIPPED) {
        fprintf(stderr, "ncpbench plot: %s\n", err.msg);
        return 0;
    }
    if (rc) return report(c, &err);
    printf("figures written to %s\n", c->pos[0]);
    ncp_plot_print_pages(c->pos[0], 1);
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

/* The shipped scenes (util/fsutil.h ncp_scene_names) with their capture and task. */
static void list_scenes(void)
{
    const char *dir = ncp_scenes_dir();
    printf("Scenes (%s):\n", dir);
    char *names[512];
    int n = ncp_scene_names(names, 512);
    if (n < 0) {
        printf("  (cannot open the directory)\n");
        return;
    }
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

static int cmd_list(cli *c)
{
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

static int cmd_export(cli *c)
{
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

static int cmd_check(cli *c)
{
    if (c->npos != 1) return bad(c, "expected exactly one BASELINE file%s%s", "", "");
    ncp_check_opts co = {
        .baseline = c->pos[0],
        .out_dir = c->po.out_dir ? c->po.out_dir : "results/check",
        .update = c->update,
        .jobs = c->po.jobs,
        .interrupt = c->po.interrupt,
        .solvers_csv = c->po.solvers_csv,
        .params = c->params,
        .nparams = c->nparams,
        .max_iter = c->po.max_iter_set ? c->po.budget.max_iter : 0,
        .catalog = c->po.catalog,
        .isolate = c->po.isolate,
        .junit = c->junit,
        .strict = c->strict,
    };
    ncp_check_result r;
    ncp_error err = {0};
    if (ncp_check_run(&co, &r, &err)) return report(c, &err);
    if (c->po.interrupt && *c->po.interrupt) return EXIT_INTERRUPTED;
    if (c->update) return 0;
    int mismatch = r.unbaselined + r.unavailable;
    if (c->strict && mismatch)
        fprintf(stderr, "ncpbench check: --strict: %d scene x solver pair%s not shared by the run "
                "and the baseline (exit %d)\n", mismatch, mismatch == 1 ? "" : "s",
                EXIT_CHECK_FAILED);
    return r.regressions || (c->strict && mismatch) ? EXIT_CHECK_FAILED : 0;
}

static int cmd_grade(cli *c)
{
    if (c->npos != 2) return bad(c, "expected PROBLEMS ANSWERS.h5 (got %s argument%s)",
                                 c->npos < 2 ? "fewer" : "more", "s");
    ncp_grade_opts o;
    ncp_grade_opts_default(&o);
    o.problems = c->pos[0];
    o.answers = c->pos[1];
    o.out_dir = c->po.out_dir;
    o.name = c->name;
    o.tol = c->po.budget.tol;
    if (c->po.stop_metric && (o.stop_metric = ncp_metrics_index(c->po.stop_metric)) < 0)
        return bad(c, "--stop-metric: unknown metric '%s' (`ncpbench list metrics`)%s",
                   c->po.stop_metric, "");
    o.strict = c->strict;
    o.figures = c->po.figures;
    o.max_memory = c->po.max_memory;
    return ncp_cli_grade(&o);
}

static int cmd_describe(cli *c)
{
    if (c->npos < 1) return bad(c, "expected at least one problem FILE or DIR%s%s", "", "");
    ncp_describe_opts o = {c->pos, c->npos, c->csv, c->json, c->labels, c->po.max_memory,
                           c->po.interrupt};
    return ncp_cli_describe(&o);
}

static int cmd_figures(cli *c)
{
    if (c->from) {
        /* a finished run's profiles split by a label: nothing captured */
        if (!c->split_by || c->npapers || c->all_figures || c->npos)
            return bad(c, "--from DIR takes --split-by LABEL and no figure set%s%s", "", "");
        ncp_error err = {0};
        if (ncp_fig_collection_profiles_split(c->from, c->split_by, 1, &err))
            return report(c, &err);
        return 0;
    }
    if (c->npos) return bad(c, "unexpected argument '%s' (figure sets are named with --paper "
                            "KEY, --profiles or --all)%s", c->pos[0], "");
    ncp_fig_opts o = {
        .out_dir = c->po.out_dir ? c->po.out_dir : "results/figures",
        .quick = c->po.quick,
        .jobs = c->po.jobs,
        .seed = c->po.seed,
        .interrupt = c->po.interrupt,
        .scenes = c->scenes,
        .parts = c->parts,
        .catalog = c->po.catalog,
        .params = c->params,
        .nparams = c->nparams,
        .split_by = c->split_by,
    };
    return ncp_figures_run(&o, c->papers, c->npapers, c->all_figures);
}

static int cmd_task(cli *c)
{
    if (c->npos != 1) return bad(c, "expected exactly one SCENE file, got %s argument(s)%s", c->npos ? "several" : "no", "");
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

/* The one plugin loader: --plugin files, then $NCPBENCH_PLUGINS's, for every command that
 * takes --plugin (options.c); the CLI owns them for the command's lifetime (no global registry
 * of plugins). Every MPI rank parses the same arguments and environment, so every rank loads
 * the same plugins. */
static int load_plugins(cli *c, const ncp_cmd_def *def)
{
    if (!ncp_cmd_takes(def, NCP_OPT_PLUGIN)) return 0;
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

static int cmd_version(cli *c)
{
    (void)c;
    printf("ncpbench %s (BLAS/LAPACK: %s)\n", NCP_VERSION, NCP_BLAS_BACKEND);
    printf("data directory: %s\n  (%s)\n", ncp_data_dir(), ncp_data_dir_origin());
    return 0;
}

/* `ncpbench help [COMMAND|OPTION]` */
static int cmd_help(int argc, char **argv)
{
    if (argc < 1) {
        usage_main(stdout);
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "ncpbench help: expected one COMMAND or OPTION\n");
        return EXIT_BAD_INPUT;
    }
    const ncp_cmd_def *def = ncp_cmd_find(argv[0]);
    if (def) {
        ncp_cmd_help(def, stdout);
        if (!strcmp(def->name, "figures")) ncp_figures_list(stdout);
        return 0;
    }
    return ncp_opt_help(argv[0], stdout);
}

int ncp_cli_main(int argc, char **argv, const volatile int *interrupt)
{
    if (argc < 2) {
        usage_main(stderr);
        return EXIT_BAD_INPUT;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
        usage_main(stdout);
        return 0;
    }
    if (!strcmp(cmd, "help")) return cmd_help(argc - 2, argv + 2);
    if (!strcmp(cmd, "--version")) cmd = "version";
    /* a bad $NCPBENCH_DATA is refused before any command reads from it */
    ncp_error data_err = {0};
    if (ncp_data_dir_check(&data_err)) {
        fprintf(stderr, "ncpbench: %s\n", data_err.msg);
        return EXIT_BAD_INPUT;
    }
    static const struct {
        const char *name;
        int (*fn)(cli *);
    } cmds[] = {{"run", cmd_run},         {"capture", cmd_capture}, {"solve", cmd_solve},
                {"plot", cmd_plot},       {"list", cmd_list},       {"export", cmd_export},
                {"check", cmd_check},     {"task", cmd_task},       {"grade", cmd_grade},
                {"describe", cmd_describe},
                {"figures", cmd_figures}, {"version", cmd_version}};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        if (strcmp(cmd, cmds[i].name)) continue;
        const ncp_cmd_def *def = ncp_cmd_find(cmds[i].name);
        cli *c = calloc(1, sizeof *c);
        ncp_parsed_args *pa = malloc(sizeof *pa);
        if (!c || !pa || !def) {
            free(c);
            free(pa);
            fprintf(stderr, "ncpbench: out of memory\n");
            return EXIT_FAILURE_IO;
        }
        c->cmd = cmds[i].name;
        ncp_pipeline_opts_default(&c->po);
        c->po.resume = 1; /* run and solve resume their folder (bench/resume.h) */
        c->po.interrupt = interrupt;
        int rc = ncp_args_parse(def, argc - 2, argv + 2, 0, pa);
        int help = !rc && pa->help;
        if (!rc && !help) rc = apply_args(c, pa);
        free(pa);
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
        if (!rc && help && !worker) {
            ncp_cmd_help(def, stdout);
            if (!strcmp(def->name, "figures")) ncp_figures_list(stdout);
        }
        /* --max-memory bounds the process and its children from here on (plugins' own
         * allocations included; util/membudget.h); grade's and the figure sets' processes
         * are not capped (grade's --max-memory bounds its readers) */
        if (!rc && !help && strcmp(c->cmd, "grade") && strcmp(c->cmd, "figures"))
            ncp_mem_cap_process(c->po.max_memory);
        if (!rc && !help) rc = load_plugins(c, def);
        if (!rc && !help) rc = cmds[i].fn(c);
        if (mpi) ncp_mpi_end(rc != 0);
        ncp_plugins_free(c->plugins); /* after every solve: descriptors live in the plugins */
        free(c);
        return rc;
    }
    fprintf(stderr, "ncpbench: unknown command '%s'\n\n", cmd);
    usage_main(stderr);
    return EXIT_BAD_INPUT;
}
