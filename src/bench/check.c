/* Regression check against a committed baseline (check.h).
 *
 * Baseline file (JSON):
 *   { "description": "...", "seed": 1, "jobs": 1,
 *     "budget": {"tol": 1e-10, "max_iter": 500},
 *     "bands": {"residual_factor": 100, "residual_floor": 1e-12,
 *               "iterations_factor": 1.5, "iterations_slack": 3},
 *     "entries": [ {"scene": "scenes/incline.json", "solver": "pgs", "problems": 10,
 *                   "converged": 10, "iterations": 14, "natural_map_rel_acary": 3e-11,
 *                   "al_residual": 2e-12}, ... ] }
 * Scene paths are looked up beside the baseline, then in the working directory, then in the
 * data directory (ncp_find_scene).
 * A value regresses when it moves past its band in the bad direction: residual > max(base *
 * residual_factor, residual_floor); iterations > base * iterations_factor + iterations_slack;
 * converged < base; problems != base (the capture itself changed). Improvements are reported,
 * never failures. Bands are wide on purpose: reference and OpenBLAS round differently, and
 * residuals near machine precision move by decades. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench/check.h"
#include "util/fsutil.h"
#include "bench/pipeline.h"

typedef struct bands {
    double rfac, rfloor, ifac, islack;
} bands;

static int get_num(const cJSON *obj, const char *key, double *out, const char *file,
                   const char *where, ncp_error *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsNumber(it))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: %s.%s: missing or not a number", file, where,
                             key);
    *out = it->valuedouble;
    return NCP_OK;
}

static cJSON *num(double x)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", x);
    return isfinite(x) ? cJSON_CreateRaw(buf) : cJSON_CreateNull();
}

static int set_num(cJSON *obj, const char *key, double x, ncp_error *err)
{
    cJSON *it = num(x);
    if (!it) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory");
    cJSON_bool ok = cJSON_GetObjectItemCaseSensitive(obj, key)
                        ? cJSON_ReplaceItemInObjectCaseSensitive(obj, key, it)
                        : cJSON_AddItemToObject(obj, key, it);
    if (!ok) {
        cJSON_Delete(it);
        return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory");
    }
    return NCP_OK;
}

int ncp_check_run(const ncp_check_opts *o, int *regressions, ncp_error *err)
{
    *regressions = 0;
    char *text = NULL;
    int rc = ncp_read_file(o->baseline, &text, NULL, err);
    if (rc) return rc;
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!root || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: not a valid JSON object", o->baseline);
    }
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(root, "entries");
    const cJSON *jb = cJSON_GetObjectItemCaseSensitive(root, "bands");
    const cJSON *jbud = cJSON_GetObjectItemCaseSensitive(root, "budget");
    double seed = 1, tol = 0, maxit = 0;
    bands b = {0, 0, 0, 0};
    if (!cJSON_IsArray(entries) || cJSON_GetArraySize(entries) == 0) {
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: 'entries' must be a non-empty array", o->baseline);
        goto done;
    }
    if ((rc = get_num(root, "seed", &seed, o->baseline, "(top)", err)) ||
        (rc = get_num(jbud, "tol", &tol, o->baseline, "budget", err)) ||
        (rc = get_num(jbud, "max_iter", &maxit, o->baseline, "budget", err)) ||
        (rc = get_num(jb, "residual_factor", &b.rfac, o->baseline, "bands", err)) ||
        (rc = get_num(jb, "residual_floor", &b.rfloor, o->baseline, "bands", err)) ||
        (rc = get_num(jb, "iterations_factor", &b.ifac, o->baseline, "bands", err)) ||
        (rc = get_num(jb, "iterations_slack", &b.islack, o->baseline, "bands", err)))
        goto done;

    /* Distinct scenes in order; each rerun once with the solvers listed for it. */
    int n = cJSON_GetArraySize(entries);
    char printed_header = 0;
    for (int i = 0; i < n; i++) {
        const cJSON *e = cJSON_GetArrayItem(entries, i);
        const cJSON *js = cJSON_GetObjectItemCaseSensitive(e, "scene");
        const cJSON *jv = cJSON_GetObjectItemCaseSensitive(e, "solver");
        if (!cJSON_IsString(js) || !cJSON_IsString(jv)) {
            rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: entries[%d]: 'scene' and 'solver' must be "
                               "strings", o->baseline, i);
            goto done;
        }
        int first = 1;
        for (int k = 0; k < i; k++)
            if (strcmp(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(entries, k), "scene")
                           ->valuestring, js->valuestring) == 0)
                first = 0;
        if (!first) continue;
        char csv[2048] = "";
        size_t used = 0;
        for (int k = i; k < n; k++) {
            const cJSON *ek = cJSON_GetArrayItem(entries, k);
            const cJSON *sk = cJSON_GetObjectItemCaseSensitive(ek, "scene");
            const cJSON *vk = cJSON_GetObjectItemCaseSensitive(ek, "solver");
            if (cJSON_IsString(sk) && cJSON_IsString(vk) && strcmp(sk->valuestring, js->valuestring) == 0)
                used += (size_t)snprintf(csv + used, sizeof csv - used, "%s%s", used ? "," : "",
                                         vk->valuestring);
        }
        ncp_pipeline_opts po;
        ncp_pipeline_opts_default(&po);
        char stem[256], outd[4096];
        ncp_path_stem(js->valuestring, stem, sizeof stem);
        snprintf(outd, sizeof outd, "%s/%s", o->out_dir, stem);
        po.solvers_csv = csv;
        po.budget.tol = tol;
        po.budget.max_iter = (int)maxit;
        po.tol_set = po.max_iter_set = 1;
        /* no time budget: a solve cut by the clock would make iterations and residuals depend on
         * the machine's load, and the check must be deterministic */
        po.budget.time_ms = 0.0;
        po.time_set = 1;
        po.seed = (uint64_t)seed;
        po.quick = 1;
        po.jobs = o->jobs;
        po.figures = 0;
        po.quiet = 1;
        po.progress = 0;
        po.out_dir = outd;
        po.interrupt = o->interrupt;
        /* A baseline's scene paths ("scenes/x.json") resolve against, in order: the baseline's
         * own folder, the working directory, then the data directory (util/fsutil.h
         * ncp_find_scene), so the shipped baseline works from anywhere with an installed
         * binary, and a baseline kept beside its own scenes stays self-contained. */
        char scene_path[4200], base_dir[4096];
        snprintf(base_dir, sizeof base_dir, "%s", o->baseline);
        char *slash = strrchr(base_dir, '/');
        if (slash) *slash = '\0';
        else snprintf(base_dir, sizeof base_dir, ".");
        if ((rc = ncp_find_scene(js->valuestring, base_dir, scene_path, sizeof scene_path, err))) {
            ncp_error_prefix(err, "%s: entries[%d]: ", o->baseline, i);
            goto done;
        }
        ncp_bench_summary sum;
        if ((rc = ncp_pipeline_run_scene(scene_path, &po, &sum, NULL, 0, err))) {
            ncp_error_prefix(err, "%s: entries[%d]: ", o->baseline, i);
            goto done;
        }
        int knm = ncp_metrics_index("natural_map_rel_acary"), kal = ncp_metrics_index("al_residual");
        for (int k = i; k < n; k++) {
            cJSON *ek = cJSON_GetArrayItem(entries, k);
            const cJSON *sk = cJSON_GetObjectItemCaseSensitive(ek, "scene");
            const cJSON *vk = cJSON_GetObjectItemCaseSensitive(ek, "solver");
            if (!cJSON_IsString(sk) || !cJSON_IsString(vk) || strcmp(sk->valuestring, js->valuestring))
                continue;
            const ncp_solver_summary *ss = NULL;
            for (int q = 0; q < sum.nsolvers; q++)
                if (strcmp(sum.solvers[q].solver, vk->valuestring) == 0) ss = &sum.solvers[q];
            if (!ss) {
                rc = ncp_error_set(err, NCP_ERR_INTERNAL, "solver %s missing from the rerun",
                                   vk->valuestring);
                goto done;
            }
            double got[5] = {ss->problems, ss->converged, ss->median_iterations, ss->median[knm],
                             ss->median[kal]};
            const char *keys[5] = {"problems", "converged", "iterations", "natural_map_rel_acary",
                                   "al_residual"};
            if (o->update) {
                for (int q = 0; q < 5; q++)
                    if ((rc = set_num(ek, keys[q], got[q], err))) goto done;
                continue;
            }
            for (int q = 0; q < 5; q++) {
                double base = 0.0;
                char where[64];
                snprintf(where, sizeof where, "entries[%d]", k);
                if ((rc = get_num(ek, keys[q], &base, o->baseline, where, err))) goto done;
                int bad;
                char band[64];
                if (q == 0) {
                    bad = got[q] != base;
                    snprintf(band, sizeof band, "== %g", base);
                } else if (q == 1) {
                    bad = got[q] < base;
                    snprintf(band, sizeof band, ">= %g", base);
                } else if (q == 2) {
                    double lim = base * b.ifac + b.islack;
                    bad = !(got[q] <= lim);
                    snprintf(band, sizeof band, "<= %g", lim);
                } else {
                    double lim = fmax(base * b.rfac, b.rfloor);
                    bad = !(got[q] <= lim);
                    snprintf(band, sizeof band, "<= %.3g", lim);
                }
                if (!printed_header) {
                    printf("%-22s %-14s %-24s %12s %12s %14s %s\n", "scene", "solver", "quantity",
                           "baseline", "now", "band", "verdict");
                    printed_header = 1;
                }
                printf("%-22s %-14s %-24s %12.4g %12.4g %14s %s\n", stem, vk->valuestring, keys[q],
                       base, got[q], band, bad ? "REGRESSED" : "ok");
                *regressions += bad;
            }
        }
    }
    if (o->update) {
        char *out = cJSON_Print(root);
        if (!out) {
            rc = ncp_error_set(err, NCP_ERR_NOMEM, "out of memory");
            goto done;
        }
        size_t len = strlen(out);
        char *o2 = realloc(out, len + 2);
        if (!o2) {
            free(out);
            rc = ncp_error_set(err, NCP_ERR_NOMEM, "out of memory");
            goto done;
        }
        o2[len] = '\n';
        o2[len + 1] = '\0';
        rc = ncp_write_file_atomic(o->baseline, o2, err);
        free(o2);
        if (!rc) printf("baseline %s updated\n", o->baseline);
    } else {
        printf("%d regression%s\n", *regressions, *regressions == 1 ? "" : "s");
    }
done:
    cJSON_Delete(root);
    return rc;
}
