/* Scene files: JSON text -> validated model (world.h) and benchmark section (scene.h).
 *
 * The schema is documented in scenes/README.md. Validation is strict: every key must be known
 * (a typo must not silently fall back to a default), every value has its type and range
 * checked, and every message reads "<file>: <json.path>: <what is wrong> (expected ...)". */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "scene/cases.h"
#include "util/json_scan.h"
#include "util/json_util.h"
#include "util/membudget.h"
#include "scene/scene.h"
#include "scene/scene_json.h"
#include "scene/ranges.h"
#include "solve/catalog.h"
#include "solve/harness.h"
#include "solve/params.h"
#include "scene/robot.h"
#include "core/spatial.h"
#include "sim/world.h"

struct ncp_scene {
    char *where;        /* file name (or label) used in messages */
    char *text;         /* the JSON as read */
    char name[NCP_NAME_MAX];
    char *description;
    ncp_model model;
    ncp_bench_cfg bench;
    ncp_cases_cfg cases; /* benchmark.cases (capture "cases"; cases.h) */
    int has_task;
    ncp_task_cfg task;   /* "task" (scene.h) */
    double max_memory;   /* bytes; <= 0: the default budget (scene.h) */
    const ncp_solver_catalog *catalog; /* its solver names were checked against (may be NULL) */
};

static int need_object(ncp_json_ctx *c, const cJSON *v, const char *path)
{
    return cJSON_IsObject(v) ? NCP_OK : ncp_json_expect(c, path, v, "an object");
}

/* A member that must be present. */
static const cJSON *required(ncp_json_ctx *c, const cJSON *obj, const char *path, const char *key,
                             const char *expected)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        char p[NCP_JSON_PATH_MAX];
        ncp_json_key(p, path, key);
        ncp_json_fail(c, p, "missing (expected %s)", expected);
    }
    return v;
}

static const char *const combine_names[] = {"min", "max", "mean", "geometric", NULL};

static int parse_materials(ncp_json_ctx *c, const cJSON *root, ncp_model *m)
{
    const cJSON *mats = cJSON_GetObjectItemCaseSensitive(root, "materials");
    int n = 0;
    if (mats) {
        if (!cJSON_IsArray(mats)) return ncp_json_expect(c, "materials", mats, "an array of {name, friction}");
        n = cJSON_GetArraySize(mats);
    }
    /* index 0 is the implicit "default" material (friction 0.5, documented), which a scene may
     * redefine by listing a material named "default" */
    m->materials = ncp_calloc(c->err, (size_t)n + 1, sizeof(ncp_material));
    if (!m->materials) return NCP_ERR_NOMEM;
    snprintf(m->materials[0].name, NCP_NAME_MAX, "default");
    m->materials[0].friction = 0.5;
    m->nmaterials = 1;
    int i = 0, default_seen = 0;
    for (const cJSON *it = mats ? mats->child : NULL; it; it = it->next, i++) {
        static const char *const keys[] = {"name", "friction", "stiffness", "dissipation", NULL};
        char p[NCP_JSON_PATH_MAX], name[NCP_NAME_MAX];
        double mu, stiff, diss;
        ncp_json_index(p, "materials", i);
        int rc = ncp_json_check_keys(c, it, p, keys);
        if (!rc) rc = ncp_json_get_string(c, it, p, "name", 1, "", name, sizeof name);
        if (!rc) rc = ncp_json_get_number(c, it, p, "friction", 1, NCP_JSON_NONNEG, 0.0, &mu);
        /* compliant contact (Castro et al. 2023 eq. 2, used by sap): absent = rigid (0), no dissipation */
        if (!rc) rc = ncp_json_get_number(c, it, p, "stiffness", 0, NCP_JSON_POSITIVE, 0.0, &stiff);
        if (!rc) rc = ncp_json_get_number(c, it, p, "dissipation", 0, NCP_JSON_NONNEG, 0.0, &diss);
        if (rc) return rc;
        int k = ncp_scene_find_material(m, name);
        if (k == 0) k = default_seen++ ? 1 : 0; /* "default" may be redefined once */
        if (k > 0) {
            char q[NCP_JSON_PATH_MAX];
            ncp_json_key(q, p, "name");
            return ncp_json_fail(c, q, "material \"%s\" is defined twice (expected unique names)", name);
        }
        if (k < 0) k = m->nmaterials++;
        snprintf(m->materials[k].name, NCP_NAME_MAX, "%s", name);
        m->materials[k].friction = mu;
        m->materials[k].stiffness = stiff;
        m->materials[k].dissipation = diss;
    }
    int nm = m->nmaterials;
    m->pair_friction = ncp_calloc(c->err, (size_t)nm * nm, sizeof(double));
    if (!m->pair_friction) return NCP_ERR_NOMEM;
    for (int a = 0; a < nm; a++)
        for (int b = 0; b < nm; b++) {
            double x = m->materials[a].friction, y = m->materials[b].friction, f;
            switch (m->combine) {
            case NCP_COMBINE_MAX: f = fmax(x, y); break;
            case NCP_COMBINE_MEAN: f = 0.5 * (x + y); break;
            case NCP_COMBINE_GEOMETRIC: f = sqrt(x * y); break;
            default: f = fmin(x, y);
            }
            m->pair_friction[a * nm + b] = f;
        }
    const cJSON *pairs = cJSON_GetObjectItemCaseSensitive(root, "material_pairs");
    if (!pairs) return NCP_OK;
    if (!cJSON_IsArray(pairs))
        return ncp_json_expect(c, "material_pairs", pairs, "an array of {materials: [a, b], friction}");
    i = 0;
    for (const cJSON *it = pairs->child; it; it = it->next, i++) {
        static const char *const keys[] = {"materials", "friction", NULL};
        char p[NCP_JSON_PATH_MAX], q[NCP_JSON_PATH_MAX];
        double mu;
        ncp_json_index(p, "material_pairs", i);
        int rc = ncp_json_check_keys(c, it, p, keys);
        if (!rc) rc = ncp_json_get_number(c, it, p, "friction", 1, NCP_JSON_NONNEG, 0.0, &mu);
        if (rc) return rc;
        const cJSON *names = required(c, it, p, "materials", "an array of two material names");
        if (!names) return NCP_ERR_INPUT;
        ncp_json_key(q, p, "materials");
        if (!cJSON_IsArray(names) || cJSON_GetArraySize(names) != 2 ||
            !cJSON_IsString(names->child) || !cJSON_IsString(names->child->next))
            return ncp_json_expect(c, q, names, "an array of two material names");
        int ab[2];
        for (int k = 0; k < 2; k++) {
            const char *nm_k = (k ? names->child->next : names->child)->valuestring;
            ab[k] = ncp_scene_find_material(m, nm_k);
            if (ab[k] < 0) {
                char r[NCP_JSON_PATH_MAX];
                ncp_json_index(r, q, k);
                return ncp_json_fail(c, r, "unknown material \"%s\" (expected a name from materials, or "
                            "\"default\")", nm_k);
            }
        }
        m->pair_friction[ab[0] * nm + ab[1]] = mu;
        m->pair_friction[ab[1] * nm + ab[0]] = mu;
    }
    return NCP_OK;
}

static int parse_contact(ncp_json_ctx *c, const cJSON *root, ncp_model *m)
{
    static const char *const keys[] = {"margin", "erp", "max_recovery_velocity", "friction_combine", NULL};
    const cJSON *ct = cJSON_GetObjectItemCaseSensitive(root, "contact");
    static const cJSON empty = {0};
    int rc = NCP_OK;
    if (ct) {
        rc = ncp_json_check_keys(c, ct, "contact", keys);
        if (rc) return rc;
    } else {
        ct = &empty;
    }
    if (!rc) rc = ncp_json_get_number(c, ct, "contact", "margin", 0, NCP_JSON_NONNEG, 0.005, &m->margin);
    if (!rc) rc = ncp_json_get_number(c, ct, "contact", "erp", 0, NCP_JSON_UNIT, 0.2, &m->erp);
    if (!rc) rc = ncp_json_get_number(c, ct, "contact", "max_recovery_velocity", 0, NCP_JSON_NONNEG, 1.0, &m->max_recovery);
    if (!rc) rc = ncp_json_get_enum(c, ct, "contact", "friction_combine", 0, combine_names, NCP_COMBINE_MIN, &m->combine);
    return rc;
}

static int parse_bodies(ncp_json_ctx *c, const cJSON *root, ncp_model *m)
{
    const cJSON *bodies = required(c, root, "", "bodies", "a non-empty array of bodies");
    if (!bodies) return NCP_ERR_INPUT;
    if (!cJSON_IsArray(bodies) || cJSON_GetArraySize(bodies) < 1)
        return ncp_json_expect(c, "bodies", bodies, "a non-empty array of bodies");
    int nb = cJSON_GetArraySize(bodies), ns = 0;
    for (const cJSON *b = bodies->child; b; b = b->next) {
        const cJSON *shs = cJSON_IsObject(b) ? cJSON_GetObjectItemCaseSensitive(b, "shapes") : NULL;
        if (cJSON_IsArray(shs)) ns += cJSON_GetArraySize(shs);
    }
    m->bodies = ncp_calloc(c->err, (size_t)nb, sizeof(ncp_body_model));
    m->shapes = ncp_calloc(c->err, (size_t)ns, sizeof(ncp_shape_model));
    double *density = ncp_calloc(c->err, (size_t)nb, sizeof(double));
    double *mass = ncp_calloc(c->err, (size_t)nb, sizeof(double));
    int rc = (!m->bodies || !m->shapes || !density || !mass) ? NCP_ERR_NOMEM : NCP_OK;
    m->nbodies = nb;
    static const char *const k_static[] = {"name", "type", "position", "quat", "axis", "angle", "shapes", "motion", NULL};
    static const char *const k_dyn[] = {"name", "type", "position", "quat", "axis", "angle", "shapes",
                                        "mass", "density", "velocity", "angular_velocity",
                                        "force", "torque", NULL};
    static const char *const types[] = {"static", "dynamic", NULL};
    static const double zero[3] = {0, 0, 0};
    int i = 0, s = 0;
    for (const cJSON *b = bodies->child; b && !rc; b = b->next, i++) {
        ncp_body_model *bd = &m->bodies[i];
        char p[NCP_JSON_PATH_MAX], q[NCP_JSON_PATH_MAX];
        ncp_json_index(p, "bodies", i);
        rc = need_object(c, b, p);
        if (!rc) rc = ncp_json_get_enum(c, b, p, "type", 1, types, 0, &bd->dynamic);
        if (!rc && !bd->dynamic)
            for (int k = 7; k_dyn[k] && !rc; k++)
                if (cJSON_GetObjectItemCaseSensitive(b, k_dyn[k])) {
                    ncp_json_key(q, p, k_dyn[k]);
                    rc = ncp_json_fail(c, q, "only dynamic bodies take %s (this body is static)", k_dyn[k]);
                }
        if (!rc) rc = ncp_json_check_keys(c, b, p, bd->dynamic ? k_dyn : k_static);
        if (!rc) rc = ncp_json_get_string(c, b, p, "name", 1, "", bd->name, sizeof bd->name);
        for (int k = 0; k < i && !rc; k++)
            if (strcmp(m->bodies[k].name, bd->name) == 0) {
                ncp_json_key(q, p, "name");
                rc = ncp_json_fail(c, q, "body name \"%s\" is already used by bodies[%d] (expected unique names)",
                          bd->name, k);
            }
        if (!rc) rc = ncp_json_get_vec(c, b, p, "position", 0, 3, zero, bd->pos0);
        if (!rc) rc = ncp_scene_get_orientation(c, b, p, bd->quat0);
        const cJSON *mv = bd->dynamic ? NULL : cJSON_GetObjectItemCaseSensitive(b, "motion");
        if (!rc && mv) { /* prescribed motion of a static body (motion.h) */
            ncp_json_key(q, p, "motion");
            rc = ncp_motion_parse(mv, c->where, q, &bd->motion, c->err);
        }
        if (!rc && bd->dynamic) {
            const cJSON *vm = cJSON_GetObjectItemCaseSensitive(b, "mass");
            const cJSON *vd = cJSON_GetObjectItemCaseSensitive(b, "density");
            if (vm && vd) {
                ncp_json_key(q, p, "density");
                rc = ncp_json_fail(c, q, "give either mass or density, not both");
            } else if (!vm && !vd) {
                ncp_json_key(q, p, "mass");
                rc = ncp_json_fail(c, q, "missing (expected a positive mass in kg, or a density in kg/m^3)");
            } else if (vm) {
                rc = ncp_json_get_number(c, b, p, "mass", 1, NCP_JSON_POSITIVE, 0.0, &mass[i]);
            } else {
                rc = ncp_json_get_number(c, b, p, "density", 1, NCP_JSON_POSITIVE, 0.0, &density[i]);
            }
            if (!rc) rc = ncp_json_get_vec(c, b, p, "velocity", 0, 3, zero, bd->vel0);
            if (!rc) rc = ncp_json_get_vec(c, b, p, "angular_velocity", 0, 3, zero, bd->omega0);
            if (!rc) rc = ncp_json_get_vec(c, b, p, "force", 0, 3, zero, bd->force);
            if (!rc) rc = ncp_json_get_vec(c, b, p, "torque", 0, 3, zero, bd->torque);
        }
        if (rc) break;
        const cJSON *shs = required(c, b, p, "shapes", "a non-empty array of shapes");
        if (!shs) {
            rc = NCP_ERR_INPUT;
            break;
        }
        ncp_json_key(q, p, "shapes");
        if (!cJSON_IsArray(shs) || cJSON_GetArraySize(shs) < 1) {
            rc = ncp_json_expect(c, q, shs, "a non-empty array of shapes");
            break;
        }
        bd->shape0 = s;
        int j = 0, finite = 0;
        for (const cJSON *sh = shs->child; sh && !rc; sh = sh->next, j++, s++) {
            char r[NCP_JSON_PATH_MAX];
            ncp_json_index(r, q, j);
            rc = ncp_scene_parse_shape(sh, c->where, r, m, i, &m->shapes[s], c->err);
            if (m->shapes[s].type != NCP_SHAPE_PLANE) finite++;
        }
        bd->nshapes = j;
        if (!rc && bd->dynamic && !finite)
            rc = ncp_json_fail(c, q, "a dynamic body needs at least one sphere, capsule or box");
    }
    m->nshapes = s;
    if (!rc) {
        rc = ncp_model_finalize(m, density, mass, c->err);
        if (rc) ncp_error_prefix(c->err, "%s: bodies: ", c->where);
    }
    free(density);
    free(mass);
    return rc;
}

static int parse_budget(ncp_json_ctx *c, const cJSON *obj, const char *path, const char *key,
                        ncp_budget *b)
{
    static const char *const keys[] = {"tol", "max_iter", "budget_ms", NULL};
    /* defaults = the harness's (solve/harness.h): no time limit */
    b->tol = NCP_DEFAULT_TOL;
    b->max_iter = NCP_DEFAULT_MAX_ITER;
    b->time_ms = 0.0;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return NCP_OK;
    char p[NCP_JSON_PATH_MAX];
    ncp_json_key(p, path, key);
    int rc = ncp_json_check_keys(c, v, p, keys);
    if (!rc) rc = ncp_json_get_number(c, v, p, "tol", 0, NCP_JSON_NONNEG, NCP_DEFAULT_TOL, &b->tol);
    if (!rc) rc = ncp_json_get_int(c, v, p, "max_iter", 0, 1, NCP_DEFAULT_MAX_ITER, &b->max_iter);
    if (!rc) rc = ncp_json_get_number(c, v, p, "budget_ms", 0, NCP_JSON_NONNEG, 0.0, &b->time_ms);
    return rc;
}

static int solver_name(ncp_json_ctx *c, const ncp_solver_catalog *cat, const cJSON *v,
                       const char *path, char *out)
{
    if (!cJSON_IsString(v) || strlen(v->valuestring) >= 32)
        return ncp_json_expect(c, path, v, "a registered solver name");
    if (cat && !ncp_catalog_find(cat, v->valuestring)) {
        char list[1024] = "";
        for (int i = 0; i < cat->n; i++) {
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", cat->solvers[i]->name);
        }
        const char *near = ncp_catalog_closest(cat, v->valuestring);
        return ncp_json_fail(c, path, "unknown solver \"%s\"%s%s%s (expected one of: %s)",
                             v->valuestring, near ? " (did you mean " : "", near ? near : "",
                             near ? "?)" : "", list);
    }
    snprintf(out, 32, "%s", v->valuestring);
    return NCP_OK;
}

/* A solver variant (solve/catalog.h: "pgs@omega=1.3") of benchmark.solvers, checked as
 * --solvers checks it; a duplicate of an earlier item of out[0..k) is refused. */
static int variant_name(ncp_json_ctx *c, const ncp_solver_catalog *cat, const cJSON *v,
                        const char *path, char (*out)[32], int k)
{
    ncp_solver_variant sv, other;
    ncp_error e = {0};
    if (strlen(v->valuestring) >= 32)
        return ncp_json_expect(c, path, v, "a solver variant name of at most 31 characters");
    if (cat && ncp_catalog_variant(cat, v->valuestring, &sv, &e))
        return ncp_json_fail(c, path, "%s", e.msg);
    for (int i = 0; cat && i < k; i++)
        if (ncp_is_variant_name(out[i]) && !ncp_catalog_variant(cat, out[i], &other, &e) &&
            ncp_variant_same(&sv, &other))
            return ncp_json_fail(c, path, "solver variant \"%s\" is listed twice (as \"%s\")",
                                 v->valuestring, out[i]);
    snprintf(out[k], 32, "%s", v->valuestring);
    return NCP_OK;
}

/* An array of unique registered solver names (non-empty if nonempty) into out[*n]; with
 * variants, solver variants too (benchmark.solvers). */
static int solver_list(ncp_json_ctx *c, const ncp_solver_catalog *cat, const cJSON *sl,
                       const char *path, int nonempty, int variants, char (*out)[32], int *n)
{
    int rc = NCP_OK, i = 0;
    if (!cJSON_IsArray(sl) || (nonempty && cJSON_GetArraySize(sl) == 0))
        return ncp_json_expect(c, path, sl, nonempty ? "a non-empty array of solver names" : "an array of solver names");
    if (cJSON_GetArraySize(sl) > NCP_MAX_BENCH_SOLVERS)
        return ncp_json_fail(c, path, "too many solvers (at most %d)", NCP_MAX_BENCH_SOLVERS);
    for (const cJSON *it = sl->child; it && !rc; it = it->next, i++) {
        char p[NCP_JSON_PATH_MAX];
        ncp_json_index(p, path, i);
        if (variants && cJSON_IsString(it) && ncp_is_variant_name(it->valuestring))
            rc = variant_name(c, cat, it, p, out, i);
        else
            rc = solver_name(c, cat, it, p, out[i]);
        for (int k = 0; k < i && !rc; k++)
            if (strcmp(out[k], out[i]) == 0) rc = ncp_json_fail(c, p, "solver \"%s\" is listed twice", out[i]);
    }
    *n = i;
    return rc;
}

static int parse_params(ncp_json_ctx *c, const ncp_solver_catalog *cat, const cJSON *bench,
                        ncp_bench_cfg *cfg)
{
    const cJSON *ps = cJSON_GetObjectItemCaseSensitive(bench, "params");
    if (!ps) return NCP_OK;
    int rc = need_object(c, ps, "benchmark.params");
    for (const cJSON *it = ps ? ps->child : NULL; it && !rc; it = it->next) {
        char p[NCP_JSON_PATH_MAX];
        ncp_json_key(p, "benchmark.params", it->string);
        /* the key is a solver name */
        cJSON key = {0};
        key.type = cJSON_String;
        key.valuestring = it->string;
        ncp_solver_params_entry *e = &cfg->params[cfg->nparams];
        if (cfg->nparams >= NCP_MAX_BENCH_SOLVERS)
            return ncp_json_fail(c, p, "too many entries (at most %d solvers)", NCP_MAX_BENCH_SOLVERS);
        for (int k = 0; k < cfg->nparams; k++)
            if (strcmp(cfg->params[k].solver, it->string) == 0)
                return ncp_json_fail(c, p, "duplicate key (each key may appear once)");
        rc = solver_name(c, cat, &key, p, e->solver);
        if (!rc) rc = need_object(c, it, p);
        if (rc) return rc;
        const ncp_solver_desc *sd = cat ? ncp_catalog_find(cat, e->solver) : NULL;
        memset(&e->params, 0, sizeof e->params);
        for (const cJSON *pv = it->child; pv && !rc; pv = pv->next) {
            char q[NCP_JSON_PATH_MAX];
            ncp_json_key(q, p, pv->string);
            int known = !sd; /* without a catalog, parameter names are not checked */
            char list[512] = "";
            for (int k = 0; sd && sd->params && sd->params[k].name; k++) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", k ? ", " : "", sd->params[k].name);
                if (strcmp(sd->params[k].name, pv->string) == 0) known = 1;
            }
            if (!known)
                return ncp_json_fail(c, q, "unknown parameter of solver %s (expected one of: %s)", e->solver,
                            list[0] ? list : "none, this solver takes no parameters");
            for (const cJSON *pr = it->child; pr != pv; pr = pr->next)
                if (strcmp(pr->string, pv->string) == 0) return ncp_json_fail(c, q, "duplicate key (each key may appear once)");
            if (!cJSON_IsNumber(pv) || !isfinite(pv->valuedouble)) return ncp_json_expect(c, q, pv, "a finite number");
            rc = ncp_params_set(&e->params, pv->string, pv->valuedouble, c->err);
        }
        cfg->nparams++;
    }
    return rc;
}

static int parse_bench(ncp_json_ctx *c, const ncp_solver_catalog *cat, const cJSON *root,
                       const ncp_model *m, ncp_bench_cfg *cfg,
                       ncp_cases_cfg *cases)
{
    static const char *const keys[] = {"capture", "steps", "quick_steps", "skip", "every", "driver",
                                       "driver_budget", "solvers", "budget", "params", "cases", NULL};
    static const char *const captures[] = {"trajectory", "cases", NULL};
    static const cJSON empty = {0};
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "benchmark");
    int rc = NCP_OK, cap = 0;
    memset(cfg, 0, sizeof *cfg);
    if (b) {
        rc = ncp_json_check_keys(c, b, "benchmark", keys);
        if (rc) return rc;
    } else {
        b = &empty;
    }
    rc = ncp_json_get_enum(c, b, "benchmark", "capture", 0, captures, 0, &cap);
    if (rc) return rc;
    const cJSON *cj = cJSON_GetObjectItemCaseSensitive(b, "cases");
    if (cap != 1 && cj)
        return ncp_json_fail(c, "benchmark.cases", "only with \"capture\": \"cases\" (this scene captures a trajectory)");
    if (cap == 1 && (rc = ncp_cases_parse(cj, c->where, m, cases, c->err))) return rc;
    snprintf(cfg->capture, sizeof cfg->capture, "%s", captures[cap]);
    rc = ncp_json_get_int(c, b, "benchmark", "skip", 0, 0, 0, &cfg->skip);
    if (!rc) rc = ncp_json_get_int(c, b, "benchmark", "every", 0, 1, 1, &cfg->every);
    if (rc) return rc;
    if (cfg->skip >= m->nsteps)
        return ncp_json_fail(c, "benchmark.skip", "must be less than the scene's %d steps, got %d", m->nsteps, cfg->skip);
    /* candidate steps k = skip + i every < nsteps (steps without contacts are not captured) */
    int fit = (m->nsteps - cfg->skip - 1) / cfg->every + 1;
    if (cap == 1) fit = cases->configurations * cases->wrenches; /* steps counts cases */
    rc = ncp_json_get_int(c, b, "benchmark", "steps", 0, 1, fit, &cfg->steps);
    if (!rc && cap == 1 && cfg->steps > fit)
        return ncp_json_fail(c, "benchmark.steps", "must be at most the %d cases (configurations x wrenches), "
                    "got %d", fit, cfg->steps);
    if (!rc && cfg->steps > fit)
        return ncp_json_fail(c, "benchmark.steps", "must be at most %d (the captures that fit in the scene's "
                    "%d steps with skip %d and every %d), got %d", fit, m->nsteps, cfg->skip,
                    cfg->every, cfg->steps);
    if (!rc)
        rc = ncp_json_get_int(c, b, "benchmark", "quick_steps", 0, 1, cfg->steps < 10 ? cfg->steps : 10,
                              &cfg->quick_steps);
    if (!rc && cfg->quick_steps > cfg->steps)
        return ncp_json_fail(c, "benchmark.quick_steps", "must be at most benchmark.steps (%d), got %d",
                    cfg->steps, cfg->quick_steps);
    if (rc) return rc;
    const cJSON *drv = cJSON_GetObjectItemCaseSensitive(b, "driver");
    if (drv) rc = solver_name(c, cat, drv, "benchmark.driver", cfg->driver);
    else snprintf(cfg->driver, sizeof cfg->driver, "pgs");
    if (!rc) rc = parse_budget(c, b, "benchmark", "driver_budget", &cfg->driver_budget);
    if (!rc) rc = parse_budget(c, b, "benchmark", "budget", &cfg->budget);
    if (rc) return rc;
    const cJSON *sl = cJSON_GetObjectItemCaseSensitive(b, "solvers");
    if (sl) rc = solver_list(c, cat, sl, "benchmark.solvers", 0, 1, cfg->solvers, &cfg->nsolvers);
    if (!rc) rc = parse_params(c, cat, b, cfg);
    return rc;
}

/* ---- task (scene.h ncp_task_cfg; scenes/README.md "Task") ---- */

static const char *const crit_names[] = {"displacement", "position", "upright", "in_region",
                                         "penetration", "speed", NULL};

const char *ncp_task_crit_name(int type)
{
    return type >= 0 && type < NCP_TASK_CRIT_COUNT ? crit_names[type] : NULL;
}

/* A body named at path (scene body names, robot links as "robot/link"); -1 after an error. */
static int task_body(ncp_json_ctx *c, const ncp_model *m, const cJSON *v, const char *path)
{
    if (!cJSON_IsString(v)) {
        ncp_json_expect(c, path, v, "a body name (robot links as \"robot/link\")");
        return -1;
    }
    for (int b = 0; b < m->nbodies; b++)
        if (strcmp(m->bodies[b].name, v->valuestring) == 0) return b;
    ncp_json_fail(c, path, "unknown body \"%s\" (expected the name of a scene body, or "
                  "\"robot/link\" for a robot link)", v->valuestring);
    return -1;
}

/* A non-zero 3-vector, normalised. */
static int task_direction(ncp_json_ctx *c, const cJSON *o, const char *path, const char *key,
                          double out[3])
{
    int rc = ncp_json_get_vec(c, o, path, key, 1, 3, NULL, out);
    if (!rc && ncp_v3_normalize(out) < 1e-12) {
        char p[NCP_JSON_PATH_MAX];
        ncp_json_key(p, path, key);
        return ncp_json_fail(c, p, "must be a non-zero vector, got [0, 0, 0]");
    }
    return rc;
}

static int parse_criterion(ncp_json_ctx *c, const ncp_model *m, const cJSON *o, const char *path,
                           int index, ncp_task_criterion *k)
{
    static const char *const keys[NCP_TASK_CRIT_COUNT][8] = {
        {"type", "body", "axis", "min", "max", NULL},
        {"type", "body", "target", "tolerance", NULL},
        {"type", "body", "axis", "world", "max_angle", NULL},
        {"type", "bodies", "prefix", "min", "max", "fraction", NULL},
        {"type", "max", NULL},
        {"type", "body", "max", NULL}};
    char p[NCP_JSON_PATH_MAX];
    memset(k, 0, sizeof *k);
    k->body = -1;
    int rc = need_object(c, o, path);
    if (!rc) rc = ncp_json_get_enum(c, o, path, "type", 1, crit_names, 0, &k->type);
    if (!rc) rc = ncp_json_check_keys(c, o, path, keys[k->type]);
    if (rc) return rc;
    const cJSON *bv = cJSON_GetObjectItemCaseSensitive(o, "body");
    if (k->type != NCP_CRIT_IN_REGION && k->type != NCP_CRIT_PENETRATION) {
        ncp_json_key(p, path, "body");
        if (!required(c, o, path, "body", "a body name (robot links as \"robot/link\")")) return NCP_ERR_INPUT;
        if ((k->body = task_body(c, m, bv, p)) < 0) return NCP_ERR_INPUT;
    }
    switch (k->type) {
    case NCP_CRIT_DISPLACEMENT:
        rc = task_direction(c, o, path, "axis", k->axis);
        k->has_min = cJSON_GetObjectItemCaseSensitive(o, "min") != NULL;
        k->has_max = cJSON_GetObjectItemCaseSensitive(o, "max") != NULL;
        if (!rc) rc = ncp_json_get_number(c, o, path, "min", 0, NCP_JSON_FINITE, 0.0, &k->min);
        if (!rc) rc = ncp_json_get_number(c, o, path, "max", 0, NCP_JSON_FINITE, 0.0, &k->max);
        if (!rc && !k->has_min && !k->has_max) {
            ncp_json_key(p, path, "min");
            return ncp_json_fail(c, p, "missing (a displacement criterion needs min, max or both, in m)");
        }
        if (!rc && k->has_min && k->has_max && k->min > k->max) {
            ncp_json_key(p, path, "max");
            return ncp_json_fail(c, p, "must be >= min (%g), got %g", k->min, k->max);
        }
        break;
    case NCP_CRIT_POSITION:
        rc = ncp_json_get_vec(c, o, path, "target", 1, 3, NULL, k->target);
        if (!rc) rc = ncp_json_get_quantity(c, o, path, "tolerance", 1, NCP_JSON_NONNEG, "m", 0.0, &k->tolerance);
        break;
    case NCP_CRIT_UPRIGHT:
        rc = task_direction(c, o, path, "axis", k->axis);
        if (!rc) rc = task_direction(c, o, path, "world", k->world);
        if (!rc) rc = ncp_json_get_quantity(c, o, path, "max_angle", 1, NCP_JSON_NONNEG, "rad", 0.0, &k->max_angle);
        break;
    case NCP_CRIT_IN_REGION: {
        const cJSON *bl = cJSON_GetObjectItemCaseSensitive(o, "bodies");
        const cJSON *pf = cJSON_GetObjectItemCaseSensitive(o, "prefix");
        if ((bl != NULL) == (pf != NULL)) {
            ncp_json_key(p, path, bl ? "prefix" : "bodies");
            return ncp_json_fail(c, p, bl ? "give either bodies or prefix, not both"
                                          : "missing (expected bodies: [names] or prefix: \"p\")");
        }
        k->bodies = ncp_malloc(c->err, (size_t)(m->nbodies > 0 ? m->nbodies : 1), sizeof(int));
        if (!k->bodies) return NCP_ERR_NOMEM;
        if (bl) {
            ncp_json_key(p, path, "bodies");
            if (!cJSON_IsArray(bl) || cJSON_GetArraySize(bl) == 0)
                return ncp_json_expect(c, p, bl, "a non-empty array of body names");
            int i = 0;
            for (const cJSON *it = bl->child; it; it = it->next, i++) {
                char q[NCP_JSON_PATH_MAX];
                ncp_json_index(q, p, i);
                int b = task_body(c, m, it, q);
                if (b < 0) return NCP_ERR_INPUT;
                for (int j = 0; j < k->nbodies; j++)
                    if (k->bodies[j] == b) return ncp_json_fail(c, q, "body \"%s\" is listed twice", it->valuestring);
                if (k->nbodies >= m->nbodies) return ncp_json_fail(c, q, "more bodies than the scene has");
                k->bodies[k->nbodies++] = b;
            }
        } else {
            char pre[NCP_NAME_MAX];
            rc = ncp_json_get_string(c, o, path, "prefix", 1, "", pre, sizeof pre);
            if (rc) return rc;
            size_t l = strlen(pre);
            for (int b = 0; b < m->nbodies; b++)
                if (strncmp(m->bodies[b].name, pre, l) == 0) k->bodies[k->nbodies++] = b;
            if (k->nbodies == 0) {
                ncp_json_key(p, path, "prefix");
                return ncp_json_fail(c, p, "no body name starts with \"%s\" (expected a prefix of "
                                     "scene body names)", pre);
            }
        }
        rc = ncp_json_get_vec(c, o, path, "min", 1, 3, NULL, k->lo);
        if (!rc) rc = ncp_json_get_vec(c, o, path, "max", 1, 3, NULL, k->hi);
        for (int i = 0; i < 3 && !rc; i++)
            if (k->lo[i] > k->hi[i]) {
                char q[NCP_JSON_PATH_MAX];
                ncp_json_key(p, path, "max");
                ncp_json_index(q, p, i);
                return ncp_json_fail(c, q, "must be >= min[%d] (%g), got %g", i, k->lo[i], k->hi[i]);
            }
        if (!rc) rc = ncp_json_get_number(c, o, path, "fraction", 0, NCP_JSON_UNIT, 1.0, &k->fraction);
        if (!rc && !(k->fraction > 0.0)) {
            ncp_json_key(p, path, "fraction");
            return ncp_json_fail(c, p, "must be in (0, 1], got 0");
        }
        break;
    }
    case NCP_CRIT_PENETRATION:
        rc = ncp_json_get_quantity(c, o, path, "max", 1, NCP_JSON_NONNEG, "m", 0.0, &k->max);
        break;
    case NCP_CRIT_SPEED:
        rc = ncp_json_get_quantity(c, o, path, "max", 1, NCP_JSON_NONNEG, "m/s", 0.0, &k->max);
        break;
    }
    if (rc) return rc;
    snprintf(k->label, sizeof k->label, "criteria[%d] %s%s%s", index, crit_names[k->type],
             k->body >= 0 ? " " : "", k->body >= 0 ? m->bodies[k->body].name : "");
    return NCP_OK;
}

static void task_free(ncp_task_cfg *t)
{
    for (int i = 0; i < t->ncriteria; i++) free(t->criteria[i].bodies);
    free(t->criteria);
    t->criteria = NULL;
    t->ncriteria = 0;
}

static int parse_task(ncp_json_ctx *c, const ncp_solver_catalog *cat, const cJSON *root,
                      ncp_scene *sc)
{
    static const char *const keys[] = {"description", "step_budget_ms", "solvers", "tol",
                                       "max_iter", "criteria", NULL};
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(root, "task");
    if (!t) return NCP_OK;
    ncp_task_cfg *cfg = &sc->task;
    const ncp_model *m = &sc->model;
    sc->has_task = 1;
    int rc = ncp_json_check_keys(c, t, "task", keys);
    if (!rc) {
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(t, "description");
        if (d && !cJSON_IsString(d)) return ncp_json_expect(c, "task.description", d, "a string");
        snprintf(cfg->description, sizeof cfg->description, "%s", d ? d->valuestring : "");
    }
    if (!rc) rc = ncp_json_get_quantity(c, t, "task", "step_budget_ms", 1, NCP_JSON_POSITIVE, "ms", 0.0,
                                        &cfg->step_budget_ms);
    /* the per-step stopping rule defaults to the driver's */
    cfg->budget = sc->bench.driver_budget;
    if (!rc) rc = ncp_json_get_number(c, t, "task", "tol", 0, NCP_JSON_NONNEG, cfg->budget.tol, &cfg->budget.tol);
    if (!rc) rc = ncp_json_get_int(c, t, "task", "max_iter", 0, 1, cfg->budget.max_iter, &cfg->budget.max_iter);
    cfg->budget.time_ms = cfg->step_budget_ms;
    if (rc) return rc;
    const cJSON *sl = cJSON_GetObjectItemCaseSensitive(t, "solvers");
    if (sl && (rc = solver_list(c, cat, sl, "task.solvers", 1, 0, cfg->solvers, &cfg->nsolvers))) return rc;
    const cJSON *cr = cJSON_GetObjectItemCaseSensitive(t, "criteria");
    if (!cr) return ncp_json_fail(c, "task.criteria", "missing (expected a non-empty array of criteria, "
                                  "each {\"type\": %s, ...})", "displacement|position|upright|in_region|penetration|speed");
    if (!cJSON_IsArray(cr) || cJSON_GetArraySize(cr) == 0)
        return ncp_json_expect(c, "task.criteria", cr, "a non-empty array of criteria");
    int n = cJSON_GetArraySize(cr);
    cfg->criteria = ncp_calloc(c->err, (size_t)n, sizeof *cfg->criteria);
    if (!cfg->criteria) return NCP_ERR_NOMEM;
    int i = 0;
    for (const cJSON *it = cr->child; it && !rc; it = it->next, i++) {
        char p[NCP_JSON_PATH_MAX];
        ncp_json_index(p, "task.criteria", i);
        rc = parse_criterion(c, m, it, p, i, &cfg->criteria[i]);
        cfg->ncriteria = i + 1; /* owned bodies freed with the scene, also after an error */
    }
    return rc;
}

static int parse_root(ncp_json_ctx *c, const ncp_solver_catalog *cat, const cJSON *root,
                      ncp_scene *sc)
{
    static const char *const keys[] = {"name", "description", "timestep", "duration", "steps",
                                       "gravity", "materials", "material_pairs", "contact",
                                       "bodies", "benchmark", "dynamics", "robots",
                                       "constraints", "wrenches", "task", NULL};
    static const double g0[3] = {0, 0, -9.81};
    ncp_model *m = &sc->model;
    int rc = ncp_json_check_keys(c, root, "", keys); /* "(top level)" if not an object */
    if (!rc) rc = ncp_json_get_string(c, root, "", "name", 1, "", sc->name, sizeof sc->name);
    if (rc) return rc;
    /* the name becomes a directory (results/<name>/) and an HDF5 attribute */
    rc = ncp_json_check_name(c, "name", sc->name, NULL);
    if (rc) return rc;
    if (sc->name[0] == '.') return ncp_json_fail(c, "name", "must not start with '.', got \"%s\"", sc->name);
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "description");
    if (d && !cJSON_IsString(d)) return ncp_json_expect(c, "description", d, "a string");
    sc->description = ncp_strdup(c->err, d ? d->valuestring : "");
    if (!sc->description) return NCP_ERR_NOMEM;
    rc = ncp_json_get_number(c, root, "", "timestep", 1, NCP_JSON_POSITIVE, 0.0, &m->h);
    if (rc) return rc;
    const cJSON *vd = cJSON_GetObjectItemCaseSensitive(root, "duration");
    const cJSON *vs = cJSON_GetObjectItemCaseSensitive(root, "steps");
    if (vd && vs) return ncp_json_fail(c, "steps", "give either duration or steps, not both");
    if (!vd && !vs) return ncp_json_fail(c, "duration", "missing (expected the simulated time in s, or \"steps\")");
    if (vs) {
        rc = ncp_json_get_int(c, root, "", "steps", 1, 1, 0, &m->nsteps);
    } else {
        double T;
        rc = ncp_json_get_number(c, root, "", "duration", 1, NCP_JSON_POSITIVE, 0.0, &T);
        if (!rc) {
            double n = floor(T / m->h + 0.5); /* nearest whole step: 1.0/(1/240) may round down */
            if (n < 1.0 || n > 1e9)
                return ncp_json_fail(c, "duration", "must be between one timestep and 1e9 timesteps, got %g s "
                            "(%g steps)", T, T / m->h);
            m->nsteps = (int)n;
        }
    }
    if (!rc) rc = ncp_json_get_vec(c, root, "", "gravity", 0, 3, g0, m->gravity);
    if (!rc) rc = parse_contact(c, root, m); /* before materials: the combine rule */
    if (!rc) rc = parse_materials(c, root, m);
    if (!rc) rc = parse_bodies(c, root, m);
    if (!rc) rc = ncp_scene_parse_multibody(root, c->where, sc->max_memory, m, c->err); /* robot.c */
    if (!rc) rc = parse_bench(c, cat, root, m, &sc->bench, &sc->cases);
    if (!rc) rc = parse_task(c, cat, root, sc); /* after bench: its driver budget */
    return rc;
}

int ncp_scene_parse(const char *json_text, const char *where, const ncp_solver_catalog *solvers,
                    ncp_scene **out, ncp_error *err)
{
    return ncp_scene_parse_within(json_text, where, solvers, 0.0, out, err);
}

int ncp_scene_parse_within(const char *json_text, const char *where,
                           const ncp_solver_catalog *solvers, double max_memory, ncp_scene **out,
                           ncp_error *err)
{
    *out = NULL;
    if (!where) where = "(scene)";
    ncp_scene *sc = ncp_calloc(err, 1, sizeof *sc);
    if (!sc) return NCP_ERR_NOMEM;
    sc->catalog = solvers;
    sc->max_memory = max_memory;
    sc->where = ncp_strdup(err, where);
    sc->text = ncp_strdup(err, json_text);
    if (!sc->where || !sc->text) {
        ncp_scene_free(sc);
        char what[1100];
        snprintf(what, sizeof what, "scene %s: a copy of its text", where);
        return ncp_mem_refuse(max_memory, what, err->msg, err);
    }
    /* malformed, or a tree above the budget: refused before cJSON allocates (json_scan.h); the
     * text is held twice meanwhile (the caller's and sc->text) */
    cJSON *root = NULL;
    const double held = 2.0 * ((double)strlen(json_text) + 1.0);
    int rc = ncp_json_parse_doc(json_text, where, max_memory, held, &root, err);
    if (rc) {
        ncp_scene_free(sc);
        return rc;
    }
    ncp_json_ctx c = {where, err};
    /* the parser checks types, signs and its own bounds (with their messages); then every
     * number is held to its physical range (ranges.h), before the scene is simulated. Shapes
     * are built while parsing (SDF sampling): their sizes first. */
    rc = ncp_scene_check_ranges(root, where, "", NCP_RANGES_SHAPES_EARLY, err);
    if (!rc) rc = parse_root(&c, solvers, root, sc);
    if (!rc) rc = ncp_scene_check_ranges(root, where, "", NCP_RANGES_ALL, err);
    if (rc == NCP_ERR_NOMEM) { /* under --max-memory's cap: the budget's refusal */
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "bodies");
        char what[1200], detail[1100], tb[32];
        ncp_json_scan scan;
        ncp_json_scan_text(json_text, &scan);
        snprintf(what, sizeof what, "scene %s: building its model (%d bodies in \"bodies\")", where,
                 cJSON_GetArraySize(b));
        snprintf(detail, sizeof detail, "%s, while its JSON text and tree held %s", err->msg,
                 ncp_mem_format(held + scan.tree_bytes, tb, sizeof tb));
        rc = ncp_mem_refuse(max_memory, what, detail, err);
    }
    cJSON_Delete(root);
    if (rc) {
        ncp_scene_free(sc);
        return rc;
    }
    *out = sc;
    return NCP_OK;
}

int ncp_scene_load(const char *path, const ncp_solver_catalog *solvers, ncp_scene **out,
                   ncp_error *err)
{
    return ncp_scene_load_within(path, solvers, 0.0, out, err);
}

int ncp_scene_load_within(const char *path, const ncp_solver_catalog *solvers, double max_memory,
                          ncp_scene **out, ncp_error *err)
{
    *out = NULL;
    char *buf = NULL;
    int rc = ncp_scene_check_file(path, "scene file", err);
    /* a scene is text; anything larger than 64 MB is a mistake */
    if (!rc) rc = ncp_json_read_text(path, "scene file", (size_t)64 << 20, &buf, err);
    if (!rc) rc = ncp_scene_parse_within(buf, path, solvers, max_memory, out, err);
    free(buf);
    return rc;
}

void ncp_scene_free(ncp_scene *s)
{
    if (!s) return;
    free(s->where);
    free(s->text);
    free(s->description);
    task_free(&s->task);
    ncp_model_free(&s->model);
    free(s);
}

const char *ncp_scene_name(const ncp_scene *s) { return s->name; }
const char *ncp_scene_where(const ncp_scene *s) { return s->where; }
const char *ncp_scene_text(const ncp_scene *s) { return s->text; }
const ncp_bench_cfg *ncp_scene_bench(const ncp_scene *s) { return &s->bench; }
double ncp_scene_timestep(const ncp_scene *s) { return s->model.h; }
const ncp_model *ncp_scene_model(const ncp_scene *s) { return &s->model; }
const ncp_cases_cfg *ncp_scene_cases(const ncp_scene *s) { return &s->cases; }
const ncp_task_cfg *ncp_scene_task(const ncp_scene *s) { return s->has_task ? &s->task : NULL; }
const ncp_solver_catalog *ncp_scene_catalog(const ncp_scene *s) { return s->catalog; }
void ncp_scene_set_max_memory(ncp_scene *s, double bytes) { s->max_memory = bytes; }
double ncp_scene_max_memory(const ncp_scene *s) { return s->max_memory; }
void ncp_scene_set_driver_time(ncp_scene *s, double ms)
{
    if (ms > 0.0) s->bench.driver_budget.time_ms = ms;
}

int ncp_solver_params_add(ncp_solver_params_entry *entries, int *n, int cap, const char *spec,
                          ncp_error *err)
{
    const char *dot = strchr(spec, '.'), *eq = strchr(spec, '=');
    if (!dot || !eq || eq < dot || dot == spec || eq == dot + 1)
        return ncp_error_set(err, NCP_ERR_INPUT, "--param: expected SOLVER.NAME=VALUE, got '%s'",
                             spec);
    char solver[sizeof entries[0].solver], name[48];
    size_t ls = (size_t)(dot - spec), ln = (size_t)(eq - dot - 1);
    if (ls >= sizeof solver || ln >= sizeof name)
        return ncp_error_set(err, NCP_ERR_INPUT, "--param: name too long in '%s'", spec);
    memcpy(solver, spec, ls);
    solver[ls] = '\0';
    memcpy(name, dot + 1, ln);
    name[ln] = '\0';
    char *end;
    errno = 0;
    double v = strtod(eq + 1, &end);
    if (errno || end == eq + 1 || *end || !isfinite(v))
        return ncp_error_set(err, NCP_ERR_INPUT, "--param %s: '%s' is not a finite number", spec,
                             eq + 1);
    ncp_solver_params_entry *e = ncp_solver_params_slot(entries, n, cap, solver, err);
    if (!e) return err->code;
    int rc = ncp_params_set(&e->params, name, v, err);
    if (rc) ncp_error_prefix(err, "--param: ");
    return rc;
}

ncp_solver_params_entry *ncp_solver_params_slot(ncp_solver_params_entry *entries, int *n, int cap,
                                                const char *solver, ncp_error *err)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(entries[i].solver, solver) == 0) return &entries[i];
    if (*n >= cap) {
        ncp_error_set(err, NCP_ERR_INPUT, "too many solvers with parameters (at most %d)", cap);
        return NULL;
    }
    ncp_solver_params_entry *e = &entries[(*n)++];
    memset(e, 0, sizeof *e);
    snprintf(e->solver, sizeof e->solver, "%s", solver);
    return e;
}

const ncp_params *ncp_solver_params_find(const ncp_solver_params_entry *entries, int n,
                                         const char *solver)
{
    for (int i = 0; i < n; i++)
        if (strcmp(entries[i].solver, solver) == 0) return &entries[i].params;
    return NULL;
}
