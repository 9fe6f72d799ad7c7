/* Scene files: JSON text -> validated model (world.h) and benchmark section (scene.h).
 *
 * The schema is documented in scenes/README.md. Validation is strict: every key must be known
 * (a typo must not silently fall back to a default), every value has its type and range
 * checked, and every message reads "<file>: <json.path>: <what is wrong> (expected ...)". */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cases.h"
#include "scene.h"
#include "sdf_scene.h"
#include "robot.h"
#include "spatial.h"
#include "world.h"

struct ncp_scene {
    char *where;        /* file name (or label) used in messages */
    char *text;         /* the JSON as read */
    char name[NCP_NAME_MAX];
    char *description;
    ncp_model model;
    ncp_bench_cfg bench;
    ncp_cases_cfg cases; /* benchmark.cases (capture "cases"; cases.h) */
};

/* Validation context: where the text came from, and the error sink. */
typedef struct jctx {
    const char *where;
    ncp_error *err;
} jctx;

#define PATH_MAX_LEN 256

static int fail(jctx *c, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(jctx *c, const char *path, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s: %s", c->where, path, msg);
}

/* Paths longer than PATH_MAX_LEN (only with absurd nesting) end in "..." */
static void path_key(char *out, const char *path, const char *key)
{
    int n = path[0] ? snprintf(out, PATH_MAX_LEN, "%s.%s", path, key)
                    : snprintf(out, PATH_MAX_LEN, "%s", key);
    if (n < 0 || n >= PATH_MAX_LEN) memcpy(out + PATH_MAX_LEN - 4, "...", 4);
}

static void path_index(char *out, const char *path, int i)
{
    int n = snprintf(out, PATH_MAX_LEN, "%s[%d]", path, i);
    if (n < 0 || n >= PATH_MAX_LEN) memcpy(out + PATH_MAX_LEN - 4, "...", 4);
}

/* What a JSON value is, for "got ..." in messages. */
static const char *describe(const cJSON *v, char *buf, size_t n)
{
    if (!v) snprintf(buf, n, "nothing");
    else if (cJSON_IsNumber(v)) snprintf(buf, n, "%.17g", v->valuedouble);
    else if (cJSON_IsString(v)) snprintf(buf, n, "the string \"%.40s\"", v->valuestring);
    else if (cJSON_IsBool(v)) snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else if (cJSON_IsNull(v)) snprintf(buf, n, "null");
    else if (cJSON_IsArray(v)) snprintf(buf, n, "an array of %d elements", cJSON_GetArraySize(v));
    else if (cJSON_IsObject(v)) snprintf(buf, n, "an object");
    else snprintf(buf, n, "an invalid value");
    return buf;
}

static int expect_fail(jctx *c, const char *path, const cJSON *v, const char *expected)
{
    char got[96];
    return fail(c, path, "must be %s, got %s", expected, describe(v, got, sizeof got));
}

/* Unknown and duplicate keys. `allowed` is NULL-terminated. */
static int check_keys(jctx *c, const cJSON *obj, const char *path, const char *const *allowed)
{
    for (const cJSON *it = obj->child; it; it = it->next) {
        char p[PATH_MAX_LEN];
        path_key(p, path, it->string);
        int known = 0;
        for (int i = 0; allowed[i]; i++)
            if (strcmp(allowed[i], it->string) == 0) known = 1;
        if (!known) {
            char list[512] = "";
            for (int i = 0; allowed[i]; i++) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", allowed[i]);
            }
            return fail(c, p, "unknown key (expected one of: %s)", list);
        }
        for (const cJSON *prev = obj->child; prev != it; prev = prev->next)
            if (strcmp(prev->string, it->string) == 0)
                return fail(c, p, "duplicate key (each key may appear once)");
    }
    return NCP_OK;
}

static int need_object(jctx *c, const cJSON *v, const char *path)
{
    return cJSON_IsObject(v) ? NCP_OK : expect_fail(c, path, v, "an object");
}

/* A member that must be present. */
static const cJSON *required(jctx *c, const cJSON *obj, const char *path, const char *key,
                             const char *expected)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        char p[PATH_MAX_LEN];
        path_key(p, path, key);
        fail(c, p, "missing (expected %s)", expected);
    }
    return v;
}

/* Numbers. kind: 0 any finite, 1 positive, 2 non-negative, 3 in [0, 1]. */
static int get_number(jctx *c, const cJSON *obj, const char *path, const char *key, int req,
                      int kind, double def, double *out)
{
    static const char *what[] = {"a finite number", "a positive number", "a non-negative number",
                                 "a number in [0, 1]"};
    char p[PATH_MAX_LEN];
    path_key(p, path, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (req) return fail(c, p, "missing (expected %s)", what[kind]);
        *out = def;
        return NCP_OK;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) return expect_fail(c, p, v, what[kind]);
    double x = v->valuedouble;
    if ((kind == 1 && !(x > 0.0)) || (kind == 2 && !(x >= 0.0)) || (kind == 3 && !(x >= 0.0 && x <= 1.0)))
        return expect_fail(c, p, v, what[kind]);
    *out = x;
    return NCP_OK;
}

/* Integers >= lo. */
static int get_int(jctx *c, const cJSON *obj, const char *path, const char *key, int req, int lo,
                   int def, int *out)
{
    char p[PATH_MAX_LEN], what[64];
    path_key(p, path, key);
    snprintf(what, sizeof what, "an integer >= %d", lo);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (req) return fail(c, p, "missing (expected %s)", what);
        *out = def;
        return NCP_OK;
    }
    double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!isfinite(x) || x != floor(x) || x < lo || x > 1e9) return expect_fail(c, p, v, what);
    *out = (int)x;
    return NCP_OK;
}

/* Strings (non-empty, shorter than cap). */
static int get_string(jctx *c, const cJSON *obj, const char *path, const char *key, int req,
                      const char *def, char *out, size_t cap)
{
    char p[PATH_MAX_LEN], what[64];
    path_key(p, path, key);
    snprintf(what, sizeof what, "a non-empty string of at most %zu characters", cap - 1);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (req) return fail(c, p, "missing (expected %s)", what);
        snprintf(out, cap, "%s", def);
        return NCP_OK;
    }
    if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= cap)
        return expect_fail(c, p, v, what);
    snprintf(out, cap, "%s", v->valuestring);
    return NCP_OK;
}

/* Arrays of n finite numbers. */
static int get_vec(jctx *c, const cJSON *obj, const char *path, const char *key, int req, int n,
                   const double *def, double *out)
{
    char p[PATH_MAX_LEN], what[64];
    path_key(p, path, key);
    snprintf(what, sizeof what, "an array of %d finite numbers", n);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (req) return fail(c, p, "missing (expected %s)", what);
        memcpy(out, def, (size_t)n * sizeof(double));
        return NCP_OK;
    }
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n) return expect_fail(c, p, v, what);
    int i = 0;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble)) {
            char q[PATH_MAX_LEN];
            path_index(q, p, i);
            return expect_fail(c, q, it, "a finite number");
        }
        out[i] = it->valuedouble;
    }
    return NCP_OK;
}

/* A string from a fixed list; returns its index in *out. */
static int get_enum(jctx *c, const cJSON *obj, const char *path, const char *key, int req,
                    const char *const *names, int def, int *out)
{
    char p[PATH_MAX_LEN], list[256] = "";
    path_key(p, path, key);
    for (int i = 0; names[i]; i++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", names[i]);
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (req) return fail(c, p, "missing (expected one of: %s)", list);
        *out = def;
        return NCP_OK;
    }
    if (cJSON_IsString(v))
        for (int i = 0; names[i]; i++)
            if (strcmp(names[i], v->valuestring) == 0) {
                *out = i;
                return NCP_OK;
            }
    char got[96];
    return fail(c, p, "must be one of: %s; got %s", list, describe(v, got, sizeof got));
}

/* Orientation: "quat" [w, x, y, z] (normalised here) or "axis" + "angle" (rad); identity if
 * neither is given. */
static int get_orientation(jctx *c, const cJSON *obj, const char *path, double q[4])
{
    const cJSON *vq = cJSON_GetObjectItemCaseSensitive(obj, "quat");
    const cJSON *va = cJSON_GetObjectItemCaseSensitive(obj, "axis");
    const cJSON *vg = cJSON_GetObjectItemCaseSensitive(obj, "angle");
    char p[PATH_MAX_LEN];
    static const double ident[4] = {1, 0, 0, 0};
    if (vq && (va || vg)) {
        path_key(p, path, va ? "axis" : "angle");
        return fail(c, p, "give the orientation either as quat or as axis and angle, not both");
    }
    if (vq || !(va || vg)) {
        int rc = get_vec(c, obj, path, "quat", 0, 4, ident, q);
        if (rc) return rc;
        if (ncp_quat_normalize(q) < 1e-12) {
            path_key(p, path, "quat");
            return fail(c, p, "must be a non-zero quaternion [w, x, y, z], got a zero quaternion");
        }
        return NCP_OK;
    }
    double axis[3], angle;
    int rc = get_vec(c, obj, path, "axis", 1, 3, NULL, axis);
    if (!rc) rc = get_number(c, obj, path, "angle", 1, 0, 0.0, &angle);
    if (rc) return rc;
    if (ncp_v3_norm(axis) < 1e-12) {
        path_key(p, path, "axis");
        return fail(c, p, "must be a non-zero rotation axis, got [0, 0, 0]");
    }
    ncp_quat_from_axis_angle(axis, angle, q);
    return NCP_OK;
}

static int find_material(const ncp_model *m, const char *name)
{
    for (int i = 0; i < m->nmaterials; i++)
        if (strcmp(m->materials[i].name, name) == 0) return i;
    return -1;
}

/* ---- sections ---- */

static const char *const combine_names[] = {"min", "max", "mean", "geometric", NULL};

static int parse_materials(jctx *c, const cJSON *root, ncp_model *m)
{
    const cJSON *mats = cJSON_GetObjectItemCaseSensitive(root, "materials");
    int n = 0;
    if (mats) {
        if (!cJSON_IsArray(mats)) return expect_fail(c, "materials", mats, "an array of {name, friction}");
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
        char p[PATH_MAX_LEN], name[NCP_NAME_MAX];
        double mu, stiff, diss;
        path_index(p, "materials", i);
        int rc = need_object(c, it, p);
        if (!rc) rc = check_keys(c, it, p, keys);
        if (!rc) rc = get_string(c, it, p, "name", 1, "", name, sizeof name);
        if (!rc) rc = get_number(c, it, p, "friction", 1, 2, 0.0, &mu);
        /* compliant contact (seed 001 eq. 2, used by sap): absent = rigid (0), no dissipation */
        if (!rc) rc = get_number(c, it, p, "stiffness", 0, 1, 0.0, &stiff);
        if (!rc) rc = get_number(c, it, p, "dissipation", 0, 2, 0.0, &diss);
        if (rc) return rc;
        int k = find_material(m, name);
        if (k == 0) k = default_seen++ ? 1 : 0; /* "default" may be redefined once */
        if (k > 0) {
            char q[PATH_MAX_LEN];
            path_key(q, p, "name");
            return fail(c, q, "material \"%s\" is defined twice (expected unique names)", name);
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
        return expect_fail(c, "material_pairs", pairs, "an array of {materials: [a, b], friction}");
    i = 0;
    for (const cJSON *it = pairs->child; it; it = it->next, i++) {
        static const char *const keys[] = {"materials", "friction", NULL};
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        double mu;
        path_index(p, "material_pairs", i);
        int rc = need_object(c, it, p);
        if (!rc) rc = check_keys(c, it, p, keys);
        if (!rc) rc = get_number(c, it, p, "friction", 1, 2, 0.0, &mu);
        if (rc) return rc;
        const cJSON *names = required(c, it, p, "materials", "an array of two material names");
        if (!names) return NCP_ERR_INPUT;
        path_key(q, p, "materials");
        if (!cJSON_IsArray(names) || cJSON_GetArraySize(names) != 2 ||
            !cJSON_IsString(names->child) || !cJSON_IsString(names->child->next))
            return expect_fail(c, q, names, "an array of two material names");
        int ab[2];
        for (int k = 0; k < 2; k++) {
            const char *nm_k = (k ? names->child->next : names->child)->valuestring;
            ab[k] = find_material(m, nm_k);
            if (ab[k] < 0) {
                char r[PATH_MAX_LEN];
                path_index(r, q, k);
                return fail(c, r, "unknown material \"%s\" (expected a name from materials, or "
                            "\"default\")", nm_k);
            }
        }
        m->pair_friction[ab[0] * nm + ab[1]] = mu;
        m->pair_friction[ab[1] * nm + ab[0]] = mu;
    }
    return NCP_OK;
}

static int parse_contact(jctx *c, const cJSON *root, ncp_model *m)
{
    static const char *const keys[] = {"margin", "erp", "max_recovery_velocity", "friction_combine", NULL};
    const cJSON *ct = cJSON_GetObjectItemCaseSensitive(root, "contact");
    static const cJSON empty = {0};
    int rc = NCP_OK;
    if (ct) {
        rc = need_object(c, ct, "contact");
        if (!rc) rc = check_keys(c, ct, "contact", keys);
        if (rc) return rc;
    } else {
        ct = &empty;
    }
    if (!rc) rc = get_number(c, ct, "contact", "margin", 0, 2, 0.005, &m->margin);
    if (!rc) rc = get_number(c, ct, "contact", "erp", 0, 3, 0.2, &m->erp);
    if (!rc) rc = get_number(c, ct, "contact", "max_recovery_velocity", 0, 2, 1.0, &m->max_recovery);
    if (!rc) rc = get_enum(c, ct, "contact", "friction_combine", 0, combine_names, NCP_COMBINE_MIN, &m->combine);
    return rc;
}

static const char *const shape_names[] = {"plane", "sphere", "capsule", "box", "sdf", NULL};

static int parse_shape(jctx *c, const cJSON *sh, const char *path, ncp_model *m, int body,
                       ncp_shape_model *s)
{
    /* keys common to every shape, then the type's own */
    static const char *const k_plane[] = {"type", "position", "quat", "axis", "angle", "material", "normal", "offset", NULL};
    static const char *const k_sphere[] = {"type", "position", "quat", "axis", "angle", "material", "radius", NULL};
    static const char *const k_capsule[] = {"type", "position", "quat", "axis", "angle", "material", "radius", "half_length", NULL};
    static const char *const k_box[] = {"type", "position", "quat", "axis", "angle", "material", "half_extents", NULL};
    static const char *const *keys[] = {k_plane, k_sphere, k_capsule, k_box, ncp_sdf_shape_keys};
    static const double zero[3] = {0, 0, 0}, up[3] = {0, 0, 1};
    char p[PATH_MAX_LEN], mat[NCP_NAME_MAX];
    int rc = need_object(c, sh, path);
    if (!rc) rc = get_enum(c, sh, path, "type", 1, shape_names, 0, &s->type);
    if (!rc) rc = check_keys(c, sh, path, keys[s->type]);
    if (!rc) rc = get_vec(c, sh, path, "position", 0, 3, zero, s->pos);
    if (!rc) rc = get_orientation(c, sh, path, s->quat);
    if (!rc) rc = get_string(c, sh, path, "material", 0, "default", mat, sizeof mat);
    if (rc) return rc;
    s->body = body;
    s->material = find_material(m, mat);
    if (s->material < 0) {
        path_key(p, path, "material");
        return fail(c, p, "unknown material \"%s\" (expected a name from materials, or \"default\")", mat);
    }
    switch (s->type) {
    case NCP_SHAPE_PLANE:
        rc = get_vec(c, sh, path, "normal", 0, 3, up, s->normal);
        if (!rc) rc = get_number(c, sh, path, "offset", 0, 0, 0.0, &s->offset);
        if (!rc && ncp_v3_normalize(s->normal) < 1e-12) {
            path_key(p, path, "normal");
            return fail(c, p, "must be a non-zero vector, got [0, 0, 0]");
        }
        if (!rc && m->bodies[body].dynamic) {
            path_key(p, path, "type");
            return fail(c, p, "planes are infinite and may only belong to static bodies "
                        "(expected sphere, capsule or box on a dynamic body)");
        }
        break;
    case NCP_SHAPE_SPHERE:
        rc = get_number(c, sh, path, "radius", 1, 1, 0.0, &s->radius);
        break;
    case NCP_SHAPE_CAPSULE:
        rc = get_number(c, sh, path, "radius", 1, 1, 0.0, &s->radius);
        if (!rc) rc = get_number(c, sh, path, "half_length", 1, 2, 0.0, &s->half_length);
        break;
    case NCP_SHAPE_BOX: {
        rc = get_vec(c, sh, path, "half_extents", 1, 3, NULL, s->half);
        for (int i = 0; i < 3 && !rc; i++)
            if (!(s->half[i] > 0.0)) {
                char q[PATH_MAX_LEN];
                path_key(p, path, "half_extents");
                path_index(q, p, i);
                return fail(c, q, "must be a positive number, got %.17g", s->half[i]);
            }
        break;
    }
    case NCP_SHAPE_SDF: /* kind and parameters: sdf_scene.c */
        rc = ncp_sdf_shape_parse(sh, c->where, path, s, c->err);
        break;
    }
    return rc;
}

static int parse_bodies(jctx *c, const cJSON *root, ncp_model *m)
{
    const cJSON *bodies = required(c, root, "", "bodies", "a non-empty array of bodies");
    if (!bodies) return NCP_ERR_INPUT;
    if (!cJSON_IsArray(bodies) || cJSON_GetArraySize(bodies) < 1)
        return expect_fail(c, "bodies", bodies, "a non-empty array of bodies");
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
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        path_index(p, "bodies", i);
        rc = need_object(c, b, p);
        if (!rc) rc = get_enum(c, b, p, "type", 1, types, 0, &bd->dynamic);
        if (!rc && !bd->dynamic)
            for (int k = 7; k_dyn[k] && !rc; k++)
                if (cJSON_GetObjectItemCaseSensitive(b, k_dyn[k])) {
                    path_key(q, p, k_dyn[k]);
                    rc = fail(c, q, "only dynamic bodies take %s (this body is static)", k_dyn[k]);
                }
        if (!rc) rc = check_keys(c, b, p, bd->dynamic ? k_dyn : k_static);
        if (!rc) rc = get_string(c, b, p, "name", 1, "", bd->name, sizeof bd->name);
        for (int k = 0; k < i && !rc; k++)
            if (strcmp(m->bodies[k].name, bd->name) == 0) {
                path_key(q, p, "name");
                rc = fail(c, q, "body name \"%s\" is already used by bodies[%d] (expected unique names)",
                          bd->name, k);
            }
        if (!rc) rc = get_vec(c, b, p, "position", 0, 3, zero, bd->pos0);
        if (!rc) rc = get_orientation(c, b, p, bd->quat0);
        const cJSON *mv = bd->dynamic ? NULL : cJSON_GetObjectItemCaseSensitive(b, "motion");
        if (!rc && mv) { /* prescribed motion of a static body (motion.h) */
            path_key(q, p, "motion");
            rc = ncp_motion_parse(mv, c->where, q, &bd->motion, c->err);
        }
        if (!rc && bd->dynamic) {
            const cJSON *vm = cJSON_GetObjectItemCaseSensitive(b, "mass");
            const cJSON *vd = cJSON_GetObjectItemCaseSensitive(b, "density");
            if (vm && vd) {
                path_key(q, p, "density");
                rc = fail(c, q, "give either mass or density, not both");
            } else if (!vm && !vd) {
                path_key(q, p, "mass");
                rc = fail(c, q, "missing (expected a positive mass in kg, or a density in kg/m^3)");
            } else if (vm) {
                rc = get_number(c, b, p, "mass", 1, 1, 0.0, &mass[i]);
            } else {
                rc = get_number(c, b, p, "density", 1, 1, 0.0, &density[i]);
            }
            if (!rc) rc = get_vec(c, b, p, "velocity", 0, 3, zero, bd->vel0);
            if (!rc) rc = get_vec(c, b, p, "angular_velocity", 0, 3, zero, bd->omega0);
            if (!rc) rc = get_vec(c, b, p, "force", 0, 3, zero, bd->force);
            if (!rc) rc = get_vec(c, b, p, "torque", 0, 3, zero, bd->torque);
        }
        if (rc) break;
        const cJSON *shs = required(c, b, p, "shapes", "a non-empty array of shapes");
        if (!shs) {
            rc = NCP_ERR_INPUT;
            break;
        }
        path_key(q, p, "shapes");
        if (!cJSON_IsArray(shs) || cJSON_GetArraySize(shs) < 1) {
            rc = expect_fail(c, q, shs, "a non-empty array of shapes");
            break;
        }
        bd->shape0 = s;
        int j = 0, finite = 0;
        for (const cJSON *sh = shs->child; sh && !rc; sh = sh->next, j++, s++) {
            char r[PATH_MAX_LEN];
            path_index(r, q, j);
            rc = parse_shape(c, sh, r, m, i, &m->shapes[s]);
            if (m->shapes[s].type != NCP_SHAPE_PLANE) finite++;
        }
        bd->nshapes = j;
        if (!rc && bd->dynamic && !finite)
            rc = fail(c, q, "a dynamic body needs at least one sphere, capsule or box");
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

static int parse_budget(jctx *c, const cJSON *obj, const char *path, const char *key,
                        ncp_budget *b)
{
    static const char *const keys[] = {"tol", "max_iter", "budget_ms", NULL};
    /* defaults = the harness's (ncp_harness_opts_default): tol 1e-8, 1000 iterations, no time
     * limit */
    b->tol = 1e-8;
    b->max_iter = 1000;
    b->time_ms = 0.0;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return NCP_OK;
    char p[PATH_MAX_LEN];
    path_key(p, path, key);
    int rc = need_object(c, v, p);
    if (!rc) rc = check_keys(c, v, p, keys);
    if (!rc) rc = get_number(c, v, p, "tol", 0, 2, 1e-8, &b->tol);
    if (!rc) rc = get_int(c, v, p, "max_iter", 0, 1, 1000, &b->max_iter);
    if (!rc) rc = get_number(c, v, p, "budget_ms", 0, 2, 0.0, &b->time_ms);
    return rc;
}

static int solver_name(jctx *c, const cJSON *v, const char *path, char *out)
{
    if (!cJSON_IsString(v) || strlen(v->valuestring) >= 32)
        return expect_fail(c, path, v, "a registered solver name");
    if (!ncp_solver_find(v->valuestring)) {
        char list[1024] = "";
        for (int i = 0; i < ncp_solver_count(); i++) {
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", ncp_solver_at(i)->name);
        }
        return fail(c, path, "unknown solver \"%s\" (expected one of: %s)", v->valuestring, list);
    }
    snprintf(out, 32, "%s", v->valuestring);
    return NCP_OK;
}

static int parse_params(jctx *c, const cJSON *bench, ncp_bench_cfg *cfg)
{
    const cJSON *ps = cJSON_GetObjectItemCaseSensitive(bench, "params");
    if (!ps) return NCP_OK;
    int rc = need_object(c, ps, "benchmark.params");
    for (const cJSON *it = ps ? ps->child : NULL; it && !rc; it = it->next) {
        char p[PATH_MAX_LEN];
        path_key(p, "benchmark.params", it->string);
        /* the key is a solver name */
        cJSON key = {0};
        key.type = cJSON_String;
        key.valuestring = it->string;
        ncp_solver_params_entry *e = &cfg->params[cfg->nparams];
        if (cfg->nparams >= NCP_MAX_BENCH_SOLVERS)
            return fail(c, p, "too many entries (at most %d solvers)", NCP_MAX_BENCH_SOLVERS);
        for (int k = 0; k < cfg->nparams; k++)
            if (strcmp(cfg->params[k].solver, it->string) == 0)
                return fail(c, p, "duplicate key (each key may appear once)");
        rc = solver_name(c, &key, p, e->solver);
        if (!rc) rc = need_object(c, it, p);
        if (rc) return rc;
        const ncp_solver_desc *sd = ncp_solver_find(e->solver);
        memset(&e->params, 0, sizeof e->params);
        for (const cJSON *pv = it->child; pv && !rc; pv = pv->next) {
            char q[PATH_MAX_LEN];
            path_key(q, p, pv->string);
            int known = 0;
            char list[512] = "";
            for (int k = 0; sd->params && sd->params[k].name; k++) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", k ? ", " : "", sd->params[k].name);
                if (strcmp(sd->params[k].name, pv->string) == 0) known = 1;
            }
            if (!known)
                return fail(c, q, "unknown parameter of solver %s (expected one of: %s)", e->solver,
                            list[0] ? list : "none, this solver takes no parameters");
            for (const cJSON *pr = it->child; pr != pv; pr = pr->next)
                if (strcmp(pr->string, pv->string) == 0) return fail(c, q, "duplicate key (each key may appear once)");
            if (!cJSON_IsNumber(pv) || !isfinite(pv->valuedouble)) return expect_fail(c, q, pv, "a finite number");
            rc = ncp_params_set(&e->params, pv->string, pv->valuedouble, c->err);
        }
        cfg->nparams++;
    }
    return rc;
}

static int parse_bench(jctx *c, const cJSON *root, const ncp_model *m, ncp_bench_cfg *cfg,
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
        rc = need_object(c, b, "benchmark");
        if (!rc) rc = check_keys(c, b, "benchmark", keys);
        if (rc) return rc;
    } else {
        b = &empty;
    }
    rc = get_enum(c, b, "benchmark", "capture", 0, captures, 0, &cap);
    if (rc) return rc;
    const cJSON *cj = cJSON_GetObjectItemCaseSensitive(b, "cases");
    if (cap != 1 && cj)
        return fail(c, "benchmark.cases", "only with \"capture\": \"cases\" (this scene captures a trajectory)");
    if (cap == 1 && (rc = ncp_cases_parse(cj, c->where, m, cases, c->err))) return rc;
    snprintf(cfg->capture, sizeof cfg->capture, "%s", captures[cap]);
    rc = get_int(c, b, "benchmark", "skip", 0, 0, 0, &cfg->skip);
    if (!rc) rc = get_int(c, b, "benchmark", "every", 0, 1, 1, &cfg->every);
    if (rc) return rc;
    if (cfg->skip >= m->nsteps)
        return fail(c, "benchmark.skip", "must be less than the scene's %d steps, got %d", m->nsteps, cfg->skip);
    /* candidate steps k = skip + i every < nsteps (steps without contacts are not captured) */
    int fit = (m->nsteps - cfg->skip - 1) / cfg->every + 1;
    if (cap == 1) fit = cases->configurations * cases->wrenches; /* steps counts cases */
    rc = get_int(c, b, "benchmark", "steps", 0, 1, fit, &cfg->steps);
    if (!rc && cap == 1 && cfg->steps > fit)
        return fail(c, "benchmark.steps", "must be at most the %d cases (configurations x wrenches), "
                    "got %d", fit, cfg->steps);
    if (!rc && cfg->steps > fit)
        return fail(c, "benchmark.steps", "must be at most %d (the captures that fit in the scene's "
                    "%d steps with skip %d and every %d), got %d", fit, m->nsteps, cfg->skip,
                    cfg->every, cfg->steps);
    if (!rc) rc = get_int(c, b, "benchmark", "quick_steps", 0, 1, cfg->steps < 10 ? cfg->steps : 10, &cfg->quick_steps);
    if (!rc && cfg->quick_steps > cfg->steps)
        return fail(c, "benchmark.quick_steps", "must be at most benchmark.steps (%d), got %d",
                    cfg->steps, cfg->quick_steps);
    if (rc) return rc;
    const cJSON *drv = cJSON_GetObjectItemCaseSensitive(b, "driver");
    if (drv) rc = solver_name(c, drv, "benchmark.driver", cfg->driver);
    else snprintf(cfg->driver, sizeof cfg->driver, "pgs");
    if (!rc) rc = parse_budget(c, b, "benchmark", "driver_budget", &cfg->driver_budget);
    if (!rc) rc = parse_budget(c, b, "benchmark", "budget", &cfg->budget);
    if (rc) return rc;
    const cJSON *sl = cJSON_GetObjectItemCaseSensitive(b, "solvers");
    if (sl) {
        if (!cJSON_IsArray(sl)) return expect_fail(c, "benchmark.solvers", sl, "an array of solver names");
        if (cJSON_GetArraySize(sl) > NCP_MAX_BENCH_SOLVERS)
            return fail(c, "benchmark.solvers", "too many solvers (at most %d)", NCP_MAX_BENCH_SOLVERS);
        int i = 0;
        for (const cJSON *it = sl->child; it && !rc; it = it->next, i++) {
            char p[PATH_MAX_LEN];
            path_index(p, "benchmark.solvers", i);
            rc = solver_name(c, it, p, cfg->solvers[i]);
            for (int k = 0; k < i && !rc; k++)
                if (strcmp(cfg->solvers[k], cfg->solvers[i]) == 0)
                    rc = fail(c, p, "solver \"%s\" is listed twice", cfg->solvers[i]);
        }
        cfg->nsolvers = i;
    }
    if (!rc) rc = parse_params(c, b, cfg);
    return rc;
}

static int parse_root(jctx *c, const cJSON *root, ncp_scene *sc)
{
    static const char *const keys[] = {"name", "description", "timestep", "duration", "steps",
                                       "gravity", "materials", "material_pairs", "contact",
                                       "bodies", "benchmark", "dynamics", "robots",
                                       "constraints", "wrenches", NULL};
    static const double g0[3] = {0, 0, -9.81};
    ncp_model *m = &sc->model;
    if (!cJSON_IsObject(root)) return expect_fail(c, "(top level)", root, "an object");
    int rc = check_keys(c, root, "", keys);
    if (!rc) rc = get_string(c, root, "", "name", 1, "", sc->name, sizeof sc->name);
    if (rc) return rc;
    /* the name becomes a directory (results/<name>/) and an HDF5 attribute */
    for (const char *s = sc->name; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_' || *s == '.'))
            return fail(c, "name", "must use only letters, digits, '-', '_' and '.', got \"%s\"", sc->name);
    if (sc->name[0] == '.') return fail(c, "name", "must not start with '.', got \"%s\"", sc->name);
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "description");
    if (d && !cJSON_IsString(d)) return expect_fail(c, "description", d, "a string");
    sc->description = ncp_strdup(c->err, d ? d->valuestring : "");
    if (!sc->description) return NCP_ERR_NOMEM;
    rc = get_number(c, root, "", "timestep", 1, 1, 0.0, &m->h);
    if (rc) return rc;
    const cJSON *vd = cJSON_GetObjectItemCaseSensitive(root, "duration");
    const cJSON *vs = cJSON_GetObjectItemCaseSensitive(root, "steps");
    if (vd && vs) return fail(c, "steps", "give either duration or steps, not both");
    if (!vd && !vs) return fail(c, "duration", "missing (expected the simulated time in s, or \"steps\")");
    if (vs) {
        rc = get_int(c, root, "", "steps", 1, 1, 0, &m->nsteps);
    } else {
        double T;
        rc = get_number(c, root, "", "duration", 1, 1, 0.0, &T);
        if (!rc) {
            double n = floor(T / m->h + 0.5); /* nearest whole step: 1.0/(1/240) may round down */
            if (n < 1.0 || n > 1e9)
                return fail(c, "duration", "must be between one timestep and 1e9 timesteps, got %g s "
                            "(%g steps)", T, T / m->h);
            m->nsteps = (int)n;
        }
    }
    if (!rc) rc = get_vec(c, root, "", "gravity", 0, 3, g0, m->gravity);
    if (!rc) rc = parse_contact(c, root, m); /* before materials: the combine rule */
    if (!rc) rc = parse_materials(c, root, m);
    if (!rc) rc = parse_bodies(c, root, m);
    if (!rc) rc = ncp_scene_parse_multibody(root, c->where, m, c->err); /* robot.c */
    if (!rc) rc = parse_bench(c, root, m, &sc->bench, &sc->cases);
    return rc;
}

/* Line and column (1-based) of byte offset `off` in text. */
static void line_col(const char *text, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off && text[i]; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

int ncp_scene_parse(const char *json_text, const char *where, ncp_scene **out, ncp_error *err)
{
    *out = NULL;
    if (!where) where = "(scene)";
    ncp_scene *sc = ncp_calloc(err, 1, sizeof *sc);
    if (!sc) return NCP_ERR_NOMEM;
    sc->where = ncp_strdup(err, where);
    sc->text = ncp_strdup(err, json_text);
    if (!sc->where || !sc->text) {
        ncp_scene_free(sc);
        return NCP_ERR_NOMEM;
    }
    /* return_parse_end points at the error on failure (same as cJSON_GetErrorPtr, without
     * reading cJSON's global) */
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(json_text, &end, 1);
    if (!root) {
        size_t off = end ? (size_t)(end - json_text) : 0;
        int line, col;
        line_col(json_text, off, &line, &col);
        char near[32];
        size_t k = 0;
        for (const char *s = json_text + off; *s && *s != '\n' && k < 24; s++)
            near[k++] = (*s >= 32 && *s < 127) ? *s : '?';
        near[k] = '\0';
        ncp_error_set(err, NCP_ERR_INPUT, "%s: line %d, column %d: malformed JSON near \"%s\" "
                      "(expected a valid JSON document; check commas, quotes and brackets)",
                      where, line, col, near);
        ncp_scene_free(sc);
        return NCP_ERR_INPUT;
    }
    jctx c = {where, err};
    int rc = parse_root(&c, root, sc);
    cJSON_Delete(root);
    if (rc) {
        ncp_scene_free(sc);
        return rc;
    }
    *out = sc;
    return NCP_OK;
}

int ncp_scene_load(const char *path, ncp_scene **out, ncp_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: cannot open scene file: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    const size_t limit = (size_t)64 << 20; /* a scene is text; anything larger is a mistake */
    char *buf = ncp_malloc(err, cap, 1);
    int rc = buf ? NCP_OK : NCP_ERR_NOMEM;
    while (!rc) {
        if (n + 1 >= cap) {
            if (cap >= limit) {
                rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: scene file larger than %zu MB (expected a "
                                   "JSON scene)", path, limit >> 20);
                break;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                rc = ncp_error_set(err, NCP_ERR_NOMEM, "out of memory reading %s", path);
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) rc = ncp_error_set(err, NCP_ERR_IO, "%s: read error: %s", path, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (!rc) {
        buf[n] = '\0';
        if (strlen(buf) != n)
            rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: contains a NUL byte at offset %zu (expected a "
                               "JSON text file)", path, strlen(buf));
    }
    if (!rc) rc = ncp_scene_parse(buf, path, out, err);
    free(buf);
    return rc;
}

void ncp_scene_free(ncp_scene *s)
{
    if (!s) return;
    free(s->where);
    free(s->text);
    free(s->description);
    ncp_model_free(&s->model);
    free(s);
}

const char *ncp_scene_name(const ncp_scene *s) { return s->name; }
const char *ncp_scene_text(const ncp_scene *s) { return s->text; }
const ncp_bench_cfg *ncp_scene_bench(const ncp_scene *s) { return &s->bench; }
double ncp_scene_timestep(const ncp_scene *s) { return s->model.h; }
const ncp_model *ncp_scene_model(const ncp_scene *s) { return &s->model; }
const ncp_cases_cfg *ncp_scene_cases(const ncp_scene *s) { return &s->cases; }

int ncp_scene_parse_shape(const cJSON *sh, const char *where, const char *path, ncp_model *m,
                          int body, ncp_shape_model *s, ncp_error *err)
{
    jctx c = {where, err};
    return parse_shape(&c, sh, path, m, body, s);
}
