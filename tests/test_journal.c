/* bench/journal.h and util/safefile.h: the CRC-32 against the standard check value, records
 * round-trip bit for bit, a torn last record is ignored and cut off, a corrupted record in the
 * middle ends the journal (it and every record after it are not trusted: dropped, so that their
 * pairs are solved again), fsync batching is not observable by a reader, links are refused or
 * replaced, never followed. Byte shuffling (ncp_jshuffle) puts each byte where HDF5's shuffle
 * filter does and is undone bit for bit through zlib, NaN payloads, infinities, subnormals and odd
 * lengths included. Results (bench/resume.h) are stored compressed, their arrays shuffled, when
 * that is smaller and read back bit for bit, beside uncompressed ones and ones compressed
 * unshuffled (earlier journals); a compressed record that does not inflate to its declared length,
 * or whose shuffled regions are not inside its payload, is skipped (its pair solved again). */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "tcheck.h"
#include "bench/journal.h"
#include "bench/resume.h"
#include "store/traces.h"
#include "util/safefile.h"

static char dir[] = "/tmp/ncp_test_journal_XXXXXX";
static char jpath[256];

/* What the reading callback saw. */
typedef struct seen {
    int n;
    long long off[256];
    int32_t id[256];
    double x[256];
    char s[256][32];
    int na[256];
    double a0[256], alast[256];
} seen;

static int collect(void *ctx, long long off, const unsigned char *p, size_t n, ncp_error *err)
{
    (void)err;
    seen *s = ctx;
    ncp_jreader r = {p, n, 0, 0};
    int k = s->n++;
    s->off[k] = off;
    s->id[k] = ncp_jr_i32(&r);
    s->x[k] = ncp_jr_f64(&r);
    snprintf(s->s[k], sizeof s->s[k], "%s", ncp_jr_str(&r));
    const double *a = ncp_jr_f64s(&r, &s->na[k]);
    s->a0[k] = s->na[k] ? a[0] : NAN;
    s->alast[k] = s->na[k] ? a[s->na[k] - 1] : NAN;
    CHECK(!r.bad);
    CHECK(r.at == r.n);
    return NCP_OK;
}

/* Record k: id k, x = k / 3, "rec<k>", k + 1 values 0.1 k + i. */
static int put(ncp_journal *j, int k, long long *off)
{
    ncp_jbuf b = {0};
    double a[64];
    for (int i = 0; i <= k && i < 64; i++) a[i] = 0.1 * k + i;
    char s[32];
    snprintf(s, sizeof s, "rec%d", k);
    ncp_jbuf_i32(&b, k);
    ncp_jbuf_f64(&b, k / 3.0);
    ncp_jbuf_str(&b, s);
    ncp_jbuf_f64s(&b, a, k + 1 < 64 ? k + 1 : 64);
    ncp_error e = {0};
    int rc = b.oom ? NCP_ERR_NOMEM : ncp_journal_append(j, b.p, b.n, off, &e);
    free(b.p);
    return rc;
}

static long long file_size(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? (long long)st.st_size : -1;
}

static int reopen(seen *s, long long *dropped)
{
    memset(s, 0, sizeof *s);
    ncp_journal *j = NULL;
    ncp_error e = {0};
    int rc = ncp_journal_open(jpath, 0, collect, s, &j, dropped, &e);
    ncp_journal_close(j, &e);
    return rc;
}

static void test_crc(void)
{
    /* the CRC-32 check value of "123456789" (IEEE 802.3; zlib.crc32 gives the same) */
    CHECK(ncp_crc32("123456789", 9) == 0xCBF43926u);
    CHECK(ncp_crc32("", 0) == 0u);
}

static void test_roundtrip(void)
{
    ncp_journal *j = NULL;
    ncp_error e = {0};
    long long off[3];
    unlink(jpath);
    CHECK_OK(ncp_journal_open(jpath, 1, NULL, NULL, &j, NULL, &e), &e);
    for (int k = 0; k < 3; k++) CHECK(put(j, k, &off[k]) == NCP_OK);
    /* read back by offset while open */
    const unsigned char *p;
    size_t n;
    CHECK_OK(ncp_journal_read(j, off[1], &p, &n, &e), &e);
    ncp_jreader r = {p, n, 0, 0};
    CHECK(ncp_jr_i32(&r) == 1);
    CHECK(ncp_jr_f64(&r) == 1 / 3.0);
    CHECK(!strcmp(ncp_jr_str(&r), "rec1"));
    int na;
    const double *a = ncp_jr_f64s(&r, &na);
    CHECK(na == 2 && a && a[0] == 0.1 && a[1] == 1.1);
    /* reading past the end is flagged, not a crash */
    ncp_jr_i32(&r);
    CHECK(r.bad);
    /* a creation refuses an existing file */
    ncp_journal *j2 = NULL;
    ncp_error e2 = {0};
    CHECK(ncp_journal_open(jpath, 1, NULL, NULL, &j2, NULL, &e2) == NCP_ERR_IO);
    CHECK_OK(ncp_journal_close(j, &e), &e);

    seen s;
    long long dropped = -1;
    CHECK_OK(reopen(&s, &dropped), &e);
    CHECK(s.n == 3 && dropped == 0);
    for (int k = 0; k < 3 && s.n == 3; k++) {
        CHECK(s.off[k] == off[k]);
        CHECK(s.id[k] == k && s.x[k] == k / 3.0 && s.na[k] == k + 1);
        CHECK(s.a0[k] == 0.1 * k && s.alast[k] == 0.1 * k + k);
        char want[32];
        snprintf(want, sizeof want, "rec%d", k);
        CHECK(!strcmp(s.s[k], want));
    }
}

static void test_torn_tail(void)
{
    seen s;
    long long dropped = -1, size = file_size(jpath);
    /* SIGKILL in the middle of the last record: 5 bytes of it missing */
    CHECK(truncate(jpath, size - 5) == 0);
    CHECK(reopen(&s, &dropped) == NCP_OK);
    CHECK(s.n == 2);
    /* the torn record is cut off: the file ends after record 1 */
    long long end = file_size(jpath);
    CHECK(dropped == (size - 5) - end);
    CHECK(end < size - 5);
    /* appending continues after the last good record */
    ncp_journal *j = NULL;
    ncp_error e = {0};
    CHECK_OK(ncp_journal_open(jpath, 0, NULL, NULL, &j, NULL, &e), &e);
    long long off = -1;
    CHECK(put(j, 7, &off) == NCP_OK);
    CHECK(off == end);
    ncp_journal_close(j, &e);
    CHECK(reopen(&s, &dropped) == NCP_OK);
    CHECK(s.n == 3 && dropped == 0 && s.id[2] == 7);
    /* a length alone (3 bytes of a header) is torn too */
    int fd = open(jpath, O_WRONLY | O_APPEND);
    CHECK(fd >= 0 && write(fd, "\x10\x00\x00", 3) == 3);
    close(fd);
    CHECK(reopen(&s, &dropped) == NCP_OK);
    CHECK(s.n == 3 && dropped == 3);
}

static void test_corrupt_middle(void)
{
    seen s;
    long long dropped = -1;
    CHECK(reopen(&s, &dropped) == NCP_OK && s.n == 3);
    long long size = file_size(jpath), off1 = s.off[1], at = off1 + 8 + 2; /* record 1's payload */
    int fd = open(jpath, O_RDWR);
    unsigned char ch = 0;
    CHECK(fd >= 0 && pread(fd, &ch, 1, at) == 1);
    ch ^= 0x40;
    CHECK(pwrite(fd, &ch, 1, at) == 1);
    close(fd);
    /* record 0 stays; record 1 fails its checksum: it and record 2 (intact, but after a damage
     * nothing proves it belongs to this journal's sequence) are dropped */
    CHECK(reopen(&s, &dropped) == NCP_OK);
    CHECK(s.n == 1 && s.id[0] == 0);
    CHECK(file_size(jpath) == off1);
    CHECK(dropped == size - off1);
}

static void test_batching(void)
{
    /* more records than one fsync batch, no explicit sync: a reader opening the file while
     * the writer is still open sees every record (batching delays fsync, never the write) */
    ncp_journal *j = NULL;
    ncp_error e = {0};
    unlink(jpath);
    CHECK_OK(ncp_journal_open(jpath, 1, NULL, NULL, &j, NULL, &e), &e);
    int n = 2 * NCP_JOURNAL_SYNC_EVERY + 3;
    for (int k = 0; k < n; k++) CHECK(put(j, k % 50, NULL) == NCP_OK);
    seen s;
    long long dropped = -1;
    CHECK(reopen(&s, &dropped) == NCP_OK);
    CHECK(s.n == n && dropped == 0);
    CHECK(s.id[n - 1] == (n - 1) % 50);
    CHECK_OK(ncp_journal_close(j, &e), &e);
}

static void test_links(void)
{
    char target[300], link[300];
    snprintf(target, sizeof target, "%s/outside.txt", dir);
    snprintf(link, sizeof link, "%s/out.csv", dir);
    FILE *f = fopen(target, "w");
    CHECK(f && fputs("precious\n", f) >= 0);
    if (f) fclose(f);
    /* a journal that is a link is refused */
    char jl[300];
    snprintf(jl, sizeof jl, "%s/link.ncpj", dir);
    CHECK(symlink(target, jl) == 0);
    ncp_journal *j = NULL;
    ncp_error e = {0};
    CHECK(ncp_journal_open(jl, 0, NULL, NULL, &j, NULL, &e) == NCP_ERR_IO);
    CHECK(strstr(e.msg, "link") != NULL);
    /* an output planted as a link is replaced, its target untouched */
    CHECK(symlink(target, link) == 0);
    CHECK_OK(ncp_safe_write_text(link, "new\n", &e), &e);
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISREG(st.st_mode));
    CHECK(file_size(target) == 9);
    /* the stream form, and appending through a link refused */
    unlink(link);
    CHECK(symlink(target, link) == 0);
    f = ncp_safe_fopen(link, &e);
    CHECK(f && fputs("x\n", f) >= 0 && fclose(f) == 0);
    CHECK(lstat(link, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 2);
    unlink(link);
    CHECK(symlink(target, link) == 0);
    CHECK(ncp_safe_fappend(link, &e) == NULL);
    CHECK(file_size(target) == 9);
    /* a stale temporary (no such process) is removed, ours is not */
    char stale[300], mine[300];
    snprintf(stale, sizeof stale, "%s/x.h5.tmp-999999999", dir);
    snprintf(mine, sizeof mine, "%s/x.h5.tmp-%ld-00ff", dir, (long)getpid());
    fclose(fopen(stale, "w"));
    fclose(fopen(mine, "w"));
    CHECK(ncp_safe_clean_stale(dir) == 1);
    CHECK(access(stale, F_OK) != 0 && access(mine, F_OK) == 0);
    unlink(mine);
    unlink(link);
    unlink(jl);
    unlink(target);
}

static void test_not_journal(void)
{
    /* killed while it was created: nothing, or the start of the magic, is an empty journal */
    for (int len = 0; len < 8; len += 3) {
        FILE *g = fopen(jpath, "w");
        CHECK(g && fwrite(NCP_JOURNAL_MAGIC, 1, (size_t)len, g) == (size_t)len);
        if (g) fclose(g);
        seen s;
        long long dropped = -1;
        CHECK(reopen(&s, &dropped) == NCP_OK);
        CHECK(s.n == 0 && dropped == 0 && file_size(jpath) == 8);
    }
    FILE *f = fopen(jpath, "w");
    CHECK(f && fputs("problem,solver\n", f) >= 0);
    if (f) fclose(f);
    ncp_journal *j = NULL;
    ncp_error e = {0};
    CHECK(ncp_journal_open(jpath, 0, NULL, NULL, &j, NULL, &e) == NCP_ERR_INPUT);
    CHECK(file_size(jpath) == 15); /* untouched */
    unlink(jpath);
}

/* The kinds of a journal's records (first 4 bytes) and their stored lengths. */
typedef struct kinds {
    int n;
    int32_t kind[16];
    size_t len[16];
    uint32_t raw[16]; /* the declared raw length of a compressed result */
} kinds;

/* Doubles whose bytes stress a byte transposition: NaNs with payloads and sign, infinities,
 * zeros of both signs, subnormals, extremes, and pseudo-random bit patterns. */
static void special_doubles(double *x, int n, uint64_t st)
{
    static const uint64_t fixed[] = {
        0x7ff8000000000001ull, /* quiet NaN with a payload */
        0xfff4000000abcdefull, /* signalling NaN bits, negative */
        0x7ff0000000000000ull, 0xfff0000000000000ull, /* +-inf */
        0x0000000000000000ull, 0x8000000000000000ull, /* +-0 */
        0x0000000000000001ull, 0x800fffffffffffffull, /* subnormals: the least, -the greatest */
        0x0010000000000000ull, 0x7fefffffffffffffull, /* least normal, DBL_MAX */
    };
    enum { NF = sizeof fixed / sizeof fixed[0] };
    for (int i = 0; i < n; i++) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t bits = i < NF ? fixed[i] : i % 3 ? st : (st >> 20) | 0x3f00000000000000ull;
        memcpy(&x[i], &bits, sizeof bits);
    }
}

/* ncp_jshuffle against the layout written by hand, then through zlib and back for shapes of
 * odd lengths: every byte as it was. */
static void test_shuffle(void)
{
    /* 2 rows x 2 columns, value k's byte b = 16 k + b: column 0 (values 0 and 2) byte planes
     * first, then column 1 (values 1 and 3) */
    unsigned char in[32], out[32], back[32];
    for (int k = 0; k < 4; k++)
        for (int b = 0; b < 8; b++) in[8 * k + b] = (unsigned char)(16 * k + b);
    ncp_jshuffle(out, in, 2, 2);
    int ok = 1;
    for (int b = 0; b < 8; b++) {
        ok &= out[2 * b] == 0x00 + b && out[2 * b + 1] == 0x20 + b;
        ok &= out[16 + 2 * b] == 0x10 + b && out[16 + 2 * b + 1] == 0x30 + b;
    }
    CHECK(ok);
    ncp_junshuffle(back, out, 2, 2);
    CHECK(!memcmp(back, in, sizeof in));

    static const int shapes[][2] = {{1, 1}, {2, 1}, {3, 1}, {7, 1}, {301, 1}, {1, 17},
                                    {3, 17}, {41, 17}, {5, 3}, {1000, 1}, {0, 17}, {17, 0}};
    enum { MAXN = 1000 };
    double *x = malloc(MAXN * sizeof *x), *y = malloc(MAXN * sizeof *y);
    unsigned char *sh = malloc(MAXN * sizeof *x), *z = malloc(compressBound(MAXN * 8));
    CHECK(x && y && sh && z);
    if (!x || !y || !sh || !z) goto done;
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        size_t rows = (size_t)shapes[t][0], cols = (size_t)shapes[t][1], n = rows * cols;
        special_doubles(x, (int)n, 99 + t);
        ncp_jshuffle(sh, (const unsigned char *)x, rows, cols);
        /* every byte k of value (r, c) at plane (c, k), position r */
        int at = 1;
        for (size_t r = 0; r < rows; r++)
            for (size_t c = 0; c < cols; c++)
                for (size_t k = 0; k < 8; k++)
                    at &= sh[(c * 8 + k) * rows + r] == ((unsigned char *)x)[(r * cols + c) * 8 + k];
        CHECK(at);
        uLongf zn = compressBound(MAXN * 8), yn = (uLongf)(n * 8);
        CHECK(compress2(z, &zn, sh, (uLong)(n * 8), 1) == Z_OK);
        memset(sh, 0x5a, n * 8);
        CHECK(uncompress(sh, &yn, z, zn) == Z_OK && yn == n * 8);
        memset(y, 0xa5, n * 8);
        ncp_junshuffle((unsigned char *)y, sh, rows, cols);
        CHECK(!memcmp(x, y, n * 8));
    }
done:
    free(x);
    free(y);
    free(sh);
    free(z);
}

static int collect_kinds(void *ctx, long long off, const unsigned char *p, size_t n,
                         ncp_error *err)
{
    (void)off;
    (void)err;
    kinds *k = ctx;
    if (k->n < 16) {
        memcpy(&k->kind[k->n], p, sizeof(int32_t));
        k->len[k->n] = n;
        k->raw[k->n] = 0;
        if (n >= 8) memcpy(&k->raw[k->n], p + 4, sizeof(uint32_t));
        k->n++;
    }
    return NCP_OK;
}

static int same_doubles(const double *a, const double *b, int n)
{
    return n == 0 || (a && b && !memcmp(a, b, (size_t)n * sizeof *a));
}

/* A whole result payload in resume.c's layout (kind 'R', every field of the records of
 * c8c193b): m values of lambda and u, a trace of nt rows of nc columns, nsv values of the
 * solver's v (v itself empty); at[0], at[1]: the byte offsets of u and of the trace. */
static void result_payload(ncp_jbuf *b, const char *problem, const double *met, const double *lam,
                           const double *u, int m, const double *tr, int nt, int nc,
                           const double *sv, int nsv, uint32_t at[2])
{
    ncp_jbuf_i32(b, 'R');
    ncp_jbuf_str(b, problem);
    ncp_jbuf_str(b, "pgs");
    ncp_jbuf_i32(b, 11);
    ncp_jbuf_i32(b, 1);
    ncp_jbuf_i32(b, NCP_STATUS_CONVERGED);
    ncp_jbuf_f64(b, 0.75);
    ncp_jbuf_f64(b, 3.5);
    ncp_jbuf_f64s(b, met, ncp_metrics_count());
    ncp_jbuf_str(b, problem);
    ncp_jbuf_str(b, "");
    ncp_jbuf_str(b, "");
    ncp_jbuf_i32(b, 1);
    ncp_jbuf_f64s(b, lam, m);
    ncp_jbuf_f64s(b, u, m);
    at[0] = (uint32_t)(b->n - (size_t)m * 8);
    ncp_jbuf_f64s(b, NULL, 0);
    ncp_jbuf_i32(b, nc);
    ncp_jbuf_f64s(b, tr, nt * nc);
    at[1] = (uint32_t)(b->n - (size_t)nt * nc * 8);
    ncp_jbuf_f64(b, 4.25);
    ncp_jbuf_f64(b, 4.0);
    ncp_jbuf_f64(b, 4.5);
    ncp_jbuf_f64s(b, sv, nsv);
}

/* Appends payload p as a record of kind 'Z' (the writer of c8c193b: the kind, the length, p
 * compressed by zlib at level 1) or 'S' (resume.c's REC_SRESULT, built here from its
 * description: the region table, then p with each region (offset, rows, cols) byte-shuffled). */
static void put_compressed(ncp_journal *j, int kind, const ncp_jbuf *p, const uint32_t (*reg)[3],
                           uint32_t nreg)
{
    size_t h = kind == 'S' ? (4 + 12 * (size_t)nreg + 7) / 8 * 8 : 0, n = h + p->n;
    unsigned char *q = calloc(1, n), *z = malloc(8 + compressBound((uLong)n));
    CHECK(q && z);
    if (q && z) {
        memcpy(q + h, p->p, p->n);
        if (kind == 'S') {
            memcpy(q, &nreg, 4);
            for (uint32_t k = 0; k < nreg; k++) {
                memcpy(q + 4 + 12 * k, reg[k], 12);
                /* a region out of bounds stays as it is: the reader must refuse it */
                if ((size_t)reg[k][0] + (size_t)reg[k][1] * reg[k][2] * 8 <= p->n)
                    ncp_jshuffle(q + h + reg[k][0], p->p + reg[k][0], reg[k][1], reg[k][2]);
            }
        }
        uLongf zn = compressBound((uLong)n);
        CHECK(compress2(z + 8, &zn, q, (uLong)n, 1) == Z_OK);
        int32_t k32 = kind;
        uint32_t raw = (uint32_t)n;
        memcpy(z, &k32, 4);
        memcpy(z + 4, &raw, 4);
        ncp_error e = {0};
        CHECK_OK(ncp_journal_append(j, z, 8 + zn, NULL, &e), &e);
    }
    free(q);
    free(z);
}

static void test_compressed_results(void)
{
    char rdir[300], rj[400];
    snprintf(rdir, sizeof rdir, "%s/results", dir);
    snprintf(rj, sizeof rj, "%s/%s", rdir, NCP_JOURNAL_NAME);
    CHECK(mkdir(rdir, 0700) == 0);
    const char *config = "{\"solvers\":[\"pgs\"]}";
    /* odd lengths: m, nv, the trace's rows, the solver's v */
    enum { M = 301, NV = 5, NT = 41, NSV = 3 };
    const int nc = NCP_TRACE_FIXED + ncp_metrics_count();
    double lam[M], u[M], v[NV], sv[NSV], met[64], *tr = malloc((size_t)NT * nc * sizeof *tr);
    CHECK(tr != NULL && ncp_metrics_count() <= 64);
    if (!tr) return;
    /* lambda mostly exact zeros (as a contact answer: open contacts), with -0.0 and a NaN; u
     * pseudo-random bits (incompressible); a NaN and a -0.0 among the metrics */
    uint64_t st = 12345;
    for (int i = 0; i < M; i++) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t bits = (st >> 12) | 0x3ff0000000000000ull;
        memcpy(&u[i], &bits, sizeof bits);
        lam[i] = i % 7 == 0 ? 0.5 * i : 0.0;
    }
    lam[1] = -0.0;
    lam[2] = NAN;
    for (int i = 0; i < NV; i++) v[i] = 1.0 / (i + 1);
    for (int i = 0; i < ncp_metrics_count(); i++) met[i] = i == 3 ? NAN : i == 4 ? -0.0 : 1e-3 * i;
    for (int r = 0; r < NT; r++)
        for (int c = 0; c < nc; c++) tr[(size_t)r * nc + c] = c == 0 ? r + 1 : 1.0 / (r + c + 1);
    /* NaN payloads, infinities, subnormals in the shuffled arrays: the trace's last column, v,
     * the solver's v, u's first values */
    double odd[NT];
    special_doubles(odd, NT, 7);
    for (int r = 0; r < NT; r++) tr[(size_t)r * nc + nc - 1] = odd[r];
    special_doubles(v, NV, 8);
    special_doubles(sv, NSV, 9);
    special_doubles(u, 10, 10);
    ncp_jresult big = {.problem = "000000", .solver = "pgs", .note = "a note",
                       .title = "t", .description = "d", .iterations = 40, .converged = 0,
                       .status = NCP_STATUS_MAX_ITER, .setup_ms = 0.25, .solve_ms = 1.5,
                       .metrics = met, .nmetrics = ncp_metrics_count(), .has_answer = 1,
                       .lambda = lam, .u = u, .m = M, .v = v, .nv = NV, .trace = tr,
                       .ntrace = NT, .ncols = nc, .solver_v = sv, .nsv = NSV};
    /* an unsupported pair: strings and NaN metrics only, too small to shrink */
    ncp_jresult small = {.problem = "000001", .solver = "pgs", .note = "x", .title = "",
                         .description = "", .status = NCP_STATUS_UNSUPPORTED,
                         .metrics = met, .nmetrics = ncp_metrics_count()};
    ncp_resume *rs = NULL;
    ncp_error e = {0};
    CHECK_OK(ncp_resume_open(rdir, config, 0, &rs, &e), &e);
    long long off = -1;
    if (rs) {
        CHECK_OK(ncp_resume_append(rs, &big, &off, &e), &e);
        CHECK_OK(ncp_resume_append(rs, &small, NULL, &e), &e);
        ncp_resume_close(rs);
        rs = NULL;
    }
    /* on disk: the configuration, the big result compressed to less than its raw length (and
     * less than its incompressible u plus a third of the rest), the small one as it is */
    kinds k = {0};
    ncp_journal *j = NULL;
    CHECK_OK(ncp_journal_open(rj, 0, collect_kinds, &k, &j, NULL, &e), &e);
    CHECK(k.n == 3);
    if (k.n == 3) {
        CHECK(k.kind[0] == 'C' && k.kind[1] == 'S' && (k.kind[2] == 'R' || k.kind[2] == 'S'));
        size_t raw_arrays = (2 * M + NV + NSV + (size_t)NT * nc) * sizeof(double);
        CHECK(k.raw[1] > raw_arrays && k.len[1] < k.raw[1]);
        CHECK(k.len[1] < M * sizeof(double) + raw_arrays / 3);
    }
    /* a compressed record whose stream is not zlib, and one inflating to another length than
     * it declares: checksummed, so kept in the file, but not results: skipped */
    unsigned char bad[64] = {0};
    int32_t zk = 'Z';
    uint32_t want = 1000;
    memcpy(bad, &zk, 4);
    memcpy(bad + 4, &want, 4);
    memset(bad + 8, 0xa5, sizeof bad - 8);
    CHECK_OK(ncp_journal_append(j, bad, sizeof bad, NULL, &e), &e);
    {
        ncp_jbuf b = {0};
        ncp_jbuf_i32(&b, 'R');
        ncp_jbuf_str(&b, "000002");
        ncp_jbuf_str(&b, "pgs");
        ncp_jbuf_i32(&b, 1);
        ncp_jbuf_i32(&b, 1);
        ncp_jbuf_i32(&b, NCP_STATUS_CONVERGED);
        CHECK(!b.oom);
        unsigned char z[600];
        CHECK(b.n + 19 <= sizeof z);
        /* the same bytes as resume.c's compress2, built by hand with a stored (level 0)
         * block: header 0x78 0x01, then a final stored block of the payload, then Adler-32 */
        size_t n = b.n;
        z[8] = 0x78;
        z[9] = 0x01;
        z[10] = 0x01;
        z[11] = (unsigned char)(n & 0xff);
        z[12] = (unsigned char)(n >> 8);
        z[13] = (unsigned char)(~n & 0xff);
        z[14] = (unsigned char)((~n >> 8) & 0xff);
        memcpy(z + 15, b.p, n);
        uint32_t a = 1, bb = 0;
        for (size_t i = 0; i < n; i++) {
            a = (a + b.p[i]) % 65521u;
            bb = (bb + a) % 65521u;
        }
        uint32_t ad = (bb << 16) | a;
        z[15 + n] = (unsigned char)(ad >> 24);
        z[16 + n] = (unsigned char)(ad >> 16);
        z[17 + n] = (unsigned char)(ad >> 8);
        z[18 + n] = (unsigned char)ad;
        size_t zn = 11 + n;
        uint32_t lie = (uint32_t)n + 8; /* declared longer than what it inflates to */
        memcpy(z, &zk, 4);
        memcpy(z + 4, &lie, 4);
        CHECK_OK(ncp_journal_append(j, z, 8 + zn, NULL, &e), &e);
        free(b.p);
    }
    {
        /* a result as journals before compression hold it (resume.c's layout, kind 'R') */
        ncp_jbuf b = {0};
        ncp_jbuf_i32(&b, 'R');
        ncp_jbuf_str(&b, "000003");
        ncp_jbuf_str(&b, "pgs");
        ncp_jbuf_i32(&b, 7);
        ncp_jbuf_i32(&b, 1);
        ncp_jbuf_i32(&b, NCP_STATUS_CONVERGED);
        ncp_jbuf_f64(&b, 0.5);
        ncp_jbuf_f64(&b, 2.5);
        ncp_jbuf_f64s(&b, met, ncp_metrics_count());
        ncp_jbuf_str(&b, "old");
        ncp_jbuf_str(&b, "");
        ncp_jbuf_str(&b, "");
        ncp_jbuf_i32(&b, 1);
        ncp_jbuf_f64s(&b, lam, 3);
        ncp_jbuf_f64s(&b, u, 3);
        ncp_jbuf_f64s(&b, NULL, 0);
        ncp_jbuf_i32(&b, nc);
        ncp_jbuf_f64s(&b, tr, nc);
        CHECK(!b.oom);
        CHECK_OK(ncp_journal_append(j, b.p, b.n, NULL, &e), &e);
        free(b.p);
    }
    {
        /* a result as the journals of c8c193b hold it (kind 'Z': compressed, not shuffled) */
        ncp_jbuf b = {0};
        uint32_t at[2];
        result_payload(&b, "000004", met, lam, u, M, tr, NT, nc, sv, NSV, at);
        CHECK(!b.oom);
        put_compressed(j, 'Z', &b, NULL, 0);
        free(b.p);
    }
    {
        /* 'S' records built here from the format's description: u and the trace shuffled
         * (readable); a region past the payload's end, one overlapping the previous one, and
         * one not on 8 bytes (not ours: skipped, their pairs solved again) */
        ncp_jbuf b = {0};
        const char *names[] = {"000005", "000006", "000007", "000008"};
        for (int t = 0; t < 4; t++) {
            b.n = 0;
            uint32_t at[2];
            result_payload(&b, names[t], met, lam, u, M, tr, NT, nc, NULL, 0, at);
            CHECK(!b.oom);
            uint32_t reg[2][3] = {{at[0], M, 1}, {at[1], NT, (uint32_t)nc}};
            if (t == 1) reg[1][1] = NT + 1000;         /* past the end */
            if (t == 2) reg[1][0] = reg[0][0] + 8 * M - 8; /* overlaps u */
            if (t == 3) reg[1][0] -= 4;                /* misaligned */
            put_compressed(j, 'S', &b, reg, 2);
        }
        free(b.p);
    }
    CHECK_OK(ncp_journal_close(j, &e), &e);
    j = NULL;

    /* resumed: both results found, the compressed one read back bit for bit */
    CHECK_OK(ncp_resume_open(rdir, config, 0, &rs, &e), &e);
    if (rs) {
        CHECK(ncp_resume_earlier(rs) == 5);
        CHECK(ncp_resume_count(rs) == 5);
        CHECK(ncp_resume_find(rs, "000002", "pgs") == -1);
        CHECK(ncp_resume_find(rs, "000006", "pgs") == -1);
        CHECK(ncp_resume_find(rs, "000007", "pgs") == -1);
        CHECK(ncp_resume_find(rs, "000008", "pgs") == -1);
        long long at = ncp_resume_find(rs, "000000", "pgs");
        CHECK(at == off);
        ncp_jresult r;
        CHECK_OK(ncp_resume_read(rs, at, &r, &e), &e);
        CHECK(!strcmp(r.problem, "000000") && !strcmp(r.solver, "pgs"));
        CHECK(!strcmp(r.note, "a note") && !strcmp(r.title, "t") && !strcmp(r.description, "d"));
        CHECK(r.iterations == 40 && r.converged == 0 && r.status == NCP_STATUS_MAX_ITER);
        CHECK(r.setup_ms == 0.25 && r.solve_ms == 1.5 && r.has_answer == 1);
        CHECK(r.nmetrics == ncp_metrics_count() && same_doubles(r.metrics, met, r.nmetrics));
        CHECK(r.m == M && same_doubles(r.lambda, lam, M) && same_doubles(r.u, u, M));
        CHECK(r.nv == NV && same_doubles(r.v, v, NV));
        CHECK(r.nsv == NSV && same_doubles(r.solver_v, sv, NSV));
        CHECK(r.ntrace == NT && r.ncols == nc && same_doubles(r.trace, tr, NT * nc));
        CHECK(((uintptr_t)r.lambda % 8) == 0 && ((uintptr_t)r.trace % 8) == 0);
        CHECK(((uintptr_t)r.u % 8) == 0 && ((uintptr_t)r.solver_v % 8) == 0);
        /* the old compressed record and the hand-built shuffled one, bit for bit */
        const char *readable[] = {"000004", "000005"};
        for (int t = 0; t < 2; t++) {
            at = ncp_resume_find(rs, readable[t], "pgs");
            CHECK(at > off);
            if (at < 0) continue;
            CHECK_OK(ncp_resume_read(rs, at, &r, &e), &e);
            CHECK(!strcmp(r.problem, readable[t]) && !strcmp(r.note, readable[t]));
            CHECK(r.iterations == 11 && r.solve_ms == 3.5 && r.wall_ms == 4.25 &&
                  r.time_max_ms == 4.5);
            CHECK(same_doubles(r.metrics, met, ncp_metrics_count()));
            CHECK(r.m == M && same_doubles(r.lambda, lam, M) && same_doubles(r.u, u, M));
            CHECK(r.ntrace == NT && r.ncols == nc && same_doubles(r.trace, tr, NT * nc));
            CHECK(r.nsv == (t == 0 ? NSV : 0) && same_doubles(r.solver_v, sv, r.nsv));
        }
        at = ncp_resume_find(rs, "000001", "pgs");
        CHECK(at > off);
        CHECK_OK(ncp_resume_read(rs, at, &r, &e), &e);
        CHECK(r.status == NCP_STATUS_UNSUPPORTED && !r.has_answer && r.m == 0 && r.ntrace == 0);
        at = ncp_resume_find(rs, "000003", "pgs");
        CHECK(at > off);
        CHECK_OK(ncp_resume_read(rs, at, &r, &e), &e);
        CHECK(r.iterations == 7 && r.converged == 1 && r.solve_ms == 2.5 && !strcmp(r.note, "old"));
        CHECK(r.m == 3 && same_doubles(r.lambda, lam, 3) && same_doubles(r.u, u, 3) && r.nv == 0);
        CHECK(r.ntrace == 1 && same_doubles(r.trace, tr, nc));
        ncp_resume_close(rs);
    }
    free(tr);
    unlink(rj);
    snprintf(rj, sizeof rj, "%s/config.json", rdir);
    unlink(rj);
    rmdir(rdir);
}

int main(void)
{
    if (!mkdtemp(dir)) return 1;
    snprintf(jpath, sizeof jpath, "%s/%s", dir, NCP_JOURNAL_NAME);
    test_crc();
    test_roundtrip();
    test_torn_tail();
    test_corrupt_middle();
    test_batching();
    test_links();
    test_not_journal();
    test_shuffle();
    test_compressed_results();
    rmdir(dir);
    return tcheck_exit("journal");
}
