/* Scene-file support for signed distance shapes: {"type": "sdf", "kind": ...} (the keys are
 * documented in scenes/README.md, "SDF shapes"). Messages follow scene.c's form
 * "<file>: <json.path>: <what is wrong> (expected ...)". */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "geometry/sdf.h"
#include "scene/sdf_scene.h"
#include "core/spatial.h"
#include "geometry/sdf_revolved.h"
#include "geometry/sdf_thread.h"

const char *const ncp_sdf_shape_keys[] = {
    "type", "position", "quat", "axis", "angle", "material", "kind", "spacing", "max_contacts",
    "diameter", "pitch", "length", "clearance", "height", "width_across_flats", "profile",
    "padding", NULL};

typedef struct pctx {
    const char *where, *path;
    ncp_error *err;
} pctx;

static int fail(const pctx *c, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(const pctx *c, const char *key, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s%s%s: %s", c->where, c->path, key ? "." : "",
                         key ? key : "", msg);
}

/* A positive number (or >= 0 when nonneg), defaulting to def when absent. */
static int number(const pctx *c, const cJSON *sh, const char *key, double def, int nonneg, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(sh, key);
    if (!v) {
        *out = def;
        return NCP_OK;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
        !(nonneg ? v->valuedouble >= 0.0 : v->valuedouble > 0.0))
        return fail(c, key, "must be a %s number in metres", nonneg ? "non-negative" : "positive");
    *out = v->valuedouble;
    return NCP_OK;
}

/* Keys that only some kinds take. */
static int only_for(const pctx *c, const cJSON *sh, const char *kind, const char *const *allowed)
{
    static const char *const specific[] = {"diameter", "pitch", "length", "clearance", "height",
                                           "width_across_flats", "profile", "padding", NULL};
    for (int i = 0; specific[i]; i++) {
        if (!cJSON_GetObjectItemCaseSensitive(sh, specific[i])) continue;
        int ok = 0;
        for (int j = 0; allowed[j]; j++)
            if (strcmp(allowed[j], specific[i]) == 0) ok = 1;
        if (!ok) {
            char list[256] = "";
            for (int j = 0; allowed[j]; j++) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", j ? ", " : "", allowed[j]);
            }
            return fail(c, specific[i], "a %s takes no %s (expected one of: %s)", kind, specific[i], list);
        }
    }
    return NCP_OK;
}

int ncp_sdf_shape_parse(const cJSON *sh, const char *where, const char *path, ncp_shape_model *s,
                        ncp_error *err)
{
    static const char *const kinds[] = {"bolt", "nut", "bowl", "plate", "pot", "bottle", "revolved", NULL};
    pctx c = {where, path, err};
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(sh, "kind");
    int kind = -1;
    for (int i = 0; k && cJSON_IsString(k) && kinds[i]; i++)
        if (strcmp(kinds[i], k->valuestring) == 0) kind = i;
    if (kind < 0)
        return fail(&c, "kind", k ? "must be one of: bolt, nut, bowl, plate, pot, bottle, revolved"
                                  : "missing (expected one of: bolt, nut, bowl, plate, pot, bottle, revolved)");
    const char *kname = kinds[kind];
    double spacing;
    int rc = number(&c, sh, "spacing", kind <= 1 ? 0.002 : (kind == 5 ? 0.002 : 0.003), 0, &spacing);
    if (rc) return rc;
    int maxc = NCP_SDF_DEFAULT_MAX_CONTACTS;
    const cJSON *mc = cJSON_GetObjectItemCaseSensitive(sh, "max_contacts");
    if (mc) {
        if (!cJSON_IsNumber(mc) || mc->valuedouble != floor(mc->valuedouble) || mc->valuedouble < 1 ||
            mc->valuedouble > 100000)
            return fail(&c, "max_contacts", "must be an integer in [1, 100000]");
        maxc = (int)mc->valuedouble;
    }
    ncp_sdf *g = NULL;
    if (kind == 0) { /* M48 x 5 by default (robot-geometry-facts.md §6) */
        static const char *const ok[] = {"diameter", "pitch", "length", "clearance", NULL};
        double d, P, L, cl;
        rc = only_for(&c, sh, kname, ok);
        if (!rc) rc = number(&c, sh, "diameter", 0.048, 0, &d);
        if (!rc) rc = number(&c, sh, "pitch", 0.005, 0, &P);
        if (!rc) rc = number(&c, sh, "length", 0.1, 0, &L);
        if (!rc) rc = number(&c, sh, "clearance", 1e-4, 1, &cl);
        if (!rc) rc = ncp_sdf_bolt_create(d, P, L, cl, spacing, &g, err);
    } else if (kind == 1) { /* ISO 4032 M48: s = 75 mm, m = 38 mm */
        static const char *const ok[] = {"diameter", "pitch", "height", "width_across_flats", NULL};
        double d, P, m, wf;
        rc = only_for(&c, sh, kname, ok);
        if (!rc) rc = number(&c, sh, "diameter", 0.048, 0, &d);
        if (!rc) rc = number(&c, sh, "pitch", 0.005, 0, &P);
        if (!rc) rc = number(&c, sh, "height", 0.038, 0, &m);
        if (!rc) rc = number(&c, sh, "width_across_flats", 0.075, 0, &wf);
        if (!rc) rc = ncp_sdf_nut_create(d, P, m, wf, spacing, &g, err);
    } else {
        static const char *const ok[] = {"profile", "padding", NULL};
        double rz[2 * NCP_SDF_MAX_PROFILE], pad = 0.0;
        int np = 0;
        rc = only_for(&c, sh, kname, ok);
        if (!rc && kind != 6) ncp_sdf_dish_preset(kname, rz, &np, &pad);
        const cJSON *pr = cJSON_GetObjectItemCaseSensitive(sh, "profile");
        if (!rc && kind == 6 && !pr)
            rc = fail(&c, "profile", "missing (a revolved shape needs its profile [[r, z], ...], "
                      "the first point on the axis)");
        if (!rc && pr) {
            int n = cJSON_IsArray(pr) ? cJSON_GetArraySize(pr) : -1;
            if (n < 2 || n > NCP_SDF_MAX_PROFILE)
                rc = fail(&c, "profile", "must be an array of 2 to %d points [r, z] (metres), the "
                          "first on the axis (r = 0)", NCP_SDF_MAX_PROFILE);
            int i = 0;
            for (const cJSON *it = rc ? NULL : pr->child; it && !rc; it = it->next, i++) {
                if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2 || !cJSON_IsNumber(it->child) ||
                    !cJSON_IsNumber(it->child->next) || !isfinite(it->child->valuedouble) ||
                    !isfinite(it->child->next->valuedouble) || it->child->valuedouble < 0.0) {
                    char key[32];
                    snprintf(key, sizeof key, "profile[%d]", i);
                    rc = fail(&c, key, "must be a point [r, z] with r >= 0 (metres)");
                    break;
                }
                rz[2 * i] = it->child->valuedouble;
                rz[2 * i + 1] = it->child->next->valuedouble;
            }
            np = n;
        }
        if (!rc) rc = number(&c, sh, "padding", pad > 0.0 ? pad : 0.002, 0, &pad);
        if (!rc) rc = ncp_sdf_revolved_create(kname, rz, np, pad, spacing, &g, err);
    }
    if (rc) {
        if (err && err->code && !strstr(err->msg, where)) ncp_error_prefix(err, "%s: %s: ", where, path);
        return rc;
    }
    g->max_contacts = maxc;
    /* The scene places the geometry origin; the shape frame sits at the centroid (sdf.h). */
    double R[9], c3[3];
    ncp_quat_to_mat(s->quat, R);
    ncp_m3_mulv(R, g->centroid, c3);
    ncp_v3_add(s->pos, c3, s->pos);
    s->sdf = g;
    return NCP_OK;
}
