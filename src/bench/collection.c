/* A collection of problem files (collection.h). */
#include "bench/collection.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <hdf5.h>

#include "store/h5util.h"
#include "store/siconos_dat.h"
#include "store/store.h"
#include "util/fsutil.h"
#include "util/isolate.h"
#include "util/membudget.h"

enum { BATCH_PROBLEMS = 64, MAX_DEPTH = 64 };
#define BATCH_BYTES (256.0 * 1024.0 * 1024.0)

enum { KIND_UNKNOWN, KIND_OURS, KIND_FCLIB };

typedef struct cfile {
    char *path;
    char *prefix;  /* NULL: keep the file's own names */
    int kind;
} cfile;

/* A file the collection did not solve: skipped (not a problem file: reason NULL) or failed to
 * load (the reader's message). */
typedef struct cnote {
    char *path, *reason;
} cnote;

struct ncp_collection {
    cfile *f;
    int n, cap;
    int skipped;
    cnote *note; /* the skipped and the failed files, in the order met */
    int nnote, capnote, nfailed;
    char **sorted;     /* the prefixes, sorted, to catch a name that repeats another file's */
    int next;          /* next file to read */
    ncp_problem *batch;
    int nbatch;
    double budget; /* ncp_collection_set_budget */
    double sym_tol; /* ncp_collection_set_sym_tol */
    /* ncp_collection_set_lazy: the batch read as stored, each problem finished on demand
     * (bench.h's finish step), with where it came from */
    int lazy;
    ncp_problem_origin *origin;
    const char **bpath; /* per problem of the batch: its file's path (c->f's) */
    ncp_problem_keep *keep; /* per problem of the batch: what release restores */
};

/* Bytes a problem of a batch holds, read (lazy) or complete: its primal data (J, A_sparse or
 * A), the row and DOF vectors, and D only when it keeps one (a dual-only problem; a problem
 * with primal data never does: D is built per solve, core/problem.h). */
static double problem_bytes(const ncp_problem *p)
{
    double b = 12.0 * ((double)p->J.nnz + (double)p->A_sparse.nnz) + 40.0 * ((double)p->m + p->nv);
    if (p->A) b += 8.0 * (double)p->nv * p->nv;
    if (p->D) b += 8.0 * (double)p->m * p->m;
    return b;
}

static void free_keeps(ncp_collection *c)
{
    for (int i = 0; c->keep && i < c->nbatch; i++) ncp_problem_keep_free(&c->keep[i]);
}

/* What an HDF5 file holds: KIND_OURS, KIND_FCLIB or KIND_UNKNOWN (not a problem file). */
static int file_kind_here(const char *path)
{
    ncp_h5_quiet(); /* in the child too: no HDF5 error stack on stderr */
    if (H5Fis_hdf5(path) <= 0) return KIND_UNKNOWN;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return KIND_UNKNOWN;
    int kind = H5Lexists(f, "problems", H5P_DEFAULT) > 0 ? KIND_OURS
               : (H5Lexists(f, "fclib_local", H5P_DEFAULT) > 0 ||
                  H5Lexists(f, "fclib_global", H5P_DEFAULT) > 0)
                   ? KIND_FCLIB
                   : KIND_UNKNOWN;
    H5Fclose(f);
    return kind;
}

/* The kind + 10: exit 1 is a sanitizer's report (util/isolate.h). */
static int file_kind_child(void *path, ncp_error *err)
{
    (void)err;
    return 10 + file_kind_here(path);
}

/* file_kind_here in a child process first (util/isolate.h): even opening a damaged HDF5 file
 * and looking up its top-level groups can crash libhdf5; that is NCP_ERR_INPUT naming it. The
 * child's memory is bounded by c->budget (plus libhdf5's caches), as in the reading. */
static int file_kind(const ncp_collection *c, const char *path, int *kind, ncp_error *err)
{
    int code = -1;
    ncp_error child;
    int rc = ncp_isolated_run_data(file_kind_child, path, strlen(path) + 1, path,
                                   ncp_mem_budget_or_default(c->budget) + NCP_ISOLATED_SLACK,
                                   &code, &child, err);
    if (rc) return rc;
    if (code == NCP_ISOLATED_SANITIZER) return ncp_isolated_crash(path, err);
    *kind = code >= 10 ? code - 10 : file_kind_here(path);
    return NCP_OK;
}

/* Records a skipped file (reason NULL) or one that failed to load. */
static int add_note(ncp_collection *c, const char *path, const char *reason, ncp_error *err)
{
    int rc = ncp_bench_grow(&c->note, &c->capnote, c->nnote, sizeof *c->note, err);
    if (rc) return rc;
    cnote *t = &c->note[c->nnote];
    t->path = ncp_strdup(err, path);
    t->reason = reason ? ncp_strdup(err, reason) : NULL;
    if (!t->path || (reason && !t->reason)) {
        free(t->path);
        free(t->reason);
        return NCP_ERR_NOMEM;
    }
    c->nnote++;
    if (reason) c->nfailed++;
    else c->skipped++;
    return NCP_OK;
}

static int add_file(ncp_collection *c, const char *path, const char *rel, int kind,
                    ncp_error *err)
{
    int rc = ncp_bench_grow(&c->f, &c->cap, c->n, sizeof *c->f, err);
    if (rc) return rc;
    cfile *f = &c->f[c->n];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    if (!(f->path = ncp_strdup(err, path)) || !(f->prefix = ncp_strdup(err, rel))) {
        free(f->path);
        return NCP_ERR_NOMEM;
    }
    char *dot = strrchr(f->prefix, '.'), *slash = strrchr(f->prefix, '/');
    if (dot && dot != f->prefix && (!slash || dot > slash + 1)) *dot = '\0';
    for (char *s = f->prefix; *s; s++)
        if (*s == '/') *s = '.';
    c->n++;
    return NCP_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_ext(const char *name)
{
    size_t l = strlen(name);
    return (l > 3 && !strcasecmp(name + l - 3, ".h5")) ||
           (l > 5 && !strcasecmp(name + l - 5, ".hdf5")) || ncp_siconos_dat_is(name);
}

/* Adds the problem files under dir (rel: its path below the argument, "" at the top). */
static int scan(ncp_collection *c, const char *dir, const char *rel, int depth, ncp_error *err)
{
    if (depth > MAX_DEPTH)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: directories nested deeper than %d",
                             dir, MAX_DEPTH);
    DIR *d = opendir(dir);
    if (!d) return ncp_error_set(err, NCP_ERR_INPUT, "cannot open the directory %s: %s", dir,
                                 strerror(errno));
    char **names = NULL;
    int n = 0, cap = 0, rc = NCP_OK;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        if ((rc = ncp_bench_grow(&names, &cap, n, sizeof *names, err))) break;
        if (!(names[n] = ncp_strdup(err, e->d_name))) rc = NCP_ERR_NOMEM;
        else n++;
    }
    closedir(d);
    if (!rc) qsort(names, (size_t)n, sizeof *names, cmp_str);
    for (int i = 0; i < n; i++) {
        char path[4200], sub[4200];
        struct stat st, lst;
        if (rc) goto next;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", names[i]);
        if (stat(path, &st) != 0 || lstat(path, &lst) != 0) goto next; /* a dangling link */
        if (S_ISDIR(st.st_mode)) {
            if (!S_ISLNK(lst.st_mode)) rc = scan(c, path, sub, depth + 1, err);
        } else if (S_ISREG(st.st_mode) && has_ext(names[i])) {
            int kind = KIND_UNKNOWN;
            if (ncp_siconos_dat_is(names[i])) {
                /* a .dat file whose head is not Siconos's (gnuplot data, ...) is not ours */
                kind = ncp_siconos_dat_sniff(path) ? KIND_FCLIB : KIND_UNKNOWN;
            } else if ((rc = file_kind(c, path, &kind, err))) {
                /* even its kind could not be read (libhdf5 crashed on it): a failed file */
                if (rc != NCP_ERR_INPUT) goto next;
                rc = add_note(c, path, err->msg, err);
                goto next;
            }
            if (kind == KIND_UNKNOWN) rc = add_note(c, path, NULL, err);
            else rc = add_file(c, path, sub, kind, err);
        }
    next:
        free(names[i]);
    }
    free(names);
    return rc;
}

/* The last component of a directory path ("" for ".", ".." and "/"), the start of the names of
 * its problems, so that two directory arguments do not name their problems alike. */
static void dir_base(const char *path, char *out, size_t cap)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    size_t b = n;
    while (b > 0 && path[b - 1] != '/') b--;
    snprintf(out, cap, "%.*s", (int)(n - b), path + b);
    if (!strcmp(out, ".") || !strcmp(out, "..") || !strcmp(out, "/")) out[0] = '\0';
}

int ncp_collection_open(const char *const *paths, int n, ncp_collection **out, ncp_error *err)
{
    *out = NULL;
    ncp_h5_quiet();
    ncp_collection *c = ncp_calloc(err, 1, sizeof *c);
    if (!c) return NCP_ERR_NOMEM;
    int rc = NCP_OK, single = n == 1;
    for (int i = 0; !rc && i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) {
            rc = ncp_error_set(err, NCP_ERR_INPUT, "cannot open %s: %s", paths[i], strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            int before = c->n, skipped = c->skipped;
            char base[1024];
            dir_base(paths[i], base, sizeof base);
            single = 0;
            if (!(rc = scan(c, paths[i], base, 0, err)) && c->n == before)
                rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: no problem file in it or below it "
                                   "(looked for *.h5 and *.hdf5 files holding an ncpbench "
                                   "/problems group or an FCLib problem, and Siconos *.dat "
                                   "problems%s); give a directory of problem files or the files "
                                   "themselves", paths[i],
                                   c->skipped > skipped ? ", found only other files" : "");
        } else {
            char stem[1024];
            ncp_path_stem(paths[i], stem, sizeof stem);
            /* a given file is read as given: the reader names what is wrong with it */
            int kind = KIND_FCLIB; /* a .dat file: one problem, as a plain FCLib file */
            if (!ncp_siconos_dat_is(paths[i])) rc = file_kind(c, paths[i], &kind, err);
            if (!rc) rc = add_file(c, paths[i], stem, kind, err);
        }
    }
    if (!rc && single) {
        free(c->f[0].prefix);
        c->f[0].prefix = NULL;
    }
    if (!rc && !single) {
        if (!(c->sorted = ncp_calloc(err, (size_t)c->n, sizeof *c->sorted))) rc = NCP_ERR_NOMEM;
        for (int i = 0; !rc && i < c->n; i++) c->sorted[i] = c->f[i].prefix;
        if (!rc) qsort(c->sorted, (size_t)c->n, sizeof *c->sorted, cmp_str);
        for (int i = 1; !rc && i < c->n; i++)
            if (!strcmp(c->sorted[i - 1], c->sorted[i])) {
                const char *a = NULL, *b = NULL;
                for (int k = 0; k < c->n; k++)
                    if (!strcmp(c->f[k].prefix, c->sorted[i])) {
                        if (!a) a = c->f[k].path;
                        else if (!b) b = c->f[k].path;
                    }
                rc = ncp_error_set(err, NCP_ERR_INPUT, "%s and %s would both name their problems "
                                   "'%s'; give them separately or rename one", a, b,
                                   c->sorted[i]);
            }
    }
    if (rc) {
        ncp_collection_free(c);
        return rc;
    }
    *out = c;
    return NCP_OK;
}

int ncp_collection_nfiles(const ncp_collection *c) { return c->n; }
int ncp_collection_skipped(const ncp_collection *c) { return c->skipped; }
int ncp_collection_nfailed(const ncp_collection *c) { return c->nfailed; }

int ncp_collection_note(const ncp_collection *c, int i, int failed, const char **path,
                        const char **reason)
{
    for (int k = 0; k < c->nnote; k++)
        if ((c->note[k].reason != NULL) == (failed != 0) && i-- == 0) {
            *path = c->note[k].path;
            if (reason) *reason = c->note[k].reason;
            return 1;
        }
    return 0;
}

/* Renames the problems of file f as collection.h says. */
static int rename_problems(const ncp_collection *c, const cfile *f, ncp_problem *ps, int k,
                           ncp_error *err)
{
    if (!f->prefix) return NCP_OK;
    for (int i = 0; i < k; i++) {
        const char *own = ps[i].name ? ps[i].name : "p";
        size_t len = strlen(f->prefix) + strlen(own) + 2;
        char *nn = ncp_malloc(err, len, 1);
        if (!nn) return NCP_ERR_NOMEM;
        int whole = f->kind == KIND_FCLIB && k == 1;
        if (whole) snprintf(nn, len, "%s", f->prefix);
        else snprintf(nn, len, "%s-%s", f->prefix, own);
        if (!whole && bsearch(&nn, c->sorted, (size_t)c->n, sizeof *c->sorted, cmp_str)) {
            ncp_error_set(err, NCP_ERR_INPUT, "problem %s of %s would be named %s, as the problem "
                          "of another file; give the files separately or rename one", own,
                          f->path, nn);
            free(nn);
            return NCP_ERR_INPUT;
        }
        free(ps[i].name);
        ps[i].name = nn;
    }
    return NCP_OK;
}

static int next_batch(void *ctx, const ncp_problem **probs, int *n, ncp_error *err)
{
    ncp_collection *c = ctx;
    free_keeps(c);
    ncp_problems_free(c->batch, c->nbatch);
    c->batch = NULL;
    c->nbatch = 0;
    double bytes = 0.0;
    int rc = NCP_OK;
    while (c->next < c->n && c->nbatch < BATCH_PROBLEMS && bytes < BATCH_BYTES) {
        const cfile *f = &c->f[c->next++];
        ncp_problem *ps = NULL;
        ncp_problem_origin *og = NULL;
        int k = 0;
        if (c->lazy)
            rc = ncp_load_problems_isolated_raw(f->path, c->budget, c->sym_tol, &ps, &og, &k, err);
        else rc = ncp_load_problems_isolated_tol(f->path, c->budget, c->sym_tol, &ps, &k, err);
        if (rc == NCP_ERR_INPUT && c->n > 1) {
            /* a bad file among others: a row (file, reason), and on to the next; a collection
             * of one file stops with its error before any output exists */
            rc = add_note(c, f->path, err->msg, err);
            if (rc) break;
            continue;
        }
        if (rc) break;
        if ((rc = rename_problems(c, f, ps, k, err))) {
            ncp_problems_free(ps, k);
            free(og);
            break;
        }
        size_t cap = (size_t)(c->nbatch + k > 0 ? c->nbatch + k : 1);
        ncp_problem *nb = realloc(c->batch, sizeof *nb * cap);
        if (nb) c->batch = nb;
        ncp_problem_origin *no = c->lazy ? realloc(c->origin, sizeof *no * cap) : NULL;
        if (no) c->origin = no;
        const char **np = c->lazy ? realloc(c->bpath, sizeof *np * cap) : NULL;
        if (np) c->bpath = np;
        ncp_problem_keep *nk = c->lazy ? realloc(c->keep, sizeof *nk * cap) : NULL;
        if (nk) c->keep = nk;
        if (!nb || (c->lazy && (!no || !np || !nk))) {
            ncp_problems_free(ps, k);
            free(og);
            rc = ncp_error_set(err, NCP_ERR_NOMEM, "out of memory loading %s", f->path);
            break;
        }
        for (int i = 0; i < k; i++) {
            if (c->lazy) {
                c->origin[c->nbatch] = og[i];
                c->bpath[c->nbatch] = f->path;
                memset(&c->keep[c->nbatch], 0, sizeof c->keep[c->nbatch]);
            }
            bytes += problem_bytes(&ps[i]);
            c->batch[c->nbatch++] = ps[i]; /* moved: ps itself is freed below */
        }
        free(ps);
        free(og);
    }
    *probs = c->batch;
    *n = rc ? 0 : c->nbatch;
    return rc;
}

void ncp_collection_set_sym_tol(ncp_collection *c, double tol)
{
    if (c) c->sym_tol = tol;
}

void ncp_collection_set_budget(ncp_collection *c, double bytes)
{
    if (c) c->budget = bytes;
}

/* bench.h's finish step of a lazy collection: problem i of the current batch. */
static int finish_problem(void *ctx, int i, ncp_error *err)
{
    ncp_collection *c = ctx;
    if (i < 0 || i >= c->nbatch)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "problem %d of a batch of %d", i, c->nbatch);
    return ncp_problem_finish_keep(&c->batch[i], c->bpath[i], &c->origin[i], c->budget,
                                   &c->keep[i], err);
}

/* bench.h's release step of a lazy collection. */
static int release_problem(void *ctx, int i)
{
    ncp_collection *c = ctx;
    return i >= 0 && i < c->nbatch ? ncp_problem_release(&c->batch[i], &c->keep[i]) : 0;
}

void ncp_collection_set_lazy(ncp_collection *c, int lazy)
{
    if (c) c->lazy = lazy;
}

void ncp_collection_source(ncp_collection *c, ncp_bench_source *src)
{
    memset(src, 0, sizeof *src);
    src->next = next_batch;
    src->ctx = c;
    src->total_hint = c->n; /* at least one problem per file */
    if (c->lazy) {
        src->finish = finish_problem;
        src->release = release_problem;
    }
}

void ncp_collection_free(ncp_collection *c)
{
    if (!c) return;
    for (int i = 0; i < c->n; i++) {
        free(c->f[i].path);
        free(c->f[i].prefix);
    }
    free(c->f);
    for (int i = 0; i < c->nnote; i++) {
        free(c->note[i].path);
        free(c->note[i].reason);
    }
    free(c->note);
    free(c->sorted);
    free_keeps(c);
    ncp_problems_free(c->batch, c->nbatch);
    free(c->origin);
    free(c->bpath);
    free(c->keep);
    free(c);
}
