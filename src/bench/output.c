#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util/fsutil.h"
#include "util/safefile.h"
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

/* The columns before and after the metric columns. */
static const char *const COLS_HEAD[] = {"problem", "solver", "iterations", "converged", "status",
                                        "setup_ms", "solve_ms", "ms_per_iter"};
static const char *const COLS_TAIL[] = {"note", "problem_title", "problem_description"};
enum { NHEAD = sizeof COLS_HEAD / sizeof COLS_HEAD[0], NTAIL = sizeof COLS_TAIL / sizeof COLS_TAIL[0] };

int ncp_out_metrics_ncols(void) { return NHEAD + ncp_metrics_count() + NTAIL; }

const char *ncp_out_metrics_col(int i)
{
    if (i < 0) return NULL;
    if (i < NHEAD) return COLS_HEAD[i];
    i -= NHEAD;
    if (i < ncp_metrics_count()) return ncp_metrics_name(i);
    i -= ncp_metrics_count();
    return i < NTAIL ? COLS_TAIL[i] : NULL;
}

/* A control character is written as a space; the reader drops blanks around an unquoted field. */
static int blankish(unsigned char ch) { return ch <= 0x20 || ch == 0x7f; }

void ncp_out_field(FILE *f, const char *s)
{
    if (!s || !*s) return;
    size_t n = strlen(s);
    int quote = blankish((unsigned char)s[0]) || blankish((unsigned char)s[n - 1]);
    for (const char *c = s; *c && !quote; c++) quote = *c == ',' || *c == '"';
    if (quote) fputc('"', f);
    for (const char *c = s; *c; c++) {
        unsigned char ch = (unsigned char)*c;
        if (ch == '"') fputs("\"\"", f);
        else fputc(ch < 0x20 || ch == 0x7f ? ' ' : ch, f);
    }
    if (quote) fputc('"', f);
}

int ncp_out_metrics_header(FILE *f)
{
    for (int i = 0; i < ncp_out_metrics_ncols(); i++)
        fprintf(f, "%s%s", i ? "," : "", ncp_out_metrics_col(i));
    fputc('\n', f);
    return fflush(f);
}

int ncp_out_metrics_row(FILE *f, const ncp_problem *p, const char *solver, const ncp_result *r,
                        const char *note)
{
    double vals[NCP_NMETRICS];
    ncp_metrics_values(&r->final, vals);
    return ncp_out_metrics_row_vals(f, p->name, solver, r->iterations, r->converged, r->status,
                                    r->setup_ms, r->solve_ms, vals, note, p->title,
                                    p->description);
}

int ncp_out_metrics_row_vals(FILE *f, const char *problem, const char *solver, int iterations,
                             int converged, int status, double setup_ms, double solve_ms,
                             const double *vals, const char *note, const char *title,
                             const char *description)
{
    ncp_out_field(f, problem);
    fputc(',', f);
    ncp_out_field(f, solver);
    fprintf(f, ",%d,%d,%s,", iterations, converged, ncp_status_name(status));
    put_num(f, setup_ms);
    fputc(',', f);
    put_num(f, solve_ms);
    fputc(',', f);
    put_num(f, iterations > 0 ? solve_ms / iterations : NAN);
    for (int i = 0; i < ncp_metrics_count(); i++) {
        fputc(',', f);
        put_num(f, vals[i]);
    }
    fputc(',', f);
    ncp_out_field(f, note);
    fputc(',', f);
    ncp_out_field(f, title);
    fputc(',', f);
    ncp_out_field(f, description);
    fputc('\n', f);
    return ferror(f);
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
    ncp_out_field(f, problem);
    fputc(',', f);
    ncp_out_field(f, solver);
    fprintf(f, ",%d,", iter);
    put_num(f, time_ms);
    for (int i = 0; i < ncp_metrics_count(); i++) {
        fputc(',', f);
        put_num(f, vals[i]);
    }
    fputc('\n', f);
    return ferror(f);
}

struct ncp_out_traces {
    ncp_traces *h5;
    char *h5_tmp, *h5_path; /* traces.h5 is written to h5_tmp (util/safefile.h) */
    ncp_safe_file csv;      /* traces.csv, csv.f NULL without */
    int every;
    double *buf; /* the sampled rows of one trace */
    int cap;
};

int ncp_out_traces_ncols(void) { return NCP_TRACE_FIXED + ncp_metrics_count(); }

int ncp_out_traces_open(const char *dir, int csv, int every, ncp_out_traces **out,
                        ncp_error *err)
{
    *out = NULL;
    char path[4300];
    const char *cols[NCP_TRACE_MAX_COLS];
    int nc = ncp_out_traces_ncols();
    if (nc > NCP_TRACE_MAX_COLS)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "%d trace columns (at most %d)", nc,
                             NCP_TRACE_MAX_COLS);
    cols[0] = "iter";
    cols[1] = "time_ms";
    for (int i = 0; i < ncp_metrics_count(); i++) cols[NCP_TRACE_FIXED + i] = ncp_metrics_name(i);
    ncp_out_traces *t = ncp_calloc(err, 1, sizeof *t);
    if (!t) return NCP_ERR_NOMEM;
    t->every = every;
    int rc = ncp_path_join(path, sizeof path, dir, "traces.h5", err);
    if (!rc && !(t->h5_path = ncp_strdup(err, path))) rc = NCP_ERR_NOMEM;
    if (!rc) rc = ncp_safe_reserve(path, &t->h5_tmp, err);
    if (!rc) rc = ncp_traces_create(t->h5_tmp, nc, cols, every ? "every" : "log", &t->h5, err);
    ncp_traces_set_flush(t->h5, 0); /* the journal has the traces: one flush, at the close */
    if (!rc && csv) {
        if (!(rc = ncp_path_join(path, sizeof path, dir, "traces.csv", err)) &&
            !(rc = ncp_safe_create(path, &t->csv, err)) && ncp_out_traces_header(t->csv.f))
            rc = ncp_error_set(err, NCP_ERR_IO, "cannot write %s", path);
    }
    if (rc) {
        ncp_out_traces_abort(t);
        return rc;
    }
    /* a traces.csv of an earlier run in this directory would be taken for this run's */
    if (!csv && (rc = ncp_path_join(path, sizeof path, dir, "traces.csv", err)) == NCP_OK)
        remove(path);
    *out = t;
    return rc;
}

int ncp_out_traces_sample(const double *rows, int n, int every, double *out)
{
    int nc = ncp_out_traces_ncols(), k = 0;
    for (int i = 0; i < n; i++) {
        const double *r = rows + (size_t)i * nc;
        /* the last row is the final iterate: stored whatever its index */
        if (every || i == n - 1 || ncp_traces_sample_keep((long)r[0]))
            memmove(out + (size_t)k++ * nc, r, (size_t)nc * sizeof *r);
    }
    return k;
}

static int put_rows(ncp_out_traces *t, const char *problem, const char *solver, int n,
                    const double *rows, int iterations, const char *status, ncp_error *err)
{
    int nc = ncp_out_traces_ncols();
    if (t->csv.f) {
        for (int i = 0; i < n; i++)
            if (ncp_out_traces_row(t->csv.f, problem, solver, (int)rows[(size_t)i * nc],
                                   rows[(size_t)i * nc + 1], rows + (size_t)i * nc + 2))
                return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", t->csv.path,
                                     strerror(errno ? errno : EIO));
    }
    return ncp_traces_write(t->h5, solver, problem, n, rows, iterations, status, err);
}

int ncp_out_traces_put(ncp_out_traces *t, const char *problem, const char *solver, int n,
                       const double *rows, int iterations, const char *status, ncp_error *err)
{
    if (!t || n <= 0) return NCP_OK;
    if (t->every) return put_rows(t, problem, solver, n, rows, iterations, status, err);
    int nc = ncp_out_traces_ncols(), rc;
    if ((rc = ncp_bench_grow(&t->buf, &t->cap, n * nc, sizeof *t->buf, err))) return rc;
    int k = ncp_out_traces_sample(rows, n, 0, t->buf);
    return put_rows(t, problem, solver, k, t->buf, iterations, status, err);
}

int ncp_out_traces_close(ncp_out_traces *t, ncp_error *err)
{
    if (!t) return NCP_OK;
    int rc = t->csv.f ? ncp_safe_commit(&t->csv, err) : NCP_OK;
    ncp_error e2 = {0};
    int hrc = ncp_traces_close(t->h5, rc ? &e2 : err);
    t->h5 = NULL;
    if (!rc) rc = hrc;
    if (!rc) rc = ncp_safe_rename(t->h5_tmp, t->h5_path, err);
    else if (t->h5_tmp) unlink(t->h5_tmp);
    free(t->h5_tmp);
    t->h5_tmp = NULL;
    ncp_out_traces_abort(t);
    return rc;
}

void ncp_out_traces_abort(ncp_out_traces *t)
{
    if (!t) return;
    ncp_safe_abort(&t->csv);
    if (t->h5) {
        ncp_error e2 = {0};
        ncp_traces_close(t->h5, &e2);
    }
    if (t->h5_tmp) unlink(t->h5_tmp);
    free(t->h5_tmp);
    free(t->h5_path);
    free(t->buf);
    free(t);
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

/* {name: count} of the non-zero counts (names[i] NULL: skipped). */
static cJSON *counts(int n, const int *c, const char *(*name)(int))
{
    cJSON *obj = cJSON_CreateObject();
    for (int i = 0; obj && i < n; i++) {
        const char *k = name(i);
        if (k && c[i] && add(obj, k, num(c[i]))) {
            cJSON_Delete(obj);
            return NULL;
        }
    }
    return obj;
}

static const char *recon_at(int i) { return ncp_recon_name(1u << i); }

/* The harness's reasons; a solver's own are listed by their text (ncp_solver_summary). */
static const char *reason_at(int k)
{
    return k == NCP_UNSUP_SOLVER ? NULL : ncp_unsupported_name(k);
}

/* summary.json "profile": ncp_profile in milliseconds, with the harness's share of
 * the solvers' own time, (monitor + harness) / solver. */
static cJSON *profile_json(const ncp_profile *p)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    int bad = 0;
    bad |= add(o, "capture_ms", num(p->capture_ms));
    bad |= add(o, "load_ms", num(p->load_ms));
    bad |= add(o, "solve_wall_ms", num(p->solve_wall_ms));
    bad |= add(o, "solver_ms", num(p->solver_ms));
    bad |= add(o, "monitor_ms", num(p->monitor_ms));
    bad |= add(o, "harness_ms", num(p->harness_ms));
    bad |= add(o, "write_ms", num(p->write_ms));
    bad |= add(o, "figures_ms", num(p->figures_ms));
    bad |= add(o, "harness_overhead",
               num(p->solver_ms > 0.0 ? (p->monitor_ms + p->harness_ms) / p->solver_ms : NAN));
    if (bad) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int ncp_out_summary_profile(const char *path, const ncp_profile *p, ncp_error *err)
{
    char *text = NULL;
    int rc = ncp_read_file(path, &text, NULL, err);
    if (rc) return rc;
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!root || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: not a JSON object (rewrite it with "
                             "ncpbench run/solve)", path);
    }
    cJSON *item = profile_json(p);
    int bad = !item;
    if (!bad && cJSON_GetObjectItemCaseSensitive(root, "profile"))
        bad = !cJSON_ReplaceItemInObjectCaseSensitive(root, "profile", item);
    else if (!bad)
        bad = !cJSON_AddItemToObject(root, "profile", item);
    return ncp_out_write_json(path, root, bad, err);
}

int ncp_out_summary(const char *path, const ncp_bench_opts *o, const ncp_bench_summary *s,
                    const ncp_out_title *titles, int ntitles, ncp_error *err)
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
        bad |= add(root, "kept_from_earlier_run", num(s->kept));
        bad |= add(root, "dropped_earlier_rows", num(s->dropped));
        cJSON *op = cJSON_CreateObject();
        if (op) {
            bad |= add(op, "reconstruct_primal",
                       cJSON_CreateBool((o->allow & NCP_RECON_PRIMAL_FROM_D) != 0));
            bad |= add(op, "primal", cJSON_CreateString(o->allow & NCP_RECON_PRIMAL_DENSE
                                                            ? "dense" : "as given"));
            bad |= add(op, "symmetrize", cJSON_CreateBool((o->allow & NCP_RECON_SYMMETRIZE) != 0));
            bad |= add(op, "warm_start", cJSON_CreateString(ncp_warm_start_name(o->warm_start)));
        }
        bad |= add(root, "options", op);
        cJSON *b = cJSON_CreateObject();
        if (b) {
            bad |= add(b, "tol", num(o->budget.tol));
            bad |= add(b, "max_iter", num(o->budget.max_iter));
            bad |= add(b, "time_ms", num(o->budget.time_ms));
            bad |= add(b, "stop_metric", cJSON_CreateString(ncp_metrics_name(o->stop_metric)));
        }
        bad |= add(root, "budget", b);
        bad |= add(root, "profile", profile_json(&s->profile));
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
            bad |= add(so, "unsupported", num(ss->unsupported));
            cJSON *why = counts(NCP_UNSUP_COUNT, ss->unsupported_by, reason_at);
            int rest = ss->unsupported_by[NCP_UNSUP_SOLVER];
            for (int k = 0; why && k < ss->ndeclined; k++) {
                bad |= add(why, ss->declined[k], num(ss->declined_count[k]));
                rest -= ss->declined_count[k];
            }
            if (why && rest > 0) bad |= add(why, ncp_unsupported_name(NCP_UNSUP_SOLVER), num(rest));
            bad |= add(so, "unsupported_reasons", why);
            bad |= add(so, "reconstructed", counts(NCP_RECON_COUNT, ss->reconstructed, recon_at));
            bad |= add(so, "warm_start_guess", num(ss->warm_guess));
            bad |= add(so, "warm_start_velocity", num(ss->warm_velocity));
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
        if (ntitles > 0) {
            cJSON *ta = cJSON_CreateArray();
            bad |= !ta;
            for (int i = 0; ta && i < ntitles; i++) {
                cJSON *t = cJSON_CreateObject();
                if (!t || add(t, "problem", cJSON_CreateString(titles[i].problem)) ||
                    add(t, "title", cJSON_CreateString(titles[i].title ? titles[i].title : "")) ||
                    add(t, "description",
                        cJSON_CreateString(titles[i].description ? titles[i].description : "")) ||
                    !cJSON_AddItemToArray(ta, t)) {
                    cJSON_Delete(t);
                    bad = 1;
                    break;
                }
            }
            bad |= add(root, "problem_titles", ta);
        }
    }
    return ncp_out_write_json(path, root, bad, err);
}

int ncp_out_write_json(const char *path, cJSON *root, int bad, ncp_error *err)
{
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
    int rc = ncp_safe_write_text(path, t2, err);
    free(t2);
    return rc;
}
