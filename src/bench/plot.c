/* Figures from a benchmark output directory (see plot.h).
 *
 * Aggregation (done here in C so the gnuplot scripts only draw):
 *
 * (a) metric versus solver time (fig_residual_time.dat; Lee et al. 2025 Fig. 7/9 left). Each
 *     problem's trace is a step function of time. An iteration counts as reached at its
 *     time_ms, or at the latest time_ms of the iterations before it if that is later (a solver
 *     cannot finish iteration k before iteration k-1; this only matters if a trace's times
 *     are not monotone). The value at time t is the metric of the latest reached iteration whose
 *     metric is not NaN ("latest", not "best": the brief's choice, so a non-monotone solver
 *     shows its oscillation). The trace holds its last value after it ends, so a problem that
 *     converged early keeps counting with its final residual. A problem has started at t once
 *     it has a value. Per solver, the step functions are evaluated on NCP_PLOT_GRID log-spaced
 *     times from the earliest positive reach time to the latest reach time of its iterations
 *     with a value, and at each grid time we take the median and the 25th / 75th percentiles
 *     over the problems that have started.
 * (b) solver time versus iteration (fig_time_iter.dat; Fig. 7/9 right): for each iteration
 *     index present in the solver's traces, the median and quartiles of time_ms over the
 *     problems that ran that iteration (problems that stopped earlier drop out; column n says
 *     how many remain).
 *
 * Percentiles interpolate linearly between order statistics (Hyndman-Fan type 7, numpy's
 * default; ncp_quantile_sorted, util/stats.h): for sorted x_0..x_{n-1},
 * q(p) = x_j + (h - j)(x_{j+1} - x_j) with h = (n-1)p, j = floor(h). The median is q(0.5).
 *
 * Files: one index block per solver (blocks separated by two blank lines, so gnuplot's `index i`
 * selects solver i), solvers in order of first appearance in traces.csv; every row starts with
 * the solver name and its index (for a stable colour per solver across figures). Comment lines
 * (`# `) describe the columns. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ncp_config.h"
#include "bench/plot.h"
#include "util/csv.h"
#include "util/stats.h"

extern char **environ;

#define RES_DAT "fig_residual_time.dat"
#define ITER_DAT "fig_time_iter.dat"
#define RES_SCRIPT "residual_vs_time"
#define ITER_SCRIPT "time_vs_iteration"

/* ---------------------------------------------------------------------------------------- */
/* Small string utilities                                                                      */

static char *path_join(const char *dir, const char *name, ncp_error *err)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = ncp_malloc(err, n, 1);
    if (p) snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* Interned strings (problem and solver names) with ids in order of first appearance. */
typedef struct strtab {
    char **names;
    size_t n, cap;
    size_t *slots; /* open addressing: id + 1, 0 = empty */
    size_t nslots; /* power of two */
} strtab;

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static void strtab_free(strtab *t)
{
    for (size_t i = 0; i < t->n; i++) free(t->names[i]);
    free(t->names);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static int strtab_rehash(strtab *t, size_t nslots, ncp_error *err)
{
    size_t *slots = ncp_calloc(err, nslots, sizeof *slots);
    if (!slots) return NCP_ERR_NOMEM;
    for (size_t id = 0; id < t->n; id++) {
        size_t k = (size_t)str_hash(t->names[id]) & (nslots - 1);
        while (slots[k]) k = (k + 1) & (nslots - 1);
        slots[k] = id + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    return NCP_OK;
}

/* Id of s, adding it if new; -1 on allocation failure (err set). */
static long strtab_intern(strtab *t, const char *s, ncp_error *err)
{
    if (t->nslots == 0 && strtab_rehash(t, 64, err)) return -1;
    size_t k = (size_t)str_hash(s) & (t->nslots - 1);
    while (t->slots[k]) {
        size_t id = t->slots[k] - 1;
        if (strcmp(t->names[id], s) == 0) return (long)id;
        k = (k + 1) & (t->nslots - 1);
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        char **names = realloc(t->names, cap * sizeof *names);
        if (!names) {
            ncp_error_set(err, NCP_ERR_NOMEM, "out of memory interning names");
            return -1;
        }
        t->names = names;
        t->cap = cap;
    }
    char *copy = ncp_strdup(err, s);
    if (!copy) return -1;
    t->names[t->n] = copy;
    t->slots[k] = t->n + 1;
    t->n++;
    if (2 * t->n > t->nslots && strtab_rehash(t, 2 * t->nslots, err)) return -1;
    return (long)(t->n - 1);
}

/* ---------------------------------------------------------------------------------------- */
/* traces.csv                                                                                  */

typedef struct trace_row {
    int solver, problem;
    long iter;
    double time_ms;
    double value; /* the chosen metric; NaN = no value */
    long line;    /* line in traces.csv, for messages */
} trace_row;

typedef struct traces {
    trace_row *rows;
    size_t n, cap;
    strtab solvers, problems;
} traces;

static void traces_free(traces *t)
{
    free(t->rows);
    strtab_free(&t->solvers);
    strtab_free(&t->problems);
    memset(t, 0, sizeof *t);
}

static int parse_long(const char *s, long *out)
{
    if (*s == '\0') return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || errno == ERANGE) return -1;
    *out = v;
    return 0;
}

static int field_error(ncp_error *err, const char *path, long line, const char *col, int fieldno,
                       const char *what, const char *text)
{
    return ncp_error_set(err, NCP_ERR_INPUT, "%s:%ld: column '%s' (field %d): '%.40s' %s", path,
                         line, col, fieldno, text, what);
}

static int is_fixed_column(const char *name)
{
    return !strcmp(name, "problem") || !strcmp(name, "solver") || !strcmp(name, "iteration") ||
           !strcmp(name, "time_ms");
}

static int read_traces(const char *path, const char *metric, traces *t, ncp_error *err)
{
    ncp_csv r;
    int rc = ncp_csv_open(&r, path, "run the benchmark first; it writes traces.csv", err);
    if (rc) return rc;
    static const char *const need[] = {"problem", "solver", "iteration", "time_ms"};
    int col[4], c_metric = ncp_csv_column(&r, metric);
    for (int k = 0; k < 4 && !rc; k++)
        rc = ncp_csv_need_column(&r, need[k], "expected problem,solver,iteration,time_ms,<metrics>",
                                 &col[k], err);
    if (rc) goto done;
    const int c_problem = col[0], c_solver = col[1], c_iter = col[2], c_time = col[3];
    if (c_metric < 0 || is_fixed_column(metric)) {
        char list[600] = "";
        for (int i = 0; i < r.ncols; i++) {
            if (is_fixed_column(r.header[i])) continue;
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%.63s", used ? ", " : "", r.header[i]);
        }
        rc = ncp_error_set(err, NCP_ERR_INPUT,
                           "%s:1: '%s' is not a metric column of this file (choose one of: %s)",
                           path, metric, list);
        goto done;
    }
    long last_s = -1, last_p = -1;
    char last_sname[256] = "", last_pname[256] = "";

    while ((rc = ncp_csv_next(&r, err)) == NCP_OK) {
        long lineno = r.line;
        trace_row tr;
        tr.line = lineno;
        const char *sname = r.field[c_solver];
        const char *pname = r.field[c_problem];
        if (*sname == '\0') {
            rc = field_error(err, path, lineno, "solver", c_solver + 1, "is empty", sname);
            goto done;
        }
        if (*pname == '\0') {
            rc = field_error(err, path, lineno, "problem", c_problem + 1, "is empty", pname);
            goto done;
        }
        const char *it = r.field[c_iter];
        if (parse_long(it, &tr.iter) || tr.iter < 0 || tr.iter > INT_MAX) {
            rc = field_error(err, path, lineno, "iteration", c_iter + 1,
                             "is not an iteration number (integer >= 0)", it);
            goto done;
        }
        const char *tm = r.field[c_time];
        if (ncp_csv_number(tm, &tr.time_ms) || !isfinite(tr.time_ms) || tr.time_ms < 0) {
            rc = field_error(err, path, lineno, "time_ms", c_time + 1,
                             "is not a time in ms (finite number >= 0)", tm);
            goto done;
        }
        const char *mv = r.field[c_metric];
        if (ncp_csv_number(mv, &tr.value)) {
            rc = field_error(err, path, lineno, metric, c_metric + 1,
                             "is not a number (write nan for a missing value)", mv);
            goto done;
        }
        /* Rows of one trace are normally contiguous: remember the last ids. */
        if (last_s >= 0 && !strcmp(sname, last_sname)) {
            tr.solver = (int)last_s;
        } else {
            long id = strtab_intern(&t->solvers, sname, err);
            if (id < 0) { rc = NCP_ERR_NOMEM; goto done; }
            tr.solver = (int)id;
            last_s = id;
            snprintf(last_sname, sizeof last_sname, "%s", sname);
            if (strlen(sname) >= sizeof last_sname) last_s = -1;
        }
        if (last_p >= 0 && !strcmp(pname, last_pname)) {
            tr.problem = (int)last_p;
        } else {
            long id = strtab_intern(&t->problems, pname, err);
            if (id < 0) { rc = NCP_ERR_NOMEM; goto done; }
            tr.problem = (int)id;
            last_p = id;
            snprintf(last_pname, sizeof last_pname, "%s", pname);
            if (strlen(pname) >= sizeof last_pname) last_p = -1;
        }
        if (t->n == t->cap) {
            size_t cap = t->cap ? 2 * t->cap : 1024;
            trace_row *rows = realloc(t->rows, cap * sizeof *rows);
            if (!rows) {
                rc = ncp_error_set(err, NCP_ERR_NOMEM, "out of memory reading %s (%ld lines)",
                                   path, lineno);
                goto done;
            }
            t->rows = rows;
            t->cap = cap;
        }
        t->rows[t->n++] = tr;
    }
    if (rc != NCP_CSV_END) goto done;
    rc = NCP_OK;
    if (t->n == 0)
        rc = ncp_error_set(err, NCP_ERR_INPUT,
                           "%s: no trace rows after the header: nothing to plot", path);
done:
    ncp_csv_close(&r);
    return rc;
}

static int cmp_row(const void *a, const void *b)
{
    const trace_row *x = a, *y = b;
    if (x->solver != y->solver) return x->solver < y->solver ? -1 : 1;
    if (x->problem != y->problem) return x->problem < y->problem ? -1 : 1;
    if (x->iter != y->iter) return x->iter < y->iter ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* gnuplot splits data rows at whitespace: names are written with such characters replaced. */
static void fprint_name(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        fputc(c <= ' ' || c == '#' || c == '"' || c == '\'' || c == 127 ? '_' : c, f);
    }
}

static int close_checked(FILE *f, const char *path, ncp_error *err)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return NCP_OK;
}

/* Range [begin, end) of solver s's rows in the sorted array. */
static void solver_range(const traces *t, size_t from, size_t *end)
{
    size_t e = from;
    while (e < t->n && t->rows[e].solver == t->rows[from].solver) e++;
    *end = e;
}

static int write_residual_time(const traces *t, const char *path, const char *metric,
                               ncp_error *err)
{
    int rc = NCP_OK;
    double *reach = ncp_malloc(err, t->n, sizeof *reach);
    size_t np_max = t->problems.n;
    size_t *pbeg = ncp_malloc(err, np_max + 1, sizeof *pbeg);
    size_t *next = ncp_malloc(err, np_max, sizeof *next);
    double *cur = ncp_malloc(err, np_max, sizeof *cur);
    double *vals = ncp_malloc(err, np_max, sizeof *vals);
    FILE *f = NULL;
    if (!reach || !pbeg || !next || !cur || !vals) { rc = NCP_ERR_NOMEM; goto done; }

    /* Reach times: running maximum of time_ms within each (solver, problem) trace. */
    for (size_t i = 0; i < t->n; i++) {
        int same = i > 0 && t->rows[i - 1].solver == t->rows[i].solver &&
                   t->rows[i - 1].problem == t->rows[i].problem;
        reach[i] = same ? fmax(reach[i - 1], t->rows[i].time_ms) : t->rows[i].time_ms;
    }

    f = fopen(path, "w");
    if (!f) {
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot create %s: %s", path, strerror(errno));
        goto done;
    }
    fprintf(f,
            "# ncpbench figure data: %s versus solver time (ms, setup included), per solver.\n"
            "# Each problem's trace is a step function of time: its value at t is the %s of\n"
            "# the latest iteration reached by t (iteration time = running max of time_ms), NaN\n"
            "# values skipped; it holds its last value after the trace ends. Grid: %d log-spaced\n"
            "# times from the solver's earliest positive to its latest iteration time. At each\n"
            "# grid time: median and 25th/75th percentiles (linear between order statistics,\n"
            "# numpy default) over the problems that have started (have a value by t):\n"
            "# n_started of n_problems.\n"
            "# One index block per solver (gnuplot: index i), in order of first appearance.\n"
            "# metric: %s\n"
            "# columns: solver solver_index time_ms median q25 q75 n_started n_problems\n",
            metric, metric, NCP_PLOT_GRID, metric);
    int blocks = 0;
    char skipped[512] = "";
    for (size_t s0 = 0, s1; s0 < t->n; s0 = s1) {
        solver_range(t, s0, &s1);
        int sid = t->rows[s0].solver;
        /* Problems of this solver and the time span of its valued iterations. */
        size_t np = 0;
        double t_lo = INFINITY, t_hi = -INFINITY;
        for (size_t i = s0; i < s1; i++) {
            if (i == s0 || t->rows[i].problem != t->rows[i - 1].problem) pbeg[np++] = i;
            if (isnan(t->rows[i].value)) continue;
            if (reach[i] > 0) t_lo = fmin(t_lo, reach[i]);
            t_hi = fmax(t_hi, reach[i]);
        }
        pbeg[np] = s1;
        if (!(t_hi > 0) || !isfinite(t_lo)) {
            /* No value of the metric at a positive time: nothing to draw for this solver. */
            size_t used = strlen(skipped);
            snprintf(skipped + used, sizeof skipped - used, " %s", t->solvers.names[sid]);
            continue;
        }
        for (size_t p = 0; p < np; p++) {
            next[p] = pbeg[p];
            cur[p] = NAN;
        }
        if (blocks > 0) fputs("\n\n", f);
        fputs("# solver: ", f);
        fprint_name(f, t->solvers.names[sid]);
        fputc('\n', f);
        blocks++;
        int ngrid = t_hi > t_lo ? NCP_PLOT_GRID : 1;
        for (int g = 0; g < ngrid; g++) {
            double tg = g == 0 ? t_lo
                        : g == ngrid - 1 ? t_hi
                        : t_lo * pow(t_hi / t_lo, (double)g / (double)(ngrid - 1));
            size_t nv = 0;
            for (size_t p = 0; p < np; p++) {
                while (next[p] < pbeg[p + 1] && reach[next[p]] <= tg) {
                    double v = t->rows[next[p]].value;
                    if (!isnan(v)) cur[p] = v;
                    next[p]++;
                }
                if (!isnan(cur[p])) vals[nv++] = cur[p];
            }
            if (nv == 0) continue; /* cannot happen at g = 0 (t_lo is some problem's time) */
            qsort(vals, nv, sizeof *vals, cmp_double);
            fprint_name(f, t->solvers.names[sid]);
            fprintf(f, " %d %.12g %.12g %.12g %.12g %zu %zu\n", sid, tg,
                    ncp_quantile_sorted(vals, nv, 0.5), ncp_quantile_sorted(vals, nv, 0.25),
                    ncp_quantile_sorted(vals, nv, 0.75), nv, np);
        }
    }
    if (skipped[0]) fprintf(f, "\n# solvers without any value of %s:%s\n", metric, skipped);
    rc = close_checked(f, path, err);
    f = NULL;
    if (rc == NCP_OK && blocks == 0)
        rc = ncp_error_set(err, NCP_ERR_INPUT,
                           "traces.csv has no value of %s at a positive time for any solver "
                           "(all nan?): choose another metric",
                           metric);
done:
    if (f) fclose(f);
    free(reach);
    free(pbeg);
    free(next);
    free(cur);
    free(vals);
    return rc;
}

typedef struct iter_time {
    long iter;
    double time_ms;
} iter_time;

static int cmp_iter_time(const void *a, const void *b)
{
    const iter_time *x = a, *y = b;
    if (x->iter != y->iter) return x->iter < y->iter ? -1 : 1;
    return (x->time_ms > y->time_ms) - (x->time_ms < y->time_ms);
}

static int write_time_iter(const traces *t, const char *path, ncp_error *err)
{
    int rc = NCP_OK;
    iter_time *it = ncp_malloc(err, t->n, sizeof *it);
    double *vals = ncp_malloc(err, t->problems.n, sizeof *vals);
    FILE *f = NULL;
    if (!it || !vals) { rc = NCP_ERR_NOMEM; goto done; }
    f = fopen(path, "w");
    if (!f) {
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot create %s: %s", path, strerror(errno));
        goto done;
    }
    fprintf(f,
            "# ncpbench figure data: solver time (ms, setup included) versus iteration, per\n"
            "# solver.\n"
            "# For each iteration index: median and 25th/75th percentiles (linear between order\n"
            "# statistics, numpy default) of time_ms over the n problems that ran that iteration\n"
            "# (problems that stopped earlier drop out).\n"
            "# One index block per solver (gnuplot: index i), in order of first appearance.\n"
            "# columns: solver solver_index iteration median q25 q75 n\n");
    int blocks = 0;
    for (size_t s0 = 0, s1; s0 < t->n; s0 = s1) {
        solver_range(t, s0, &s1);
        int sid = t->rows[s0].solver;
        size_t m = s1 - s0;
        for (size_t i = 0; i < m; i++) {
            it[i].iter = t->rows[s0 + i].iter;
            it[i].time_ms = t->rows[s0 + i].time_ms;
        }
        qsort(it, m, sizeof *it, cmp_iter_time);
        if (blocks > 0) fputs("\n\n", f);
        fputs("# solver: ", f);
        fprint_name(f, t->solvers.names[sid]);
        fputc('\n', f);
        blocks++;
        for (size_t a = 0, b; a < m; a = b) {
            size_t nv = 0;
            for (b = a; b < m && it[b].iter == it[a].iter; b++) vals[nv++] = it[b].time_ms;
            /* vals is sorted: it[] is sorted by (iteration, time). */
            fprint_name(f, t->solvers.names[sid]);
            fprintf(f, " %d %ld %.12g %.12g %.12g %zu\n", sid, it[a].iter,
                    ncp_quantile_sorted(vals, nv, 0.5), ncp_quantile_sorted(vals, nv, 0.25),
                    ncp_quantile_sorted(vals, nv, 0.75), nv);
        }
    }
    rc = close_checked(f, path, err);
    f = NULL;
done:
    if (f) fclose(f);
    free(it);
    free(vals);
    return rc;
}

int ncp_plot_aggregate(const char *dir, const char *metric, ncp_error *err)
{
    if (!dir) return ncp_error_set(err, NCP_ERR_INPUT, "no output directory given for figures");
    if (!metric) metric = NCP_PLOT_DEFAULT_METRIC;
    traces t;
    memset(&t, 0, sizeof t);
    char *tpath = path_join(dir, "traces.csv", err);
    char *rpath = path_join(dir, RES_DAT, err);
    char *ipath = path_join(dir, ITER_DAT, err);
    int rc = NCP_OK;
    if (!tpath || !rpath || !ipath) { rc = NCP_ERR_NOMEM; goto done; }
    rc = read_traces(tpath, metric, &t, err);
    if (rc) goto done;
    if (t.problems.n > INT_MAX || t.solvers.n > INT_MAX) {
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: too many problems or solvers", tpath);
        goto done;
    }
    qsort(t.rows, t.n, sizeof *t.rows, cmp_row);
    for (size_t i = 1; i < t.n; i++) {
        const trace_row *a = &t.rows[i - 1], *b = &t.rows[i];
        if (a->solver == b->solver && a->problem == b->problem && a->iter == b->iter) {
            rc = ncp_error_set(err, NCP_ERR_INPUT,
                               "%s:%ld: column 'iteration': problem %s, solver %s, iteration %ld "
                               "already appeared at line %ld (one row per iteration expected)",
                               tpath, b->line, t.problems.names[b->problem],
                               t.solvers.names[b->solver], b->iter, a->line);
            goto done;
        }
    }
    rc = write_residual_time(&t, rpath, metric, err);
    if (rc == NCP_OK) rc = write_time_iter(&t, ipath, err);
done:
    traces_free(&t);
    free(tpath);
    free(rpath);
    free(ipath);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* Running gnuplot                                                                             */

/* Full path of the gnuplot executable on PATH (caller frees), or NULL. */
static char *find_gnuplot(void)
{
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    const char *p = path;
    for (;;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        size_t need = (n ? n : 1) + sizeof "/gnuplot";
        char *cand = malloc(need);
        if (!cand) return NULL;
        if (n == 0) snprintf(cand, need, "./gnuplot"); /* empty PATH entry = current dir */
        else snprintf(cand, need, "%.*s/gnuplot", (int)n, p);
        struct stat st;
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) return cand;
        free(cand);
        if (!colon) return NULL;
        p = colon + 1;
    }
}

int ncp_plot_available(void)
{
    char *g = find_gnuplot();
    int ok = g != NULL;
    free(g);
    return ok;
}

/* Appends s as a gnuplot single-quoted string body ('' stands for '). Control characters become
 * spaces (a title cannot hold a newline; a directory name with one is rejected earlier). */
static void gp_quote(char *out, size_t cap, const char *s)
{
    size_t k = strlen(out);
    for (; *s && k + 3 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\'') {
            out[k++] = '\'';
            out[k++] = '\'';
        } else {
            out[k++] = c < ' ' || c == 127 ? ' ' : (char)c;
        }
    }
    out[k] = '\0';
}

/* Scene name for the title: summary.json's "scene", else the directory's name. */
static void scene_title(const char *dir, char *out, size_t cap)
{
    out[0] = '\0';
    ncp_error e = {0, ""};
    char *sp = path_join(dir, "summary.json", &e);
    FILE *f = sp ? fopen(sp, "rb") : NULL;
    free(sp);
    if (f) {
        /* Only a title: an unreadable or odd summary.json falls back to the directory name. */
        char *buf = NULL;
        long n = -1;
        if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && n < (64L << 20) &&
            fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL) {
            size_t got = fread(buf, 1, (size_t)n, f);
            buf[got] = '\0';
            cJSON *j = cJSON_Parse(buf);
            const cJSON *s = j ? cJSON_GetObjectItemCaseSensitive(j, "scene") : NULL;
            if (cJSON_IsString(s) && s->valuestring && s->valuestring[0])
                snprintf(out, cap, "%s", s->valuestring);
            cJSON_Delete(j);
        }
        free(buf);
        fclose(f);
    }
    if (out[0]) return;
    /* Last path component; "." (or "x/.") names the current directory. */
    char cwd[4096];
    const char *d = dir;
    size_t n = strlen(d);
    while (n > 1 && d[n - 1] == '/') n--;
    if ((n == 1 && d[0] == '.') || (n >= 2 && d[n - 1] == '.' && d[n - 2] == '/')) {
        if (n == 1 && getcwd(cwd, sizeof cwd)) {
            d = cwd;
            n = strlen(d);
        } else {
            n = n > 2 ? n - 2 : n;
        }
    }
    size_t b = n;
    while (b > 0 && d[b - 1] != '/') b--;
    snprintf(out, cap, "%.*s", (int)(n - b), d + b);
    if (!out[0]) snprintf(out, cap, "%s", dir);
}

/* Last non-empty line of the log, for the error message. */
static void log_tail(const char *logpath, char *out, size_t cap)
{
    out[0] = '\0';
    FILE *f = fopen(logpath, "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' '))
            line[--n] = '\0';
        if (n > 0) { /* keep the start of a long line */
            size_t m = n < cap - 1 ? n : cap - 1;
            memcpy(out, line, m);
            out[m] = '\0';
        }
    }
    fclose(f);
}

/* environ without DISPLAY (so gnuplot never opens a window or talks to an X server). */
static char **env_without_display(ncp_error *err)
{
    size_t n = 0;
    while (environ && environ[n]) n++;
    char **env = ncp_calloc(err, n + 1, sizeof *env);
    if (!env) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "DISPLAY=", 8) != 0) env[k++] = environ[i];
    env[k] = NULL;
    return env;
}

static int file_nonempty(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* Runs `gnuplot -d -e defs script`, stdout and stderr appended to logpath, then checks that
 * dir/<name>.png and .svg were written. */
static int run_script(const char *gnuplot, const char *scripts_dir, const char *name,
                      const char *dir, const char *defs, const char *logpath, ncp_error *err)
{
    int rc = NCP_OK;
    char *script = NULL, *png = NULL, *svg = NULL, **env = NULL;
    size_t sn = strlen(name) + 8;
    char fname[128];
    script = ncp_malloc(err, strlen(scripts_dir) + sn + 2, 1);
    if (!script) return NCP_ERR_NOMEM;
    sprintf(script, "%s/%s.gp", scripts_dir, name);
    snprintf(fname, sizeof fname, "%s.png", name);
    png = path_join(dir, fname, err);
    snprintf(fname, sizeof fname, "%s.svg", name);
    svg = path_join(dir, fname, err);
    env = env_without_display(err);
    if (!png || !svg || !env) { rc = NCP_ERR_NOMEM; goto done; }
    if (access(script, R_OK) != 0) {
        rc = ncp_error_set(err, NCP_ERR_IO,
                           "cannot read gnuplot script %s: %s (scripts live in the source tree's "
                           "scripts/ or the installed share/ncpbench/scripts)",
                           script, strerror(errno));
        goto done;
    }
    /* Stale figures must not pass for new ones if gnuplot fails. */
    if ((unlink(png) != 0 && errno != ENOENT) || (unlink(svg) != 0 && errno != ENOENT)) {
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot replace the old %s figures in %s: %s", name,
                           dir, strerror(errno));
        goto done;
    }
    FILE *lf = fopen(logpath, "a");
    if (!lf) {
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", logpath, strerror(errno));
        goto done;
    }
    fprintf(lf, "# %s -d -e \"%s\" %s\n", gnuplot, defs, script);
    if (close_checked(lf, logpath, err)) { rc = NCP_ERR_IO; goto done; }

    posix_spawn_file_actions_t fa;
    int e = posix_spawn_file_actions_init(&fa);
    if (e) {
        rc = ncp_error_set(err, NCP_ERR_INTERNAL, "posix_spawn_file_actions_init: %s",
                           strerror(e));
        goto done;
    }
    if ((e = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) ||
        (e = posix_spawn_file_actions_addopen(&fa, 2, logpath, O_WRONLY | O_CREAT | O_APPEND,
                                              0644)) ||
        (e = posix_spawn_file_actions_adddup2(&fa, 2, 1))) {
        posix_spawn_file_actions_destroy(&fa);
        rc = ncp_error_set(err, NCP_ERR_INTERNAL, "posix_spawn_file_actions: %s", strerror(e));
        goto done;
    }
    char a0[] = "gnuplot", a1[] = "-d", a2[] = "-e";
    char *argv[] = {a0, a1, a2, (char *)defs, script, NULL};
    pid_t pid;
    e = posix_spawn(&pid, gnuplot, &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    if (e) {
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot run %s: %s", gnuplot, strerror(e));
        goto done;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            rc = ncp_error_set(err, NCP_ERR_INTERNAL, "waitpid(gnuplot): %s", strerror(errno));
            goto done;
        }
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char tail[300];
        log_tail(logpath, tail, sizeof tail);
        if (WIFEXITED(status))
            rc = ncp_error_set(err, NCP_ERR_IO,
                               "gnuplot failed on %s (exit status %d): %s (full log: %s)", script,
                               WEXITSTATUS(status), tail, logpath);
        else
            rc = ncp_error_set(err, NCP_ERR_IO, "gnuplot was killed by signal %d on %s (log: %s)",
                               WIFSIGNALED(status) ? WTERMSIG(status) : -1, script, logpath);
        goto done;
    }
    if (!file_nonempty(png) || !file_nonempty(svg))
        rc = ncp_error_set(err, NCP_ERR_IO, "gnuplot ran %s but did not write %s and %s (log: %s)",
                           script, png, svg, logpath);
done:
    free(script);
    free(png);
    free(svg);
    free(env);
    return rc;
}

int ncp_plot_dir(const char *dir, const char *scripts_dir, const char *metric, ncp_error *err)
{
    if (!metric) metric = NCP_PLOT_DEFAULT_METRIC;
    int rc = ncp_plot_aggregate(dir, metric, err);
    if (rc) return rc;
    char *gnuplot = find_gnuplot();
    if (!gnuplot)
        return ncp_error_set(err, NCP_PLOT_SKIPPED,
                             "gnuplot not found on PATH: figures skipped; install gnuplot-nox");
    if (!scripts_dir || !scripts_dir[0]) {
        /* A build runs from the source tree, whose scripts are never older than installed ones. */
        scripts_dir = access(NCP_SOURCE_ROOT "/scripts/" RES_SCRIPT ".gp", R_OK) == 0
                          ? NCP_SOURCE_ROOT "/scripts"
                          : NCP_DATADIR "/scripts";
    }
    char *logpath = path_join(dir, "gnuplot.log", err);
    char *defs = NULL;
    if (!logpath) { rc = NCP_ERR_NOMEM; goto done; }
    if (strpbrk(dir, "\n\r")) {
        rc = ncp_error_set(err, NCP_ERR_INPUT,
                           "output directory name contains a line break; gnuplot cannot be given "
                           "it: rename the directory");
        goto done;
    }
    FILE *lf = fopen(logpath, "w");
    if (!lf) {
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot create %s: %s", logpath, strerror(errno));
        goto done;
    }
    if (close_checked(lf, logpath, err)) { rc = NCP_ERR_IO; goto done; }

    char title[256];
    scene_title(dir, title, sizeof title);
    size_t cap = 2 * (strlen(dir) + strlen(title) + strlen(metric)) + 64;
    defs = ncp_malloc(err, cap, 1);
    if (!defs) { rc = NCP_ERR_NOMEM; goto done; }
    defs[0] = '\0';
    strcat(defs, "dir='");
    gp_quote(defs, cap, dir);
    strcat(defs, "'; title='");
    gp_quote(defs, cap, title);
    strcat(defs, "'; metric='");
    gp_quote(defs, cap, metric);
    strcat(defs, "'");

    rc = run_script(gnuplot, scripts_dir, RES_SCRIPT, dir, defs, logpath, err);
    if (rc == NCP_OK) rc = run_script(gnuplot, scripts_dir, ITER_SCRIPT, dir, defs, logpath, err);
done:
    free(gnuplot);
    free(logpath);
    free(defs);
    return rc;
}

int ncp_plot_script(const char *name, const char *dir, const char *title, ncp_error *err)
{
    if (strpbrk(dir, "\n\r"))
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "output directory name contains a line break; gnuplot cannot be "
                             "given it: rename the directory");
    char *gnuplot = find_gnuplot();
    if (!gnuplot)
        return ncp_error_set(err, NCP_PLOT_SKIPPED,
                             "gnuplot not found on PATH: figures skipped; install gnuplot-nox");
    const char *scripts_dir = access(NCP_SOURCE_ROOT "/scripts/" RES_SCRIPT ".gp", R_OK) == 0
                                  ? NCP_SOURCE_ROOT "/scripts"
                                  : NCP_DATADIR "/scripts";
    int rc = NCP_OK;
    char *logpath = path_join(dir, "gnuplot.log", err);
    size_t cap = 2 * (strlen(dir) + strlen(title)) + 32;
    char *defs = ncp_malloc(err, cap, 1);
    if (!logpath || !defs) {
        rc = NCP_ERR_NOMEM;
    } else {
        defs[0] = '\0';
        strcat(defs, "dir='");
        gp_quote(defs, cap, dir);
        strcat(defs, "'; title='");
        gp_quote(defs, cap, title);
        strcat(defs, "'");
        rc = run_script(gnuplot, scripts_dir, name, dir, defs, logpath, err);
    }
    free(gnuplot);
    free(logpath);
    free(defs);
    return rc;
}
