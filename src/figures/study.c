/* The study layer (study.h): captures, the runs through the pipeline, the results read back,
 * then the reducers and the claims. */
#include "figures/study.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/pipeline.h"
#include "capture/capture.h"
#include "figures/fig_util.h"
#include "metrics/metrics.h"
#include "bench/resume.h"
#include "scene/scene.h"
#include "solve/params.h"
#include "solvers/registry.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/fsutil.h"
#include "util/safefile.h"

#define NCP_STUDY_PATH 4400

/* ---- captures ---- */

/* splitmix64 of the seed: the random step, uniform in 1..n (no global state) */
static int study_pick_step(unsigned long long seed, int n)
{
    uint64_t z = (uint64_t)seed + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return 1 + (int)(z % (uint64_t)n);
}

typedef struct study_keep {
    const ncp_study_capture *cp;
    const char *scene_path;
    int want, seen; /* want < 0: keep every problem */
    ncp_store *store;
    ncp_study_capture_info *info;
} study_keep;

static int study_keep_fn(void *ctx, const ncp_problem *p, ncp_error *err)
{
    study_keep *k = ctx;
    int idx = k->seen++;
    if (k->want >= 0 && idx != k->want) return NCP_OK;
    if (k->info->nproblems++ == 0) {
        k->info->ncontacts = p->ncontacts;
        k->info->m = p->m;
        k->info->nv = p->nv;
        k->info->h = p->h;
        k->info->step = idx;
    }
    for (int c = 0; k->cp->zero_gap && c < p->ncontacts; c++)
        if (p->contacts[c].gap != 0.0)
            return ncp_error_set(err, NCP_ERR_INPUT,
                                 "%s: contact %d has gap %g; the study reads penetration / h as "
                                 "a velocity, which needs the bodies placed touching (phi = 0)",
                                 k->scene_path, c, p->contacts[c].gap);
    return ncp_store_append(k->store, p, err);
}

/* The key of a capture: what decides its problems. */
static int study_capture_key(const ncp_study_capture *cp, const ncp_fig_opts *o,
                             const ncp_scene *scene, int steps, int want, char *key, size_t cap)
{
    return snprintf(key, cap, "scene %s text %016" PRIx64 " seed %llu quick %d steps %d keep %d "
                    "driver %s", ncp_scene_name(scene),
                    ncp_resume_fingerprint(ncp_scene_text(scene)), o->seed, o->quick, steps, want,
                    cp->driver ? cp->driver : "scene's");
}

/* Reads captures/<id>/capture.txt when its key is `key`: 1 and *info, else 0. */
static int study_capture_kept(const char *meta, const char *h5, const char *key,
                              ncp_study_capture_info *info)
{
    char *text = NULL;
    size_t len = 0;
    ncp_error e = {0};
    if (!ncp_file_exists(h5) || !ncp_file_exists(meta) || ncp_read_file(meta, &text, &len, &e))
        return 0;
    size_t kl = strlen(key);
    int ok = len > kl && !strncmp(text, key, kl) && text[kl] == '\n' &&
             sscanf(text + kl + 1, "problems %d contacts %d m %d nv %d step %d h %lf ms %lf",
                    &info->nproblems, &info->ncontacts, &info->m, &info->nv, &info->step,
                    &info->h, &info->capture_ms) == 7;
    free(text);
    return ok;
}

static int study_capture(const ncp_study_capture *cp, const ncp_fig_opts *o, const char *top,
                         ncp_study_capture_info *info, char *key, size_t keycap, ncp_error *err)
{
    char caps[NCP_STUDY_PATH], dir[NCP_STUDY_PATH], h5[NCP_STUDY_PATH], meta[NCP_STUDY_PATH];
    char path[NCP_STUDY_PATH];
    const char *file = o->quick && cp->scene_quick ? cp->scene_quick : cp->scene;
    ncp_scene *scene = NULL;
    study_keep k = {cp, path, -1, 0, NULL, info};
    int rc;
    if ((rc = ncp_path_join(path, sizeof path, ncp_scenes_dir(), file, err)) ||
        (rc = cp->derive ? cp->derive(cp, o, path, &scene, err)
                         : ncp_scene_load(path, ncp_registry_catalog(), &scene, err)))
        return rc;
    int steps = o->quick ? cp->steps_quick : cp->steps;
    if (cp->random_step) {
        k.want = study_pick_step(o->seed, steps > 0 ? steps : 1);
        steps = k.want + 1;
    }
    study_capture_key(cp, o, scene, steps, k.want, key, keycap);
    if ((rc = ncp_path_join(caps, sizeof caps, top, "captures", err)) ||
        (rc = ncp_path_join(dir, sizeof dir, caps, cp->id, err)) || (rc = ncp_mkdir_p(dir, err)) ||
        (rc = ncp_path_join(h5, sizeof h5, dir, "problems.h5", err)) ||
        (rc = ncp_path_join(meta, sizeof meta, dir, "capture.txt", err)))
        goto done;
    if (study_capture_kept(meta, h5, key, info)) {
        printf("%s: capture %s kept (%s)\n", cp->id, h5, file);
        goto done;
    }
    printf("capturing %s into %s\n", file, h5);
    fflush(stdout);
    memset(info, 0, sizeof *info);
    if ((rc = ncp_store_create(h5, ncp_scene_name(scene), ncp_scene_text(scene), o->seed,
                               &k.store, err)))
        goto done;
    double t0 = ncp_now_ms();
    ncp_capture_opts co = {o->seed, o->quick, steps, cp->driver, o->interrupt};
    rc = ncp_capture_scene(scene, &co, study_keep_fn, &k, err);
    info->capture_ms = ncp_now_ms() - t0;
    if (rc || (o->interrupt && *o->interrupt)) {
        ncp_store_abort(k.store);
        goto done;
    }
    if ((rc = ncp_store_close(k.store, err))) goto done;
    if (info->nproblems < 1) {
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: the capture kept no problem (%d captured)",
                           path, k.seen);
        goto done;
    }
    char text[1600];
    snprintf(text, sizeof text, "%s\nproblems %d contacts %d m %d nv %d step %d h %.17g ms %.17g\n",
             key, info->nproblems, info->ncontacts, info->m, info->nv, info->step, info->h,
             info->capture_ms);
    rc = ncp_write_file_atomic(meta, text, err);
done:
    ncp_scene_free(scene);
    return rc;
}

/* ---- runs ---- */

/* Runs of one part with the same solver go to successive folders: run i's folder index (a
 * program's run has a folder of its own: -1). */
static int study_group(const ncp_study *s, int i)
{
    if (s->runs[i].program) return -1;
    int g = 0;
    for (int j = 0; j < i; j++)
        g += !s->runs[j].program && !strcmp(s->runs[j].part, s->runs[i].part) &&
             !strcmp(s->runs[j].solver, s->runs[i].solver);
    return g;
}

static int study_capture_index(const ncp_study *s, const char *id)
{
    for (int i = 0; i < s->ncaptures; i++)
        if (!strcmp(s->captures[i].id, id)) return i;
    return -1;
}

int ncp_study_part_selected(const ncp_fig_opts *o, const char *id)
{
    if (!o->parts || !*o->parts) return 1;
    size_t n = strlen(id);
    for (const char *p = o->parts; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, id, n)) return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

/* Some selected part names capture k (--parts: the others are not captured). */
static int study_capture_needed(const ncp_study *s, const ncp_fig_opts *o, int k)
{
    for (int p = 0; p < s->nparts; p++)
        if (s->parts[p].capture && !strcmp(s->parts[p].capture, s->captures[k].id) &&
            ncp_study_part_selected(o, s->parts[p].id))
            return 1;
    return 0;
}

const ncp_study_part *ncp_study_find_part(const ncp_study *s, const char *id)
{
    for (int i = 0; i < s->nparts; i++)
        if (!strcmp(s->parts[i].id, id)) return &s->parts[i];
    return NULL;
}

static int study_solver_known(const ncp_fig_opts *o, const char *name)
{
    return o->catalog ? ncp_catalog_find(o->catalog, name) != NULL : ncp_solver_find(name) != NULL;
}

int ncp_study_params(const ncp_study_config *cf, const char *solver, const ncp_study_param *own,
                     ncp_params *ps, ncp_error *err)
{
    memset(ps, 0, sizeof *ps);
    int rc = NCP_OK;
    for (int i = 0; i < cf->nsolvers; i++)
        if (!strcmp(cf->solvers[i].solver, solver))
            for (int k = 0; !rc && k < NCP_STUDY_MAX_PARAMS && cf->solvers[i].params[k].name;
                 k++)
                rc = ncp_params_set(ps, cf->solvers[i].params[k].name,
                                    cf->solvers[i].params[k].value, err);
    for (int k = 0; !rc && k < NCP_STUDY_MAX_PARAMS && own[k].name; k++)
        rc = ncp_params_set(ps, own[k].name, own[k].value, err);
    return rc;
}

/* The parameters of run r in configuration cf: the configuration's, then the run's own. */
static int study_run_params(const ncp_study_config *cf, const ncp_study_run *r, ncp_params *ps,
                            ncp_error *err)
{
    return ncp_study_params(cf, r->solver, r->params, ps, err);
}

void ncp_study_params_text(const ncp_params *ps, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < ps->n && used < cap; i++) {
        int w = snprintf(buf + used, cap - used, "%s%s=%.17g", i ? ";" : "", ps->items[i].name,
                         ps->items[i].value);
        if (w < 0) break;
        used += (size_t)w;
    }
}

/* One folder: the runs of (part, group g) whose solvers exist, solved through the pipeline;
 * a folder whose declaration (key) changed starts over, else the journal resumes it. */
static int study_solve_group(const ncp_study_ctx *c, const ncp_study_part *pt, int g,
                             const char *h5, const char *capkey, const char *gdir,
                             ncp_error *err)
{
    const ncp_study *s = c->s;
    ncp_solver_params_entry params[NCP_MAX_BENCH_SOLVERS];
    char csv[NCP_MAX_BENCH_SOLVERS * 33] = "", key[8192], ptxt[1024], kpath[NCP_STUDY_PATH];
    int np = 0, rc;
    size_t used = 0;
    int max_iter = ncp_study_max_iter(c, pt);
    used += (size_t)snprintf(key, sizeof key, "%s\ntol %.17g max_iter %d time %.17g stop %s "
                             "every %d warm %d\n", capkey, pt->budget.tol, max_iter,
                             pt->budget.time_ms,
                             pt->budget.stop_metric ? pt->budget.stop_metric : "default",
                             pt->budget.trace_every, pt->budget.warm_start);
    for (int i = 0; i < s->nruns; i++) {
        const ncp_study_run *r = &s->runs[i];
        if (strcmp(r->part, pt->id) || r->program || study_group(s, i) != g ||
            !study_solver_known(c->o, r->solver))
            continue;
        if (np >= NCP_MAX_BENCH_SOLVERS)
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: too many runs in part %s", s->id, pt->id);
        memset(&params[np], 0, sizeof params[np]);
        snprintf(params[np].solver, sizeof params[np].solver, "%s", r->solver);
        if ((rc = study_run_params(c->config, r, &params[np].params, err))) return rc;
        ncp_study_params_text(&params[np].params, ptxt, sizeof ptxt);
        snprintf(csv + strlen(csv), sizeof csv - strlen(csv), "%s%s", np ? "," : "", r->solver);
        if (used < sizeof key)
            used += (size_t)snprintf(key + used, sizeof key - used, "%s %s\n", r->solver, ptxt);
        np++;
    }
    if (np == 0) return NCP_OK;
    if ((rc = ncp_mkdir_p(gdir, err)) ||
        (rc = ncp_path_join(kpath, sizeof kpath, gdir, "study.key", err)))
        return rc;
    char *old = NULL;
    size_t olen = 0;
    ncp_error e = {0};
    int same = !ncp_read_file(kpath, &old, &olen, &e) && !strcmp(old, key);
    free(old);
    ncp_pipeline_opts po;
    ncp_fig_pipeline_opts(c->o, gdir, &po);
    po.solvers_csv = csv;
    po.params = params;
    po.nparams = np;
    po.budget.tol = pt->budget.tol;
    po.budget.max_iter = max_iter;
    po.budget.time_ms = pt->budget.time_ms;
    po.stop_metric = pt->budget.stop_metric;
    po.traces = 1;
    po.traces_csv = 1;
    po.trace_every = pt->budget.trace_every;
    po.resume = 1;
    po.fresh = !same;
    po.warm_start = pt->budget.warm_start;
    /* the key first: a kill after it resumes the journal of this very declaration */
    if (!same && (rc = ncp_write_file_atomic(kpath, key, err))) return rc;
    ncp_bench_summary *sum = ncp_calloc(err, 1, sizeof *sum);
    if (!sum) return NCP_ERR_NOMEM;
    const char *paths[1] = {h5};
    rc = ncp_pipeline_solve_files(paths, 1, &po, sum, err);
    if (!rc)
        printf("%s %s/%s-%d: %s%s\n", s->id, c->config->id, pt->id, g, csv,
               sum->kept ? " (resumed: earlier rows kept)" : "");
    free(sum);
    fflush(stdout);
    return rc ? ncp_error_prefix(err, "%s, %s, %s: ", s->id, c->config->id, pt->id) : NCP_OK;
}

static int study_group_dir(const ncp_study_ctx *c, const char *part, int g, char *out, size_t cap,
                           ncp_error *err)
{
    char name[128];
    snprintf(name, sizeof name, "%s-%d", part, g);
    return ncp_path_join(out, cap, c->dir, name, err);
}

static int study_max_group(const ncp_study *s, const char *part)
{
    int n = -1; /* a program's run (group -1) adds none */
    for (int i = 0; i < s->nruns; i++)
        if (!strcmp(s->runs[i].part, part) && study_group(s, i) > n) n = study_group(s, i);
    return n;
}

/* ---- results read back ---- */

int ncp_study_trace_cols(void) { return 2 + ncp_metrics_count(); }

typedef struct study_load {
    const ncp_study *s;
    const char *part;
    int g;
    ncp_study_solves *res;
} study_load;

/* The solve of (solver, problem) in this folder (g < 0: a program's); created when `create`
 * (metrics.csv's rows), NULL when the folder has no such run or (not create) no such problem. */
static ncp_study_result *study_load_find(study_load *l, const char *solver, const char *problem,
                                         int create, ncp_error *err)
{
    for (int i = 0; i < l->s->nruns; i++) {
        if (strcmp(l->s->runs[i].part, l->part) || strcmp(l->s->runs[i].solver, solver) ||
            study_group(l->s, i) != (l->g < 0 ? -1 : l->g))
            continue;
        ncp_study_solves *sv = &l->res[i];
        for (int k = sv->n - 1; k >= 0; k--)
            if (!strcmp(sv->p[k].problem, problem)) return &sv->p[k];
        if (!create) return NULL;
        if (sv->n == sv->cap) {
            int cap = sv->cap ? 2 * sv->cap : 4;
            ncp_study_result *q = realloc(sv->p, (size_t)cap * sizeof *q);
            if (!q) {
                ncp_error_set(err, NCP_ERR_NOMEM, "out of memory reading the results");
                return NULL;
            }
            sv->p = q;
            sv->cap = cap;
        }
        ncp_study_result *x = &sv->p[sv->n++];
        memset(x, 0, sizeof *x);
        snprintf(x->problem, sizeof x->problem, "%s", problem);
        return x;
    }
    return NULL;
}

static int study_load_metrics(study_load *l, const char *path, ncp_error *err)
{
    ncp_csv r;
    int rc = ncp_csv_open(&r, path, "(the run did not finish)", err), nm = ncp_metrics_count();
    if (rc) return rc;
    int ci[8];
    static const char *const names[8] = {"solver", "iterations", "converged", "status",
                                         "setup_ms", "solve_ms", "note", "problem"};
    for (int k = 0; k < 8 && !rc; k++) rc = ncp_csv_need_column(&r, names[k], NULL, &ci[k], err);
    while (!rc && (rc = ncp_csv_next(&r, err)) == NCP_OK) {
        ncp_study_result *x = study_load_find(l, r.field[ci[0]], r.field[ci[7]], 1, err);
        if (!x && err->code) rc = err->code;
        if (!x || x->ran) continue;
        double v;
        x->ran = 1;
        x->iterations = ncp_csv_number(r.field[ci[1]], &v) ? 0 : (int)v;
        x->converged = !ncp_csv_number(r.field[ci[2]], &v) && v != 0.0;
        x->status = ncp_status_from_name(r.field[ci[3]]);
        if (ncp_csv_number(r.field[ci[4]], &x->setup_ms)) x->setup_ms = NAN;
        if (ncp_csv_number(r.field[ci[5]], &x->solve_ms)) x->solve_ms = NAN;
        snprintf(x->note, sizeof x->note, "%s", r.field[ci[6]]);
        if (!(x->final = ncp_calloc(err, (size_t)nm, sizeof *x->final))) rc = NCP_ERR_NOMEM;
        for (int k = 0; !rc && k < nm; k++) {
            int col = ncp_csv_column(&r, ncp_metrics_name(k));
            if (col < 0 || ncp_csv_number(r.field[col], &x->final[k])) x->final[k] = NAN;
        }
    }
    ncp_csv_close(&r);
    return rc == NCP_CSV_END ? NCP_OK : rc;
}

static int study_load_traces(study_load *l, const char *path, ncp_error *err)
{
    ncp_csv r;
    int rc = ncp_csv_open(&r, path, "(the run did not finish)", err), nc = ncp_study_trace_cols();
    if (rc) return rc;
    int cs, cp, cit, ct, cm[64];
    if ((rc = ncp_csv_need_column(&r, "solver", NULL, &cs, err)) ||
        (rc = ncp_csv_need_column(&r, "problem", NULL, &cp, err)) ||
        (rc = ncp_csv_need_column(&r, "iteration", NULL, &cit, err)) ||
        (rc = ncp_csv_need_column(&r, "time_ms", NULL, &ct, err)))
        goto done;
    for (int k = 0; k < nc - 2; k++) cm[k] = ncp_csv_column(&r, ncp_metrics_name(k));
    while ((rc = ncp_csv_next(&r, err)) == NCP_OK) {
        ncp_study_result *x = study_load_find(l, r.field[cs], r.field[cp], 0, err);
        if (!x) continue;
        if (x->ntrace == x->tcap) {
            int cap = x->tcap ? 2 * x->tcap : 64;
            double *t = realloc(x->trace, (size_t)cap * (size_t)nc * sizeof *t);
            if (!t) {
                rc = ncp_error_set(err, NCP_ERR_NOMEM, "out of memory reading %s", path);
                goto done;
            }
            x->trace = t;
            x->tcap = cap;
        }
        double *t = x->trace;
        double *row = t + (size_t)x->ntrace++ * (size_t)nc;
        if (ncp_csv_number(r.field[cit], &row[0])) row[0] = NAN;
        if (ncp_csv_number(r.field[ct], &row[1])) row[1] = NAN;
        for (int k = 0; k < nc - 2; k++)
            if (cm[k] < 0 || ncp_csv_number(r.field[cm[k]], &row[2 + k])) row[2 + k] = NAN;
    }
done:
    ncp_csv_close(&r);
    return rc == NCP_CSV_END ? NCP_OK : rc;
}

static void study_results_free(ncp_study_solves *res, int n)
{
    for (int i = 0; res && i < n; i++) {
        for (int k = 0; k < res[i].n; k++) {
            free(res[i].p[k].final);
            free(res[i].p[k].trace);
        }
        free(res[i].p);
    }
    free(res);
}

/* ---- accessors ---- */

const ncp_study_solves *ncp_study_get_all(const ncp_study_ctx *c, const char *part,
                                          const char *label)
{
    for (int i = 0; i < c->s->nruns; i++)
        if (!strcmp(c->s->runs[i].part, part) && !strcmp(c->s->runs[i].label, label))
            return &c->results[i];
    return NULL;
}

const ncp_study_result *ncp_study_get(const ncp_study_ctx *c, const char *part, const char *label)
{
    static const ncp_study_result not_run; /* constant: ran = 0 */
    const ncp_study_solves *sv = ncp_study_get_all(c, part, label);
    return !sv ? NULL : sv->n ? &sv->p[0] : &not_run;
}

const ncp_study_capture_info *ncp_study_part_capture(const ncp_study_ctx *c,
                                                     const ncp_study_part *p)
{
    int k = p && p->capture ? study_capture_index(c->s, p->capture) : -1;
    /* a made capture holds a problem (study_capture refuses one that kept none) */
    return k < 0 || c->captures[k].nproblems < 1 ? NULL : &c->captures[k];
}

int ncp_study_max_iter(const ncp_study_ctx *c, const ncp_study_part *p)
{
    return c->o->quick && p->budget.max_iter_quick > 0 ? p->budget.max_iter_quick
                                                       : p->budget.max_iter;
}

double ncp_study_trace_at(const ncp_study_result *r, int k, const char *name)
{
    int m = ncp_metrics_index(name);
    if (!r || m < 0 || k < 0 || k >= r->ntrace) return NAN;
    return r->trace[(size_t)k * (size_t)ncp_study_trace_cols() + 2 + (size_t)m];
}

double ncp_study_final(const ncp_study_result *r, const char *name)
{
    int m = ncp_metrics_index(name);
    return r && r->ran && r->final && m >= 0 ? r->final[m] : NAN;
}

double ncp_study_input(ncp_study_claim_out *out, const ncp_study_result *r, const char *name,
                       double value)
{
    if (r && !r->ran) out->not_run = 1;
    if (out->inputs)
        fprintf(out->inputs, "%s,%s,%s,%.17g\n", out->config, out->claim, name, value);
    return value;
}

double ncp_study_capture_input(ncp_study_claim_out *out, const ncp_study_capture_info *ci,
                               const char *name, double value)
{
    if (!ci) {
        out->not_run = 1;
        value = NAN;
    }
    return ncp_study_input(out, NULL, name, value);
}

/* ---- the driver ---- */

static int study_write_runs(const ncp_study_ctx *c, ncp_error *err)
{
    char path[NCP_STUDY_PATH], ptxt[1024];
    int rc = ncp_path_join(path, sizeof path, c->dir, "runs.csv", err);
    if (rc) return rc;
    FILE *f = ncp_safe_fopen(path, err);
    if (!f) return err->code;
    fputs("part,label,solver,folder,params,ran\n", f);
    for (int i = 0; i < c->s->nruns; i++) {
        const ncp_study_run *r = &c->s->runs[i];
        ncp_params ps;
        if ((rc = study_run_params(c->config, r, &ps, err))) break;
        ncp_study_params_text(&ps, ptxt, sizeof ptxt);
        if (r->program)
            fprintf(f, "%s,%s,%s,%s-%s,%s,%d\n", r->part, r->label, r->solver, r->part,
                    r->solver, ptxt, c->results[i].n > 0);
        else
            fprintf(f, "%s,%s,%s,%s-%d,%s,%d\n", r->part, r->label, r->solver, r->part,
                    study_group(c->s, i), ptxt, c->results[i].n > 0);
    }
    if (fclose(f) != 0 && !rc) rc = ncp_error_set(err, NCP_ERR_IO, "cannot write %s", path);
    return rc;
}

/* The part's runs of programs (study_program.c), graded into folders <part>-<solver>, read
 * back into res (no traces). */
static int study_programs(const ncp_study_ctx *c, const ncp_study_part *pt, const char *h5,
                          const char *capkey, const char *top, ncp_study_solves *res,
                          ncp_error *err)
{
    char name[160], gdir[NCP_STUDY_PATH], path[NCP_STUDY_PATH];
    int rc = NCP_OK;
    for (int i = 0; i < c->s->nruns && !rc; i++) {
        const ncp_study_run *r = &c->s->runs[i];
        if (!r->program || strcmp(r->part, pt->id)) continue;
        if (c->o->interrupt && *c->o->interrupt) return NCP_OK;
        snprintf(name, sizeof name, "%s-%s", pt->id, r->solver);
        if ((rc = ncp_path_join(gdir, sizeof gdir, c->dir, name, err)) ||
            (rc = ncp_study_program(c, r, pt, h5, capkey, top, gdir, err)) ||
            (rc = ncp_path_join(path, sizeof path, gdir, "metrics.csv", err)))
            return rc;
        study_load l = {c->s, pt->id, -1, res};
        if (ncp_file_exists(path)) rc = study_load_metrics(&l, path, err);
    }
    return rc;
}

/* Every run of configuration c->config solved (or resumed) and read back into res. */
static int study_solve_config(ncp_study_ctx *c, const char *top, char (*capkeys)[1024],
                              ncp_study_solves *res, ncp_error *err)
{
    const ncp_study *s = c->s;
    char gdir[NCP_STUDY_PATH], h5[NCP_STUDY_PATH], path[NCP_STUDY_PATH], caps[NCP_STUDY_PATH];
    int rc = NCP_OK;
    for (int p = 0; p < s->nparts && !rc; p++) {
        const ncp_study_part *pt = &s->parts[p];
        if (!pt->capture || !ncp_study_part_selected(c->o, pt->id))
            continue; /* a part of sims alone (study_sim.c), or not among --parts */
        int k = study_capture_index(s, pt->capture);
        if (k < 0) return ncp_error_set(err, NCP_ERR_INPUT, "%s: part %s names no capture '%s'",
                                        s->id, pt->id, pt->capture);
        if ((rc = ncp_path_join(caps, sizeof caps, top, "captures", err)) ||
            (rc = ncp_path_join(path, sizeof path, caps, s->captures[k].id, err)) ||
            (rc = ncp_path_join(h5, sizeof h5, path, "problems.h5", err)))
            return rc;
        for (int g = 0; g <= study_max_group(s, pt->id) && !rc; g++) {
            if (c->o->interrupt && *c->o->interrupt) return NCP_OK;
            if ((rc = study_group_dir(c, pt->id, g, gdir, sizeof gdir, err)) ||
                (rc = study_solve_group(c, pt, g, h5, capkeys[k], gdir, err)))
                return rc;
            if (c->o->interrupt && *c->o->interrupt) return NCP_OK;
            study_load l = {s, pt->id, g, res};
            if ((rc = ncp_path_join(path, sizeof path, gdir, "metrics.csv", err))) return rc;
            if (!ncp_file_exists(path)) continue; /* no solver of this folder exists */
            if ((rc = study_load_metrics(&l, path, err)) ||
                (rc = ncp_path_join(path, sizeof path, gdir, "traces.csv", err)) ||
                (rc = study_load_traces(&l, path, err)))
                return rc;
        }
        if (!rc) rc = study_programs(c, pt, h5, capkeys[k], top, res, err);
    }
    return rc;
}

/* Runs one configuration: solves, reducers, claims; counts[] of its verdicts. */
static int study_config(const ncp_study *s, const ncp_study_config *cf, const ncp_fig_opts *o,
                        const char *top, const char *cmd, const ncp_study_capture_info *infos,
                        char (*capkeys)[1024], int counts[5], ncp_error *err)
{
    char dir[NCP_STUDY_PATH], pdir[NCP_STUDY_PATH];
    ncp_study_solves *res = ncp_calloc(err, (size_t)s->nruns, sizeof *res);
    if (!res) return NCP_ERR_NOMEM;
    ncp_study_simres *sims = ncp_calloc(err, (size_t)s->nsims + 1, sizeof *sims);
    if (!sims) {
        free(res);
        return NCP_ERR_NOMEM;
    }
    ncp_study_ctx c = {s, cf, o, dir, cmd, infos, res, sims};
    int rc = ncp_path_join(dir, sizeof dir, top, cf->id, err);
    if (!rc) rc = ncp_mkdir_p(dir, err);
    printf("%s: configuration %s (%s)\n", s->id, cf->id, cf->title);
    fflush(stdout);
    if (!rc) rc = study_solve_config(&c, top, capkeys, res, err);
    if (!rc && !(o->interrupt && *o->interrupt)) rc = ncp_study_sims(&c, sims, err);
    if (rc || (o->interrupt && *o->interrupt)) goto done;
    if ((rc = study_write_runs(&c, err))) goto done;
    for (int p = 0; p < s->nparts && !rc; p++) {
        if (!s->parts[p].reduce || !ncp_study_part_selected(o, s->parts[p].id)) continue;
        if (!(rc = ncp_path_join(pdir, sizeof pdir, dir, s->parts[p].id, err)) &&
            !(rc = ncp_mkdir_p(pdir, err)))
            rc = s->parts[p].reduce(&c, &s->parts[p], pdir, err);
    }
    if (!rc) rc = ncp_study_write_claims(&c, counts, err);
done:
    study_results_free(res, s->nruns);
    ncp_study_sims_free(sims, s->nsims);
    return rc;
}

static int study_summary(const ncp_study *s, const char *top, const char *cmd,
                         int (*counts)[5], ncp_error *err)
{
    char path[NCP_STUDY_PATH];
    int rc = ncp_path_join(path, sizeof path, top, "study.md", err);
    if (rc) return rc;
    FILE *f = ncp_safe_fopen(path, err);
    if (!f) return err->code;
    fprintf(f, "### %s: verdicts per configuration\n\nCommand: `%s`. Each configuration is "
            "counted alone (claims: `<configuration>/claims.md`).\n\n", s->title, cmd);
    if ((rc = ncp_study_stamp_embed(f, top, err))) {
        fclose(f);
        return rc;
    }
    fputs("| configuration | reproduced | partly | not reproduced | not testable | not run |\n"
          "|---|---|---|---|---|---|\n", f);
    printf("\n%s: verdicts per configuration (reproduced / partly / not / not testable / not "
           "run)\n", s->id);
    for (int i = 0; i < s->nconfigs; i++) {
        fprintf(f, "| %s | %d | %d | %d | %d | %d |\n", s->configs[i].title, counts[i][0],
                counts[i][1], counts[i][2], counts[i][3], counts[i][4]);
        printf("  %-16s %d / %d / %d / %d / %d\n", s->configs[i].id, counts[i][0], counts[i][1],
               counts[i][2], counts[i][3], counts[i][4]);
    }
    if (fclose(f) != 0) return ncp_error_set(err, NCP_ERR_IO, "cannot write %s", path);
    printf("summary: %s\n", path);
    return NCP_OK;
}

/* Every name of --parts is a part of s (a misspelt one would silently run nothing). */
static int study_check_parts(const ncp_study *s, const char *parts, ncp_error *err)
{
    for (const char *p = parts; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int ok = 0;
        for (int i = 0; i < s->nparts && !ok; i++)
            ok = strlen(s->parts[i].id) == len && !strncmp(s->parts[i].id, p, len);
        if (!ok) {
            char ids[1024];
            size_t at = 0;
            for (int i = 0; i < s->nparts && at < sizeof ids; i++)
                at += (size_t)snprintf(ids + at, sizeof ids - at, "%s%s", i ? ", " : "",
                                       s->parts[i].id);
            return ncp_error_set(err, NCP_ERR_INPUT, "--parts: %s has no part '%.*s' (its parts: "
                                 "%s)", s->id, (int)len, p, ids);
        }
        p = e ? e + 1 : NULL;
    }
    return NCP_OK;
}

int ncp_study_reproduce(const ncp_study *s, const ncp_fig_opts *o, ncp_error *err)
{
    char top[NCP_STUDY_PATH], cmd[NCP_STUDY_PATH + 128];
    int rc = study_check_parts(s, o->parts, err);
    if (rc) return rc;
    if ((rc = ncp_path_join(top, sizeof top, o->out_dir, s->id, err)) ||
        (rc = ncp_mkdir_p(top, err)))
        return rc;
    snprintf(cmd, sizeof cmd, "ncpbench figures --paper %s%s%s%s%s --seed %llu -j %d --out %s",
             s->id, o->quick ? " --quick" : "", o->parts ? " --parts " : "",
             o->parts ? o->parts : "", o->isolate == NCP_ISOLATE_ALL ? " --isolate"
             : o->isolate == NCP_ISOLATE_NONE ? " --no-isolate" : "", o->seed, o->jobs,
             o->out_dir);
    if ((rc = ncp_study_stamp_begin(top, cmd, o, err))) return rc;
    ncp_study_capture_info *infos = ncp_calloc(err, (size_t)s->ncaptures, sizeof *infos);
    char (*keys)[1024] = ncp_calloc(err, (size_t)s->ncaptures, sizeof *keys);
    int (*counts)[5] = ncp_calloc(err, (size_t)s->nconfigs, sizeof *counts);
    if (!infos || !keys || !counts) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    for (int i = 0; i < s->ncaptures && !rc; i++) {
        if (o->interrupt && *o->interrupt) goto done;
        if (study_capture_needed(s, o, i))
            rc = study_capture(&s->captures[i], o, top, &infos[i], keys[i], sizeof keys[i], err);
    }
    for (int i = 0; i < s->nconfigs && !rc; i++) {
        if (o->interrupt && *o->interrupt) goto done;
        rc = study_config(s, &s->configs[i], o, top, cmd, infos, keys, counts[i], err);
    }
    if (!rc && !(o->interrupt && *o->interrupt) && !(rc = ncp_study_stamp_end(top, err)))
        rc = study_summary(s, top, cmd, counts, err);
done:
    free(infos);
    free(keys);
    free(counts);
    return rc;
}
