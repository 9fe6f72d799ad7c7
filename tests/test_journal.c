/* bench/journal.h and util/safefile.h: the CRC-32 against the standard check value, records
 * round-trip bit for bit, a torn last record is ignored and cut off, a corrupted record in the
 * middle ends the journal (it and every record after it are not trusted: dropped, so that their
 * pairs are solved again), fsync batching is not observable by a reader, links are refused or
 * replaced, never followed. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tcheck.h"
#include "bench/journal.h"
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
    rmdir(dir);
    return tcheck_exit("journal");
}
