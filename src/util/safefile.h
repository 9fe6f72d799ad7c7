/* Creating output files without following links (docs/design.md §5.7).
 *
 * Every output is written to a temporary beside it, opened with O_CREAT|O_EXCL|O_NOFOLLOW (a
 * name nobody holds: `<path>.tmp-<pid>-<random>`), then fsync'ed and renamed over `path`.
 * rename() replaces a symbolic link named `path` instead of writing through it, so a link
 * planted in the output folder never makes us write the file it points to, and a reader sees
 * either the earlier complete file or the new complete one. Temporaries of a process that no
 * longer runs are removed by ncp_safe_clean_stale. */
#ifndef NCP_SAFEFILE_H
#define NCP_SAFEFILE_H

#include <stdio.h>

#include "util/ncp_error.h"

typedef struct ncp_safe_file {
    FILE *f;    /* write here */
    char *tmp;  /* the temporary */
    char *path; /* where it goes */
} ncp_safe_file;

/* Opens a fresh temporary for `path` (mode "w"). NCP_ERR_IO naming path on failure. */
int ncp_safe_create(const char *path, ncp_safe_file *sf, ncp_error *err);
/* Flushes, fsyncs, closes and renames into place; on any failure (ENOSPC, EIO, EFBIG) the
 * temporary is removed, `path` is untouched and the error (NCP_ERR_IO) names path. */
int ncp_safe_commit(ncp_safe_file *sf, ncp_error *err);
/* Closes and removes the temporary (after an error elsewhere); NULL members are fine. */
void ncp_safe_abort(ncp_safe_file *sf);
/* The whole of `text` to `path` (create + commit). */
int ncp_safe_write_text(const char *path, const char *text, ncp_error *err);

/* The same as a stdio stream for code written with fopen/fclose: fclose() of the stream
 * fsyncs and renames the temporary into place, or, when a write failed (ENOSPC, EIO, EFBIG),
 * removes it and returns EOF with errno set, the file in place untouched. NULL (err set) when
 * the temporary cannot be created. */
FILE *ncp_safe_fopen(const char *path, ncp_error *err);
/* ncp_safe_fopen of DIR/NAME; path (cap bytes) gets the joined name for messages. */
FILE *ncp_safe_fopen_in(const char *dir, const char *name, char *path, size_t cap,
                        ncp_error *err);
/* fclose of a stream of ncp_safe_fopen: NCP_ERR_IO naming path when the file could not be
 * completed. */
int ncp_safe_fclose(FILE *f, const char *path, ncp_error *err);
/* Appends to a regular file (created when missing) without following a symbolic link and
 * refusing one with another hard link (a log, a page written earlier in the same run); NULL
 * (err set) otherwise. */
FILE *ncp_safe_fappend(const char *path, ncp_error *err);

/* For a library that writes a file by name (HDF5): a fresh empty temporary for `path`, created
 * with O_EXCL|O_NOFOLLOW, its name in *tmp (free it). Move it into place with
 * ncp_safe_rename. */
int ncp_safe_reserve(const char *path, char **tmp, ncp_error *err);
/* fsync(tmp), rename(tmp, path); on failure tmp is removed and the error names path. */
int ncp_safe_rename(const char *tmp, const char *path, ncp_error *err);

/* Opens `path` for reading and writing without following a link, creating it (O_EXCL) when
 * `create`; refuses anything but a regular file. Returns the descriptor or -1 (err set). */
int ncp_safe_open_rw(const char *path, int create, ncp_error *err);

/* Removes from dir the temporaries (`*.tmp-<pid>` and `*.tmp-<pid>-*`) of processes that no
 * longer run; returns how many. */
int ncp_safe_clean_stale(const char *dir);

#endif
