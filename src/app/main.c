/* ncpbench entry point: installs the SIGINT/SIGTERM handler and runs the CLI. The interrupt
 * flag is the one piece of process-global mutable state: a signal handler can reach nothing
 * else. Every loop that runs long polls it (capture, harness, bench), so Ctrl-C stops after the
 * current iteration and every finished row is written and closed properly. Under mpirun (an
 * MPI build, bench/mpi_pool.h) MPI is initialised first and finalised last; mpirun forwards
 * Ctrl-C to every rank as SIGTERM. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/cli.h"
#include "bench/mpi_pool.h"
#include "util/membudget.h"

static volatile sig_atomic_t interrupted = 0;
_Static_assert(sizeof(sig_atomic_t) == sizeof(int), "sig_atomic_t is read as int");

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* OpenBLAS (loaded with Siconos) starts a thread pool when it loads, whose threads map a
 * 128 MiB buffer each and retry for ever when that fails: under the address-space cap of
 * --max-memory (util/membudget.h) they spin and hold the process's exit. Its thread count is
 * read from the environment when the library loads, before main: with more than one thread,
 * the program starts itself again once with OPENBLAS_NUM_THREADS=1 (the solves are timed one
 * per thread anyway; -j runs several). Sanitizer builds have no cap. */
static void openblas_one_thread(char **argv)
{
#ifndef NCP_MEM_NO_ADDRESS_LIMIT
    int (*threads)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
    if (!threads || threads() <= 1 || getenv("OPENBLAS_NUM_THREADS")) return;
    if (setenv("OPENBLAS_NUM_THREADS", "1", 1) == 0) execv("/proc/self/exe", argv);
    /* not started again: the pool stays (a cap then may hold the exit) */
#else
    (void)argv;
#endif
}

int main(int argc, char **argv)
{
    openblas_one_thread(argv);
#ifdef NCP_HAVE_MPI
    ncp_error err = {0};
    if (ncp_mpi_init(&argc, &argv, &err)) {
        fprintf(stderr, "ncpbench: %s\n", err.msg);
        return 3;
    }
#endif
    /* after MPI_Init, so that the handler is ours whatever the MPI library installs */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    int rc = ncp_cli_main(argc, argv, (const volatile int *)&interrupted);
#ifdef NCP_HAVE_MPI
    ncp_mpi_finalize();
#endif
    return rc;
}
