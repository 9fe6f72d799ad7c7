/* MPI pool: rank 0 serves tasks, the other ranks solve them (mpi_pool.h). */
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/mpi_pool.h"

enum { TAG_TASK = 1, TAG_ANSWER = 2, TAG_STOP = 3, TAG_END = 4, TAG_DIED = 5 };

/* Tasks a rank holds at once: it solves one while the next waits, so it never idles for the
 * round trip to rank 0; two keep the load balancing fine-grained at the end of a batch. */
#define PREFETCH 2

/* Header of an answer message, then ncp_error, ncp_result (their bytes), lambda, u, v, the
 * trace rows, the note and the problem name. */
enum { H_BATCH, H_TASK, H_RAN, H_RC, H_NL, H_NU, H_NV, H_NSV, H_NTRACE, H_ROW, H_NOTE, H_PROB,
       H_SZRES, H_SZERR, H_PRINT, H_COUNT };

struct ncp_mpi_pool {
    int size;
    int *stopped;      /* per rank: STOP sent */
    int *out;          /* per rank: tasks handed out and not answered */
    int *held;         /* per rank, PREFETCH slots: the tasks out, -1 for none */
    int dead;          /* a rank that died solving (TAG_DIED), -1 for none */
};

int ncp_mpi_init(int *argc, char ***argv, ncp_error *err)
{
    /* OpenMPI (OMPI_COMM_WORLD_SIZE), PMIx (PMIX_RANK, srun --mpi=pmix), PMI (PMI_RANK) */
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK") && !getenv("PMI_RANK"))
        return NCP_OK;
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "MPI_Init_thread failed");
    if (provided < MPI_THREAD_SERIALIZED) {
        MPI_Finalize();
        return ncp_error_set(err, NCP_ERR_INTERNAL, "the MPI library offers thread level %d; "
                             "ncpbench needs MPI_THREAD_SERIALIZED (%d): rebuild with -Dmpi=disabled "
                             "or use an MPI built with thread support", provided,
                             MPI_THREAD_SERIALIZED);
    }
    return NCP_OK;
}

static int mpi_live(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin;
}

void ncp_mpi_finalize(void)
{
    if (mpi_live()) MPI_Finalize();
}

int ncp_mpi_rank(void)
{
    int r = 0;
    if (mpi_live()) MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int ncp_mpi_size(void)
{
    int n = 1;
    if (mpi_live()) MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

static uint64_t fnv(uint64_t x, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++) x = (x ^ b[i]) * 1099511628211ull;
    return x;
}

uint64_t ncp_mpi_fingerprint(const ncp_problem *p)
{
    uint64_t x = 14695981039346656037ull;
    if (p->name) x = fnv(x, p->name, strlen(p->name));
    x = fnv(x, &p->m, sizeof p->m);
    x = fnv(x, &p->nv, sizeof p->nv);
    x = fnv(x, &p->nblocks, sizeof p->nblocks);
    x = fnv(x, &p->h, sizeof p->h);
    if (p->vf) x = fnv(x, p->vf, sizeof(double) * (size_t)p->m);
    if (p->e) x = fnv(x, p->e, sizeof(double) * (size_t)p->m);
    if (p->b) x = fnv(x, p->b, sizeof(double) * (size_t)p->nv);
    return x;
}

int ncp_mpi_pool_open(ncp_mpi_pool **pool, ncp_error *err)
{
    *pool = NULL;
    ncp_mpi_pool *p = ncp_calloc(err, 1, sizeof *p);
    if (!p) return NCP_ERR_NOMEM;
    p->size = ncp_mpi_size();
    p->stopped = ncp_calloc(err, (size_t)p->size, sizeof *p->stopped);
    p->out = ncp_calloc(err, (size_t)p->size, sizeof *p->out);
    p->held = ncp_calloc(err, (size_t)p->size * PREFETCH, sizeof *p->held);
    p->dead = -1;
    if (!p->stopped || !p->out || !p->held) {
        ncp_mpi_pool_close(p);
        return NCP_ERR_NOMEM;
    }
    *pool = p;
    return NCP_OK;
}

static void send_stop(ncp_mpi_pool *p)
{
    int none = 0;
    for (int r = 1; r < p->size; r++)
        if (!p->stopped[r]) {
            MPI_Send(&none, 1, MPI_INT, r, TAG_STOP, MPI_COMM_WORLD);
            p->stopped[r] = 1;
        }
}

void ncp_mpi_pool_close(ncp_mpi_pool *pool)
{
    if (!pool) return;
    if (pool->stopped) send_stop(pool);
    free(pool->stopped);
    free(pool->out);
    free(pool->held);
    free(pool);
}

/* Waiting without spinning: MPI_Recv polls a core at full speed, which on a machine with one
 * core per rank takes it from the solves. The pause grows from 20 us to 1 ms while idle. */
static void pause_us(long *us)
{
    struct timespec ts = {0, *us * 1000L};
    nanosleep(&ts, NULL);
    *us = *us < 500 ? 2 * *us : 1000;
}

static void wait_message(int src, MPI_Status *st)
{
    long us = 20;
    for (;;) {
        int flag = 0;
        MPI_Iprobe(src, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, st);
        if (flag) return;
        pause_us(&us);
    }
}

/* ---- answers ---- */

static void put(char **p, const void *src, size_t n)
{
    if (n) memcpy(*p, src, n);
    *p += n;
}

static void send_answer(int batch, int t, const ncp_mpi_answer *a, size_t row)
{
    int64_t h[H_COUNT] = {0};
    int full = a->ran && !a->rc;
    h[H_BATCH] = batch;
    h[H_TASK] = t;
    h[H_RAN] = a->ran;
    h[H_RC] = a->rc;
    h[H_NL] = full && a->res.lambda ? a->m : 0;
    h[H_NU] = full && a->res.u ? a->m : 0;
    h[H_NV] = full && a->res.v ? a->nv : 0;
    h[H_NSV] = full && a->res.solver_v ? a->nv : 0;
    h[H_NTRACE] = full && a->trace ? a->ntrace : 0;
    h[H_ROW] = (int64_t)row;
    h[H_NOTE] = full && a->note ? (int64_t)strlen(a->note) + 1 : 0;
    h[H_PROB] = full && a->problem ? (int64_t)strlen(a->problem) + 1 : 0;
    h[H_SZRES] = sizeof(ncp_result);
    h[H_SZERR] = sizeof(ncp_error);
    memcpy(&h[H_PRINT], &a->fingerprint, sizeof a->fingerprint);
    size_t n = sizeof h + sizeof(ncp_error) + sizeof(ncp_result) +
               sizeof(double) * (size_t)(h[H_NL] + h[H_NU] + h[H_NV] + h[H_NSV]) +
               row * (size_t)h[H_NTRACE] + (size_t)(h[H_NOTE] + h[H_PROB]);
    char *buf = n <= (size_t)INT32_MAX ? malloc(n) : NULL;
    ncp_mpi_answer small;
    if (!buf) {
        /* the answer does not fit: rank 0 records the failure instead */
        small = *a;
        small.ran = 1;
        small.rc = ncp_error_set(&small.err, NCP_ERR_NOMEM, "rank %d cannot send the answer "
                                 "(%zu bytes): out of memory or over MPI's 2 GiB message",
                                 ncp_mpi_rank(), n);
        send_answer(batch, t, &small, row);
        return;
    }
    char *p = buf;
    put(&p, h, sizeof h);
    put(&p, &a->err, sizeof a->err);
    put(&p, &a->res, sizeof a->res);
    put(&p, a->res.lambda, sizeof(double) * (size_t)h[H_NL]);
    put(&p, a->res.u, sizeof(double) * (size_t)h[H_NU]);
    put(&p, a->res.v, sizeof(double) * (size_t)h[H_NV]);
    put(&p, a->res.solver_v, sizeof(double) * (size_t)h[H_NSV]);
    put(&p, a->trace, row * (size_t)h[H_NTRACE]);
    put(&p, a->note, (size_t)h[H_NOTE]);
    put(&p, a->problem, (size_t)h[H_PROB]);
    MPI_Send(buf, (int)n, MPI_BYTE, 0, TAG_ANSWER, MPI_COMM_WORLD);
    free(buf);
}

static void *take_array(const char **p, size_t n, int *oom)
{
    if (!n) return NULL;
    void *a = malloc(n);
    if (a) memcpy(a, *p, n);
    else *oom = 1;
    *p += n;
    return a;
}

/* Decodes an answer of `len` bytes. A malformed one (another executable, a truncated message)
 * becomes a failed answer, so that rank 0 records it and stops instead of waiting. */
static void decode_answer(const char *buf, size_t len, int rank, size_t row, int *batch, int *t,
                          ncp_mpi_answer *a)
{
    int64_t h[H_COUNT];
    memset(a, 0, sizeof *a);
    *batch = *t = -1;
    if (len < sizeof h) return;
    memcpy(h, buf, sizeof h);
    *batch = (int)h[H_BATCH];
    *t = (int)h[H_TASK];
    size_t want = sizeof h + sizeof(ncp_error) + sizeof(ncp_result);
    int sane = h[H_SZRES] == (int64_t)sizeof(ncp_result) &&
               h[H_SZERR] == (int64_t)sizeof(ncp_error) &&
               (h[H_NTRACE] == 0 || h[H_ROW] == (int64_t)row);
    for (int k = H_NL; k <= H_PROB; k++) sane = sane && h[k] >= 0;
    if (sane)
        want += sizeof(double) * (size_t)(h[H_NL] + h[H_NU] + h[H_NV] + h[H_NSV]) +
                row * (size_t)h[H_NTRACE] + (size_t)(h[H_NOTE] + h[H_PROB]);
    a->ran = 1;
    if (!sane || want != len) {
        a->rc = ncp_error_set(&a->err, NCP_ERR_INTERNAL, "rank %d sent a malformed answer (%zu "
                              "bytes): every rank must run the same ncpbench executable", rank,
                              len);
        return;
    }
    const char *p = buf + sizeof h;
    memcpy(&a->err, p, sizeof a->err);
    p += sizeof a->err;
    a->ran = (int)h[H_RAN];
    a->rc = (int)h[H_RC];
    if (!a->ran || a->rc) return;
    memcpy(&a->res, p, sizeof a->res);
    p += sizeof a->res;
    int oom = 0;
    a->m = (int)(h[H_NL] ? h[H_NL] : h[H_NU]);
    a->nv = (int)h[H_NV];
    a->res.lambda = take_array(&p, sizeof(double) * (size_t)h[H_NL], &oom);
    a->res.u = take_array(&p, sizeof(double) * (size_t)h[H_NU], &oom);
    a->res.v = take_array(&p, sizeof(double) * (size_t)h[H_NV], &oom);
    a->res.solver_v = take_array(&p, sizeof(double) * (size_t)h[H_NSV], &oom);
    a->trace = take_array(&p, row * (size_t)h[H_NTRACE], &oom);
    a->ntrace = (int)h[H_NTRACE];
    a->note = h[H_NOTE] ? p : "";
    p += h[H_NOTE];
    a->problem = h[H_PROB] ? p : "";
    memcpy(&a->fingerprint, &h[H_PRINT], sizeof a->fingerprint);
    if (oom) {
        ncp_result_free(&a->res);
        free(a->trace);
        a->trace = NULL;
        a->rc = ncp_error_set(&a->err, NCP_ERR_NOMEM, "out of memory receiving an answer of "
                              "rank %d", rank);
    }
}

/* ---- rank 0 ---- */

static void send_task(ncp_mpi_pool *pool, int rank, int batch, int t)
{
    int msg[2] = {batch, t};
    MPI_Send(msg, 2, MPI_INT, rank, TAG_TASK, MPI_COMM_WORLD);
    int *h = &pool->held[rank * PREFETCH];
    for (int k = 0; k < PREFETCH; k++)
        if (h[k] < 0) {
            h[k] = t;
            break;
        }
    pool->out[rank]++;
}

static void answered(ncp_mpi_pool *pool, int rank, int t)
{
    int *h = &pool->held[rank * PREFETCH];
    for (int k = 0; k < PREFETCH; k++)
        if (h[k] == t) {
            h[k] = -1;
            break;
        }
    pool->out[rank]--;
}

/* A rank's report that it is dying of a fatal signal in task t (work_fatal): t lands as failed
 * with the signal, the other task it held as not run, and the rank gets nothing more (it waits
 * in its signal handler for the end of the job: ncp_mpi_pool_dead). 1 when one came. */
static int receive_death(ncp_mpi_pool *pool, const ncp_mpi_tasks *q, int batch)
{
    int flag = 0, msg[3];
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, TAG_DIED, MPI_COMM_WORLD, &flag, &st);
    if (!flag) return 0;
    int r = st.MPI_SOURCE;
    MPI_Recv(msg, 3, MPI_INT, r, TAG_DIED, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (pool->dead < 0) pool->dead = r;
    pool->stopped[r] = 1; /* no STOP: it reads nothing more */
    ncp_mpi_answer a;
    memset(&a, 0, sizeof a);
    a.ran = 1;
    a.signal = msg[2];
    a.rc = ncp_error_set(&a.err, NCP_ERR_INTERNAL, "rank %d died of signal %d (%s)", r, msg[2],
                         strsignal(msg[2]));
    if (msg[0] == batch) q->land(q->ctx, msg[1], r, &a);
    int *h = &pool->held[r * PREFETCH];
    for (int k = 0; k < PREFETCH; k++)
        if (h[k] >= 0 && h[k] != msg[1]) {
            ncp_mpi_answer none;
            memset(&none, 0, sizeof none);
            q->land(q->ctx, h[k], r, &none);
        }
    for (int k = 0; k < PREFETCH; k++) h[k] = -1;
    pool->out[r] = 0;
    return 1;
}

int ncp_mpi_pool_dead(const ncp_mpi_pool *pool)
{
    return pool ? pool->dead : -1;
}

_Noreturn void ncp_mpi_abort(int code)
{
    fflush(NULL);
    MPI_Abort(MPI_COMM_WORLD, code);
    _exit(code);
}

/* Receives one answer if one is there; 1 when it did. */
static int receive_answer(ncp_mpi_pool *pool, const ncp_mpi_tasks *q, int batch)
{
    int flag = 0, len = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, TAG_ANSWER, MPI_COMM_WORLD, &flag, &st);
    if (!flag) return 0;
    MPI_Get_count(&st, MPI_BYTE, &len);
    char *buf = malloc(len > 0 ? (size_t)len : 1);
    int r = st.MPI_SOURCE;
    if (!buf) {
        /* the message cannot be taken off the wire, and rank r waits until it is */
        fprintf(stderr, "ncpbench: out of memory receiving an answer of %d bytes from rank %d\n",
                len, r);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Recv(buf, len, MPI_BYTE, r, TAG_ANSWER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int b, t;
    ncp_mpi_answer a;
    decode_answer(buf, (size_t)len, r, q->trace_row, &b, &t, &a);
    answered(pool, r, t);
    if (b == batch && t >= 0) q->land(q->ctx, t, r, &a);
    ncp_result_free(&a.res); /* what land did not take */
    free(a.trace);
    free(buf);
    return 1;
}

void ncp_mpi_serve(ncp_mpi_pool *pool, const ncp_mpi_tasks *q, int batch)
{
    int stopping = 0, exhausted = 0;
    long us = 20;
    for (int r = 0; r < pool->size; r++) pool->out[r] = 0;
    for (int k = 0; k < pool->size * PREFETCH; k++) pool->held[k] = -1;
    for (;;) {
        if (!stopping && q->stopping(q->ctx)) {
            stopping = 1;
            send_stop(pool);
        }
        for (int r = 1; r < pool->size && !stopping && !exhausted; r++)
            while (!pool->stopped[r] && pool->out[r] < PREFETCH) {
                int t = q->take(q->ctx, r);
                if (t < 0) {
                    exhausted = 1;
                    break;
                }
                send_task(pool, r, batch, t);
            }
        int out = 0;
        for (int r = 1; r < pool->size; r++) out += pool->out[r];
        if (!out && (stopping || exhausted)) return;
        int got = receive_death(pool, q, batch);
        if (receive_answer(pool, q, batch) || got) us = 20;
        else pause_us(&us);
    }
}

/* ---- other ranks ---- */

/* A worker rank's solve runs in its own process (without --isolate): a fatal signal there would
 * let mpirun end the whole job with its own abort text, rank 0 saying nothing. The handler
 * instead writes a line of its own (write(2), prepared before the solve), reports the task to
 * rank 0 (a 3-int send: not async-signal-safe, but this rank was in no MPI call, the solve runs
 * between them on this thread, and the process is lost anyway; alarm(2) ends a send the
 * crash made block), and waits for rank 0, which writes every finished row, names the solver
 * and ends the job (ncp_mpi_abort). The state a signal handler reads is necessarily static. */
static struct {
    volatile sig_atomic_t batch, task;
    char line[200];
    size_t len;
} fatal;

static void work_fatal(int sig)
{
    char num[16];
    int n = 0;
    for (int v = sig; n == 0 || v; v /= 10) num[n++] = (char)('0' + v % 10);
    ssize_t w = write(STDERR_FILENO, fatal.line, fatal.len);
    while (n--) w = write(STDERR_FILENO, &num[n], 1);
    static const char tail[] = "): rank 0 names the solve and ends the run\n";
    w = write(STDERR_FILENO, tail, sizeof tail - 1);
    (void)w;
    int msg[3] = {(int)fatal.batch, (int)fatal.task, sig};
    alarm(10);
    MPI_Send(msg, 3, MPI_INT, 0, TAG_DIED, MPI_COMM_WORLD);
    alarm(0);
    for (;;) pause(); /* rank 0 ends the job; mpirun kills this process then */
}

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define NFATAL (sizeof fatal_signals / sizeof fatal_signals[0])

static void run_guarded(const ncp_mpi_tasks *q, int batch, int t, ncp_mpi_answer *a)
{
    fatal.batch = batch;
    fatal.task = t;
    int n = snprintf(fatal.line, sizeof fatal.line, "ncpbench: rank %d is dying in task %d of "
                     "batch %d (signal ", ncp_mpi_rank(), t, batch);
    fatal.len = n > 0 && (size_t)n < sizeof fatal.line ? (size_t)n : 0;
    struct sigaction sa, old[NFATAL];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = work_fatal;
    sigemptyset(&sa.sa_mask);
    for (size_t k = 0; k < NFATAL; k++) sigaction(fatal_signals[k], &sa, &old[k]);
    q->run(q->ctx, t, a);
    for (size_t k = 0; k < NFATAL; k++) sigaction(fatal_signals[k], &old[k], NULL);
}

void ncp_mpi_work(const ncp_mpi_tasks *q, const volatile int *interrupt)
{
    for (;;) {
        MPI_Status st;
        wait_message(0, &st);
        if (st.MPI_TAG == TAG_END) return; /* left for ncp_mpi_end */
        if (st.MPI_TAG != TAG_TASK) {
            int none;
            MPI_Recv(&none, 1, MPI_INT, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (st.MPI_TAG == TAG_STOP) return;
            continue;
        }
        int msg[2], stop = 0;
        MPI_Recv(msg, 2, MPI_INT, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* a STOP already sent after this task: the run is stopping, do not start it */
        MPI_Iprobe(0, TAG_STOP, MPI_COMM_WORLD, &stop, MPI_STATUS_IGNORE);
        ncp_mpi_answer a;
        memset(&a, 0, sizeof a);
        int selected = 0;
        if (!stop && !(interrupt && *interrupt)) {
            a.ran = 1;
            a.rc = q->select(q->ctx, msg[0], &a.err);
            selected = !a.rc;
            if (selected) run_guarded(q, msg[0], msg[1], &a);
        }
        send_answer(msg[0], msg[1], &a, q->trace_row);
        if (selected) q->release(q->ctx, msg[1]);
    }
}

void ncp_mpi_end(int failed)
{
    int size = ncp_mpi_size(), rank = ncp_mpi_rank(), none = 0;
    if (size < 2) return;
    if (rank == 0) {
        for (int r = 1; r < size; r++) MPI_Send(&none, 1, MPI_INT, r, TAG_END, MPI_COMM_WORLD);
        return;
    }
    for (;;) {
        MPI_Status st;
        wait_message(0, &st);
        if (st.MPI_TAG != TAG_TASK) {
            MPI_Recv(&none, 1, MPI_INT, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (st.MPI_TAG == TAG_END) return;
            continue;
        }
        /* a task this rank never reached the benchmark for */
        int msg[2];
        MPI_Recv(msg, 2, MPI_INT, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ncp_mpi_answer a;
        memset(&a, 0, sizeof a);
        a.ran = 1;
        a.rc = ncp_error_set(&a.err, failed ? NCP_ERR_INPUT : NCP_ERR_INTERNAL,
                             "rank %d %s before solving (its message is above)", rank,
                             failed ? "failed" : "stopped");
        send_answer(msg[0], msg[1], &a, 0);
    }
}
