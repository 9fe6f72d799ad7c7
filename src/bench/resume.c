/* Resuming a benchmark run (resume.h). */
#include "bench/resume.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <hdf5.h>

#include "ncp_config.h"
#include "bench/output.h"
#include "store/h5util.h"
#include "store/traces.h"
#include "util/csv.h"
#include "util/fsutil.h"

enum { MAX_SOL_SOURCES = 32, MAX_TRACE_SOURCES = 32 };

/* A row with where its pieces are. */
typedef struct rrow {
    ncp_resume_row pub;  /* first: ncp_resume_row * and rrow * convert */
    char *line;          /* the metrics.csv row text, no line end */
    int ssrc;            /* solution source, -1 none */
} rrow;

struct ncp_resume {
    char *dir;
    rrow *rows;
    int n, cap;
    int *slot;           /* hash table of row indices, -1 empty */
    int nslot;
    ncp_traces_in *ti[MAX_TRACE_SOURCES]; /* trace sources (traces.h5 of earlier runs) */
    int nti;
    hid_t sf[MAX_SOL_SOURCES];
    int nsf;
    /* files to delete once the new outputs are complete */
    char *remove[MAX_SOL_SOURCES + MAX_TRACE_SOURCES + 4];
    int nremove;
};

/* ---------------------------------------------------------------------------------------- */
/* configuration                                                                              */

static cJSON *jnum(double x)
{
    if (!isfinite(x)) return cJSON_CreateNull();
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", x);
    return cJSON_CreateRaw(buf);
}

static int cmp_param(const void *a, const void *b)
{
    return strcmp(((const ncp_param *)a)->name, ((const ncp_param *)b)->name);
}

int ncp_resume_config(const ncp_bench_opts *o, char **text, ncp_error *err)
{
    *text = NULL;
    cJSON *c = cJSON_CreateObject(), *sv = cJSON_CreateArray(), *b = cJSON_CreateObject(),
          *ps = cJSON_CreateObject();
    int bad = !c || !sv || !b || !ps;
    if (!bad) {
        cJSON_AddItemToObject(c, "ncpbench_version", cJSON_CreateString(NCP_VERSION));
        cJSON_AddItemToObject(c, "solvers", sv);
        cJSON_AddItemToObject(c, "budget", b);
        cJSON_AddItemToObject(c, "params", ps);
        sv = b = ps = NULL;
        cJSON *s = cJSON_GetObjectItem(c, "solvers"), *bb = cJSON_GetObjectItem(c, "budget"),
              *pp = cJSON_GetObjectItem(c, "params");
        for (int i = 0; i < o->nsolvers; i++) {
            cJSON_AddItemToArray(s, cJSON_CreateString(o->solvers[i]->name));
            for (int k = 0; k < o->nparams; k++) {
                if (strcmp(o->params[k].solver, o->solvers[i]->name) || !o->params[k].params.n)
                    continue;
                ncp_params sorted = o->params[k].params;
                qsort(sorted.items, (size_t)sorted.n, sizeof sorted.items[0], cmp_param);
                cJSON *one = cJSON_CreateObject();
                for (int j = 0; one && j < sorted.n; j++)
                    cJSON_AddItemToObject(one, sorted.items[j].name, jnum(sorted.items[j].value));
                cJSON_AddItemToObject(pp, o->solvers[i]->name, one);
            }
        }
        cJSON_AddItemToObject(bb, "tol", jnum(o->budget.tol));
        cJSON_AddItemToObject(bb, "max_iter", jnum(o->budget.max_iter));
        cJSON_AddItemToObject(bb, "time_ms", jnum(o->budget.time_ms > 0 ? o->budget.time_ms : 0));
        cJSON_AddItemToObject(c, "stop_metric",
                              cJSON_CreateString(ncp_metrics_name(o->stop_metric)));
        cJSON_AddItemToObject(c, "reconstruct_primal",
                              cJSON_CreateBool((o->allow & NCP_RECON_PRIMAL_FROM_D) != 0));
        cJSON_AddItemToObject(c, "primal", cJSON_CreateString(o->allow & NCP_RECON_PRIMAL_DENSE
                                                                  ? "dense" : "as given"));
        cJSON_AddItemToObject(c, "symmetrize",
                              cJSON_CreateBool((o->allow & NCP_RECON_SYMMETRIZE) != 0));
        cJSON_AddItemToObject(c, "warm_start",
                              cJSON_CreateString(ncp_warm_start_name(o->warm_start)));
        cJSON_AddItemToObject(c, "traces", cJSON_CreateBool(o->traces != 0));
        /* recorded only when set, so that the records of runs before these options match */
        if (o->traces && o->traces_csv)
            cJSON_AddItemToObject(c, "traces_csv", cJSON_CreateBool(1));
        if (o->traces && o->trace_every)
            cJSON_AddItemToObject(c, "trace_every", cJSON_CreateBool(1));
        *text = cJSON_PrintUnformatted(c);
    }
    cJSON_Delete(c);
    cJSON_Delete(sv);
    cJSON_Delete(b);
    cJSON_Delete(ps);
    if (!*text) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory describing the run");
    return NCP_OK;
}

/* FNV-1a, 64 bits: a fingerprint, not a security measure. */
static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static int write_config(const char *path, const char *config, ncp_error *err)
{
    size_t n = strlen(config) + 200;
    char *t = ncp_malloc(err, n, 1);
    if (!t) return NCP_ERR_NOMEM;
    snprintf(t, n, "{\"fingerprint\": \"%016" PRIx64 "\",\n \"config\": %s}\n", fnv1a(config),
             config);
    int rc = ncp_write_file_atomic(path, t, err);
    free(t);
    return rc;
}

/* NCP_OK when the recorded configuration is `config`; NCP_ERR_INPUT naming what differs. */
static int check_config(const char *dir, const char *path, const char *config, ncp_error *err)
{
    static const char *const again = "rerun with the options of the results in it to resume "
                                      "them, add --fresh to discard them, or choose another --out";
    char *text = NULL;
    if (!ncp_file_exists(path))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s holds results without a recorded "
                             "configuration (no config.json: written by `ncpbench run` or by "
                             "hand); add --fresh to discard them, or choose another --out", dir);
    int rc = ncp_read_file(path, &text, NULL, err);
    if (rc) return rc;
    cJSON *old = cJSON_Parse(text), *now = cJSON_Parse(config);
    free(text);
    const cJSON *fp = cJSON_GetObjectItemCaseSensitive(old, "fingerprint");
    const cJSON *oc = cJSON_GetObjectItemCaseSensitive(old, "config");
    char want[20];
    snprintf(want, sizeof want, "%016" PRIx64, fnv1a(config));
    if (!now) {
        rc = ncp_error_set(err, NCP_ERR_NOMEM, "out of memory comparing configurations");
    } else if (!cJSON_IsString(fp) || !cJSON_IsObject(oc)) {
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: not a configuration record of ncpbench; "
                           "add --fresh to discard the results in %s", path, dir);
    } else if (strcmp(fp->valuestring, want) != 0) {
        char diff[512] = "";
        size_t used = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, now)
        {
            const cJSON *o2 = cJSON_GetObjectItemCaseSensitive(oc, it->string);
            if (o2 && cJSON_Compare(it, o2, 1)) continue;
            int w = snprintf(diff + used, sizeof diff - used, "%s%s", used ? ", " : "",
                             it->string);
            if (w > 0 && (size_t)w < sizeof diff - used) used += (size_t)w;
        }
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s holds results of another configuration "
                           "(differs in: %s; see %s); %s", dir, used ? diff : "its fingerprint",
                           path, again);
    }
    cJSON_Delete(old);
    cJSON_Delete(now);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* the index                                                                                  */

static uint64_t key_hash(const char *problem, const char *solver)
{
    uint64_t h = fnv1a(problem);
    h = (h ^ 0x1f) * 0x100000001b3ull;
    for (const char *s = solver; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* Slot of (problem, solver): the one holding it, or the empty one where it goes. */
static int *lookup(ncp_resume *rs, const char *problem, const char *solver)
{
    size_t mask = (size_t)rs->nslot - 1, i = (size_t)key_hash(problem, solver) & mask;
    for (;; i = (i + 1) & mask) {
        int k = rs->slot[i];
        if (k < 0 || (!strcmp(rs->rows[k].pub.problem, problem) &&
                      !strcmp(rs->rows[k].pub.solver, solver)))
            return &rs->slot[i];
    }
}

static void row_free(rrow *r)
{
    free(r->pub.problem);
    free(r->pub.solver);
    free(r->pub.note);
    free(r->pub.title);
    free(r->pub.description);
    free(r->line);
    memset(r, 0, sizeof *r);
}

/* Room for one more row, the table at most half full. */
static int grow(ncp_resume *rs, ncp_error *err)
{
    int rc = ncp_bench_grow(&rs->rows, &rs->cap, rs->n, sizeof *rs->rows, err);
    if (rc) return rc;
    if (2 * (rs->n + 1) <= rs->nslot) return NCP_OK;
    int ns = rs->nslot ? 2 * rs->nslot : 1024;
    int *sl = ncp_malloc(err, (size_t)ns, sizeof *sl);
    if (!sl) return NCP_ERR_NOMEM;
    for (int i = 0; i < ns; i++) sl[i] = -1;
    free(rs->slot);
    rs->slot = sl;
    rs->nslot = ns;
    for (int k = 0; k < rs->n; k++) *lookup(rs, rs->rows[k].pub.problem, rs->rows[k].pub.solver) = k;
    return NCP_OK;
}

/* The row text again from its fields (what ncp_out_metrics_row wrote). */
static char *join_fields(char *const *f, int n, ncp_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) {
        ncp_error_set(err, NCP_ERR_NOMEM, "out of memory reading earlier results");
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        if (i) fputc(',', m);
        ncp_out_field(m, f[i]);
    }
    if (fclose(m) != 0 || !buf) {
        free(buf);
        ncp_error_set(err, NCP_ERR_NOMEM, "out of memory reading earlier results");
        return NULL;
    }
    return buf;
}

static int read_metrics(ncp_resume *rs, const char *path, ncp_error *err)
{
    ncp_csv r;
    int rc = ncp_csv_open(&r, path, NULL, err);
    if (rc) return rc;
    /* the metric columns start after the eight fixed ones and end before the three text ones */
    const int nm = ncp_metrics_count(), nc = ncp_out_metrics_ncols(), first = nc - nm - 3;
    int same = r.ncols == nc;
    for (int i = 0; same && i < nc; i++) same = !strcmp(r.header[i], ncp_out_metrics_col(i));
    if (!same) {
        ncp_csv_close(&r);
        return ncp_error_set(err, NCP_ERR_INPUT, "%s has other columns than this ncpbench "
                             "writes; add --fresh to discard the results", path);
    }
    while ((rc = ncp_csv_next(&r, err)) == NCP_OK) {
        char **f = r.field;
        ncp_resume_row q;
        memset(&q, 0, sizeof q);
        double it, cv;
        int ok = !ncp_csv_number(f[2], &it) && !ncp_csv_number(f[3], &cv) &&
                 !ncp_csv_number(f[5], &q.setup_ms) && !ncp_csv_number(f[6], &q.solve_ms);
        for (int k = 0; ok && k < nm; k++) ok = !ncp_csv_number(f[first + k], &q.metrics[k]);
        q.status = ncp_status_from_name(f[4]);
        /* a solve cut by Ctrl-C did not finish; an unreadable row is solved again */
        if (!ok || q.status < 0 || q.status == NCP_STATUS_STOPPED) continue;
        q.iterations = (int)it;
        q.converged = (int)cv;
        if ((rc = grow(rs, err))) break;
        int *sl = lookup(rs, f[0], f[1]);
        rrow *row;
        if (*sl >= 0) { /* a newer file's row replaces the older one */
            row = &rs->rows[*sl];
            row_free(row);
        } else {
            *sl = rs->n;
            row = &rs->rows[rs->n++];
            memset(row, 0, sizeof *row);
        }
        row->pub = q;
        row->ssrc = -1;
        if (!(row->pub.problem = ncp_strdup(err, f[0])) ||
            !(row->pub.solver = ncp_strdup(err, f[1])) ||
            !(row->pub.note = ncp_strdup(err, f[first + nm])) ||
            !(row->pub.title = ncp_strdup(err, f[first + nm + 1])) ||
            !(row->pub.description = ncp_strdup(err, f[first + nm + 2])) ||
            !(row->line = join_fields(f, nc, err))) {
            rc = NCP_ERR_NOMEM;
            break;
        }
    }
    ncp_csv_close(&r);
    return rc == NCP_CSV_END ? NCP_OK : rc;
}

/* A 1-D double dataset, read as stored (NaN included: failed solves keep theirs). */
static int read_vec(hid_t g, const char *name, double **v, int *n)
{
    *v = NULL;
    *n = 0;
    if (H5Lexists(g, name, H5P_DEFAULT) <= 0) return 1;
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0) return -1;
    hid_t sp = H5Dget_space(d);
    hsize_t dims[1] = {0};
    int ok = sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 &&
             H5Sget_simple_extent_dims(sp, dims, NULL) == 1 && dims[0] < (hsize_t)1 << 31;
    if (ok && (*v = malloc((dims[0] ? dims[0] : 1) * sizeof(double))) != NULL) {
        ok = dims[0] == 0 || H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *v) >= 0;
        *n = (int)dims[0];
    } else {
        ok = 0;
    }
    if (sp >= 0) H5Sclose(sp);
    H5Dclose(d);
    if (!ok) {
        free(*v);
        *v = NULL;
    }
    return ok ? 0 : -1;
}

/* Opens /solutions/<solver>/<problem> of source f, or returns < 0. */
static hid_t open_solution(hid_t f, const char *solver, const char *problem)
{
    hid_t s = -1, g = -1, p = -1;
    if (H5Lexists(f, "solutions", H5P_DEFAULT) > 0 &&
        (s = H5Gopen2(f, "solutions", H5P_DEFAULT)) >= 0 &&
        H5Lexists(s, solver, H5P_DEFAULT) > 0 && (g = H5Gopen2(s, solver, H5P_DEFAULT)) >= 0 &&
        H5Lexists(g, problem, H5P_DEFAULT) > 0)
        p = H5Gopen2(g, problem, H5P_DEFAULT);
    if (g >= 0) H5Gclose(g);
    if (s >= 0) H5Gclose(s);
    return p;
}

/* 1 when source f holds the row's answer (same status and iterations). */
static int has_solution(hid_t f, const char *path, const rrow *row)
{
    hid_t g = open_solution(f, row->pub.solver, row->pub.problem);
    if (g < 0) return 0;
    ncp_error e = {0};
    ncp_h5ctx c = {.file = path, .err = &e};
    int it = -1;
    char *st = NULL;
    int ok = !ncp_h5_read_attr_int(&c, g, "", "iterations", &it) &&
             !ncp_h5_read_attr_str(&c, g, "", "status", &st) && it == row->pub.iterations &&
             ncp_status_from_name(st) == row->pub.status;
    free(st);
    H5Gclose(g);
    return ok;
}

static int add_remove(ncp_resume *rs, const char *path, ncp_error *err)
{
    if (rs->nremove >= (int)(sizeof rs->remove / sizeof rs->remove[0])) return NCP_OK;
    if (!(rs->remove[rs->nremove] = ncp_strdup(err, path))) return NCP_ERR_NOMEM;
    rs->nremove++;
    return NCP_OK;
}

static int starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

/* The files of `base` (solutions.h5 or traces.h5) in the directory: base itself and the
 * temporary files of runs killed outright, all renamed to base.prev-<n> (so that neither the new
 * file, renamed into place when it is complete, nor a new run's temporary name can replace
 * them), and earlier base.prev-<n>; their paths into out[] (allocated; at most max), each also
 * on the list removed by ncp_resume_finish. */
static int move_sources(ncp_resume *rs, const char *base, char **out, int max, int *nout,
                        ncp_error *err)
{
    char path[4300], to[4300], tmp[80], prev[80];
    int rc = NCP_OK, k = 0;
    *nout = 0;
    snprintf(tmp, sizeof tmp, "%s.tmp-", base);
    snprintf(prev, sizeof prev, "%s.prev-", base);
    DIR *d = opendir(rs->dir);
    if (!d) return ncp_error_set(err, NCP_ERR_IO, "cannot read the directory %s", rs->dir);
    char *names[MAX_SOL_SOURCES];
    int nn = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nn < MAX_SOL_SOURCES - 1 && nn < max)
        if (starts(e->d_name, tmp) || starts(e->d_name, prev) || !strcmp(e->d_name, base))
            if (!(names[nn++] = ncp_strdup(err, e->d_name))) rc = NCP_ERR_NOMEM;
    closedir(d);
    for (int i = 0; i < nn; i++) {
        if (!rc && names[i] && !starts(names[i], prev)) {
            do
                snprintf(to, sizeof to, "%s/%s%d", rs->dir, prev, ++k);
            while (ncp_file_exists(to));
            snprintf(path, sizeof path, "%s/%s", rs->dir, names[i]);
            if (rename(path, to) != 0)
                rc = ncp_error_set(err, NCP_ERR_IO, "cannot rename %s: %s", path, strerror(errno));
        } else if (!rc) {
            snprintf(to, sizeof to, "%s/%s", rs->dir, names[i]);
        }
        free(names[i]);
        if (rc || (rc = add_remove(rs, to, err))) continue;
        if (!(out[*nout] = ncp_strdup(err, to))) rc = NCP_ERR_NOMEM;
        else (*nout)++;
    }
    return rc;
}

static int open_solution_sources(ncp_resume *rs, ncp_error *err)
{
    char *paths[MAX_SOL_SOURCES];
    int n, rc = move_sources(rs, "solutions.h5", paths, MAX_SOL_SOURCES, &n, err);
    for (int i = 0; i < n; i++) {
        hid_t f = rc ? -1 : H5Fopen(paths[i], H5F_ACC_RDONLY, H5P_DEFAULT);
        if (f >= 0) rs->sf[rs->nsf++] = f; /* unreadable: nothing in it can be used */
        free(paths[i]);
    }
    return rc;
}

/* Copies a trace of an earlier traces.csv into the HDF5 writer of the conversion. */
static int convert_block(void *ctx, const ncp_trace_block *b, ncp_error *err)
{
    return ncp_traces_write(ctx, b->solver, b->problem, b->nrows, b->data, -1, "", err);
}

/* First trace of a CSV: the columns for the converted file. */
typedef struct first_cols {
    int ncols;
    char *cols[NCP_TRACE_MAX_COLS];
} first_cols;

static int take_cols(void *ctx, const ncp_trace_block *b, ncp_error *err)
{
    first_cols *fc = ctx;
    for (int k = 0; k < b->ncols; k++)
        if (!(fc->cols[fc->ncols++] = ncp_strdup(err, b->cols[k]))) return NCP_ERR_NOMEM;
    return NCP_ERR_INTERNAL; /* stop after the first trace (not an error: see convert_csv) */
}

/* An earlier run's traces.csv (before traces.h5; every trace read through ncp_traces_read)
 * into the HDF5 file `to`. A file without traces converts to nothing (*made = 0). */
static int convert_csv(const char *csv, const char *to, int *made, ncp_error *err)
{
    first_cols fc = {0};
    *made = 0;
    int rc = ncp_traces_read(csv, take_cols, &fc, err);
    /* NCP_ERR_INTERNAL: take_cols stopped after the first trace; another error (an empty or
     * unreadable file) leaves no trace to keep */
    rc = rc == NCP_ERR_NOMEM ? rc : NCP_OK;
    ncp_traces *w = NULL;
    if (!rc && fc.ncols > 0) {
        rc = ncp_traces_create(to, fc.ncols, (const char *const *)fc.cols, "every", &w, err);
        if (!rc) rc = ncp_traces_read(csv, convert_block, w, err);
        ncp_error e3 = {0};
        int crc = ncp_traces_close(w, rc ? &e3 : err);
        if (!rc) rc = crc;
        if (!rc) *made = 1;
        else remove(to);
    }
    for (int k = 0; k < fc.ncols; k++) free(fc.cols[k]);
    return rc;
}

/* Trace sources: the traces.h5 files of earlier runs (moved aside as the solutions). A
 * directory of a run before traces.h5 has traces.csv (and traces.csv.prev after an
 * interruption) instead: those are converted to traces.h5.prev-<n>, the newer first. */
static int open_trace_sources(ncp_resume *rs, const char *tcur, const char *tprev,
                              ncp_error *err)
{
    char *paths[MAX_TRACE_SOURCES];
    int n, rc = move_sources(rs, "traces.h5", paths, MAX_TRACE_SOURCES, &n, err);
    for (int i = 0; i < n; i++) {
        ncp_traces_in *r = NULL;
        ncp_error e2 = {0};
        if (!rc && !ncp_traces_in_open(paths[i], &r, &e2)) rs->ti[rs->nti++] = r;
        free(paths[i]);
    }
    const char *csv[2] = {tcur, tprev};
    for (int k = 0; !rc && n == 0 && k < 2; k++) {
        if (!ncp_file_exists(csv[k])) continue;
        char to[4300];
        int made, j = 0;
        do
            snprintf(to, sizeof to, "%s/traces.h5.prev-%d", rs->dir, ++j);
        while (ncp_file_exists(to));
        /* traces.csv itself is replaced by the new run's (--traces-csv) or removed */
        if ((rc = convert_csv(csv[k], to, &made, err)) ||
            (csv[k] == tprev && (rc = add_remove(rs, csv[k], err))))
            break;
        ncp_traces_in *r = NULL;
        ncp_error e2 = {0};
        if (made && !(rc = add_remove(rs, to, err)) && !ncp_traces_in_open(to, &r, &e2))
            rs->ti[rs->nti++] = r;
    }
    return rc;
}

static void remove_leftovers(const char *dir)
{
    static const char *const names[] = {"metrics.csv.prev", "traces.csv.prev",
                                        "metrics.csv.prev.new"};
    static const char *const prefixes[] = {"solutions.h5.prev-", "solutions.h5.tmp-",
                                           "traces.h5.prev-", "traces.h5.tmp-"};
    char path[4300];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        remove(path);
    }
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        int match = 0;
        for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
            match |= starts(e->d_name, prefixes[i]);
        if (!match) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        remove(path);
    }
    if (d) closedir(d);
}

/* Writes the kept rows into a new file (the consolidated earlier results). */
static int consolidate(ncp_resume *rs, const char *mpath, ncp_error *err)
{
    FILE *m = fopen(mpath, "w");
    int rc = NCP_OK;
    if (!m) rc = ncp_error_set(err, NCP_ERR_IO, "cannot create %s", mpath);
    if (!rc) ncp_out_metrics_header(m);
    for (int i = 0; !rc && i < rs->n; i++) fprintf(m, "%s\n", rs->rows[i].line);
    if (m && fclose(m) != 0 && !rc) rc = ncp_error_set(err, NCP_ERR_IO, "cannot write %s", mpath);
    return rc;
}

int ncp_resume_open(const char *dir, const char *config, int fresh, ncp_resume **out,
                    ncp_error *err)
{
    *out = NULL;
    char cfg[4300], mcur[4300], mprev[4300], tcur[4300], tprev[4300], mnew[4300];
    int rc;
    if ((rc = ncp_path_join(cfg, sizeof cfg, dir, "config.json", err)) ||
        (rc = ncp_path_join(mcur, sizeof mcur, dir, "metrics.csv", err)) ||
        (rc = ncp_path_join(mprev, sizeof mprev, dir, "metrics.csv.prev", err)) ||
        (rc = ncp_path_join(tcur, sizeof tcur, dir, "traces.csv", err)) ||
        (rc = ncp_path_join(tprev, sizeof tprev, dir, "traces.csv.prev", err)) ||
        (rc = ncp_path_join(mnew, sizeof mnew, dir, "metrics.csv.prev.new", err)))
        return rc;
    int have_prev = ncp_file_exists(mprev), have_cur = ncp_file_exists(mcur);
    if (fresh || (!have_prev && !have_cur)) {
        remove_leftovers(dir);
        return write_config(cfg, config, err);
    }
    if ((rc = check_config(dir, cfg, config, err))) return rc;
    ncp_h5_quiet();
    ncp_resume *rs = ncp_calloc(err, 1, sizeof *rs);
    if (!rs) return NCP_ERR_NOMEM;
    if (!(rs->dir = ncp_strdup(err, dir))) {
        free(rs);
        return NCP_ERR_NOMEM;
    }
    /* metrics: the newer file's row of a pair wins */
    if (have_prev) rc = read_metrics(rs, mprev, err);
    if (!rc && have_cur) rc = read_metrics(rs, mcur, err);
    if (!rc) rc = open_solution_sources(rs, err);
    if (!rc) rc = open_trace_sources(rs, tcur, tprev, err);
    /* keep the rows whose answer is on file */
    int kept = 0;
    for (int i = 0; !rc && i < rs->n; i++) {
        rrow *r = &rs->rows[i];
        r->ssrc = -1;
        for (int s = 0; r->pub.status != NCP_STATUS_UNSUPPORTED && s < rs->nsf && r->ssrc < 0; s++)
            if (has_solution(rs->sf[s], dir, r)) r->ssrc = s;
        if (r->pub.status != NCP_STATUS_UNSUPPORTED && r->ssrc < 0) {
            row_free(r);
            continue;
        }
        rs->rows[kept++] = *r;
    }
    if (!rc) {
        rs->n = kept;
        for (int i = 0; i < rs->nslot; i++) rs->slot[i] = -1;
        for (int k = 0; k < rs->n; k++)
            *lookup(rs, rs->rows[k].pub.problem, rs->rows[k].pub.solver) = k;
    }
    /* Move the earlier metrics aside; after a run killed outright (*.prev exists) the rows of
     * both generations are written into a new *.prev first. */
    if (!rc && have_prev) {
        rc = consolidate(rs, mnew, err);
        if (!rc && rename(mnew, mprev) != 0)
            rc = ncp_error_set(err, NCP_ERR_IO, "cannot rename %s: %s", mnew, strerror(errno));
        if (!rc) remove(mcur);
    } else if (!rc && rename(mcur, mprev) != 0) {
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot rename %s: %s", mcur, strerror(errno));
    }
    if (!rc) rc = add_remove(rs, mprev, err);
    if (rc) {
        ncp_resume_free(rs);
        return rc;
    }
    *out = rs;
    return NCP_OK;
}

ncp_resume_row *ncp_resume_find(ncp_resume *rs, const char *problem, const char *solver)
{
    if (!rs || !rs->nslot) return NULL;
    int k = *lookup(rs, problem, solver);
    return k >= 0 ? &rs->rows[k].pub : NULL;
}

int ncp_resume_count(const ncp_resume *rs) { return rs ? rs->n : 0; }

ncp_resume_row *ncp_resume_at(ncp_resume *rs, int i) { return &rs->rows[i].pub; }

static int copy_solution(ncp_resume *rs, const rrow *r, ncp_solutions *sol, ncp_error *err)
{
    hid_t g = open_solution(rs->sf[r->ssrc], r->pub.solver, r->pub.problem);
    double *x = NULL, *u = NULL, *v = NULL;
    int nx = 0, nu = 0, nv = 0, rc = NCP_OK;
    if (g < 0 || read_vec(g, "r", &x, &nx) || read_vec(g, "u", &u, &nu) || nx != nu ||
        read_vec(g, "v", &v, &nv) < 0)
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot read the earlier answer of %s on %s in %s "
                           "(changed since the run started?)", r->pub.solver, r->pub.problem,
                           rs->dir);
    else
        rc = ncp_solutions_write(sol, r->pub.solver, r->pub.problem, nx, x, u, nv, v,
                                 r->pub.iterations, r->pub.converged,
                                 ncp_status_name(r->pub.status), err);
    if (g >= 0) H5Gclose(g);
    free(x);
    free(u);
    free(v);
    return rc;
}

/* The kept pair's trace: copied when it belongs to the kept row (same iterations and status;
 * a converted traces.csv carries neither and is taken as is). */
typedef struct emit_ctx {
    const rrow *r;
    ncp_out_traces *out;
    int copied;
} emit_ctx;

static int emit_block(void *ctx, const ncp_trace_block *b, ncp_error *err)
{
    emit_ctx *e = ctx;
    if (b->iterations >= 0 && (b->iterations != e->r->pub.iterations ||
                               ncp_status_from_name(b->status ? b->status : "") != e->r->pub.status))
        return NCP_OK;
    e->copied = 1;
    ncp_trace_block c = *b; /* a converted traces.csv: the row says how the solve ended */
    if (c.iterations < 0) {
        c.iterations = e->r->pub.iterations;
        c.status = ncp_status_name(e->r->pub.status);
    }
    return ncp_out_traces_put_block(e->out, &c, err);
}

int ncp_resume_emit(ncp_resume *rs, ncp_resume_row *row, FILE *metrics, ncp_out_traces *traces,
                    ncp_solutions *sol, ncp_error *err)
{
    rrow *r = (rrow *)row;
    if (fprintf(metrics, "%s\n", r->line) < 0 || fflush(metrics))
        return ncp_error_set(err, NCP_ERR_IO, "cannot write %s/metrics.csv (disk full?)",
                             rs->dir);
    emit_ctx e = {r, traces, 0};
    for (int s = 0; traces && s < rs->nti && !e.copied; s++) {
        int found, rc = ncp_traces_in_get(rs->ti[s], r->pub.solver, r->pub.problem, emit_block,
                                          &e, &found, err);
        if (rc) return rc;
    }
    if (r->ssrc >= 0) {
        int rc = copy_solution(rs, r, sol, err);
        if (rc) return rc;
    }
    row->emitted = 1;
    return NCP_OK;
}

static void close_traces(ncp_resume *rs)
{
    for (int k = 0; k < rs->nti; k++) ncp_traces_in_close(rs->ti[k]);
    rs->nti = 0;
}

int ncp_resume_finish(ncp_resume *rs, ncp_error *err)
{
    (void)err;
    if (!rs) return NCP_OK;
    close_traces(rs);
    for (int s = 0; s < rs->nsf; s++) H5Fclose(rs->sf[s]);
    rs->nsf = 0;
    for (int i = 0; i < rs->nremove; i++) remove(rs->remove[i]);
    return NCP_OK;
}

void ncp_resume_free(ncp_resume *rs)
{
    if (!rs) return;
    close_traces(rs);
    for (int s = 0; s < rs->nsf; s++) H5Fclose(rs->sf[s]);
    for (int i = 0; i < rs->n; i++) row_free(&rs->rows[i]);
    for (int i = 0; i < rs->nremove; i++) free(rs->remove[i]);
    free(rs->rows);
    free(rs->slot);
    free(rs->dir);
    free(rs);
}

int ncp_resume_forget(const char *out_dir, ncp_error *err)
{
    char cfg[4300];
    int rc = ncp_path_join(cfg, sizeof cfg, out_dir, "config.json", err);
    if (rc) return rc;
    if (remove(cfg) != 0 && errno != ENOENT)
        return ncp_error_set(err, NCP_ERR_IO, "cannot remove %s: %s", cfg, strerror(errno));
    remove_leftovers(out_dir);
    return NCP_OK;
}
