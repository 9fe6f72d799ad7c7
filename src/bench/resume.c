/* The results of an output folder and resuming them (resume.h). */
#include "bench/resume.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <zlib.h>

#include "ncp_config.h"
#include "core/sparse_chol.h"
#include "util/clock.h"
#include "util/fsutil.h"
#include "util/safefile.h"

/* Record kinds. A result is stored compressed (REC_SRESULT, below) unless compressing does not
 * shrink it (then as REC_RESULT, its payload as it is). Journals of earlier versions hold
 * REC_RESULT records and REC_ZRESULT ones (the kind, the length of the result payload, then
 * that payload as a zlib stream); all three are read.
 *
 * REC_SRESULT: the kind, the length of the inflated bytes, then a zlib stream of: the number of
 * rearranged regions (uint32), each region's byte offset in the result payload, rows and columns
 * (uint32 each), zero padding to 8 bytes, and the result payload with each region (rows x cols
 * doubles, row-major) replaced by its byte-shuffled columns (ncp_jshuffle). Regions: u, v, the
 * solver's v (vectors) and the trace (its columns: iterate after iterate of one metric). Not
 * lambda, mostly exact zeros, whose zero runs zlib finds longer unshuffled, nor the metrics.
 * boltnut's 2 600 results: 19.7 MB as REC_ZRESULT, 18.3 MB as REC_SRESULT (of the arrays
 * compressed alone at level 1: u 7.27 -> 7.05 MB, traces 10.05 -> 8.88 MB; lambda shuffled
 * would grow 1.66 -> 1.90 MB, the whole payload shuffled as one array 19.7 -> 20.7 MB). The
 * table keeps the reader independent of the payload's layout. */
enum { REC_CONFIG = 'C', REC_RESULT = 'R', REC_ZRESULT = 'Z', REC_SRESULT = 'S' };
/* zlib's level 3, the last of its fast (non-lazy) levels: on boltnut's shuffled payloads
 * 18.24 MB in 386 ms of CPU, against 18.42 MB in 370 ms at level 1 and 18.09 MB in 543 ms at
 * level 6 (REC_ZRESULT at level 1, before: 19.66 MB in 418 ms). */
enum { ZLEVEL = 3, MAX_RESULT = 1 << 30, MAX_REGIONS = 8 };

/* A rearranged region of a result payload (REC_SRESULT). */
typedef struct region {
    uint32_t off, rows, cols;
} region;

/* Bytes before the payload in an inflated REC_SRESULT: the count, the regions, padding. */
static size_t regions_head(uint32_t nreg) { return (4 + 12 * (size_t)nreg + 7) / 8 * 8; }

/* A pair of the journal: its latest record. */
typedef struct entry {
    char *problem, *solver;
    long long off;
    int status;
    int placed; /* in this run's outputs */
} entry;

struct ncp_resume {
    char *dir;
    ncp_journal *j;
    const char *config;
    int have_config;
    char *recorded;     /* the latest configuration record (a grade --into adds one) */
    char **graded;      /* the graded solvers of that configuration (ncp_resume_graded_at) */
    int ngraded;
    entry *e;
    int n, cap;
    int earlier;
    int *slot; /* hash table of entry indices, -1 empty */
    int nslot;
    ncp_jbuf buf;
    unsigned char *z;  /* a compressed record being appended */
    size_t zcap;
    unsigned char *work; /* a payload being rearranged for compression, or a region restored */
    size_t workcap;
    z_stream zs;       /* the compressor, reset for every record (compress2 would allocate and */
    int zs_ready;      /* clear its tables each time: a fifth of the compression's time) */
    unsigned char *raw; /* the inflated payload of the last compressed record read */
    size_t rawcap;
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
        /* the wall clock is what every run before --clock measured: recorded only for the CPU
         * clock, so that an older run resumes under --clock wall and is refused under cpu */
        if (o->clock != NCP_CLOCK_WALL)
            cJSON_AddItemToObject(c, "clock", cJSON_CreateString(ncp_clock_name(o->clock)));
        if (o->repeat > 1) cJSON_AddItemToObject(c, "repeat", jnum(o->repeat));
        /* recorded only when it differs from the default, so that the records of runs before
         * --sym-tol (and runs that name the default) match */
        if (o->sym_tol > 0.0 && o->sym_tol != NCP_SYM_TOL_DEFAULT)
            cJSON_AddItemToObject(c, "sym_tol", jnum(o->sym_tol));
        /* recorded only when set, so that the records of runs before these options match */
        if (o->traces && o->traces_csv)
            cJSON_AddItemToObject(c, "traces_csv", cJSON_CreateBool(1));
        if (o->traces && o->trace_every)
            cJSON_AddItemToObject(c, "trace_every", cJSON_CreateBool(1));
        /* what a run captures its problems from (ncpbench run): another scene, seed or
         * capture option is another configuration */
        if (o->input) cJSON_AddItemToObject(c, "input", cJSON_CreateString(o->input));
        /* recorded only when there are some (grade --into, grade) */
        cJSON *g = o->ngraded > 0 ? cJSON_CreateArray() : NULL;
        for (int i = 0; g && i < o->ngraded; i++)
            cJSON_AddItemToArray(g, cJSON_CreateString(o->graded[i]));
        if (g) cJSON_AddItemToObject(c, "graded", g);
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

uint64_t ncp_resume_fingerprint(const char *text) { return fnv1a(text); }

/* The record of a configuration: what config.json holds and the journal's first record. */
static char *config_record(const char *config, ncp_error *err)
{
    size_t n = strlen(config) + 200;
    char *t = ncp_malloc(err, n, 1);
    if (t)
        snprintf(t, n, "{\"fingerprint\": \"%016" PRIx64 "\",\n \"config\": %s}\n",
                 fnv1a(config), config);
    return t;
}

/* 1 if the JSON array a holds the string s. */
static int has_name(const cJSON *a, const char *s)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    if (cJSON_IsString(it) && !strcmp(it->valuestring, s)) return 1;
    return 0;
}

/* Appends ", text" (the first without the comma) to diff[cap], *used advanced. */
static void diff_add(char *diff, size_t cap, size_t *used, const char *text)
{
    int w = snprintf(diff + *used, cap - *used, "%s%s", *used ? ", " : "", text);
    if (w > 0 && (size_t)w < cap - *used) *used += (size_t)w;
}

/* Whether the requested configuration `now` can be run against the recorded `oc` (resume.h):
 * every key but the solvers, their parameters and the graded ones equal; every requested
 * solver one of the run's with the same parameters and the same graded-ness, or a graded one
 * the run does not hold yet (grade --into, *adds = 1: now then holds every solver of oc). What
 * differs is listed in diff. */
static int compatible(const cJSON *oc, const cJSON *now, char *diff, size_t cap, int *adds)
{
    size_t used = 0;
    char one[200];
    *adds = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, now)
    {
        if (!strcmp(it->string, "solvers") || !strcmp(it->string, "params") ||
            !strcmp(it->string, "graded"))
            continue;
        const cJSON *o2 = cJSON_GetObjectItemCaseSensitive(oc, it->string);
        if (!o2 || !cJSON_Compare(it, o2, 1)) diff_add(diff, cap, &used, it->string);
    }
    cJSON_ArrayForEach(it, oc) /* recorded, no longer set */
    {
        if (!strcmp(it->string, "graded")) continue;
        if (!cJSON_GetObjectItemCaseSensitive(now, it->string)) diff_add(diff, cap, &used, it->string);
    }
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(oc, "solvers"),
                *ns = cJSON_GetObjectItemCaseSensitive(now, "solvers"),
                *rp = cJSON_GetObjectItemCaseSensitive(oc, "params"),
                *np = cJSON_GetObjectItemCaseSensitive(now, "params"),
                *rg = cJSON_GetObjectItemCaseSensitive(oc, "graded"),
                *ng = cJSON_GetObjectItemCaseSensitive(now, "graded");
    cJSON_ArrayForEach(it, ns)
    {
        if (!cJSON_IsString(it)) continue;
        const char *s = it->valuestring;
        if (!has_name(rs, s)) {
            if (has_name(ng, s)) *adds = 1;
            else {
                snprintf(one, sizeof one, "solvers ('%.60s' is not one of the run's)", s);
                diff_add(diff, cap, &used, one);
            }
            continue;
        }
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(rp, s),
                    *b = cJSON_GetObjectItemCaseSensitive(np, s);
        if ((a || b) && !(a && b && cJSON_Compare(a, b, 1))) {
            snprintf(one, sizeof one, "params of %.60s", s);
            diff_add(diff, cap, &used, one);
        }
        if (has_name(rg, s) != has_name(ng, s)) {
            snprintf(one, sizeof one, "solvers ('%.60s' is %s)", s,
                     has_name(rg, s) ? "a graded solver of the run" : "solved in the run");
            diff_add(diff, cap, &used, one);
        }
    }
    if (*adds) /* a configuration that grows keeps every solver it had */
        cJSON_ArrayForEach(it, rs)
        if (cJSON_IsString(it) && !has_name(ns, it->valuestring)) {
            diff_add(diff, cap, &used, "solvers");
            break;
        }
    return used == 0;
}

/* NCP_OK when the configuration `config` can run against the recorded one (record, from the
 * journal: the same, or compatible as above; *adds set); NCP_ERR_INPUT naming what differs. */
static int check_config(const char *dir, const char *record, const char *config, int *adds,
                        ncp_error *err)
{
    static const char *const again = "rerun with the options of the results in it to resume "
                                      "them, add --fresh to discard them, or choose another --out";
    int rc = NCP_OK;
    *adds = 0;
    cJSON *old = cJSON_Parse(record), *now = cJSON_Parse(config);
    const cJSON *fp = cJSON_GetObjectItemCaseSensitive(old, "fingerprint");
    const cJSON *oc = cJSON_GetObjectItemCaseSensitive(old, "config");
    char want[20];
    snprintf(want, sizeof want, "%016" PRIx64, fnv1a(config));
    if (!now) {
        rc = ncp_error_set(err, NCP_ERR_NOMEM, "out of memory comparing configurations");
    } else if (!cJSON_IsString(fp) || !cJSON_IsObject(oc)) {
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s/%s: its first record is not a configuration; "
                           "add --fresh to discard the results in %s", dir, NCP_JOURNAL_NAME, dir);
    } else if (strcmp(fp->valuestring, want) != 0) {
        char diff[512] = "";
        if (!compatible(oc, now, diff, sizeof diff, adds))
            rc = ncp_error_set(err, NCP_ERR_INPUT, "%s holds results of another configuration "
                               "(differs in: %s; see %s/config.json); %s", dir,
                               diff[0] ? diff : "its fingerprint", dir, again);
    }
    cJSON_Delete(old);
    cJSON_Delete(now);
    return rc;
}

/* The graded solvers of a configuration record into rs->graded. */
static int read_graded(ncp_resume *rs, const char *record, ncp_error *err)
{
    cJSON *root = cJSON_Parse(record);
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(root, "config"), "graded");
    int n = cJSON_GetArraySize(g), rc = NCP_OK;
    if (n > 0 && !(rs->graded = ncp_calloc(err, (size_t)n, sizeof *rs->graded))) rc = NCP_ERR_NOMEM;
    const cJSON *it;
    cJSON_ArrayForEach(it, g)
    {
        if (rc || !cJSON_IsString(it)) continue;
        if (!(rs->graded[rs->ngraded] = ncp_strdup(err, it->valuestring))) rc = NCP_ERR_NOMEM;
        else rs->ngraded++;
    }
    cJSON_Delete(root);
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
        if (k < 0 || (!strcmp(rs->e[k].problem, problem) && !strcmp(rs->e[k].solver, solver)))
            return &rs->slot[i];
    }
}

/* Room for one more entry, the table at most half full. */
static int grow(ncp_resume *rs, ncp_error *err)
{
    int rc = ncp_bench_grow(&rs->e, &rs->cap, rs->n, sizeof *rs->e, err);
    if (rc) return rc;
    if (2 * (rs->n + 1) <= rs->nslot) return NCP_OK;
    int ns = rs->nslot ? 2 * rs->nslot : 1024;
    int *sl = ncp_malloc(err, (size_t)ns, sizeof *sl);
    if (!sl) return NCP_ERR_NOMEM;
    for (int i = 0; i < ns; i++) sl[i] = -1;
    free(rs->slot);
    rs->slot = sl;
    rs->nslot = ns;
    for (int k = 0; k < rs->n; k++) *lookup(rs, rs->e[k].problem, rs->e[k].solver) = k;
    return NCP_OK;
}

/* The entry of a pair, created when new. */
static entry *index_pair(ncp_resume *rs, const char *problem, const char *solver, ncp_error *err)
{
    if (grow(rs, err)) return NULL;
    int *sl = lookup(rs, problem, solver);
    if (*sl >= 0) return &rs->e[*sl];
    entry *e = &rs->e[rs->n];
    memset(e, 0, sizeof *e);
    if (!(e->problem = ncp_strdup(err, problem)) || !(e->solver = ncp_strdup(err, solver))) {
        free(e->problem);
        return NULL;
    }
    *sl = rs->n++;
    return e;
}

/* rs->work with room for n bytes; 0 when memory ran out. */
static int work_room(ncp_resume *rs, size_t n)
{
    if (n <= rs->workcap) return 1;
    unsigned char *w = realloc(rs->work, n);
    if (!w) return 0;
    rs->work = w;
    rs->workcap = n;
    return 1;
}

/* The result payload of an inflated REC_SRESULT (q, qn bytes), its regions restored in place:
 * q + its head, or NULL when the table does not describe regions inside the payload, in order
 * and apart (*nomem set when memory ran out). */
static unsigned char *restore_regions(ncp_resume *rs, unsigned char *q, size_t qn, size_t *rn,
                                      int *nomem)
{
    uint32_t nreg = 0;
    if (qn < sizeof nreg) return NULL;
    memcpy(&nreg, q, sizeof nreg);
    if (nreg > MAX_REGIONS || regions_head(nreg) > qn) return NULL;
    unsigned char *pay = q + regions_head(nreg);
    size_t pn = qn - regions_head(nreg), end = 0;
    for (uint32_t k = 0; k < nreg; k++) {
        region g;
        memcpy(&g.off, q + 4 + 12 * k, 4);
        memcpy(&g.rows, q + 8 + 12 * k, 4);
        memcpy(&g.cols, q + 12 + 12 * k, 4);
        uint64_t len = (uint64_t)g.rows * g.cols * sizeof(double);
        if (g.off % 8 || g.off < end || g.off > pn || len > pn - g.off) return NULL;
        if (!work_room(rs, (size_t)len)) {
            *nomem = 1;
            return NULL;
        }
        ncp_junshuffle(rs->work, pay + g.off, g.rows, g.cols);
        memcpy(pay + g.off, rs->work, (size_t)len);
        end = g.off + (size_t)len;
    }
    *rn = pn;
    return pay;
}

/* The result payload (REC_RESULT first) of a result record: p itself, or p inflated into
 * rs->raw (8-byte aligned, as the payload's arrays need) and its regions restored. NULL when a
 * compressed record does not inflate to the length it declares or its regions are not the
 * payload's (checksummed, so not ours: the pair is solved again), with *nomem set when memory
 * ran out instead. */
static const unsigned char *unpack(ncp_resume *rs, const unsigned char *p, size_t n, size_t *rn,
                                   int *nomem)
{
    int32_t kind = 0;
    uint32_t raw = 0;
    *nomem = 0;
    if (n >= sizeof kind) memcpy(&kind, p, sizeof kind);
    if (kind != REC_ZRESULT && kind != REC_SRESULT) {
        *rn = n;
        return p;
    }
    if (n < 8) return NULL;
    memcpy(&raw, p + 4, sizeof raw);
    if (raw < sizeof kind || raw > MAX_RESULT) return NULL;
    if (raw > rs->rawcap) {
        unsigned char *b = realloc(rs->raw, raw);
        if (!b) {
            *nomem = 1;
            return NULL;
        }
        rs->raw = b;
        rs->rawcap = raw;
    }
    uLongf got = raw;
    int zr = uncompress(rs->raw, &got, p + 8, (uLong)(n - 8));
    if (zr == Z_MEM_ERROR) *nomem = 1;
    if (zr != Z_OK || got != raw) return NULL;
    if (kind == REC_SRESULT) return restore_regions(rs, rs->raw, raw, rn, nomem);
    *rn = raw;
    return rs->raw;
}

/* A record read when the journal opens: the configuration first, then results. */
static int on_record(void *ctx, long long off, const unsigned char *p, size_t n, ncp_error *err)
{
    ncp_resume *rs = ctx;
    ncp_jreader r = {p, n, 0, 0};
    int type = ncp_jr_i32(&r);
    if (type == REC_CONFIG) {
        const char *rec = ncp_jr_str(&r);
        if (r.bad) return NCP_OK;
        /* the latest counts: grade --into records the run's configuration with its graded
         * solver added (ncpbench before that read the first only) */
        char *t = ncp_strdup(err, rec);
        if (!t) return NCP_ERR_NOMEM;
        free(rs->recorded);
        rs->recorded = t;
        rs->have_config = 1;
        return NCP_OK;
    }
    if ((type != REC_RESULT && type != REC_ZRESULT && type != REC_SRESULT) || !rs->have_config)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: a record of an unknown kind at byte %lld "
                             "(another program's file?); add --fresh to discard the results "
                             "in %s", ncp_journal_path(rs->j), off, rs->dir);
    if (type == REC_ZRESULT || type == REC_SRESULT) {
        size_t rn;
        int nomem;
        const unsigned char *q = unpack(rs, p, n, &rn, &nomem);
        if (nomem) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory reading %s",
                                        ncp_journal_path(rs->j));
        if (!q) return NCP_OK; /* checksummed but not ours to read: solved again */
        r = (ncp_jreader){q, rn, 0, 0};
        if (ncp_jr_i32(&r) != REC_RESULT) return NCP_OK;
    }
    const char *problem = ncp_jr_str(&r), *solver = ncp_jr_str(&r);
    ncp_jr_i32(&r);
    ncp_jr_i32(&r);
    int status = ncp_jr_i32(&r);
    if (r.bad) return NCP_OK; /* checksummed but not ours to read: solved again */
    entry *e = index_pair(rs, problem, solver, err);
    if (!e) return NCP_ERR_NOMEM;
    e->off = off;
    e->status = status;
    return NCP_OK;
}

/* Outputs of the folder, removed by --fresh (figures are redrawn by the run). */
static const char *const OUTPUTS[] = {NCP_JOURNAL_NAME, "config.json", "metrics.csv",
                                      "summary.json", "solutions.h5", "traces.h5", "traces.csv"};
/* Files of the design before the journal, left by an interrupted run. */
static const char *const LEFTOVERS[] = {"metrics.csv.prev", "traces.csv.prev",
                                        "metrics.csv.prev.new"};

static int starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

static void remove_in(const char *dir, const char *const *names, size_t n)
{
    char path[4300];
    for (size_t i = 0; i < n; i++)
        if (!ncp_path_join(path, sizeof path, dir, names[i], NULL)) unlink(path);
}

static void remove_leftovers(const char *dir)
{
    remove_in(dir, LEFTOVERS, sizeof LEFTOVERS / sizeof LEFTOVERS[0]);
    /* earlier files moved aside by that design: solutions.h5.prev-<n>, traces.h5.prev-<n> */
    char path[4300];
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if ((starts(e->d_name, "solutions.h5.prev-") || starts(e->d_name, "traces.h5.prev-")) &&
            !ncp_path_join(path, sizeof path, dir, e->d_name, NULL))
            unlink(path);
    if (d) closedir(d);
}

/* 1: dir/name exists (a link counts); 2: it is a regular file. */
static int exists_nofollow(const char *dir, const char *name)
{
    char path[4300];
    struct stat st;
    if (ncp_path_join(path, sizeof path, dir, name, NULL) || lstat(path, &st) != 0) return 0;
    return S_ISREG(st.st_mode) ? 2 : 1;
}

int ncp_resume_open(const char *dir, const char *config, int fresh, ncp_resume **out,
                    ncp_error *err)
{
    *out = NULL;
    char jpath[4300], cpath[4300];
    int rc;
    if ((rc = ncp_path_join(jpath, sizeof jpath, dir, NCP_JOURNAL_NAME, err)) ||
        (rc = ncp_path_join(cpath, sizeof cpath, dir, "config.json", err)))
        return rc;
    if (fresh) remove_in(dir, OUTPUTS, sizeof OUTPUTS / sizeof OUTPUTS[0]);
    int have = exists_nofollow(dir, NCP_JOURNAL_NAME);
    /* results of an ncpbench before the journal (a link planted there is no result of ours:
     * it is replaced, not followed, when the outputs are written) */
    if (!have && (exists_nofollow(dir, "metrics.csv") == 2 ||
                  exists_nofollow(dir, "metrics.csv.prev") == 2))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s holds results without a journal (no %s: "
                             "written by an ncpbench before journals, or by hand); they are not "
                             "imported: add --fresh to discard them, or choose another --out",
                             dir, NCP_JOURNAL_NAME);
    remove_leftovers(dir);
    ncp_safe_clean_stale(dir);
    ncp_resume *rs = ncp_calloc(err, 1, sizeof *rs);
    if (!rs) return NCP_ERR_NOMEM;
    rs->config = config;
    long long dropped = 0;
    if (!(rs->dir = ncp_strdup(err, dir))) rc = NCP_ERR_NOMEM;
    else rc = ncp_journal_open(jpath, !have, have ? on_record : NULL, rs, &rs->j, &dropped, err);
    char *rec = rc ? NULL : config_record(config, err);
    if (!rc && !rec) rc = NCP_ERR_NOMEM;
    if (!rc && dropped)
        fprintf(stderr, "ncpbench: %s: the last %lld bytes are not a complete record (a run "
                "killed while writing, or a damaged file): ignored, their pairs are solved "
                "again\n", jpath, dropped);
    int adds = 0;
    if (!rc && rs->recorded) rc = check_config(dir, rs->recorded, config, &adds, err);
    /* a new journal (or one killed before its first record), or a configuration that grows
     * (grade --into): recorded, and from then on the one of the folder */
    if (!rc && (!rs->recorded || adds)) {
        ncp_jbuf b = {0};
        ncp_jbuf_i32(&b, REC_CONFIG);
        ncp_jbuf_str(&b, rec);
        rc = b.oom ? ncp_error_set(err, NCP_ERR_NOMEM, "out of memory")
                   : ncp_journal_append(rs->j, b.p, b.n, NULL, err);
        if (!rc) rc = ncp_journal_sync(rs->j, err);
        free(b.p);
        rs->have_config = 1;
        if (!rc) {
            free(rs->recorded);
            rs->recorded = rec;
            rec = NULL;
        }
    }
    if (!rc) rc = read_graded(rs, rs->recorded, err);
    /* the readable copy of the journal's configuration (a run of a subset of its solvers
     * leaves it as it was); the journal's record is the one that counts */
    if (!rc) rc = ncp_safe_write_text(cpath, rs->recorded, err);
    free(rec);
    if (rc) {
        ncp_resume_close(rs);
        return rc;
    }
    for (int i = 0; i < rs->n; i++) rs->earlier += rs->e[i].status != NCP_STATUS_STOPPED;
    *out = rs;
    return NCP_OK;
}

long long ncp_resume_find(ncp_resume *rs, const char *problem, const char *solver)
{
    if (!rs || !rs->nslot) return -1;
    int k = *lookup(rs, problem, solver);
    /* a solve cut by Ctrl-C did not finish: solved again */
    return k >= 0 && rs->e[k].status != NCP_STATUS_STOPPED ? rs->e[k].off : -1;
}

int ncp_resume_mark(ncp_resume *rs, const char *problem, const char *solver)
{
    if (!rs->nslot) return 0;
    int k = *lookup(rs, problem, solver);
    if (k < 0) return 0;
    int was = rs->e[k].placed;
    rs->e[k].placed = 1;
    return was;
}

/* The array of rows x cols doubles just appended to b, as a region to rearrange. */
static void add_region(const ncp_jbuf *b, region *reg, uint32_t *nreg, int rows, int cols)
{
    if (b->oom || rows <= 0 || cols <= 0 || *nreg >= MAX_REGIONS) return;
    size_t len = (size_t)rows * (size_t)cols * sizeof(double);
    reg[(*nreg)++] = (region){(uint32_t)(b->n - len), (uint32_t)rows, (uint32_t)cols};
}

/* The bytes a REC_SRESULT inflates to (regions_head): in rs->work, *n long; 0 without memory. */
static int rearrange(ncp_resume *rs, const ncp_jbuf *b, const region *reg, uint32_t nreg,
                     size_t *n)
{
    size_t h = regions_head(nreg);
    if (!work_room(rs, h + b->n)) return 0;
    unsigned char *w = rs->work;
    memset(w, 0, h);
    memcpy(w, &nreg, sizeof nreg);
    for (uint32_t k = 0; k < nreg; k++) {
        memcpy(w + 4 + 12 * k, &reg[k].off, 4);
        memcpy(w + 8 + 12 * k, &reg[k].rows, 4);
        memcpy(w + 12 + 12 * k, &reg[k].cols, 4);
    }
    /* the bytes between the regions as they are, each region shuffled into its place */
    size_t at = 0;
    for (uint32_t k = 0; k <= nreg; k++) {
        size_t to = k < nreg ? reg[k].off : b->n;
        memcpy(w + h + at, b->p + at, to - at);
        if (k == nreg) break;
        ncp_jshuffle(w + h + to, b->p + to, reg[k].rows, reg[k].cols);
        at = to + (size_t)reg[k].rows * reg[k].cols * sizeof(double);
    }
    *n = h + b->n;
    return 1;
}

int ncp_resume_append(ncp_resume *rs, const ncp_jresult *r, long long *off, ncp_error *err)
{
    ncp_jbuf *b = &rs->buf;
    region reg[MAX_REGIONS];
    uint32_t nreg = 0;
    b->n = 0;
    ncp_jbuf_i32(b, REC_RESULT);
    ncp_jbuf_str(b, r->problem);
    ncp_jbuf_str(b, r->solver);
    ncp_jbuf_i32(b, r->iterations);
    ncp_jbuf_i32(b, r->converged);
    ncp_jbuf_i32(b, r->status);
    ncp_jbuf_f64(b, r->setup_ms);
    ncp_jbuf_f64(b, r->solve_ms);
    ncp_jbuf_f64s(b, r->metrics, r->nmetrics);
    ncp_jbuf_str(b, r->note);
    ncp_jbuf_str(b, r->title);
    ncp_jbuf_str(b, r->description);
    ncp_jbuf_i32(b, r->has_answer);
    ncp_jbuf_f64s(b, r->has_answer ? r->lambda : NULL, r->has_answer ? r->m : 0);
    ncp_jbuf_f64s(b, r->has_answer ? r->u : NULL, r->has_answer ? r->m : 0);
    add_region(b, reg, &nreg, r->has_answer ? r->m : 0, 1);
    ncp_jbuf_f64s(b, r->has_answer ? r->v : NULL, r->has_answer ? r->nv : 0);
    add_region(b, reg, &nreg, r->has_answer ? r->nv : 0, 1);
    ncp_jbuf_i32(b, r->ncols);
    ncp_jbuf_f64s(b, r->trace, r->ntrace * r->ncols);
    add_region(b, reg, &nreg, r->ntrace, r->ncols);
    /* since the CPU clock and --repeat; absent from older records */
    ncp_jbuf_f64(b, r->wall_ms);
    ncp_jbuf_f64(b, r->time_min_ms);
    ncp_jbuf_f64(b, r->time_max_ms);
    /* since solutions.h5 keeps the solver's own velocity apart; absent from older records */
    ncp_jbuf_f64s(b, r->has_answer ? r->solver_v : NULL, r->has_answer ? r->nsv : 0);
    add_region(b, reg, &nreg, r->has_answer ? r->nsv : 0, 1);
    if (b->oom) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory journaling a result");
    /* compressed (REC_SRESULT) when that is smaller; a compressor without memory stores the
     * payload as it is */
    const void *rec = b->p;
    size_t nrec = b->n, tn = 0;
    int ready = b->n <= MAX_RESULT && rearrange(rs, b, reg, nreg, &tn) && tn <= MAX_RESULT;
    uLong bound = compressBound((uLong)tn);
    if (8 + (size_t)bound > rs->zcap) {
        unsigned char *z = realloc(rs->z, 8 + (size_t)bound);
        if (z) {
            rs->z = z;
            rs->zcap = 8 + (size_t)bound;
        }
    }
    if (!rs->zs_ready)
        rs->zs_ready = deflateInit2(&rs->zs, ZLEVEL, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY) == Z_OK;
    int zok = 0;
    if (ready && rs->zs_ready && 8 + (size_t)bound <= rs->zcap &&
        deflateReset(&rs->zs) == Z_OK) {
        /* one call with room for deflateBound's worst case: the whole zlib stream, as
         * compress2 writes it */
        rs->zs.next_in = rs->work;
        rs->zs.avail_in = (uInt)tn;
        rs->zs.next_out = rs->z + 8;
        rs->zs.avail_out = (uInt)bound;
        zok = deflate(&rs->zs, Z_FINISH) == Z_STREAM_END;
    }
    uLong zn = zok ? rs->zs.total_out : 0;
    if (zok && 8 + zn < b->n) {
        int32_t kind = REC_SRESULT;
        uint32_t raw = (uint32_t)tn;
        memcpy(rs->z, &kind, sizeof kind);
        memcpy(rs->z + 4, &raw, sizeof raw);
        rec = rs->z;
        nrec = 8 + zn;
    }
    long long at;
    int rc = ncp_journal_append(rs->j, rec, nrec, &at, err);
    if (rc) return rc;
    entry *e = index_pair(rs, r->problem, r->solver, err);
    if (!e) return NCP_ERR_NOMEM;
    e->off = at;
    e->status = r->status;
    e->placed = 1;
    if (off) *off = at;
    return NCP_OK;
}

int ncp_resume_read(ncp_resume *rs, long long off, ncp_jresult *r, ncp_error *err)
{
    const unsigned char *p;
    size_t n;
    int rc = ncp_journal_read(rs->j, off, &p, &n, err), nomem;
    if (rc) return rc;
    size_t rn = 0;
    const unsigned char *raw = unpack(rs, p, n, &rn, &nomem);
    if (nomem) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory reading %s",
                                    ncp_journal_path(rs->j));
    ncp_jreader q = {raw, raw ? rn : 0, 0, !raw};
    memset(r, 0, sizeof *r);
    int type = ncp_jr_i32(&q), nl, nu, nt;
    r->problem = ncp_jr_str(&q);
    r->solver = ncp_jr_str(&q);
    r->iterations = ncp_jr_i32(&q);
    r->converged = ncp_jr_i32(&q);
    r->status = ncp_jr_i32(&q);
    r->setup_ms = ncp_jr_f64(&q);
    r->solve_ms = ncp_jr_f64(&q);
    r->metrics = ncp_jr_f64s(&q, &r->nmetrics);
    r->note = ncp_jr_str(&q);
    r->title = ncp_jr_str(&q);
    r->description = ncp_jr_str(&q);
    r->has_answer = ncp_jr_i32(&q);
    r->lambda = ncp_jr_f64s(&q, &nl);
    r->u = ncp_jr_f64s(&q, &nu);
    r->v = ncp_jr_f64s(&q, &r->nv);
    r->ncols = ncp_jr_i32(&q);
    r->trace = ncp_jr_f64s(&q, &nt);
    /* wall_ms, time_min_ms and time_max_ms end the records written since the CPU clock became
     * the default; an older record ends before them (its row's wall_ms is nan, its min and
     * max its time) */
    int newer = !q.bad && q.n - q.at >= 3 * sizeof(double);
    r->wall_ms = newer ? ncp_jr_f64(&q) : NAN;
    r->time_min_ms = newer ? ncp_jr_f64(&q) : r->setup_ms + r->solve_ms;
    r->time_max_ms = newer ? ncp_jr_f64(&q) : r->setup_ms + r->solve_ms;
    /* the solver's own velocity (an empty array when it has none) ends the records written
     * since; an older record's v is the solver's own if it had one, and stays as it was */
    if (newer && !q.bad && q.n - q.at >= sizeof(int32_t)) r->solver_v = ncp_jr_f64s(&q, &r->nsv);
    r->m = nl;
    r->ntrace = r->ncols > 0 ? nt / r->ncols : 0;
    if (q.bad || type != REC_RESULT || nl != nu || r->nmetrics != ncp_metrics_count() ||
        (r->ncols > 0 && nt % r->ncols))
        return ncp_error_set(err, NCP_ERR_IO, "%s: the record at byte %lld is not a result "
                             "of this ncpbench; add --fresh to discard the results in %s",
                             ncp_journal_path(rs->j), off, rs->dir);
    return NCP_OK;
}

int ncp_resume_count(const ncp_resume *rs) { return rs ? rs->n : 0; }

long long ncp_resume_at(const ncp_resume *rs, int i, int *placed)
{
    *placed = rs->e[i].placed;
    return rs->e[i].off;
}

const char *ncp_resume_solver_at(const ncp_resume *rs, int i) { return rs->e[i].solver; }

int ncp_resume_graded_count(const ncp_resume *rs) { return rs ? rs->ngraded : 0; }

const char *ncp_resume_graded_at(const ncp_resume *rs, int i) { return rs->graded[i]; }

/* The latest configuration record of a journal being read (ncp_resume_recorded). */
static int take_config(void *ctx, long long off, const unsigned char *p, size_t n, ncp_error *err)
{
    (void)off;
    char **out = ctx;
    ncp_jreader r = {p, n, 0, 0};
    if (ncp_jr_i32(&r) != REC_CONFIG) return NCP_OK;
    const char *rec = ncp_jr_str(&r);
    if (r.bad) return NCP_OK;
    cJSON *root = cJSON_Parse(rec);
    char *t = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(root, "config"));
    cJSON_Delete(root);
    if (!t) return NCP_OK; /* not a configuration: the caller finds none */
    free(*out);
    *out = t;
    (void)err;
    return NCP_OK;
}

int ncp_resume_recorded(const char *dir, char **config, ncp_error *err)
{
    *config = NULL;
    char jpath[4300];
    int rc = ncp_path_join(jpath, sizeof jpath, dir, NCP_JOURNAL_NAME, err);
    if (rc) return rc;
    if (exists_nofollow(dir, NCP_JOURNAL_NAME) != 2)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s holds no run's results (no %s)", dir,
                             NCP_JOURNAL_NAME);
    ncp_journal *j = NULL;
    rc = ncp_journal_open(jpath, 0, take_config, config, &j, NULL, err);
    ncp_error e2 = {0};
    ncp_journal_close(j, &e2);
    if (!rc && !*config)
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: no configuration record (not a run's "
                           "journal?)", jpath);
    if (rc) {
        free(*config);
        *config = NULL;
    }
    return rc;
}

int ncp_resume_earlier(const ncp_resume *rs) { return rs ? rs->earlier : 0; }

int ncp_resume_sync(ncp_resume *rs, ncp_error *err) { return ncp_journal_sync(rs->j, err); }

void ncp_resume_close(ncp_resume *rs)
{
    if (!rs) return;
    ncp_error e2 = {0};
    ncp_journal_close(rs->j, &e2);
    for (int i = 0; i < rs->n; i++) {
        free(rs->e[i].problem);
        free(rs->e[i].solver);
    }
    free(rs->e);
    free(rs->slot);
    free(rs->dir);
    free(rs->recorded);
    for (int i = 0; i < rs->ngraded; i++) free(rs->graded[i]);
    free(rs->graded);
    free(rs->buf.p);
    free(rs->z);
    free(rs->work);
    free(rs->raw);
    if (rs->zs_ready) deflateEnd(&rs->zs);
    free(rs);
}
