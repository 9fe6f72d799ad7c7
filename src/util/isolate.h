/* Running a function in a forked child, so that a library that can crash on a damaged input, or
 * allocate gigabytes that the input only pretends to need, cannot take ncpbench down with it.
 * libhdf5 1.10 (Debian 12) dereferences bad pointers on some corrupt metadata (a local heap
 * whose size lies: H5Lexists -> H5HL_protect -> memcpy) and mallocs what such a heap declares
 * (2.9 GB for a 58 KB file); both happen inside libhdf5 before any check of ours can look
 * (found by tests/fuzz). The store reads every input file this way first (store.h,
 * ncp_load_problems_isolated): a file that crashes the library gives exit 2 naming it, one that
 * fails in the child fails with the child's message (the library's allocation beyond the memory
 * budget failing there), and the real read runs only on files the child read to the end. */
#ifndef NCP_ISOLATE_H
#define NCP_ISOLATE_H

#include <stddef.h>

#include "util/ncp_error.h"

/* Runs in the child; its error message is passed back to the parent. */
typedef int (*ncp_isolated_fn)(void *ctx, ncp_error *err);

/* Runs fn(ctx, ...) in a child process (fork; the child ends with _exit, so no atexit handler,
 * stdio buffer or leak check of the parent's runs twice). mem_limit > 0: the child's address
 * space may grow by at most that many bytes (RLIMIT_AS; not in sanitizer builds, whose shadow
 * memory needs terabytes of address space), so an allocation beyond it fails there. On return:
 *   NCP_OK, *exit_code = fn's return value (0..255), child_err = its message, when the child
 *     ended normally;
 *   NCP_OK, *exit_code = -1 when no child could be made (fork failed): the caller goes on
 *     without the check;
 *   NCP_ERR_INPUT when the child was killed by a signal: the message says that reading `what`
 *     crashed and that the file is damaged.
 * A sanitizer build's child that hits a wild access ends with exit 1 after its report (no
 * signal): callers whose fn never returns 1 count that as the crash (NCP_ISOLATED_SANITIZER). */
#define NCP_ISOLATED_SANITIZER 1

/* Pipe I/O between a parent and its forked child, retrying on EINTR and short transfers.
 * ncp_write_all: 0 when all n bytes went out, -1 otherwise. ncp_read_all: the bytes read,
 * fewer than n only at end of file or on an error. */
int ncp_write_all(int fd, const void *buf, size_t n);
size_t ncp_read_all(int fd, void *buf, size_t n);
/* Fork and the harness's writer thread. A child forked while another thread of the parent holds
 * a lock keeps that lock held forever: glibc's malloc resets its own locks at fork, but the
 * sanitizers' allocator (and HDF5's, stdio's) do not, so an isolated solve forked while the main
 * thread wrote a finished row into HDF5 hung in its first malloc (seen in the ASan build of
 * test_plugin_load). Every fork() of the process (pthread_atfork, registered on the first call)
 * waits while a thread is between ncp_fork_guard_begin and ncp_fork_guard_end, and such a thread
 * waits while a fork is under way. The main thread brackets its writing with them; solves on
 * other workers (-j N) still allocate while a sibling forks: with glibc's malloc that is safe.
 * The one lock is process-wide because fork is (pthread_atfork takes no context). */
void ncp_fork_guard_begin(void);
/* Reaps child pid, SIGKILLed first with kill_first, retrying on EINTR; *wst (may be NULL) gets
 * its wait status. */
void ncp_reap_child(int pid, int kill_first, int *wst);
void ncp_fork_guard_end(void);
int ncp_isolated_crash(const char *what, ncp_error *err);
int ncp_isolated_run(ncp_isolated_fn fn, void *ctx, const char *what, double mem_limit,
                     int *exit_code, ncp_error *child_err, ncp_error *err);
/* ncp_isolated_run for a context of plain data (ctx_bytes bytes holding no pointer: a flat
 * struct, a string), so that the child can be made by the run's spawner (util/spawner.h) from
 * a copy passed through its data file: no page of this process, the problems it holds and the
 * solver that runs next, is then shared copy-on-write with the child (a child forked here
 * makes every later write to them fault). fn gets the child's copy. Without a spawner (library
 * use, the unit tests), or when it cannot make the child, the child is forked here. The same
 * results as ncp_isolated_run. */
int ncp_isolated_run_data(ncp_isolated_fn fn, const void *ctx, size_t ctx_bytes,
                          const char *what, double mem_limit, int *exit_code,
                          ncp_error *child_err, ncp_error *err);

/* A file read to its end in a child first, the result thrown away there: fn(ctx, err) reads
 * path and returns an error code of util/ncp_error.h (never 1). ctx_bytes > 0: ctx is plain data
 * (ncp_isolated_run_data); 0: the child is forked here and fn gets ctx as it is. The child may
 * allocate the memory budget (bytes, util/membudget.h) plus NCP_ISOLATED_SLACK for libhdf5's
 * own caches. Returns NCP_OK when the child read the file (or no child could be made: the
 * caller reads without the check), the child's code and message when it refused the file
 * (out of memory: NCP_ERR_INPUT naming the budget), NCP_ERR_INPUT naming path when it crashed. */
#define NCP_ISOLATED_SLACK (256.0 * 1048576.0)
int ncp_isolated_read(ncp_isolated_fn fn, void *ctx, size_t ctx_bytes, const char *path,
                      double budget, ncp_error *err);

#endif
