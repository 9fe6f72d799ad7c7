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
 * selects solver i), grouped by panel (the solver's family, solvers/registry.h; panels in the
 * registry's family order, "other" last) and within a panel in order of first appearance in
 * the traces; every row starts with the solver name and its index in order of first
 * appearance, and ends with its panel and its place in the panel (the colour in the panel, the
 * same in both figures). fig_families.dat names the panels. Comment lines (`# `) describe the
 * columns.
 *
 * With log-sampled traces (traces.h5 "sampling" = "log"), (b) uses only the iterations on the
 * sample grid, which every trace long enough stores: the extra last row of each solve would
 * otherwise be a point of n = 1 at an iteration that one problem happened to end on. */
#include <dirent.h>
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
#include "bench/bench.h"
#include "bench/plot.h"
#include "solvers/registry.h"
#include "store/traces.h"
#include "util/fsutil.h"
#include "util/safefile.h"
#include "util/stats.h"

extern char **environ;

#define RES_DAT "fig_residual_time.dat"
#define ITER_DAT "fig_time_iter.dat"
#define FAM_DAT "fig_families.dat"
#define RES_SCRIPT "residual_vs_time"
#define ITER_SCRIPT "time_vs_iteration"
#define OVERVIEW_SCRIPT "overview"

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
/* The traces (store/traces.h: traces.h5, or the traces.csv of older runs)                      */

typedef struct trace_row {
    int solver, problem; /* solver: its rank in the drawing order (traces.order) */
    long iter;
    double time_ms;
    double value; /* the chosen metric; NaN = no value */
    long line;    /* traces.csv: line; traces.h5: row of the dataset; for messages */
} trace_row;

/* Panels: one per solver family (solvers/registry.h), in the registry's family order, then
 * "other" for solver names the registry does not know (an older run's). */
#define NCP_PLOT_OTHER_FAMILY "other"
/* Solvers of loaded plugins (summary.json's solvers[].plugin, solve/plugin_load.h): one panel,
 * after the registry's families. */
#define NCP_PLOT_PLUGIN_FAMILY NCP_REGISTRY_PLUGIN_FAMILY
/* Graded answers (summary.json's solvers[].self_timed, bench/grade.h): the family of
 * output.h's NCP_RESULTS_GRADED_FAMILY, one panel after the plugins', its time axis the
 * programs' own clocks. */
#define NCP_PLOT_GRADED_FAMILY "graded"
#define NCP_PLOT_GRADED_PANEL "graded (self-timed)"

typedef struct traces {
    trace_row *rows;
    size_t n, cap;
    strtab solvers, problems;
    const char *path;   /* the file read */
    int csv;            /* it is a traces.csv */
    int sampled;        /* traces.h5 with log sampling (store/traces.h) */
    int metric_col;     /* column of the metric in the blocks, -1 before the first */
    /* per solver rank (drawing order: by panel, then first appearance) */
    int *orig;          /* its id in `solvers` (order of first appearance: the colour index of
                           older figures, still printed as solver_index) */
    int *panel, *member; /* its panel and its place in the panel (the colour in the panel) */
    int npanels;
    const char *panel_name[64];
} traces;

static void traces_free(traces *t)
{
    free(t->rows);
    free(t->orig);
    free(t->panel);
    free(t->member);
    strtab_free(&t->solvers);
    strtab_free(&t->problems);
    memset(t, 0, sizeof *t);
}

static int is_fixed_column(const char *name)
{
    return !strcmp(name, "problem") || !strcmp(name, "solver") || !strcmp(name, "iteration") ||
           !strcmp(name, "iter") || !strcmp(name, "time_ms");
}

typedef struct read_ctx {
    traces *t;
    const char *metric;
} read_ctx;

static int take_block(void *ctx, const ncp_trace_block *b, ncp_error *err)
{
    read_ctx *rc = ctx;
    traces *t = rc->t;
    const char *at = b->line > 0 ? ":1:" : ":";
    if (t->metric_col < 0) {
        for (int k = NCP_TRACE_FIXED; k < b->ncols && t->metric_col < 0; k++)
            if (!strcmp(b->cols[k], rc->metric) && !is_fixed_column(rc->metric))
                t->metric_col = k;
        if (t->metric_col < 0) {
            char list[600] = "";
            for (int k = NCP_TRACE_FIXED; k < b->ncols; k++) {
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%.63s", used ? ", " : "", b->cols[k]);
            }
            return ncp_error_set(err, NCP_ERR_INPUT, "%s%s '%s' is not a metric column of this "
                                 "file (choose one of: %s)", b->file, at, rc->metric, list);
        }
    }
    long sid = strtab_intern(&t->solvers, b->solver, err);
    long pid = sid < 0 ? -1 : strtab_intern(&t->problems, b->problem, err);
    if (pid < 0) return NCP_ERR_NOMEM;
    if (t->n + (size_t)b->nrows > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (cap < t->n + (size_t)b->nrows) cap *= 2;
        trace_row *rows = realloc(t->rows, cap * sizeof *rows);
        if (!rows)
            return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory reading %s", b->file);
        t->rows = rows;
        t->cap = cap;
    }
    for (int i = 0; i < b->nrows; i++) {
        const double *r = b->data + (size_t)i * (size_t)b->ncols;
        /* the reader checked iter (integer >= 0) and time_ms (finite >= 0) */
        t->rows[t->n++] = (trace_row){(int)sid, (int)pid, (long)r[0], r[1], r[t->metric_col],
                                      b->line > 0 ? b->line + i : i};
    }
    if (b->sampling && !strcmp(b->sampling, "log")) t->sampled = 1;
    return NCP_OK;
}

/* Whether summary.json (may be NULL) says `solver` came from a plugin; *graded: whether its
 * rows are graded answers (self_timed, bench/grade.h). */
static int from_plugin(const cJSON *sum, const char *solver, int *graded)
{
    const cJSON *so, *arr = cJSON_GetObjectItemCaseSensitive(sum, "solvers");
    *graded = 0;
    cJSON_ArrayForEach(so, arr)
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(so, "solver");
        if (cJSON_IsString(n) && !strcmp(n->valuestring, solver)) {
            *graded = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(so, "self_timed"));
            return cJSON_IsString(cJSON_GetObjectItemCaseSensitive(so, "plugin"));
        }
    }
    return 0;
}

/* Drawing order and panels: solvers by panel (family; plugin solvers, then unknown names,
 * last), then by first appearance. */
static int assign_panels(traces *t, const char *dir, ncp_error *err)
{
    size_t ns = t->solvers.n;
    int nf = ncp_registry_family_count();
    int *fam = ncp_malloc(err, ns ? ns : 1, sizeof *fam);
    int *rank = ncp_malloc(err, ns ? ns : 1, sizeof *rank);
    t->orig = ncp_malloc(err, ns ? ns : 1, sizeof *t->orig);
    t->panel = ncp_malloc(err, ns ? ns : 1, sizeof *t->panel);
    t->member = ncp_malloc(err, ns ? ns : 1, sizeof *t->member);
    int rc = NCP_OK;
    if (!fam || !rank || !t->orig || !t->panel || !t->member) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    char sp[4300];
    char *text = NULL;
    ncp_error e2 = {0};
    cJSON *sum = NULL; /* no summary (traces alone): no plugin panel */
    if (!ncp_path_join(sp, sizeof sp, dir, "summary.json", &e2) &&
        !ncp_read_file(sp, &text, NULL, &e2))
        sum = cJSON_Parse(text);
    free(text);
    for (size_t s = 0; s < ns; s++) {
        const char *f = ncp_registry_family(t->solvers.names[s]);
        int graded;
        fam[s] = from_plugin(sum, t->solvers.names[s], &graded) ? nf : nf + 2; /* plugin, other */
        for (int k = 0; f && k < nf; k++)
            if (!strcmp(f, ncp_registry_family_at(k))) fam[s] = k;
        if (graded) fam[s] = nf + 1;
    }
    cJSON_Delete(sum);
    size_t r = 0;
    t->npanels = 0;
    for (int k = 0; k <= nf + 2; k++) {
        int members = 0;
        for (size_t s = 0; s < ns; s++) {
            if (fam[s] != k) continue;
            if (members == 0) {
                if (t->npanels == (int)(sizeof t->panel_name / sizeof t->panel_name[0])) break;
                t->panel_name[t->npanels++] = k < nf        ? ncp_registry_family_at(k)
                                              : k == nf     ? NCP_PLOT_PLUGIN_FAMILY
                                              : k == nf + 1 ? NCP_PLOT_GRADED_PANEL
                                                            : NCP_PLOT_OTHER_FAMILY;
            }
            rank[s] = (int)r;
            t->orig[r] = (int)s;
            t->panel[r] = t->npanels - 1;
            t->member[r] = members++;
            r++;
        }
    }
    for (size_t i = 0; i < t->n; i++) t->rows[i].solver = rank[t->rows[i].solver];
done:
    free(fam);
    free(rank);
    return rc;
}

static int read_traces(const char *dir, const char *metric, traces *t, char *path, size_t cap,
                       ncp_error *err)
{
    int rc = ncp_traces_locate(dir, path, cap, err);
    if (rc) return rc;
    t->path = path;
    size_t n = strlen(path);
    t->csv = n >= 4 && !strcmp(path + n - 4, ".csv");
    t->metric_col = -1;
    read_ctx c = {t, metric};
    rc = ncp_traces_read(path, take_block, &c, err);
    if (!rc) rc = assign_panels(t, dir, err);
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
static int name_char(unsigned char c)
{
    return c <= ' ' || c == '#' || c == '"' || c == '\'' || c == 127 ? '_' : c;
}

static void fprint_name(FILE *f, const char *s)
{
    for (; *s; s++) fputc(name_char((unsigned char)*s), f);
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
    ncp_safe_file sf = {0};
    if (!reach || !pbeg || !next || !cur || !vals) { rc = NCP_ERR_NOMEM; goto done; }

    /* Reach times: running maximum of time_ms within each (solver, problem) trace. */
    for (size_t i = 0; i < t->n; i++) {
        int same = i > 0 && t->rows[i - 1].solver == t->rows[i].solver &&
                   t->rows[i - 1].problem == t->rows[i].problem;
        reach[i] = same ? fmax(reach[i - 1], t->rows[i].time_ms) : t->rows[i].time_ms;
    }

    if ((rc = ncp_safe_create(path, &sf, err))) goto done;
    f = sf.f;
    fprintf(f,
            "# ncpbench figure data: %s versus solver time (ms, setup included), per solver.\n"
            "# Each problem's trace is a step function of time: its value at t is the %s of\n"
            "# the latest iteration reached by t (iteration time = running max of time_ms), NaN\n"
            "# values skipped; it holds its last value after the trace ends. Grid: %d log-spaced\n"
            "# times from the solver's earliest positive to its latest iteration time. At each\n"
            "# grid time: median and 25th/75th percentiles (linear between order statistics,\n"
            "# numpy default) over the problems that have started (have a value by t):\n"
            "# n_started of n_problems.\n"
            "# One index block per solver (gnuplot: index i), by panel (solver family, see\n"
            "# fig_families.dat), then in order of first appearance (solver_index).\n"
            "# metric: %s\n"
            "# columns: solver solver_index time_ms median q25 q75 n_started n_problems panel\n"
            "# member (the solver's place in its panel)\n",
            metric, metric, NCP_PLOT_GRID, metric);
    int blocks = 0;
    char skipped[512] = "";
    for (size_t s0 = 0, s1; s0 < t->n; s0 = s1) {
        solver_range(t, s0, &s1);
        int rk = t->rows[s0].solver, sid = t->orig[rk];
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
            fprintf(f, " %d %.12g %.12g %.12g %.12g %zu %zu %d %d\n", sid, tg,
                    ncp_quantile_sorted(vals, nv, 0.5), ncp_quantile_sorted(vals, nv, 0.25),
                    ncp_quantile_sorted(vals, nv, 0.75), nv, np, t->panel[rk], t->member[rk]);
        }
    }
    if (skipped[0]) fprintf(f, "\n# solvers without any value of %s:%s\n", metric, skipped);
    rc = ncp_safe_commit(&sf, err);
    f = NULL;
    if (rc == NCP_OK && blocks == 0)
        rc = ncp_error_set(err, NCP_ERR_INPUT,
                           "%s has no value of %s at a positive time for any solver "
                           "(all nan?): choose another metric",
                           t->path, metric);
done:
    if (f) ncp_safe_abort(&sf);
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
    ncp_safe_file sf = {0};
    if (!it || !vals) { rc = NCP_ERR_NOMEM; goto done; }
    if ((rc = ncp_safe_create(path, &sf, err))) goto done;
    f = sf.f;
    fprintf(f,
            "# ncpbench figure data: solver time (ms, setup included) versus iteration, per\n"
            "# solver.\n"
            "# For each iteration index: median and 25th/75th percentiles (linear between order\n"
            "# statistics, numpy default) of time_ms over the n problems that ran that iteration\n"
            "# (problems that stopped earlier drop out).%s\n"
            "# One index block per solver (gnuplot: index i), by panel (solver family, see\n"
            "# fig_families.dat), then in order of first appearance (solver_index).\n"
            "# columns: solver solver_index iteration median q25 q75 n panel member\n",
            t->sampled ? "\n# The traces are log-sampled: only the iterations every trace stores "
                         "(1..20, then\n# about 20 per decade) are used, not the last iteration "
                         "of each solve." : "");
    int blocks = 0;
    for (size_t s0 = 0, s1; s0 < t->n; s0 = s1) {
        solver_range(t, s0, &s1);
        int rk = t->rows[s0].solver, sid = t->orig[rk];
        size_t m = 0;
        for (int grid = t->sampled; m == 0 && grid >= 0; grid--) /* no row on the grid (one
                                                                   final row): all rows */
            for (size_t i = s0; i < s1; i++) {
                /* a solve's last row is stored off the sample grid: with it, an iteration that
                 * one problem happened to end on would be a point of n = 1 amid the others */
                if (grid && !ncp_traces_sample_keep(t->rows[i].iter)) continue;
                it[m].iter = t->rows[i].iter;
                it[m++].time_ms = t->rows[i].time_ms;
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
            fprintf(f, " %d %ld %.12g %.12g %.12g %zu %d %d\n", sid, it[a].iter,
                    ncp_quantile_sorted(vals, nv, 0.5), ncp_quantile_sorted(vals, nv, 0.25),
                    ncp_quantile_sorted(vals, nv, 0.75), nv, t->panel[rk], t->member[rk]);
        }
    }
    rc = ncp_safe_commit(&sf, err);
    f = NULL;
done:
    if (f) ncp_safe_abort(&sf);
    free(it);
    free(vals);
    return rc;
}

/* fig_families.dat: the panels, "panel<TAB>family" per line (tab-separated: names hold
 * spaces), for the scripts' panel titles. */
static int write_families(const traces *t, const char *path, ncp_error *err)
{
    ncp_safe_file sf;
    int rc = ncp_safe_create(path, &sf, err);
    if (rc) return rc;
    FILE *f = sf.f;
    fprintf(f, "# ncpbench figure panels: one per solver family (solvers/registry.c); columns\n"
               "# panel<TAB>family<TAB>solvers (tab-separated)\n");
    for (int p = 0; p < t->npanels; p++) {
        fprintf(f, "%d\t%s\t", p, t->panel_name[p]);
        int first = 1;
        for (size_t r = 0; r < t->solvers.n; r++) {
            if (t->panel[r] != p) continue;
            fprintf(f, "%s", first ? "" : " ");
            fprint_name(f, t->solvers.names[t->orig[r]]);
            first = 0;
        }
        fputc('\n', f);
    }
    return ncp_safe_commit(&sf, err);
}

int ncp_plot_aggregate(const char *dir, const char *metric, ncp_error *err)
{
    if (!dir) return ncp_error_set(err, NCP_ERR_INPUT, "no output directory given for figures");
    if (!metric) metric = NCP_PLOT_DEFAULT_METRIC;
    traces t;
    memset(&t, 0, sizeof t);
    char tpath[4300];
    char *rpath = path_join(dir, RES_DAT, err);
    char *ipath = path_join(dir, ITER_DAT, err);
    char *fpath = path_join(dir, FAM_DAT, err);
    int rc = NCP_OK;
    if (!rpath || !ipath || !fpath) { rc = NCP_ERR_NOMEM; goto done; }
    rc = read_traces(dir, metric, &t, tpath, sizeof tpath, err);
    if (rc) goto done;
    if (t.problems.n > INT_MAX || t.solvers.n > INT_MAX) {
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: too many problems or solvers", tpath);
        goto done;
    }
    qsort(t.rows, t.n, sizeof *t.rows, cmp_row);
    for (size_t i = 1; i < t.n; i++) {
        const trace_row *a = &t.rows[i - 1], *b = &t.rows[i];
        if (a->solver == b->solver && a->problem == b->problem && a->iter == b->iter) {
            const char *pn = t.problems.names[b->problem], *sn = t.solvers.names[t.orig[b->solver]];
            if (t.csv)
                rc = ncp_error_set(err, NCP_ERR_INPUT,
                                   "%s:%ld: column 'iteration': problem %s, solver %s, iteration "
                                   "%ld already appeared at line %ld (one row per iteration "
                                   "expected)", tpath, b->line, pn, sn, b->iter, a->line);
            else
                rc = ncp_error_set(err, NCP_ERR_INPUT,
                                   "%s: /traces/%s/%s: column 'iter': iteration %ld is in rows "
                                   "%ld and %ld (one row per iteration expected)", tpath, sn, pn,
                                   b->iter, a->line, b->line);
            goto done;
        }
    }
    rc = write_residual_time(&t, rpath, metric, err);
    if (rc == NCP_OK) rc = write_time_iter(&t, ipath, err);
    if (rc == NCP_OK) rc = write_families(&t, fpath, err);
done:
    traces_free(&t);
    free(rpath);
    free(ipath);
    free(fpath);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* The index page                                                                              */

static void scene_title(const char *dir, char *out, size_t cap);

/* Figures a run may hold, in the page's order, with what they show (a %s: the metric of the
 * figures; others found in the directory are listed by name after them). */
static const struct {
    const char *stem, *what;
} known_figs[] = {
    {"overview", "Overview: %s versus solver time of the best solver of each family (or the "
                 "solvers of `ncpbench plot --compare`) on one axis, the run's tolerance dashed"},
    {"residual_vs_time", "%s versus solver time, one panel per solver family (median over "
                         "problems, 25th-75th percentile band)"},
    {"time_vs_iteration", "Solver time versus iteration, one panel per solver family"},
    {"perf_profiles", "Dolan-More performance profiles over the problems"},
};
enum { NKNOWN = sizeof known_figs / sizeof known_figs[0] };

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Figure files of dir (*.png, *.svg), sorted; *n of them (caller frees). */
static char **list_figures(const char *dir, int *n, ncp_error *err)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) {
        ncp_error_set(err, NCP_ERR_IO, "cannot read the directory %s", dir);
        return NULL;
    }
    char **v = NULL;
    int cap = 0, bad = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || (strcmp(e->d_name + len - 4, ".png") && strcmp(e->d_name + len - 4, ".svg")))
            continue;
        if (ncp_bench_grow(&v, &cap, *n, sizeof *v, err) || !(v[*n] = ncp_strdup(err, e->d_name))) {
            bad = 1;
            break;
        }
        (*n)++;
    }
    closedir(d);
    if (bad) {
        for (int i = 0; i < *n; i++) free(v[i]);
        free(v);
        *n = 0;
        return NULL;
    }
    if (*n) qsort(v, (size_t)*n, sizeof *v, cmp_str);
    if (!v) v = ncp_calloc(err, 1, sizeof *v);
    return v;
}

static const char *jstr(const cJSON *o, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(x) && x->valuestring ? x->valuestring : NULL;
}

static double jnum(const cJSON *o, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

/* DIR/summary.json parsed; NULL when it is absent or not JSON. */
static cJSON *load_summary(const char *dir)
{
    char path[4300];
    char *text = NULL;
    ncp_error e = {0};
    if (ncp_path_join(path, sizeof path, dir, "summary.json", &e) ||
        ncp_read_file(path, &text, NULL, &e))
        return NULL;
    cJSON *sum = cJSON_Parse(text);
    free(text);
    return sum;
}

/* The rows of summary.json's "results_table" by rank (bench/output.h; a summary of an older
 * ncpbench without ranks keeps its order). *n rows; NULL when none (caller frees). */
static const cJSON **ranked_rows(const cJSON *sum, int *n)
{
    const cJSON *rows =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(sum, "results_table"),
                                         "solvers");
    *n = cJSON_IsArray(rows) ? cJSON_GetArraySize(rows) : 0;
    const cJSON **v = *n > 0 ? calloc((size_t)*n, sizeof *v) : NULL;
    if (!v) {
        *n = 0;
        return NULL;
    }
    int k = 0;
    const cJSON *so;
    cJSON_ArrayForEach(so, rows)
    {
        if (jstr(so, "solver")) v[k++] = so;
    }
    *n = k;
    for (int i = 1; i < k; i++) /* insertion sort: stable, and the tables are short */
        for (int j = i; j > 0 && jnum(v[j - 1], "rank") > jnum(v[j], "rank"); j--) {
            const cJSON *t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v;
}

/* The metric the figures of dir were drawn with (the "# metric: " line of the data file). */
static void figure_metric(const char *dir, char *out, size_t cap)
{
    snprintf(out, cap, "the metric");
    char path[4300];
    ncp_error e = {0};
    if (ncp_path_join(path, sizeof path, dir, RES_DAT, &e)) return;
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[256];
    while (fgets(line, sizeof line, f) && line[0] == '#')
        if (!strncmp(line, "# metric: ", 10)) {
            line[strcspn(line, "\r\n")] = '\0';
            snprintf(out, cap, "%.100s", line + 10);
            break;
        }
    fclose(f);
}

/* A number for the table: "-" when missing, %.3g otherwise (integers as integers). */
static void cell(char *buf, size_t n, double x)
{
    if (isnan(x)) snprintf(buf, n, "-");
    else if (x == floor(x) && fabs(x) < 1e15) snprintf(buf, n, "%.0f", x);
    else snprintf(buf, n, "%.3g", x);
}

/* Text for a Markdown table cell or HTML: '|', '<', '>', '&' and '"' escaped. */
static void put_text(FILE *f, const char *s, int html)
{
    for (; s && *s; s++) {
        if (*s == '|') fputs(html ? "|" : "\\|", f);
        else if (html && *s == '<') fputs("&lt;", f);
        else if (html && *s == '>') fputs("&gt;", f);
        else if (html && *s == '&') fputs("&amp;", f);
        else if (html && *s == '"') fputs("&quot;", f);
        else if ((unsigned char)*s < ' ') fputc(' ', f);
        else fputc(*s, f);
    }
}

/* One row of a table of the page, n cells. */
static void put_row(FILE *f, int html, const char *const *cells, int n)
{
    fputs(html ? "<tr>" : "|", f);
    for (int k = 0; k < n; k++) {
        fputs(html ? "<td>" : " ", f);
        put_text(f, cells[k], html);
        fputs(html ? "</td>" : " |", f);
    }
    fputs(html ? "</tr>\n" : "\n", f);
}

/* The sorter of the results table, inline (the page works offline): a click on a header sorts
 * the rows by that column, again the other way; a cell's data-value (the raw number) is its
 * key, else its text; a missing value ("-") sorts last either way. The columns marked
 * data-desc (success, rho) sort best first on the first click. index.html#sort=K (or
 * #sort=K-desc) clicks header K when the page loads, so a browser driven from the command line
 * (tests/test_page.sh) exercises the same handler. */
static const char SORTER_JS[] =
    "<script>\n"
    "(function () {\n"
    "  function key(td) {\n"
    "    var v = td.getAttribute('data-value');\n"
    "    if (v === null) return td.textContent;\n"
    "    var x = parseFloat(v);\n"
    "    return isNaN(x) ? null : x;\n"
    "  }\n"
    "  function sortBy(table, col, desc) {\n"
    "    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);\n"
    "    rows.sort(function (a, b) {\n"
    "      var x = key(a.cells[col]), y = key(b.cells[col]);\n"
    "      if (x === null || y === null) return (x === null) - (y === null);\n"
    "      var c = typeof x === 'number' && typeof y === 'number' ? x - y\n"
    "                                                            : String(x).localeCompare(String(y));\n"
    "      return desc ? -c : c;\n"
    "    });\n"
    "    rows.forEach(function (r) { body.appendChild(r); });\n"
    "    table.setAttribute('data-sorted', col + (desc ? '-desc' : '-asc'));\n"
    "  }\n"
    "  var table = document.getElementById('results-table');\n"
    "  if (!table) return;\n"
    "  var heads = table.tHead.rows[0].cells;\n"
    "  Array.prototype.forEach.call(heads, function (th, col) {\n"
    "    th.style.cursor = 'pointer';\n"
    "    th.title = 'sort by this column (click again: the other way)';\n"
    "    th.addEventListener('click', function () {\n"
    "      var now = table.getAttribute('data-sorted');\n"
    "      var desc = now === col + '-asc' ? true : now === col + '-desc' ? false\n"
    "                                              : th.hasAttribute('data-desc');\n"
    "      if (th.getAttribute('data-force')) {\n"
    "        desc = th.getAttribute('data-force') === 'desc';\n"
    "        th.removeAttribute('data-force');\n"
    "      }\n"
    "      sortBy(table, col, desc);\n"
    "    });\n"
    "  });\n"
    "  var m = /^#sort=(\\d+)(-(asc|desc))?$/.exec(location.hash);\n"
    "  if (m && heads[+m[1]]) {\n"
    "    if (m[3]) heads[+m[1]].setAttribute('data-force', m[3]);\n"
    "    heads[+m[1]].click();\n"
    "  }\n"
    "})();\n"
    "</script>\n";

/* A cell of the results table: its text, and in HTML a number cell's raw value as data-value
 * ("" when missing) so that sorting (and a reader of the page) uses the full value; a text
 * cell (numeric = 0) sorts by its text. */
static void result_cell(FILE *f, int html, const char *text, int numeric, double raw)
{
    if (!html) {
        fputs(" ", f);
        put_text(f, text, 0);
        fputs(" |", f);
        return;
    }
    if (!numeric) fputs("<td>", f);
    else if (isnan(raw)) fputs("<td data-value=\"\">", f);
    else fprintf(f, "<td data-value=\"%.17g\">", raw);
    put_text(f, text, 1);
    fputs("</td>", f);
}

/* "norm (raw unit)": a normalised mean and its raw value, "-" when missing. */
static void norm_raw(char *buf, size_t n, double norm, double raw, const char *fmt_raw,
                     const char *unit)
{
    if (isnan(raw)) {
        snprintf(buf, n, "-");
        return;
    }
    char r[64];
    snprintf(r, sizeof r, fmt_raw, raw);
    if (isnan(norm)) snprintf(buf, n, "- (%s%s)", r, unit);
    else snprintf(buf, n, "%.2f (%s%s)", norm, r, unit);
}

/* summary.json's "results_table" (bench/output.h) as the first section of the page, ranked,
 * with the conditions above it and a link to results.md; nothing when the summary has none (a
 * run of an older ncpbench). In HTML it is sortable (SORTER_JS) and every number cell keeps
 * its raw value. */
static void write_results(FILE *f, int html, const cJSON *sum)
{
    const cJSON *rt = cJSON_GetObjectItemCaseSensitive(sum, "results_table");
    int n = 0;
    const cJSON **rows = ranked_rows(sum, &n);
    if (!rows) return;
    const char *stop = jstr(rt, "stop_metric");
    double tol = jnum(rt, "tol"), mi = jnum(rt, "max_iter"), tb = jnum(rt, "time_budget_ms");
    const char *ft = jstr(rt, "failure_time"), *fi = jstr(rt, "failure_iterations");
    char cond[900];
    char iters[64] = "no iteration limit";
    if (!isnan(mi)) snprintf(iters, sizeof iters, "%.0f iterations", mi);
    snprintf(cond, sizeof cond,
             "Ranked by success rate, then SGM time, then SGM iterations. %.0f problems; "
             "success: %s <= %g; budget %s, %s",
             jnum(rt, "problems"), stop ? stop : "the stopping metric", tol, iters,
             isnan(tb) ? "no time limit" : "");
    if (!isnan(tb)) snprintf(cond + strlen(cond), sizeof cond - strlen(cond), "%g ms per solve", tb);
    const char *clk = jstr(rt, "clock");
    if (clk) snprintf(cond + strlen(cond), sizeof cond - strlen(cond), "; times on the %s clock", clk);
    snprintf(cond + strlen(cond), sizeof cond - strlen(cond),
             ". Shifted geometric means (SGM; shifts %g ms and %g iterations; a failure counted "
             "at %s and at %s) normalised to the best solver, the raw value in "
             "parentheses; rho(tau) of the Dolan-More profile.%s Definitions: ",
             jnum(rt, "time_shift_ms"), jnum(rt, "iteration_shift"),
             ft ? ft : "the time budget", fi ? fi : "max_iter",
             html ? " Click a header to sort by that column." : "");
    static const char *const head[9] = {"#", "solver", "family", "success",
                                        "SGM time (norm.)", "SGM iter (norm.)", "rho(1)",
                                        "rho(10)", "median time ms"};
    if (html) {
        fputs("<h2 id=\"results\">Results</h2>\n<p>", f);
        put_text(f, cond, 1);
        fputs("<a href=\"results.md\">results.md</a>; data: <a href=\"metrics.csv\">metrics.csv"
              "</a>.</p>\n<table id=\"results-table\"><thead><tr>", f);
        for (int k = 0; k < 9; k++)
            fprintf(f, "<th%s>%s</th>", k == 3 || k == 6 || k == 7 ? " data-desc" : "", head[k]);
        fputs("</tr></thead>\n<tbody>\n", f);
    } else {
        fputs("\n## Results\n\n", f);
        put_text(f, cond, 0);
        fputs("[results.md](results.md).\n\n|", f);
        for (int k = 1; k < 9; k++) fprintf(f, " %s |", head[k]);
        fputs("\n|---|---|--:|--:|--:|--:|--:|--:|\n", f);
    }
    for (int i = 0; i < n; i++) {
        const cJSON *so = rows[i];
        const char *fam = jstr(so, "family");
        char c[160];
        double su = jnum(so, "success_rate"), sp = jnum(so, "success_rate_supported");
        double un = jnum(so, "unsupported"), np = jnum(so, "problems");
        /* a graded solver's times are its program's (bench/grade.h) */
        int self = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(so, "self_timed"));
        fputs(html ? "<tr>" : "|", f);
        if (html) {
            cell(c, sizeof c, jnum(so, "rank"));
            result_cell(f, 1, c, 1, jnum(so, "rank"));
        }
        result_cell(f, html, jstr(so, "solver"), 0, NAN);
        result_cell(f, html, fam ? fam : NCP_PLOT_OTHER_FAMILY, 0, NAN);
        if (isnan(su)) snprintf(c, sizeof c, "-");
        else if (un > 0 && !isnan(sp))
            snprintf(c, sizeof c, "%.1f%% (%.0f/%.0f; %.1f%% of %.0f supported)", 100.0 * su,
                     jnum(so, "converged"), np, 100.0 * sp, np - un);
        else snprintf(c, sizeof c, "%.1f%% (%.0f/%.0f)", 100.0 * su, jnum(so, "converged"), np);
        result_cell(f, html, c, 1, su);
        norm_raw(c, sizeof c, jnum(so, "sgm_time_normalized"), jnum(so, "sgm_time_ms"), "%.4g",
                 self ? " ms, self-timed" : " ms");
        result_cell(f, html, c, 1, jnum(so, "sgm_time_ms"));
        norm_raw(c, sizeof c, jnum(so, "sgm_iterations_normalized"), jnum(so, "sgm_iterations"),
                 "%.1f", "");
        result_cell(f, html, c, 1, jnum(so, "sgm_iterations"));
        const char *keys[3] = {"rho_1", "rho_10", "median_time_ms"};
        for (int k = 0; k < 3; k++) {
            double x = jnum(so, keys[k]);
            if (isnan(x)) snprintf(c, sizeof c, "-");
            else snprintf(c, sizeof c, k < 2 ? "%.3f" : "%.4g", x);
            if (self && k == 2 && !isnan(x)) strcat(c, " self-timed");
            result_cell(f, html, c, 1, x);
        }
        fputs(html ? "</tr>\n" : "\n", f);
    }
    if (html) {
        fputs("</tbody></table>\n", f);
        fputs(SORTER_JS, f);
    }
    free(rows);
}

/* The figures, known ones first in the page's order (both formats on one line, the PNG shown),
 * then any other figure file. */
static void write_figures(FILE *f, int html, char **figs, int nfigs, const char *metric)
{
    char *done = calloc((size_t)(nfigs ? nfigs : 1), 1);
    for (int k = 0; k <= NKNOWN; k++) {
        for (int i = 0; i < nfigs; i++) {
            if (done && done[i]) continue;
            char stem[256], what[512];
            snprintf(stem, sizeof stem, "%.*s", (int)(strlen(figs[i]) - 4), figs[i]);
            if (k < NKNOWN) {
                if (strcmp(stem, known_figs[k].stem)) continue;
                snprintf(what, sizeof what, known_figs[k].what, metric);
            } else {
                snprintf(what, sizeof what, "%s", stem);
            }
            if (html) fputs("<p>", f);
            else fputs("- ", f);
            put_text(f, what, html);
            fputs(": ", f);
            const char *png = NULL;
            for (int j = i; j < nfigs; j++) {
                if (strncmp(figs[j], stem, strlen(stem)) || strlen(figs[j]) != strlen(stem) + 4)
                    continue;
                if (done) done[j] = 1;
                if (!strcmp(figs[j] + strlen(stem), ".png")) png = figs[j];
                if (html) fprintf(f, "<a href=\"%s\">%s</a> ", figs[j], figs[j] + strlen(stem) + 1);
                else fprintf(f, "[%s](%s) ", figs[j] + strlen(stem) + 1, figs[j]);
            }
            if (html) {
                /* whether the image loaded is recorded on it (tests/test_page.sh reads it) */
                if (png)
                    fprintf(f, "<br><img src=\"%s\" alt=\"%s\" "
                               "onload=\"this.setAttribute('data-loaded', this.naturalWidth)\" "
                               "onerror=\"this.setAttribute('data-failed', '1')\">", png, stem);
                fputs("</p>\n", f);
            } else {
                fputs("\n", f);
                if (png) fprintf(f, "\n  ![%s](%s)\n\n", stem, png);
            }
        }
    }
    free(done);
    if (nfigs == 0) fputs(html ? "<p>No figures (gnuplot missing, or --no-figures).</p>\n"
                               : "No figures (gnuplot missing, or --no-figures).\n", f);
}

/* The page in Markdown (html = 0) or HTML (html = 1): the ranked results table, the figures
 * (the overview first), the per-solver medians. */
static void write_page(FILE *f, int html, const char *title, char **figs, int nfigs,
                       const cJSON *sum, const char *metric)
{
    const cJSON *budget = cJSON_GetObjectItemCaseSensitive(sum, "budget");
    const char *stop = budget ? jstr(budget, "stop_metric") : NULL;
    if (!stop) stop = "natural_map_rel_acary";
    if (html) {
        fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>", f);
        put_text(f, title, 1);
        fputs("</title>\n<style>body{font-family:sans-serif;max-width:1400px;margin:auto}"
              "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;"
              "text-align:right}td:nth-child(2),td:nth-child(3){text-align:left}"
              "th{background:#f4f4f4}img{max-width:100%}</style></head><body>\n<h1>", f);
        put_text(f, title, 1);
        fputs("</h1>\n", f);
    } else {
        fputs("# ", f);
        put_text(f, title, 0);
        fputs("\n\n(written by ncpbench from summary.json; the figures from traces.h5)\n", f);
    }
    write_results(f, html, sum);
    fputs(html ? "<h2>Figures</h2>\n" : "\n## Figures\n\n", f);
    write_figures(f, html, figs, nfigs, metric);

    const cJSON *solvers = cJSON_GetObjectItemCaseSensitive(sum, "solvers");
    if (html) {
        fputs("<h2>Solvers</h2>\n<table><tr><th>solver</th><th>family</th>"
              "<th>converged / problems</th><th>median iterations</th>"
              "<th>median solve ms</th><th>median ", f);
        put_text(f, stop, 1);
        fputs("</th></tr>\n", f);
    } else {
        fprintf(f, "\n## Solvers\n\n| solver | family | converged / problems | median iterations "
                   "| median solve ms | median %s |\n|---|---|--:|--:|--:|--:|\n", stop);
    }
    const cJSON *so;
    cJSON_ArrayForEach(so, solvers)
    {
        const char *name = jstr(so, "solver");
        if (!name) continue;
        const char *fam = ncp_registry_family(name);
        const cJSON *med = cJSON_GetObjectItemCaseSensitive(so, "median");
        char conv[80], cv[32], pr[32], it[32], ms[32], st[32];
        cell(cv, sizeof cv, jnum(so, "converged"));
        cell(pr, sizeof pr, jnum(so, "problems"));
        snprintf(conv, sizeof conv, "%s / %s", cv, pr);
        cell(it, sizeof it, jnum(so, "median_iterations"));
        int self = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(so, "self_timed"));
        cell(ms, sizeof ms, jnum(so, "median_solve_ms"));
        if (self && strcmp(ms, "-")) snprintf(ms + strlen(ms), sizeof ms - strlen(ms), " self-timed");
        cell(st, sizeof st, med ? jnum(med, stop) : NAN);
        if (self) fam = NCP_PLOT_GRADED_FAMILY;
        else if (!fam) fam = jstr(so, "plugin") ? NCP_PLOT_PLUGIN_FAMILY : NCP_PLOT_OTHER_FAMILY;
        const char *cells[6] = {name, fam, conv, it, ms, st};
        put_row(f, html, cells, 6);
    }
    if (html) fputs("</table>\n</body></html>\n", f);
}

/* Text of a whole page (caller frees), NULL when out of memory. */
static char *page_text(int html, const char *title, char **figs, int nfigs, const cJSON *sum,
                       const char *metric)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return NULL;
    write_page(m, html, title, figs, nfigs, sum, metric);
    if (fclose(m) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

int ncp_plot_index(const char *dir, ncp_error *err)
{
    char path[4300];
    char *text = NULL;
    int rc = ncp_path_join(path, sizeof path, dir, "summary.json", err);
    if (!rc) rc = ncp_read_file(path, &text, NULL, err);
    if (rc) return rc;
    cJSON *sum = cJSON_Parse(text);
    free(text);
    if (!sum) return ncp_error_set(err, NCP_ERR_INPUT, "%s is not valid JSON", path);
    char title[256], metric[128];
    scene_title(dir, title, sizeof title);
    figure_metric(dir, metric, sizeof metric);
    int nfigs = 0;
    char **figs = list_figures(dir, &nfigs, err);
    rc = figs ? NCP_OK : NCP_ERR_NOMEM;
    for (int html = 0; !rc && html < 2; html++) {
        char *page = page_text(html, title, figs, nfigs, sum, metric);
        if (!page) rc = ncp_error_set(err, NCP_ERR_NOMEM, "out of memory writing the index page");
        if (!rc) rc = ncp_path_join(path, sizeof path, dir, html ? "index.html" : "index.md", err);
        if (!rc) rc = ncp_safe_write_text(path, page, err);
        free(page);
    }
    for (int i = 0; i < nfigs; i++) free(figs[i]);
    free(figs);
    cJSON_Delete(sum);
    return rc;
}

void ncp_plot_print_pages(const char *dir, int page)
{
    static const char *const pages[2][2] = {{"results.md", "results table"},
                                            {"index.html", "results page (open in a browser)"}};
    for (int k = 0; k < 1 + (page != 0); k++) {
        char path[4300];
        ncp_error e = {0};
        if (!ncp_path_join(path, sizeof path, dir, pages[k][0], &e) && ncp_file_exists(path))
            printf("%s: %s\n", pages[k][1], path);
    }
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

/* Appends the gnuplot definition name='value' to defs (cap bytes), after "; " unless defs is
 * empty. */
static void gp_def(char *defs, size_t cap, const char *name, const char *value)
{
    size_t k = strlen(defs);
    snprintf(defs + k, cap - k, "%s%s='", k ? "; " : "", name);
    gp_quote(defs, cap, value);
    k = strlen(defs);
    snprintf(defs + k, cap - k, "'");
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

/* A figure gnuplot wrote to the end: a PNG ends with its IEND chunk, an SVG with </svg>. A full
 * disk can leave an empty or cut file behind a gnuplot that still exits 0. */
static int figure_complete(const char *path, int svg)
{
    static const unsigned char iend[8] = {'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
    unsigned char tail[16];
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    int ok = fseek(f, -(long)sizeof tail, SEEK_END) == 0 &&
             fread(tail, 1, sizeof tail, f) == sizeof tail;
    fclose(f);
    if (!ok) return 0;
    if (!svg) return !memcmp(tail + sizeof tail - sizeof iend, iend, sizeof iend);
    size_t n = sizeof tail;
    while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r' || tail[n - 1] == ' ')) n--;
    return n >= 6 && !memcmp(tail + n - 6, "</svg>", 6);
}

/* Runs `gnuplot -d -e defs script`, stdout and stderr appended to logpath, the figures written
 * to a temporary stem `dir/<name>.tmp-<pid>-<random>` (the scripts' `out`), then checks that
 * both files are complete and renames them to dir/<name>.png and .svg (util/safefile.h): a
 * failed or cut figure is never left under a figure's name, nor its temporary. */
static int run_script(const char *gnuplot, const char *scripts_dir, const char *name,
                      const char *dir, const char *defs, const char *logpath, ncp_error *err)
{
    int rc = NCP_OK;
    char *script = NULL, *png = NULL, *svg = NULL, **env = NULL, *stem = NULL, *gdefs = NULL;
    char *tpng = NULL, *tsvg = NULL;
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
    /* appended to without following a link (util/safefile.h) */
    FILE *lf = ncp_safe_fappend(logpath, err);
    if (!lf) {
        rc = NCP_ERR_IO;
        goto done;
    }
    fprintf(lf, "# %s -d -e \"%s\" %s\n", gnuplot, defs, script);
    if (close_checked(lf, logpath, err)) { rc = NCP_ERR_IO; goto done; }
    /* the temporary stem: a fresh name reserved without following links, then freed for
     * gnuplot's two files beside it */
    if ((rc = ncp_safe_reserve(png, &stem, err))) goto done;
    unlink(stem);
    size_t gcap = strlen(defs) + 2 * strlen(stem) + 16;
    gdefs = ncp_malloc(err, gcap, 1);
    tpng = ncp_malloc(err, strlen(stem) + 5, 1);
    tsvg = ncp_malloc(err, strlen(stem) + 5, 1);
    if (!gdefs || !tpng || !tsvg) { rc = NCP_ERR_NOMEM; goto done; }
    snprintf(gdefs, gcap, "%s; out='", defs);
    gp_quote(gdefs, gcap, stem);
    strcat(gdefs, "'");
    sprintf(tpng, "%s.png", stem);
    sprintf(tsvg, "%s.svg", stem);

    posix_spawn_file_actions_t fa;
    int e = posix_spawn_file_actions_init(&fa);
    if (e) {
        rc = ncp_error_set(err, NCP_ERR_INTERNAL, "posix_spawn_file_actions_init: %s",
                           strerror(e));
        goto done;
    }
    if ((e = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) ||
        (e = posix_spawn_file_actions_addopen(&fa, 2, logpath,
                                              O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, 0644)) ||
        (e = posix_spawn_file_actions_adddup2(&fa, 2, 1))) {
        posix_spawn_file_actions_destroy(&fa);
        rc = ncp_error_set(err, NCP_ERR_INTERNAL, "posix_spawn_file_actions: %s", strerror(e));
        goto done;
    }
    char a0[] = "gnuplot", a1[] = "-d", a2[] = "-e";
    char *argv[] = {a0, a1, a2, gdefs, script, NULL};
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
    if (!figure_complete(tpng, 0) || !figure_complete(tsvg, 1)) {
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot write %s and %s: gnuplot ran %s but left "
                           "%s (a full disk? log: %s)", png, svg, script,
                           figure_complete(tpng, 0) ? "the SVG cut or empty"
                                                    : "the PNG cut or empty", logpath);
        goto done;
    }
    if (!(rc = ncp_safe_rename(tpng, png, err))) rc = ncp_safe_rename(tsvg, svg, err);
done:
    if (tpng) unlink(tpng); /* nothing after a rename; the temporaries after any failure */
    if (tsvg) unlink(tsvg);
    free(tpng);
    free(tsvg);
    free(stem);
    free(gdefs);
    free(script);
    free(png);
    free(svg);
    free(env);
    return rc;
}

/* The index page of a benchmark output (it has summary.json); nothing for other directories. */
static int index_if_summary(const char *dir, ncp_error *err)
{
    char path[4300];
    int rc = ncp_path_join(path, sizeof path, dir, "summary.json", err);
    if (rc || !ncp_file_exists(path)) return rc;
    return ncp_plot_index(dir, err);
}

/* The solvers of the overview figure, space-separated as the .dat files write their names, into
 * sel (cap bytes), and what they are into what: compare's (comma-separated; each must be a
 * solver of the run when the summary has a results table), else the best-ranked solver of
 * each family of the results table (bench/output.h: ranks). */
static int overview_selection(const cJSON *sum, const char *compare, const char *dir, char *sel,
                              size_t cap, char *what, size_t wcap, ncp_error *err)
{
    sel[0] = '\0';
    int n = 0;
    const cJSON **rows = ranked_rows(sum, &n);
    size_t k = 0;
    if (compare) {
        snprintf(what, wcap, "the solvers compared");
        for (const char *p = compare; *p;) {
            size_t len = strcspn(p, ",");
            int found = rows == NULL; /* no results table (traces alone): taken as given */
            for (int i = 0; i < n && !found; i++)
                found = strlen(jstr(rows[i], "solver")) == len &&
                        !strncmp(jstr(rows[i], "solver"), p, len);
            if (!found || len == 0) {
                char known[600] = "";
                for (int i = 0; i < n; i++) {
                    size_t used = strlen(known);
                    snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                             jstr(rows[i], "solver"));
                }
                free(rows);
                return ncp_error_set(err, NCP_ERR_INPUT,
                                     "--compare: '%.*s' is not a solver of %s (its solvers: %s)",
                                     (int)len, p, dir, known);
            }
            for (size_t j = 0; j < len && k + 2 < cap; j++)
                sel[k++] = (char)name_char((unsigned char)p[j]);
            if (k + 1 < cap) sel[k++] = ' ';
            p += len;
            if (*p == ',') p++;
        }
    } else {
        snprintf(what, wcap, "the best solver of each family (results.md's ranking)");
        for (int i = 0; i < n; i++) {
            const char *fam = jstr(rows[i], "family");
            int seen = 0;
            for (int j = 0; j < i && !seen; j++) {
                const char *fj = jstr(rows[j], "family");
                seen = (fam && fj) ? !strcmp(fam, fj) : fam == fj;
            }
            if (seen) continue;
            for (const char *c = jstr(rows[i], "solver"); *c && k + 2 < cap; c++)
                sel[k++] = (char)name_char((unsigned char)*c);
            if (k + 1 < cap) sel[k++] = ' ';
        }
    }
    sel[k] = '\0';
    free(rows);
    return NCP_OK;
}

int ncp_plot_dir(const char *dir, const char *scripts_dir, const char *metric, ncp_error *err)
{
    return ncp_plot_dir_compare(dir, scripts_dir, metric, NULL, err);
}

int ncp_plot_dir_compare(const char *dir, const char *scripts_dir, const char *metric,
                         const char *compare, ncp_error *err)
{
    /* the stopping criterion of the run: its metric is drawn unless another is asked for, with
     * its tolerance */
    cJSON *sum = load_summary(dir);
    const cJSON *budget = cJSON_GetObjectItemCaseSensitive(sum, "budget");
    const char *stop = jstr(budget, "stop_metric");
    double tol = jnum(budget, "tol");
    if (!metric) metric = stop ? stop : NCP_PLOT_DEFAULT_METRIC;
    int draw_tol = stop && !strcmp(metric, stop) && tol > 0.0;
    char sel[4096], what[128];
    char *gnuplot = NULL, *logpath = NULL, *defs = NULL;
    int rc = overview_selection(sum, compare, dir, sel, sizeof sel, what, sizeof what, err);
    if (!rc) rc = ncp_plot_aggregate(dir, metric, err);
    if (rc) goto done;
    if (!(gnuplot = find_gnuplot())) {
        if ((rc = index_if_summary(dir, err))) goto done;
        rc = ncp_error_set(err, NCP_PLOT_SKIPPED,
                           "gnuplot not found on PATH: figures skipped; install gnuplot-nox");
        goto done;
    }
    /* the data directory's (util/fsutil.h: source tree only for an uninstalled build) */
    if (!scripts_dir || !scripts_dir[0]) scripts_dir = ncp_scripts_dir();
    if (!(logpath = path_join(dir, "gnuplot.log", err))) { rc = NCP_ERR_NOMEM; goto done; }
    if (strpbrk(dir, "\n\r")) {
        rc = ncp_error_set(err, NCP_ERR_INPUT,
                           "output directory name contains a line break; gnuplot cannot be given "
                           "it: rename the directory");
        goto done;
    }
    if ((rc = ncp_safe_write_text(logpath, "", err))) goto done;

    char title[256];
    scene_title(dir, title, sizeof title);
    size_t cap = 2 * (strlen(dir) + strlen(title) + strlen(metric) + strlen(sel) + strlen(what)) +
                 160;
    defs = ncp_malloc(err, cap, 1);
    if (!defs) { rc = NCP_ERR_NOMEM; goto done; }
    defs[0] = '\0';
    gp_def(defs, cap, "dir", dir);
    gp_def(defs, cap, "title", title);
    gp_def(defs, cap, "metric", metric);
    if (draw_tol) snprintf(defs + strlen(defs), cap - strlen(defs), "; tol=%.17g", tol);
    rc = run_script(gnuplot, scripts_dir, RES_SCRIPT, dir, defs, logpath, err);
    if (rc == NCP_OK && !sel[0]) { /* nothing to overlay: no overview of an earlier drawing */
        char *png = path_join(dir, OVERVIEW_SCRIPT ".png", err);
        char *svg = png ? path_join(dir, OVERVIEW_SCRIPT ".svg", err) : NULL;
        if (!svg) rc = NCP_ERR_NOMEM;
        else if ((unlink(png) && errno != ENOENT) || (unlink(svg) && errno != ENOENT))
            rc = ncp_error_set(err, NCP_ERR_IO, "cannot remove the old %s: %s", png,
                               strerror(errno));
        free(png);
        free(svg);
    } else if (rc == NCP_OK) { /* the overview: its solvers on top of the panels' defs */
        gp_def(defs, cap, "sel", sel);
        gp_def(defs, cap, "what", what);
        rc = run_script(gnuplot, scripts_dir, OVERVIEW_SCRIPT, dir, defs, logpath, err);
    }
    if (rc == NCP_OK) rc = run_script(gnuplot, scripts_dir, ITER_SCRIPT, dir, defs, logpath, err);
    if (rc == NCP_OK) rc = index_if_summary(dir, err);
done:
    cJSON_Delete(sum);
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
    const char *scripts_dir = ncp_scripts_dir();
    int rc = NCP_OK;
    char *logpath = path_join(dir, "gnuplot.log", err);
    size_t cap = 2 * (strlen(dir) + strlen(title)) + 32;
    char *defs = ncp_malloc(err, cap, 1);
    if (!logpath || !defs) {
        rc = NCP_ERR_NOMEM;
    } else {
        defs[0] = '\0';
        gp_def(defs, cap, "dir", dir);
        gp_def(defs, cap, "title", title);
        rc = run_script(gnuplot, scripts_dir, name, dir, defs, logpath, err);
    }
    free(gnuplot);
    free(logpath);
    free(defs);
    return rc;
}
