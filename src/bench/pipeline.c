/* Scene -> capture -> bench -> figures (pipeline.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fsutil.h"
#include "util/strdist.h"
#include "bench/collection.h"
#include "bench/labels.h"
#include "bench/mpi_pool.h"
#include "bench/pipeline.h"
#include "bench/plot.h"
#include "bench/resume.h"
#include "store/store.h"
#include "solvers/registry.h"
#include "solve/params.h"
#include "bench/output.h"
#include "capture/capture.h"
#include "core/dop.h"
#include "util/clock.h"

void ncp_pipeline_opts_default(ncp_pipeline_opts *o)
{
    memset(o, 0, sizeof *o);
    o->budget.tol = NCP_DEFAULT_TOL;
    o->budget.max_iter = NCP_DEFAULT_MAX_ITER;
    o->seed = 1;
    o->jobs = 1;
    o->traces = 1;
    o->figures = 1;
    o->progress = 1;
    o->warm_start = NCP_WARM_VELOCITY; /* Lee et al. 2025 §V-D: from the previous step */
}

/* Adds the catalog's solvers of a set word (catalog.h) not yet in out. */
static int add_set(const ncp_solver_catalog *cat, const char *word, const ncp_solver_desc **out,
                   int cap, int *n, ncp_error *err)
{
    int all = !strcmp(word, "all"), peers = !strcmp(word, "peers");
    for (int i = 0; i < cat->n; i++) {
        const ncp_solver_desc *d = cat->solvers[i];
        /* a plugin's solver is never a peer, whatever its name */
        int peer = !ncp_catalog_plugin_file(cat, i) && ncp_registry_is_peer(d->name);
        if (!all && peer != peers) continue;
        int seen = 0;
        for (int k = 0; k < *n && !seen; k++) seen = out[k] == d;
        if (seen) continue;
        if (*n >= cap) return ncp_error_set(err, NCP_ERR_INPUT, "too many solvers");
        out[(*n)++] = d;
    }
    return NCP_OK;
}

int ncp_resolve_solvers(const ncp_solver_catalog *cat, const char *csv,
                        const ncp_solver_desc **out, int cap, int *n, ncp_error *err)
{
    return ncp_resolve_solvers_v(cat, csv, out, cap, n, NULL, err);
}

/* A variant item of a solver list into vs and out (ncp_resolve_solvers_v). */
static int add_variant(const ncp_solver_catalog *cat, const char *item, const ncp_solver_desc **out,
                       int cap, int *n, ncp_solver_variants *vs, ncp_error *err)
{
    if (!vs)
        return ncp_error_set(err, NCP_ERR_INPUT, "solver variant '%s': this command runs no "
                             "variants (name the solver and give --param)", item);
    if (*n >= cap || vs->n >= NCP_MAX_BENCH_SOLVERS)
        return ncp_error_set(err, NCP_ERR_INPUT, "too many solvers");
    ncp_solver_variant *v = &vs->v[vs->n];
    int rc = ncp_catalog_variant(cat, item, v, err);
    if (rc) return rc;
    for (int i = 0; i < vs->n; i++)
        if (ncp_variant_same(&vs->v[i], v))
            return ncp_error_set(err, NCP_ERR_INPUT, "solver variant '%s' listed twice (as '%s')",
                                 item, vs->v[i].name);
    for (int i = 0; i < *n; i++)
        if (!strcmp(out[i]->name, v->name))
            return ncp_error_set(err, NCP_ERR_INPUT, "solver '%s' listed twice", item);
    vs->n++;
    out[(*n)++] = &v->desc;
    return NCP_OK;
}

int ncp_resolve_solvers_v(const ncp_solver_catalog *cat, const char *csv,
                          const ncp_solver_desc **out, int cap, int *n, ncp_solver_variants *vs,
                          ncp_error *err)
{
    *n = 0;
    if (vs) vs->n = 0;
    if (!cat) cat = ncp_registry_catalog();
    if (!csv || !*csv) return add_set(cat, "default", out, cap, n, err);
    const char *s = csv;
    while (*s) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        char name[64];
        if (len == 0 || len >= sizeof name)
            return ncp_error_set(err, NCP_ERR_INPUT, "--solvers: empty or too long name in '%s'",
                                 csv);
        memcpy(name, s, len);
        name[len] = '\0';
        s += len;
        if (*s == ',') s++;
        if (ncp_catalog_set_word(name)) {
            int rc = add_set(cat, name, out, cap, n, err);
            if (rc) return rc;
            continue;
        }
        if (ncp_is_variant_name(name)) {
            int rc = add_variant(cat, name, out, cap, n, vs, err);
            if (rc) return rc;
            continue;
        }
        const ncp_solver_desc *d = ncp_catalog_find(cat, name);
        if (!d) {
            char known[1024] = "";
            size_t used = 0;
            for (int i = 0; i < cat->n; i++) {
                int w = snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                                 cat->solvers[i]->name);
                if (w < 0 || (size_t)w >= sizeof known - used) break;
                used += (size_t)w;
            }
            const char *near = ncp_catalog_closest(cat, name);
            return ncp_error_set(err, NCP_ERR_INPUT, "unknown solver '%s'%s%s%s (known: %s; the "
                                 "sets default, peers, all; see `ncpbench list solvers`; a "
                                 "plugin's solvers need --plugin FILE.so)", name,
                                 near ? " (did you mean " : "", near ? near : "",
                                 near ? "?)" : "", known);
        }
        for (int i = 0; i < *n; i++)
            if (out[i] == d)
                return ncp_error_set(err, NCP_ERR_INPUT, "solver '%s' listed twice", name);
        if (*n >= cap) return ncp_error_set(err, NCP_ERR_INPUT, "too many solvers");
        out[(*n)++] = d;
    }
    return NCP_OK;
}

int ncp_capture_sink_fn(void *ctx, const ncp_problem *p, ncp_error *err)
{
    ncp_capture_sink *s = ctx;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        ncp_problem *np = realloc(s->probs, (size_t)cap * sizeof *np);
        if (!np) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory storing captures");
        s->probs = np;
        s->cap = cap;
    }
    int rc = ncp_problem_copy(&s->probs[s->n], p, err);
    if (rc) return rc;
    s->n++;
    /* the Delassus operator's route, once for every solve of the capture (a file's problems
     * get it from ncp_problem_complete) */
    if ((rc = ncp_dop_check_problem(&s->probs[s->n - 1], err))) return rc;
    return s->store ? ncp_store_append(s->store, p, err) : NCP_OK;
}

void ncp_capture_sink_free(ncp_capture_sink *s)
{
    ncp_problems_free(s->probs, s->n);
    s->probs = NULL;
    s->n = s->cap = 0;
}

int ncp_variants_params(ncp_solver_variants *vs, const ncp_solver_params_entry *ps, int n,
                        const ncp_solver_params_entry **out, int *nout, ncp_error *err)
{
    const int cap = (int)(sizeof vs->params / sizeof vs->params[0]);
    if (n > cap) return ncp_error_set(err, NCP_ERR_INPUT, "too many solvers with parameters");
    if (n > 0) memmove(vs->params, ps, (size_t)n * sizeof *ps);
    vs->nparams = n;
    for (int i = 0; i < vs->n; i++) {
        const ncp_solver_variant *v = &vs->v[i];
        ncp_solver_params_entry *e = ncp_solver_params_slot(vs->params, &vs->nparams, cap,
                                                            v->name, err);
        if (!e) return err->code;
        /* the base solver's --param / benchmark.params, then the variant's own over them */
        const ncp_params *b = ncp_solver_params_find(vs->params, n, v->base->name);
        int rc = b ? ncp_params_merge(&e->params, b, err) : NCP_OK;
        if (!rc) rc = ncp_params_merge(&e->params, &v->params, err);
        if (rc) return rc;
    }
    *out = vs->params;
    *nout = vs->nparams;
    return NCP_OK;
}

static int params_merge(ncp_solver_params_entry *dst, int *n, int cap,
                        const ncp_solver_params_entry *src, int nsrc, ncp_error *err)
{
    for (int i = 0; i < nsrc; i++) {
        ncp_solver_params_entry *e = ncp_solver_params_slot(dst, n, cap, src[i].solver, err);
        if (!e) return err->code;
        int rc = ncp_params_merge(&e->params, &src[i].params, err);
        if (rc) return rc;
    }
    return NCP_OK;
}

int ncp_pipeline_params_validate(const ncp_solver_catalog *cat, const ncp_solver_params_entry *ps,
                           int n, ncp_error *err)
{
    for (int i = 0; i < n; i++) {
        const ncp_solver_desc *d = ncp_catalog_find(cat ? cat : ncp_registry_catalog(),
                                                    ps[i].solver);
        if (!d) {
            const char *near = ncp_catalog_closest(cat ? cat : ncp_registry_catalog(), ps[i].solver);
            return ncp_error_set(err, NCP_ERR_INPUT, "parameters given for unknown solver '%s'%s%s%s",
                                 ps[i].solver, near ? " (did you mean " : "", near ? near : "",
                                 near ? "?)" : "");
        }
        for (int j = 0; j < ps[i].params.n; j++) {
            int ok = 0, np = 0;
            const char *pnames[64];
            for (const ncp_param_doc *pd = d->params; pd && pd->name; pd++) {
                if (strcmp(pd->name, ps[i].params.items[j].name) == 0) ok = 1;
                if (np < 64) pnames[np++] = pd->name;
            }
            const char *near = ok ? NULL : ncp_closest_name(ps[i].params.items[j].name, pnames, np);
            if (!ok)
                return ncp_error_set(err, NCP_ERR_INPUT, "solver '%s' has no parameter '%s'%s%s%s "
                                     "(see `ncpbench list solvers`)", d->name,
                                     ps[i].params.items[j].name, near ? " (did you mean " : "",
                                     near ? near : "", near ? "?)" : "");
        }
    }
    return NCP_OK;
}

void ncp_pipeline_print_profile(const ncp_profile *p)
{
    double own = p->monitor_ms + p->harness_ms;
    printf("\nwhere the time went (ms; per-solve parts are sums over the solves):\n");
    printf("  capture            %12.1f\n", p->capture_ms);
    printf("  loading problems   %12.1f\n", p->load_ms);
    printf("  solve phase (wall) %12.1f\n", p->solve_wall_ms);
    printf("    solvers          %12.1f\n", p->solver_ms);
    printf("    monitoring       %12.1f  (metrics after every iterate)\n", p->monitor_ms);
    printf("    harness, other   %12.1f  (preparation, final metrics)\n", p->harness_ms);
    printf("    writing rows     %12.1f  (metrics.csv, traces, solutions.h5)\n", p->write_ms);
    printf("  figures            %12.1f\n", p->figures_ms);
    if (p->solver_ms > 0.0)
        printf("  harness overhead   %11.1f%% of solver time\n", 100.0 * own / p->solver_ms);
}

/* The hardness labels of a finished run (bench/labels.h): of probs[0..n), or, when paths are
 * given, of the problems of those files read again (the run's source hands each batch out
 * once). OUT/labels.csv, summary.json "problem_labels", the "Problems" section of results.md. */
static int label_run(const ncp_problem *probs, int n, const char *const *paths, int npaths,
                     const ncp_bench_opts *bo, const ncp_pipeline_opts *o, ncp_error *err)
{
    double t0 = ncp_now_ms();
    ncp_labels_run *lr = NULL;
    ncp_collection *coll = NULL;
    int rc = ncp_labels_run_begin(bo->out_dir, ncp_metrics_name(bo->stop_metric), &lr, err);
    int count = 0;
    /* Ctrl-C during the labels: the run's outputs stand, the labels are not written */
#define LABELS_STOP (o->interrupt && *o->interrupt)
    for (int i = 0; !rc && i < n && !LABELS_STOP; i++, count++)
        rc = ncp_labels_run_add(lr, &probs[i], err);
    if (!rc && paths) {
        rc = ncp_collection_open(paths, npaths, &coll, err);
        if (!rc) {
            ncp_collection_set_budget(coll, o->max_memory);
            ncp_collection_set_sym_tol(coll, o->sym_tol);
        }
        ncp_bench_source src;
        if (!rc) ncp_collection_source(coll, &src);
        for (int k = 1; !rc && k > 0 && !LABELS_STOP;) {
            const ncp_problem *ps = NULL;
            if ((rc = src.next(src.ctx, &ps, &k, err))) break;
            for (int i = 0; !rc && i < k && !LABELS_STOP; i++, count++)
                rc = ncp_labels_run_add(lr, &ps[i], err);
        }
    }
    int stopped = LABELS_STOP;
#undef LABELS_STOP
    if (!rc && !stopped) rc = ncp_labels_run_end(lr, err);
    ncp_collection_free(coll);
    ncp_labels_run_free(lr);
    if (rc) return ncp_error_prefix(err, "hardness labels: ");
    if (stopped) fprintf(stderr, "ncpbench: interrupted: the hardness labels not written\n");
    else if (!o->quiet)
        printf("labels: %d problems in %.0f ms (%s/labels.csv)\n", count, ncp_now_ms() - t0,
               bo->out_dir);
    return NCP_OK;
}

/* The labels of a collection's run taken batch by batch (bench.h's batch hooks): every row of
 * a batch, then its problems, while the bench still holds them, so that no file is read again
 * for the labels (one process: MPI's rank 0 holds its problems as read, not complete, and
 * label_run reads them again). */
typedef struct live_labels {
    ncp_labels_run *lr;
    const ncp_pipeline_opts *o;
    int stop_metric, count;
    double ms;
} live_labels;

static int live_row(void *ctx, const struct ncp_jresult *r, ncp_error *err)
{
    live_labels *ll = ctx;
    return ncp_labels_run_row(ll->lr, r->problem, r->solver, r->status, r->converged,
                              ll->stop_metric < r->nmetrics ? r->metrics[ll->stop_metric] : NAN,
                              r->has_answer ? r->lambda : NULL, r->has_answer ? r->m : 0, err);
}

static int live_batch(void *ctx, const ncp_problem *probs, int n, ncp_error *err)
{
    live_labels *ll = ctx;
    double t0 = ncp_now_ms();
    int rc = NCP_OK;
    /* Ctrl-C during the labels: the batch's rows stand, the run ends as interrupted and the
     * labels are not written */
    for (int i = 0; !rc && i < n && !(ll->o->interrupt && *ll->o->interrupt); i++, ll->count++)
        rc = ncp_labels_run_add(ll->lr, &probs[i], err);
    ll->ms += ncp_now_ms() - t0;
    return rc ? ncp_error_prefix(err, "hardness labels: ") : NCP_OK;
}

/* Runs the benchmark on probs[0..n) or, when src is given, on its batches (the files paths
 * hold: labelled batch by batch in one process, read again for the labels under MPI), then
 * labels, prints and plots. */
static int bench_and_plot(const ncp_problem *probs, int n, const ncp_bench_source *src,
                          const char *const *paths, int npaths, ncp_bench_opts *bo,
                          const ncp_pipeline_opts *o, ncp_bench_summary *sum, ncp_error *err)
{
    live_labels ll = {NULL, o, bo->stop_metric, 0, 0.0};
    int rc = NCP_OK;
    if (src && ncp_mpi_size() == 1) {
        if ((rc = ncp_labels_run_begin_live(bo->out_dir, &ll.lr, err))) return rc;
        bo->batch_row = live_row;
        bo->batch_done = live_batch;
        bo->batch_ctx = &ll;
    }
    rc = src ? ncp_bench_run_source(src, bo, sum, err) : ncp_bench_run(probs, n, bo, sum, err);
    bo->batch_row = NULL;
    bo->batch_done = NULL;
    bo->batch_ctx = NULL;
    if (!rc && ll.lr && !sum->interrupted && !(o->interrupt && *o->interrupt)) {
        double t0 = ncp_now_ms();
        rc = ncp_labels_run_end(ll.lr, err);
        if (rc) ncp_error_prefix(err, "hardness labels: ");
        else if (!o->quiet)
            printf("labels: %d problems in %.0f ms (%s/labels.csv)\n", ll.count,
                   ll.ms + ncp_now_ms() - t0, bo->out_dir);
    } else if (!rc && ll.lr && !sum->interrupted) {
        fprintf(stderr, "ncpbench: interrupted: the hardness labels not written\n");
    }
    int live = ll.lr != NULL;
    ncp_labels_run_free(ll.lr);
    if (rc) return rc;
    if (!live && !sum->interrupted && ncp_mpi_rank() == 0 &&
        (rc = label_run(probs, src ? 0 : n, src ? paths : NULL, npaths, bo, o, err)))
        return rc;
    if (o->interrupt && *o->interrupt) sum->interrupted = 1; /* Ctrl-C during the labels: 130 */
    if (!o->quiet) {
        if (sum->kept || sum->dropped)
            printf("resumed %s: %d rows kept from the earlier run\n", bo->out_dir, sum->kept);
        if (sum->dropped)
            printf("dropped %d earlier rows of problems no longer given\n", sum->dropped);
        if (sum->hidden)
            printf("%d rows of the folder's other solvers stay in its journal, not in these "
                   "outputs (rerun with them to show them)\n", sum->hidden);
        ncp_pipeline_print_summary(sum, ncp_metrics_name(bo->stop_metric));
    }
    /* a figure or summary.json that cannot be written fails the run (exit 3 naming the file);
     * gnuplot missing only skips the figures */
    if (o->figures && bo->traces && !sum->interrupted) {
        double t0 = ncp_now_ms();
        rc = ncp_plot_dir(bo->out_dir, NULL, NULL, err);
        sum->profile.figures_ms = ncp_now_ms() - t0;
        if (rc == NCP_PLOT_SKIPPED) {
            fprintf(stderr, "ncpbench: %s\n", err->msg);
            ncp_error_clear(err);
            rc = NCP_OK;
        } else if (rc) {
            return ncp_error_prefix(err, "figures: ");
        }
        char path[4200];
        /* the summary was written before the figures: add their time */
        if ((rc = ncp_path_join(path, sizeof path, bo->out_dir, "summary.json", err)) ||
            (rc = ncp_out_summary_profile(path, &sum->profile, err)))
            return rc;
        if (!o->quiet)
            printf("figures: %s/{overview,residual_vs_time,time_vs_iteration}.{png,svg}\n",
                   bo->out_dir);
    }
    if (o->profile) ncp_pipeline_print_profile(&sum->profile);
    if (!o->quiet)
        printf("outputs: %s/{%ssolutions.h5,metrics.csv,%ssummary.json}\n", bo->out_dir,
               bo->scene_name && *bo->scene_name ? "problems.h5," : "",
               bo->traces ? (bo->traces_csv ? "traces.h5,traces.csv," : "traces.h5,") : "");
    return NCP_OK;
}

/* The benchmark options every run takes from the pipeline options as they are. */
static void bench_opts(const ncp_pipeline_opts *o, const ncp_solver_desc **solvers, int nsolvers,
                       int stop, const ncp_solver_params_entry *params, int nparams,
                       ncp_bench_opts *bo)
{
    memset(bo, 0, sizeof *bo);
    bo->solvers = solvers;
    bo->nsolvers = nsolvers;
    bo->stop_metric = stop;
    bo->params = params;
    bo->nparams = nparams;
    bo->jobs = o->jobs;
    bo->traces = o->traces;
    bo->traces_csv = o->traces_csv;
    bo->trace_every = o->trace_every;
    bo->progress = o->progress;
    bo->interrupt = o->interrupt;
    bo->seed = o->seed;
    bo->quick = o->quick;
    bo->allow = o->allow;
    bo->max_memory = o->max_memory;
    bo->warm_start = o->warm_start;
    bo->clock = o->clock;
    bo->repeat = o->repeat;
    bo->isolate = o->isolate;
    bo->deadline_ms = o->deadline_ms;
    bo->catalog = o->catalog;
}

static int stop_metric_index(const ncp_pipeline_opts *o, ncp_error *err)
{
    const char *name = o->stop_metric ? o->stop_metric : "natural_map_rel_acary";
    int k = ncp_metrics_index(name);
    if (k < 0) {
        char known[512] = "";
        size_t used = 0;
        for (int i = 0; i < ncp_metrics_count(); i++) {
            int w = snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                             ncp_metrics_name(i));
            if (w < 0 || (size_t)w >= sizeof known - used) break;
            used += (size_t)w;
        }
        return -ncp_error_set(err, NCP_ERR_INPUT, "--stop-metric: unknown metric '%s' (known: %s)",
                              name, known);
    }
    return k;
}

int ncp_pipeline_run_scene(const char *scene_path, const ncp_pipeline_opts *o,
                           ncp_bench_summary *sum, char *out_dir_used, size_t cap, ncp_error *err)
{
    ncp_scene *scene = NULL;
    int rc = ncp_scene_load_within(scene_path, o->catalog ? o->catalog : ncp_registry_catalog(),
                                   o->max_memory, &scene, err); /* --max-memory */
    if (rc) return rc;
    ncp_scene_set_driver_time(scene, o->step_budget_ms); /* --step-budget-ms */
    const ncp_bench_cfg *cfg = ncp_scene_bench(scene);
    const ncp_solver_desc *solvers[NCP_MAX_BENCH_SOLVERS];
    int nsolvers = 0;
    ncp_solver_params_entry *params = NULL;
    int nparams = 0, nrun_params = 0;
    const ncp_solver_params_entry *run_params = NULL;
    ncp_solver_variants *vs = NULL;
    ncp_capture_sink sink = {0};
    ncp_store *store = NULL;
    char csv[NCP_MAX_BENCH_SOLVERS * 33] = "";
    char out_dir[4096], path[4200], input[1024], *config = NULL;
    int lock = -1;

    /* solvers: CLI, else the scene's list, else all */
    if (o->solvers_csv) {
        snprintf(csv, sizeof csv, "%s", o->solvers_csv);
    } else {
        size_t used = 0;
        for (int i = 0; i < cfg->nsolvers; i++)
            used += (size_t)snprintf(csv + used, sizeof csv - used, "%s%s", i ? "," : "",
                                     cfg->solvers[i]);
    }
    params = ncp_calloc(err, 2 * NCP_MAX_BENCH_SOLVERS, sizeof *params);
    vs = ncp_calloc(err, 1, sizeof *vs);
    if (!params || !vs) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    if ((rc = ncp_resolve_solvers_v(o->catalog, csv, solvers, NCP_MAX_BENCH_SOLVERS, &nsolvers,
                                    vs, err)) ||
        (rc = params_merge(params, &nparams, 2 * NCP_MAX_BENCH_SOLVERS, cfg->params, cfg->nparams,
                           err)) ||
        (rc = params_merge(params, &nparams, 2 * NCP_MAX_BENCH_SOLVERS, o->params, o->nparams,
                           err)) ||
        (rc = ncp_pipeline_params_validate(o->catalog, params, nparams, err)) ||
        (rc = ncp_variants_params(vs, params, nparams, &run_params, &nrun_params, err)))
        goto done;
    int stop = stop_metric_index(o, err);
    if (stop < 0) {
        rc = -stop;
        goto done;
    }
    if (o->driver && !ncp_solver_find(o->driver)) {
        const char *near = ncp_catalog_closest(ncp_registry_catalog(), o->driver);
        rc = ncp_error_set(err, NCP_ERR_INPUT, "--driver: unknown solver '%s'%s%s%s", o->driver,
                           near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
        goto done;
    }
    if (o->out_dir) snprintf(out_dir, sizeof out_dir, "%s", o->out_dir);
    else snprintf(out_dir, sizeof out_dir, "results/%s", ncp_scene_name(scene));
    if (out_dir_used) snprintf(out_dir_used, cap, "%s", out_dir);

    /* The configuration, the capture's included (a changed scene, seed or capture option is
     * another configuration), checked against the folder's journal before anything is
     * written: another one is refused with problems.h5 untouched (bench/resume.h). */
    ncp_bench_opts bo;
    bench_opts(o, solvers, nsolvers, stop, run_params, nrun_params, &bo);
    bo.budget = cfg->budget;
    if (o->tol_set) bo.budget.tol = o->budget.tol;
    if (o->max_iter_set) bo.budget.max_iter = o->budget.max_iter;
    if (o->time_set) bo.budget.time_ms = o->budget.time_ms;
    bo.out_dir = out_dir;
    bo.scene_name = ncp_scene_name(scene);
    bo.source = scene_path;
    snprintf(input, sizeof input, "scene %s, text %016" PRIx64 ", seed %" PRIu64 ", %s, steps %d, "
             "driver %s, step budget %.17g ms, fclib groups %d", ncp_scene_name(scene),
             ncp_resume_fingerprint(ncp_scene_text(scene)), o->seed, o->quick ? "quick" : "full",
             o->steps, o->driver ? o->driver : "scene's", o->step_budget_ms, o->store_fclib);
    bo.input = input;
    if ((rc = ncp_resume_config(&bo, &config, err))) goto done;
    bo.config = config;

    /* Inputs are valid: now create outputs (MPI ranks other than 0 write none). */
    int writes = ncp_mpi_rank() == 0;
    if (writes && (rc = ncp_mkdir_p(out_dir, err))) goto done;
    /* one run per folder (util/fsutil.h), held from before problems.h5 to the end */
    if (writes && !(rc = ncp_out_lock(out_dir, &lock, err)) && lock < 0)
        rc = ncp_error_set(err, NCP_ERR_IO, "%s vanished while the run started", out_dir);
    if (rc) goto done;
    bo.out_locked = writes;
    if (writes) {
        ncp_resume *rs = NULL;
        if ((rc = ncp_resume_open(out_dir, config, o->fresh || !o->resume, &rs, err)))
            goto done;
        ncp_resume_close(rs);
    }
    if ((rc = ncp_path_join(path, sizeof path, out_dir, "problems.h5", err))) goto done;
    if (writes && (rc = ncp_store_create(path, ncp_scene_name(scene), ncp_scene_text(scene),
                                         o->seed, &store, err)))
        goto done;
    ncp_store_set_fclib_groups(store, o->store_fclib); /* NULL store: nothing */
    sink.store = store;
    ncp_capture_opts co = {o->seed, o->quick, o->steps, o->driver, o->interrupt};
    if (!o->quiet) {
        printf("scene %s: capturing (%s)...\n", ncp_scene_name(scene), o->quick ? "quick" : "full");
        fflush(stdout);
    }
    double t_capture = ncp_now_ms();
    rc = ncp_capture_scene(scene, &co, ncp_capture_sink_fn, &sink, err);
    if (rc) {
        ncp_store_abort(store);
        store = NULL;
        goto done;
    }
    rc = ncp_store_close(store, err);
    t_capture = ncp_now_ms() - t_capture;
    store = NULL;
    if (rc) goto done;
    if (!o->quiet) {
        printf("captured %d problems into %s\n", sink.n, path);
        fflush(stdout);
    }
    if (sink.n == 0) {
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: the simulation produced no contact problem "
                           "(no contacts in the captured steps); check benchmark.skip/steps",
                           scene_path);
        goto done;
    }
    bo.capture_ms = t_capture;
    rc = bench_and_plot(sink.probs, sink.n, NULL, NULL, 0, &bo, o, sum, err);
done:
    if (store) ncp_store_abort(store);
    ncp_out_unlock(lock);
    free(config);
    ncp_capture_sink_free(&sink);
    free(params);
    free(vs);
    ncp_scene_free(scene);
    return rc;
}

/* The benchmark options of a solve (ncp_pipeline_solve*). */
static int solve_opts(const ncp_pipeline_opts *o, const char *source, ncp_bench_opts *bo,
                      const ncp_solver_desc **solvers, ncp_solver_variants *vs, ncp_error *err)
{
    int nsolvers = 0, rc, np = 0;
    const ncp_solver_params_entry *ps = NULL;
    if ((rc = ncp_resolve_solvers_v(o->catalog, o->solvers_csv, solvers, NCP_MAX_BENCH_SOLVERS,
                                    &nsolvers, vs, err)))
        return rc;
    if ((rc = ncp_pipeline_params_validate(o->catalog, o->params, o->nparams, err)) ||
        (rc = ncp_variants_params(vs, o->params, o->nparams, &ps, &np, err)))
        return rc;
    int stop = stop_metric_index(o, err);
    if (stop < 0) return -stop;
    bench_opts(o, solvers, nsolvers, stop, ps, np, bo);
    bo->budget = o->budget;
    bo->out_dir = o->out_dir ? o->out_dir : "results/solve";
    bo->scene_name = "";
    bo->source = source;
    bo->fresh = o->fresh || !o->resume;
    bo->sym_tol = o->sym_tol;
    return NCP_OK;
}

int ncp_pipeline_solve(const ncp_problem *probs, int n, const char *source,
                       const ncp_pipeline_opts *o, ncp_bench_summary *sum, ncp_error *err)
{
    const ncp_solver_desc *solvers[NCP_MAX_BENCH_SOLVERS];
    ncp_bench_opts bo;
    ncp_solver_variants *vs = ncp_calloc(err, 1, sizeof *vs);
    if (!vs) return NCP_ERR_NOMEM;
    int rc = solve_opts(o, source, &bo, solvers, vs, err);
    if (!rc) rc = bench_and_plot(probs, n, NULL, NULL, 0, &bo, o, sum, err);
    free(vs);
    return rc;
}

/* The files of a collection that failed to load: on stderr, and as OUT/failed_files.csv
 * (file,reason), the rows a reader of the outputs needs to see that the run is not complete. */
static int write_failed_files(const ncp_collection *coll, const char *out_dir, ncp_error *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/failed_files.csv", out_dir);
    FILE *f = fopen(path, "w");
    if (!f) return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    fprintf(f, "file,reason\n");
    const char *file, *why;
    for (int i = 0; ncp_collection_note(coll, i, 1, &file, &why); i++) {
        fprintf(stderr, "ncpbench solve: %s failed to load, not solved: %s\n", file, why);
        ncp_out_field(f, file);
        fputc(',', f);
        ncp_out_field(f, why);
        fputc('\n', f);
    }
    if (fclose(f) != 0) return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return NCP_OK;
}

int ncp_pipeline_solve_files(const char *const *paths, int npaths, const ncp_pipeline_opts *o,
                             ncp_bench_summary *sum, ncp_error *err)
{
    const ncp_solver_desc *solvers[NCP_MAX_BENCH_SOLVERS];
    ncp_bench_opts bo;
    ncp_collection *coll = NULL;
    char source[2048] = "", *config = NULL;
    size_t used = 0;
    for (int i = 0; i < npaths && used < sizeof source; i++)
        used += (size_t)snprintf(source + used, sizeof source - used, "%s%s", i ? " " : "",
                                 paths[i]);
    ncp_solver_variants *vs = ncp_calloc(err, 1, sizeof *vs);
    if (!vs) return NCP_ERR_NOMEM;
    int rc = solve_opts(o, source, &bo, solvers, vs, err);
    /* a folder in use is refused at once, before any reading (util/fsutil.h); a new folder
     * is locked once the first batch is read and it is created (ncp_bench_run_source) */
    int lock = -1;
    if (!rc && ncp_mpi_rank() == 0) rc = ncp_out_lock(bo.out_dir, &lock, err);
    bo.out_locked = lock >= 0;
    if (!rc) rc = ncp_collection_open(paths, npaths, &coll, err);
    if (!rc) ncp_collection_set_budget(coll, o->max_memory);
    if (!rc) ncp_collection_set_sym_tol(coll, o->sym_tol);
    /* MPI: each rank derives (D = J A^-1 J^T, ...) only the problems it is handed */
    if (!rc) ncp_collection_set_lazy(coll, ncp_mpi_size() > 1);
    if (!rc) rc = ncp_resume_config(&bo, &config, err);
    if (!rc) {
        ncp_bench_source src;
        ncp_collection_source(coll, &src);
        bo.config = config;
        if (!o->quiet) {
            int sk = ncp_collection_skipped(coll);
            const char *path;
            printf("%d problem file%s", ncp_collection_nfiles(coll),
                   ncp_collection_nfiles(coll) == 1 ? "" : "s");
            if (sk) printf("; skipped, not problem files:");
            for (int i = 0; ncp_collection_note(coll, i, 0, &path, NULL); i++)
                printf("%s %s", i ? "," : "", path);
            printf("\n");
            fflush(stdout);
        }
        rc = bench_and_plot(NULL, 0, &src, paths, npaths, &bo, o, sum, err);
        if (!rc) sum->files_failed = ncp_collection_nfailed(coll);
        if (!rc && sum->files_failed) rc = write_failed_files(coll, bo.out_dir, err);
    }
    free(vs);
    free(config);
    ncp_collection_free(coll);
    ncp_out_unlock(lock);
    return rc;
}

void ncp_pipeline_print_summary(const ncp_bench_summary *sum, const char *stop_metric_name)
{
    int kal = ncp_metrics_index("al_residual"), knm = ncp_metrics_index(stop_metric_name);
    printf("\n%-14s %8s %9s %6s %9s %11s %11s %13s %13s\n", "solver", "problems", "converged",
           "unsup.", "med.iter", "med.setup", "med.solve", "med.al_resid", "med.stop");
    printf("%-14s %8s %9s %6s %9s %11s %11s %13s %13s\n", "", "", "", "", "", "(ms)", "(ms)", "",
           "metric");
    int notes = 0;
    for (int i = 0; i < sum->nsolvers; i++) {
        const ncp_solver_summary *s = &sum->solvers[i];
        printf("%-14s %8d %9d %6d %9.1f %11.4f %11.4f %13.3e %13.3e\n", s->solver, s->problems,
               s->converged, s->unsupported, s->median_iterations, s->median_setup_ms,
               s->median_solve_ms, kal >= 0 ? s->median[kal] : NAN,
               knm >= 0 ? s->median[knm] : NAN);
        for (int b = 0; b < NCP_RECON_COUNT; b++) notes += s->reconstructed[b];
        notes += s->unsupported + s->warm_guess + s->warm_velocity + s->crashed + s->killed;
    }
    printf("(stop metric: %s)%s\n", stop_metric_name,
           sum->interrupted ? "  -- INTERRUPTED: partial results" : "");
    for (int i = 0; i < sum->nsolvers; i++)
        if (sum->solvers[i].self_timed)
            printf("%-14s self-timed: graded answers, its times its program's own "
                   "(docs/answers.md)\n", sum->solvers[i].solver);
    /* never a row without a word: why rows are unsupported, what the solvers were given */
    for (int i = 0; notes && i < sum->nsolvers; i++) {
        const ncp_solver_summary *s = &sum->solvers[i];
        int rest = s->unsupported_by[NCP_UNSUP_SOLVER];
        for (int k = 1; k < NCP_UNSUP_COUNT; k++)
            if (s->unsupported_by[k] && k != NCP_UNSUP_SOLVER)
                printf("%-14s unsupported on %d: %s (metrics.csv, column note)\n", s->solver,
                       s->unsupported_by[k], ncp_unsupported_name(k));
        for (int k = 0; k < s->ndeclined; k++) {
            printf("%-14s unsupported on %d: %s\n", s->solver, s->declined_count[k],
                   s->declined[k]);
            rest -= s->declined_count[k];
        }
        if (rest > 0)
            printf("%-14s unsupported on %d: %s (metrics.csv, column note)\n", s->solver, rest,
                   ncp_unsupported_name(NCP_UNSUP_SOLVER));
        for (int b = 0; b < NCP_RECON_COUNT; b++)
            if (s->reconstructed[b])
                printf("%-14s %s on %d\n", s->solver, ncp_recon_name(1u << b),
                       s->reconstructed[b]);
        if (s->crashed)
            printf("%-14s crashed on %d (its isolated process died; metrics.csv, column "
                   "note)\n", s->solver, s->crashed);
        if (s->killed)
            printf("%-14s killed at the hard deadline on %d (timeout (killed); metrics.csv, "
                   "column note)\n", s->solver, s->killed);
        if (s->warm_guess)
            printf("%-14s started from the file's guess on %d\n", s->solver, s->warm_guess);
        if (s->warm_velocity)
            printf("%-14s handed the previous velocity (v0) on %d\n", s->solver,
                   s->warm_velocity);
    }
    printf("\n");
    fflush(stdout);
}
