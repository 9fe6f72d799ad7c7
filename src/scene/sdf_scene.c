/* Scene-file support for signed distance shapes: {"type": "sdf", "kind": ...} (the keys are
 * documented in scenes/README.md, "SDF shapes"). Values are read with util/json_util.h, so
 * messages have the form "<file>: <json.path>: <what is wrong> (expected ...)". */
#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "geometry/sdf.h"
#include "scene/sdf_scene.h"
#include "core/spatial.h"
#include "geometry/sdf_revolved.h"
#include "geometry/sdf_thread.h"
#include "util/json_util.h"

const char *const ncp_sdf_shape_keys[] = {
    "type", "position", "quat", "axis", "angle", "material", "kind", "spacing", "max_contacts",
    "diameter", "pitch", "length", "clearance", "height", "width_across_flats", "profile",
    "padding", NULL};

/* Keys that only some kinds take: a key of `specific` that is not in `allowed` is an error. */
static int only_for(const ncp_json_ctx *c, const cJSON *sh, const char *path, const char *kind,
                    const char *const *allowed)
{
    static const char *const specific[] = {"diameter", "pitch", "length", "clearance", "height",
                                           "width_across_flats", "profile", "padding", NULL};
    for (int i = 0; specific[i]; i++) {
        if (!cJSON_GetObjectItemCaseSensitive(sh, specific[i])) continue;
        int ok = 0;
        for (int j = 0; allowed[j]; j++)
            if (strcmp(allowed[j], specific[i]) == 0) ok = 1;
        if (!ok) {
            char p[NCP_JSON_PATH_MAX], list[256];
            ncp_json_key(p, path, specific[i]);
            ncp_json_join_names(list, sizeof list, allowed);
            return ncp_json_fail(c, p, "a %s takes no %s (expected one of: %s)", kind, specific[i], list);
        }
    }
    return NCP_OK;
}

/* The shape is sampled as it is parsed (surface samples about `spacing` apart, sorted and
 * integrated): a large shape with a fine spacing costs seconds to minutes before anything
 * else can refuse it (found by tests/fuzz: a 5 m bolt at 2 mm, 5 s; 30 s under the
 * sanitizers). The number of surface samples, circumference / spacing times length /
 * spacing, is bounded first: the shipped bolt-nut has 3 800, the limit is 13 times that
 * (a 2 m bolt at 2 mm, 1.6e5 samples, still took 1.1 s in the release build and over 30 s
 * under the sanitizers). */
#define NCP_SDF_MAX_SURFACE_SAMPLES 5e4

/* NCP_ERR_INPUT when a shape of this circumference and length (m) at this spacing would take more
 * surface samples than NCP_SDF_MAX_SURFACE_SAMPLES (see the caller). */
static int check_samples(const ncp_json_ctx *c, const char *path, const char *kind, double circ,
                         double len, double spacing)
{
    double n = ceil(circ / spacing) * ceil(len / spacing);
    if (n <= NCP_SDF_MAX_SURFACE_SAMPLES) return NCP_OK;
    return ncp_error_set(c->err, NCP_ERR_INPUT,
                         "%s: %s: a %s of %.3g m around and %.3g m long sampled every %.3g m takes "
                         "about %.3g surface samples, above the limit of %.0f: give a larger "
                         "\"spacing\" (or a smaller shape)", c->where, path, kind, circ, len, spacing, n,
                         NCP_SDF_MAX_SURFACE_SAMPLES);
}

/* The profile [[r, z], ...] of a dish or revolved shape into rz (*np points), if given. */
static int get_profile(const ncp_json_ctx *c, const cJSON *sh, const char *path, int required,
                       double *rz, int *np)
{
    char p[NCP_JSON_PATH_MAX], q[NCP_JSON_PATH_MAX];
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(sh, "profile");
    ncp_json_key(p, path, "profile");
    if (!pr)
        return required ? ncp_json_fail(c, p, "missing (a revolved shape needs its profile [[r, z], "
                                        "...], the first point on the axis)")
                        : NCP_OK;
    int n = cJSON_IsArray(pr) ? cJSON_GetArraySize(pr) : -1;
    if (n < 2 || n > NCP_SDF_MAX_PROFILE)
        return ncp_json_fail(c, p, "must be an array of 2 to %d points [r, z] (metres), the first "
                             "on the axis (r = 0)", NCP_SDF_MAX_PROFILE);
    int i = 0;
    for (const cJSON *it = pr->child; it; it = it->next, i++)
        if (ncp_json_numbers(it, 2, rz + 2 * i) != 2 || !(rz[2 * i] >= 0.0)) {
            ncp_json_index(q, p, i);
            return ncp_json_fail(c, q, "must be a point [r, z] with r >= 0 (metres)");
        }
    *np = n;
    return NCP_OK;
}

/* Member key of sh: a length in metres, > 0 (or >= 0 if nonneg); def when absent. */
static int get_metres(const ncp_json_ctx *c, const cJSON *sh, const char *path, const char *key,
                  double def, int nonneg, double *out)
{
    return ncp_json_get_quantity(c, sh, path, key, 0, nonneg ? NCP_JSON_NONNEG : NCP_JSON_POSITIVE,
                                 "metres", def, out);
}

int ncp_sdf_shape_parse(const cJSON *sh, const char *where, const char *path, ncp_shape_model *s,
                        ncp_error *err)
{
    static const char *const kinds[] = {"bolt", "nut", "bowl", "plate", "pot", "bottle", "revolved", NULL};
    const ncp_json_ctx c = {where, err};
    int kind = 0, maxc;
    double spacing;
    int rc = ncp_json_get_enum(&c, sh, path, "kind", 1, kinds, 0, &kind);
    double dspacing = kind <= 1 ? 0.002 : (kind == 5 ? 0.002 : 0.003);
    if (!rc) rc = get_metres(&c, sh, path, "spacing", dspacing, 0, &spacing);
    if (!rc) rc = ncp_json_get_int_in(&c, sh, path, "max_contacts", 0, 1, 100000,
                                      NCP_SDF_DEFAULT_MAX_CONTACTS, &maxc);
    if (rc) return rc;
    const char *kname = kinds[kind];
    ncp_sdf *g = NULL;
    if (kind == 0) { /* M48 x 5 by default (ISO 261 coarse pitch) */
        static const char *const ok[] = {"diameter", "pitch", "length", "clearance", NULL};
        double d, P, L, cl;
        rc = only_for(&c, sh, path, kname, ok);
        if (!rc) rc = get_metres(&c, sh, path, "diameter", 0.048, 0, &d);
        if (!rc) rc = get_metres(&c, sh, path, "pitch", 0.005, 0, &P);
        if (!rc) rc = get_metres(&c, sh, path, "length", 0.1, 0, &L);
        if (!rc) rc = get_metres(&c, sh, path, "clearance", 1e-4, 1, &cl);
        if (!rc) rc = check_samples(&c, path, kname, NCP_PI * d, L, spacing);
        if (!rc) rc = ncp_sdf_bolt_create(d, P, L, cl, spacing, &g, err);
    } else if (kind == 1) { /* ISO 4032 M48: s = 75 mm, m = 38 mm */
        static const char *const ok[] = {"diameter", "pitch", "height", "width_across_flats", NULL};
        double d, P, m, wf;
        rc = only_for(&c, sh, path, kname, ok);
        if (!rc) rc = get_metres(&c, sh, path, "diameter", 0.048, 0, &d);
        if (!rc) rc = get_metres(&c, sh, path, "pitch", 0.005, 0, &P);
        if (!rc) rc = get_metres(&c, sh, path, "height", 0.038, 0, &m);
        if (!rc) rc = get_metres(&c, sh, path, "width_across_flats", 0.075, 0, &wf);
        /* the hexagon's circumference bounds the bore's; faces add about its width */
        if (!rc) rc = check_samples(&c, path, kname, 2.0 * sqrt(3.0) * wf, m + wf, spacing);
        if (!rc) rc = ncp_sdf_nut_create(d, P, m, wf, spacing, &g, err);
    } else {
        static const char *const ok[] = {"profile", "padding", NULL};
        double rz[2 * NCP_SDF_MAX_PROFILE], pad = 0.0;
        int np = 0;
        rc = only_for(&c, sh, path, kname, ok);
        if (!rc && kind != 6) ncp_sdf_dish_preset(kname, rz, &np, &pad);
        if (!rc) rc = get_profile(&c, sh, path, kind == 6, rz, &np);
        if (!rc) rc = get_metres(&c, sh, path, "padding", pad > 0.0 ? pad : 0.002, 0, &pad);
        if (!rc) {
            double rmax = 0.0, len = 0.0;
            for (int k = 0; k < np; k++) rmax = fmax(rmax, fabs(rz[2 * k]));
            for (int k = 1; k < np; k++)
                len += hypot(rz[2 * k] - rz[2 * k - 2], rz[2 * k + 1] - rz[2 * k - 1]);
            rc = check_samples(&c, path, kname, 2.0 * NCP_PI * (rmax + pad), len + 2.0 * pad, spacing);
        }
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
