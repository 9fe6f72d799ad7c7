/* Tasks under real-time budgets (task.h). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench/output.h"
#include "bench/plot.h"
#include "bench/task.h"
#include "solve/params.h"
#include "capture/driver.h"
#include "core/spatial.h"
#include "metrics/metrics.h"
#include "sim/collide.h"
#include "sim/dynamics.h"
#include "sim/step.h"
#include "solve/harness.h"
#include "util/clock.h"
#include "util/fsutil.h"
#include "util/safefile.h"
#include "util/stats.h"

void ncp_task_opts_default(ncp_task_opts *o)
{
    memset(o, 0, sizeof *o);
}

void ncp_task_result_free(ncp_task_result *r)
{
    if (!r) return;
    free(r->steps);
    free(r->checks);
    free(r->obs);
    memset(r, 0, sizeof *r);
}

void ncp_task_body_origin(const ncp_world *w, int b, double out[3])
{
    double c[3];
    ncp_m3_mulv(w->rot + 9 * b, w->model->bodies[b].com_local, c);
    ncp_v3_sub(w->pos + 3 * b, c, out);
}

static void check_set(ncp_task_check *k, double value, double lo, double hi)
{
    k->value = value;
    k->lo = lo;
    k->hi = hi;
    k->pass = value >= lo && value <= hi; /* NaN fails */
}

int ncp_task_evaluate(const ncp_task_cfg *t, const double *origin0, const ncp_world *w,
                      double max_penetration, ncp_task_check *checks)
{
    int all = 1;
    for (int i = 0; i < t->ncriteria; i++) {
        const ncp_task_criterion *c = &t->criteria[i];
        ncp_task_check *k = &checks[i];
        double p[3], d[3], lin[3], ang[3];
        if (c->body >= 0) ncp_task_body_origin(w, c->body, p);
        switch (c->type) {
        case NCP_CRIT_DISPLACEMENT:
            ncp_v3_sub(p, origin0 + 3 * c->body, d);
            check_set(k, ncp_v3_dot(d, c->axis), c->has_min ? c->min : -INFINITY,
                      c->has_max ? c->max : INFINITY);
            break;
        case NCP_CRIT_POSITION:
            ncp_v3_sub(p, c->target, d);
            check_set(k, ncp_v3_norm(d), 0.0, c->tolerance);
            break;
        case NCP_CRIT_UPRIGHT: {
            ncp_m3_mulv(w->rot + 9 * c->body, c->axis, d);
            double cs = ncp_v3_dot(d, c->world) / ncp_v3_norm(d);
            check_set(k, acos(cs > 1.0 ? 1.0 : cs < -1.0 ? -1.0 : cs), 0.0, c->max_angle);
            break;
        }
        case NCP_CRIT_IN_REGION: {
            int in = 0;
            for (int j = 0; j < c->nbodies; j++) {
                ncp_task_body_origin(w, c->bodies[j], p);
                int ok = 1;
                for (int a = 0; a < 3; a++) ok &= p[a] >= c->lo[a] && p[a] <= c->hi[a];
                in += ok;
            }
            check_set(k, (double)in / c->nbodies, c->fraction, 1.0);
            break;
        }
        case NCP_CRIT_PENETRATION:
            check_set(k, max_penetration, 0.0, c->max);
            break;
        case NCP_CRIT_SPEED:
            ncp_world_body_velocity(w, c->body, lin, ang);
            check_set(k, ncp_v3_norm(lin), 0.0, c->max);
            break;
        default:
            check_set(k, NAN, 0.0, 0.0);
            break;
        }
        all &= k->pass;
    }
    return all;
}

/* ---- the simulation ---- */

typedef struct pen_ctx {
    double pen;
} pen_ctx;

static double contacts_penetration(const ncp_problem *p)
{
    double pen = 0.0;
    for (int i = 0; i < p->ncontacts; i++)
        if (-p->contacts[i].gap > pen) pen = -p->contacts[i].gap;
    return pen;
}

/* The scene's task, or an empty one (a run with the caller's budget, ncp_task_opts.budget). */
static const ncp_task_cfg *task_or_none(const ncp_scene *s)
{
    static const ncp_task_cfg none = {.ncriteria = 0};
    const ncp_task_cfg *t = ncp_scene_task(s);
    return t ? t : &none;
}

static int pen_hook(void *ctx, ncp_problem *p, ncp_error *err)
{
    (void)err;
    ((pen_ctx *)ctx)->pen = contacts_penetration(p);
    return NCP_OK;
}

/* Deepest penetration of the world's current contacts (the final state). */
static int world_penetration(const ncp_world *w, double *pen, ncp_error *err)
{
    ncp_contact_list cl = {0, 0, NULL};
    int rc = ncp_world_collide(w, &cl, err);
    *pen = 0.0;
    for (int i = 0; !rc && i < cl.n; i++)
        if (-cl.c[i].dist > *pen) *pen = -cl.c[i].dist;
    ncp_contact_list_free(&cl);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int summarize(ncp_task_result *r, ncp_error *err)
{
    double *x = ncp_malloc(err, (size_t)(r->nsteps > 0 ? r->nsteps : 1), sizeof(double));
    if (!x) return NCP_ERR_NOMEM;
    int n = 0;
    for (int i = 0; i < r->nsteps; i++) {
        const ncp_task_step *s = &r->steps[i];
        if (s->status < 0) continue;
        x[n++] = s->solve_ms;
        r->over_budget += s->solve_ms > r->budget_ms;
        r->timeouts += s->status == NCP_STATUS_TIMEOUT;
    }
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    r->nsolves = n;
    r->solve_p50 = ncp_quantile_sorted(x, (size_t)n, 0.5);
    r->solve_p90 = ncp_quantile_sorted(x, (size_t)n, 0.9);
    r->solve_p99 = ncp_quantile_sorted(x, (size_t)n, 0.99);
    r->solve_max = ncp_quantile_sorted(x, (size_t)n, 1.0);
    n = 0;
    for (int i = 0; i < r->nsteps; i++)
        if (r->steps[i].status >= 0 && isfinite(r->steps[i].active)) x[n++] = r->steps[i].active;
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    r->active_p50 = n ? ncp_quantile_sorted(x, (size_t)n, 0.5) : NAN;
    r->active_max = n ? x[n - 1] : NAN;
    free(x);
    return NCP_OK;
}

/* The driver's solve, then the caller's observation of its answer (ncp_task_opts.obs_solved). */
typedef struct obs_solve_ctx {
    ncp_step_solve_fn inner;
    void *inner_ctx;
    const ncp_task_opts *o;
    int step, nsteps;
    double *row;
} obs_solve_ctx;

static int obs_solve(void *ctx, const ncp_problem *p, const double *lambda0,
                     ncp_step_solve_out *out, ncp_error *err)
{
    obs_solve_ctx *c = ctx;
    int rc = c->inner(c->inner_ctx, p, lambda0, out, err);
    if (rc || out->failed || out->interrupted || !c->o->obs_solved) return rc;
    return c->o->obs_solved(c->o->obs_ctx, c->step, c->nsteps, p, out->lambda, p->has_primal ? out->v : NULL,
                            c->row, err);
}

/* The step's start: its time, energy and the caller's observation of the state. */
static int task_step_start(const ncp_task_opts *o, const ncp_world *w, int k, int n,
                           ncp_task_step *st, double *row, ncp_error *err)
{
    st->t = w->time;
    int rc = ncp_world_energy(w, &st->kinetic, &st->potential, err);
    if (!rc && o->obs_state) rc = o->obs_state(o->obs_ctx, k, n, w, row, err);
    return rc;
}

int ncp_task_run(const ncp_scene *s, const char *solver, const ncp_task_opts *o,
                 ncp_task_result *r, ncp_error *err)
{
    memset(r, 0, sizeof *r);
    const ncp_task_cfg *t = ncp_scene_task(s);
    if (!t && !o->budget)
        return ncp_error_set(err, NCP_ERR_INPUT, "scene %s has no \"task\" section (see "
                             "scenes/README.md, \"Task\")", ncp_scene_name(s));
    t = task_or_none(s);
    const ncp_model *m = ncp_scene_model(s);
    ncp_driver drv;
    /* the scene's predicted memory against the budget (ncp_scene_set_max_memory) before the
     * first step: the task runner simulates without going through the capture, which checks it */
    int rc = ncp_scene_check_memory(s, err);
    if (rc) return rc;
    rc = ncp_driver_for_scene(s, solver, o->interrupt, &drv, err);
    if (rc) return rc;
    ncp_params merged; /* the scene's parameters of the solver, then the caller's */
    const ncp_params *over = ncp_solver_params_find(o->params, o->nparams, drv.solver->name);
    if (over) {
        if (drv.params) merged = *drv.params;
        else memset(&merged, 0, sizeof merged);
        if ((rc = ncp_params_merge(&merged, over, err))) return rc;
        drv.params = &merged;
    }
    drv.budget = o->budget ? *o->budget : t->budget;
    ncp_driver_set_step_budget(&drv, o->step_budget_ms);
    snprintf(r->solver, sizeof r->solver, "%s", drv.solver->name);
    r->budget_ms = drv.budget.time_ms;
    r->tol = drv.budget.tol;
    r->max_iter = drv.budget.max_iter;
    int n = m->nsteps;
    if (o->quick && ncp_scene_bench(s)->quick_steps < n) n = ncp_scene_bench(s)->quick_steps;
    if (o->steps > 0 && o->steps < n) n = o->steps;
    r->steps_planned = n;
    r->ncriteria = t->ncriteria;
    r->steps = ncp_calloc(err, (size_t)n, sizeof *r->steps);
    r->checks = ncp_calloc(err, (size_t)t->ncriteria + 1, sizeof *r->checks);
    r->nobs = o->nobs > 0 ? o->nobs : 0;
    r->obs_names = o->obs_names;
    if (r->nobs && (r->obs = ncp_malloc(err, (size_t)n * (size_t)r->nobs + 1, sizeof *r->obs)))
        for (size_t i = 0; i < (size_t)n * (size_t)r->nobs; i++) r->obs[i] = NAN;
    double *origin0 = ncp_malloc(err, 3 * (size_t)(m->nbodies > 0 ? m->nbodies : 1), sizeof(double));
    ncp_world *w = NULL;
    if (!r->steps || !r->checks || !origin0 || (r->nobs && !r->obs)) {
        free(origin0);
        return NCP_ERR_NOMEM;
    }
    if ((rc = ncp_world_create(m, &w, err))) {
        free(origin0);
        return rc;
    }
    for (int b = 0; b < m->nbodies; b++) ncp_task_body_origin(w, b, origin0 + 3 * b);
    ncp_driver_probe probe;
    memset(&probe, 0, sizeof probe);
    probe.driver = &drv;
    ncp_step_opts so;
    ncp_driver_step_opts_probe(&probe, 1, &so);
    obs_solve_ctx oc = {so.solve, so.solve_ctx, o, 0, n, NULL};
    if (o->obs_solved) {
        so.solve = obs_solve;
        so.solve_ctx = &oc;
    }
    double t_start = ncp_now_ms();
    for (int k = 0; k < n; k++) {
        if (o->interrupt && *o->interrupt) {
            r->interrupted = 1;
            break;
        }
        ncp_driver_stats none = {0.0, 0, -1, NAN, NAN, NAN};
        probe.last = none;
        pen_ctx pc = {0.0};
        ncp_step_info info;
        ncp_task_step *st = &r->steps[k];
        oc.step = k;
        oc.row = r->obs ? r->obs + (size_t)k * (size_t)r->nobs : NULL;
        if ((rc = task_step_start(o, w, k, n, st, oc.row, err))) break;
        double t0 = ncp_now_ms();
        rc = ncp_world_step(w, &so, pen_hook, &pc, &info, err);
        st->wall_ms = ncp_now_ms() - t0;
        if (rc == NCP_ERR_NUMERIC || rc == NCP_ERR_INPUT) {
            /* the driver gave no usable answer (NaN, a failed status) or declined the step's
             * problem: the simulation of this solver ends here, a verdict rather than an error */
            r->failed = 1;
            snprintf(r->failure, sizeof r->failure, "step %d (t = %.6g s): %s", k, st->t, err->msg);
            memset(err, 0, sizeof *err);
            rc = NCP_OK;
            break;
        }
        if (rc) break;
        if (info.interrupted) {
            r->interrupted = 1;
            break;
        }
        st->contacts = info.ncontacts;
        st->rows = info.nrows;
        st->solve_ms = probe.last.solve_ms;
        st->iterations = probe.last.iterations;
        st->status = info.nrows ? probe.last.status : -1;
        st->stop_value = probe.last.stop_value;
        st->al_residual = probe.last.al_residual;
        st->active = probe.last.active;
        st->penetration = pc.pen;
        if (pc.pen > r->max_penetration) r->max_penetration = pc.pen;
        r->nsteps = k + 1;
    }
    r->wall_s = (ncp_now_ms() - t_start) / 1000.0;
    r->completed = !rc && r->nsteps == n && !r->failed && !r->interrupted;
    if (!rc && !r->failed) rc = world_penetration(w, &r->final_penetration, err);
    if (r->final_penetration > r->max_penetration) r->max_penetration = r->final_penetration;
    if (!rc) {
        int all = ncp_task_evaluate(t, origin0, w, r->max_penetration, r->checks);
        r->success = r->completed && all;
        rc = summarize(r, err);
    }
    ncp_world_free(w);
    free(origin0);
    if (rc) ncp_error_prefix(err, "task %s, solver %s: ", ncp_scene_name(s), r->solver);
    return rc;
}

typedef struct many_ctx {
    const ncp_scene *s;
    const char *const *solvers;
    int n, next;
    const ncp_task_opts *o;
    ncp_task_result *r;
    int rc;
    ncp_error err;
    pthread_mutex_t mu;
} many_ctx;

static void *many_worker(void *arg)
{
    many_ctx *c = arg;
    for (;;) {
        pthread_mutex_lock(&c->mu);
        int i = c->next < c->n ? c->next++ : -1;
        pthread_mutex_unlock(&c->mu);
        if (i < 0) break;
        ncp_error e = {0};
        int rc = ncp_task_run(c->s, c->solvers[i], c->o, &c->r[i], &e);
        pthread_mutex_lock(&c->mu);
        if (rc && !c->rc) {
            c->rc = rc;
            c->err = e;
        }
        if (!rc && c->o->verbose && !c->r[i].interrupted) ncp_task_print(stdout, &c->r[i]);
        pthread_mutex_unlock(&c->mu);
    }
    return NULL;
}

int ncp_task_run_many(const ncp_scene *s, const char *const *solvers, int n,
                      const ncp_task_opts *o, int jobs, ncp_task_result *r, ncp_error *err)
{
    many_ctx c = {s, solvers, n, 0, o, r, NCP_OK, {0}, PTHREAD_MUTEX_INITIALIZER};
    memset(r, 0, (size_t)n * sizeof *r);
    if (jobs < 1) jobs = 1;
    if (jobs > n) jobs = n;
    pthread_t th[64];
    int started = 0;
    for (int j = 1; j < jobs && j < 64; j++)
        if (pthread_create(&th[started], NULL, many_worker, &c) == 0) started++;
    many_worker(&c); /* this thread works too (and alone if no thread could be started) */
    for (int j = 0; j < started; j++) pthread_join(th[j], NULL);
    if (c.rc) *err = c.err;
    return c.rc;
}

void ncp_task_print(FILE *f, const ncp_task_result *x)
{
    fprintf(f, "  %-16s %s: %d/%d steps, solve ms p50 %.3g max %.3g, %d/%d over budget, max "
            "penetration %.3g mm, %.2f s\n", x->solver,
            x->success ? "SUCCESS" : x->failed ? "FAILED (simulation)" : "fail", x->nsteps,
            x->steps_planned, x->solve_p50, x->solve_max, x->over_budget, x->nsolves,
            1e3 * x->max_penetration, x->wall_s);
    fflush(f);
}

int ncp_task_keep_finished(ncp_task_result *r, int n)
{
    int kept = 0;
    for (int i = 0; i < n; i++) {
        if (r[i].interrupted || !(r[i].completed || r[i].failed)) {
            ncp_task_result_free(&r[i]);
            continue;
        }
        if (kept != i) {
            r[kept] = r[i];
            memset(&r[i], 0, sizeof r[i]);
        }
        kept++;
    }
    return kept;
}

/* ---- outputs ---- */

static void put_num(FILE *f, double x)
{
    if (isnan(x)) fputs("nan", f);
    else if (isinf(x)) fputs(x > 0 ? "inf" : "-inf", f);
    else fprintf(f, "%.17g", x); /* reads back bit for bit */
}

/* A text output written to a fresh temporary (O_EXCL|O_NOFOLLOW, util/safefile.h), then
 * renamed: a reader never sees half a file, and a link planted at path is replaced, not
 * followed. */
static int safe_open(const char *path, char tmp[4300], FILE **f, ncp_error *err)
{
    ncp_safe_file sf;
    int rc = ncp_safe_create(path, &sf, err);
    if (rc) return rc;
    snprintf(tmp, 4300, "%s", sf.tmp);
    *f = sf.f;
    free(sf.tmp);
    free(sf.path);
    return NCP_OK;
}

static int tmp_open(const char *dir, const char *name, char path[4200], char tmp[4300], FILE **f,
                    ncp_error *err)
{
    int rc = ncp_path_join(path, 4200, dir, name, err);
    if (rc) return rc;
    return safe_open(path, tmp, f, err);
}

static int tmp_commit(FILE *f, const char *tmp, const char *path, ncp_error *err)
{
    int bad = ferror(f);
    int e = bad ? EIO : 0;
    if (fclose(f) && !e) e = errno;
    if (e) {
        remove(tmp);
        return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(e));
    }
    if (rename(tmp, path)) {
        remove(tmp);
        return ncp_error_set(err, NCP_ERR_IO, "cannot rename %s to %s", tmp, path);
    }
    return NCP_OK;
}

static int write_csv(const char *dir, const ncp_task_result *r, int n, ncp_error *err)
{
    char path[4200], tmp[4300];
    FILE *f = NULL;
    int rc = tmp_open(dir, "steps.csv", path, tmp, &f, err);
    if (rc) return rc;
    int nobs = n > 0 ? r[0].nobs : 0;
    fprintf(f, "solver,step,t,contacts,rows,solve_ms,wall_ms,iterations,status,stop_metric,"
               "al_residual,penetration,active_contacts,kinetic,potential");
    for (int j = 0; j < nobs; j++) fprintf(f, ",%s", r[0].obs_names[j]);
    fputc('\n', f);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < r[i].nsteps; k++) {
            const ncp_task_step *s = &r[i].steps[k];
            fprintf(f, "%s,%d,", r[i].solver, k);
            put_num(f, s->t);
            fprintf(f, ",%d,%d,", s->contacts, s->rows);
            put_num(f, s->solve_ms);
            fputc(',', f);
            put_num(f, s->wall_ms);
            fprintf(f, ",%d,%s,", s->iterations, s->status < 0 ? "none" : ncp_status_name(s->status));
            put_num(f, s->stop_value);
            fputc(',', f);
            put_num(f, s->al_residual);
            fputc(',', f);
            put_num(f, s->penetration);
            fputc(',', f);
            put_num(f, s->active);
            fputc(',', f);
            put_num(f, s->kinetic);
            fputc(',', f);
            put_num(f, s->potential);
            for (int j = 0; j < nobs; j++) {
                fputc(',', f);
                put_num(f, j < r[i].nobs ? r[i].obs[(size_t)k * (size_t)r[i].nobs + (size_t)j]
                                         : NAN);
            }
            fputc('\n', f);
        }
    return tmp_commit(f, tmp, path, err);
}

/* JSON has no infinities or NaN: null. */
static cJSON *jnum(double x)
{
    return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull();
}

static int add(cJSON *o, const char *key, cJSON *v)
{
    if (!v) return 1;
    if (!cJSON_AddItemToObject(o, key, v)) {
        cJSON_Delete(v);
        return 1;
    }
    return 0;
}

static const char *stop_metric_name(void)
{
    ncp_harness_opts ho;
    ncp_harness_opts_default(&ho);
    return ncp_metrics_name(ho.stop_metric);
}

static const char *LOAD_NOTE =
    "The budget is the solving thread's CPU time (setup + iterations; util/clock.h), so the "
    "trajectory of each solver depends on this machine's speed, and on its load only through "
    "caches and memory bandwidth; the wall time of each step is in steps.csv.";

static int write_json(const char *dir, const ncp_scene *s, const ncp_task_result *r, int n,
                      const double load[3], ncp_error *err)
{
    const ncp_task_cfg *t = task_or_none(s);
    char path[4200];
    int rc = ncp_path_join(path, sizeof path, dir, "task.json", err);
    if (rc) return rc;
    cJSON *root = cJSON_CreateObject();
    int bad = !root;
    if (root) {
        bad |= add(root, "scene", cJSON_CreateString(ncp_scene_name(s)));
        bad |= add(root, "description", cJSON_CreateString(t->description));
        bad |= add(root, "stop_metric", cJSON_CreateString(stop_metric_name()));
        cJSON *la = cJSON_CreateArray();
        for (int i = 0; la && i < 3; i++)
            if (!cJSON_AddItemToArray(la, load ? jnum(load[i]) : cJSON_CreateNull())) bad = 1;
        bad |= add(root, "load_average", la);
        bad |= add(root, "note", cJSON_CreateString(LOAD_NOTE));
        cJSON *arr = cJSON_CreateArray();
        bad |= add(root, "solvers", arr);
        for (int i = 0; arr && !bad && i < n; i++) {
            const ncp_task_result *x = &r[i];
            cJSON *o = cJSON_CreateObject();
            if (!o || !cJSON_AddItemToArray(arr, o)) {
                cJSON_Delete(o);
                bad = 1;
                break;
            }
            bad |= add(o, "solver", cJSON_CreateString(x->solver));
            bad |= add(o, "success", cJSON_CreateBool(x->success));
            bad |= add(o, "completed", cJSON_CreateBool(x->completed));
            bad |= add(o, "failed", cJSON_CreateBool(x->failed));
            bad |= add(o, "failure", cJSON_CreateString(x->failure));
            bad |= add(o, "step_budget_ms", jnum(x->budget_ms));
            bad |= add(o, "tol", jnum(x->tol));
            bad |= add(o, "max_iter", cJSON_CreateNumber(x->max_iter));
            bad |= add(o, "steps_planned", cJSON_CreateNumber(x->steps_planned));
            bad |= add(o, "steps", cJSON_CreateNumber(x->nsteps));
            bad |= add(o, "solves", cJSON_CreateNumber(x->nsolves));
            cJSON *ca = cJSON_CreateArray();
            bad |= add(o, "criteria", ca);
            for (int k = 0; ca && !bad && k < x->ncriteria; k++) {
                const ncp_task_criterion *c = &t->criteria[k];
                cJSON *co = cJSON_CreateObject();
                if (!co || !cJSON_AddItemToArray(ca, co)) {
                    cJSON_Delete(co);
                    bad = 1;
                    break;
                }
                bad |= add(co, "label", cJSON_CreateString(c->label));
                bad |= add(co, "type", cJSON_CreateString(ncp_task_crit_name(c->type)));
                bad |= add(co, "value", jnum(x->checks[k].value));
                bad |= add(co, "min", jnum(x->checks[k].lo));
                bad |= add(co, "max", jnum(x->checks[k].hi));
                bad |= add(co, "pass", cJSON_CreateBool(x->checks[k].pass));
            }
            cJSON *so = cJSON_CreateObject();
            bad |= add(o, "solve_ms", so);
            if (so) {
                bad |= add(so, "p50", jnum(x->solve_p50));
                bad |= add(so, "p90", jnum(x->solve_p90));
                bad |= add(so, "p99", jnum(x->solve_p99));
                bad |= add(so, "max", jnum(x->solve_max));
            }
            bad |= add(o, "steps_over_budget", cJSON_CreateNumber(x->over_budget));
            bad |= add(o, "timeouts", cJSON_CreateNumber(x->timeouts));
            bad |= add(o, "max_penetration", jnum(x->max_penetration));
            bad |= add(o, "active_contacts_p50", jnum(x->active_p50));
            bad |= add(o, "active_contacts_max", jnum(x->active_max));
            bad |= add(o, "wall_s", jnum(x->wall_s));
        }
    }
    return ncp_out_write_json(path, root, bad, err);
}

static void md_num(FILE *f, const char *fmt, double x)
{
    if (isfinite(x)) fprintf(f, fmt, x);
    else fputs("–", f);
}

static int write_md(const char *dir, const ncp_scene *s, const ncp_task_result *r, int n,
                    const double load[3], const char *fig_note, ncp_error *err)
{
    const ncp_task_cfg *t = task_or_none(s);
    char path[4200], tmp[4300];
    FILE *f = NULL;
    int rc = tmp_open(dir, "task.md", path, tmp, &f, err);
    if (rc) return rc;
    fprintf(f, "# Task: %s\n\n%s\n\n", ncp_scene_name(s), t->description[0] ? t->description : "");
    if (n > 0)
        fprintf(f, "Per-step budget %g ms of solver time (setup + iterations), tol %g on %s, at most "
                "%d iterations; %d steps of %g s.\n\n", r[0].budget_ms, r[0].tol, stop_metric_name(),
                r[0].max_iter, r[0].steps_planned, ncp_scene_timestep(s));
    fprintf(f, "| solver | success | steps | solve ms p50 / p90 / p99 / max | over budget | timeouts "
               "| max penetration (mm) | load-bearing contacts p50 / max | wall (s) |\n"
               "|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        const ncp_task_result *x = &r[i];
        fprintf(f, "| %s | %s | %d/%d | ", x->solver,
                x->success ? "**yes**" : x->failed ? "no (failed)" : x->interrupted ? "no (interrupted)" : "no",
                x->nsteps, x->steps_planned);
        md_num(f, "%.3g", x->solve_p50);
        fputs(" / ", f);
        md_num(f, "%.3g", x->solve_p90);
        fputs(" / ", f);
        md_num(f, "%.3g", x->solve_p99);
        fputs(" / ", f);
        md_num(f, "%.3g", x->solve_max);
        fprintf(f, " | %d/%d | %d | ", x->over_budget, x->nsolves, x->timeouts);
        md_num(f, "%.3g", 1e3 * x->max_penetration);
        fputs(" | ", f);
        md_num(f, "%g", x->active_p50);
        fputs(" / ", f);
        md_num(f, "%g", x->active_max);
        fprintf(f, " | %.3g |\n", x->wall_s);
    }
    fprintf(f, "\n## Criteria\n\n| criterion | bounds |");
    for (int i = 0; i < n; i++) fprintf(f, " %s |", r[i].solver);
    fprintf(f, "\n|---|---|");
    for (int i = 0; i < n; i++) fprintf(f, "---|");
    fputc('\n', f);
    for (int k = 0; k < t->ncriteria; k++) {
        fprintf(f, "| %s | ", t->criteria[k].label);
        double lo = n ? r[0].checks[k].lo : NAN, hi = n ? r[0].checks[k].hi : NAN;
        fputc('[', f);
        md_num(f, "%g", lo);
        fputs(", ", f);
        md_num(f, "%g", hi);
        fputs("] |", f);
        for (int i = 0; i < n; i++) {
            fputc(' ', f);
            md_num(f, "%.4g", r[i].checks[k].value);
            fprintf(f, " %s |", r[i].checks[k].pass ? "pass" : "**fail**");
        }
        fputc('\n', f);
    }
    for (int i = 0; i < n; i++)
        if (r[i].failed) fprintf(f, "\n%s: the simulation failed: %s\n", r[i].solver, r[i].failure);
    fprintf(f, "\n%s Load average at the start (1, 5, 15 min): ", LOAD_NOTE);
    if (load) fprintf(f, "%.2f %.2f %.2f.\n", load[0], load[1], load[2]);
    else fprintf(f, "unknown.\n");
    fprintf(f, "\nColumns per step in steps.csv; every criterion's measured value in task.json.\n");
    if (fig_note) fprintf(f, "\n%s\n", fig_note);
    else
        fprintf(f, "\n![residual and penetration](task_timeseries.png)\n\n"
                   "![solve time per step](task_solve_hist.png)\n");
    return tmp_commit(f, tmp, path, err);
}

#define HIST_BINS 40

/* Data files of the figures: task_series.dat (one index block per solver: t, al_residual,
 * penetration in mm, solve_ms), task_hist.dat (one block per solver: bin centre and lower and
 * upper edges in ms, count; log-spaced bins over every solver's solve times) and
 * task_budget.dat (the budget in ms). */
static int write_fig_data(const char *dir, const ncp_task_result *r, int n, ncp_error *err)
{
    char path[4200];
    int rc = ncp_path_join(path, sizeof path, dir, "task_series.dat", err);
    if (rc) return rc;
    char tmp[4300];
    FILE *f = NULL;
    if ((rc = safe_open(path, tmp, &f, err))) return rc;
    fprintf(f, "# per solver (index block): t [s], al_residual, penetration [mm], solve_ms\n");
    for (int i = 0; i < n; i++) {
        fprintf(f, "# %s\n", r[i].solver);
        for (int k = 0; k < r[i].nsteps; k++) {
            const ncp_task_step *s = &r[i].steps[k];
            fprintf(f, "%s %.10g ", r[i].solver, s->t);
            put_num(f, s->al_residual);
            fprintf(f, " %.10g ", 1e3 * s->penetration);
            put_num(f, s->status < 0 ? NAN : s->solve_ms);
            fputc('\n', f);
        }
        if (r[i].nsteps == 0) fprintf(f, "%s nan nan nan nan\n", r[i].solver);
        fprintf(f, "\n\n");
    }
    if ((rc = tmp_commit(f, tmp, path, err))) return rc;
    double lo = INFINITY, hi = 0.0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < r[i].nsteps; k++)
            if (r[i].steps[k].status >= 0 && r[i].steps[k].solve_ms > 0.0) {
                lo = fmin(lo, r[i].steps[k].solve_ms);
                hi = fmax(hi, r[i].steps[k].solve_ms);
            }
    if (!(hi > 0.0)) lo = hi = r && n ? fmax(r[0].budget_ms, 1e-3) : 1.0;
    lo = fmin(lo, n ? r[0].budget_ms : lo) / 1.5;
    hi = fmax(hi, n ? r[0].budget_ms : hi) * 1.5;
    double llo = log10(lo), step = (log10(hi) - llo) / HIST_BINS;
    if ((rc = ncp_path_join(path, sizeof path, dir, "task_hist.dat", err))) return rc;
    if ((rc = safe_open(path, tmp, &f, err))) return rc;
    fprintf(f, "# per solver (index block): solver, bin centre [ms] (geometric), lower, upper, "
               "count of steps whose solve_ms falls in the bin (%d log-spaced bins)\n", HIST_BINS);
    for (int i = 0; i < n; i++) {
        int cnt[HIST_BINS] = {0};
        for (int k = 0; k < r[i].nsteps; k++) {
            const ncp_task_step *s = &r[i].steps[k];
            if (s->status < 0) continue;
            double x = s->solve_ms > lo ? s->solve_ms : lo;
            int b = (int)floor((log10(x) - llo) / step);
            cnt[b < 0 ? 0 : b >= HIST_BINS ? HIST_BINS - 1 : b]++;
        }
        for (int b = 0; b < HIST_BINS; b++) {
            double a = pow(10.0, llo + b * step), c = pow(10.0, llo + (b + 1) * step);
            fprintf(f, "%s %.6g %.6g %.6g %d\n", r[i].solver, sqrt(a * c), a, c, cnt[b]);
        }
        fprintf(f, "\n\n");
    }
    if ((rc = tmp_commit(f, tmp, path, err))) return rc;
    if ((rc = ncp_path_join(path, sizeof path, dir, "task_budget.dat", err))) return rc;
    if ((rc = safe_open(path, tmp, &f, err))) return rc;
    fprintf(f, "# per-step budget [ms]\n%.10g\n", n ? r[0].budget_ms : 0.0);
    if ((rc = tmp_commit(f, tmp, path, err))) return rc;
    return NCP_OK;
}

int ncp_task_write(const char *dir, const ncp_scene *s, const ncp_task_result *r, int n,
                   const double load[3], int figures, ncp_error *err)
{
    int rc = ncp_mkdir_p(dir, err);
    if (!rc) rc = write_csv(dir, r, n, err);
    if (!rc) rc = write_json(dir, s, r, n, load, err);
    char note[1100] = "";
    /* The residual panel is logarithmic: with no contact solve in the simulated steps (a short
     * --quick run before the first contact) gnuplot has no point to draw and fails. */
    int solves = 0;
    for (int i = 0; i < n; i++) solves += r[i].nsolves;
    if (!rc && figures && n > 0 && solves == 0) {
        snprintf(note, sizeof note, "Figures not drawn: no step of the run had a contact solve.");
    } else if (!rc && figures && n > 0) {
        rc = write_fig_data(dir, r, n, err);
        char title[200];
        snprintf(title, sizeof title, "task %s, budget %g ms per step", ncp_scene_name(s), r[0].budget_ms);
        if (!rc) rc = ncp_plot_script("task_timeseries", dir, title, err);
        if (!rc) rc = ncp_plot_script("task_solve_hist", dir, title, err);
        if (rc == NCP_PLOT_SKIPPED) {
            snprintf(note, sizeof note, "Figures skipped: %s", err->msg);
            memset(err, 0, sizeof *err);
            rc = NCP_OK;
        } else if (rc && rc != NCP_ERR_NOMEM) {
            /* the numbers stand without the drawing: a gnuplot failure goes into task.md and
             * on stderr, the tables are still written */
            snprintf(note, sizeof note, "Figures failed: %s", err->msg);
            fprintf(stderr, "ncpbench: %s\n", err->msg);
            memset(err, 0, sizeof *err);
            rc = NCP_OK;
        }
    } else if (!rc) {
        snprintf(note, sizeof note, "Figures not drawn (--no-figures or no results).");
    }
    if (!rc) rc = write_md(dir, s, r, n, load, note[0] ? note : NULL, err);
    return rc;
}
