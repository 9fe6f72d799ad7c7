/* Castro et al. 2023 §VI-C1: the scaling scenes, derived from scenes/castro-clutter-200.json
 * and castro-clutter-nowalls-200.json (the 4 columns continued to 200 bodies; their first 40
 * are the 40-body clutter, scripts/make_castro2023.py): the first N dynamic bodies, simulated
 * the paper's 10 s ("We simulate 10 seconds", §VI-C ¶2) and the last 10 steps kept (--quick:
 * 8 bodies, 0.6 s, the last 3), sap (driver and solves) with its sparse Newton matrix at every N
 * (sap.sparse = 1, solvers/sap_sparse.h): one algorithm along the curve, as the paper's SAP
 * uses its sparse supernodal algebra (§IV-D) at every size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

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

/* benchmark: capture steps skip .. skip + keep - 1, every one; sap.sparse = 1. */
static int c23_window(cJSON *root, cJSON *bench, int skip, int keep, double h)
{
    static const char *const drop[] = {"skip", "every", "steps", "quick_steps"};
    for (int i = 0; i < 4; i++) cJSON_DeleteItemFromObjectCaseSensitive(bench, drop[i]);
    int ok = cJSON_AddNumberToObject(bench, "skip", skip) != NULL;
    ok &= cJSON_AddNumberToObject(bench, "every", 1) != NULL;
    ok &= cJSON_AddNumberToObject(bench, "steps", keep) != NULL;
    ok &= cJSON_AddNumberToObject(bench, "quick_steps", keep) != NULL;
    ok &= cJSON_ReplaceItemInObjectCaseSensitive(root, "duration",
                                                 cJSON_CreateNumber((skip + keep + 0.5) * h));
    cJSON *params = cJSON_GetObjectItemCaseSensitive(bench, "params");
    cJSON *sp = params ? cJSON_GetObjectItemCaseSensitive(params, "sap") : NULL;
    if (!sp) return -1;
    cJSON_DeleteItemFromObjectCaseSensitive(sp, "sparse");
    ok &= cJSON_AddNumberToObject(sp, "sparse", 1) != NULL;
    return ok ? 0 : -2;
}

int c23_scale_scene(const ncp_study_capture *cp, const ncp_fig_opts *o, const char *path,
                    ncp_scene **out, ncp_error *err)
{
    ncp_scene *base = NULL;
    char *text = NULL;
    int rc = ncp_scene_load(path, ncp_registry_catalog(), &base, err);
    if (rc) return rc;
    cJSON *root = cJSON_Parse(ncp_scene_text(base));
    cJSON *bodies = cJSON_GetObjectItemCaseSensitive(root, "bodies");
    cJSON *bench = cJSON_GetObjectItemCaseSensitive(root, "benchmark");
    cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
    if (!root || !cJSON_IsArray(bodies) || !cJSON_IsObject(bench) || !cJSON_IsString(name)) {
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: expected name, bodies and benchmark", path);
        goto done;
    }
    int n = o->quick ? C23_QUICK_N : cp->arg;
    if ((rc = c23_truncate(bodies, n, path, err))) goto done;
    double h = ncp_scene_timestep(base);
    int keep = o->quick ? C23_KEEP_QUICK : C23_KEEP;
    int skip = (int)((o->quick ? C23_SECONDS_QUICK : C23_SECONDS) / h + 0.5) - keep;
    char nm[256];
    snprintf(nm, sizeof nm, "%s-%d", name->valuestring, n);
    int w = c23_window(root, bench, skip, keep, h);
    if (w == -1) {
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: expected benchmark.params.sap", path);
        goto done;
    }
    if (w || !cJSON_ReplaceItemInObjectCaseSensitive(root, "name", cJSON_CreateString(nm)) ||
        !(text = cJSON_PrintUnformatted(root))) {
        rc = ncp_error_set(err, NCP_ERR_NOMEM, "out of memory changing %s", path);
        goto done;
    }
    rc = ncp_scene_parse(text, path, ncp_registry_catalog(), out, err);
done:
    free(text);
    cJSON_Delete(root);
    ncp_scene_free(base);
    return rc;
}
