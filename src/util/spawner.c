/* The spawner: the children of a run forked from a small process (spawner.h). */
#define _GNU_SOURCE /* close_range, memfd_create */
#include "util/spawner.h"
#include "util/isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* spawner.h: the process's spawner (its socket and pid; -1: none), how it ended once seen */
static int spawner_sock = -1;
static pid_t spawner_proc = -1;
static pthread_mutex_t gone_mu = PTHREAD_MUTEX_INITIALIZER;
static int gone_status = -1; /* its wait status once reaped (-1: not seen gone) */

/* A child's interrupt flag (its own copy of this variable: set only in children) */
static volatile sig_atomic_t child_interrupt = 0;
_Static_assert(sizeof(sig_atomic_t) == sizeof(int), "sig_atomic_t is read as int");

static void on_interrupt(int sig)
{
    (void)sig;
    child_interrupt = 1;
}

typedef struct spawn_req {
    ncp_spawn_fn fn;
    void *arg;
    int ignore_interrupt;
    int has_data;
} spawn_req;

/* The child: its descriptors (3 and 4, nothing else above 2), signals, then the job. */
static _Noreturn void run_child(const spawn_req *rq, int io_fd, int data_fd)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGCHLD, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    if (rq->ignore_interrupt) {
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
    } else {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_interrupt;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
    }
    /* a child's own children (a peer inside an isolated solve) are forked by it directly */
    spawner_sock = -1;
    spawner_proc = -1;
    /* moved above 4 first, so that neither dup2 below overwrites the other */
    int io = fcntl(io_fd, F_DUPFD, 10);
    int d = data_fd >= 0 ? fcntl(data_fd, F_DUPFD, 10) : -1;
    if (io < 0 || dup2(io, 3) != 3 || (data_fd >= 0 && (d < 0 || dup2(d, 4) != 4))) _exit(3);
    /* glibc >= 2.34; a kernel without it only keeps the copies (harmless) */
    (void)close_range(data_fd >= 0 ? 5 : 4, ~0u, 0);
    if (data_fd >= 0 && lseek(4, 0, SEEK_SET) != 0) _exit(3);
    rq->fn(rq->arg, 3, data_fd >= 0 ? 4 : -1, (const volatile int *)&child_interrupt);
    _exit(3); /* fn must not return */
}

/* A minder: forks the child, sends its pid (and errno when the fork failed), waits for it and
 * sends its wait status. */
static _Noreturn void minder(const spawn_req *rq, int io, int data, int ctl)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGCHLD, SIG_DFL); /* the spawner's SIG_IGN would have its child reaped unseen */
    pid_t c = fork();
    if (c == 0) {
        close(ctl);
        run_child(rq, io, data);
    }
    int msg[2] = {c < 0 ? -1 : (int)c, c < 0 ? errno : 0};
    close(io);
    if (data >= 0) close(data);
    if (send(ctl, msg, sizeof msg, MSG_NOSIGNAL) != (ssize_t)sizeof msg && c > 0)
        kill(c, SIGKILL); /* nobody to report to */
    if (c < 0) _exit(1);
    int st = 0;
    while (waitpid(c, &st, 0) < 0 && errno == EINTR) {
    }
    (void)send(ctl, &st, sizeof st, MSG_NOSIGNAL);
    _exit(0);
}

/* One request: the datagram and its descriptors (io, ctl[, data]); -1 at the end. */
static int receive(int sock, spawn_req *rq, int fds[3], int *nfd)
{
    union {
        char buf[CMSG_SPACE(3 * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {rq, sizeof *rq};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                        .msg_controllen = sizeof u.buf};
    ssize_t r;
    while ((r = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
    }
    if (r <= 0) return -1;
    *nfd = 0;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
            int n = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            if (n > 3) n = 3;
            memcpy(fds, CMSG_DATA(cm), (size_t)n * sizeof(int));
            *nfd = n;
        }
    return r == (ssize_t)sizeof *rq ? 0 : 1;
}

static _Noreturn void spawner_main(int sock, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0); /* the parent ended before the line above */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGCHLD, SIG_IGN); /* minders are reaped by the kernel: no zombie */
    for (;;) {
        spawn_req rq;
        int fds[3] = {-1, -1, -1}, nfd = 0;
        int r = receive(sock, &rq, fds, &nfd);
        if (r < 0) _exit(0); /* the measuring process closed its end, or ended */
        if (r == 0 && nfd == 2 + (rq.has_data != 0)) {
            pid_t m = fork(); /* failed: ctl closes unanswered, the caller says so */
            if (m == 0) {
                close(sock);
                minder(&rq, fds[0], rq.has_data ? fds[2] : -1, fds[1]);
            }
        }
        for (int i = 0; i < nfd; i++) close(fds[i]);
    }
}

int ncp_spawner_start(ncp_error *err)
{
    if (spawner_sock >= 0) return NCP_OK;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
        return ncp_error_set(err, NCP_ERR_INTERNAL, "cannot start the spawner process: "
                             "socketpair: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        (void)close_range(3, (unsigned)sv[1] - 1, 0); /* nothing of the parent's but its socket */
        (void)close_range((unsigned)sv[1] + 1, ~0u, 0);
        spawner_main(sv[1], parent);
    }
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        return ncp_error_set(err, NCP_ERR_INTERNAL, "cannot start the spawner process: fork: %s "
                             "(out of processes or memory?)", strerror(errno));
    }
    spawner_sock = sv[0];
    spawner_proc = pid;
    return NCP_OK;
}

void ncp_spawner_stop(void)
{
    if (spawner_sock < 0) return;
    close(spawner_sock);
    spawner_sock = -1;
    pthread_mutex_lock(&gone_mu);
    if (gone_status < 0) ncp_reap_child((int)spawner_proc, 0, NULL);
    pthread_mutex_unlock(&gone_mu);
    spawner_proc = -1;
}

int ncp_spawner_pid(void) { return spawner_sock >= 0 ? (int)spawner_proc : -1; }

int ncp_spawn_data_file(const char *what, ncp_error *err)
{
    int fd = memfd_create("ncpbench-job", MFD_CLOEXEC);
    if (fd < 0)
        ncp_error_set(err, NCP_ERR_INTERNAL, "%s: cannot make the data file of its process "
                      "(memfd_create: %s)", what, strerror(errno));
    return fd;
}

/* Why the spawner failed a request: how it ended (reaped here, once), or that it could not
 * fork. */
static int spawner_failed(ncp_error *err)
{
    pthread_mutex_lock(&gone_mu);
    if (gone_status < 0) {
        int st = 0;
        pid_t w;
        while ((w = waitpid(spawner_proc, &st, WNOHANG)) < 0 && errno == EINTR) {
        }
        if (w == spawner_proc) gone_status = st;
    }
    int st = gone_status;
    pthread_mutex_unlock(&gone_mu);
    if (st < 0)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "ncpbench's spawner process (pid %d) could "
                             "not fork a solve's process (out of processes or memory?)",
                             (int)spawner_proc);
    if (WIFSIGNALED(st))
        return ncp_error_set(err, NCP_ERR_INTERNAL, "ncpbench's spawner process (pid %d, which "
                             "starts the peers' and isolated solves' processes) was killed by "
                             "signal %d (%s): no solve can run in a process of its own any more "
                             "(killed by hand, or by the kernel's out-of-memory killer?)",
                             (int)spawner_proc, WTERMSIG(st), strsignal(WTERMSIG(st)));
    return ncp_error_set(err, NCP_ERR_INTERNAL, "ncpbench's spawner process (pid %d, which "
                         "starts the peers' and isolated solves' processes) ended with exit "
                         "code %d: no solve can run in a process of its own any more",
                         (int)spawner_proc, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

int ncp_spawn(ncp_spawn_fn fn, void *arg, int io_fd, int data_fd, int ignore_interrupt,
              ncp_spawned *sp, ncp_error *err)
{
    spawn_req rq = {fn, arg, ignore_interrupt, data_fd >= 0};
    sp->pid = -1;
    sp->ctl = -1;
    if (spawner_sock < 0) { /* no spawner: this process's own child */
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid == 0) run_child(&rq, io_fd, data_fd);
        if (pid < 0)
            return ncp_error_set(err, NCP_ERR_INTERNAL, "cannot fork a solve's process: %s "
                                 "(out of processes or memory?)", strerror(errno));
        sp->pid = (int)pid;
        return NCP_OK;
    }
    int ctl[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctl))
        return ncp_error_set(err, NCP_ERR_INTERNAL, "cannot ask for a solve's process: "
                             "socketpair: %s", strerror(errno));
    int fds[3] = {io_fd, ctl[1], data_fd};
    const int nfd = data_fd >= 0 ? 3 : 2;
    union {
        char buf[CMSG_SPACE(3 * sizeof(int))];
        struct cmsghdr align;
    } u;
    memset(&u, 0, sizeof u);
    struct iovec iov = {&rq, sizeof rq};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                        .msg_controllen = CMSG_SPACE((size_t)nfd * sizeof(int))};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN((size_t)nfd * sizeof(int));
    memcpy(CMSG_DATA(cm), fds, (size_t)nfd * sizeof(int));
    ssize_t w;
    while ((w = sendmsg(spawner_sock, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
    }
    close(ctl[1]);
    int msg[2] = {-1, 0};
    if (w != (ssize_t)sizeof rq || ncp_read_all(ctl[0], msg, sizeof msg) != sizeof msg) {
        close(ctl[0]);
        return spawner_failed(err);
    }
    if (msg[0] < 0) {
        close(ctl[0]);
        return ncp_error_set(err, NCP_ERR_INTERNAL, "cannot fork a solve's process: %s (out of "
                             "processes or memory?)", strerror(msg[1]));
    }
    sp->pid = msg[0];
    sp->ctl = ctl[0];
    return NCP_OK;
}

void ncp_spawn_reap(ncp_spawned *sp, int kill_first, int *wst)
{
    if (sp->pid <= 0) return;
    if (sp->ctl < 0) {
        ncp_reap_child(sp->pid, kill_first, wst);
        sp->pid = -1;
        return;
    }
    if (kill_first) { /* its status not sent yet: still running (its pid is still its own) */
        struct pollfd pf = {sp->ctl, POLLIN, 0};
        int r;
        while ((r = poll(&pf, 1, 0)) < 0 && errno == EINTR) {
        }
        if (r == 0) kill((pid_t)sp->pid, SIGKILL);
    }
    int st = 0;
    if (ncp_read_all(sp->ctl, &st, sizeof st) != sizeof st) st = SIGKILL; /* minder gone */
    close(sp->ctl);
    sp->ctl = -1;
    sp->pid = -1;
    if (wst) *wst = st;
}
