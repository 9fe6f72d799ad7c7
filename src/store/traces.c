/* traces.h5 writer and the traces reader (traces.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "store/h5util.h"
#include "store/traces.h"
#include "util/csv.h"
#include "util/fsutil.h"
#include "util/isolate.h"
#include "util/stats.h"

int ncp_traces_sample_keep(long k) { return ncp_log_sample_keep(k); }

/* ---------------------------------------------------------------------------------------- */
/* writing                                                                                    */

struct ncp_traces {
    hid_t file, root;
    char *path, *tmp;
    int ncols;
    hid_t strtype;  /* variable-length UTF-8 string */
    const char **cols;
    int deflate;
    int failed; /* a write failed for want of space: the close discards its own writes */
    int noflush; /* ncp_traces_set_flush(t, 0) */
    char *sampling;
    int written; /* a trace was written */
    int deferred_rc; /* the compact file could not be created (ncp_traces_set_flush) */
};

static void tr_free(ncp_traces *t)
{
    if (t->strtype >= 0) H5Tclose(t->strtype);
    free(t->cols);
    free(t->sampling);
    free(t->path);
    free(t->tmp);
    free(t);
}

/* A rank-1 array of variable-length UTF-8 strings as attribute `name` of obj (what h5py reads
 * as a list of str). */
static herr_t attr_strings(hid_t obj, const char *name, hid_t strtype, int n,
                           const char *const *s)
{
    hsize_t d = (hsize_t)n;
    if (ncp_h5_reserve(obj, 0) < 0) return -1; /* disk full: libhdf5 must not see it (h5util.c) */
    hid_t sp = H5Screate_simple(1, &d, NULL);
    if (sp < 0) return -1;
    hid_t a = H5Acreate2(obj, name, strtype, sp, H5P_DEFAULT, H5P_DEFAULT);
    herr_t st = a < 0 ? -1 : H5Awrite(a, strtype, s);
    if (a >= 0 && H5Aclose(a) < 0) st = -1;
    H5Sclose(sp);
    return st;
}

/* A group that remembers the creation order of its links (the run order of solvers and
 * problems), untimed like every group we write. */
static hid_t ordered_group(hid_t loc, const char *name)
{
    hid_t gcpl = ncp_h5_untimed_plist(H5P_GROUP_CREATE), g = -1;
    if (gcpl >= 0 && ncp_h5_reserve(loc, 0) >= 0 &&
        H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) >= 0)
        g = H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    if (gcpl >= 0) H5Pclose(gcpl);
    return g;
}

static int filter_ok(H5Z_filter_t id)
{
    unsigned info = 0;
    return H5Zfilter_avail(id) > 0 && H5Zget_filter_info(id, &info) >= 0 &&
           (info & H5Z_FILTER_CONFIG_ENCODE_ENABLED);
}

/* The temporary file with its /traces group and attributes. compact: the HDF5 1.10 format, in
 * which a trace of one chunk needs no chunk B-tree (2.6 kB of index per trace in the 1.8 format:
 * boltnut's 2 500 traces, 16.6 -> 10 MB), for a writer that flushes only at the close; else the
 * 1.8 format, whose superblock lets a byte copy of the flushed file be opened after a crash
 * (1.10's marks the file open for writing until it is closed). */
static int open_file(ncp_traces *t, int compact, ncp_error *err)
{
    t->file = compact ? ncp_h5_create_file_compressed(t->tmp) : ncp_h5_create_file(t->tmp);
    if (t->file < 0)
        return ncp_error_set(err, NCP_ERR_IO, "cannot create %s (does the directory exist and "
                             "is it writable?)", t->tmp);
    ncp_h5ctx c = {.file = t->tmp, .err = err};
    int rc = NCP_OK;
    if ((t->root = ordered_group(t->file, "traces")) < 0)
        rc = ncp_h5_werr(&c, "create group", "/", "traces");
    if (!rc && attr_strings(t->root, "columns", t->strtype, t->ncols, t->cols) < 0)
        rc = ncp_h5_werr(&c, "write attribute columns of", "/", "traces");
    if (!rc) rc = ncp_h5_attr_str(&c, t->root, "/traces", "sampling", t->sampling);
    if (!rc && ncp_h5_flush_file(t->file) < 0)
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot flush %s: %s", t->tmp, strerror(errno));
    if (rc) {
        if (t->root >= 0) H5Gclose(t->root);
        ncp_h5_close_file(t->file, 1);
        remove(t->tmp);
        t->file = t->root = -1;
    }
    return rc;
}

int ncp_traces_create(const char *path, int ncols, const char *const *cols, const char *sampling,
                      ncp_traces **out, ncp_error *err)
{
    ncp_h5_quiet();
    *out = NULL;
    if (ncols <= NCP_TRACE_FIXED || ncols > NCP_TRACE_MAX_COLS)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "ncp_traces_create: %d columns", ncols);
    ncp_traces *t = ncp_calloc(err, 1, sizeof *t);
    if (!t) return NCP_ERR_NOMEM;
    t->file = t->root = t->strtype = -1;
    size_t tl = strlen(path) + 48;
    t->path = ncp_strdup(err, path);
    t->tmp = ncp_malloc(err, tl, 1);
    t->cols = ncp_malloc(err, (size_t)ncols, sizeof *t->cols);
    t->sampling = ncp_strdup(err, sampling ? sampling : "");
    if (!t->path || !t->tmp || !t->cols || !t->sampling) {
        tr_free(t);
        return NCP_ERR_NOMEM;
    }
    memcpy(t->cols, cols, (size_t)ncols * sizeof *cols);
    t->ncols = ncols;
    t->deflate = filter_ok(H5Z_FILTER_DEFLATE);
    snprintf(t->tmp, tl, "%s.tmp-%ld", path, (long)getpid());
    t->strtype = H5Tcopy(H5T_C_S1);
    if (t->strtype < 0 || H5Tset_size(t->strtype, H5T_VARIABLE) < 0 ||
        H5Tset_cset(t->strtype, H5T_CSET_UTF8) < 0) {
        tr_free(t);
        return ncp_error_set(err, NCP_ERR_INTERNAL, "HDF5: cannot make a string type");
    }
    int rc = open_file(t, 0, err);
    if (rc) {
        tr_free(t);
        return rc;
    }
    *out = t;
    return NCP_OK;
}

int ncp_traces_compressed(const ncp_traces *t) { return t && t->deflate; }

static int usable(const char *what, const char *name, ncp_error *err)
{
    if (!name || !name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s name \"%s\" is not usable as an HDF5 name "
                             "(empty, '.', or contains '/')", what, name ? name : "(null)");
    return NCP_OK;
}

/* The dataset's creation properties: chunks of up to 1024 rows (a whole trace is usually one
 * chunk), deflate when available. No shuffle filter: on traces it costs size (boltnut's 2 500
 * traces: 9.56 MB of chunks with shuffle + deflate, about 1 MB less with deflate alone; the
 * residual columns' low bytes vary, the iteration and count columns are short runs). */
static hid_t trace_dcpl(const ncp_traces *t, int nrows)
{
    hid_t dcpl = ncp_h5_untimed_plist(H5P_DATASET_CREATE);
    if (dcpl < 0) return -1;
    hsize_t chunk[2] = {(hsize_t)(nrows < 1024 ? nrows : 1024), (hsize_t)t->ncols};
    int bad = H5Pset_chunk(dcpl, 2, chunk) < 0;
    if (!bad && t->deflate) bad = H5Pset_deflate(dcpl, 6) < 0;
    if (bad) {
        H5Pclose(dcpl);
        return -1;
    }
    return dcpl;
}

int ncp_traces_write(ncp_traces *t, const char *solver, const char *problem, int nrows,
                     const double *rows, int iterations, const char *status, ncp_error *err)
{
    ncp_h5_quiet();
    if (t && t->deferred_rc)
        return ncp_error_set(err, t->deferred_rc, "cannot create %s (does the directory exist "
                             "and is it writable?)", t->tmp);
    if (!t || t->root < 0)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "ncp_traces_write on a closed file");
    t->written = 1;
    int rc = usable("solver", solver, err);
    if (!rc) rc = usable("problem", problem, err);
    if (rc || nrows <= 0) return rc;
    ncp_h5ctx c = {.file = t->tmp, .err = err};
    char sp[512], dp[1024];
    snprintf(sp, sizeof sp, "/traces/%s", solver);
    snprintf(dp, sizeof dp, "%s/%s", sp, problem);
    hid_t sg = -1, space = -1, dcpl = -1, d = -1;
    if (ncp_h5_exists(t->root, solver)) {
        if ((sg = H5Gopen2(t->root, solver, H5P_DEFAULT)) < 0)
            rc = ncp_error_set(err, NCP_ERR_IO, "writing %s: cannot open group %s", t->tmp, sp);
    } else if ((sg = ordered_group(t->root, solver)) < 0) {
        rc = ncp_h5_werr(&c, "create group", "/traces", solver);
    }
    if (!rc && ncp_h5_exists(sg, problem) && H5Ldelete(sg, problem, H5P_DEFAULT) < 0)
        rc = ncp_error_set(err, NCP_ERR_IO, "writing %s: cannot replace %s", t->tmp, dp);
    hsize_t dims[2] = {(hsize_t)nrows, (hsize_t)t->ncols};
    if (!rc) {
        space = H5Screate_simple(2, dims, NULL);
        dcpl = trace_dcpl(t, nrows);
        errno = 0;
        if (space >= 0 && dcpl >= 0 &&
            ncp_h5_reserve(sg, (double)nrows * t->ncols * sizeof(double)) >= 0)
            d = H5Dcreate2(sg, problem, H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        if (d < 0 || H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0)
            rc = ncp_h5_werr(&c, "write dataset", sp, problem);
    }
    if (!rc) rc = ncp_h5_attr_int(&c, d, dp, "iterations", iterations);
    if (!rc) rc = ncp_h5_attr_str(&c, d, dp, "status", status);
    if (d >= 0) H5Dclose(d);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    if (rc && d >= 0) H5Ldelete(sg, problem, H5P_DEFAULT); /* no half-written trace */
    if (sg >= 0) H5Gclose(sg);
    /* flushed after every trace: an interrupted run keeps what it finished */
    if (!rc && !t->noflush && ncp_h5_flush_file(t->file) < 0)
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot flush %s: %s", t->tmp, errno ? strerror(errno) : "disk full?");
    if (rc == NCP_ERR_IO) t->failed = 1; /* the close must not write any more */
    return rc;
}

int ncp_traces_close(ncp_traces *t, ncp_error *err)
{
    ncp_h5_quiet();
    if (!t) return NCP_OK;
    int rc = NCP_OK;
    if (t->file < 0) { /* the compact file could not be created: nothing to keep */
        rc = ncp_error_set(err, t->deferred_rc ? t->deferred_rc : NCP_ERR_IO, "cannot create %s",
                           t->tmp);
        tr_free(t);
        return rc;
    }
    if (t->root >= 0 && H5Gclose(t->root) < 0) rc = NCP_ERR_IO;
    if (ncp_h5_close_file(t->file, rc || t->failed) < 0) rc = NCP_ERR_IO;
    if (rc)
        ncp_error_set(err, NCP_ERR_IO, "cannot finish writing %s (disk full?); the traces "
                      "written so far stay in that file", t->tmp);
    else if (rename(t->tmp, t->path) != 0)
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot rename %s to %s: %s", t->tmp, t->path,
                           strerror(errno));
    tr_free(t);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* reading traces.h5                                                                          */

struct ncp_traces_in {
    hid_t file, root;
    char *path;
    int ncols;
    char *cols[NCP_TRACE_MAX_COLS];
    char *sampling; /* NULL if the attribute is absent */
};

/* The attribute `columns` of obj (rank-1 variable-length strings) into names[] (allocated). */
static int read_columns(const ncp_h5ctx *c, hid_t obj, const char *opath, char **names,
                        int *n)
{
    *n = 0;
    if (H5Aexists(obj, "columns") <= 0)
        return ncp_h5_rerr(c, opath, "columns", "the attribute is missing (not a traces.h5 "
                           "written by ncpbench?)");
    hid_t a = H5Aopen(obj, "columns", H5P_DEFAULT), ft = -1, sp = -1, mt = -1;
    hsize_t d = 0;
    int rc = NCP_OK;
    char *buf[NCP_TRACE_MAX_COLS];
    if (a < 0 || (ft = H5Aget_type(a)) < 0 || (sp = H5Aget_space(a)) < 0 ||
        H5Tget_class(ft) != H5T_STRING || H5Tis_variable_str(ft) <= 0 ||
        H5Sget_simple_extent_ndims(sp) != 1 || H5Sget_simple_extent_dims(sp, &d, NULL) != 1 ||
        d <= NCP_TRACE_FIXED || d > NCP_TRACE_MAX_COLS) {
        rc = ncp_h5_rerr(c, opath, "columns", "expected a list of %d to %d variable-length "
                         "strings", NCP_TRACE_FIXED + 1, NCP_TRACE_MAX_COLS);
    } else if ((mt = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(mt, H5T_VARIABLE) < 0 ||
               H5Tset_cset(mt, H5Tget_cset(ft)) < 0 || H5Aread(a, mt, buf) < 0) {
        rc = ncp_h5_rerr(c, opath, "columns", "cannot read the attribute");
    } else {
        for (int i = 0; i < (int)d; i++) {
            if (!rc && !(names[i] = ncp_strdup(c->err, buf[i] ? buf[i] : ""))) rc = NCP_ERR_NOMEM;
            if (!rc) *n = i + 1;
        }
        H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, buf);
    }
    if (mt >= 0) H5Tclose(mt);
    if (sp >= 0) H5Sclose(sp);
    if (ft >= 0) H5Tclose(ft);
    if (a >= 0) H5Aclose(a);
    return rc;
}

void ncp_traces_in_close(ncp_traces_in *r)
{
    if (!r) return;
    if (r->root >= 0) H5Gclose(r->root);
    if (r->file >= 0) H5Fclose(r->file);
    for (int i = 0; i < r->ncols; i++) free(r->cols[i]);
    free(r->sampling);
    free(r->path);
    free(r);
}

int ncp_traces_in_open(const char *path, ncp_traces_in **out, ncp_error *err)
{
    ncp_h5_quiet();
    *out = NULL;
    ncp_traces_in *r = ncp_calloc(err, 1, sizeof *r);
    if (!r) return NCP_ERR_NOMEM;
    r->file = r->root = -1;
    if (!(r->path = ncp_strdup(err, path))) {
        free(r);
        return NCP_ERR_NOMEM;
    }
    ncp_h5ctx c = {.file = path, .err = err};
    int rc = NCP_OK;
    if (H5Fis_hdf5(path) <= 0 || (r->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
        rc = ncp_error_set(err, NCP_ERR_INPUT, "cannot open %s as an HDF5 file (missing or "
                           "damaged)", path);
    if (!rc) rc = ncp_h5_open_group(&c, r->file, "/", "traces", &r->root);
    if (!rc) rc = read_columns(&c, r->root, "/traces", r->cols, &r->ncols);
    if (!rc && (strcmp(r->cols[0], "iter") || strcmp(r->cols[1], "time_ms")))
        rc = ncp_h5_rerr(&c, "/traces", "columns", "the first columns are '%s', '%s' "
                         "(expected iter, time_ms)", r->cols[0], r->cols[1]);
    if (!rc && H5Aexists(r->root, "sampling") > 0)
        rc = ncp_h5_read_attr_str(&c, r->root, "/traces", "sampling", &r->sampling);
    if (rc) {
        ncp_traces_in_close(r);
        return rc;
    }
    *out = r;
    return NCP_OK;
}

/* Checks the fixed columns of rows (iter integer >= 0, time_ms finite >= 0); row index of the
 * first bad one, or -1. *col: which column. */
static long bad_fixed(const double *data, int nrows, int ncols, int *col)
{
    for (long i = 0; i < nrows; i++) {
        double it = data[i * ncols], tm = data[i * ncols + 1];
        if (!(it >= 0 && it <= INT_MAX && it == floor(it))) {
            *col = 0;
            return i;
        }
        if (!(isfinite(tm) && tm >= 0)) {
            *col = 1;
            return i;
        }
    }
    return -1;
}

/* Reads the dataset /traces/<solver>/<problem> of r and calls fn. */
static int read_one(ncp_traces_in *r, hid_t sg, const char *solver, const char *problem,
                    ncp_trace_block_fn fn, void *ctx, ncp_error *err)
{
    ncp_h5ctx c = {.file = r->path, .err = err};
    char sp[512];
    snprintf(sp, sizeof sp, "/traces/%s", solver);
    hid_t d = H5Dopen2(sg, problem, H5P_DEFAULT), ft = -1, fs = -1;
    hsize_t dims[2] = {0, 0};
    int rc = NCP_OK;
    double *data = NULL;
    char *status = NULL;
    if (d < 0 || (ft = H5Dget_type(d)) < 0 || (fs = H5Dget_space(d)) < 0 ||
        H5Tget_class(ft) != H5T_FLOAT || H5Sget_simple_extent_ndims(fs) != 2 ||
        H5Sget_simple_extent_dims(fs, dims, NULL) != 2)
        rc = ncp_h5_rerr(&c, sp, problem, "expected a rank-2 float dataset");
    else if (dims[1] != (hsize_t)r->ncols || dims[0] == 0 || dims[0] > (hsize_t)(INT_MAX / 64))
        rc = ncp_h5_rerr(&c, sp, problem, "has %llu x %llu values (expected rows x %d, the "
                         "columns of /traces)", (unsigned long long)dims[0],
                         (unsigned long long)dims[1], r->ncols);
    else if ((rc = ncp_h5_check_stored(&c, d, sp, problem, (double)dims[0] * dims[1],
                                       (double)dims[0] * dims[1] * sizeof *data)))
        ;
    else if (!(data = ncp_malloc(err, (size_t)dims[0] * dims[1], sizeof *data)))
        rc = NCP_ERR_NOMEM;
    else if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        rc = ncp_h5_rerr(&c, sp, problem, "cannot read the values (damaged file?)");
    int col;
    long bad = rc ? -1 : bad_fixed(data, (int)dims[0], r->ncols, &col);
    if (bad >= 0)
        rc = ncp_h5_rerr(&c, sp, problem, "row %ld: column '%s' is %g (expected %s)", bad,
                         r->cols[col], data[bad * r->ncols + col],
                         col ? "a finite time >= 0" : "an integer >= 0");
    int iterations = -1;
    if (!rc && H5Aexists(d, "iterations") > 0) {
        char dp[1024];
        ncp_h5_path(dp, sizeof dp, sp, problem);
        rc = ncp_h5_read_attr_int(&c, d, dp, "iterations", &iterations);
        if (!rc && H5Aexists(d, "status") > 0)
            rc = ncp_h5_read_attr_str(&c, d, dp, "status", &status);
    }
    if (!rc) {
        ncp_trace_block b = {solver, problem, (int)dims[0], r->ncols,
                             (const char *const *)r->cols, data, r->path, 0, iterations, status,
                             r->sampling};
        rc = fn(ctx, &b, err);
    }
    free(status);
    free(data);
    if (fs >= 0) H5Sclose(fs);
    if (ft >= 0) H5Tclose(ft);
    if (d >= 0) H5Dclose(d);
    return rc;
}

int ncp_traces_in_get(ncp_traces_in *r, const char *solver, const char *problem,
                      ncp_trace_block_fn fn, void *ctx, int *found, ncp_error *err)
{
    ncp_h5_quiet();
    *found = 0;
    if (!solver[0] || strchr(solver, '/') || !problem[0] || strchr(problem, '/') ||
        H5Lexists(r->root, solver, H5P_DEFAULT) <= 0)
        return NCP_OK;
    hid_t sg = H5Gopen2(r->root, solver, H5P_DEFAULT);
    if (sg < 0) return NCP_OK;
    int rc = NCP_OK;
    if (H5Lexists(sg, problem, H5P_DEFAULT) > 0) {
        *found = 1;
        rc = read_one(r, sg, solver, problem, fn, ctx, err);
    }
    H5Gclose(sg);
    return rc;
}

/* Names of the links of g in creation order (by name if the group does not track it). */
typedef struct names {
    char **v;
    int n, cap;
} names;

static herr_t collect(hid_t g, const char *name, const H5L_info_t *info, void *op)
{
    (void)g;
    (void)info;
    names *nm = op;
    if (nm->n == nm->cap) {
        int cap = nm->cap ? 2 * nm->cap : 64;
        char **v = realloc(nm->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        nm->v = v;
        nm->cap = cap;
    }
    if (!(nm->v[nm->n] = strdup(name))) return -1;
    nm->n++;
    return 0;
}

static void names_free(names *nm)
{
    for (int i = 0; i < nm->n; i++) free(nm->v[i]);
    free(nm->v);
    memset(nm, 0, sizeof *nm);
}

static int list_links(hid_t g, names *nm)
{
    hsize_t idx = 0;
    if (H5Literate(g, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, collect, nm) >= 0) return 0;
    names_free(nm);
    idx = 0;
    return H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, collect, nm) >= 0 ? 0 : -1;
}

static int read_h5(const char *path, ncp_trace_block_fn fn, void *ctx, ncp_error *err)
{
    ncp_traces_in *r;
    int rc = ncp_traces_in_open(path, &r, err);
    if (rc) return rc;
    names solvers = {0};
    long blocks = 0;
    if (list_links(r->root, &solvers))
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: cannot list /traces (damaged file?)", path);
    for (int s = 0; !rc && s < solvers.n; s++) {
        hid_t sg = H5Gopen2(r->root, solvers.v[s], H5P_DEFAULT);
        names probs = {0};
        if (sg < 0 || list_links(sg, &probs))
            rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: /traces/%s is not a readable group",
                               path, solvers.v[s]);
        for (int p = 0; !rc && p < probs.n; p++, blocks++)
            rc = read_one(r, sg, solvers.v[s], probs.v[p], fn, ctx, err);
        names_free(&probs);
        if (sg >= 0) H5Gclose(sg);
    }
    names_free(&solvers);
    ncp_traces_in_close(r);
    if (!rc && blocks == 0)
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: no trace rows: nothing to read", path);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* reading traces.csv (older runs, --traces-csv)                                              */

typedef struct csv_block {
    char *solver, *problem;
    double *data;
    int n, cap;
    long line;
} csv_block;

static int field_error(ncp_error *err, const char *path, long line, const char *col, int fieldno,
                       const char *what, const char *text)
{
    return ncp_error_set(err, NCP_ERR_INPUT, "%s:%ld: column '%s' (field %d): '%.40s' %s", path,
                         line, col, fieldno, text, what);
}

static int read_csv(const char *path, ncp_trace_block_fn fn, void *ctx, ncp_error *err)
{
    ncp_csv r;
    int rc = ncp_csv_open(&r, path, "run the benchmark first; it writes traces", err);
    if (rc) return rc;
    static const char *const need[] = {"problem", "solver", "iteration", "time_ms"};
    const char *hint = "expected problem,solver,iteration,time_ms,<metrics>";
    int col[4];
    for (int k = 0; k < 4 && !rc; k++) {
        rc = ncp_csv_need_column(&r, need[k], hint, &col[k], err);
        if (!rc && col[k] != k)
            rc = ncp_error_set(err, NCP_ERR_INPUT, "%s:1: column %d is '%s' (%s)", path, k + 1,
                               r.header[k], hint);
    }
    if (!rc && r.ncols <= 4)
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s:1: no metric column (%s)", path, hint);
    int ncols = r.ncols - 2;
    const char *cols[NCP_CSV_MAX_COLS];
    cols[0] = "iter";
    cols[1] = "time_ms";
    for (int k = 4; k < r.ncols; k++) cols[k - 2] = r.header[k];
    csv_block b = {0};
    long blocks = 0;
    while (!rc && (rc = ncp_csv_next(&r, err)) == NCP_OK) {
        const char *pname = r.field[0], *sname = r.field[1];
        if (!*pname) rc = field_error(err, path, r.line, "problem", 1, "is empty", pname);
        else if (!*sname) rc = field_error(err, path, r.line, "solver", 2, "is empty", sname);
        if (rc) break;
        if (!b.solver || strcmp(b.solver, sname) || strcmp(b.problem, pname)) {
            if (b.solver) {
                ncp_trace_block tb = {b.solver, b.problem, b.n, ncols, cols, b.data, path,
                                      b.line, -1, NULL, NULL};
                if ((rc = fn(ctx, &tb, err))) break;
                blocks++;
            }
            free(b.solver);
            free(b.problem);
            b.solver = ncp_strdup(err, sname);
            b.problem = ncp_strdup(err, pname);
            b.n = 0;
            b.line = r.line;
            if (!b.solver || !b.problem) {
                rc = NCP_ERR_NOMEM;
                break;
            }
        }
        if (b.n == b.cap) {
            int cap = b.cap ? 2 * b.cap : 256;
            double *d = realloc(b.data, (size_t)cap * (size_t)ncols * sizeof *d);
            if (!d) {
                rc = ncp_error_set(err, NCP_ERR_NOMEM, "out of memory reading %s", path);
                break;
            }
            b.data = d;
            b.cap = cap;
        }
        double *row = b.data + (size_t)b.n * (size_t)ncols;
        for (int k = 2; k < r.ncols && !rc; k++) {
            const char *s = r.field[k];
            double x;
            if (k == 2) {
                char *end;
                errno = 0;
                long v = strtol(s, &end, 10);
                if (!*s || *end || errno == ERANGE || v < 0 || v > INT_MAX)
                    rc = field_error(err, path, r.line, "iteration", 3,
                                     "is not an iteration number (integer >= 0)", s);
                x = (double)v;
            } else if (ncp_csv_number(s, &x)) {
                rc = field_error(err, path, r.line, r.header[k], k + 1,
                                 "is not a number (write nan for a missing value)", s);
            } else if (k == 3 && !(isfinite(x) && x >= 0)) {
                rc = field_error(err, path, r.line, "time_ms", 4,
                                 "is not a time in ms (finite number >= 0)", s);
            }
            row[k - 2] = x;
        }
        if (!rc) b.n++;
    }
    if (rc == NCP_CSV_END) {
        rc = NCP_OK;
        if (b.solver) {
            ncp_trace_block tb = {b.solver, b.problem, b.n, ncols, cols, b.data, path, b.line,
                                  -1, NULL, NULL};
            rc = fn(ctx, &tb, err);
            blocks++;
        }
        if (!rc && blocks == 0)
            rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: no trace rows after the header: "
                               "nothing to read", path);
    }
    free(b.solver);
    free(b.problem);
    free(b.data);
    ncp_csv_close(&r);
    return rc;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

static int skip_block(void *ctx, const ncp_trace_block *b, ncp_error *err)
{
    (void)ctx;
    (void)b;
    (void)err;
    return NCP_OK;
}

/* The child of ncp_isolated_read: every trace read, none kept. */
static int probe_h5(void *path, ncp_error *err)
{
    return read_h5(path, skip_block, NULL, err);
}

int ncp_traces_read(const char *path, ncp_trace_block_fn fn, void *ctx, ncp_error *err)
{
    if (ends_with(path, ".csv") || ends_with(path, ".csv.prev")) return read_csv(path, fn, ctx, err);
    /* a traces.h5 of any folder (plot DIR): read in a child first, as every input file, since
     * libhdf5 1.10 can crash on damaged metadata (util/isolate.h) */
    int rc = ncp_isolated_read(probe_h5, (void *)path, strlen(path) + 1, path, 0.0, err);
    return rc ? rc : read_h5(path, fn, ctx, err);
}

int ncp_traces_locate(const char *dir, char *path, size_t n, ncp_error *err)
{
    int rc = ncp_path_join(path, n, dir, "traces.h5", err);
    if (rc || ncp_file_exists(path)) return rc;
    if ((rc = ncp_path_join(path, n, dir, "traces.csv", err)) || ncp_file_exists(path)) return rc;
    return ncp_error_set(err, NCP_ERR_INPUT, "%s has neither traces.h5 nor traces.csv: run the "
                         "benchmark there first (without --no-traces)", dir);
}

int ncp_traces_read_dir(const char *dir, ncp_trace_block_fn fn, void *ctx, ncp_error *err)
{
    char path[4300];
    int rc = ncp_traces_locate(dir, path, sizeof path, err);
    return rc ? rc : ncp_traces_read(path, fn, ctx, err);
}

void ncp_traces_set_flush(ncp_traces *t, int on)
{
    if (!t) return;
    t->noflush = !on;
    /* a file flushed only at its close is never read before: the compact format (open_file),
     * while nothing is written yet; a failure shows at the next write or the close */
    if (on || t->written || t->file < 0) return;
    ncp_error e = {0};
    if (t->root >= 0) H5Gclose(t->root);
    ncp_h5_close_file(t->file, 1);
    remove(t->tmp);
    t->file = t->root = -1;
    if (open_file(t, 1, &e)) t->deferred_rc = e.code ? e.code : NCP_ERR_IO;
}
