/* Scaling out: the (problem x solver) tasks of a benchmark run spread over MPI ranks
 * (`mpirun -n N ncpbench run|solve ...`, docs/mpi.md).
 *
 * Every rank holds the same problems (the capture is deterministic given the random seed; solve
 * reads the same files, as stored, and a rank derives the rest of a problem only when handed one
 * of its tasks: bench.h's finish step), so only (batch, task index) travels to a rank and the
 * task's answer travels back. Which task goes to which rank is the benchmark's choice (take). Rank 0 hands tasks out on demand from the queue its own worker threads take
 * from (dynamic load balancing: a rank holds at most two tasks, and gets the next when it sends
 * an answer back) and stays the only writer, in task order, so its outputs are those of a serial
 * run. The other ranks write nothing. Results travel as the bytes of ncp_result (every scalar
 * field, the pointers refilled), so every rank must run the same executable.
 *
 * Messages between rank 0 and a rank r, in order: TASKs, each answered; at most one STOP per
 * benchmark run (the rank leaves ncp_mpi_work); one END per command (ncp_mpi_end), after which
 * nothing more travels. A rank answers every TASK wherever it is (a rank that failed before
 * solving answers with its failure), so rank 0 never waits for an answer that cannot come.
 *
 * Built with -Dmpi (NCP_HAVE_MPI); without it a process is rank 0 of 1 and the rest is absent. */
#ifndef NCP_MPI_POOL_H
#define NCP_MPI_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "solve/harness.h"
#include "util/ncp_error.h"

/* One task's answer: filled by a worker rank (arrays borrowed from its task), received by rank 0
 * (arrays allocated; the receiver takes them and sets the pointers to NULL). */
typedef struct ncp_mpi_answer {
    int ran;              /* 0: not run, the run was stopping (or this rank was interrupted) */
    int rc;               /* ncp_harness_solve's code; err its message */
    ncp_error err;
    ncp_result res;       /* lambda and u of m entries (NULL when unsupported), v of nv or NULL */
    int m, nv;
    const char *note;     /* the row's note */
    const char *problem;  /* the problem's name and fingerprint (ncp_mpi_fingerprint): rank 0 */
    uint64_t fingerprint; /* checks that the ranks hold the same problem */
    void *trace;          /* ntrace rows of trace_row bytes */
    int ntrace;
    int signal;           /* rank 0: the rank died of this fatal signal solving the task */
} ncp_mpi_answer;

/* The benchmark's side of the pool (bench.c). Rank 0 calls take, stopping and land from the
 * thread that serves the other ranks; worker ranks call select, run and release. */
typedef struct ncp_mpi_tasks {
    void *ctx;
    size_t trace_row;                          /* bytes of one trace row */
    int (*take)(void *ctx, int rank);          /* next task for rank, marked running; -1: none */
    int (*stopping)(void *ctx);                /* 1: hand out nothing more */
    void (*land)(void *ctx, int t, int rank, ncp_mpi_answer *a);
    int (*select)(void *ctx, int batch, ncp_error *err); /* make batch current (worker) */
    void (*run)(void *ctx, int t, ncp_mpi_answer *a);    /* solve task t (worker) */
    void (*release)(void *ctx, int t);                   /* free what run kept (worker) */
} ncp_mpi_tasks;

typedef struct ncp_mpi_pool ncp_mpi_pool;

#ifdef NCP_HAVE_MPI

/* MPI_Init_thread (MPI_THREAD_SERIALIZED: rank 0's serving thread makes the MPI calls while the
 * others solve and write) when the process was started by mpirun, srun or another PMI launcher;
 * otherwise nothing, and the process is rank 0 of 1. */
int ncp_mpi_init(int *argc, char ***argv, ncp_error *err);
void ncp_mpi_finalize(void);
int ncp_mpi_rank(void); /* 0 when MPI is not initialised */
/* A hash (FNV-1a, 64 bits) of a problem's name, sizes, step and right-hand sides (vf, e, b):
 * names alone ("000000", ...) repeat across files. */
uint64_t ncp_mpi_fingerprint(const ncp_problem *p);
int ncp_mpi_size(void); /* 1 when MPI is not initialised */

/* Rank 0, one benchmark run: the ranks that got STOP. close sends STOP to the others. */
int ncp_mpi_pool_open(ncp_mpi_pool **pool, ncp_error *err);
void ncp_mpi_pool_close(ncp_mpi_pool *pool);
/* Rank 0: hands out the tasks of batch `batch` (0, 1, ... in the order of the source) until none
 * is left or q->stopping, and lands every answer; returns once no task is out. Call from one
 * thread at a time, no other MPI call meanwhile. */
void ncp_mpi_serve(ncp_mpi_pool *pool, const ncp_mpi_tasks *q, int batch);
/* Rank 0: a rank that died of a fatal signal while solving (its task landed failed, with
 * answer.signal), -1 if none. That rank waits in its signal handler and cannot end cleanly: once
 * every finished row is written, rank 0 ends the job with ncp_mpi_abort (MPI_Abort; mpirun's
 * exit code is `code`). */
int ncp_mpi_pool_dead(const ncp_mpi_pool *pool);
_Noreturn void ncp_mpi_abort(int code);
/* Worker rank: solves what rank 0 hands out until STOP (or END). A fatal signal in a solve
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) is reported to rank 0, see ncp_mpi_pool_dead. */
void ncp_mpi_work(const ncp_mpi_tasks *q, const volatile int *interrupt);
/* Every rank at the end of a command: rank 0 sends END; another rank answers any task still
 * coming (failed = its command failed before solving) until END. */
void ncp_mpi_end(int failed);

#else

static inline int ncp_mpi_rank(void) { return 0; }
static inline int ncp_mpi_size(void) { return 1; }
static inline void ncp_mpi_end(int failed) { (void)failed; }

#endif

#endif
