#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/fsutil.h"
#include "ncp_config.h"
#include "bench/output.h"
#include "util/stats.h"
#include "solvers/registry.h"

static void put_num(FILE *f, double x)
{
    if (isnan(x)) fputs("nan", f);
    else if (isinf(x)) fputs(x > 0 ? "inf" : "-inf", f);
    else fprintf(f, "%.17g", x);
}

int ncp_out_metrics_header(FILE *f)
{
    fputs("problem,solver,iterations,converged,status,setup_ms,solve_ms,ms_per_iter", f);
    for (int i = 0; i < ncp_metrics_count(); i++) fprintf(f, ",%s", ncp_metrics_name(i));
    fputc('\n', f);
    return fflush(f);
}

int ncp_out_metrics_row(FILE *f, const char *problem, const char *solver, const ncp_result *r)
{
    double vals[NCP_NMETRICS];
    fprintf(f, "%s,%s,%d,%d,%s,", problem, solver, r->iterations, r->converged,
            ncp_status_name(r->status));
    put_num(f, r->setup_ms);
    fputc(',', f);
    put_num(f, r->solve_ms);
    fputc(',', f);
    put_num(f, r->iterations > 0 ? r->solve_ms / r->iterations : NAN);
    ncp_metrics_values(&r->final, vals);
    for (int i = 0; i < ncp_metrics_count(); i++) {
        fputc(',', f);
        put_num(f, vals[i]);
    }
    fputc('\n', f);
    return fflush(f) || ferror(f);
}

int ncp_out_traces_header(FILE *f)
{
    fputs("problem,solver,iteration,time_ms", f);
    for (int i = 0; i < ncp_metrics_count(); i++) fprintf(f, ",%s", ncp_metrics_name(i));
    fputc('\n', f);
    return fflush(f);
}

int ncp_out_traces_row(FILE *f, const char *problem, const char *solver, int iter, double time_ms,
                       const double *vals)
{
    fprintf(f, "%s,%s,%d,", problem, solver, iter);
    put_num(f, time_ms);
    for (int i = 0; i < ncp_metrics_count(); i++) {
        fputc(',', f);
        put_num(f, vals[i]);
    }
    fputc('\n', f);
    return ferror(f);
}

/* cJSON prints doubles with 15 digits and NaN as null (cJSON 1.7): raw %.17g keeps
 * them exact. */
static cJSON *num(double x)
{
    if (!isfinite(x)) return cJSON_CreateNull();
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", x);
    return cJSON_CreateRaw(buf);
}

static int add(cJSON *obj, const char *key, cJSON *item)
{
    if (!item) return 1;
    if (!cJSON_AddItemToObject(obj, key, item)) {
        cJSON_Delete(item);
        return 1;
    }
    return 0;
}

int ncp_out_summary(const char *path, const ncp_bench_opts *o, const ncp_bench_summary *s,
                    ncp_error *err)
{
    cJSON *root = cJSON_CreateObject();
    int bad = !root;
    if (!bad) {
        bad |= add(root, "ncpbench_version", cJSON_CreateString(NCP_VERSION));
        bad |= add(root, "blas", cJSON_CreateString(NCP_BLAS_BACKEND));
        bad |= add(root, "scene", cJSON_CreateString(o->scene_name ? o->scene_name : ""));
        bad |= add(root, "source", cJSON_CreateString(o->source ? o->source : ""));
        bad |= add(root, "seed", num((double)o->seed));
        bad |= add(root, "quick", cJSON_CreateBool(o->quick));
        bad |= add(root, "jobs", num(o->jobs));
        bad |= add(root, "problems", num(s->nproblems));
        bad |= add(root, "interrupted", cJSON_CreateBool(s->interrupted));
        cJSON *b = cJSON_CreateObject();
        if (b) {
            bad |= add(b, "tol", num(o->budget.tol));
            bad |= add(b, "max_iter", num(o->budget.max_iter));
            bad |= add(b, "time_ms", num(o->budget.time_ms));
            bad |= add(b, "stop_metric", cJSON_CreateString(ncp_metrics_name(o->stop_metric)));
        }
        bad |= add(root, "budget", b);
        cJSON *arr = cJSON_CreateArray();
        bad |= !arr;
        for (int i = 0; arr && i < s->nsolvers; i++) {
            const ncp_solver_summary *ss = &s->solvers[i];
            cJSON *so = cJSON_CreateObject();
            if (!so) {
                bad = 1;
                break;
            }
            const ncp_solver_desc *d = ncp_solver_find(ss->solver);
            bad |= add(so, "solver", cJSON_CreateString(ss->solver));
            bad |= add(so, "source", cJSON_CreateString(d ? d->source : ""));
            bad |= add(so, "problems", num(ss->problems));
            bad |= add(so, "converged", num(ss->converged));
            bad |= add(so, "failed", num(ss->failed));
            bad |= add(so, "timeouts", num(ss->timeouts));
            bad |= add(so, "max_iter_reached", num(ss->max_iters));
            bad |= add(so, "median_iterations", num(ss->median_iterations));
            bad |= add(so, "max_iterations", num(ss->max_iterations));
            bad |= add(so, "median_setup_ms", num(ss->median_setup_ms));
            bad |= add(so, "median_solve_ms", num(ss->median_solve_ms));
            bad |= add(so, "total_solve_ms", num(ss->total_solve_ms));
            cJSON *med = cJSON_CreateObject(), *mx = cJSON_CreateObject();
            for (int k = 0; med && mx && k < ncp_metrics_count(); k++) {
                bad |= add(med, ncp_metrics_name(k), num(ss->median[k]));
                bad |= add(mx, ncp_metrics_name(k), num(ss->max[k]));
            }
            bad |= add(so, "median", med);
            bad |= add(so, "max", mx);
            if (!cJSON_AddItemToArray(arr, so)) {
                cJSON_Delete(so);
                bad = 1;
            }
        }
        bad |= add(root, "solvers", arr);
    }
    char *text = bad ? NULL : cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory writing %s", path);
    size_t n = strlen(text);
    char *t2 = realloc(text, n + 2);
    if (!t2) {
        free(text);
        return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory writing %s", path);
    }
    t2[n] = '\n';
    t2[n + 1] = '\0';
    int rc = ncp_write_file_atomic(path, t2, err);
    free(t2);
    return rc;
}
