/* The journal of a run (journal.h). */
#include "bench/journal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "util/clock.h"
#include "util/safefile.h"

enum { HEAD = 8, MAX_RECORD = 1 << 30 };

struct ncp_journal {
    int fd;
    char *path;
    long long end;     /* offset after the last good record */
    int pending;       /* records appended since the last fsync */
    double last_sync;  /* ncp_now_ms() of the last fsync */
    unsigned char *buf; /* ncp_journal_read's */
    size_t cap;
};

/* CRC-32 (IEEE 802.3) by zlib, which the journal links for its compressed records
 * (resume.c); a table per byte rather than the nibble loop of before: the same values. */
uint32_t ncp_crc32(const void *p, size_t n)
{
    const unsigned char *s = p;
    uLong c = crc32(0L, Z_NULL, 0);
    while (n > 0) { /* uInt lengths */
        uInt k = n > 0x40000000u ? 0x40000000u : (uInt)n;
        c = crc32(c, s, k);
        s += k;
        n -= k;
    }
    return (uint32_t)c;
}

static int io_error(ncp_journal *j, const char *what, int e, ncp_error *err)
{
    return ncp_error_set(err, NCP_ERR_IO, "cannot %s %s: %s", what, j->path,
                         strerror(e ? e : EIO));
}

/* Reads exactly n bytes at off: 1 done, 0 the file ends first, -1 error (errno). */
static int read_at(int fd, void *p, size_t n, long long off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)p + got, n - got, (off_t)(off + (long long)got));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) return 0;
        got += (size_t)r;
    }
    return 1;
}

static int write_all(int fd, const void *p, size_t n)
{
    size_t put = 0;
    while (put < n) {
        ssize_t w = write(fd, (const char *)p + put, n - put);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return w < 0 ? errno : ENOSPC;
        put += (size_t)w;
    }
    return 0;
}

static int reserve(ncp_journal *j, size_t n, ncp_error *err)
{
    if (n <= j->cap) return NCP_OK;
    unsigned char *b = realloc(j->buf, n);
    if (!b) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory reading %s", j->path);
    j->buf = b;
    j->cap = n;
    return NCP_OK;
}

/* The record at off: 1 good (payload in j->buf, *n, *next), 0 torn or corrupt, < 0 error. */
static int record_at(ncp_journal *j, long long off, size_t *n, long long *next, ncp_error *err)
{
    uint32_t h[2];
    int r = read_at(j->fd, h, sizeof h, off);
    if (r < 0) return -io_error(j, "read", errno, err);
    if (r == 0 || h[0] > MAX_RECORD) return 0;
    if (reserve(j, h[0] ? h[0] : 1, err)) return -NCP_ERR_NOMEM;
    r = read_at(j->fd, j->buf, h[0], off + (long long)sizeof h);
    if (r < 0) return -io_error(j, "read", errno, err);
    if (r == 0 || ncp_crc32(j->buf, h[0]) != h[1]) return 0;
    *n = h[0];
    *next = off + (long long)sizeof h + h[0];
    return 1;
}

int ncp_journal_open(const char *path, int create, ncp_journal_fn fn, void *ctx,
                     ncp_journal **out, long long *dropped, ncp_error *err)
{
    *out = NULL;
    if (dropped) *dropped = 0;
    ncp_journal *j = ncp_calloc(err, 1, sizeof *j);
    if (!j) return NCP_ERR_NOMEM;
    j->fd = -1;
    int rc = NCP_OK;
    if (!(j->path = ncp_strdup(err, path))) {
        rc = NCP_ERR_NOMEM;
    } else if ((j->fd = ncp_safe_open_rw(path, create, err)) < 0) {
        rc = err ? err->code : NCP_ERR_IO;
    } else if (create) {
        int e = write_all(j->fd, NCP_JOURNAL_MAGIC, HEAD);
        if (e || fsync(j->fd) != 0) rc = io_error(j, "write", e ? e : errno, err);
        j->end = HEAD;
    } else {
        char magic[HEAD];
        off_t size0 = lseek(j->fd, 0, SEEK_END);
        int r = size0 < 0 ? -1 : read_at(j->fd, magic, size0 < HEAD ? (size_t)size0 : HEAD, 0);
        if (r >= 0 && size0 < HEAD && !memcmp(magic, NCP_JOURNAL_MAGIC, (size_t)size0)) {
            /* killed while it was created: what is there is the start of the magic */
            int e = ftruncate(j->fd, 0) != 0 || lseek(j->fd, 0, SEEK_SET) != 0
                        ? errno
                        : write_all(j->fd, NCP_JOURNAL_MAGIC, HEAD);
            if (e || fsync(j->fd) != 0) rc = io_error(j, "write", e ? e : errno, err);
            memcpy(magic, NCP_JOURNAL_MAGIC, HEAD);
            r = 1;
        }
        if (rc) {
        } else if (r < 0) rc = io_error(j, "read", errno, err);
        else if (r == 0 || memcmp(magic, NCP_JOURNAL_MAGIC, HEAD) != 0)
            rc = ncp_error_set(err, NCP_ERR_INPUT, "%s is not a journal of ncpbench (no %s "
                               "header); add --fresh to discard the results in its folder",
                               path, NCP_JOURNAL_MAGIC);
        j->end = HEAD;
        for (long long off = HEAD; !rc;) {
            size_t n;
            long long next;
            int g = record_at(j, off, &n, &next, err);
            if (g < 0) rc = -g;
            if (g <= 0) break;
            if (fn && (rc = fn(ctx, off, j->buf, n, err))) break;
            off = j->end = next;
        }
        off_t size = rc ? 0 : lseek(j->fd, 0, SEEK_END);
        if (!rc && size > j->end) {
            /* not trusted: a torn or corrupt record and whatever follows it */
            if (dropped) *dropped = (long long)size - j->end;
            if (ftruncate(j->fd, (off_t)j->end) != 0 || fsync(j->fd) != 0)
                rc = io_error(j, "truncate", errno, err);
        }
    }
    if (!rc && lseek(j->fd, (off_t)j->end, SEEK_SET) < 0) rc = io_error(j, "seek", errno, err);
    if (rc) {
        ncp_error e2 = {0};
        ncp_journal_close(j, &e2);
        return rc;
    }
    j->last_sync = ncp_now_ms();
    *out = j;
    return NCP_OK;
}

int ncp_journal_sync(ncp_journal *j, ncp_error *err)
{
    if (!j || !j->pending) return NCP_OK;
    if (fsync(j->fd) != 0) return io_error(j, "write", errno, err);
    j->pending = 0;
    j->last_sync = ncp_now_ms();
    return NCP_OK;
}

int ncp_journal_append(ncp_journal *j, const void *payload, size_t n, long long *off,
                       ncp_error *err)
{
    if (n > MAX_RECORD)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "a journal record of %zu bytes", n);
    /* one write: header and payload together */
    if (reserve(j, n + 8, err)) return NCP_ERR_NOMEM;
    uint32_t h[2] = {(uint32_t)n, ncp_crc32(payload, n)};
    memcpy(j->buf, h, sizeof h);
    memcpy(j->buf + sizeof h, payload, n);
    int e = write_all(j->fd, j->buf, n + sizeof h);
    if (e) {
        /* cut the torn record off, so the file ends with a good one (a reader would ignore
         * it anyway) */
        if (ftruncate(j->fd, (off_t)j->end) == 0) lseek(j->fd, (off_t)j->end, SEEK_SET);
        return io_error(j, "write", e, err);
    }
    if (off) *off = j->end;
    j->end += (long long)(n + sizeof h);
    j->pending++;
    if (j->pending >= NCP_JOURNAL_SYNC_EVERY || ncp_now_ms() - j->last_sync >= NCP_JOURNAL_SYNC_MS)
        return ncp_journal_sync(j, err);
    return NCP_OK;
}

int ncp_journal_read(ncp_journal *j, long long off, const unsigned char **payload, size_t *n,
                     ncp_error *err)
{
    long long next;
    int g = off >= HEAD && off < j->end ? record_at(j, off, n, &next, err) : 0;
    if (g < 0) return -g;
    if (g == 0)
        return ncp_error_set(err, NCP_ERR_IO, "%s: the record at byte %lld is no longer "
                             "readable (changed since the run started?)", j->path, off);
    *payload = j->buf;
    return NCP_OK;
}

int ncp_journal_close(ncp_journal *j, ncp_error *err)
{
    if (!j) return NCP_OK;
    int rc = j->fd >= 0 ? ncp_journal_sync(j, err) : NCP_OK;
    if (j->fd >= 0 && close(j->fd) != 0 && !rc) rc = io_error(j, "close", errno, err);
    free(j->path);
    free(j->buf);
    free(j);
    return rc;
}

const char *ncp_journal_path(const ncp_journal *j) { return j->path; }

/* ---- payloads ---- */

static void put(ncp_jbuf *b, const void *p, size_t n)
{
    if (b->oom) return;
    if (b->n + n > b->cap) {
        size_t c = b->cap ? 2 * b->cap : 256;
        while (c < b->n + n) c *= 2;
        unsigned char *q = realloc(b->p, c);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = c;
    }
    if (n) memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void pad8(ncp_jbuf *b)
{
    static const unsigned char z[8] = {0};
    put(b, z, (8 - b->n % 8) % 8);
}

void ncp_jbuf_i32(ncp_jbuf *b, int32_t x) { put(b, &x, sizeof x); }

void ncp_jbuf_f64(ncp_jbuf *b, double x)
{
    pad8(b);
    put(b, &x, sizeof x);
}

void ncp_jbuf_str(ncp_jbuf *b, const char *s)
{
    if (!s) s = "";
    uint32_t n = (uint32_t)strlen(s) + 1;
    put(b, &n, sizeof n);
    put(b, s, n);
}

void ncp_jbuf_f64s(ncp_jbuf *b, const double *x, int n)
{
    int32_t k = n > 0 ? n : 0;
    put(b, &k, sizeof k);
    pad8(b);
    put(b, x, (size_t)k * sizeof *x);
}

void ncp_jshuffle(unsigned char *out, const unsigned char *in, size_t rows, size_t cols)
{
    for (size_t c = 0; c < cols; c++)
        for (size_t b = 0; b < 8; b++) {
            unsigned char *o = out + (c * 8 + b) * rows;
            const unsigned char *i = in + c * 8 + b;
            for (size_t r = 0; r < rows; r++) o[r] = i[r * cols * 8];
        }
}

void ncp_junshuffle(unsigned char *out, const unsigned char *in, size_t rows, size_t cols)
{
    for (size_t c = 0; c < cols; c++)
        for (size_t b = 0; b < 8; b++) {
            const unsigned char *i = in + (c * 8 + b) * rows;
            unsigned char *o = out + c * 8 + b;
            for (size_t r = 0; r < rows; r++) o[r * cols * 8] = i[r];
        }
}

static const unsigned char *take(ncp_jreader *r, size_t n)
{
    if (r->bad || n > r->n - r->at) {
        r->bad = 1;
        return NULL;
    }
    const unsigned char *p = r->p + r->at;
    r->at += n;
    return p;
}

static void skip8(ncp_jreader *r) { take(r, (8 - r->at % 8) % 8); }

int32_t ncp_jr_i32(ncp_jreader *r)
{
    int32_t x = 0;
    const unsigned char *p = take(r, sizeof x);
    if (p) memcpy(&x, p, sizeof x);
    return x;
}

double ncp_jr_f64(ncp_jreader *r)
{
    double x = 0;
    skip8(r);
    const unsigned char *p = take(r, sizeof x);
    if (p) memcpy(&x, p, sizeof x);
    return x;
}

const char *ncp_jr_str(ncp_jreader *r)
{
    uint32_t n = 0;
    const unsigned char *p = take(r, sizeof n);
    if (p) memcpy(&n, p, sizeof n);
    const unsigned char *s = n ? take(r, n) : NULL;
    if (!s || s[n - 1] != '\0') {
        r->bad = 1;
        return "";
    }
    return (const char *)s;
}

const double *ncp_jr_f64s(ncp_jreader *r, int *n)
{
    int32_t k = ncp_jr_i32(r);
    *n = 0;
    skip8(r);
    if (k < 0 || (size_t)k > (r->n - r->at) / sizeof(double)) {
        r->bad = 1;
        return NULL;
    }
    const unsigned char *p = take(r, (size_t)k * sizeof(double));
    if (!p || k == 0) return NULL;
    *n = k;
    return (const double *)(const void *)p;
}
