/* The benchmark.cases section of a scene (cases.h). */
#include <stdio.h>
#include <string.h>

#include "scene/cases.h"
#include "util/json_util.h"
#include "core/spatial.h"

static const double PI = 3.14159265358979323846;

/* ---- parsing (benchmark.cases) ---- */

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

/* The screw motion section benchmark.cases.screw (sc, at path). */
static int parse_screw(const ncp_json_ctx *c, const cJSON *sc, const char *path, const ncp_model *m,
                       ncp_cases_cfg *cfg)
{
    static const char *const keys[] = {"body", "axis", "point", "lead", "angle", NULL};
    static const double z[3] = {0, 0, 1}, o[3] = {0, 0, 0};
    char p[NCP_JSON_PATH_MAX];
    if (!cJSON_IsObject(sc))
        return ncp_json_fail(c, path, "must be an object {body, axis, point, lead, angle}");
    int rc = ncp_json_check_keys(c, sc, path, keys);
    if (rc) return rc;
    const cJSON *bn = cJSON_GetObjectItemCaseSensitive(sc, "body");
    int b = cJSON_IsString(bn) ? find_body(m, bn->valuestring) : -1;
    if (b < 0 || !free_root(m, b)) {
        ncp_json_key(p, path, "body");
        return ncp_json_fail(c, p, "must name a dynamic free body of the scene");
    }
    cfg->screw_body = b;
    rc = ncp_json_get_vec(c, sc, path, "axis", 0, 3, z, cfg->screw_axis);
    if (!rc) rc = ncp_json_get_vec(c, sc, path, "point", 0, 3, o, cfg->screw_point);
    if (!rc) rc = ncp_json_get_number(c, sc, path, "lead", 0, NCP_JSON_FINITE, 0.0, &cfg->screw_lead);
    if (rc) return rc;
    if (ncp_v3_normalize(cfg->screw_axis) < 1e-12) {
        ncp_json_key(p, path, "axis");
        return ncp_json_fail(c, p, "must be a non-zero vector");
    }
    const cJSON *an = cJSON_GetObjectItemCaseSensitive(sc, "angle");
    if (!an) {
        cfg->screw_angle[0] = 0.0;
        cfg->screw_angle[1] = 2.0 * PI;
    } else if (ncp_json_numbers(an, 2, cfg->screw_angle) != 2 ||
               !(cfg->screw_angle[0] <= cfg->screw_angle[1])) {
        ncp_json_key(p, path, "angle");
        return ncp_json_fail(c, p, "must be [lo, hi] in radians with lo <= hi");
    }
    return NCP_OK;
}

int ncp_cases_parse(const cJSON *obj, const char *where, const ncp_model *m, ncp_cases_cfg *cfg,
                    ncp_error *err)
{
    static const char *const keys[] = {"configurations", "wrenches", "settle_steps", "bodies",
                                       "screw", "position_noise", "rotation_noise", "force",
                                       "torque", NULL};
    static const char path[] = "benchmark.cases";
    const ncp_json_ctx c = {where, err};
    char p[NCP_JSON_PATH_MAX], q[NCP_JSON_PATH_MAX];
    memset(cfg, 0, sizeof *cfg);
    cfg->screw_body = -1;
    /* obj NULL (no cases section): every member is absent and takes its default */
    int rc = obj ? ncp_json_check_keys(&c, obj, path, keys) : NCP_OK;
    const int nonneg = NCP_JSON_NONNEG, most = 1000000;
    if (!rc) rc = ncp_json_get_int_in(&c, obj, path, "configurations", 0, 1, most, 10, &cfg->configurations);
    if (!rc) rc = ncp_json_get_int_in(&c, obj, path, "wrenches", 0, 1, most, 10, &cfg->wrenches);
    if (!rc) rc = ncp_json_get_int_in(&c, obj, path, "settle_steps", 0, 0, most, 0, &cfg->settle_steps);
    if (!rc) rc = ncp_json_get_number(&c, obj, path, "position_noise", 0, nonneg, 0.0, &cfg->position_noise);
    if (!rc) rc = ncp_json_get_number(&c, obj, path, "rotation_noise", 0, nonneg, 0.0, &cfg->rotation_noise);
    if (!rc) rc = ncp_json_get_number(&c, obj, path, "force", 0, nonneg, 1.0, &cfg->force);
    if (!rc) rc = ncp_json_get_number(&c, obj, path, "torque", 0, nonneg, 0.1, &cfg->torque);
    if (rc) return rc;
    if ((double)cfg->configurations * cfg->wrenches > 1e6) {
        ncp_json_key(p, path, "wrenches");
        return ncp_json_fail(&c, p, "configurations x wrenches must be at most 1000000");
    }
    const cJSON *bl = cJSON_GetObjectItemCaseSensitive(obj, "bodies");
    ncp_json_key(p, path, "bodies");
    if (bl) {
        int n = cJSON_IsArray(bl) ? cJSON_GetArraySize(bl) : 0;
        if (n < 1 || n > NCP_CASES_MAX_BODIES) {
            char what[48];
            snprintf(what, sizeof what, "an array of 1 to %d body names", NCP_CASES_MAX_BODIES);
            return ncp_json_expect(&c, p, bl, what);
        }
        int i = 0;
        for (const cJSON *it = bl->child; it; it = it->next, i++) {
            ncp_json_index(q, p, i);
            int b = cJSON_IsString(it) ? find_body(m, it->valuestring) : -1;
            if (b < 0) return ncp_json_fail(&c, q, "must name a body of the scene");
            const char *name = it->valuestring;
            if (!free_root(m, b)) return ncp_json_fail(&c, q, "body \"%s\" must be a dynamic free body", name);
            for (int j = 0; j < i; j++)
                if (cfg->bodies[j] == b) return ncp_json_fail(&c, q, "body \"%s\" is listed twice", name);
            cfg->bodies[i] = b;
        }
        cfg->nbodies = i;
    } else {
        for (int b = 0; b < m->nbodies && cfg->nbodies < NCP_CASES_MAX_BODIES; b++)
            if (free_root(m, b)) cfg->bodies[cfg->nbodies++] = b;
        if (cfg->nbodies == 0)
            return ncp_json_fail(&c, p, "the scene has no dynamic free body to apply wrenches to");
    }
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(obj, "screw");
    ncp_json_key(p, path, "screw");
    return sc ? parse_screw(&c, sc, p, m, cfg) : NCP_OK;
}
