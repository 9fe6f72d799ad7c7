/* util/spawner.h: a child made by the spawner shares no page with the process that asked for
 * it. Checked without timing, on the invariants themselves: the child's parent is a minder
 * whose parent is the spawner (not this process); the data file and the channel reach it; after
 * it ran, writing every page of a large pre-faulted buffer of this process takes no page fault
 * (getrusage RUSAGE_THREAD ru_minflt), where a plain fork of this process makes it take about
 * one per page (the same measurement, shown to see the bias); the same for the read of a problem
 * file in a child (util/isolate.h ncp_isolated_run_data, the store's crash guard: a good file
 * and one that crashes libhdf5), whose child is the spawner's, gets a copy of its context and
 * its memory limit, and is forked here once the spawner is gone; a child killed at the caller's
 * word reads as SIGKILL; and a dead spawner is an error naming how it ended, with no zombie
 * left. */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/store.h"
#include "tcheck.h"
#include "util/isolate.h"
#include "util/membudget.h"
#include "util/spawner.h"

#define BUF_PAGES 8192 /* 32 MiB of 4 KiB pages */

/* The child's report: its pid and parent, and the data it read. */
typedef struct report {
    int pid, ppid;
    char data[32];
} report;

static void job_report(void *arg, int fd, int data_fd, const volatile int *interrupt)
{
    (void)arg;
    (void)interrupt;
    report r;
    memset(&r, 0, sizeof r);
    r.pid = (int)getpid();
    r.ppid = (int)getppid();
    if (data_fd >= 0) (void)ncp_read_all(data_fd, r.data, sizeof r.data - 1);
    if (ncp_write_all(fd, &r, sizeof r)) _exit(3);
    char go;
    (void)ncp_read_all(fd, &go, 1); /* held until the parent looked at its process tree */
    _exit(0);
}

static void job_sleep(void *arg, int fd, int data_fd, const volatile int *interrupt)
{
    (void)arg;
    (void)fd;
    (void)data_fd;
    (void)interrupt;
    for (;;) pause();
}

/* The parent pid of pid, from /proc; -1 when it cannot be read. */
static int parent_of(int pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close_paren = strrchr(buf, ')');
    int ppid = -1;
    if (!close_paren || sscanf(close_paren + 1, " %*c %d", &ppid) != 1) return -1;
    return ppid;
}

static long minflt(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_minflt;
}

/* An isolated reader's child: "its parent, that one's parent, its context" as its message. */
static int iso_where(void *ctx, ncp_error *err)
{
    int pp = (int)getppid();
    snprintf(err->msg, sizeof err->msg, "%d %d %s", pp, parent_of(pp), (const char *)ctx);
    return 7;
}

/* An isolated reader's child allocating (and touching) 256 MiB: 20 when it cannot. */
static int iso_alloc(void *ctx, ncp_error *err)
{
    (void)ctx;
    (void)err;
    const size_t n = (size_t)256 << 20;
    char *p = malloc(n);
    if (!p) return 20;
    memset(p, 1, n);
    free(p);
    return 21;
}

/* Runs iso_where isolated: 0 when it ran, with its parent and grandparent. */
static int where_isolated(int *ppid, int *gppid)
{
    static const char ctx[] = "a context of plain data, copied to the child";
    int code = -1;
    ncp_error child = {0}, err = {0};
    int rc = ncp_isolated_run_data(iso_where, ctx, sizeof ctx, "test", 0.0, &code, &child, &err);
    char text[64]; /* the %63 below */
    *ppid = *gppid = -1;
    CHECK(rc == NCP_OK && code == 7);
    CHECK(sscanf(child.msg, "%d %d %63[^\n]", ppid, gppid, text) == 3 && !strcmp(text, ctx));
    return rc == NCP_OK && code == 7 ? 0 : -1;
}

/* Page faults this thread takes writing one byte in every page of buf. */
static long faults_writing(volatile char *buf, size_t page, unsigned char v)
{
    long before = minflt();
    for (size_t i = 0; i < BUF_PAGES; i++) buf[i * page] = (char)v;
    return minflt() - before;
}

int main(void)
{
    ncp_error err = {0};
    CHECK_OK(ncp_spawner_start(&err), &err);
    const int sp_pid = ncp_spawner_pid();
    CHECK(sp_pid > 0 && sp_pid != (int)getpid());
    CHECK(parent_of(sp_pid) == (int)getpid());

    /* the large buffer comes after the spawner, as the problems of a run do */
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *buf = mmap(NULL, BUF_PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    CHECK(buf != MAP_FAILED);
    if (buf == MAP_FAILED) return 1;
    (void)madvise(buf, BUF_PAGES * page, MADV_NOHUGEPAGE); /* one fault per page, not per 2 MiB */
    (void)faults_writing(buf, page, 1); /* pre-faulted: every page is this process's, writable */
    CHECK(faults_writing(buf, page, 2) < BUF_PAGES / 100);

    /* a child of the spawner: its parent is a minder, the minder's the spawner */
    int io[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, io) == 0);
    int data = ncp_spawn_data_file("test", &err);
    CHECK(data >= 0);
    const char msg[] = "the problem";
    CHECK(ncp_write_all(data, msg, sizeof msg) == 0);
    ncp_spawned child;
    CHECK_OK(ncp_spawn(job_report, NULL, io[1], data, 1, &child, &err), &err);
    close(io[1]);
    close(data);
    report r;
    memset(&r, 0, sizeof r);
    CHECK(ncp_read_all(io[0], &r, sizeof r) == sizeof r);
    CHECK(r.pid == child.pid);
    CHECK(r.ppid != (int)getpid());
    CHECK(parent_of(r.ppid) == sp_pid);
    CHECK(!strcmp(r.data, msg)); /* the data file read from its start */
    CHECK(ncp_write_all(io[0], "g", 1) == 0);
    int wst = -1;
    ncp_spawn_reap(&child, 0, &wst);
    close(io[0]);
    CHECK(WIFEXITED(wst) && WEXITSTATUS(wst) == 0);
    /* no page of this process was shared with it: writing them faults nothing */
    long after_spawner = faults_writing(buf, page, 3);
    printf("page faults writing %d pages after a spawner's child: %ld\n", BUF_PAGES, after_spawner);
    CHECK(after_spawner < BUF_PAGES / 100);

    /* the isolated reader's child (util/isolate.h): the spawner's too, with a copy of its
     * context, and its memory limit */
    int ppid = -1, gppid = -1;
    CHECK(where_isolated(&ppid, &gppid) == 0);
    CHECK(ppid != (int)getpid() && gppid == sp_pid);
    int code = -1;
    ncp_error child_err = {0};
    CHECK_OK(ncp_isolated_run_data(iso_alloc, NULL, 0, "test", 64.0 * 1048576.0, &code,
                                   &child_err, &err), &err);
#ifdef NCP_MEM_NO_ADDRESS_LIMIT
    CHECK(code == 20 || code == 21); /* sanitizers: no address-space limit */
#else
    CHECK(code == 20);
#endif
    /* the store's crash guard reads through it: a good file is read, one that crashes libhdf5
     * is an input error naming it (a sanitizer's report, or the signal) */
    ncp_problem *ps = NULL;
    int np = 0;
    const char *good = "tests/fuzz/corpus/problems/box-on-plane-2steps.h5";
    const char *bad = "tests/fuzz/hdf5-crashes/problems-segv-H5F__accum_read-1.h5";
    CHECK_OK(ncp_load_problems_isolated(good, 0.0, &ps, &np, &err), &err);
    CHECK(np == 2);
    ncp_problems_free(ps, np);
    ncp_error_clear(&err);
    CHECK(ncp_load_problems_isolated(bad, 0.0, &ps, &np, &err) == NCP_ERR_INPUT);
    CHECK(strstr(err.msg, bad) && strstr(err.msg, "crashed"));
    ncp_error_clear(&err);
    /* and no page of this process was shared with those children either */
    long after_reads = faults_writing(buf, page, 5);
    printf("page faults writing %d pages after the isolated reads: %ld\n", BUF_PAGES,
           after_reads);
    CHECK(after_reads < BUF_PAGES / 100);

    /* the same measurement after a fork of this process: about one fault per page (what the
     * spawner avoids; shows that the measurement sees copy-on-write) */
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    CHECK(pid > 0);
    ncp_reap_child((int)pid, 0, NULL);
    long after_fork = faults_writing(buf, page, 4);
    printf("page faults writing %d pages after a fork of this process: %ld\n", BUF_PAGES,
           after_fork);
    CHECK(after_fork > BUF_PAGES / 2);

    /* a child killed at the caller's word */
    CHECK(pipe(io) == 0);
    CHECK_OK(ncp_spawn(job_sleep, NULL, io[1], -1, 1, &child, &err), &err);
    close(io[1]);
    ncp_spawn_reap(&child, 1, &wst);
    close(io[0]);
    CHECK(WIFSIGNALED(wst) && WTERMSIG(wst) == SIGKILL);

    /* a dead spawner: the next request fails naming how it ended; the spawner is reaped */
    CHECK(kill(sp_pid, SIGKILL) == 0);
    for (int i = 0; i < 10000; i++) { /* until it has ended (left for ncp_spawn to reap) */
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)sp_pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            si.si_pid == sp_pid)
            break;
        usleep(1000);
    }
    CHECK(pipe(io) == 0);
    ncp_error_clear(&err);
    int rc = ncp_spawn(job_sleep, NULL, io[1], -1, 1, &child, &err);
    close(io[0]);
    close(io[1]);
    CHECK(rc == NCP_ERR_INTERNAL);
    CHECK(strstr(err.msg, "spawner") && strstr(err.msg, "killed by signal 9"));
    printf("%s\n", err.msg);
    /* the isolated reader without its spawner: forked here, as before */
    CHECK(where_isolated(&ppid, &gppid) == 0);
    CHECK(ppid == (int)getpid());
    ncp_spawner_stop();
    CHECK(where_isolated(&ppid, &gppid) == 0);
    CHECK(ppid == (int)getpid());
    errno = 0;
    CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD); /* no child left, none a zombie */
    munmap(buf, BUF_PAGES * page);
    return tcheck_exit("spawner");
}
