/* Running a function in a forked child (isolate.h). */
#define _GNU_SOURCE /* pipe2 */
#include "util/isolate.h"
#include "util/membudget.h"
#include "util/spawner.h"

#include <fcntl.h>
#include <stdlib.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* isolate.h: the writer's lock around every fork of the process */
static pthread_mutex_t fork_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void fork_prepare(void) { pthread_mutex_lock(&fork_mu); }
static void fork_after(void) { pthread_mutex_unlock(&fork_mu); }
static void fork_register(void) { (void)pthread_atfork(fork_prepare, fork_after, fork_after); }

void ncp_fork_guard_begin(void)
{
    (void)pthread_once(&fork_once, fork_register);
    pthread_mutex_lock(&fork_mu);
}

void ncp_fork_guard_end(void) { pthread_mutex_unlock(&fork_mu); }

void ncp_reap_child(int pid, int kill_first, int *wst)
{
    int st = 0;
    if (kill_first) kill((pid_t)pid, SIGKILL);
    while (waitpid((pid_t)pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (wst) *wst = st;
}

/* The child's address-space limit: its present size plus `extra` (never above the limit it
 * inherited: --max-memory's, util/membudget.h). */
static void limit_memory(double extra)
{
    double now = ncp_mem_process_size();
    if (now > 0.0) (void)ncp_mem_limit_address_space(now + extra);
}

int ncp_write_all(int fd, const void *buf, size_t n)
{
    const char *b = buf;
    while (n > 0) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

size_t ncp_read_all(int fd, void *buf, size_t n)
{
    char *b = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, b + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    return got;
}

/* The child's end: fn's result (and message on out), its memory limited first. */
static _Noreturn void run_isolated(ncp_isolated_fn fn, void *ctx, double mem_limit, int out)
{
    if (mem_limit > 0.0) limit_memory(mem_limit);
    ncp_error e;
    ncp_error_clear(&e);
    int rc = fn(ctx, &e);
    (void)ncp_write_all(out, e.msg, strlen(e.msg)); /* a short write loses the message only */
    _exit(rc & 0xff);
}

/* The parent's end: the child's message (read first: the child blocks on a full pipe
 * otherwise), up to its end of file. Closes fd. */
static void read_message(int fd, ncp_error *child_err)
{
    size_t got = 0;
    char *buf = child_err->msg;
    for (;;) {
        ssize_t r = read(fd, buf + got, sizeof child_err->msg - 1 - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
        if (got >= sizeof child_err->msg - 1) {
            char sink[256];
            while (read(fd, sink, sizeof sink) > 0) {
            }
            break;
        }
    }
    buf[got] = '\0';
    close(fd);
}

/* How the child ended (its wait status st), as ncp_isolated_run returns it. */
static int child_ended(int st, const char *what, int *exit_code, ncp_error *child_err,
                       ncp_error *err)
{
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "reading %s crashed the HDF5 library (signal %d, %s): the file is "
                             "damaged (ncpbench read it in a separate process first, so nothing "
                             "else was affected); check how it was written, or write it again",
                             what, sig, strsignal(sig));
    }
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    child_err->code = code;
    *exit_code = code;
    return NCP_OK;
}

int ncp_isolated_run(ncp_isolated_fn fn, void *ctx, const char *what, double mem_limit,
                     int *exit_code, ncp_error *child_err, ncp_error *err)
{
    *exit_code = -1;
    ncp_error_clear(child_err);
    int fd[2];
    if (pipe(fd) != 0) return NCP_OK; /* no pipe, no child: the caller reads without the check */
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return NCP_OK;
    }
    if (pid == 0) {
        close(fd[0]);
        signal(SIGINT, SIG_IGN); /* Ctrl-C is the parent's to handle; it ends the child */
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* and it ends with the parent, however that ends */
        run_isolated(fn, ctx, mem_limit, fd[1]);
    }
    close(fd[1]);
    read_message(fd[0], child_err);
    int st = 0;
    pid_t w;
    while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR) {
    }
    if (w < 0) return NCP_OK; /* lost the child: no check */
    return child_ended(st, what, exit_code, child_err, err);
}

/* ncp_isolated_run_data's job in the spawner's child: the function, limit and context from
 * the data file (the function pointer is valid there: the same executable image, no exec). */
typedef struct iso_job_head {
    ncp_isolated_fn fn;
    double mem_limit;
    size_t ctx_bytes;
} iso_job_head;

static void iso_job(void *arg, int io_fd, int data_fd, const volatile int *interrupt)
{
    (void)arg;
    (void)interrupt;
    static const char bad[] = "the isolated reader's process could not read its job";
    iso_job_head h;
    void *ctx = NULL;
    if (ncp_read_all(data_fd, &h, sizeof h) != sizeof h ||
        !(ctx = malloc(h.ctx_bytes ? h.ctx_bytes : 1)) ||
        ncp_read_all(data_fd, ctx, h.ctx_bytes) != h.ctx_bytes) {
        (void)ncp_write_all(io_fd, bad, sizeof bad - 1);
        _exit(NCP_ERR_INTERNAL);
    }
    close(data_fd);
    run_isolated(h.fn, ctx, h.mem_limit, io_fd);
}

int ncp_isolated_run_data(ncp_isolated_fn fn, const void *ctx, size_t ctx_bytes,
                          const char *what, double mem_limit, int *exit_code,
                          ncp_error *child_err, ncp_error *err)
{
    if (ncp_spawner_pid() < 0) /* no spawner (library use, the unit tests): forked here */
        return ncp_isolated_run(fn, (void *)ctx, what, mem_limit, exit_code, child_err, err);
    *exit_code = -1;
    ncp_error_clear(child_err);
    int fd[2] = {-1, -1}, data = -1, rc = 1;
    iso_job_head h = {fn, mem_limit, ctx_bytes};
    ncp_spawned sp = {-1, -1};
    ncp_error why = {0};
    if (pipe2(fd, O_CLOEXEC) == 0 && (data = ncp_spawn_data_file(what, &why)) >= 0 &&
        ncp_write_all(data, &h, sizeof h) == 0 && ncp_write_all(data, ctx, ctx_bytes) == 0)
        rc = ncp_spawn(iso_job, NULL, fd[1], data, 1, &sp, &why);
    if (fd[1] >= 0) close(fd[1]);
    if (data >= 0) close(data);
    if (rc) { /* no pipe, data file or spawner's child (the spawner gone?): forked here */
        if (fd[0] >= 0) close(fd[0]);
        return ncp_isolated_run(fn, (void *)ctx, what, mem_limit, exit_code, child_err, err);
    }
    read_message(fd[0], child_err);
    int st = 0;
    ncp_spawn_reap(&sp, 0, &st);
    return child_ended(st, what, exit_code, child_err, err);
}

int ncp_isolated_read(ncp_isolated_fn fn, void *ctx, size_t ctx_bytes, const char *path,
                      double budget, ncp_error *err)
{
    const double limit = ncp_mem_budget_or_default(budget) + NCP_ISOLATED_SLACK;
    int code = 0;
    ncp_error child;
    ncp_error_clear(&child);
    int rc = ctx_bytes ? ncp_isolated_run_data(fn, ctx, ctx_bytes, path, limit, &code, &child, err)
                       : ncp_isolated_run(fn, ctx, path, limit, &code, &child, err);
    if (rc) return rc;
    if (code == NCP_ISOLATED_SANITIZER) return ncp_isolated_crash(path, err);
    if (code == NCP_ERR_NOMEM)
        return ncp_error_set(err, NCP_ERR_INPUT, "reading %s needs more memory than the budget "
                             "allows (the HDF5 library's own allocation failed; --max-memory "
                             "raises it)%s%s", path, child.msg[0] ? ": " : "", child.msg);
    if (code > 0) /* refused in the child: its message, without reading again here */
        return ncp_error_set(err, code, "%s", child.msg[0] ? child.msg : "reading failed");
    return NCP_OK;
}

int ncp_isolated_crash(const char *what, ncp_error *err)
{
    return ncp_error_set(err, NCP_ERR_INPUT, "reading %s crashed (the sanitizer's report is "
                         "above): the file is damaged", what);
}
