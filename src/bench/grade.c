/* Grading answers computed elsewhere (grade.h, docs/answers.md). The answers are read and
 * checked against the problems' sizes, graded by the harness's final evaluation
 * (ncp_harness_grade), journaled as the finished pairs of a one-solver run (bench/resume.h), and
 * the outputs are rebuilt from that journal by the benchmark driver itself (ncp_bench_run keeps
 * every journaled pair and solves none): one writer of metrics.csv, traces.h5, solutions.h5 and
 * summary.json for solved and graded runs alike. With --into, the journal is the run's: its
 * recorded configuration is rebuilt into the driver's options (run_conf_read), the graded
 * solver added, the run checked (its problems, every pair of its solvers present) before
 * anything is appended. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench/bench.h"
#include "bench/grade.h"
#include "bench/output.h"
#include "bench/plot.h"
#include "bench/resume.h"
#include "metrics/metrics.h"
#include "solve/harness.h"
#include "solve/params.h"
#include "store/h5util.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/fsutil.h"
#include "util/isolate.h"
#include "util/membudget.h"

#define NOTE_SELF_TIMED "self-timed"
#define NOTE_NO_ANSWER "no answer"
#define TIMING_ATTR "timing"
#define TIMING_TEXT "self-timed (the program's own clock, from the answers file)"

/* One problem's answer as read (docs/answers.md). */
typedef struct answer {
    int prob;          /* index into the problems */
    double *lambda;    /* m */
    double *v;         /* nv or NULL */
    double time_ms;    /* NaN when not given */
    int iterations;    /* -1 when not given */
    int K;             /* trace rows (0: none) */
    double *tl, *tt;   /* K x m, K */
    int *ti;           /* K iteration numbers (given, or 1..K) */
} answer;

typedef struct answers {
    char *solver;      /* root attribute, or NULL */
    int n, cap;
    answer *a;
} answers;

static void answers_free(answers *A)
{
    for (int i = 0; i < A->n; i++) {
        free(A->a[i].lambda);
        free(A->a[i].v);
        free(A->a[i].tl);
        free(A->a[i].tt);
        free(A->a[i].ti);
    }
    free(A->a);
    free(A->solver);
    memset(A, 0, sizeof *A);
}

void ncp_grade_opts_default(ncp_grade_opts *o)
{
    memset(o, 0, sizeof *o);
    o->tol = NCP_DEFAULT_TOL;
    o->stop_metric = ncp_metrics_index("natural_map_rel_acary");
    o->figures = 1;
}

static int find_problem(const ncp_problem *probs, int np, const char *name)
{
    for (int i = 0; i < np; i++)
        if (probs[i].name && !strcmp(probs[i].name, name)) return i;
    return -1;
}

/* Name of link idx of group g (by name order), allocated. */
static char *link_name(const ncp_h5ctx *c, hid_t g, hsize_t idx)
{
    ssize_t len = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, idx, NULL, 0,
                                     H5P_DEFAULT);
    char *s = len >= 0 ? ncp_malloc(c->err, (size_t)len + 1, 1) : NULL;
    if (s && H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, idx, s, (size_t)len + 1,
                                H5P_DEFAULT) < 0) {
        free(s);
        s = NULL;
    }
    if (!s && !c->err->code) ncp_error_set(c->err, NCP_ERR_INPUT, "%s: a link cannot be read", c->file);
    return s;
}

static const char *const KNOWN[] = {"lambda", "v", "time_ms", "iterations", "trace_lambda",
                                    "trace_time_ms", "trace_iter", NULL};

/* Reads /answers/<name> of problem p into a. */
static int read_answer(const ncp_h5ctx *c, hid_t g, const char *gp, const ncp_problem *p,
                       answer *a)
{
    int rc;
    H5G_info_t info;
    if (H5Gget_info(g, &info) < 0) return ncp_h5_rerr(c, gp, "", "cannot be listed");
    for (hsize_t k = 0; k < info.nlinks; k++) {
        char *nm = link_name(c, g, k);
        if (!nm) return c->err->code ? c->err->code : NCP_ERR_NOMEM;
        int known = 0;
        for (int j = 0; KNOWN[j] && !known; j++) known = !strcmp(nm, KNOWN[j]);
        rc = known ? NCP_OK : ncp_h5_rerr(c, gp, nm, "is not a dataset of an answer (lambda, v, "
                                          "time_ms, iterations, trace_lambda, trace_time_ms, "
                                          "trace_iter; docs/answers.md)");
        free(nm);
        if (rc) return rc;
    }
    if ((rc = ncp_h5_read_dvec(c, g, gp, "lambda", p->m, &a->lambda, NULL))) return rc;
    if (ncp_h5_exists(g, "v")) {
        if (p->nv <= 0)
            return ncp_h5_rerr(c, gp, "v", "is given, but problem %s has no velocity (nv = 0; "
                               "an FCLib local problem): leave v out", p->name);
        if ((rc = ncp_h5_read_dvec(c, g, gp, "v", p->nv, &a->v, NULL))) return rc;
    }
    if (ncp_h5_exists(g, "time_ms")) {
        if ((rc = ncp_h5_read_darr(c, g, gp, "time_ms", 0, NULL, &a->time_ms))) return rc;
        if (a->time_ms < 0.0)
            return ncp_h5_rerr(c, gp, "time_ms", "is %g, a time must be >= 0", a->time_ms);
    }
    if (ncp_h5_exists(g, "iterations")) {
        if ((rc = ncp_h5_read_int1(c, g, gp, "iterations", &a->iterations))) return rc;
        if (a->iterations < 0)
            return ncp_h5_rerr(c, gp, "iterations", "is %d, must be >= 0", a->iterations);
    }
    int has_tl = ncp_h5_exists(g, "trace_lambda"), has_tt = ncp_h5_exists(g, "trace_time_ms");
    if (has_tl != has_tt)
        return ncp_h5_rerr(c, gp, has_tl ? "trace_time_ms" : "trace_lambda",
                           "is missing: a trace is trace_lambda (K x m) with trace_time_ms (K)");
    if (!has_tl) {
        if (ncp_h5_exists(g, "trace_iter"))
            return ncp_h5_rerr(c, gp, "trace_iter", "is given without trace_lambda");
        return NCP_OK;
    }
    /* K from the dataset's extent; the reader checks the shape (K, m) and the storage */
    hid_t ds = H5Dopen2(g, "trace_lambda", H5P_DEFAULT);
    if (ds < 0) return ncp_h5_rerr(c, gp, "trace_lambda", "is not a readable dataset");
    hid_t sp = H5Dget_space(ds);
    int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    hsize_t d[2] = {0, 0};
    if (rank >= 1 && rank <= 2) H5Sget_simple_extent_dims(sp, d, NULL);
    if (sp >= 0) H5Sclose(sp);
    H5Dclose(ds);
    if (rank != 2 || d[0] < 1 || d[0] > (hsize_t)1 << 30)
        return ncp_h5_rerr(c, gp, "trace_lambda", "has rank %d%s, expected (K, m) = (K, %d) "
                           "with K >= 1", rank, rank == 2 && d[0] < 1 ? " with K = 0" : "", p->m);
    a->K = (int)d[0];
    hsize_t dims[2] = {d[0], (hsize_t)p->m};
    if ((rc = ncp_h5_budget(c, gp, "trace_lambda", "a trace",
                            (double)a->K * (double)p->m * sizeof(double))))
        return rc;
    if (!(a->tl = ncp_malloc(c->err, (size_t)a->K * (size_t)(p->m > 0 ? p->m : 1),
                             sizeof(double))))
        return NCP_ERR_NOMEM;
    if ((rc = ncp_h5_read_darr(c, g, gp, "trace_lambda", 2, dims, a->tl))) return rc;
    if ((rc = ncp_h5_read_dvec(c, g, gp, "trace_time_ms", a->K, &a->tt, NULL))) return rc;
    for (int k = 0; k < a->K; k++)
        if (a->tt[k] < 0.0 || (k > 0 && a->tt[k] < a->tt[k - 1]))
            return ncp_h5_rerr(c, gp, "trace_time_ms", "entry %d is %g: times must be >= 0 and "
                               "nondecreasing (entry %d is %g)", k, a->tt[k], k > 0 ? k - 1 : k,
                               a->tt[k > 0 ? k - 1 : k]);
    if (ncp_h5_exists(g, "trace_iter")) {
        if ((rc = ncp_h5_read_ivec(c, g, gp, "trace_iter", a->K, &a->ti, NULL))) return rc;
        for (int k = 0; k < a->K; k++)
            if (a->ti[k] < 0 || (k > 0 && a->ti[k] <= a->ti[k - 1]))
                return ncp_h5_rerr(c, gp, "trace_iter", "entry %d is %d: iteration numbers "
                                   "must be >= 0 and increasing", k, a->ti[k]);
    } else {
        if (!(a->ti = ncp_malloc(c->err, (size_t)a->K, sizeof(int)))) return NCP_ERR_NOMEM;
        for (int k = 0; k < a->K; k++) a->ti[k] = k + 1;
    }
    if (a->iterations >= 0 && a->ti[a->K - 1] > a->iterations)
        return ncp_h5_rerr(c, gp, "iterations", "is %d, but the trace reaches iteration %d",
                           a->iterations, a->ti[a->K - 1]);
    return NCP_OK;
}

/* Reads every answer of path, checked against the problems (docs/answers.md). */
static int read_answers(const char *path, const ncp_problem *probs, int np, double budget,
                        answers *A, ncp_error *err)
{
    memset(A, 0, sizeof *A);
    ncp_h5_quiet();
    if (!ncp_file_exists(path))
        return ncp_error_set(err, NCP_ERR_INPUT, "answers file %s does not exist", path);
    if (H5Fis_hdf5(path) <= 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "answers file %s is not an HDF5 file (the "
                             "format: docs/answers.md)", path);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "answers file %s cannot be opened as HDF5 "
                             "(damaged?)", path);
    ncp_h5ctx c = {.file = path, .err = err, .budget = budget};
    int rc = NCP_OK;
    hid_t g = -1;
    if (H5Aexists(f, "solver") > 0) rc = ncp_h5_read_attr_str(&c, f, "/", "solver", &A->solver);
    if (!rc) rc = ncp_h5_open_group(&c, f, "", "answers", &g);
    H5G_info_t info;
    if (!rc && H5Gget_info(g, &info) < 0) rc = ncp_h5_rerr(&c, "", "answers", "cannot be listed");
    for (hsize_t k = 0; !rc && k < info.nlinks; k++) {
        char *nm = link_name(&c, g, k);
        if (!nm) {
            rc = err->code ? err->code : NCP_ERR_NOMEM;
            break;
        }
        char gp[600];
        snprintf(gp, sizeof gp, "/answers/%.500s", nm);
        int pi = find_problem(probs, np, nm);
        if (pi < 0) {
            rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: %s: an answer for problem '%s', which "
                               "the problems file does not hold (it has %d problem%s%s%s%s)",
                               path, gp, nm, np, np == 1 ? "" : "s", np > 0 ? ", e.g. '" : "",
                               np > 0 && probs[0].name ? probs[0].name : "", np > 0 ? "'" : "");
        } else if (!(rc = ncp_bench_grow(&A->a, &A->cap, A->n, sizeof *A->a, err))) {
            answer *a = &A->a[A->n++];
            memset(a, 0, sizeof *a);
            a->prob = pi;
            a->time_ms = NAN;
            a->iterations = -1;
            hid_t ag = -1;
            rc = ncp_h5_open_group(&c, g, "/answers", nm, &ag);
            if (!rc) rc = read_answer(&c, ag, gp, &probs[pi], a);
            if (ag >= 0) H5Gclose(ag);
        }
        free(nm);
    }
    if (g >= 0) H5Gclose(g);
    ncp_h5_close_file(f, 1);
    if (rc) answers_free(A);
    return rc;
}

/* The answers file read to the end in a child first (util/isolate.h: libhdf5 1.10 can crash on
 * corrupt metadata), as the problem files are. */
typedef struct probe {
    const char *path;
    const ncp_problem *probs;
    int np;
    double budget;
} probe;

static int probe_read(void *ctx, ncp_error *err)
{
    probe *p = ctx;
    answers A;
    int rc = read_answers(p->path, p->probs, p->np, p->budget, &A, err);
    answers_free(&A);
    return rc;
}

static int read_answers_isolated(const char *path, const ncp_problem *probs, int np,
                                 double budget, answers *A, ncp_error *err)
{
    memset(A, 0, sizeof *A);
    probe pc = {path, probs, np, budget};
    int rc = ncp_isolated_read(probe_read, &pc, 0, path, budget, err);
    if (rc) return rc;
    return read_answers(path, probs, np, budget, A, err);
}

/* A solver name the outputs can hold: an HDF5 link name and a CSV field without quoting. */
static int name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof(((ncp_solver_summary *)0)->solver) || !strcmp(s, ".") ||
        !strcmp(s, ".."))
        return 0;
    for (const char *c = s; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              strchr("_-.+", *c)))
            return 0;
    return 1;
}

/* Never called: every pair of a graded run is in the journal before the driver runs. */
static int not_a_solver(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    (void)in;
    (void)out;
    (void)run;
    return ncp_error_set(err, NCP_ERR_INTERNAL, "grade: a graded pair was not in the journal");
}

/* Marks the trace datasets of the graded solvers in traces.h5 self-timed (and the /traces
 * group when every solver of the file is graded). */
int ncp_grade_mark_traces(const char *dir, const char *const *graded, int ngraded, int all,
                          ncp_error *err)
{
    char path[4200];
    int rc = ncp_path_join(path, sizeof path, dir, "traces.h5", err);
    if (rc || !ncp_file_exists(path) || ngraded <= 0) return rc;
    ncp_h5_quiet();
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0) return ncp_error_set(err, NCP_ERR_IO, "cannot open %s to mark it self-timed", path);
    ncp_h5ctx c = {.file = path, .err = err};
    hid_t t = -1;
    rc = ncp_h5_open_group(&c, f, "", "traces", &t);
    if (!rc && all) rc = ncp_h5_attr_str(&c, t, "/traces", TIMING_ATTR, TIMING_TEXT);
    for (int i = 0; !rc && i < ngraded; i++) {
        if (!ncp_h5_exists(t, graded[i])) continue; /* no traces given */
        hid_t sg = -1;
        rc = ncp_h5_open_group(&c, t, "/traces", graded[i], &sg);
        H5G_info_t pi;
        if (!rc && H5Gget_info(sg, &pi) < 0)
            rc = ncp_h5_rerr(&c, "/traces", graded[i], "cannot be listed");
        for (hsize_t k = 0; !rc && k < pi.nlinks; k++) {
            char *pn = link_name(&c, sg, k);
            if (!pn) {
                rc = err->code ? err->code : NCP_ERR_NOMEM;
                break;
            }
            hid_t ds = H5Dopen2(sg, pn, H5P_DEFAULT);
            rc = ds < 0 ? ncp_h5_rerr(&c, "/traces", pn, "cannot be opened")
                        : ncp_h5_attr_str(&c, ds, pn, TIMING_ATTR, TIMING_TEXT);
            if (ds >= 0) H5Dclose(ds);
            free(pn);
        }
        if (sg >= 0) H5Gclose(sg);
    }
    if (t >= 0) H5Gclose(t);
    if (ncp_h5_close_file(f, rc != 0) < 0 && !rc)
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot write %s (HDF5: %s)", path,
                           errno ? strerror(errno) : "see the library's report");
    return rc;
}

/* What was graded, as summary.json's "graded" object. */
static cJSON *graded_json(const ncp_grade_opts *o, const char *name, const answers *A,
                          int missing)
{
    cJSON *g = cJSON_CreateObject();
    int bad = !g;
    if (!bad) {
        bad |= !cJSON_AddStringToObject(g, "problems_file", o->problems);
        bad |= !cJSON_AddStringToObject(g, "answers_file", o->answers);
        bad |= !cJSON_AddStringToObject(g, "solver", name);
        bad |= !cJSON_AddStringToObject(g, "solver_attribute", A->solver ? A->solver : "");
        bad |= !cJSON_AddNumberToObject(g, "answers", A->n);
        bad |= !cJSON_AddNumberToObject(g, "missing", missing);
        bad |= !cJSON_AddBoolToObject(g, "strict", o->strict);
    }
    if (bad) {
        cJSON_Delete(g);
        return NULL;
    }
    return g;
}

static cJSON *read_json(const char *dir, const char *file, ncp_error *err)
{
    char path[4200], *text = NULL;
    if (ncp_path_join(path, sizeof path, dir, file, err) || ncp_read_file(path, &text, NULL, err))
        return NULL;
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!root || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        ncp_error_set(err, NCP_ERR_INPUT, "%s: not a JSON object", path);
        return NULL;
    }
    return root;
}

/* The solver entry of summary.json's "solvers" named `name`, or NULL. */
static cJSON *summary_solver(const cJSON *root, const char *name)
{
    cJSON *so;
    cJSON_ArrayForEach(so, cJSON_GetObjectItemCaseSensitive(root, "solvers"))
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(so, "solver");
        if (cJSON_IsString(n) && !strcmp(n->valuestring, name)) return so;
    }
    return NULL;
}

/* Replaces (or adds) key of `to` with a copy of from's, when from has it. */
static int keep_key(cJSON *to, const cJSON *from, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, key);
    if (!v) return 0;
    cJSON *d = cJSON_Duplicate(v, 1);
    if (!d) return 1;
    if (cJSON_GetObjectItemCaseSensitive(to, key))
        return !cJSON_ReplaceItemInObjectCaseSensitive(to, key, d);
    return !cJSON_AddItemToObject(to, key, d);
}

/* summary.json after the outputs were rebuilt: a plain grade is self-timed as a whole; a grade
 * --into keeps what the run's summary (old) said of the run (the machine, its profile, the
 * plugins of its solvers, what earlier grades graded) and says what this one graded. */
static int mark_summary(const char *dir, const ncp_grade_opts *o, const char *name,
                        const answers *A, int missing, const cJSON *old, ncp_error *err)
{
    char path[4200];
    int rc = ncp_path_join(path, sizeof path, dir, "summary.json", err);
    cJSON *root = rc ? NULL : read_json(dir, "summary.json", err);
    if (!root) return err->code ? err->code : NCP_ERR_INTERNAL;
    cJSON *g = graded_json(o, name, A, missing);
    int bad = !g;
    if (!old) {
        bad |= !cJSON_AddItemToObject(root, "self_timed", cJSON_CreateBool(1));
        /* the driver kept every graded pair from the journal: none is from an earlier run */
        cJSON *kept = cJSON_GetObjectItemCaseSensitive(root, "kept_from_earlier_run");
        if (!bad && kept) cJSON_SetNumberValue(kept, 0);
        if (!bad) bad |= !cJSON_AddItemToObject(root, "graded", g);
        else cJSON_Delete(g);
        return ncp_out_write_json(path, root, bad, err);
    }
    static const char *const run_keys[] = {"blas", "openblas_num_threads", "machine", "jobs",
                                           "profile", "kept_from_earlier_run",
                                           "problem_labels", NULL};
    for (int k = 0; run_keys[k]; k++) bad |= keep_key(root, old, run_keys[k]);
    cJSON *so;
    cJSON_ArrayForEach(so, cJSON_GetObjectItemCaseSensitive(root, "solvers"))
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(so, "solver");
        if (!cJSON_IsString(n)) continue;
        if (!strcmp(n->valuestring, name)) {
            char src[4300];
            snprintf(src, sizeof src, "answers computed elsewhere (ncpbench grade %.4096s)",
                     o->answers);
            cJSON *sv = cJSON_CreateString(src);
            bad |= !sv || !cJSON_ReplaceItemInObjectCaseSensitive(so, "source", sv);
            if (g && cJSON_GetObjectItemCaseSensitive(so, "graded"))
                cJSON_DeleteItemFromObjectCaseSensitive(so, "graded");
            bad |= !g || !cJSON_AddItemToObject(so, "graded", g);
            g = NULL;
            continue;
        }
        const cJSON *was = summary_solver(old, n->valuestring);
        bad |= keep_key(so, was, "plugin") | keep_key(so, was, "graded");
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(so, "source");
        if (!cJSON_IsString(src) || !*src->valuestring) bad |= keep_key(so, was, "source");
    }
    /* the families of the run's plugin solvers (not loaded here): as the run found them */
    const cJSON *ot = cJSON_GetObjectItemCaseSensitive(old, "results_table");
    cJSON_ArrayForEach(so, cJSON_GetObjectItemCaseSensitive(
                               cJSON_GetObjectItemCaseSensitive(root, "results_table"), "solvers"))
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(so, "solver");
        const cJSON *was = cJSON_IsString(n) ? summary_solver(ot, n->valuestring) : NULL;
        if (was && strcmp(n->valuestring, name)) bad |= keep_key(so, was, "family");
    }
    cJSON_Delete(g);
    return ncp_out_write_json(path, root, bad, err);
}

/* A run's bench options rebuilt from its recorded configuration (resume.h), the graded solver
 * added to it. */
typedef struct run_conf {
    cJSON *cfg;
    ncp_bench_opts bo;
    const ncp_solver_desc *dp[NCP_BENCH_MAX_SOLVERS];
    ncp_solver_desc desc[NCP_BENCH_MAX_SOLVERS];
    const char *graded[NCP_BENCH_MAX_SOLVERS];
    ncp_solver_params_entry params[NCP_BENCH_MAX_SOLVERS];
    int regrade; /* the solver is a graded one of the run already: its rows are replaced */
} run_conf;

static int conf_bad(const char *dir, const char *what, ncp_error *err)
{
    return ncp_error_set(err, NCP_ERR_INPUT, "%s/config.json: %s: a configuration this ncpbench "
                         "cannot rebuild (rerun the run with this ncpbench)", dir, what);
}

static int jbool(const cJSON *c, const char *key)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, key));
}

static int run_conf_read(const char *dir, const char *name, run_conf *rc_, ncp_error *err)
{
    char *text = NULL;
    int rc = ncp_resume_recorded(dir, &text, err);
    if (rc) return rc;
    cJSON *c = rc_->cfg = cJSON_Parse(text);
    free(text);
    if (!cJSON_IsObject(c)) return conf_bad(dir, "not a JSON object", err);
    ncp_bench_opts *bo = &rc_->bo;
    const cJSON *sv = cJSON_GetObjectItemCaseSensitive(c, "solvers"),
                *gv = cJSON_GetObjectItemCaseSensitive(c, "graded"),
                *b = cJSON_GetObjectItemCaseSensitive(c, "budget"),
                *ps = cJSON_GetObjectItemCaseSensitive(c, "params"), *it;
    if (!cJSON_IsArray(sv) || !cJSON_IsObject(b)) return conf_bad(dir, "solvers, budget", err);
    cJSON_ArrayForEach(it, gv)
    {
        if (!cJSON_IsString(it) || bo->ngraded == NCP_BENCH_MAX_SOLVERS)
            return conf_bad(dir, "graded", err);
        rc_->graded[bo->ngraded++] = it->valuestring;
        rc_->regrade |= !strcmp(it->valuestring, name);
    }
    cJSON_ArrayForEach(it, sv)
    {
        if (!cJSON_IsString(it) || bo->nsolvers >= NCP_BENCH_MAX_SOLVERS - 1)
            return conf_bad(dir, "solvers", err);
        if (!strcmp(it->valuestring, name) && !rc_->regrade)
            return ncp_error_set(err, NCP_ERR_INPUT, "solver name '%s' is one of the solvers "
                                 "of the run in %s: give the graded answers another name "
                                 "(--name NAME)", name, dir);
        ncp_solver_desc *d = &rc_->desc[bo->nsolvers];
        *d = (ncp_solver_desc){.name = it->valuestring, .solve = not_a_solver};
        rc_->dp[bo->nsolvers++] = d;
    }
    if (!rc_->regrade) {
        ncp_solver_desc *d = &rc_->desc[bo->nsolvers];
        *d = (ncp_solver_desc){.name = name, .solve = not_a_solver};
        rc_->dp[bo->nsolvers++] = d;
        if (bo->ngraded == NCP_BENCH_MAX_SOLVERS) return conf_bad(dir, "graded", err);
        rc_->graded[bo->ngraded++] = name;
    }
    bo->solvers = rc_->dp;
    bo->graded = rc_->graded;
    cJSON_ArrayForEach(it, ps)
    {
        ncp_solver_params_entry *e = &rc_->params[bo->nparams];
        if (!cJSON_IsObject(it) || bo->nparams == NCP_BENCH_MAX_SOLVERS ||
            strlen(it->string) >= sizeof e->solver)
            return conf_bad(dir, "params", err);
        memset(e, 0, sizeof *e);
        snprintf(e->solver, sizeof e->solver, "%s", it->string);
        const cJSON *v;
        cJSON_ArrayForEach(v, it)
        {
            if (!cJSON_IsNumber(v) || ncp_params_set(&e->params, v->string, v->valuedouble, err))
                return conf_bad(dir, "params", err);
        }
        bo->nparams++;
    }
    bo->params = rc_->params;
    const cJSON *tol = cJSON_GetObjectItemCaseSensitive(b, "tol"),
                *mi = cJSON_GetObjectItemCaseSensitive(b, "max_iter"),
                *tm = cJSON_GetObjectItemCaseSensitive(b, "time_ms");
    bo->budget.tol = cJSON_IsNumber(tol) ? tol->valuedouble : NAN;
    bo->budget.max_iter = cJSON_IsNumber(mi) ? mi->valueint : 0;
    bo->budget.time_ms = cJSON_IsNumber(tm) ? tm->valuedouble : 0.0;
    const cJSON *sm = cJSON_GetObjectItemCaseSensitive(c, "stop_metric"),
                *pr = cJSON_GetObjectItemCaseSensitive(c, "primal"),
                *ws = cJSON_GetObjectItemCaseSensitive(c, "warm_start"),
                *ck = cJSON_GetObjectItemCaseSensitive(c, "clock"),
                *rp = cJSON_GetObjectItemCaseSensitive(c, "repeat"),
                *st = cJSON_GetObjectItemCaseSensitive(c, "sym_tol"),
                *in = cJSON_GetObjectItemCaseSensitive(c, "input");
    bo->stop_metric = cJSON_IsString(sm) ? ncp_metrics_index(sm->valuestring) : -1;
    if (bo->stop_metric < 0) return conf_bad(dir, "stop_metric", err);
    if (jbool(c, "reconstruct_primal")) bo->allow |= NCP_RECON_PRIMAL_FROM_D;
    if (cJSON_IsString(pr) && !strcmp(pr->valuestring, "dense")) bo->allow |= NCP_RECON_PRIMAL_DENSE;
    if (jbool(c, "symmetrize")) bo->allow |= NCP_RECON_SYMMETRIZE;
    bo->warm_start = cJSON_IsString(ws) ? ncp_warm_start_from_name(ws->valuestring) : -1;
    if (bo->warm_start < 0) return conf_bad(dir, "warm_start", err);
    bo->traces = jbool(c, "traces");
    bo->traces_csv = jbool(c, "traces_csv");
    bo->trace_every = jbool(c, "trace_every");
    /* recorded for the CPU clock only (resume.c): absent is the wall clock */
    bo->clock = ck ? (cJSON_IsString(ck) ? ncp_clock_parse(ck->valuestring) : -1) : NCP_CLOCK_WALL;
    if (bo->clock < 0) return conf_bad(dir, "clock", err);
    bo->repeat = cJSON_IsNumber(rp) ? rp->valueint : 1;
    bo->sym_tol = cJSON_IsNumber(st) ? st->valuedouble : 0.0;
    bo->input = cJSON_IsString(in) ? in->valuestring : NULL;
    bo->jobs = 1;
    return NCP_OK;
}

/* One answered (or missing) problem per pair of the journal. */
static int journal_answers(ncp_resume *rs, const ncp_problem *probs, int np, const answers *A,
                           const int *ans_of, const char *name, const ncp_harness_opts *ho,
                           int traces, ncp_grade_report *rep, ncp_error *err)
{
    const int nc = ncp_out_traces_ncols(), nm = ncp_metrics_count();
    int kmax = 0, rc = NCP_OK;
    for (int k = 0; k < A->n; k++) kmax = A->a[k].K > kmax ? A->a[k].K : kmax;
    ncp_metrics *tm = NULL;
    double *rows = NULL;
    if (kmax > 0 && (!(tm = ncp_malloc(err, (size_t)kmax, sizeof *tm)) ||
                     !(rows = ncp_malloc(err, (size_t)kmax * nc, sizeof *rows)))) {
        free(tm);
        return NCP_ERR_NOMEM;
    }
    double nanv[NCP_NMETRICS], vals[NCP_NMETRICS];
    for (int k = 0; k < NCP_NMETRICS; k++) nanv[k] = NAN;
    ncp_result res;
    memset(&res, 0, sizeof res);
    for (int i = 0; !rc && i < np; i++) {
        const ncp_problem *p = &probs[i];
        ncp_jresult jr = {.problem = p->name, .solver = name, .title = p->title,
                          .description = p->description, .nmetrics = nm,
                          .wall_ms = NAN /* the program timed itself, on its own clock */,
                          .time_min_ms = NAN, .time_max_ms = NAN};
        char nt[600];
        long long off;
        if (ans_of[i] < 0) {
            snprintf(nt, sizeof nt, "%s; %s", NOTE_SELF_TIMED, NOTE_NO_ANSWER);
            jr.note = nt;
            jr.status = NCP_STATUS_FAILED;
            jr.setup_ms = jr.solve_ms = NAN;
            jr.metrics = nanv;
            rc = ncp_resume_append(rs, &jr, &off, err);
            continue;
        }
        const answer *a = &A->a[ans_of[i]];
        if ((rc = ncp_harness_grade(p, a->lambda, a->v, a->tl, a->K, tm, ho, &res, err))) break;
        snprintf(nt, sizeof nt, "%s%s%.500s", NOTE_SELF_TIMED, res.note[0] ? "; " : "", res.note);
        ncp_metrics_values(&res.final, vals);
        for (int k = 0; k < a->K; k++) {
            double *r = rows + (size_t)k * nc;
            r[0] = a->ti[k];
            r[1] = a->tt[k];
            ncp_metrics_values(&tm[k], r + NCP_TRACE_FIXED);
        }
        jr.note = nt;
        jr.iterations = a->iterations >= 0 ? a->iterations : a->K > 0 ? a->ti[a->K - 1] : 0;
        jr.converged = res.converged;
        jr.status = res.status;
        /* the program's time is its whole time: no setup of its own is known */
        jr.setup_ms = isnan(a->time_ms) ? NAN : 0.0;
        jr.solve_ms = a->time_ms;
        jr.time_min_ms = jr.time_max_ms = a->time_ms;
        jr.metrics = vals;
        jr.has_answer = 1;
        jr.lambda = res.lambda;
        jr.u = res.u;
        jr.m = p->m;
        jr.v = res.v;
        jr.nv = res.v ? p->nv : 0;
        jr.solver_v = res.solver_v;
        jr.nsv = res.solver_v ? p->nv : 0;
        jr.trace = traces && a->K > 0 ? rows : NULL;
        jr.ntrace = traces ? a->K : 0;
        jr.ncols = nc;
        rc = ncp_resume_append(rs, &jr, &off, err);
        rep->answered++;
        rep->converged += res.converged;
        rep->traces += traces && a->K > 0;
        ncp_result_free(&res);
    }
    ncp_result_free(&res);
    free(rows);
    free(tm);
    return rc;
}

/* The run in dir holds a row of every solver of bo but `name` on every problem, and these
 * problems are its problems (summary.json's checksum). */
static int check_run(const char *dir, const ncp_problem *probs, int np, const run_conf *rcf,
                     const char *name, const cJSON *old, ncp_error *err)
{
    const cJSON *ck = cJSON_GetObjectItemCaseSensitive(old, "problem_set_checksum");
    uint64_t h = NCP_CHECKSUM_START;
    for (int i = 0; i < np; i++) h = ncp_bench_problem_checksum(h, &probs[i]);
    char mine[24];
    snprintf(mine, sizeof mine, "%016llx", (unsigned long long)h);
    if (!cJSON_IsString(ck) || strcmp(ck->valuestring, mine))
        return ncp_error_set(err, NCP_ERR_INPUT, "the problems graded are not the problems of "
                             "the run in %s (problem set checksum %s, the run's %s in "
                             "%s/summary.json): grade answers to %s/problems.h5", dir, mine,
                             cJSON_IsString(ck) ? ck->valuestring : "missing", dir, dir);
    char *text = cJSON_PrintUnformatted(rcf->cfg);
    ncp_resume *rs = NULL;
    int rc = text ? ncp_resume_open(dir, text, 0, &rs, err)
                  : ncp_error_set(err, NCP_ERR_NOMEM, "out of memory");
    for (int i = 0; !rc && i < np; i++)
        for (int s = 0; !rc && s < rcf->bo.nsolvers; s++) {
            const char *sn = rcf->bo.solvers[s]->name;
            if (!strcmp(sn, name) || ncp_resume_find(rs, probs[i].name, sn) >= 0) continue;
            rc = ncp_error_set(err, NCP_ERR_INPUT, "the run in %s has no row of %s on problem "
                               "%s (an interrupted run?): finish it (rerun its command), then "
                               "grade --into it", dir, sn, probs[i].name);
        }
    ncp_resume_close(rs);
    free(text);
    return rc;
}

int ncp_grade_run(const ncp_grade_opts *o, ncp_grade_report *rep, char *note, size_t nnote,
                  ncp_error *err)
{
    memset(rep, 0, sizeof *rep);
    if (note && nnote) note[0] = '\0';
    if (o->stop_metric < 0 || o->stop_metric >= ncp_metrics_count())
        return ncp_error_set(err, NCP_ERR_INPUT, "invalid stopping metric index %d",
                             o->stop_metric);
    ncp_problem *probs = NULL;
    int np = 0;
    int rc = ncp_load_problems_isolated(o->problems, o->max_memory, &probs, &np, err);
    if (rc) return rc;
    answers A;
    memset(&A, 0, sizeof A);
    int *ans_of = NULL, lock = -1;
    char *config = NULL;
    ncp_resume *rs = NULL;
    run_conf *rcf = NULL;
    cJSON *old = NULL;
    ncp_bench_summary *sum = NULL;
    if (np == 0) {
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s holds no problem", o->problems);
        goto done;
    }
    if ((rc = read_answers_isolated(o->answers, probs, np, o->max_memory, &A, err))) goto done;

    /* the name: --name, the file's `solver` attribute, the file's stem */
    char stem[256];
    ncp_path_stem(o->answers, stem, sizeof stem);
    const char *name = o->name ? o->name : A.solver && *A.solver ? A.solver : stem;
    if (!name_ok(name)) {
        rc = ncp_error_set(err, NCP_ERR_INPUT, "solver name '%s' (%s) cannot name output "
                           "columns: use 1 to 31 letters, digits, '_', '-', '.', '+' (--name "
                           "NAME)", name, o->name ? "--name" : A.solver && *A.solver
                           ? "attribute `solver` of the answers file" : "the answers file's stem");
        goto done;
    }
    snprintf(rep->name, sizeof rep->name, "%.31s", name); /* name_ok: < 32 */
    if (o->into) snprintf(rep->out_dir, sizeof rep->out_dir, "%s", o->into);
    else if (o->out_dir) snprintf(rep->out_dir, sizeof rep->out_dir, "%s", o->out_dir);
    else snprintf(rep->out_dir, sizeof rep->out_dir, "results/grade-%s", name);

    if (!(ans_of = ncp_malloc(err, (size_t)np, sizeof *ans_of)) ||
        !(rcf = ncp_calloc(err, 1, sizeof *rcf)) || !(sum = ncp_malloc(err, 1, sizeof *sum))) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    for (int i = 0; i < np; i++) ans_of[i] = -1;
    for (int k = 0; k < A.n; k++) ans_of[A.a[k].prob] = k;
    int kmax = 0;
    for (int k = 0; k < A.n; k++) kmax = A.a[k].K > kmax ? A.a[k].K : kmax;
    for (int i = 0; i < np; i++) {
        if (ans_of[i] >= 0) continue;
        rep->missing++;
        if (o->strict) {
            rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: /answers/%s is missing: problem '%s' "
                               "of %s has no answer (--strict)", o->answers, probs[i].name,
                               probs[i].name, o->problems);
            goto done;
        }
    }

    ncp_bench_opts *bo = &rcf->bo;
    char title[400];
    if (o->into) {
        /* the run's configuration with the graded solver added (resume.h), checked against
         * the run before anything is written to it; the run's folder is held throughout */
        if ((rc = ncp_out_lock(o->into, &lock, err))) goto done;
        if (lock < 0) {
            rc = ncp_error_set(err, NCP_ERR_INPUT, "--into %s: no such folder (a run's output "
                               "folder)", o->into);
            goto done;
        }
        if (!(old = read_json(o->into, "summary.json", err)) ||
            (rc = run_conf_read(o->into, name, rcf, err)) ||
            (rc = check_run(o->into, probs, np, rcf, name, old, err))) {
            if (!rc) rc = err->code ? err->code : NCP_ERR_INPUT;
            goto done;
        }
        const cJSON *sc = cJSON_GetObjectItemCaseSensitive(old, "scene"),
                    *so = cJSON_GetObjectItemCaseSensitive(old, "source"),
                    *sd = cJSON_GetObjectItemCaseSensitive(old, "seed");
        bo->scene_name = cJSON_IsString(sc) ? sc->valuestring : NULL;
        bo->source = cJSON_IsString(so) ? so->valuestring : NULL;
        bo->seed = cJSON_IsNumber(sd) ? (uint64_t)sd->valuedouble : 0;
        bo->quick = jbool(old, "quick");
        bo->out_locked = 1;
        if (kmax > 0 && !bo->traces && note)
            snprintf(note, nnote, "the run in %s stores no traces: the answers' traces are not "
                     "kept", o->into);
    } else {
        /* a one-solver run whose every pair is journaled here, then rebuilt by the driver; a
         * run's folder is not replaced by it */
        char *rec = NULL;
        ncp_error e2 = {0};
        if (!ncp_resume_recorded(rep->out_dir, &rec, &e2)) {
            cJSON *c = cJSON_Parse(rec);
            const cJSON *in = cJSON_GetObjectItemCaseSensitive(c, "input");
            int graded_only = cJSON_IsString(in) && !strcmp(in->valuestring, "ncpbench grade");
            cJSON_Delete(c);
            free(rec);
            if (!graded_only) {
                rc = ncp_error_set(err, NCP_ERR_INPUT, "%s holds a run's results: add the graded "
                                   "solver to them with --into %s, or choose another --out",
                                   rep->out_dir, rep->out_dir);
                goto done;
            }
        }
        rcf->desc[0] = (ncp_solver_desc){.name = name, .solve = not_a_solver,
                                         .source = "answers computed elsewhere (ncpbench grade)",
                                         .summary = "graded answers", .file = o->answers};
        rcf->dp[0] = &rcf->desc[0];
        rcf->graded[0] = name;
        bo->solvers = rcf->dp;
        bo->nsolvers = 1;
        bo->graded = rcf->graded;
        bo->ngraded = 1;
        bo->budget.tol = o->tol;
        bo->stop_metric = o->stop_metric;
        bo->jobs = 1;
        bo->traces = kmax > 0;
        bo->trace_every = 1; /* the program's rows as given */
        snprintf(title, sizeof title, "%s graded on %s", name, o->problems);
        bo->scene_name = title;
        bo->source = o->answers;
        bo->input = "ncpbench grade";
    }
    bo->out_dir = rep->out_dir;
    bo->max_memory = o->max_memory;
    if ((rc = ncp_resume_config(bo, &config, err))) goto done;
    bo->config = config;
    if ((rc = ncp_mkdir_p(rep->out_dir, err)) ||
        (rc = ncp_resume_open(rep->out_dir, config, !o->into, &rs, err)))
        goto done;
    ncp_harness_opts ho;
    ncp_harness_opts_default(&ho);
    ho.budget.tol = bo->budget.tol;
    ho.stop_metric = bo->stop_metric;
    rep->problems = np;
    if ((rc = journal_answers(rs, probs, np, &A, ans_of, name, &ho, bo->traces, rep, err)) ||
        (rc = ncp_resume_sync(rs, err)))
        goto done;
    ncp_resume_close(rs);
    rs = NULL;
    if ((rc = ncp_bench_run(probs, np, bo, sum, err)) ||
        (rc = mark_summary(rep->out_dir, o, name, &A, rep->missing, old, err)))
        goto done;
    if (o->figures) {
        ncp_error perr = {0};
        int prc = bo->traces ? ncp_plot_dir(rep->out_dir, NULL, NULL, &perr)
                             : ncp_plot_index(rep->out_dir, &perr);
        if (prc == NCP_PLOT_SKIPPED && note && !note[0]) snprintf(note, nnote, "%s", perr.msg);
        else if (prc && prc != NCP_PLOT_SKIPPED)
            rc = ncp_error_set(err, perr.code ? perr.code : prc, "%s", perr.msg);
    }
done:
    ncp_resume_close(rs);
    ncp_out_unlock(lock);
    cJSON_Delete(old);
    if (rcf) cJSON_Delete(rcf->cfg);
    free(rcf);
    free(sum);
    free(config);
    free(ans_of);
    answers_free(&A);
    ncp_problems_free(probs, np);
    return rc;
}
