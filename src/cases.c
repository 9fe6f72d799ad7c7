/* Single-step case generation (see cases.h). */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "json_util.h"
#include "spatial.h"

static const double PI = 3.14159265358979323846;

/* ---- parsing (benchmark.cases) ---- */

static int fail(const char *where, ncp_error *err, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(const char *where, ncp_error *err, const char *key, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ncp_error_set(err, NCP_ERR_INPUT, "%s: benchmark.cases%s%s: %s", where, key ? "." : "",
                         key ? key : "", msg);
}

static int free_root(const ncp_model *m, int b)
{
    return m->bodies[b].joint == NCP_JOINT_FREE && m->bodies[b].parent < 0;
}

static int find_body(const ncp_model *m, const char *name)
{
    for (int b = 0; b < m->nbodies; b++)
        if (strcmp(m->bodies[b].name, name) == 0) return b;
    return -1;
}

/* `prefix` ("" or "screw.") completes the JSON path in messages. */
static int get_num(const cJSON *o, const char *prefix, const char *key, double def, double lo,
                   const char *where, ncp_error *err, double *out)
{
    const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    if (!v) {
        *out = def;
        return NCP_OK;
    }
    char label[64];
    snprintf(label, sizeof label, "%s%s", prefix, key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo)
        return fail(where, err, label, "must be a finite number >= %g", lo);
    *out = v->valuedouble;
    return NCP_OK;
}

static int get_count(const cJSON *o, const char *key, int def, int lo, const char *where,
                     ncp_error *err, int *out)
{
    const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    if (!v) {
        *out = def;
        return NCP_OK;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > 1e6)
        return fail(where, err, key, "must be an integer in [%d, 1000000]", lo);
    *out = (int)v->valuedouble;
    return NCP_OK;
}

static int get_vec3(const cJSON *o, const char *prefix, const char *key, const double *def,
                    const char *where, ncp_error *err, double out[3])
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    char label[64];
    snprintf(label, sizeof label, "%s%s", prefix, key);
    if (!v) memcpy(out, def, 3 * sizeof(double));
    else if (ncp_json_numbers(v, 3, out) != 3)
        return fail(where, err, label, "must be an array of 3 finite numbers");
    return NCP_OK;
}

static int check_keys(const cJSON *o, const char *const *keys, const char *prefix, const char *where,
                      ncp_error *err)
{
    for (const cJSON *it = o->child; it; it = it->next) {
        int ok = 0;
        for (int i = 0; keys[i]; i++)
            if (strcmp(keys[i], it->string) == 0) ok = 1;
        for (const cJSON *pr = o->child; pr != it && ok; pr = pr->next)
            if (strcmp(pr->string, it->string) == 0) ok = 2;
        char k[96];
        snprintf(k, sizeof k, "%s%s", prefix, it->string);
        if (ok == 2) return fail(where, err, k, "duplicate key (each key may appear once)");
        if (!ok) {
            char list[400] = "";
            for (int i = 0; keys[i]; i++) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", keys[i]);
            }
            return fail(where, err, k, "unknown key (expected one of: %s)", list);
        }
    }
    return NCP_OK;
}

int ncp_cases_parse(const cJSON *obj, const char *where, const ncp_model *m, ncp_cases_cfg *cfg,
                    ncp_error *err)
{
    static const char *const keys[] = {"configurations", "wrenches", "settle_steps", "bodies",
                                       "screw", "position_noise", "rotation_noise", "force",
                                       "torque", NULL};
    static const char *const skeys[] = {"body", "axis", "point", "lead", "angle", NULL};
    memset(cfg, 0, sizeof *cfg);
    cfg->screw_body = -1;
    if (obj && !cJSON_IsObject(obj)) return fail(where, err, NULL, "must be an object");
    int rc = obj ? check_keys(obj, keys, "", where, err) : NCP_OK;
    if (!rc) rc = get_count(obj, "configurations", 10, 1, where, err, &cfg->configurations);
    if (!rc) rc = get_count(obj, "wrenches", 10, 1, where, err, &cfg->wrenches);
    if (!rc) rc = get_count(obj, "settle_steps", 0, 0, where, err, &cfg->settle_steps);
    if (!rc) rc = get_num(obj, "", "position_noise", 0.0, 0.0, where, err, &cfg->position_noise);
    if (!rc) rc = get_num(obj, "", "rotation_noise", 0.0, 0.0, where, err, &cfg->rotation_noise);
    if (!rc) rc = get_num(obj, "", "force", 1.0, 0.0, where, err, &cfg->force);
    if (!rc) rc = get_num(obj, "", "torque", 0.1, 0.0, where, err, &cfg->torque);
    if (rc) return rc;
    if ((double)cfg->configurations * cfg->wrenches > 1e6)
        return fail(where, err, "wrenches", "configurations x wrenches must be at most 1000000");
    const cJSON *bl = obj ? cJSON_GetObjectItemCaseSensitive(obj, "bodies") : NULL;
    if (bl) {
        if (!cJSON_IsArray(bl) || cJSON_GetArraySize(bl) < 1 || cJSON_GetArraySize(bl) > NCP_CASES_MAX_BODIES)
            return fail(where, err, "bodies", "must be an array of 1 to %d body names", NCP_CASES_MAX_BODIES);
        int i = 0;
        for (const cJSON *it = bl->child; it; it = it->next, i++) {
            char k[32];
            snprintf(k, sizeof k, "bodies[%d]", i);
            int b = cJSON_IsString(it) ? find_body(m, it->valuestring) : -1;
            if (b < 0) return fail(where, err, k, "must name a body of the scene");
            if (!free_root(m, b)) return fail(where, err, k, "body \"%s\" must be a dynamic free body", it->valuestring);
            for (int j = 0; j < i; j++)
                if (cfg->bodies[j] == b) return fail(where, err, k, "body \"%s\" is listed twice", it->valuestring);
            cfg->bodies[i] = b;
        }
        cfg->nbodies = i;
    } else {
        for (int b = 0; b < m->nbodies && cfg->nbodies < NCP_CASES_MAX_BODIES; b++)
            if (free_root(m, b)) cfg->bodies[cfg->nbodies++] = b;
        if (cfg->nbodies == 0)
            return fail(where, err, "bodies", "the scene has no dynamic free body to apply wrenches to");
    }
    const cJSON *sc = obj ? cJSON_GetObjectItemCaseSensitive(obj, "screw") : NULL;
    if (sc) {
        static const double z[3] = {0, 0, 1}, o[3] = {0, 0, 0};
        if (!cJSON_IsObject(sc)) return fail(where, err, "screw", "must be an object {body, axis, point, lead, angle}");
        rc = check_keys(sc, skeys, "screw.", where, err);
        if (rc) return rc;
        const cJSON *bn = cJSON_GetObjectItemCaseSensitive(sc, "body");
        int b = cJSON_IsString(bn) ? find_body(m, bn->valuestring) : -1;
        if (b < 0 || !free_root(m, b))
            return fail(where, err, "screw.body", "must name a dynamic free body of the scene");
        cfg->screw_body = b;
        rc = get_vec3(sc, "screw.", "axis", z, where, err, cfg->screw_axis);
        if (!rc) rc = get_vec3(sc, "screw.", "point", o, where, err, cfg->screw_point);
        if (!rc) rc = get_num(sc, "screw.", "lead", 0.0, -INFINITY, where, err, &cfg->screw_lead);
        if (rc) return rc;
        if (ncp_v3_normalize(cfg->screw_axis) < 1e-12)
            return fail(where, err, "screw.axis", "must be a non-zero vector");
        const cJSON *an = cJSON_GetObjectItemCaseSensitive(sc, "angle");
        if (!an) {
            cfg->screw_angle[0] = 0.0;
            cfg->screw_angle[1] = 2.0 * PI;
        } else if (cJSON_IsArray(an) && cJSON_GetArraySize(an) == 2 && cJSON_IsNumber(an->child) &&
                   cJSON_IsNumber(an->child->next) && isfinite(an->child->valuedouble) &&
                   isfinite(an->child->next->valuedouble) &&
                   an->child->valuedouble <= an->child->next->valuedouble) {
            cfg->screw_angle[0] = an->child->valuedouble;
            cfg->screw_angle[1] = an->child->next->valuedouble;
        } else {
            return fail(where, err, "screw.angle", "must be [lo, hi] in radians with lo <= hi");
        }
    }
    return NCP_OK;
}

/* ---- random numbers: splitmix64 (deterministic, no global state) ---- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double rng_uniform(rng *r) { return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }

static void rng_direction(rng *r, double d[3])
{
    double z = 2.0 * rng_uniform(r) - 1.0, ph = 2.0 * PI * rng_uniform(r), s = sqrt(fmax(0.0, 1.0 - z * z));
    ncp_v3_set(d, s * cos(ph), s * sin(ph), z);
}

/* ---- capture ---- */

int ncp_cases_apply_wrench(const ncp_world *w, int body, const double force[3],
                           const double torque[3], ncp_problem *p, ncp_error *err)
{
    int dofs[NCP_MAX_CHAIN_DOF];
    double Jl[3 * NCP_MAX_CHAIN_DOF], Ja[3 * NCP_MAX_CHAIN_DOF], com[3];
    ncp_world_body_position(w, body, com);
    int nd = ncp_world_body_jacobian(w, body, com, dofs, Jl, Ja);
    for (int k = 0; k < nd; k++) {
        double tau = 0.0;
        for (int r = 0; r < 3; r++) tau += Jl[r * nd + k] * force[r] + Ja[r * nd + k] * torque[r];
        p->b[dofs[k]] += p->h * tau;
    }
    return ncp_problem_compute_dual(p, err);
}

typedef struct case_ctx {
    const ncp_scene *scene;
    const ncp_cases_cfg *cfg;
    const ncp_capture_opts *opts;
    ncp_world *w;
    rng *r;
    int config;
    int ncases;     /* to capture in total */
    int captured;
    int hooked;
    ncp_capture_fn fn;
    void *user;
} case_ctx;

static int case_hook(void *vctx, ncp_problem *p, ncp_error *err)
{
    case_ctx *c = vctx;
    const ncp_cases_cfg *cfg = c->cfg;
    const ncp_model *m = c->w->model;
    double g = ncp_v3_norm(m->gravity);
    c->hooked = 1;
    for (int j = 0; j < cfg->wrenches && c->captured < c->ncases; j++) {
        if (c->opts->interrupt && *c->opts->interrupt) return NCP_OK;
        ncp_problem q;
        ncp_problem_init(&q);
        int rc = ncp_problem_copy(&q, p, err);
        for (int i = 0; i < cfg->nbodies && !rc; i++) {
            const ncp_body_model *bd = &m->bodies[cfg->bodies[i]];
            double rg = sqrt((bd->inertia[0] + bd->inertia[4] + bd->inertia[8]) / (2.0 * bd->mass));
            double f[3], t[3];
            rng_direction(c->r, f);
            ncp_v3_scale(f, rng_uniform(c->r) * cfg->force * bd->mass * g, f);
            rng_direction(c->r, t);
            ncp_v3_scale(t, rng_uniform(c->r) * cfg->torque * bd->mass * g * rg, t);
            rc = ncp_cases_apply_wrench(c->w, cfg->bodies[i], f, t, &q, err);
        }
        char name[32];
        int k = c->config * cfg->wrenches + j;
        snprintf(name, sizeof name, "%06d", k);
        if (!rc) {
            free(q.name);
            free(q.scene);
            q.name = ncp_strdup(err, name);
            q.scene = ncp_strdup(err, ncp_scene_name(c->scene));
            if (!q.name || !q.scene) rc = NCP_ERR_NOMEM;
        }
        q.step = -1;
        q.case_index = k;
        q.seed = c->opts->seed;
        if (!rc) rc = c->fn(c->user, &q, err);
        ncp_problem_free(&q);
        if (rc) return rc;
        c->captured++;
    }
    return NCP_OK;
}

/* Turns body b about the axis through `point` by the rotation R (quaternion dq) and moves it
 * by `shift`. */
static void move_body(ncp_world *w, int b, const double point[3], const double dq[4], const double shift[3])
{
    double x[3], q[4], R[9], d[3], nq[4];
    ncp_world_body_position(w, b, x);
    ncp_world_body_orientation(w, b, q);
    ncp_quat_to_mat(dq, R);
    ncp_v3_sub(x, point, d);
    ncp_m3_mulv(R, d, x);
    ncp_v3_add(x, point, x);
    ncp_v3_add(x, shift, x);
    ncp_quat_mul(dq, q, nq);
    ncp_world_set_body_state(w, b, x, nq, NULL, NULL);
}

int ncp_cases_capture(const ncp_scene *s, const ncp_cases_cfg *cfg, const ncp_capture_opts *o,
                      int ncases, ncp_capture_fn fn, void *ctx, ncp_error *err)
{
    const ncp_bench_cfg *bc = ncp_scene_bench(s);
    const char *dname = o->driver ? o->driver : bc->driver;
    const ncp_solver_desc *drv = ncp_solver_find(dname);
    if (!drv)
        return ncp_error_set(err, NCP_ERR_INPUT, "unknown driver solver \"%s\" (see `ncpbench list`)", dname);
    const ncp_params *params = NULL;
    for (int i = 0; i < bc->nparams; i++)
        if (strcmp(bc->params[i].solver, drv->name) == 0) params = &bc->params[i].params;
    ncp_step_opts so = {drv, params, bc->driver_budget, 1, o->interrupt};
    int total = cfg->configurations * cfg->wrenches;
    if (ncases <= 0 || ncases > total) ncases = total;
    case_ctx cc = {s, cfg, o, NULL, NULL, 0, ncases, 0, 0, fn, ctx};
    int rc = NCP_OK;
    for (int i = 0; i < cfg->configurations && cc.captured < ncases && !rc; i++) {
        if (o->interrupt && *o->interrupt) break;
        rng r = {o->seed * 0x9E3779B97F4A7C15ull + (uint64_t)(i + 1) * 0xD1B54A32D192ED03ull};
        ncp_world *w = NULL;
        rc = ncp_world_create(ncp_scene_model(s), &w, err);
        if (rc) break;
        if (cfg->screw_body >= 0) {
            double lo = cfg->screw_angle[0], hi = cfg->screw_angle[1];
            double a = lo + (i + rng_uniform(&r)) * (hi - lo) / cfg->configurations, dq[4], sh[3];
            ncp_quat_from_axis_angle(cfg->screw_axis, a, dq);
            ncp_v3_scale(cfg->screw_axis, cfg->screw_lead * a / (2.0 * PI), sh);
            move_body(w, cfg->screw_body, cfg->screw_point, dq, sh);
        }
        for (int k = 0; k < cfg->nbodies; k++) {
            double d[3], ax[3], x[3], dq[4];
            rng_direction(&r, d);
            ncp_v3_scale(d, cfg->position_noise * cbrt(rng_uniform(&r)), d); /* uniform in the ball */
            rng_direction(&r, ax);
            ncp_quat_from_axis_angle(ax, cfg->rotation_noise * rng_uniform(&r), dq);
            ncp_world_body_position(w, cfg->bodies[k], x);
            move_body(w, cfg->bodies[k], x, dq, d);
        }
        ncp_world_kinematics(w);
        ncp_step_info info;
        for (int k = 0; k < cfg->settle_steps && !rc; k++) {
            if (o->interrupt && *o->interrupt) break;
            rc = ncp_world_step(w, &so, NULL, NULL, &info, err);
        }
        if (!rc && !(o->interrupt && *o->interrupt)) {
            cc.w = w;
            cc.r = &r;
            cc.config = i;
            cc.hooked = 0;
            rc = ncp_world_step(w, &so, case_hook, &cc, &info, err);
            if (!rc && !cc.hooked && !(o->interrupt && *o->interrupt))
                rc = ncp_error_set(err, NCP_ERR_INPUT, "configuration %d has no contacts after %d settle "
                                   "steps (expected bodies in contact: check the placement, "
                                   "benchmark.cases.screw and settle_steps)", i, cfg->settle_steps);
        }
        ncp_world_free(w);
    }
    if (rc) ncp_error_prefix(err, "scene %s, cases: ", ncp_scene_name(s));
    return rc;
}
