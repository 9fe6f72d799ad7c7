#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util/clock.h"
#include "util/csv.h"
#include "util/machine.h"
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
                                        "setup_ms", "solve_ms", "ms_per_iter", "time_min_ms",
                                        "time_max_ms", "wall_ms"};
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
                                    r->setup_ms, r->solve_ms,
                                    r->repeats > 1 ? r->time_min_ms : r->setup_ms + r->solve_ms,
                                    r->repeats > 1 ? r->time_max_ms : r->setup_ms + r->solve_ms,
                                    r->solver_wall_ms, vals, note, p->title,
                                    p->description);
}

int ncp_out_metrics_row_vals(FILE *f, const char *problem, const char *solver, int iterations,
                             int converged, int status, double setup_ms, double solve_ms,
                             double time_min_ms, double time_max_ms, double wall_ms,
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
    fputc(',', f);
    put_num(f, time_min_ms);
    fputc(',', f);
    put_num(f, time_max_ms);
    fputc(',', f);
    put_num(f, wall_ms);
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
            rc = ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(errno));
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
        const char *bt = getenv("OPENBLAS_NUM_THREADS");
        bad |= add(root, "openblas_num_threads", bt ? cJSON_CreateString(bt) : cJSON_CreateNull());
        /* the clock of every setup_ms, solve_ms, ms_per_iter and trace time (wall_ms: wall) */
        bad |= add(root, "clock", cJSON_CreateString(ncp_clock_name(o->clock)));
        bad |= add(root, "repeat", num(o->repeat > 1 ? o->repeat : 1));
        cJSON *mach = cJSON_CreateObject(), *la = cJSON_CreateArray();
        char cpu[256];
        ncp_cpu_model(cpu, sizeof cpu);
        for (int i = 0; la && i < 3; i++) cJSON_AddItemToArray(la, num(s->load_start[i]));
        if (mach && la) {
            bad |= add(mach, "cpu", cJSON_CreateString(cpu));
            bad |= add(mach, "cores", num(ncp_cpu_cores()));
            bad |= add(mach, "load_average_at_start", la);
            la = NULL;
        } else {
            bad = 1;
        }
        cJSON_Delete(la);
        bad |= add(root, "machine", mach);
        char sum64[24];
        snprintf(sum64, sizeof sum64, "%016llx", (unsigned long long)s->problem_checksum);
        bad |= add(root, "problem_set_checksum", cJSON_CreateString(sum64));
        bad |= add(root, "scene", cJSON_CreateString(o->scene_name ? o->scene_name : ""));
        bad |= add(root, "source", cJSON_CreateString(o->source ? o->source : ""));
        bad |= add(root, "seed", num((double)o->seed));
        bad |= add(root, "quick", cJSON_CreateBool(o->quick));
        bad |= add(root, "jobs", num(o->jobs));
        bad |= add(root, "problems", num(s->nproblems));
        bad |= add(root, "interrupted", cJSON_CreateBool(s->interrupted));
        bad |= add(root, "kept_from_earlier_run", num(s->kept));
        bad |= add(root, "dropped_earlier_rows", num(s->dropped));
        bad |= add(root, "rows_of_other_solvers", num(s->hidden));
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
            /* the run's catalog: plugin solvers are described as built-in ones, plus their
             * file (solve/plugin_load.h) */
            const ncp_solver_catalog *cat = o->catalog ? o->catalog : ncp_registry_catalog();
            int di = ncp_catalog_base_index(cat, ss->solver); /* a variant's: its base's */
            const ncp_solver_desc *d = di >= 0 ? cat->solvers[di] : NULL;
            const char *plugin = ncp_catalog_plugin_file(cat, di);
            bad |= add(so, "solver", cJSON_CreateString(ss->solver));
            bad |= add(so, "source", cJSON_CreateString(d && d->source ? d->source : ""));
            if (plugin) bad |= add(so, "plugin", cJSON_CreateString(plugin));
            if (ss->self_timed) bad |= add(so, "self_timed", cJSON_CreateBool(1));
            bad |= add(so, "problems", num(ss->problems));
            bad |= add(so, "converged", num(ss->converged));
            bad |= add(so, "failed", num(ss->failed));
            bad |= add(so, "timeouts", num(ss->timeouts));
            bad |= add(so, "max_iter_reached", num(ss->max_iters));
            bad |= add(so, "crashed", num(ss->crashed));
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
        if (!bad) {
            cJSON *tab = NULL;
            int rrc = ncp_out_results(o->out_dir, o, &tab, err);
            if (rrc) {
                cJSON_Delete(root);
                return rrc;
            }
            bad |= add(root, "results_table", tab);
        }
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

/* ---------------------------------------------------------------------------------------- */
/* Results tables (output.h; issue 16)                                                        */

void ncp_results_grid_free(ncp_results_grid *g)
{
    if (!g) return;
    for (int s = 0; s < g->ns; s++) free(g->solver[s]);
    for (int p = 0; p < g->np; p++) free(g->problem[p]);
    free(g->solver);
    free(g->problem);
    free(g->cell);
    free(g->fail_time_ms);
    free(g->fail_iter);
    memset(g, 0, sizeof *g);
}

/* Column of solver `name`, a new one (every earlier problem: no row) when it is new. */
static int grid_solver(ncp_results_grid *g, const char *name, ncp_error *err)
{
    for (int s = 0; s < g->ns; s++)
        if (!strcmp(g->solver[s], name)) return s;
    int ns = g->ns + 1;
    char **sv = realloc(g->solver, (size_t)ns * sizeof *sv);
    if (!sv) {
        ncp_error_set(err, NCP_ERR_NOMEM, "out of memory reading the results");
        return -1;
    }
    g->solver = sv;
    ncp_results_cell *c = ncp_calloc(err, (size_t)(g->cap ? g->cap : 1) * (size_t)ns, sizeof *c);
    char *nm = c ? ncp_strdup(err, name) : NULL;
    if (!nm) {
        free(c);
        return -1;
    }
    for (int p = 0; p < g->np; p++)
        memcpy(c + (size_t)p * ns, g->cell + (size_t)p * g->ns, (size_t)g->ns * sizeof *c);
    free(g->cell);
    g->cell = c;
    g->solver[g->ns] = nm;
    return g->ns++;
}

/* Row of problem `name` of the file being read, a new one when it is new. */
static int grid_problem(ncp_results_grid *g, const char *name, double time_ms, int max_iter,
                        ncp_error *err)
{
    /* the rows of a problem are together (problem-major): the last one first */
    for (int p = g->np - 1; p >= g->file_first; p--)
        if (!strcmp(g->problem[p], name)) return p;
    if (g->np == g->cap) {
        int cap = g->cap ? 2 * g->cap : 64;
        size_t ns = (size_t)(g->ns ? g->ns : 1);
        ncp_results_cell *c = realloc(g->cell, (size_t)cap * ns * sizeof *c);
        if (c) g->cell = c;
        char **pn = c ? realloc(g->problem, (size_t)cap * sizeof *pn) : NULL;
        if (pn) g->problem = pn;
        double *ft = pn ? realloc(g->fail_time_ms, (size_t)cap * sizeof *ft) : NULL;
        if (ft) g->fail_time_ms = ft;
        int *fi = ft ? realloc(g->fail_iter, (size_t)cap * sizeof *fi) : NULL;
        if (!fi) {
            ncp_error_set(err, NCP_ERR_NOMEM, "out of memory reading the results");
            return -1;
        }
        g->fail_iter = fi;
        g->cap = cap;
    }
    if (!(g->problem[g->np] = ncp_strdup(err, name))) return -1;
    memset(g->cell + (size_t)g->np * g->ns, 0, (size_t)g->ns * sizeof *g->cell);
    g->fail_time_ms[g->np] = time_ms;
    g->fail_iter[g->np] = max_iter;
    return g->np++;
}

typedef struct {
    ncp_results_grid *g;
    double time_ms;
    int max_iter;
} grid_read;

static int grid_row(void *ctx, const char *const *f, const char *path, long line, ncp_error *err)
{
    grid_read *rd = ctx;
    ncp_results_grid *g = rd->g;
    int s = grid_solver(g, f[1], err);
    int p = s < 0 ? -1 : grid_problem(g, f[0], rd->time_ms, rd->max_iter, err);
    if (p < 0) return err->code ? err->code : NCP_ERR_NOMEM;
    double it, conv, setup, solve;
    if (ncp_csv_number(f[2], &it) || ncp_csv_number(f[3], &conv) ||
        ncp_csv_number(f[5], &setup) || ncp_csv_number(f[6], &solve) || !(it >= 0.0) ||
        it > 2e9 || (conv != 0.0 && conv != 1.0) || isinf(setup) || isinf(solve))
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "%s:%ld: iterations/converged/setup_ms/solve_ms '%s', '%s', '%s', "
                             "'%s' are not a count, 0 or 1 and two finite numbers or nan (rewrite "
                             "the file with ncpbench run/solve)",
                             path, line, f[2], f[3], f[5], f[6]);
    ncp_results_cell *c = g->cell + (size_t)p * g->ns + s;
    c->present = 1;
    c->converged = conv == 1.0;
    c->unsupported = !strcmp(f[4], ncp_status_name(NCP_STATUS_UNSUPPORTED));
    c->iterations = (int)it;
    /* nan: a graded answer without the program's time (docs/answers.md); it counts in the
     * success rate and the iterations, never as a time (0 would make it look instant) */
    c->time_ms = isnan(setup) || isnan(solve) ? NAN : fmax(setup + solve, 0.0);
    return NCP_OK;
}

int ncp_results_read_csv(ncp_results_grid *g, const char *csv, double time_ms, int max_iter,
                         ncp_error *err)
{
    static const char *const cols[7] = {"problem",  "solver",   "iterations", "converged",
                                        "status",   "setup_ms", "solve_ms"};
    grid_read rd = {g, time_ms, max_iter};
    g->file_first = g->np;
    return ncp_csv_read(csv, cols, 7, grid_row, &rd, err);
}

/* -1, 0, 1: a before, tied with, after b on one key (lower first); NaN after any number. */
static int key_cmp(double a, double b)
{
    if (isnan(a) || isnan(b)) return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}

/* Whether row a (at index ia) ranks before row b (at ib): the order of ncp_results_compute. */
static int ranks_before(const ncp_results_row *a, int ia, const ncp_results_row *b, int ib)
{
    int c = key_cmp(-a->success, -b->success);
    if (!c) c = key_cmp(a->sgm_time_ms, b->sgm_time_ms);
    if (!c) c = key_cmp(a->sgm_iter, b->sgm_iter);
    return c ? c < 0 : ia < ib;
}

int ncp_results_compute(const ncp_results_grid *g, ncp_results_row *rows, ncp_error *err)
{
    int np = g->np, ns = g->ns, rc = NCP_OK;
    size_t n = (size_t)np * (size_t)ns + 1;
    double *t = ncp_malloc(err, n, sizeof *t), *r = ncp_malloc(err, n, sizeof *r);
    double *xt = ncp_malloc(err, (size_t)np + 1, sizeof *xt);
    double *xi = ncp_malloc(err, (size_t)np + 1, sizeof *xi);
    if (!t || !r || !xt || !xi) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    for (int p = 0; p < np; p++)
        for (int s = 0; s < ns; s++) {
            const ncp_results_cell *c = g->cell + (size_t)p * ns + s;
            /* an untimed row is left out of the profile (it cannot be compared in time) */
            t[(size_t)p * ns + s] = c->present && c->converged && !isnan(c->time_ms)
                                        ? fmax(c->time_ms, NCP_RESULTS_TIME_FLOOR_MS)
                                        : INFINITY;
        }
    if ((rc = ncp_perf_ratios(np, ns, t, r, err))) goto done;
    for (int s = 0; s < ns; s++) {
        ncp_results_row *w = &rows[s];
        memset(w, 0, sizeof *w);
        w->solver = g->solver[s];
        w->problems = np;
        int untimed = 0;
        for (int p = 0; p < np; p++) {
            const ncp_results_cell *c = g->cell + (size_t)p * ns + s;
            int ok = c->present && c->converged;
            untimed |= c->present && isnan(c->time_ms);
            w->converged += ok;
            w->unsupported += c->present && c->unsupported;
            double fail_t = g->fail_time_ms[p];
            if (!(fail_t > 0.0)) { /* no time budget: the slowest run on the problem */
                fail_t = 0.0;
                for (int k = 0; k < ns; k++) {
                    const ncp_results_cell *o = g->cell + (size_t)p * ns + k;
                    if (o->present) fail_t = fmax(fail_t, o->time_ms);
                }
            }
            xt[p] = ok ? c->time_ms : fail_t;
            int fail_i = g->fail_iter[p];
            if (fail_i <= 0) /* no iteration budget (graded answers): the most any solver ran */
                for (int k = 0; k < ns; k++) {
                    const ncp_results_cell *o = g->cell + (size_t)p * ns + k;
                    if (o->present && o->iterations > fail_i) fail_i = o->iterations;
                }
            xi[p] = ok ? (double)c->iterations : (double)fail_i;
        }
        int supported = np - w->unsupported;
        w->success = np > 0 ? (double)w->converged / np : NAN;
        w->success_supported = supported > 0 ? (double)w->converged / supported : NAN;
        w->sgm_time_ms = ncp_sgm(xt, np, NCP_RESULTS_TIME_SHIFT_MS);
        w->sgm_iter = ncp_sgm(xi, np, NCP_RESULTS_ITER_SHIFT);
        w->rho_1 = ncp_perf_rho(np, ns, r, s, 1.0);
        w->rho_10 = ncp_perf_rho(np, ns, r, s, 10.0);
        int k = 0;
        for (int p = 0; p < np; p++)
            if (isfinite(t[(size_t)p * ns + s])) xt[k++] = t[(size_t)p * ns + s];
        w->median_time_ms = ncp_median(xt, k);
        if (untimed) /* a solver with untimed rows has no time statistics at all */
            w->sgm_time_ms = w->rho_1 = w->rho_10 = w->median_time_ms = NAN;
    }
    /* normalised to the best solver (qpbenchmark: best = 1.0); a best of 0 (every failure at a
     * zero time, iterations all zero) leaves no ratio */
    double bt = INFINITY, bi = INFINITY;
    for (int s = 0; s < ns; s++) {
        if (!isnan(rows[s].sgm_time_ms)) bt = fmin(bt, rows[s].sgm_time_ms);
        if (!isnan(rows[s].sgm_iter)) bi = fmin(bi, rows[s].sgm_iter);
    }
    for (int s = 0; s < ns; s++) {
        rows[s].sgm_time_norm = bt > 0.0 && isfinite(bt) ? rows[s].sgm_time_ms / bt : NAN;
        rows[s].sgm_iter_norm = bi > 0.0 && isfinite(bi) ? rows[s].sgm_iter / bi : NAN;
    }
    for (int s = 0; s < ns; s++) { /* ns is small: count the rows ranked before s */
        rows[s].rank = 1;
        for (int k = 0; k < ns; k++) rows[s].rank += k != s && ranks_before(&rows[k], k, &rows[s], s);
    }
done:
    free(t);
    free(r);
    free(xt);
    free(xi);
    return rc;
}

/* Family of a solver for the tables: the registry's, the plugin family for a plugin solver of
 * the catalog, "other" for a name neither knows. */
static int results_graded(const char *solver, const ncp_results_conditions *c)
{
    for (int i = 0; i < c->ngraded; i++)
        if (!strcmp(c->graded[i], solver)) return 1;
    return 0;
}

static const char *results_family(const char *solver, const ncp_results_conditions *c)
{
    if (results_graded(solver, c)) return NCP_RESULTS_GRADED_FAMILY;
    const ncp_solver_catalog *cat = c->catalog;
    const char *f = ncp_registry_family(solver);
    if (f) return f;
    if (cat && ncp_catalog_plugin_file(cat, ncp_catalog_base_index(cat, solver)))
        return NCP_REGISTRY_PLUGIN_FAMILY;
    return "other";
}

/* Where a failure counts in the SGM of iterations (ncp_results_compute): each problem's
 * max_iter; graded answers alone have none (a plain grade). */
static const char *results_fail_iter(const ncp_results_conditions *c)
{
    return c->max_iter <= 0 && c->ngraded ? "the most iterations any solver ran on the problem"
                                          : "max_iter";
}

cJSON *ncp_results_json(const ncp_results_grid *g, const ncp_results_row *rows,
                        const ncp_results_conditions *c)
{
    cJSON *o = cJSON_CreateObject(), *arr = cJSON_CreateArray();
    int bad = !o || !arr;
    if (bad) {
        cJSON_Delete(o);
        cJSON_Delete(arr);
        return NULL;
    }
    bad |= add(o, "problems", num(g->np));
    bad |= add(o, "tol", num(c->tol));
    bad |= add(o, "stop_metric", c->stop_metric ? cJSON_CreateString(c->stop_metric)
                                                : cJSON_CreateNull());
    bad |= add(o, "max_iter", c->max_iter > 0 ? num(c->max_iter) : cJSON_CreateNull());
    bad |= add(o, "time_budget_ms", num(c->time_ms > 0.0 ? c->time_ms : NAN));
    bad |= add(o, "time_shift_ms", num(NCP_RESULTS_TIME_SHIFT_MS));
    bad |= add(o, "iteration_shift", num(NCP_RESULTS_ITER_SHIFT));
    bad |= add(o, "time_measure",
               cJSON_CreateString("setup_ms + solve_ms of a converged row"));
    if (c->clock) bad |= add(o, "clock", cJSON_CreateString(c->clock));
    bad |= add(o, "failure_time",
               cJSON_CreateString(c->time_ms > 0.0 ? "the time budget"
                                                   : "the largest time any solver took on the "
                                                     "problem"));
    bad |= add(o, "failure_iterations",
               cJSON_CreateString(results_fail_iter(c)));
    bad |= add(o, "unsupported", cJSON_CreateString("a failure in success_rate; "
                                                    "success_rate_supported leaves them out"));
    if (c->note) bad |= add(o, "note", cJSON_CreateString(c->note));
    for (int s = 0; !bad && s < g->ns; s++) {
        const ncp_results_row *w = &rows[s];
        cJSON *so = cJSON_CreateObject();
        if (!so || !cJSON_AddItemToArray(arr, so)) {
            cJSON_Delete(so);
            bad = 1;
            break;
        }
        bad |= add(so, "solver", cJSON_CreateString(w->solver));
        bad |= add(so, "rank", num(w->rank));
        bad |= add(so, "family", cJSON_CreateString(results_family(w->solver, c)));
        bad |= add(so, "problems", num(w->problems));
        bad |= add(so, "converged", num(w->converged));
        bad |= add(so, "unsupported", num(w->unsupported));
        bad |= add(so, "success_rate", num(w->success));
        bad |= add(so, "success_rate_supported", num(w->success_supported));
        if (results_graded(w->solver, c)) bad |= add(so, "self_timed", cJSON_CreateBool(1));
        bad |= add(so, "sgm_time_ms", num(w->sgm_time_ms));
        bad |= add(so, "sgm_time_normalized", num(w->sgm_time_norm));
        bad |= add(so, "sgm_iterations", num(w->sgm_iter));
        bad |= add(so, "sgm_iterations_normalized", num(w->sgm_iter_norm));
        bad |= add(so, "rho_1", num(w->rho_1));
        bad |= add(so, "rho_10", num(w->rho_10));
        bad |= add(so, "median_time_ms", num(w->median_time_ms));
    }
    bad |= add(o, "solvers", arr);
    if (bad) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The conditions, one paragraph. */
static void results_conditions(FILE *f, int np, int np_solvers, const ncp_results_conditions *c)
{
    fprintf(f, "%d problems. Tolerance: ", np);
    if (isnan(c->tol)) fputs("per run (below)", f);
    else fprintf(f, "%g", c->tol);
    if (c->stop_metric) fprintf(f, " on %s", c->stop_metric);
    fputs(". Budget: ", f);
    if (c->max_iter > 0) fprintf(f, "%d iterations", c->max_iter);
    else if (c->ngraded) fputs("no iteration limit", f);
    else fputs("the iterations of each run (below)", f);
    if (c->time_ms > 0.0) fprintf(f, ", %g ms per solve", c->time_ms);
    else fputs(", no time limit", f);
    fputs(".", f);
    if (c->clock && c->ngraded < np_solvers)
        fprintf(f, " Times on the %s clock (%s).", c->clock,
                strcmp(c->clock, "cpu") ? "elapsed time"
                                        : "the solving thread's CPU time, its workers' included");
    for (int i = 0; i < c->ngraded; i++)
        fprintf(f, "%s%s", i ? ", " : " Self-timed (the program's own clock, from its answers "
                "file; docs/answers.md): ", c->graded[i]);
    if (c->ngraded) fputs(".", f);
    if (c->note) fprintf(f, " %s", c->note);
    fputs("\n\n", f);
}

/* x with %.*f, "-" when NaN. */
static void md_num(FILE *f, double x, int digits)
{
    if (isnan(x)) fputs("-", f);
    else fprintf(f, "%.*f", digits, x);
}

/* "norm (raw unit) | ": a normalised mean and its raw value. */
static void md_pair(FILE *f, double norm, double raw, int digits, const char *unit)
{
    md_num(f, norm, 2);
    fputs(" (", f);
    md_num(f, raw, digits);
    fprintf(f, "%s) | ", unit);
}

/* One row of results.md's table. */
static void md_row(FILE *f, const ncp_results_row *w, const ncp_results_conditions *c)
{
    fputs("| ", f);
    for (const char *ch = w->solver; *ch; ch++) { /* a cell: '|' escaped, no line break */
        if (*ch == '|') fputs("\\|", f);
        else fputc((unsigned char)*ch < ' ' ? ' ' : *ch, f);
    }
    fprintf(f, " | %s | ", results_family(w->solver, c));
    md_num(f, 100.0 * w->success, 1);
    fprintf(f, "%% (%d/%d", w->converged, w->problems);
    if (w->unsupported) {
        fputs("; ", f);
        md_num(f, 100.0 * w->success_supported, 1);
        fprintf(f, "%% of %d supported", w->problems - w->unsupported);
    }
    fputs(") | ", f);
    int self = results_graded(w->solver, c);
    md_pair(f, w->sgm_time_norm, w->sgm_time_ms, 3, self ? " ms, " NCP_RESULTS_SELF_TIMED : " ms");
    md_pair(f, w->sgm_iter_norm, w->sgm_iter, 1, "");
    md_num(f, w->rho_1, 3);
    fputs(" | ", f);
    md_num(f, w->rho_10, 3);
    fputs(" | ", f);
    if (isnan(w->median_time_ms)) fputs("-", f);
    else fprintf(f, "%.4g%s", w->median_time_ms, self ? " " NCP_RESULTS_SELF_TIMED : "");
    fputs(" |\n", f);
}

int ncp_results_markdown(const char *path, const char *title, const ncp_results_grid *g,
                         const ncp_results_row *rows, const ncp_results_conditions *c,
                         ncp_error *err)
{
    FILE *f = ncp_safe_fopen(path, err);
    if (!f) return err->code ? err->code : NCP_ERR_IO;
    fprintf(f, "# %s\n\n", title);
    results_conditions(f, g->np, g->ns, c);
    fputs("| solver | family | success | SGM time (norm.) | SGM iter (norm.) | rho(1) | rho(10) "
          "| median time ms |\n|---|---|--:|--:|--:|--:|--:|--:|\n", f);
    for (int r = 1; r <= g->ns; r++) /* by rank: each rank is taken by exactly one row */
        for (int s = 0; s < g->ns; s++)
            if (rows[s].rank == r) md_row(f, &rows[s], c);
    fprintf(f,
            "\nSuccess: converged rows / problems; an unsupported row (the problem lacks what "
            "the solver needs) is a failure, as any failure on the test set is in qpbenchmark, "
            "and the rate over the supported rows follows it. SGM: shifted geometric mean "
            "exp(mean log(x + sh)) - sh over all the problems, normalised to the best solver "
            "(1.00; the raw value in parentheses): time = setup_ms + solve_ms, shift %g ms, a "
            "failure counted at %s; iterations, shift %g, a failure counted at %s. "
            "rho(tau): share of the problems solved within tau times the fastest solver's time "
            "(Dolan & More 2002). Median time: over the problems the solver solved. Rows by "
            "rank: success rate, then SGM time (a solver without times after the timed ones), "
            "then SGM iterations. Data: metrics.csv.\n",
            NCP_RESULTS_TIME_SHIFT_MS,
            c->time_ms > 0.0 ? "the time budget" : "the largest time any solver took on the problem",
            NCP_RESULTS_ITER_SHIFT,
            results_fail_iter(c));
    if (fclose(f) != 0)
        return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return NCP_OK;
}

int ncp_out_results(const char *dir, const ncp_bench_opts *o, cJSON **out, ncp_error *err)
{
    char csv[4300], md[4300];
    ncp_results_grid g = {0};
    ncp_results_row *rows = NULL;
    *out = NULL;
    int rc = ncp_path_join(csv, sizeof csv, dir, "metrics.csv", err);
    if (!rc) rc = ncp_path_join(md, sizeof md, dir, "results.md", err);
    if (!rc) rc = ncp_results_read_csv(&g, csv, o->budget.time_ms, o->budget.max_iter, err);
    if (!rc && !(rows = ncp_calloc(err, (size_t)g.ns + 1, sizeof *rows))) rc = NCP_ERR_NOMEM;
    if (!rc) rc = ncp_results_compute(&g, rows, err);
    ncp_results_conditions c = {o->budget.tol, ncp_metrics_name(o->stop_metric),
                                o->budget.max_iter, o->budget.time_ms, NULL, o->catalog,
                                ncp_clock_name(o->clock), o->graded, o->ngraded};
    if (!rc) rc = ncp_results_markdown(md, "Results", &g, rows, &c, err);
    if (!rc && !(*out = ncp_results_json(&g, rows, &c)))
        rc = ncp_error_set(err, NCP_ERR_NOMEM, "out of memory writing the results table");
    free(rows);
    ncp_results_grid_free(&g);
    return rc;
}
