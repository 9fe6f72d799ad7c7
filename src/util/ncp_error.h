/* Error reporting shared by every module: a code plus a message that tells the user what to
 * fix (file, field, what is wrong). Errors travel up as return codes; nothing prints on its own
 * except the CLI. */
#ifndef NCP_ERROR_H
#define NCP_ERROR_H

#include <stddef.h>

enum {
    NCP_OK = 0,
    NCP_ERR_INPUT = 2,    /* bad input or usage: the CLI exits 2 */
    NCP_ERR_IO = 3,       /* cannot read/write a file that should be fine */
    NCP_ERR_NOMEM = 4,
    NCP_ERR_NUMERIC = 5,  /* factorisation failed, NaN produced, ... */
    NCP_ERR_INTERNAL = 6
};

/* The process's exit codes (docs/running.md "Exit codes" is their one description). */
enum {
    NCP_EXIT_OK = 0,
    NCP_EXIT_CHECK_FAILED = 1, /* `check` found a regression */
    NCP_EXIT_BAD_INPUT = 2,    /* bad input or usage (NCP_ERR_INPUT), a folder in use */
    NCP_EXIT_FAILURE = 3,      /* I/O, memory or internal failure */
    NCP_EXIT_SOLVER = 4,       /* the run completed, but a solve crashed, exited or was killed
                                  at its hard deadline in its child (rows crashed / timeout
                                  (killed)) */
    NCP_EXIT_HUNG = 5,         /* a solver in ncpbench's process ignored the stop request past
                                  its hard deadline, or crashed an MPI worker rank: the run
                                  stopped, finished rows written */
    NCP_EXIT_FILES_FAILED = 6, /* `solve`: the run completed, but some problem files failed to
                                  load (OUT/failed_files.csv) */
    NCP_EXIT_INTERRUPTED = 130 /* SIGINT / SIGTERM: finished rows written */
};

typedef struct ncp_error {
    int code;
    char msg[1024];
} ncp_error;

/* Sets err (if non-NULL) and returns code; printf-style message. A second call does not
 * overwrite the first message (the innermost cause is the most precise), unless the first is
 * empty. */
int ncp_error_set(ncp_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prefixes context ("reading scenes/x.json: ") to an existing message. */
int ncp_error_prefix(ncp_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ncp_error_clear(ncp_error *err);

/* Allocation helpers: return NULL and set err on failure (n == 0 returns a valid 1-byte block
 * so callers never confuse "empty" with "failed"). calloc zeroes. */
void *ncp_calloc(ncp_error *err, size_t n, size_t size);
void *ncp_malloc(ncp_error *err, size_t n, size_t size);
char *ncp_strdup(ncp_error *err, const char *s);

#endif
