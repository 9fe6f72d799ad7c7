/* The journal of a run (docs/design.md §5.7): an append-only file of checksummed records, the
 * one source of truth of the results in an output folder.
 *
 * File: the 8 bytes "NCPJRNL1", then records, each a 4-byte payload length, the 4-byte CRC-32
 * (IEEE 802.3, as zlib's crc32) of the payload, and the payload (in the byte order of the
 * machine that wrote it, where it is read again). A record whose length runs past the end of
 * the file or whose checksum is wrong ends the journal: it and everything after it
 * are not trusted (a torn last record after SIGKILL or a full disk; a corrupted one in the
 * middle), and opening the journal for appending truncates the file there, so that new records
 * follow the last good one. Appends are fsync'ed in batches (every NCP_JOURNAL_SYNC_EVERY
 * records or NCP_JOURNAL_SYNC_MS milliseconds) and at the end; SIGKILL loses nothing written
 * (the data is in the kernel), a power cut at most the last batch. */
#ifndef NCP_JOURNAL_H
#define NCP_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "util/ncp_error.h"

#define NCP_JOURNAL_NAME "journal.ncpj"
#define NCP_JOURNAL_MAGIC "NCPJRNL1"
enum { NCP_JOURNAL_SYNC_EVERY = 64, NCP_JOURNAL_SYNC_MS = 1000 };

typedef struct ncp_journal ncp_journal;

/* Called for every good record in file order; a non-zero return stops the reading with it. */
typedef int (*ncp_journal_fn)(void *ctx, long long off, const unsigned char *payload, size_t n,
                              ncp_error *err);

/* Opens path without following a link (creating it, with its magic, when `create`; else it
 * must exist) and reads its records through fn (may be NULL). *dropped (may be NULL): bytes
 * after the last good record, removed from the file. */
int ncp_journal_open(const char *path, int create, ncp_journal_fn fn, void *ctx,
                     ncp_journal **out, long long *dropped, ncp_error *err);
/* Appends one record; *off (may be NULL) its offset for ncp_journal_read. A failed write
 * (ENOSPC, EIO, EFBIG) is cut off again and reported as NCP_ERR_IO naming the file. */
int ncp_journal_append(ncp_journal *j, const void *payload, size_t n, long long *off,
                       ncp_error *err);
/* Reads the record at off again, checksum verified, into a buffer of j's (8-byte aligned,
 * valid until the next read). */
int ncp_journal_read(ncp_journal *j, long long off, const unsigned char **payload, size_t *n,
                     ncp_error *err);
int ncp_journal_sync(ncp_journal *j, ncp_error *err);
/* Syncs and closes; NULL is fine. */
int ncp_journal_close(ncp_journal *j, ncp_error *err);
const char *ncp_journal_path(const ncp_journal *j);

uint32_t ncp_crc32(const void *p, size_t n);

/* Building a payload: fields appended in order; doubles and arrays are aligned to 8 bytes of
 * the payload's start (zero padding), so that a reader can point into an aligned buffer. */
typedef struct ncp_jbuf {
    unsigned char *p;
    size_t n, cap;
    int oom;
} ncp_jbuf;
void ncp_jbuf_i32(ncp_jbuf *b, int32_t x);
void ncp_jbuf_f64(ncp_jbuf *b, double x);
void ncp_jbuf_str(ncp_jbuf *b, const char *s); /* NULL is written as "" */
void ncp_jbuf_f64s(ncp_jbuf *b, const double *x, int n);

/* Byte shuffling for compression (as HDF5's shuffle filter: the k-th bytes of all values
 * together): in, a rows x cols row-major array of doubles' bytes, is written
 * to out (not overlapping it) column after column, each column as its 8 byte planes (byte 0 of
 * every value of the column, then byte 1, ...). Exponents and high mantissa bytes of neighbouring
 * values then sit side by side, where zlib finds their repeats. ncp_junshuffle is the inverse;
 * the bytes are moved, never interpreted, so every double (NaN payloads, -0, infinities,
 * subnormals) comes back bit for bit. */
void ncp_jshuffle(unsigned char *out, const unsigned char *in, size_t rows, size_t cols);
void ncp_junshuffle(unsigned char *out, const unsigned char *in, size_t rows, size_t cols);

/* Reading one back: any read past the end sets bad (and returns 0 / "" / NULL). */
typedef struct ncp_jreader {
    const unsigned char *p;
    size_t n, at;
    int bad;
} ncp_jreader;
int32_t ncp_jr_i32(ncp_jreader *r);
double ncp_jr_f64(ncp_jreader *r);
const char *ncp_jr_str(ncp_jreader *r);
const double *ncp_jr_f64s(ncp_jreader *r, int *n); /* NULL with n = 0 for an empty array */

#endif
