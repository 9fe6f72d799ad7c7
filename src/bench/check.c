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
 * The solvers run on a scene are the --solvers list, else the scene's entries and every plugin
 * solver of the catalog; a pair run without an entry, and an entry whose solver is not in the
 * catalog, are verdicts of their own (a CI must see a solver drop out of its check).
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
#include "solvers/registry.h"

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

/* One verdict: a quantity compared with its band, or a scene x solver pair that the run and the
 * baseline do not share. */
enum { V_COMPARED, V_NO_ENTRY, V_UNAVAILABLE };
typedef struct verdict {
    char scene[128], solver[64];
    const char *quantity;  /* NULL for V_NO_ENTRY / V_UNAVAILABLE */
    double base, got;
    char band[64];
    int bad, kind;
} verdict;

typedef struct verdicts {
    verdict *v;
    int n, cap;
} verdicts;

static verdict *verdict_add(verdicts *vs, const char *scene, const char *solver, int kind,
                            ncp_error *err)
{
    if (vs->n == vs->cap) {
        int cap = vs->cap ? 2 * vs->cap : 256;
        verdict *v = realloc(vs->v, (size_t)cap * sizeof *v);
        if (!v) {
            ncp_error_set(err, NCP_ERR_NOMEM, "out of memory");
            return NULL;
        }
        vs->v = v;
        vs->cap = cap;
    }
    verdict *r = &vs->v[vs->n++];
    memset(r, 0, sizeof *r);
    snprintf(r->scene, sizeof r->scene, "%s", scene);
    snprintf(r->solver, sizeof r->solver, "%s", solver);
    r->kind = kind;
    return r;
}

/* XML text with &, <, >, " escaped */
static void xml_put(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* The verdicts as JUnit XML: one testsuite per scene, one testcase per scene x solver x
 * quantity (classname scene.solver), a failure carrying the band and the value; a pair the run
 * and the baseline do not share is one testcase "baseline entry", failed with strict, else
 * skipped. Written atomically (a CI reading a half-written report would misread it). */
static int write_junit(const char *path, const char *baseline, const verdicts *vs, int strict,
                       ncp_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory");
    int tests = vs->n, failures = 0, skipped = 0;
    for (int i = 0; i < vs->n; i++) {
        const verdict *v = &vs->v[i];
        if (v->kind == V_COMPARED) failures += v->bad;
        else if (strict) failures++;
        else skipped++;
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"ncpbench check ");
    xml_put(f, baseline);
    fprintf(f, "\" tests=\"%d\" failures=\"%d\" skipped=\"%d\">\n", tests, failures, skipped);
    for (int i = 0; i < vs->n;) {
        int j = i, sf = 0, ss = 0;
        for (; j < vs->n && !strcmp(vs->v[j].scene, vs->v[i].scene); j++) {
            if (vs->v[j].kind == V_COMPARED) sf += vs->v[j].bad;
            else if (strict) sf++;
            else ss++;
        }
        fprintf(f, "  <testsuite name=\"");
        xml_put(f, vs->v[i].scene);
        fprintf(f, "\" tests=\"%d\" failures=\"%d\" skipped=\"%d\">\n", j - i, sf, ss);
        for (int k = i; k < j; k++) {
            const verdict *v = &vs->v[k];
            fprintf(f, "    <testcase classname=\"");
            xml_put(f, v->scene);
            fputc('.', f);
            xml_put(f, v->solver);
            fprintf(f, "\" name=\"%s\"", v->quantity ? v->quantity : "baseline entry");
            char msg[400];
            if (v->kind == V_COMPARED) {
                if (!v->bad) {
                    fprintf(f, "/>\n");
                    continue;
                }
                snprintf(msg, sizeof msg, "%s = %.6g outside the band %s (baseline %.6g)",
                         v->quantity, v->got, v->band, v->base);
            } else {
                snprintf(msg, sizeof msg, "%s", v->kind == V_NO_ENTRY
                             ? "run, but the baseline has no entry (ncpbench check --update adds it)"
                             : "in the baseline, but the solver is not available (a plugin not "
                               "loaded?)");
            }
            const char *tag = v->kind == V_COMPARED || strict ? "failure" : "skipped";
            fprintf(f, ">\n      <%s message=\"", tag);
            xml_put(f, msg);
            fprintf(f, "\"%s>", v->kind == V_COMPARED ? " type=\"regression\"" : "");
            if (v->kind == V_COMPARED) {
                snprintf(msg, sizeof msg, "scene %s, solver %s, %s: value %.17g, band %s, "
                         "baseline %.17g", v->scene, v->solver, v->quantity, v->got, v->band,
                         v->base);
                xml_put(f, msg);
            }
            fprintf(f, "</%s>\n    </testcase>\n", tag);
        }
        fprintf(f, "  </testsuite>\n");
        i = j;
    }
    fprintf(f, "</testsuites>\n");
    if (fclose(f) != 0 || !buf) {
        free(buf);
        return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory writing --junit");
    }
    int rc = ncp_write_file_atomic(path, buf, err);
    free(buf);
    if (rc) ncp_error_prefix(err, "--junit: ");
    return rc;
}

/* Prints the summary the output ends with: every regression with its band and value, the
 * pairs the run and the baseline do not share. */
static void print_summary(const verdicts *vs, const ncp_check_result *r, int update)
{
    if (!update) {
        printf("\n%d regression%s in %d scene x solver pair%s checked%s\n", r->regressions,
               r->regressions == 1 ? "" : "s", r->checked, r->checked == 1 ? "" : "s",
               r->regressions ? ":" : "");
        if (r->regressions)
            printf("  %-22s %-16s %-24s %16s %12s %12s\n", "scene", "solver", "quantity", "band",
                   "value", "baseline");
        for (int i = 0; i < vs->n; i++) {
            const verdict *v = &vs->v[i];
            if (v->kind == V_COMPARED && v->bad)
                printf("  %-22s %-16s %-24s %16s %12.4g %12.4g\n", v->scene, v->solver,
                       v->quantity, v->band, v->got, v->base);
        }
    }
    if (r->unbaselined) {
        printf("%d scene x solver pair%s run without a baseline entry%s:", r->unbaselined,
               r->unbaselined == 1 ? "" : "s", update ? " (added)" : " (not compared)");
        for (int i = 0; i < vs->n; i++)
            if (vs->v[i].kind == V_NO_ENTRY) printf(" %s/%s", vs->v[i].scene, vs->v[i].solver);
        printf("\n");
    }
    if (r->unavailable) {
        printf("%d baseline entr%s whose solver is not available (a plugin not loaded?; not "
               "run):", r->unavailable, r->unavailable == 1 ? "y" : "ies");
        for (int i = 0; i < vs->n; i++)
            if (vs->v[i].kind == V_UNAVAILABLE) printf(" %s/%s", vs->v[i].scene, vs->v[i].solver);
        printf("\n");
    }
    if (r->not_selected)
        printf("%d baseline entr%s not selected by --solvers\n", r->not_selected,
               r->not_selected == 1 ? "y" : "ies");
}

static int in_list(const ncp_solver_desc *const *l, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(l[i]->name, name)) return 1;
    return 0;
}

int ncp_check_run(const ncp_check_opts *o, ncp_check_result *res, ncp_error *err)
{
    memset(res, 0, sizeof *res);
    const ncp_solver_catalog *cat = o->catalog ? o->catalog : ncp_registry_catalog();
    char *text = NULL;
    int rc = ncp_read_file(o->baseline, &text, NULL, err);
    if (rc) return rc;
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!root || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: not a valid JSON object", o->baseline);
    }
    verdicts vs = {NULL, 0, 0};
    cJSON *entries = cJSON_GetObjectItemCaseSensitive(root, "entries");
    const cJSON *jb = cJSON_GetObjectItemCaseSensitive(root, "bands");
    const cJSON *jbud = cJSON_GetObjectItemCaseSensitive(root, "budget");
    double seed = 1, tol = 0, maxit = 0;
    bands b = {0, 0, 0, 0};
    /* the selection (--solvers) and the parameters are checked before anything runs */
    const ncp_solver_desc *sel[NCP_MAX_BENCH_SOLVERS];
    int nsel = 0;
    /* variants of --solvers and of the baseline's entries (pgs@omega=1.3) */
    ncp_solver_variants *var = ncp_calloc(err, 1, sizeof *var);
    if (!var) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    if (o->update && (o->nparams > 0 || o->max_iter > 0)) {
        rc = ncp_error_set(err, NCP_ERR_INPUT, "--param and --max-iter do not go with --update "
                           "(a baseline records the solvers' defaults under its own "
                           "budget.max_iter)");
        goto done;
    }
    if (o->solvers_csv &&
        (rc = ncp_resolve_solvers_v(cat, o->solvers_csv, sel, NCP_MAX_BENCH_SOLVERS, &nsel, var,
                                    err)))
        goto done;
    if ((rc = ncp_pipeline_params_validate(cat, o->params, o->nparams, err))) goto done;
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
    int n = cJSON_GetArraySize(entries);
    for (int i = 0; i < n; i++) {
        const cJSON *e = cJSON_GetArrayItem(entries, i);
        if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "scene")) ||
            !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "solver"))) {
            rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: entries[%d]: 'scene' and 'solver' must be "
                               "strings", o->baseline, i);
            goto done;
        }
    }
#define ENTRY_STR(k, key) \
    cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(entries, (k)), (key))->valuestring

    /* Distinct scenes in order; each rerun once with the solvers checked on it. */
    int printed_header = 0;
    const int knm = ncp_metrics_index("natural_map_rel_acary"), kal = ncp_metrics_index("al_residual");
    for (int i = 0; i < n; i++) {
        const char *scene = ENTRY_STR(i, "scene");
        int first = 1;
        for (int k = 0; k < i; k++)
            if (!strcmp(ENTRY_STR(k, "scene"), scene)) first = 0;
        if (!first) continue;
        char stem[256], outd[4096];
        ncp_path_stem(scene, stem, sizeof stem);
        /* the solvers run on this scene: the selection, else the scene's entries whose solver
         * is available and every plugin solver */
        const ncp_solver_desc *run[NCP_MAX_BENCH_SOLVERS];
        int nrun = 0;
        if (o->solvers_csv) {
            for (int k = 0; k < nsel; k++) run[nrun++] = sel[k];
        }
        for (int k = i; k < n; k++) {
            if (strcmp(ENTRY_STR(k, "scene"), scene)) continue;
            const char *sv = ENTRY_STR(k, "solver");
            const ncp_solver_desc *d = ncp_catalog_find(cat, sv);
            for (int q = 0; !d && q < var->n; q++)
                if (!strcmp(var->v[q].name, sv)) d = &var->v[q].desc;
            ncp_error ve = {0};
            if (!d && ncp_is_variant_name(sv) && var->n < NCP_MAX_BENCH_SOLVERS &&
                !ncp_catalog_variant(cat, sv, &var->v[var->n], &ve))
                d = &var->v[var->n++].desc;
            if (!d) {
                if (!verdict_add(&vs, stem, sv, V_UNAVAILABLE, err)) goto nomem;
                res->unavailable++;
            } else if (o->solvers_csv && !in_list(sel, nsel, sv)) {
                res->not_selected++;
            } else if (!o->solvers_csv && !in_list(run, nrun, sv) && nrun < NCP_MAX_BENCH_SOLVERS) {
                run[nrun++] = d;
            }
        }
        for (int k = 0; !o->solvers_csv && k < cat->n; k++)
            if (ncp_catalog_plugin_file(cat, k) && !in_list(run, nrun, cat->solvers[k]->name) &&
                nrun < NCP_MAX_BENCH_SOLVERS)
                run[nrun++] = cat->solvers[k];
        if (nrun == 0) continue;
        char csv[4096] = "";
        size_t used = 0;
        for (int k = 0; k < nrun && used < sizeof csv; k++)
            used += (size_t)snprintf(csv + used, sizeof csv - used, "%s%s", k ? "," : "",
                                     run[k]->name);
        ncp_pipeline_opts po;
        ncp_pipeline_opts_default(&po);
        snprintf(outd, sizeof outd, "%s/%s", o->out_dir, stem);
        po.solvers_csv = csv;
        po.budget.tol = tol;
        po.budget.max_iter = o->max_iter > 0 ? o->max_iter : (int)maxit;
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
        po.params = o->params; /* recorded in the rerun's config.json */
        po.nparams = o->nparams;
        po.catalog = o->catalog;
        po.isolate = o->isolate;
        /* A baseline's scene paths ("scenes/x.json") resolve against, in order: the baseline's
         * own folder, the working directory, then the data directory (util/fsutil.h
         * ncp_find_scene), so the shipped baseline works from anywhere with an installed
         * binary, and a baseline kept beside its own scenes stays self-contained. */
        char scene_path[4200], base_dir[4096];
        snprintf(base_dir, sizeof base_dir, "%s", o->baseline);
        char *slash = strrchr(base_dir, '/');
        if (slash) *slash = '\0';
        else snprintf(base_dir, sizeof base_dir, ".");
        if ((rc = ncp_find_scene(scene, base_dir, scene_path, sizeof scene_path, err))) {
            ncp_error_prefix(err, "%s: entries[%d]: ", o->baseline, i);
            goto done;
        }
        ncp_bench_summary sum;
        if ((rc = ncp_pipeline_run_scene(scene_path, &po, &sum, NULL, 0, err))) {
            ncp_error_prefix(err, "%s: entries[%d]: ", o->baseline, i);
            goto done;
        }
        if (sum.interrupted) break;
        for (int r = 0; r < nrun; r++) {
            const char *sv = run[r]->name;
            const ncp_solver_summary *ss = NULL;
            for (int q = 0; q < sum.nsolvers; q++)
                if (strcmp(sum.solvers[q].solver, sv) == 0) ss = &sum.solvers[q];
            if (!ss) {
                rc = ncp_error_set(err, NCP_ERR_INTERNAL, "solver %s missing from the rerun", sv);
                goto done;
            }
            cJSON *ek = NULL;
            int kidx = -1;
            for (int k = i; k < n && !ek; k++)
                if (!strcmp(ENTRY_STR(k, "scene"), scene) && !strcmp(ENTRY_STR(k, "solver"), sv)) {
                    ek = cJSON_GetArrayItem(entries, k);
                    kidx = k;
                }
            double got[5] = {ss->problems, ss->converged, ss->median_iterations, ss->median[knm],
                             ss->median[kal]};
            const char *keys[5] = {"problems", "converged", "iterations", "natural_map_rel_acary",
                                   "al_residual"};
            if (!ek) {
                if (!verdict_add(&vs, stem, sv, V_NO_ENTRY, err)) goto nomem;
                res->unbaselined++;
                if (!o->update) continue;
                /* --update adds the pair, after the scene's other entries */
                cJSON *ne = cJSON_CreateObject();
                if (!ne || !cJSON_AddStringToObject(ne, "scene", scene) ||
                    !cJSON_AddStringToObject(ne, "solver", sv)) {
                    cJSON_Delete(ne);
                    goto nomem;
                }
                int last = i;
                for (int k = i; k < n; k++)
                    if (!strcmp(ENTRY_STR(k, "scene"), scene)) last = k;
                if (!cJSON_InsertItemInArray(entries, last + 1, ne)) {
                    cJSON_Delete(ne);
                    goto nomem;
                }
                n++;
                ek = ne;
            }
            if (o->update) {
                for (int q = 0; q < 5; q++)
                    if ((rc = set_num(ek, keys[q], got[q], err))) goto done;
                continue;
            }
            res->checked++;
            for (int q = 0; q < 5; q++) {
                double base = 0.0;
                char where[64];
                snprintf(where, sizeof where, "entries[%d]", kidx);
                if ((rc = get_num(ek, keys[q], &base, o->baseline, where, err))) goto done;
                verdict *v = verdict_add(&vs, stem, sv, V_COMPARED, err);
                if (!v) goto nomem;
                v->quantity = keys[q];
                v->base = base;
                v->got = got[q];
                if (q == 0) {
                    v->bad = got[q] != base;
                    snprintf(v->band, sizeof v->band, "== %g", base);
                } else if (q == 1) {
                    v->bad = got[q] < base;
                    snprintf(v->band, sizeof v->band, ">= %g", base);
                } else if (q == 2) {
                    double lim = base * b.ifac + b.islack;
                    v->bad = !(got[q] <= lim);
                    snprintf(v->band, sizeof v->band, "<= %g", lim);
                } else {
                    double lim = fmax(base * b.rfac, b.rfloor);
                    v->bad = !(got[q] <= lim);
                    snprintf(v->band, sizeof v->band, "<= %.3g", lim);
                }
                if (!printed_header) {
                    printf("%-22s %-14s %-24s %12s %12s %14s %s\n", "scene", "solver", "quantity",
                           "baseline", "now", "band", "verdict");
                    printed_header = 1;
                }
                printf("%-22s %-14s %-24s %12.4g %12.4g %14s %s\n", stem, sv, keys[q], base,
                       got[q], v->band, v->bad ? "REGRESSED" : "ok");
                res->regressions += v->bad;
            }
        }
    }
#undef ENTRY_STR
    if (o->interrupt && *o->interrupt) goto done; /* nothing written from a partial run */
    if (o->update) {
        char *out = cJSON_Print(root);
        if (!out) goto nomem;
        size_t len = strlen(out);
        char *o2 = realloc(out, len + 2);
        if (!o2) {
            free(out);
            goto nomem;
        }
        o2[len] = '\n';
        o2[len + 1] = '\0';
        rc = ncp_write_file_atomic(o->baseline, o2, err);
        free(o2);
        if (rc) goto done;
    }
    print_summary(&vs, res, o->update);
    if (o->update) printf("baseline %s updated\n", o->baseline);
    if (o->junit && (rc = write_junit(o->junit, o->baseline, &vs, o->strict, err))) goto done;
    goto done;
nomem:
    rc = ncp_error_set(err, NCP_ERR_NOMEM, "out of memory");
done:
    free(var);
    free(vs.v);
    cJSON_Delete(root);
    return rc;
}
