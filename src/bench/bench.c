/* Benchmark driver: every problem x solver, rows written in order as they complete (bench.h). */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/deadline.h"
#include "bench/grade.h"
#include "bench/mpi_pool.h"
#include "bench/output.h"
#include "bench/resume.h"
#include "metrics/metrics.h"
#include "store/solutions.h"
#include "util/clock.h"
#include "util/machine.h"
#include "util/membudget.h"
#include "solve/catalog.h"
#include "solvers/registry.h"
#include "util/fsutil.h"
#include "util/isolate.h"
#include "util/spawner.h"
#include "util/progress.h"
#include "util/safefile.h"

typedef struct trace_row {
    int iter;
    double t;
    double vals[NCP_NMETRICS];
} trace_row;

enum { T_PENDING, T_RUNNING, T_DONE, T_KEPT };

typedef struct task {
    int prob, solver;
    int state;             /* T_* */
    int rc;
    ncp_error err;
    ncp_result res;
    char note[512];        /* the row's note: the harness's, and the warm start */
    trace_row *trace;
    int ntrace, captrace;
    int trace_oom;
    long long kept;        /* T_KEPT: the journal offset of the earlier run's result */
    int nv;                /* the solved problem's nv (rank 0 need not have finished it) */
    double t_start;        /* T_RUNNING: when its solve began (ncp_now_ms, wall; 0: its
                              problem is still being finished) */
    pthread_t who;         /* T_RUNNING: the worker of this process solving it */
    int local;             /* 1: who is set */
    clockid_t cpu_clock;   /* T_RUNNING, local: who's CPU clock (has_cpu_clock) */
    int has_cpu_clock;
    ncp_deadline dl;       /* T_RUNNING, local: the watchdog's rule (deadline.h), under mu */
    int hung;              /* in-process solve past its hard deadline: abandoned (watchdog) */
} task;

/* What the summary needs of one written row. */
typedef struct row_rec {
    int solver;
    int declined;          /* NCP_UNSUP_SOLVER: index into writers.declined, else -1 */
    int iterations, converged, status;
    ncp_note_info ni;
    double setup_ms, solve_ms;
    double metrics[NCP_NMETRICS];
} row_rec;

typedef struct bench_ctx {
    const ncp_problem *probs; /* the current batch */
    int nprobs;
    const ncp_bench_opts *o;
    task *tasks;
    int ntasks;
    int abort;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_mutex_t fork_mu; /* --isolate: one pipe + fork at a time (isolated_solve) */
    /* MPI (bench/mpi_pool.h). Rank 0: pool != NULL, one more thread serves the other ranks
     * from the same queue. A worker rank reads its batches from src and solves one task at a
     * time in scratch. Batches are numbered in the order of the source on every rank. */
    ncp_mpi_pool *pool;
    int nbatches;         /* batches run (rank 0) or read (worker rank) so far */
    ncp_error read_err;   /* worker rank: why it could not read a batch (abort set) */
    const ncp_bench_source *src;
    task scratch;
    /* Per problem of the current batch: its fingerprint (ncp_mpi_fingerprint of the problem as
     * the source gave it, before any finish step, so that ranks compare like with like) and
     * its finish state (src->finish; F_*). Rank 0 also keeps where each problem's tasks go
     * (take_for): owner = the rank that started it (-1: none yet), held = per rank and problem,
     * whether that rank was handed a task of it (and so finished it), cur = per rank, the
     * problem it is working through. */
    uint64_t *fp;
    unsigned char *fin;
    int *running;   /* per problem: tasks of it being solved by this process's threads */
    int last_prob;  /* worker rank: the problem of its previous task (-1: none) */
    int *owner;
    unsigned char *held;
    int *cur;
    int nranks;
    /* The watchdog (docs/design.md §5.7.1): a solve's hard deadline (wall ms), which solvers
     * run in a child (--isolate, or a plugin's by default), the in-process solves abandoned
     * past it (the run stops), and when the writer first saw an interrupt. */
    double deadline_ms;
    unsigned char iso[NCP_BENCH_MAX_SOLVERS];
    int hung;
    double interrupt_seen;
} bench_ctx;

enum { F_RAW, F_BUSY, F_DONE, F_FAILED };

/* The journal and the order of the rows in the outputs, and what the summary is made of. */
typedef struct writers {
    const ncp_bench_opts *o;
    ncp_resume *rs;         /* the journal (bench/resume.h) */
    long long *order;       /* journal offsets of the rows, in the run's order */
    int norder, caporder;
    int kept;               /* rows of earlier runs among them */
    double *tbuf;           /* a trace's rows as journaled */
    int tcap;
    row_rec *rec;
    int nrec, caprec;
    ncp_out_title *titles;
    int ntitles, captitles;
    int nproblems;
    char declined[64][160]; /* the distinct reasons of solvers that declined a problem */
    int ndeclined;
    ncp_profile prof;       /* per-solve sums and the time spent writing */
} writers;

void ncp_note_parse(const char *note, ncp_note_info *ni)
{
    memset(ni, 0, sizeof *ni);
    if (!note) return;
    for (int k = 1; k < NCP_UNSUP_COUNT; k++) {
        const char *s = ncp_unsupported_name(k);
        size_t n = s ? strlen(s) : 0;
        if (n && !strncmp(note, s, n) && note[n] == ':') ni->unsupported = k;
    }
    /* the wording of NCP_UNSUP_MEMORY in journals written before the dense D could also be the
     * matrix too large (resume reads them back) */
    static const char old_memory[] = "needs a dense A too large for the memory limit:";
    if (!strncmp(note, old_memory, sizeof old_memory - 1)) ni->unsupported = NCP_UNSUP_MEMORY;
    for (int b = 0; b < NCP_RECON_COUNT; b++)
        if (strstr(note, ncp_recon_name(1u << b))) ni->applied |= 1u << b;
    ni->warm_guess = strstr(note, NCP_NOTE_WARM_GUESS) != NULL;
    ni->warm_velocity = strstr(note, NCP_NOTE_WARM_VELOCITY) != NULL;
    ni->killed = !strncmp(note, NCP_NOTE_KILLED, strlen(NCP_NOTE_KILLED)) ||
                 !strncmp(note, "stopped (killed)", 16);
}

double ncp_bench_deadline_ms(const ncp_bench_opts *o)
{
    if (o->deadline_ms > 0.0) return o->deadline_ms;
    if (o->budget.time_ms > 0.0)
        return NCP_DEADLINE_FACTOR * o->budget.time_ms + NCP_DEADLINE_FLOOR_MS;
    return NCP_DEADLINE_NO_BUDGET_MS;
}

static const char *const WARM_NAMES[] = {"zero", "guess", "velocity"};

const char *ncp_warm_start_name(int mode)
{
    return mode >= 0 && mode < 3 ? WARM_NAMES[mode] : "?";
}

int ncp_warm_start_from_name(const char *name)
{
    for (int k = 0; name && k < 3; k++)
        if (!strcmp(name, WARM_NAMES[k])) return k;
    return -1;
}

int ncp_bench_grow(void *arrp, int *cap, int n, size_t elem, ncp_error *err)
{
    if (n < *cap) return NCP_OK;
    void *old, *grown;
    memcpy(&old, arrp, sizeof old);
    int nc = *cap > 0 ? 2 * *cap : 64;
    while (nc <= n) nc *= 2;
    if (!(grown = realloc(old, (size_t)nc * elem)))
        return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory (an array of %d items)", nc);
    memcpy(arrp, &grown, sizeof grown);
    *cap = nc;
    return NCP_OK;
}

static int trace_cb(void *ctx, int iter, double t, const ncp_metrics *mt)
{
    task *tk = ctx;
    if (ncp_bench_grow(&tk->trace, &tk->captrace, tk->ntrace, sizeof *tk->trace, NULL)) {
        tk->trace_oom = 1; /* the trace is incomplete; the solve itself goes on */
        return 0;
    }
    trace_row *r = &tk->trace[tk->ntrace++];
    r->iter = iter;
    r->t = t;
    ncp_metrics_values(mt, r->vals);
    return 0;
}

static const ncp_params *params_for(const ncp_bench_opts *o, const char *solver)
{
    return ncp_solver_params_find(o->params, o->nparams, solver);
}

/* ---- --isolate: one solve in a child process (bench.h) ----
 *
 * The child is forked by the spawner (util/spawner.h), not by this process: it shares no page
 * with the measuring process, so neither this process's next solver pays the copy-on-write of
 * a fork on its clock nor the child pays it on its own. What it needs comes in its data file
 * (iso_job, then the problem, ncp_problem_send, then the warm starts): it looks the solver up
 * by name in the run's catalog (built, plugins loaded, before the spawner started: the spawner
 * holds the same at the same address), runs ncp_harness_solve exactly as in-process (the trace
 * callback collects its rows in a task of its own) and sends back, through a pipe: a header
 * (the harness's return code and error, the ncp_result by value, the array sizes), lambda, u,
 * v, the trace rows, and a trailer; it then ends with _exit (no atexit handler or stdio buffer
 * of the parent runs twice). The parent reads to the trailer and rebuilds the result; anything
 * short of it is a crash. Both ends are the same executable image (fork, no exec), so the
 * structs travel as bytes. Without a spawner (util/spawner.h) the child is this process's own
 * fork and reads the same file. */
typedef struct iso_head {
    unsigned magic;
    int rc;
    ncp_error err;
    ncp_result res;  /* pointers meaningless here; the arrays follow */
    int m, nv, has_lambda, has_u, has_v, has_sv, ntrace, trace_oom;
} iso_head;
#define ISO_MAGIC 0x6e637069u   /* "ncpi" */
#define ISO_TRAILER 0x69706e63u

/* The child's data file: this, the problem, l0 (m) and v0 (nv) when given. */
typedef struct iso_job {
    char solver[NCP_SOLVER_NAME_MAX];
    int has_params, has_l0, has_v0, has_trace;
    ncp_params params;
    ncp_harness_opts ho; /* trace, trace_ctx and interrupt are the child's own */
} iso_job;

/* The child (util/spawner.h; arg: the run's catalog). Never returns. */
static void iso_child(void *arg, int fd, int data_fd, const volatile int *interrupt)
{
    const ncp_solver_catalog *cat = arg;
    FILE *f = fdopen(data_fd, "rb");
    iso_job job;
    ncp_problem p;
    ncp_error e;
    ncp_error_clear(&e);
    if (!f || fread(&job, sizeof job, 1, f) != 1 || ncp_problem_receive(f, &p, &e)) _exit(3);
    job.solver[sizeof job.solver - 1] = '\0';
    double *l0 = job.has_l0 ? malloc((size_t)p.m * sizeof(double) + 1) : NULL;
    double *v0 = job.has_v0 ? malloc((size_t)p.nv * sizeof(double) + 1) : NULL;
    if ((job.has_l0 && (!l0 || fread(l0, sizeof(double), (size_t)p.m, f) != (size_t)p.m)) ||
        (job.has_v0 && (!v0 || fread(v0, sizeof(double), (size_t)p.nv, f) != (size_t)p.nv)))
        _exit(3);
    fclose(f);
    ncp_solver_variant var;
    const ncp_solver_desc *s = ncp_catalog_find(cat, job.solver);
    if (!s && ncp_is_variant_name(job.solver) && !ncp_catalog_variant(cat, job.solver, &var, &e))
        s = &var.desc;
    if (!s) _exit(3);
    task tk;
    memset(&tk, 0, sizeof tk);
    job.ho.trace = job.has_trace ? trace_cb : NULL;
    job.ho.trace_ctx = &tk;
    job.ho.interrupt = interrupt;
    iso_head h;
    memset(&h, 0, sizeof h);
    h.magic = ISO_MAGIC;
    h.rc = ncp_harness_solve(s, &p, job.has_params ? &job.params : NULL, l0, v0, &job.ho, &tk.res,
                             &h.err);
    h.res = tk.res;
    h.m = p.m;
    h.nv = p.nv;
    h.has_lambda = !h.rc && tk.res.lambda != NULL;
    h.has_u = !h.rc && tk.res.u != NULL;
    h.has_v = !h.rc && tk.res.v != NULL;
    h.has_sv = !h.rc && tk.res.solver_v != NULL;
    h.ntrace = tk.ntrace;
    h.trace_oom = tk.trace_oom;
    unsigned tail = ISO_TRAILER;
    int bad = ncp_write_all(fd, &h, sizeof h);
    if (!bad && h.has_lambda) bad = ncp_write_all(fd, tk.res.lambda, (size_t)p.m * sizeof(double));
    if (!bad && h.has_u) bad = ncp_write_all(fd, tk.res.u, (size_t)p.m * sizeof(double));
    if (!bad && h.has_v) bad = ncp_write_all(fd, tk.res.v, (size_t)p.nv * sizeof(double));
    if (!bad && h.has_sv)
        bad = ncp_write_all(fd, tk.res.solver_v, (size_t)p.nv * sizeof(double));
    if (!bad && h.ntrace) bad = ncp_write_all(fd, tk.trace, (size_t)h.ntrace * sizeof *tk.trace);
    if (!bad) bad = ncp_write_all(fd, &tail, sizeof tail);
    _exit(bad ? 3 : 0);
}

/* The child's data file (iso_child): 0, or -1 with errno. */
static int iso_write_job(const bench_ctx *c, const ncp_solver_desc *s, const ncp_problem *p,
                         const double *l0, const double *v0, const ncp_harness_opts *ho, int fd)
{
    iso_job job;
    memset(&job, 0, sizeof job);
    snprintf(job.solver, sizeof job.solver, "%s", s->name);
    const ncp_params *pr = params_for(c->o, s->name);
    job.has_params = pr != NULL;
    if (pr) job.params = *pr;
    job.has_l0 = l0 != NULL;
    job.has_v0 = v0 != NULL;
    job.has_trace = ho->trace != NULL;
    job.ho = *ho;
    job.ho.trace = NULL;
    job.ho.trace_ctx = NULL;
    job.ho.interrupt = NULL;
    int dup_fd = dup(fd);
    FILE *f = dup_fd >= 0 ? fdopen(dup_fd, "wb") : NULL;
    if (!f) {
        if (dup_fd >= 0) close(dup_fd);
        return -1;
    }
    int bad = fwrite(&job, sizeof job, 1, f) != 1 || ncp_problem_send(f, p) ||
              (l0 && fwrite(l0, sizeof(double), (size_t)p->m, f) != (size_t)p->m) ||
              (v0 && fwrite(v0, sizeof(double), (size_t)p->nv, f) != (size_t)p->nv);
    return (fclose(f) || bad) ? -1 : 0;
}

/* The parent's wait for its child: the solve's hard deadline (ncp_now_ms), the interrupt flag.
 * On an interrupt the child is asked to stop (SIGTERM: its harness stops at the next iterate,
 * as in-process) and given ISO_GRACE_MS more; past the deadline it is killed. */
typedef struct iso_wait {
    pid_t pid;
    ncp_deadline dl;   /* on the child's process CPU time (deadline.h) */
    double grace_at;   /* after an interrupt: the child's last moment (ncp_now_ms; 0: none) */
    const volatile int *interrupt;
    int expired, interrupted;
} iso_wait;
#define ISO_GRACE_MS 1000.0

/* ncp_read_all, giving up at the deadline (w->expired) */
static size_t iso_read(int fd, void *buf, size_t n, iso_wait *w)
{
    char *b = buf;
    size_t got = 0;
    while (got < n && !w->expired) {
        if (w->interrupt && *w->interrupt && !w->interrupted) {
            w->interrupted = 1;
            kill(w->pid, SIGTERM);
            w->grace_at = ncp_now_ms() + ISO_GRACE_MS;
        }
        const double now = ncp_now_ms();
        if ((w->grace_at > 0.0 && now >= w->grace_at) ||
            ncp_deadline_passed(&w->dl, now, ncp_process_cpu_ms(w->pid))) {
            w->expired = 1;
            break;
        }
        double wait = w->grace_at > 0.0 ? fmin(w->grace_at - now, 100.0) : 100.0;
        struct pollfd pf = {fd, POLLIN, 0};
        int pr = poll(&pf, 1, (int)wait + 1);
        if (pr < 0 && errno != EINTR) break;
        if (pr <= 0) continue;
        ssize_t r = read(fd, b + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    return got;
}

/* Reads an array of n doubles from the child into a fresh block; NULL when short (or n = 0). */
static double *iso_read_doubles(int fd, int n, int *ok, iso_wait *w)
{
    if (!*ok || n <= 0) return NULL;
    double *x = malloc((size_t)n * sizeof *x);
    if (!x || iso_read(fd, x, (size_t)n * sizeof *x, w) != (size_t)n * sizeof *x) {
        free(x);
        *ok = 0;
        return NULL;
    }
    return x;
}

/* The row of a solve whose child crashed or was killed: no answer, NaN metrics, the note says
 * how. */
static void iso_crashed(task *tk, int status, const char *how)
{
    ncp_result_free(&tk->res);
    memset(&tk->res, 0, sizeof tk->res);
    tk->res.status = status;
#define NCP_NAN_FIELD(name, doc) tk->res.final.name = NAN;
    NCP_METRIC_COLUMNS(NCP_NAN_FIELD)
#undef NCP_NAN_FIELD
    snprintf(tk->res.note, sizeof tk->res.note, "%s", how);
    free(tk->trace);
    tk->trace = NULL;
    tk->ntrace = tk->captrace = 0;
}

static void isolated_solve(bench_ctx *c, task *tk, const ncp_solver_desc *s, const ncp_problem *p,
                           const double *l0, const double *v0, const ncp_harness_opts *ho)
{
    int fd[2] = {-1, -1}, data = -1;
    ncp_spawned child = {-1, -1};
    /* one pipe and child at a time: without a spawner the child is forked here, and a sibling's
     * child (-j N) must not inherit this pipe's write end (it would hold off the end of file
     * that tells this thread its child died) */
    pthread_mutex_lock(&c->fork_mu);
    if (pipe(fd) != 0)
        tk->rc = ncp_error_set(&tk->err, NCP_ERR_IO, "--isolate: cannot create a pipe for the "
                               "solve of %s by %s", p->name, s->name);
    else if ((data = ncp_spawn_data_file("--isolate", &tk->err)) < 0)
        tk->rc = NCP_ERR_IO;
    else if (iso_write_job(c, s, p, l0, v0, ho, data))
        tk->rc = ncp_error_set(&tk->err, NCP_ERR_IO, "--isolate: cannot write the problem %s "
                               "for the solve by %s in its process: %s", p->name, s->name,
                               strerror(errno));
    else
        tk->rc = ncp_spawn(iso_child, (void *)(c->o->catalog ? c->o->catalog
                                                              : ncp_registry_catalog()),
                           fd[1], data, 0, &child, &tk->err);
    if (fd[1] >= 0) close(fd[1]);
    if (data >= 0) close(data);
    pthread_mutex_unlock(&c->fork_mu);
    if (tk->rc) {
        if (fd[0] >= 0) close(fd[0]);
        return;
    }
    const pid_t pid = (pid_t)child.pid;
    iso_head h;
    iso_wait iw = {.pid = pid, .interrupt = c->o->interrupt};
    ncp_deadline_start(&iw.dl, c->deadline_ms, ncp_now_ms(), ncp_process_cpu_ms(pid));
    int ok = iso_read(fd[0], &h, sizeof h, &iw) == sizeof h && h.magic == ISO_MAGIC &&
             h.m == p->m && h.nv == p->nv && h.ntrace >= 0;
    double *lam = iso_read_doubles(fd[0], h.has_lambda ? p->m : 0, &ok, &iw);
    double *u = iso_read_doubles(fd[0], h.has_u ? p->m : 0, &ok, &iw);
    double *v = iso_read_doubles(fd[0], h.has_v ? p->nv : 0, &ok, &iw);
    double *sv = iso_read_doubles(fd[0], h.has_sv ? p->nv : 0, &ok, &iw);
    trace_row *tr = NULL;
    if (ok && h.ntrace > 0) {
        size_t bytes = (size_t)h.ntrace * sizeof *tr;
        tr = malloc(bytes);
        ok = tr && iso_read(fd[0], tr, bytes, &iw) == bytes;
    }
    unsigned tail = 0;
    ok = ok && iso_read(fd[0], &tail, sizeof tail, &iw) == sizeof tail && tail == ISO_TRAILER;
    if (iw.expired) kill(pid, SIGKILL); /* the watchdog: no answer by the hard deadline */
    close(fd[0]);
    int st = 0;
    ncp_spawn_reap(&child, 0, &st);
    char how[300];
    int status = NCP_STATUS_CRASHED;
    if (iw.expired && iw.interrupted) {
        /* cut by Ctrl-C like an in-process solve (status stopped: solved again on resume) */
        snprintf(how, sizeof how, "stopped (killed): interrupted, and its process did not stop "
                 "within %.0f ms", ISO_GRACE_MS);
        status = NCP_STATUS_STOPPED;
        ok = 0;
    } else if (iw.expired) {
        snprintf(how, sizeof how, NCP_NOTE_KILLED ": no result within the hard deadline of "
                 "%.0f ms (--deadline-ms; docs/design.md 5.7.1)", c->deadline_ms);
        status = NCP_STATUS_TIMEOUT;
        ok = 0;
    } else if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        snprintf(how, sizeof how, "crashed: killed by signal %d (%s)", sig, strsignal(sig));
        ok = 0;
    } else if (!ok || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(how, sizeof how, "crashed: the solve's process ended with exit code %d before "
                 "sending a complete result (a sanitizer's or the solver's report, if any, is "
                 "on stderr)", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        ok = 0;
    }
    if (!ok) {
        free(lam);
        free(u);
        free(v);
        free(sv);
        free(tr);
        iso_crashed(tk, status, how);
        return;
    }
    tk->rc = h.rc;
    tk->err = h.err;
    tk->res = h.res;
    tk->res.lambda = lam;
    tk->res.u = u;
    tk->res.v = v;
    tk->res.solver_v = sv;
    free(tk->trace);
    tk->trace = tr;
    tk->ntrace = tk->captrace = h.ntrace;
    tk->trace_oom = h.trace_oom;
}

/* Problem i of the batch ready to solve: the source's finish step, once per process, by the
 * first solve that needs it while the others wait (src->finish; a no-op for sources whose
 * problems come complete). */
static int ensure_finished(bench_ctx *c, int i, ncp_error *err)
{
    if (!c->src || !c->src->finish || !c->fin) return NCP_OK;
    pthread_mutex_lock(&c->mu);
    while (c->fin[i] == F_BUSY) pthread_cond_wait(&c->cv, &c->mu);
    int st = c->fin[i];
    if (st == F_RAW) c->fin[i] = F_BUSY;
    pthread_mutex_unlock(&c->mu);
    if (st == F_DONE) return NCP_OK;
    if (st == F_FAILED)
        return ncp_error_set(err, NCP_ERR_INPUT, "problem %s cannot be read (the first error "
                             "about it says why)", c->probs[i].name ? c->probs[i].name : "?");
    int rc = c->src->finish(c->src->ctx, i, err);
    pthread_mutex_lock(&c->mu);
    c->fin[i] = rc ? F_FAILED : F_DONE;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return rc;
}

/* Problem i's derived data freed (src->release) once this process has no task of it left: a
 * lazy batch then holds its problems as read plus those being solved, not every problem it
 * finished (the wrecking ball: 1.4 GB each). Under c->mu. A task of it that comes later finds
 * it F_RAW and finishes it again (the same bits). */
static void release_if_done(bench_ctx *c, int i)
{
    if (!c->src || !c->src->release || !c->fin || c->fin[i] != F_DONE) return;
    if (c->src->release(c->src->ctx, i)) c->fin[i] = F_RAW;
}

/* The per-problem state of a batch of c->nprobs problems (bench_ctx), with room for nranks
 * ranks' placement when nranks > 0. */
static void batch_state_free(bench_ctx *c)
{
    free(c->fp);
    free(c->fin);
    free(c->owner);
    free(c->held);
    free(c->cur);
    free(c->running);
    c->running = NULL;
    c->fp = NULL;
    c->fin = NULL;
    c->owner = c->cur = NULL;
    c->held = NULL;
}

static int batch_state_alloc(bench_ctx *c, int nranks, ncp_error *err)
{
    batch_state_free(c);
    size_t n = (size_t)(c->nprobs > 0 ? c->nprobs : 1), r = (size_t)(nranks > 0 ? nranks : 1);
    c->fp = ncp_calloc(err, n, sizeof *c->fp);
    c->fin = ncp_calloc(err, n, sizeof *c->fin);
    c->owner = ncp_malloc(err, n, sizeof *c->owner);
    c->held = ncp_calloc(err, n * r, sizeof *c->held);
    c->cur = ncp_malloc(err, r, sizeof *c->cur);
    c->running = ncp_calloc(err, n, sizeof *c->running);
    c->last_prob = -1;
    if (!c->fp || !c->fin || !c->owner || !c->held || !c->cur || !c->running) {
        batch_state_free(c);
        return NCP_ERR_NOMEM;
    }
    c->nranks = (int)r;
    for (int i = 0; i < c->nprobs; i++) {
        c->owner[i] = -1;
#ifdef NCP_HAVE_MPI
        c->fp[i] = ncp_mpi_fingerprint(&c->probs[i]);
#endif
    }
    for (size_t k = 0; k < r; k++) c->cur[k] = -1;
    return NCP_OK;
}

/* One solve of the pair into tk->res (and its trace rows into tk->trace). */
static void solve_once(bench_ctx *c, task *tk, const ncp_solver_desc *s, const ncp_problem *p,
                       const double *l0, const double *v0, const ncp_harness_opts *ho)
{
    tk->ntrace = 0; /* the trace of the last repeat is kept */
    if (c->iso[tk->solver])
        isolated_solve(c, tk, s, p, l0, v0, ho);
    else
        tk->rc = ncp_harness_solve(s, p, params_for(c->o, s->name), l0, v0, ho, &tk->res,
                                   &tk->err);
}

/* Whether two solves of one pair gave the same answer, to the bit: iterations, status, every
 * final metric, lambda, u and v. */
static int same_answer(const ncp_result *a, const ncp_result *b, const ncp_problem *p)
{
    double va[NCP_NMETRICS], vb[NCP_NMETRICS];
    ncp_metrics_values(&a->final, va);
    ncp_metrics_values(&b->final, vb);
    const size_t m = (size_t)p->m * sizeof(double);
    return a->iterations == b->iterations && a->status == b->status &&
           a->converged == b->converged &&
           !memcmp(va, vb, (size_t)ncp_metrics_count() * sizeof *va) &&
           (!a->lambda) == (!b->lambda) && (!a->lambda || !memcmp(a->lambda, b->lambda, m)) &&
           (!a->u) == (!b->u) && (!a->u || !memcmp(a->u, b->u, m)) && (!a->v) == (!b->v) &&
           (!a->v || !memcmp(a->v, b->v, (size_t)p->nv * sizeof(double)));
}

static int cmp_time(const void *x, const void *y)
{
    const double *a = x, *b = y; /* {setup + solve, repeat index} */
    return (a[0] > b[0]) - (a[0] < b[0]);
}

/* A solve whose child crashed or was killed (isolated_solve): a row without an answer. */
static int no_answer(const ncp_result *r)
{
    ncp_note_info ni;
    ncp_note_parse(r->note, &ni);
    return r->status == NCP_STATUS_CRASHED || ni.killed;
}

/* The pair solved o->repeat times (bench.h "repeat"). */
static void solve_repeated(bench_ctx *c, task *tk, const ncp_solver_desc *s,
                           const ncp_problem *p, const double *l0, const double *v0,
                           const ncp_harness_opts *ho)
{
    const int n = c->o->repeat > 1 ? c->o->repeat : 1;
    solve_once(c, tk, s, p, l0, v0, ho);
    if (tk->rc || n == 1 || tk->res.status == NCP_STATUS_UNSUPPORTED || no_answer(&tk->res))
        return;
    double(*t)[2] = ncp_malloc(&tk->err, (size_t)n, sizeof *t);
    double(*parts)[4] = ncp_malloc(&tk->err, (size_t)n, sizeof *parts);
    if (!t || !parts) {
        free(t);
        free(parts);
        tk->rc = NCP_ERR_NOMEM;
        return;
    }
    ncp_result first = tk->res;
    int timed_out = first.status == NCP_STATUS_TIMEOUT, it_lo = first.iterations,
        it_hi = first.iterations;
    for (int k = 0; k < n; k++) {
        if (k > 0) {
            memset(&tk->res, 0, sizeof tk->res);
            solve_once(c, tk, s, p, l0, v0, ho);
            if (tk->rc || no_answer(&tk->res)) {
                ncp_result_free(&first); /* the crashed or killed repeat's row is the pair's */
                break;
            }
            timed_out |= tk->res.status == NCP_STATUS_TIMEOUT;
            it_lo = tk->res.iterations < it_lo ? tk->res.iterations : it_lo;
            it_hi = tk->res.iterations > it_hi ? tk->res.iterations : it_hi;
            if (!timed_out && !same_answer(&first, &tk->res, p)) {
                tk->rc = ncp_error_set(&tk->err, NCP_ERR_INTERNAL,
                                       "--repeat: %s on problem %s is not deterministic: repeat "
                                       "%d gave %s after %d iterations, repeat 1 %s after %d "
                                       "(or other bits of the answer differ); its timings "
                                       "cannot be repeated",
                                       s->name, p->name, k + 1,
                                       ncp_status_name(tk->res.status), tk->res.iterations,
                                       ncp_status_name(first.status), first.iterations);
                ncp_result_free(&first);
                ncp_result_free(&tk->res);
                break;
            }
        }
        const ncp_result *r = k ? &tk->res : &first;
        t[k][0] = r->setup_ms + r->solve_ms;
        t[k][1] = k;
        parts[k][0] = r->setup_ms;
        parts[k][1] = r->solve_ms;
        parts[k][2] = r->solver_wall_ms;
        parts[k][3] = r->monitor_ms;
        if (k > 0) ncp_result_free(&tk->res);
    }
    if (!tk->rc && tk->res.status != NCP_STATUS_CRASHED) {
        tk->res = first;
        qsort(t, (size_t)n, sizeof *t, cmp_time);
        const int med = (int)t[(n - 1) / 2][1]; /* the lower median for an even n */
        tk->res.setup_ms = parts[med][0];
        tk->res.solve_ms = parts[med][1];
        tk->res.solver_wall_ms = parts[med][2];
        tk->res.monitor_ms = parts[med][3];
        tk->res.repeats = n;
        tk->res.time_min_ms = t[0][0];
        tk->res.time_max_ms = t[n - 1][0];
        if (timed_out) {
            size_t len = strlen(tk->res.note);
            snprintf(tk->res.note + len, sizeof tk->res.note - len,
                     "%s--repeat: the time budget stopped a repeat (iterations %d to %d over %d "
                     "repeats; the answer is repeat 1's)", len ? "; " : "", it_lo, it_hi, n);
        }
    }
    free(t);
    free(parts);
}

/* The CPU time of the worker solving tk (ms), NaN when it cannot be read. */
static double task_cpu_ms(const task *tk)
{
    struct timespec ts;
    if (!tk->has_cpu_clock || clock_gettime(tk->cpu_clock, &ts)) return NAN;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Which solvers run in a child (ncp_bench_opts.isolate) and the watchdog's deadline. */
static void watch_setup(bench_ctx *c)
{
    const ncp_bench_opts *o = c->o;
    c->deadline_ms = ncp_bench_deadline_ms(o);
    for (int j = 0; j < o->nsolvers && j < NCP_BENCH_MAX_SOLVERS; j++) {
        int ci = o->catalog ? ncp_catalog_base_index(o->catalog, o->solvers[j]->name) : -1;
        int plugin = ci >= 0 && ncp_catalog_plugin_file(o->catalog, ci) != NULL;
        c->iso[j] = o->isolate == NCP_ISOLATE_ALL || (o->isolate == NCP_ISOLATE_PLUGINS && plugin);
    }
}

static void run_task(bench_ctx *c, task *tk)
{
    ncp_error_clear(&tk->err);
    if ((tk->rc = ensure_finished(c, tk->prob, &tk->err))) return;
    pthread_mutex_lock(&c->mu); /* the solve's deadline counts from here (watch_running) */
    tk->t_start = ncp_now_ms();
    tk->has_cpu_clock = pthread_getcpuclockid(pthread_self(), &tk->cpu_clock) == 0;
    ncp_deadline_start(&tk->dl, c->deadline_ms, tk->t_start, task_cpu_ms(tk));
    pthread_mutex_unlock(&c->mu);
    const ncp_problem *p = &c->probs[tk->prob];
    tk->nv = p->nv;
    const ncp_solver_desc *s = c->o->solvers[tk->solver];
    ncp_harness_opts ho;
    ncp_harness_opts_default(&ho);
    ho.budget = c->o->budget;
    ho.stop_metric = c->o->stop_metric;
    ho.interrupt = c->o->interrupt;
    ho.allow = c->o->allow;
    ho.dense_max_bytes = c->o->max_memory;
    ho.unsupported_ok = 1;
    ho.clock = c->o->clock;
    if (c->o->traces) {
        ho.trace = trace_cb;
        ho.trace_ctx = tk;
        ho.trace_sample = !c->o->trace_every; /* rows of the stored sample only */
    }
    int guess = c->o->warm_start == NCP_WARM_GUESS, vel = c->o->warm_start == NCP_WARM_VELOCITY;
    const double *l0 = guess ? p->guess_lambda : NULL;
    const double *v0 = (guess && l0) || vel ? p->guess_v : NULL;
    solve_repeated(c, tk, s, p, l0, v0, &ho);
    if (tk->rc) return;
    snprintf(tk->note, sizeof tk->note, "%s", tk->res.note);
    if (tk->res.status == NCP_STATUS_UNSUPPORTED || no_answer(&tk->res)) return;
    /* velocity: said where the harness handed v0 on, i.e. the solve had the problem's own dense
     * primal form (as given or densified; harness.h), and the solver starts from it (takes_v0);
     * a solver that takes no velocity ignores it, as it ignores guess_v in guess mode, and its
     * row says nothing. */
    unsigned ap = tk->res.applied;
    int handed = v0 && s->takes_v0 &&
                 (p->has_primal || (ap & NCP_RECON_PRIMAL_DENSE) ||
                  (p->has_sparse_primal && (!(s->needs & NCP_NEEDS_PRIMAL) ||
                                            (s->needs & NCP_NEEDS_PRIMAL_SPARSE)))) &&
                 !(ap & NCP_RECON_PRIMAL_FROM_D);
    const char *said = guess  ? (l0 ? NCP_NOTE_WARM_GUESS : NCP_NOTE_WARM_NONE)
                       : vel && handed ? NCP_NOTE_WARM_VELOCITY
                                       : NULL;
    if (said) {
        size_t n = strlen(tk->note);
        snprintf(tk->note + n, sizeof tk->note - n, "%s%s", n ? "; " : "", said);
    }
}

static int pending_of(const bench_ctx *c, int p)
{
    int ns = c->o->nsolvers, n = 0;
    for (int s = 0; s < ns; s++) n += c->tasks[p * ns + s].state == T_PENDING;
    return n;
}

/* The next pending task for rank r (0: this process's worker threads), marked running; -1 when
 * none is left or the run stops. Call with c->mu held. A rank works through one problem's
 * solvers, then starts a problem nobody has started (rank 0 from the front, the other ranks
 * from the back), so that each problem is finished (its D derived, ensure_finished) on one
 * rank; once none is left it helps with a problem it holds, else with the one that has the
 * most tasks left. On one process this is the tasks' own order. */
static int take_for(bench_ctx *c, int r)
{
    if (c->abort || (c->o->interrupt && *c->o->interrupt)) return -1;
    int np = c->nprobs, ns = c->o->nsolvers;
    int p = c->cur[r];
    if (p < 0 || !pending_of(c, p)) {
        p = -1;
        for (int k = 0; k < np && p < 0; k++) {
            int q = r == 0 ? k : np - 1 - k;
            if (c->owner[q] < 0 && pending_of(c, q)) p = q;
        }
        for (int q = 0, best = 0; q < np && !(p >= 0 && c->owner[p] < 0); q++) {
            int n = pending_of(c, q);
            int score = n ? n + (c->held[(size_t)r * np + q] ? ns + 1 : 0) : 0;
            if (score > best) {
                best = score;
                p = q;
            }
        }
        if (p < 0) return -1;
        if (c->owner[p] < 0) c->owner[p] = r;
        c->cur[r] = p;
    }
    c->held[(size_t)r * np + p] = 1;
    for (int s = 0; s < ns; s++) {
        task *tk = &c->tasks[p * ns + s];
        if (tk->state == T_PENDING) {
            tk->state = T_RUNNING;
            return p * ns + s;
        }
    }
    return -1;
}

static void *worker(void *arg)
{
    bench_ctx *c = arg;
    for (;;) {
        pthread_mutex_lock(&c->mu);
        int t = take_for(c, 0);
        if (t >= 0) {
            c->running[c->tasks[t].prob]++;
            c->tasks[t].who = pthread_self();
            c->tasks[t].local = 1;
        }
        pthread_mutex_unlock(&c->mu);
        if (t < 0) break;
        run_task(c, &c->tasks[t]);
        pthread_mutex_lock(&c->mu);
        if (c->tasks[t].hung) { /* abandoned by the writer: its memory may be gone */
            pthread_mutex_unlock(&c->mu);
            return NULL;
        }
        c->tasks[t].state = T_DONE;
        if (c->tasks[t].rc) c->abort = 1;
        /* the last local task of its problem, none left to take: the writer needs only the
         * problem's name and sizes, which release keeps */
        const int pr = c->tasks[t].prob;
        if (--c->running[pr] == 0 && !pending_of(c, pr)) release_if_done(c, pr);
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
    }
    /* wake the writer: it may be waiting for a task nobody will run */
    pthread_mutex_lock(&c->mu);
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

#ifdef NCP_HAVE_MPI
/* ---- MPI: this file's side of bench/mpi_pool.h ---- */

static int mpi_take(void *ctx, int rank)
{
    bench_ctx *c = ctx;
    pthread_mutex_lock(&c->mu);
    int t = rank > 0 && rank < c->nranks ? take_for(c, rank) : -1;
    pthread_mutex_unlock(&c->mu);
    return t;
}

static int mpi_stopping(void *ctx)
{
    bench_ctx *c = ctx;
    pthread_mutex_lock(&c->mu);
    int s = c->abort || (c->o->interrupt && *c->o->interrupt);
    pthread_mutex_unlock(&c->mu);
    return s;
}

/* Rank 0: a remote answer becomes task t's result, as if a local worker had solved it. */
static void mpi_land(void *ctx, int t, int rank, ncp_mpi_answer *a)
{
    bench_ctx *c = ctx;
    pthread_mutex_lock(&c->mu);
    task *tk = t < c->ntasks ? &c->tasks[t] : NULL;
    int stopping = c->abort || (c->o->interrupt && *c->o->interrupt);
    if (!tk || tk->state != T_RUNNING) {
        /* not a task handed out: ignore it */
    } else if (!a->ran && stopping) {
        tk->state = T_PENDING; /* never started; the writer stops before it */
    } else {
        tk->rc = a->rc;
        tk->err = a->err;
        const char *name = c->probs[tk->prob].name;
        if (a->signal)
            /* the message rank 0 ends the job with (ncp_bench_run_source) */
            snprintf(tk->err.msg, sizeof tk->err.msg, "rank %d died of signal %d (%s) while "
                     "solving problem '%s' with solver '%s' in its own process: the run stops "
                     "here; every finished row is kept in %s (its journal: a rerun resumes); "
                     "--isolate runs each solve in a child process, where a crash fails only "
                     "its row", rank, a->signal, strsignal(a->signal), name,
                     c->o->solvers[tk->solver]->name, c->o->out_dir);
        else if (!a->ran)
            tk->rc = ncp_error_set(&tk->err, NCP_ERR_INTERNAL, "rank %d was interrupted but rank "
                                   "0 was not: the run stops (finished rows are kept)", rank);
        else if (!tk->rc && (strcmp(a->problem, name) || a->fingerprint != c->fp[tk->prob]))
            tk->rc = ncp_error_set(&tk->err, NCP_ERR_INTERNAL, "rank %d holds problem '%s' where "
                                   "rank 0 holds another '%s': every rank must load the same "
                                   "problems (same files, same random seed)", rank, a->problem,
                                   name);
        if (!tk->rc) {
            tk->res = a->res;
            a->res.lambda = a->res.u = a->res.v = a->res.solver_v = NULL;
            snprintf(tk->note, sizeof tk->note, "%s", a->note);
            tk->trace = a->trace;
            tk->ntrace = tk->captrace = a->ntrace;
            tk->nv = a->nv;
            a->trace = NULL;
        }
        tk->state = T_DONE;
        if (tk->rc) c->abort = 1;
    }
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

/* Worker rank: reads batches up to `batch`, the one rank 0 is solving. */
static int mpi_select(void *ctx, int batch, ncp_error *err)
{
    bench_ctx *c = ctx;
    if (c->abort && c->read_err.code) {
        *err = c->read_err; /* the reading before the first task failed: say why, every time */
        return err->code;
    }
    if (c->abort)
        return ncp_error_set(err, NCP_ERR_IO, "rank %d could not read its problems (see the "
                             "first error)", ncp_mpi_rank());
    while (c->nbatches <= batch) {
        const ncp_problem *probs = NULL;
        int n = 0, rc = c->src->next(c->src->ctx, &probs, &n, err);
        if (!rc && n == 0)
            rc = ncp_error_set(err, NCP_ERR_INPUT, "rank %d has fewer problems than rank 0: every "
                               "rank must read the same files", ncp_mpi_rank());
        if (rc) {
            c->abort = 1;
            return ncp_error_prefix(err, "rank %d: ", ncp_mpi_rank());
        }
        c->probs = probs;
        c->nprobs = n;
        c->nbatches++;
        if (batch_state_alloc(c, 0, err)) {
            c->abort = 1;
            return ncp_error_prefix(err, "rank %d: ", ncp_mpi_rank());
        }
    }
    if (batch != c->nbatches - 1)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "rank %d was asked for batch %d after batch "
                             "%d", ncp_mpi_rank(), batch, c->nbatches - 1);
    return NCP_OK;
}

static void mpi_run(void *ctx, int t, ncp_mpi_answer *a)
{
    bench_ctx *c = ctx;
    task *tk = &c->scratch;
    memset(tk, 0, sizeof *tk);
    if (t < 0 || t >= c->nprobs * c->o->nsolvers) {
        a->rc = ncp_error_set(&a->err, NCP_ERR_INPUT, "rank %d holds %d problems, rank 0 asked "
                              "for task %d: every rank must load the same problems",
                              ncp_mpi_rank(), c->nprobs, t);
        return;
    }
    tk->prob = t / c->o->nsolvers;
    tk->solver = t % c->o->nsolvers;
    /* rank 0 hands a rank another problem only once none of its previous one is left
     * (take_for): that one's derived data can go */
    if (c->last_prob >= 0 && c->last_prob != tk->prob) {
        pthread_mutex_lock(&c->mu);
        release_if_done(c, c->last_prob);
        pthread_mutex_unlock(&c->mu);
    }
    c->last_prob = tk->prob;
    run_task(c, tk);
    const ncp_problem *p = &c->probs[tk->prob];
    a->rc = tk->rc;
    a->err = tk->err;
    a->res = tk->res;
    a->m = p->m;
    a->nv = p->nv;
    a->note = tk->note;
    a->problem = p->name;
    a->fingerprint = c->fp[tk->prob];
    a->trace = tk->trace;
    a->ntrace = tk->ntrace;
}

static void mpi_release(void *ctx, int t)
{
    (void)t;
    bench_ctx *c = ctx;
    ncp_result_free(&c->scratch.res);
    free(c->scratch.trace);
    memset(&c->scratch, 0, sizeof c->scratch);
}

static ncp_mpi_tasks mpi_tasks(bench_ctx *c)
{
    ncp_mpi_tasks q = {c,          sizeof(trace_row), mpi_take, mpi_stopping,
                       mpi_land,   mpi_select,        mpi_run,  mpi_release};
    return q;
}

/* Rank 0's thread that serves the other ranks for the current batch. */
static void *server(void *arg)
{
    bench_ctx *c = arg;
    ncp_mpi_tasks q = mpi_tasks(c);
    ncp_mpi_serve(c->pool, &q, c->nbatches);
    pthread_mutex_lock(&c->mu);
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

/* A worker rank's whole run: it solves what rank 0 hands out and writes nothing. */
static int remote_run(const ncp_bench_source *src, const ncp_bench_opts *o,
                      ncp_bench_summary *sum)
{
    bench_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.src = src;
    watch_setup(&c);
    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.cv, NULL);
    ncp_mpi_tasks q = mpi_tasks(&c);
    /* the first batch read now, while rank 0 reads its own, not when its first task arrives
     * (after rank 0's reading: the whole collection's, on a lazy source); a failure is kept
     * and answered to rank 0 with the first task */
    ncp_error_clear(&c.read_err);
    mpi_select(&c, 0, &c.read_err);
    ncp_mpi_work(&q, o->interrupt);
    sum->interrupted = o->interrupt && *o->interrupt;
    batch_state_free(&c);
    pthread_mutex_destroy(&c.mu);
    pthread_cond_destroy(&c.cv);
    return NCP_OK;
}
#endif

int ncp_bench_is_graded(const ncp_bench_opts *o, const char *solver)
{
    for (int i = 0; i < o->ngraded; i++)
        if (!strcmp(o->graded[i], solver)) return 1;
    return 0;
}

static int solver_index(const ncp_bench_opts *o, const char *name)
{
    for (int j = 0; j < o->nsolvers; j++)
        if (!strcmp(o->solvers[j]->name, name)) return j;
    return -1;
}

/* Adds the summary record of a written row. */
static int add_rec(writers *w, int solver, int iterations, int converged, int status,
                   const char *note, double setup, double solve, const double *metrics,
                   ncp_error *err)
{
    if (solver < 0) return NCP_OK;
    int rc = ncp_bench_grow(&w->rec, &w->caprec, w->nrec, sizeof *w->rec, err);
    if (rc) return rc;
    row_rec *r = &w->rec[w->nrec++];
    r->solver = solver;
    r->iterations = iterations;
    r->converged = converged;
    r->status = status;
    ncp_note_parse(note, &r->ni);
    r->declined = -1;
    if (status == NCP_STATUS_UNSUPPORTED && !r->ni.unsupported) {
        /* the solver's own reason, without the problem's particulars after a ';' */
        char why[160];
        snprintf(why, sizeof why, "%.*s", (int)strcspn(note ? note : "", ";"), note ? note : "");
        r->ni.unsupported = NCP_UNSUP_SOLVER;
        for (int k = 0; k < w->ndeclined && r->declined < 0; k++)
            if (!strcmp(w->declined[k], why)) r->declined = k;
        if (r->declined < 0 && w->ndeclined < (int)(sizeof w->declined / sizeof w->declined[0])) {
            memcpy(w->declined[w->ndeclined], why, sizeof why);
            r->declined = w->ndeclined++;
        }
    }
    r->setup_ms = setup;
    r->solve_ms = solve;
    memcpy(r->metrics, metrics, sizeof r->metrics);
    return NCP_OK;
}

/* Records the problem's title and description once (rows of a problem are written together). */
static int add_title(writers *w, const char *problem, const char *title, const char *desc,
                     ncp_error *err)
{
    if ((!title || !*title) && (!desc || !*desc)) return NCP_OK;
    if (w->ntitles && !strcmp(w->titles[w->ntitles - 1].problem, problem)) return NCP_OK;
    int rc = ncp_bench_grow(&w->titles, &w->captitles, w->ntitles, sizeof *w->titles, err);
    if (rc) return rc;
    ncp_out_title *t = &w->titles[w->ntitles];
    t->problem = ncp_strdup(err, problem);
    t->title = ncp_strdup(err, title ? title : "");
    t->description = ncp_strdup(err, desc ? desc : "");
    w->ntitles++;
    if (!t->problem || !t->title || !t->description) return NCP_ERR_NOMEM;
    return NCP_OK;
}

static int put_order(writers *w, long long off, ncp_error *err)
{
    int rc = ncp_bench_grow(&w->order, &w->caporder, w->norder, sizeof *w->order, err);
    if (!rc) w->order[w->norder++] = off;
    return rc;
}

static int write_task_rows(const bench_ctx *c, writers *w, task *tk, ncp_error *err);

/* Writes a finished task and accounts for its time (ncp_profile). */
static int write_task(const bench_ctx *c, writers *w, task *tk, ncp_error *err)
{
    double t0 = ncp_now_ms();
    if (tk->state != T_KEPT && !tk->rc && tk->res.status != NCP_STATUS_UNSUPPORTED) {
        const ncp_result *r = &tk->res;
        double own = r->setup_ms + r->solve_ms;
        w->prof.solver_ms += own;
        w->prof.monitor_ms += r->monitor_ms;
        w->prof.harness_ms += fmax(0.0, r->total_ms - own - r->monitor_ms);
    }
    int rc = write_task_rows(c, w, tk, err);
    w->prof.write_ms += ncp_now_ms() - t0;
    return rc;
}

static int write_task_rows(const bench_ctx *c, writers *w, task *tk, ncp_error *err)
{
    if (tk->state == T_KEPT) {
        w->kept++;
        return put_order(w, tk->kept, err);
    }
    const ncp_problem *p = &c->probs[tk->prob];
    const ncp_result *res = &tk->res;
    double vals[NCP_NMETRICS];
    ncp_metrics_values(&res->final, vals);
    int answer = res->status != NCP_STATUS_UNSUPPORTED && res->lambda && res->u;
    ncp_jresult jr = {.problem = p->name, .solver = c->o->solvers[tk->solver]->name,
                      .note = tk->note, .title = p->title, .description = p->description,
                      .iterations = res->iterations, .converged = res->converged,
                      .status = res->status, .setup_ms = res->setup_ms,
                      .solve_ms = res->solve_ms, .wall_ms = res->solver_wall_ms,
                      .time_min_ms = res->repeats > 1 ? res->time_min_ms
                                                      : res->setup_ms + res->solve_ms,
                      .time_max_ms = res->repeats > 1 ? res->time_max_ms
                                                      : res->setup_ms + res->solve_ms,
                      .metrics = vals,
                      .nmetrics = ncp_metrics_count(), .has_answer = answer,
                      .lambda = res->lambda, .u = res->u, .m = answer ? p->m : 0,
                      .v = answer ? res->v : NULL, .nv = answer && res->v ? tk->nv : 0,
                      .solver_v = answer ? res->solver_v : NULL,
                      .nsv = answer && res->solver_v ? tk->nv : 0};
    int rc;
    if (c->o->traces && tk->ntrace > 0) {
        /* rows as stored: iter, time_ms, metrics, the log sample unless --trace-every */
        int nc = ncp_out_traces_ncols(), nm = ncp_metrics_count();
        if ((rc = ncp_bench_grow(&w->tbuf, &w->tcap, tk->ntrace * nc, sizeof *w->tbuf, err)))
            return rc;
        for (int i = 0; i < tk->ntrace; i++) {
            double *r = w->tbuf + (size_t)i * nc;
            r[0] = tk->trace[i].iter;
            r[1] = tk->trace[i].t;
            memcpy(r + 2, tk->trace[i].vals, (size_t)nm * sizeof *r);
        }
        jr.ntrace = ncp_out_traces_sample(w->tbuf, tk->ntrace, c->o->trace_every, w->tbuf);
        jr.ncols = nc;
        jr.trace = w->tbuf;
    }
    free(tk->trace);
    tk->trace = NULL;
    long long off;
    if ((rc = ncp_resume_append(w->rs, &jr, &off, err))) return rc;
    return put_order(w, off, err);
}

/* A temporary for an HDF5 output written by name (util/safefile.h). */
typedef struct h5out {
    char path[4200];
    char *tmp;
} h5out;

/* metrics.csv, traces.h5 (+ traces.csv) and solutions.h5 from the journal's records in
 * w->order, each into a temporary renamed into place once all are written: a failure (a full
 * disk) leaves the earlier files as they were. Also the summary's records. */
static int rebuild(writers *w, ncp_error *err)
{
    const ncp_bench_opts *o = w->o;
    ncp_safe_file mf = {0};
    ncp_out_traces *tr = NULL;
    ncp_solutions *sol = NULL;
    h5out so = {{0}, NULL};
    char path[4200];
    w->nrec = w->ndeclined = 0;
    for (int i = 0; i < w->ntitles; i++) {
        free((char *)w->titles[i].problem);
        free((char *)w->titles[i].title);
        free((char *)w->titles[i].description);
    }
    w->ntitles = 0;
    int rc = ncp_path_join(path, sizeof path, o->out_dir, "metrics.csv", err);
    if (!rc) rc = ncp_safe_create(path, &mf, err);
    if (!rc) ncp_out_metrics_header(mf.f);
    if (!rc && o->traces)
        rc = ncp_out_traces_open(o->out_dir, o->traces_csv, o->trace_every, &tr, err);
    if (!rc) rc = ncp_path_join(so.path, sizeof so.path, o->out_dir, "solutions.h5", err);
    if (!rc) rc = ncp_safe_reserve(so.path, &so.tmp, err);
    if (!rc) rc = ncp_solutions_create(so.tmp, &sol, err);
    ncp_solutions_set_flush(sol, 0); /* the journal has the results: one flush, at the close */
    for (int i = 0; !rc && i < w->norder; i++) {
        ncp_jresult jr;
        double vals[NCP_NMETRICS];
        if ((rc = ncp_resume_read(w->rs, w->order[i], &jr, err))) break;
        memcpy(vals, jr.metrics, (size_t)jr.nmetrics * sizeof *vals);
        if (ncp_out_metrics_row_vals(mf.f, jr.problem, jr.solver, jr.iterations, jr.converged,
                                     jr.status, jr.setup_ms, jr.solve_ms, jr.time_min_ms,
                                     jr.time_max_ms, jr.wall_ms, vals, jr.note,
                                     jr.title, jr.description)) {
            rc = ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", mf.path,
                               strerror(errno ? errno : EIO));
            break;
        }
        if (tr && jr.ntrace > 0 &&
            (rc = ncp_out_traces_put(tr, jr.problem, jr.solver, jr.ntrace, jr.trace,
                                     jr.iterations, ncp_status_name(jr.status), err)))
            break;
        if (jr.has_answer &&
            (rc = ncp_solutions_write(sol, jr.solver, jr.problem, jr.m, jr.lambda, jr.u, jr.nv,
                                      jr.v, jr.nsv, jr.solver_v, jr.iterations, jr.converged,
                                      ncp_status_name(jr.status), err)))
            break;
        if ((rc = add_title(w, jr.problem, jr.title, jr.description, err)) ||
            (rc = add_rec(w, solver_index(o, jr.solver), jr.iterations, jr.converged, jr.status,
                          jr.note, jr.setup_ms, jr.solve_ms, vals, err)))
            break;
    }
    ncp_error e2 = {0};
    if (sol) {
        int crc = ncp_solutions_close(sol, rc ? &e2 : err);
        if (!rc) rc = crc;
    }
    if (!rc) rc = ncp_safe_commit(&mf, err);
    if (!rc) {
        rc = ncp_out_traces_close(tr, err);
        tr = NULL;
    }
    if (!rc) {
        rc = ncp_safe_rename(so.tmp, so.path, err);
        free(so.tmp);
        so.tmp = NULL;
    }
    ncp_safe_abort(&mf);
    ncp_out_traces_abort(tr);
    if (so.tmp) unlink(so.tmp);
    free(so.tmp);
    return rc;
}

static void summarise(const writers *w, ncp_bench_summary *sum)
{
    const ncp_bench_opts *o = w->o;
    int ns = o->nsolvers, nm = ncp_metrics_count();
    double *buf = malloc(sizeof(double) * (size_t)(w->nrec > 0 ? w->nrec : 1));
    sum->nsolvers = ns;
    for (int j = 0; j < ns; j++) {
        ncp_solver_summary *ss = &sum->solvers[j];
        memset(ss, 0, sizeof *ss);
        snprintf(ss->solver, sizeof ss->solver, "%s", o->solvers[j]->name);
        ss->self_timed = ncp_bench_is_graded(o, ss->solver);
        for (int k = 0; k < nm; k++) ss->median[k] = ss->max[k] = NAN;
        ss->median_iterations = ss->max_iterations = ss->median_solve_ms = NAN;
        ss->median_setup_ms = NAN;
        int n = 0;
        for (int i = 0; i < w->nrec; i++) {
            const row_rec *r = &w->rec[i];
            if (r->solver != j) continue;
            for (int b = 0; b < NCP_RECON_COUNT; b++) ss->reconstructed[b] += (r->ni.applied >> b) & 1u;
            ss->warm_guess += r->ni.warm_guess;
            ss->warm_velocity += r->ni.warm_velocity;
            if (r->status == NCP_STATUS_UNSUPPORTED) {
                ss->unsupported++;
                ss->unsupported_by[r->ni.unsupported]++;
                int k = 0;
                while (r->declined >= 0 && k < ss->ndeclined &&
                       strcmp(ss->declined[k], w->declined[r->declined]))
                    k++;
                if (r->declined >= 0 && k == ss->ndeclined && k < NCP_BENCH_MAX_DECLINED) {
                    memcpy(ss->declined[k], w->declined[r->declined], sizeof ss->declined[k]);
                    ss->ndeclined++;
                }
                if (r->declined >= 0 && k < ss->ndeclined) ss->declined_count[k]++;
                continue;
            }
            n++;
            ss->converged += r->converged;
            ss->failed += r->status == NCP_STATUS_FAILED;
            ss->timeouts += r->status == NCP_STATUS_TIMEOUT;
            ss->max_iters += r->status == NCP_STATUS_MAX_ITER;
            ss->crashed += r->status == NCP_STATUS_CRASHED;
            ss->killed += r->ni.killed;
            ss->total_solve_ms += r->solve_ms;
        }
        ss->problems = n;
        if (!buf || n - ss->crashed - ss->killed == 0) continue;
#define AGG(EXPR, MED, MAX)                                                        \
    do {                                                                           \
        int k_ = 0;                                                                \
        double mx_ = -INFINITY;                                                    \
        for (int i = 0; i < w->nrec; i++) {                                        \
            const row_rec *r = &w->rec[i];                                         \
            if (r->solver != j || r->status == NCP_STATUS_UNSUPPORTED ||           \
                r->status == NCP_STATUS_CRASHED || r->ni.killed)                   \
                continue;                                                          \
            double x_ = (EXPR);                                                    \
            buf[k_++] = x_;                                                        \
            if (x_ > mx_ || isnan(x_)) mx_ = isnan(mx_) ? mx_ : x_;                \
        }                                                                          \
        MED = ncp_median(buf, k_);                                                 \
        MAX = mx_;                                                                 \
    } while (0)
        double dummy;
        AGG((double)r->iterations, ss->median_iterations, ss->max_iterations);
        AGG(r->solve_ms, ss->median_solve_ms, dummy);
        AGG(r->setup_ms, ss->median_setup_ms, dummy);
        for (int k = 0; k < nm; k++) {
            AGG(r->metrics[k], ss->median[k], ss->max[k]);
        }
#undef AGG
        (void)dummy;
    }
    free(buf);
}

/* pthread_cond_wait for at most ms milliseconds (the waits that must also watch a clock or a
 * flag: the writer's watchdog, an abandonable read). */
static void cond_wait_ms(pthread_cond_t *cv, pthread_mutex_t *mu, long ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += ms * 1000000L;
    until.tv_sec += until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    pthread_cond_timedwait(cv, mu, &until);
}

/* The watchdog over the in-process solves (with c->mu held, from the writer's wait): a solve
 * running past its hard deadline, or still running ISO_GRACE_MS after an interrupt, ignores
 * the harness's stop request and cannot be stopped in this process: it is abandoned (hung),
 * no task is handed out any more, and bench_run ends the process once every finished row is
 * written. Solves in a child have their own deadline (isolated_solve). */
static void watch_running(bench_ctx *c)
{
    double now = ncp_now_ms();
    if (c->o->interrupt && *c->o->interrupt && c->interrupt_seen <= 0.0) c->interrupt_seen = now;
    for (int t = 0; t < c->ntasks; t++) {
        task *tk = &c->tasks[t];
        if (tk->state != T_RUNNING || tk->hung || !tk->local) continue;
        int late = !c->iso[tk->solver] && tk->t_start > 0.0
                       ? ncp_deadline_passed(&tk->dl, now, task_cpu_ms(tk))
                       : NCP_DEADLINE_NOT;
        /* an isolated solve comes back by itself within the grace (isolated_solve) */
        int deaf = c->interrupt_seen > 0.0 && now - c->interrupt_seen > ISO_GRACE_MS + (c->iso[tk->solver] ? 1000.0 : 0.0);
        if (!late && !deaf) continue;
        tk->hung = 1;
        c->abort = 1;
        if (!c->hung && tk->t_start <= 0.0)
            fprintf(stderr, "\nncpbench: interrupted while problem %s was being prepared for %s: "
                    "the run stops after writing every finished row\n", c->probs[tk->prob].name,
                    c->o->solvers[tk->solver]->name);
        else if (!c->hung)
            fprintf(stderr, "\nncpbench: solver %s did not stop on problem %s %s (it does not "
                    "heed the harness's stop request): the run stops after writing every "
                    "finished row; run untrusted solvers with --isolate\n",
                    c->o->solvers[tk->solver]->name, c->probs[tk->prob].name,
                    late ? "within its hard deadline" : "when interrupted");
        if (late && !c->hung)
            fprintf(stderr, "ncpbench: (the hard deadline: %.0f ms of the solve's CPU time, or of "
                    "wall time with no CPU progress for %.0f s, %.0fx it of wall time at most; "
                    "ended by its %s; --deadline-ms, docs/design.md 5.7.1)\n", c->deadline_ms,
                    NCP_DEADLINE_IDLE_MS / 1000.0, NCP_DEADLINE_WALL_FACTOR,
                    ncp_deadline_reason(late));
        c->hung = 1;
    }
}

/* Solves one batch, writing its rows in task order. */
static int run_batch(bench_ctx *c, writers *w, ncp_progress *pg, int *done, ncp_error *err)
{
    const ncp_bench_opts *o = c->o;
    int rc = NCP_OK;
    c->ntasks = c->nprobs * o->nsolvers;
    c->abort = 0;
    if ((rc = batch_state_alloc(c, c->pool ? ncp_mpi_size() : 1, err))) return rc;
    c->tasks = ncp_calloc(err, c->ntasks, sizeof(task));
    if (!c->tasks) return NCP_ERR_NOMEM;
    for (int i = 0; i < c->ntasks && !rc; i++) {
        task *tk = &c->tasks[i];
        tk->prob = i / o->nsolvers;
        tk->solver = i % o->nsolvers;
        const char *pn = c->probs[tk->prob].name, *sn = o->solvers[tk->solver]->name;
        tk->kept = ncp_resume_find(w->rs, pn, sn);
        if (tk->kept >= 0 && ncp_resume_mark(w->rs, pn, sn))
            rc = ncp_error_set(err, NCP_ERR_INPUT, "two problems are named '%s'; rename one of "
                               "their files", pn);
        tk->state = tk->kept >= 0 ? T_KEPT : T_PENDING;
        /* the other ranks know the solvers they were given, not the folder's graded ones */
        if (!rc && c->pool && tk->state == T_PENDING && ncp_bench_is_graded(o, sn))
            rc = ncp_error_set(err, NCP_ERR_INPUT, "graded solver %s has no row for problem %s "
                               "in %s: grade its answers --into the folder again, or run "
                               "without MPI", sn, pn, o->out_dir);
    }
    pthread_t threads[NCP_BENCH_MAX_JOBS + 1];
    int nthreads = 0;
    int jobs = o->jobs < 1 ? 1 : (o->jobs > NCP_BENCH_MAX_JOBS ? NCP_BENCH_MAX_JOBS : o->jobs);
    /* Solves run on worker threads (-j 1: one) while this thread writes the rows in task
     * order and keeps the watchdog (watch_running). */
    if (!rc) {
        int why = 0;
        for (int i = 0; i < jobs; i++) {
            if ((why = pthread_create(&threads[i], NULL, worker, c)) != 0) break;
            nthreads++;
        }
        /* EAGAIN: the thread's stack (address space, as large as `ulimit -s`) does not fit under
         * --max-memory's cap */
        if (nthreads == 0 && why == EAGAIN && ncp_mem_address_limit() > 0.0)
            rc = ncp_mem_refuse(o->max_memory, "starting a worker thread", "its stack could not "
                                "be reserved", err);
        else if (nthreads == 0)
            rc = ncp_error_set(err, NCP_ERR_INTERNAL, "cannot start worker threads: %s", strerror(why));
#ifdef NCP_HAVE_MPI
        /* the other ranks take from the same queue through one more thread */
        if (!rc && c->pool) {
            if (pthread_create(&threads[nthreads], NULL, server, c) == 0) {
                nthreads++;
            } else {
                rc = ncp_error_set(err, NCP_ERR_INTERNAL, "cannot start the MPI serving thread");
                pthread_mutex_lock(&c->mu);
                c->abort = 1;
                pthread_mutex_unlock(&c->mu);
            }
        }
#endif
        /* write completed tasks in task order; an abandoned (hung) one is passed over */
        int written = 0;
        pthread_mutex_lock(&c->mu);
        while (!rc && written < c->ntasks) {
            task *tk = &c->tasks[written];
            if (tk->hung) {
                written++;
                continue;
            }
            if (tk->state == T_DONE || tk->state == T_KEPT) {
                pthread_mutex_unlock(&c->mu);
                if (tk->rc) {
                    rc = tk->rc;
                    *err = tk->err;
                } else {
                    ncp_fork_guard_begin(); /* no worker forks a solve while this writes */
                    rc = write_task(c, w, tk, err);
                    ncp_fork_guard_end();
                }
                pthread_mutex_lock(&c->mu);
                if (rc) {
                    c->abort = 1;
                    break;
                }
                written++;
                ncp_fork_guard_begin(); /* stderr's lock, as above */
                ncp_progress_update(pg, ++*done, c->probs[tk->prob].name);
                ncp_fork_guard_end();
                continue;
            }
            /* nothing more will come once workers stopped handing out tasks */
            if ((c->abort || (o->interrupt && *o->interrupt)) && tk->state == T_PENDING) break;
            cond_wait_ms(&c->cv, &c->mu, 100);
            watch_running(c);
        }
        pthread_mutex_unlock(&c->mu);
    }
    /* the abandoned workers are left to the process's end (bench_run ends it) */
    for (int i = 0; i < nthreads; i++) {
        int stuck = 0;
        for (int t = 0; t < c->ntasks && !stuck; t++)
            stuck = c->tasks[t].hung && pthread_equal(c->tasks[t].who, threads[i]);
        if (stuck) pthread_detach(threads[i]);
        else pthread_join(threads[i], NULL);
    }
    /* tasks are not taken in order (take_for): the writer may have stopped at a task never
     * started, before the one whose failure stopped the run */
    for (int i = 0; !rc && i < c->ntasks; i++)
        if (c->tasks[i].state == T_DONE && c->tasks[i].rc) {
            rc = c->tasks[i].rc;
            *err = c->tasks[i].err;
        }
    if (c->hung) {
        c->nbatches++;
        return rc; /* the tasks stay: an abandoned solve still writes into its own */
    }
    c->nbatches++;
    for (int i = 0; i < c->ntasks; i++) {
        ncp_result_free(&c->tasks[i].res);
        free(c->tasks[i].trace);
    }
    free(c->tasks);
    c->tasks = NULL;
    return rc;
}

/* src->next on a thread of its own while the caller waits for it or for an interrupt: reading
 * a batch can take minutes inside libraries that no flag reaches (libhdf5, LAPACK's dpotrf
 * of a dense A of order 10^4 when D = J A^-1 J^T is derived), and Ctrl-C must end the run
 * within about a second. On an interrupt the reading is abandoned (*abandoned = 1, the job
 * left to the thread): the source may no longer be used, and the process must end without
 * freeing it (bench_run does). */
typedef struct load_job {
    const ncp_bench_source *src;
    const ncp_problem *probs;
    int n, rc, done;
    ncp_error err;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} load_job;

static void *load_thread(void *arg)
{
    load_job *j = arg;
    ncp_error_clear(&j->err);
    int rc = j->src->next(j->src->ctx, &j->probs, &j->n, &j->err);
    pthread_mutex_lock(&j->mu);
    j->rc = rc;
    j->done = 1;
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

static int next_batch(const ncp_bench_source *src, const volatile int *interrupt,
                      const ncp_problem **probs, int *n, int *abandoned, ncp_error *err)
{
    *abandoned = 0;
    load_job *j = interrupt ? calloc(1, sizeof *j) : NULL;
    pthread_t th;
    if (j) {
        j->src = src;
        pthread_mutex_init(&j->mu, NULL);
        pthread_cond_init(&j->cv, NULL);
    }
    if (!j || pthread_create(&th, NULL, load_thread, j) != 0) {
        if (j) {
            pthread_mutex_destroy(&j->mu);
            pthread_cond_destroy(&j->cv);
            free(j);
        }
        return src->next(src->ctx, probs, n, err); /* no thread (memory): read here */
    }
    pthread_mutex_lock(&j->mu);
    while (!j->done && !*interrupt) {
        cond_wait_ms(&j->cv, &j->mu, 50);
    }
    int done = j->done;
    pthread_mutex_unlock(&j->mu);
    if (!done) {
        pthread_detach(th);
        *abandoned = 1;
        *n = 0;
        return NCP_OK;
    }
    pthread_join(th, NULL);
    *probs = j->probs;
    *n = j->n;
    int rc = j->rc;
    if (rc) *err = j->err;
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    free(j);
    return rc;
}

/* Ends the process once a thread of it cannot be stopped (an abandoned solve or read: it uses
 * memory the callers would free); every finished row is written by then. */
static _Noreturn void end_abandoned(int code)
{
    fflush(NULL);
    _exit(code);
}

/* One batch holding every problem of an array. */
typedef struct array_src {
    const ncp_problem *probs;
    int n, given;
} array_src;

static int array_next(void *ctx, const ncp_problem **probs, int *n, ncp_error *err)
{
    (void)err;
    array_src *a = ctx;
    *probs = a->probs;
    *n = a->given ? 0 : a->n;
    a->given = 1;
    return NCP_OK;
}

/* FNV-1a over 64-bit words (bench.h ncp_bench_problem_checksum). */
static uint64_t fnv_word(uint64_t h, uint64_t w) { return (h ^ w) * 0x100000001b3ull; }

static uint64_t fnv_doubles(uint64_t h, const double *x, size_t n)
{
    for (size_t i = 0; x && i < n; i++) {
        uint64_t w;
        memcpy(&w, &x[i], sizeof w);
        h = fnv_word(h, w);
    }
    return h;
}

static uint64_t fnv_ints(uint64_t h, const int *x, size_t n)
{
    for (size_t i = 0; x && i < n; i++) h = fnv_word(h, (uint64_t)(int64_t)x[i]);
    return h;
}

static uint64_t fnv_csr(uint64_t h, const ncp_csr *S)
{
    h = fnv_ints(h, S->rowptr, S->rowptr ? (size_t)S->m + 1 : 0);
    h = fnv_ints(h, S->col, (size_t)S->nnz);
    return fnv_doubles(h, S->val, (size_t)S->nnz);
}

uint64_t ncp_bench_problem_checksum(uint64_t h, const ncp_problem *p)
{
    for (const char *s = p->name ? p->name : ""; *s; s++) h = fnv_word(h, (unsigned char)*s);
    const int sizes[3] = {p->m, p->nv, p->nblocks};
    h = fnv_ints(h, sizes, 3);
    h = fnv_doubles(h, &p->h, 1);
    for (int k = 0; k < p->nblocks; k++) {
        h = fnv_ints(h, &p->blocks[k].type, 1);
        h = fnv_ints(h, &p->blocks[k].row, 1);
        h = fnv_doubles(h, &p->blocks[k].mu, 1);
    }
    const size_t m = (size_t)p->m, nv = (size_t)p->nv;
    if (p->has_primal || p->has_sparse_primal) {
        if (p->has_primal) h = fnv_doubles(h, p->A, nv * nv);
        else h = fnv_csr(h, &p->A_sparse);
        h = fnv_doubles(h, p->b, nv);
        h = fnv_csr(h, &p->J);
        h = fnv_doubles(h, p->e, m);
    } else {
        h = fnv_doubles(h, p->D, m * m);
        h = fnv_doubles(h, p->vf, m);
    }
    return h;
}

int ncp_bench_run(const ncp_problem *probs, int nprobs, const ncp_bench_opts *o,
                  ncp_bench_summary *sum, ncp_error *err)
{
    array_src a = {probs, nprobs, 0};
    ncp_bench_source src = {array_next, &a, nprobs, NULL, NULL};
    return ncp_bench_run_source(&src, o, sum, err);
}

/* o->batch_row for the rows w->order[first..) (the batch's, placed by run_batch), then
 * o->batch_done (bench.h). */
static int batch_hooks(writers *w, int first, const ncp_problem *probs, int n, ncp_error *err)
{
    const ncp_bench_opts *o = w->o;
    int rc = NCP_OK;
    for (int i = first; !rc && i < w->norder && o->batch_row; i++) {
        ncp_jresult jr;
        if (!(rc = ncp_resume_read(w->rs, w->order[i], &jr, err)))
            rc = o->batch_row(o->batch_ctx, &jr, err);
    }
    return rc ? rc : o->batch_done(o->batch_ctx, probs, n, err);
}

/* The run on rank 0 (or the only process); pool: the other MPI ranks, NULL if none. */
/* A graded solver has no solve: a pair of it missing from the journal (a problem it was
 * not graded on) is a failed row saying so. */
static int graded_no_answer(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run,
                            ncp_error *err)
{
    (void)in;
    (void)out;
    (void)run;
    return ncp_error_set(err, NCP_ERR_NUMERIC, "no answer (a graded solver: ncpbench grade "
                         "--into grades it)");
}

/* o's solvers and graded ones, plus the folder's graded solvers o does not name. */
typedef struct graded_ext {
    const ncp_solver_desc *all[NCP_BENCH_MAX_SOLVERS];
    ncp_solver_desc desc[NCP_BENCH_MAX_SOLVERS];
    const char *graded[NCP_BENCH_MAX_SOLVERS];
} graded_ext;

static int add_graded(const ncp_bench_opts *o, const ncp_resume *rs, ncp_bench_opts *ox,
                      graded_ext *gx, ncp_error *err)
{
    *ox = *o;
    int ns = o->nsolvers, ng = o->ngraded;
    if (ns > NCP_BENCH_MAX_SOLVERS || ng > NCP_BENCH_MAX_SOLVERS)
        return ncp_error_set(err, NCP_ERR_INPUT, "too many solvers (%d)", ns);
    for (int i = 0; i < ns; i++) gx->all[i] = o->solvers[i];
    for (int i = 0; i < ng; i++) gx->graded[i] = o->graded[i];
    for (int k = 0; k < ncp_resume_graded_count(rs); k++) {
        const char *g = ncp_resume_graded_at(rs, k);
        if (solver_index(o, g) >= 0) continue;
        if (ns == NCP_BENCH_MAX_SOLVERS)
            return ncp_error_set(err, NCP_ERR_INPUT, "too many solvers with the graded ones of "
                                 "%s (at most %d)", o->out_dir, NCP_BENCH_MAX_SOLVERS);
        ncp_solver_desc *d = &gx->desc[ns];
        memset(d, 0, sizeof *d);
        d->name = g;
        d->source = "answers computed elsewhere (ncpbench grade --into)";
        d->summary = "graded answers";
        d->solve = graded_no_answer;
        gx->all[ns++] = d;
        gx->graded[ng++] = g;
    }
    ox->solvers = gx->all;
    ox->nsolvers = ns;
    ox->graded = gx->graded;
    ox->ngraded = ng;
    return NCP_OK;
}

static int bench_run(const ncp_bench_source *src, const ncp_bench_opts *o, ncp_mpi_pool *pool,
                     ncp_bench_summary *sum, ncp_error *err)
{
    memset(sum, 0, sizeof *sum);
    if (o->nsolvers > (int)(sizeof sum->solvers / sizeof sum->solvers[0]))
        return ncp_error_set(err, NCP_ERR_INPUT, "too many solvers (%d)", o->nsolvers);
    sum->problem_checksum = NCP_CHECKSUM_START;
    if (!ncp_load_average(sum->load_start)) sum->load_start[0] = sum->load_start[1] =
        sum->load_start[2] = NAN;
    /* the first batch is read before any output exists: bad input leaves nothing behind */
    const ncp_problem *probs = NULL;
    int n = 0;
    double t_load = ncp_now_ms(), load_ms = 0.0, hook_ms = 0.0;
    int abandoned = 0;
    int rc = next_batch(src, o->interrupt, &probs, &n, &abandoned, err);
    load_ms += ncp_now_ms() - t_load;
    if (abandoned) {
        fprintf(stderr, "\nncpbench: interrupted while reading the problems: nothing was "
                "written\n");
        end_abandoned(NCP_EXIT_INTERRUPTED);
    }
    const double first_load_ms = load_ms, t_start = ncp_now_ms();
    /* nothing to solve is bad input, refused before any output exists */
    if (!rc && n == 0)
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: the given files hold no problem (an empty "
                           "/problems group?)", o->source && *o->source ? o->source : "the input");
    if (!rc) rc = ncp_mkdir_p(o->out_dir, err);
    /* one run per folder (util/fsutil.h), unless the caller holds the lock already */
    int lock = -1;
    if (!rc && !o->out_locked && !(rc = ncp_out_lock(o->out_dir, &lock, err)) && lock < 0)
        rc = ncp_error_set(err, NCP_ERR_IO, "%s vanished while the run started", o->out_dir);
    if (rc) return rc;
    writers w;
    memset(&w, 0, sizeof w);
    w.o = o;
    /* the journal: earlier results of this configuration are kept (bench/resume.h); a caller
     * without a configuration (a figure's own run) starts over */
    char *own = NULL;
    if (!o->config && (rc = ncp_resume_config(o, &own, err))) return rc;
    rc = ncp_resume_open(o->out_dir, o->config ? o->config : own, o->fresh || !o->config, &w.rs,
                         err);
    free(own);
    /* the folder's graded solvers the run does not name: their rows stay in the outputs */
    ncp_bench_opts ox;
    graded_ext gx;
    if (!rc) rc = add_graded(o, w.rs, &ox, &gx, err);
    if (rc) {
        ncp_resume_close(w.rs);
        ncp_out_unlock(lock);
        return rc;
    }
    o = &ox;
    w.o = o;
    bench_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.pool = pool;
    c.src = src;
    watch_setup(&c);
    pthread_mutex_init(&c.mu, NULL);
    pthread_mutex_init(&c.fork_mu, NULL);
    pthread_cond_init(&c.cv, NULL);
    ncp_progress pg;
    ncp_progress_begin(&pg, "solving", 0, o->progress);
    int done = 0, complete = 0, solved = 0;
    for (int first = 1; !rc && !c.hung; first = 0) {
        if (o->interrupt && *o->interrupt) break;
        if (!first) {
            t_load = ncp_now_ms();
            rc = next_batch(src, o->interrupt, &probs, &n, &abandoned, err);
            load_ms += ncp_now_ms() - t_load;
            if (rc || abandoned) break;
        }
        if (n == 0) {
            complete = 1;
            break;
        }
        c.probs = probs;
        c.nprobs = n;
        for (int i = 0; i < n; i++)
            sum->problem_checksum = ncp_bench_problem_checksum(sum->problem_checksum, &probs[i]);
        solved += n;
        pg.total = (solved > src->total_hint ? solved : src->total_hint) * o->nsolvers;
        w.nproblems += n;
        int first_row = w.norder;
        rc = run_batch(&c, &w, &pg, &done, err);
        if (!rc && !c.hung && o->batch_done && !(o->interrupt && *o->interrupt)) {
            double t_hook = ncp_now_ms();
            rc = batch_hooks(&w, first_row, probs, n, err);
            hook_ms += ncp_now_ms() - t_hook;
        }
    }
    complete = complete && !(o->interrupt && *o->interrupt) && !rc && !c.hung;
    /* An incomplete run keeps every earlier result it has not reached (after the rows of this
     * run); a complete one drops those of problems no longer in the collection. */
    sum->kept = w.kept;
    for (int i = 0; i < ncp_resume_count(w.rs); i++) {
        int placed;
        long long off = ncp_resume_at(w.rs, i, &placed);
        if (placed) continue;
        if (solver_index(o, ncp_resume_solver_at(w.rs, i)) < 0) {
            sum->hidden++; /* a solver of the folder not run this time: kept in the journal */
        } else if (complete) {
            sum->dropped++;
        } else {
            ncp_error e2 = {0};
            int erc = put_order(&w, off, rc ? &e2 : err);
            if (erc && !rc) rc = erc;
            sum->kept++;
        }
    }
    ncp_progress_end(&pg);
    /* the outputs again from the journal; not after the journal itself failed (a full disk:
     * the earlier outputs stay as they are, the journal holds every finished result) */
    ncp_error e2 = {0};
    int src_rc = ncp_resume_sync(w.rs, rc ? &e2 : err);
    if (!rc) rc = src_rc;
    if (rc != NCP_ERR_IO && rc != NCP_ERR_NOMEM) {
        double t0 = ncp_now_ms();
        int brc = rebuild(&w, rc ? &e2 : err);
        /* graded solvers' traces carry the program's own times (bench/grade.h) */
        if (!brc && o->traces && o->ngraded > 0)
            brc = ncp_grade_mark_traces(o->out_dir, o->graded, o->ngraded,
                                        o->ngraded == o->nsolvers, rc ? &e2 : err);
        w.prof.write_ms += ncp_now_ms() - t0;
        if (!rc) rc = brc;
    }
    if (!rc) {
        char path[4200];
        sum->nproblems = w.nproblems;
        sum->interrupted = o->interrupt && *o->interrupt;
        summarise(&w, sum);
        sum->profile = w.prof;
        sum->profile.load_ms = load_ms;
        sum->profile.capture_ms = o->capture_ms;
        /* batches after the first are read inside the solve phase: not counted twice; nor
         * the batch hooks (the labels) */
        sum->profile.solve_wall_ms =
            ncp_now_ms() - t_start - (load_ms - first_load_ms) - hook_ms;
        if (!(rc = ncp_path_join(path, sizeof path, o->out_dir, "summary.json", err)))
            rc = ncp_out_summary(path, o, sum, w.titles, w.ntitles, err);
    }
    ncp_resume_close(w.rs);
    if (c.hung || abandoned) {
        /* An abandoned solve or read still runs on a thread of this process, over problems
         * and tasks the callers would free: every finished row is written (journal, outputs,
         * summary), so the process ends here, with the watchdog's code (the message is out). */
        if (rc) fprintf(stderr, "ncpbench: %s\n", err->msg);
        if (abandoned)
            fprintf(stderr, "\nncpbench: interrupted while reading the next problems: the "
                    "finished rows are written to %s\n", o->out_dir);
        end_abandoned(o->interrupt && *o->interrupt ? NCP_EXIT_INTERRUPTED : NCP_EXIT_HUNG);
    }
    ncp_out_unlock(lock);
    free(w.order);
    free(w.tbuf);
    free(w.rec);
    for (int i = 0; i < w.ntitles; i++) {
        free((char *)w.titles[i].problem);
        free((char *)w.titles[i].title);
        free((char *)w.titles[i].description);
    }
    free(w.titles);
    batch_state_free(&c);
    pthread_mutex_destroy(&c.mu);
    pthread_mutex_destroy(&c.fork_mu);
    pthread_cond_destroy(&c.cv);
    return rc;
}

int ncp_bench_run_source(const ncp_bench_source *src, const ncp_bench_opts *o,
                         ncp_bench_summary *sum, ncp_error *err)
{
#ifdef NCP_HAVE_MPI
    if (ncp_mpi_size() > 1) {
        memset(sum, 0, sizeof *sum);
        if (ncp_mpi_rank() > 0) return remote_run(src, o, sum);
        ncp_mpi_pool *pool = NULL;
        int rc = ncp_mpi_pool_open(&pool, err);
        if (!rc) rc = bench_run(src, o, pool, sum, err);
        int dead = ncp_mpi_pool_dead(pool);
        ncp_mpi_pool_close(pool); /* STOP to every rank still waiting, whatever happened */
        if (dead > 0) {
            /* every finished row is written; the dead rank waits in its signal handler and
             * cannot finalise: the job ends here, with the watchdog's code (docs/running.md) */
            fprintf(stderr, "ncpbench: %s\n", err->msg);
            ncp_mpi_abort(NCP_EXIT_HUNG);
        }
        return rc;
    }
#endif
    return bench_run(src, o, NULL, sum, err);
}
