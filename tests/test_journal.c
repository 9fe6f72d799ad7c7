/* bench/journal.h and util/safefile.h: the CRC-32 against the standard check value, records
 * round-trip bit for bit, a torn last record is ignored and cut off, a corrupted record in the
 * middle ends the journal (it and every record after it are not trusted: dropped, so that their
 * pairs are solved again), fsync batching is not observable by a reader, links are refused or
 * replaced, never followed. Results (bench/resume.h) are stored compressed when that is smaller
 * and read back bit for bit, beside uncompressed ones (earlier journals); a compressed record
 * that does not inflate to its declared length is skipped (its pair solved again). */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static void test_compressed_results(void)
{
    char rdir[300], rj[400];
    snprintf(rdir, sizeof rdir, "%s/results", dir);
    snprintf(rj, sizeof rj, "%s/%s", rdir, NCP_JOURNAL_NAME);
    CHECK(mkdir(rdir, 0700) == 0);
    const char *config = "{\"solvers\":[\"pgs\"]}";
    enum { M = 300, NV = 6, NT = 40 };
    const int nc = NCP_TRACE_FIXED + ncp_metrics_count();
    double lam[M], u[M], v[NV], met[64], *tr = malloc((size_t)NT * nc * sizeof *tr);
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
    ncp_jresult big = {.problem = "000000", .solver = "pgs", .note = "a note",
                       .title = "t", .description = "d", .iterations = 40, .converged = 0,
                       .status = NCP_STATUS_MAX_ITER, .setup_ms = 0.25, .solve_ms = 1.5,
                       .metrics = met, .nmetrics = ncp_metrics_count(), .has_answer = 1,
                       .lambda = lam, .u = u, .m = M, .v = v, .nv = NV, .trace = tr,
                       .ntrace = NT, .ncols = nc};
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
        CHECK(k.kind[0] == 'C' && k.kind[1] == 'Z' && (k.kind[2] == 'R' || k.kind[2] == 'Z'));
        size_t raw_arrays = (2 * M + NV + (size_t)NT * nc) * sizeof(double);
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
    CHECK_OK(ncp_journal_close(j, &e), &e);
    j = NULL;

    /* resumed: both results found, the compressed one read back bit for bit */
    CHECK_OK(ncp_resume_open(rdir, config, 0, &rs, &e), &e);
    if (rs) {
        CHECK(ncp_resume_earlier(rs) == 3);
        CHECK(ncp_resume_count(rs) == 3);
        CHECK(ncp_resume_find(rs, "000002", "pgs") == -1);
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
        CHECK(r.ntrace == NT && r.ncols == nc && same_doubles(r.trace, tr, NT * nc));
        CHECK(((uintptr_t)r.lambda % 8) == 0 && ((uintptr_t)r.trace % 8) == 0);
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
    test_compressed_results();
    rmdir(dir);
    return tcheck_exit("journal");
}
