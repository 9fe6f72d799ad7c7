/* The benchmark.cases section of a scene (cases.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/cases.h"
#include "util/json_util.h"
#include "core/spatial.h"

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
