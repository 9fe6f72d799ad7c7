/* Castro et al. 2023: the scenes' variants. c23_scene_variant changes a clutter scene for a
 * part (fewer bodies, a window of steps, sap's sigma or Newton matrix); the study's scaling
 * points (c23_scale_scene), Fig. 10's capture (c23_newton_scene) and the slip sweep's sims
 * (sims.c) use it.
 *
 * Scaling (§VI-C1): scenes/castro-clutter-200.json and castro-clutter-nowalls-200.json (the 4
 * columns continued to 200 bodies; their first 40 are the 40-body clutter,
 * scripts/make_castro2023.py): the first N dynamic bodies, simulated the paper's 10 s ("We
 * simulate 10 seconds", §VI-C ¶2) and the last 10 steps kept (--quick: 8 bodies, 0.6 s, the last
 * 3), sap (driver and solves) with its sparse Newton matrix at every N (sap.sparse = 1,
 * solvers/sap_sparse.h): one algorithm along the curve, as the paper's SAP uses its sparse
 * supernodal algebra (§IV-D) at every size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "figures/fig_util.h"
#include "figures/castro2023/castro2023.h"
#include "scene/scene.h"
#include "solvers/registry.h"

#define C23_SECONDS 10.0      /* §VI-C ¶2 */
#define C23_SECONDS_QUICK 0.6 /* ours */
#define C23_KEEP 10           /* the last steps solved (ours) */
#define C23_KEEP_QUICK 3

/* Drops the dynamic bodies after the first n; an error when there are fewer. */
static int c23_truncate(cJSON *bodies, int n, const char *path, ncp_error *err)
{
    int seen = 0;
    for (int i = 0; i < cJSON_GetArraySize(bodies);) {
        cJSON *t = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(bodies, i), "type");
        if (cJSON_IsString(t) && !strcmp(t->valuestring, "dynamic") && ++seen > n)
            cJSON_DeleteItemFromArray(bodies, i);
        else
            i++;
    }
    if (seen < n)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: has %d dynamic bodies, %d asked", path,
                             seen, n);
    return NCP_OK;
}

/* benchmark: capture steps skip + i every, i < steps; the duration just long enough. */
static int c23_window(cJSON *root, cJSON *bench, int skip, int every, int steps, double h)
{
    static const char *const drop[] = {"skip", "every", "steps", "quick_steps"};
    for (int i = 0; i < 4; i++) cJSON_DeleteItemFromObjectCaseSensitive(bench, drop[i]);
    int ok = cJSON_AddNumberToObject(bench, "skip", skip) != NULL;
    ok &= cJSON_AddNumberToObject(bench, "every", every) != NULL;
    ok &= cJSON_AddNumberToObject(bench, "steps", steps) != NULL;
    ok &= cJSON_AddNumberToObject(bench, "quick_steps", steps) != NULL;
    return ok && cJSON_ReplaceItemInObjectCaseSensitive(
                     root, "duration", cJSON_CreateNumber((skip + (steps - 1) * every + 1.5) * h));
}

/* benchmark.params.sap: sigma (> 0) and sparse (>= 0) replaced; -1 without sap's params. */
static int c23_sap_params(cJSON *bench, double sigma, int sparse)
{
    cJSON *params = cJSON_GetObjectItemCaseSensitive(bench, "params");
    cJSON *sp = params ? cJSON_GetObjectItemCaseSensitive(params, "sap") : NULL;
    if (!sp) return -1;
    int ok = 1;
    if (sigma > 0) {
        cJSON_DeleteItemFromObjectCaseSensitive(sp, "sigma");
        ok &= cJSON_AddNumberToObject(sp, "sigma", sigma) != NULL;
    }
    if (sparse >= 0) {
        cJSON_DeleteItemFromObjectCaseSensitive(sp, "sparse");
        ok &= cJSON_AddNumberToObject(sp, "sparse", sparse) != NULL;
    }
    return ok;
}

int c23_scene_variant(const char *path, int nbody, double sigma, int sparse, int skip,
                      int every, int steps, const char *suffix, ncp_scene **out, ncp_error *err)
{
    ncp_scene *base = NULL;
    char nm[256];
    int rc = ncp_scene_load(path, ncp_registry_catalog(), &base, err), ok = 1;
    if (rc) return rc;
    cJSON *root = cJSON_Parse(ncp_scene_text(base));
    cJSON *bodies = cJSON_GetObjectItemCaseSensitive(root, "bodies");
    cJSON *bench = cJSON_GetObjectItemCaseSensitive(root, "benchmark");
    cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
    if (!root || !cJSON_IsArray(bodies) || !cJSON_IsObject(bench) || !cJSON_IsString(name)) {
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: expected name, bodies and benchmark", path);
        goto done;
    }
    if (nbody > 0 && (rc = c23_truncate(bodies, nbody, path, err))) goto done;
    snprintf(nm, sizeof nm, "%s%s", name->valuestring, suffix);
    ok &= cJSON_ReplaceItemInObjectCaseSensitive(root, "name", cJSON_CreateString(nm));
    if (every > 0) ok &= c23_window(root, bench, skip, every, steps, ncp_scene_timestep(base));
    if (sigma > 0 || sparse >= 0) {
        int sp = c23_sap_params(bench, sigma, sparse);
        if (sp < 0) {
            rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: expected benchmark.params.sap", path);
            goto done;
        }
        ok &= sp;
    }
    rc = ncp_fig_scene_from_json(ok ? root : NULL, path, out, err);
done:
    cJSON_Delete(root);
    ncp_scene_free(base);
    return rc;
}

int c23_scale_scene(const ncp_study_capture *cp, const ncp_fig_opts *o, const char *path,
                    ncp_scene **out, ncp_error *err)
{
    ncp_scene *base = NULL;
    int rc = ncp_scene_load(path, ncp_registry_catalog(), &base, err);
    if (rc) return rc;
    double h = ncp_scene_timestep(base);
    ncp_scene_free(base);
    int n = o->quick ? C23_QUICK_N : cp->arg, keep = o->quick ? C23_KEEP_QUICK : C23_KEEP;
    int skip = (int)((o->quick ? C23_SECONDS_QUICK : C23_SECONDS) / h + 0.5) - keep;
    char sfx[32];
    snprintf(sfx, sizeof sfx, "-%d", n);
    return c23_scene_variant(path, n, 0, 1, skip, 1, keep, sfx, out, err);
}

int c23_newton_scene(const ncp_study_capture *cp, const ncp_fig_opts *o, const char *path,
                     ncp_scene **out, ncp_error *err)
{
    (void)cp, (void)o;
    return c23_scene_variant(path, 0, 0, -1, 0, 5, 13, "-fig10", out, err);
}
