/* A study's simulations (study.h ncp_study_sim): each sim is one ncp_task_run (bench/task.h: the
 * solver drives its own warm-started trajectory), written by ncp_task_write (steps.csv,
 * task.json, task.md) into OUT/<study>/<config>/<part>-<label>/, then its key (sim.key): a sim
 * with the same key is kept, one without (killed, interrupted, changed) runs again. The
 * configuration's sims run on -j threads (they are independent; their times then share the
 * machine). sims.csv maps each sim to its folder, solver and parameters. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bench/resume.h"
#include "bench/task.h"
#include "figures/study.h"
#include "scene/scene.h"
#include "solve/params.h"
#include "solvers/registry.h"
#include "util/fsutil.h"
#include "util/machine.h"
#include "util/safefile.h"

#define SS_PATH 4400

/* The observer's hooks in task.h's shape (ctx: the sim). */
static int ss_state(void *ctx, int step, int n, const ncp_world *w, double *row, ncp_error *err)
{
    const ncp_study_sim *sm = ctx;
    return sm->observe->state(sm, step, n, w, row, err);
}

static int ss_solved(void *ctx, int step, int n, const ncp_problem *p, const double *lambda,
                     const double *v, double *row, ncp_error *err)
{
    const ncp_study_sim *sm = ctx;
    return sm->observe->solved(sm, step, n, p, lambda, v, row, err);
}

static int ss_nobs(const ncp_study_sim *sm)
{
    int n = 0;
    while (sm->observe && n < NCP_STUDY_SIM_MAXOBS && sm->observe->columns[n]) n++;
    return n;
}

static int ss_dir(const ncp_study_ctx *c, const ncp_study_sim *sm, char *dir, size_t cap,
                  ncp_error *err)
{
    char name[160];
    snprintf(name, sizeof name, "%s-%s", sm->part, sm->label);
    return ncp_path_join(dir, cap, c->dir, name, err);
}

/* Everything a sim needs to run, resolved before the threads start. */
typedef struct ss_job {
    const ncp_study_ctx *c;
    const ncp_study_sim *sm;
    ncp_scene *scene;
    ncp_solver_params_entry params;
    ncp_budget budget;
    int scene_budget, steps;
    char dir[SS_PATH], key[4096], solver[32];
    int skip;    /* kept, or a solver this build lacks */
    int missing; /* a solver this build lacks: not run */
} ss_job;

/* The folder holds this very sim, finished: its key (written after its outputs) is j's. */
static int ss_finished(const ss_job *j)
{
    char kpath[SS_PATH + 16], *old = NULL;
    size_t olen = 0;
    ncp_error e = {0};
    snprintf(kpath, sizeof kpath, "%s/sim.key", j->dir);
    int same = !ncp_read_file(kpath, &old, &olen, &e) && !strcmp(old, j->key);
    free(old);
    return same;
}

static int ss_prepare(const ncp_study_ctx *c, const ncp_study_sim *sm, ss_job *j, ncp_error *err)
{
    const ncp_fig_opts *o = c->o;
    char path[SS_PATH], ptxt[1024];
    const char *file = o->quick && sm->scene_quick ? sm->scene_quick : sm->scene;
    const ncp_study_part *pt = ncp_study_find_part(c->s, sm->part);
    if (!pt) return ncp_error_set(err, NCP_ERR_INPUT, "%s: sim %s names no part '%s'", c->s->id,
                                  sm->label, sm->part);
    j->c = c;
    j->sm = sm;
    if (!ncp_study_part_selected(o, sm->part) || (o->quick && sm->steps_quick < 0)) {
        j->skip = j->missing = 1; /* not among --parts, or a full run's alone: not run */
        snprintf(j->solver, sizeof j->solver, "%s", sm->solver ? sm->solver : "");
        return ss_dir(c, sm, j->dir, sizeof j->dir, err);
    }
    int rc;
    if ((rc = ncp_path_join(path, sizeof path, ncp_scenes_dir(), file, err)) ||
        (rc = sm->derive ? sm->derive(sm, o, path, &j->scene, err)
                         : ncp_scene_load(path, ncp_registry_catalog(), &j->scene, err)) ||
        (rc = ss_dir(c, sm, j->dir, sizeof j->dir, err)))
        return rc;
    snprintf(j->solver, sizeof j->solver, "%s",
             sm->solver ? sm->solver : ncp_scene_bench(j->scene)->driver);
    if (o->catalog ? !ncp_catalog_find(o->catalog, j->solver) : !ncp_solver_find(j->solver)) {
        printf("%s %s/%s: solver %s is not in this build: not run\n", c->s->id, c->config->id,
               sm->label, j->solver);
        j->skip = j->missing = 1;
        return NCP_OK;
    }
    snprintf(j->params.solver, sizeof j->params.solver, "%s", j->solver);
    if ((rc = ncp_study_params(c->config, j->solver, sm->params, &j->params.params, err)))
        return rc;
    ncp_study_params_text(&j->params.params, ptxt, sizeof ptxt);
    j->budget = (ncp_budget){pt->budget.tol, ncp_study_max_iter(c, pt), pt->budget.time_ms};
    j->scene_budget = sm->scene_budget;
    j->steps = o->quick ? sm->steps_quick : sm->steps;
    int at = snprintf(j->key, sizeof j->key, "scene %s text %016" PRIx64 " solver %s params %s "
                      "budget %s tol %.17g max_iter %d time %.17g steps %d columns",
                      ncp_scene_name(j->scene), ncp_resume_fingerprint(ncp_scene_text(j->scene)),
                      j->solver, ptxt, sm->scene_budget ? "scene's" : "part's", j->budget.tol,
                      j->budget.max_iter, j->budget.time_ms, j->steps);
    for (int k = 0; k < ss_nobs(sm) && at > 0 && (size_t)at < sizeof j->key; k++)
        at += snprintf(j->key + at, sizeof j->key - (size_t)at, " %s", sm->observe->columns[k]);
    if ((j->skip = ss_finished(j)))
        printf("%s %s/%s-%s: kept\n", c->s->id, c->config->id, sm->part, sm->label);
    return NCP_OK;
}

/* Runs one sim into its folder; its key last. An interrupted sim leaves no key. */
static int ss_run(ss_job *j, ncp_error *err)
{
    const ncp_study_sim *sm = j->sm;
    const ncp_fig_opts *o = j->c->o;
    char kpath[SS_PATH + 16];
    snprintf(kpath, sizeof kpath, "%s/sim.key", j->dir);
    int rc = ncp_mkdir_p(j->dir, err);
    if (rc) return rc;
    if (ncp_file_exists(kpath) && unlink(kpath) != 0)
        return ncp_error_set(err, NCP_ERR_IO, "cannot remove %s", kpath);
    const ncp_task_cfg *t = ncp_scene_task(j->scene);
    ncp_task_opts to;
    ncp_task_opts_default(&to);
    to.steps = j->steps;
    to.interrupt = o->interrupt;
    to.params = &j->params;
    to.nparams = 1;
    if (!j->scene_budget) to.budget = &j->budget;
    else if (!t) to.budget = &ncp_scene_bench(j->scene)->driver_budget;
    to.nobs = ss_nobs(sm);
    to.obs_names = sm->observe ? sm->observe->columns : NULL;
    to.obs_state = sm->observe && sm->observe->state ? ss_state : NULL;
    to.obs_solved = sm->observe && sm->observe->solved ? ss_solved : NULL;
    to.obs_ctx = (void *)sm;
    ncp_task_result r;
    double load[3];
    int haveload = ncp_load_average(load);
    rc = ncp_task_run(j->scene, j->solver, &to, &r, err);
    if (!rc && !r.interrupted)
        rc = ncp_task_write(j->dir, j->scene, &r, 1, haveload ? load : NULL, 0, err);
    if (!rc && !r.interrupted) rc = ncp_write_file_atomic(kpath, j->key, err);
    if (!rc && !r.interrupted)
        printf("%s %s/%s-%s: %s, %d/%d steps%s (%.1f s)\n", j->c->s->id, j->c->config->id,
               sm->part, sm->label, j->solver, r.nsteps, r.steps_planned,
               r.failed ? ", the simulation failed" : "", r.wall_s);
    fflush(stdout);
    ncp_task_result_free(&r);
    return rc ? ncp_error_prefix(err, "%s, %s, sim %s-%s: ", j->c->s->id, j->c->config->id,
                                 sm->part, sm->label)
              : NCP_OK;
}

typedef struct ss_pool {
    ss_job *jobs;
    int n, next, rc;
    ncp_error err;
    pthread_mutex_t mu;
} ss_pool;

static void *ss_worker(void *arg)
{
    ss_pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        int i = p->rc ? -1 : p->next < p->n ? p->next++ : -1;
        pthread_mutex_unlock(&p->mu);
        if (i < 0) break;
        ss_job *j = &p->jobs[i];
        const volatile int *stop = j->c->o->interrupt;
        if (j->skip || (stop && *stop)) continue;
        ncp_error e = {0};
        int rc = ss_run(j, &e);
        pthread_mutex_lock(&p->mu);
        if (rc && !p->rc) {
            p->rc = rc;
            p->err = e;
        }
        pthread_mutex_unlock(&p->mu);
    }
    return NULL;
}

/* ---- read back ---- */

static double ss_json_num(const cJSON *o, const char *key, double absent)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(x) ? x->valuedouble : absent;
}

static int ss_read_json(const char *dir, ncp_study_simres *r)
{
    char path[SS_PATH + 16], *text = NULL;
    size_t len = 0;
    ncp_error e = {0};
    snprintf(path, sizeof path, "%s/task.json", dir);
    if (ncp_read_file(path, &text, &len, &e)) return -1;
    cJSON *root = cJSON_Parse(text);
    free(text);
    cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "solvers"), 0);
    if (!s0) {
        cJSON_Delete(root);
        return -1;
    }
    r->completed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s0, "completed"));
    r->failed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s0, "failed"));
    r->success = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s0, "success"));
    cJSON *planned = cJSON_GetObjectItemCaseSensitive(s0, "steps_planned"), *cr;
    cJSON *crits = cJSON_GetObjectItemCaseSensitive(s0, "criteria");
    r->steps_planned = cJSON_IsNumber(planned) ? planned->valueint : -1;
    if (cJSON_GetArraySize(crits) > NCP_STUDY_SIM_MAXCRIT) { /* a claim must see them all */
        fprintf(stderr, "ncpbench: %s: more than %d criteria: the sim is read as not run\n",
                path, NCP_STUDY_SIM_MAXCRIT);
        cJSON_Delete(root);
        return -1;
    }
    cJSON_ArrayForEach(cr, crits)
    {
        ncp_study_simcrit *k = &r->crit[r->ncrit++];
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(cr, "type");
        snprintf(k->type, sizeof k->type, "%s", cJSON_IsString(type) ? type->valuestring : "");
        k->value = ss_json_num(cr, "value", NAN); /* null: not measured */
        k->lo = ss_json_num(cr, "min", -INFINITY); /* null: open (JSON has no infinities) */
        k->hi = ss_json_num(cr, "max", INFINITY);
    }
    cJSON_Delete(root);
    return 0;
}

static int ss_read(const char *dir, ncp_study_simres *r, ncp_error *err)
{
    char path[SS_PATH + 16];
    snprintf(path, sizeof path, "%s/steps.csv", dir);
    if (ss_read_json(dir, r)) return NCP_OK; /* not run */
    ncp_csv cv;
    int rc = ncp_csv_open(&cv, path, "(the sim did not finish)", err), cap = 0;
    if (rc) return rc;
    r->ncols = cv.ncols;
    for (int k = 0; k < cv.ncols; k++) snprintf(r->names[k], sizeof r->names[k], "%s", cv.header[k]);
    while ((rc = ncp_csv_next(&cv, err)) == NCP_OK) {
        if (r->nrows == cap) {
            cap = cap ? 2 * cap : 256;
            double *q = realloc(r->rows, (size_t)cap * (size_t)r->ncols * sizeof *q);
            if (!q) {
                rc = ncp_error_set(err, NCP_ERR_NOMEM, "out of memory reading %s", path);
                break;
            }
            r->rows = q;
        }
        double *row = r->rows + (size_t)r->nrows++ * (size_t)r->ncols;
        for (int k = 0; k < r->ncols; k++)
            if (ncp_csv_number(cv.field[k], &row[k])) row[k] = NAN;
    }
    ncp_csv_close(&cv);
    if (rc == NCP_CSV_END) {
        r->ran = 1;
        rc = NCP_OK;
    }
    return rc;
}

static int ss_write_index(const ncp_study_ctx *c, const ss_job *jobs, ncp_error *err)
{
    char path[SS_PATH], ptxt[1024];
    int rc = ncp_path_join(path, sizeof path, c->dir, "sims.csv", err);
    if (rc) return rc;
    FILE *f = ncp_safe_fopen(path, err);
    if (!f) return err->code;
    fputs("part,label,solver,folder,params,ran\n", f);
    for (int i = 0; i < c->s->nsims; i++) {
        const ncp_study_sim *sm = &c->s->sims[i];
        ncp_study_params_text(&jobs[i].params.params, ptxt, sizeof ptxt);
        fprintf(f, "%s,%s,%s,%s-%s,%s,%d\n", sm->part, sm->label, jobs[i].solver, sm->part,
                sm->label, ptxt, c->sims[i].ran);
    }
    if (fclose(f) != 0) return ncp_error_set(err, NCP_ERR_IO, "cannot write %s", path);
    return NCP_OK;
}

int ncp_study_sims(const ncp_study_ctx *c, ncp_study_simres *res, ncp_error *err)
{
    const ncp_study *s = c->s;
    if (s->nsims <= 0) return NCP_OK;
    ss_job *jobs = ncp_calloc(err, (size_t)s->nsims, sizeof *jobs);
    if (!jobs) return NCP_ERR_NOMEM;
    int rc = NCP_OK;
    for (int i = 0; i < s->nsims && !rc; i++) rc = ss_prepare(c, &s->sims[i], &jobs[i], err);
    if (!rc) {
        ss_pool p = {jobs, s->nsims, 0, NCP_OK, {0}, PTHREAD_MUTEX_INITIALIZER};
        int nt = c->o->jobs > 1 ? c->o->jobs : 1;
        pthread_t th[64];
        int started = 0;
        for (int t = 1; t < nt && t < 64 && t < s->nsims; t++)
            if (pthread_create(&th[started], NULL, ss_worker, &p) == 0) started++;
        ss_worker(&p);
        for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
        if ((rc = p.rc)) *err = p.err;
    }
    for (int i = 0; i < s->nsims && !rc; i++)
        if (jobs[i].scene && !jobs[i].missing && ss_finished(&jobs[i]))
            rc = ss_read(jobs[i].dir, &res[i], err);
    if (!rc && !(c->o->interrupt && *c->o->interrupt)) rc = ss_write_index(c, jobs, err);
    for (int i = 0; i < s->nsims; i++) ncp_scene_free(jobs[i].scene);
    free(jobs);
    return rc;
}

void ncp_study_sims_free(ncp_study_simres *res, int n)
{
    for (int i = 0; res && i < n; i++) free(res[i].rows);
    free(res);
}

const ncp_study_simres *ncp_study_get_sim(const ncp_study_ctx *c, const char *part,
                                          const char *label)
{
    for (int i = 0; i < c->s->nsims; i++)
        if (!strcmp(c->s->sims[i].part, part) && !strcmp(c->s->sims[i].label, label))
            return &c->sims[i];
    return NULL;
}

double ncp_study_sim_at(const ncp_study_simres *r, int k, const char *name)
{
    if (!r || !r->ran || k < 0 || k >= r->nrows) return NAN;
    for (int j = 0; j < r->ncols; j++)
        if (!strcmp(r->names[j], name)) return r->rows[(size_t)k * (size_t)r->ncols + (size_t)j];
    return NAN;
}
