/* ncpbench entry point: installs the SIGINT/SIGTERM handler and runs the CLI. The interrupt
 * flag is the one piece of process-global mutable state: a signal handler can reach nothing
 * else. Every loop that runs long polls it (capture, harness, bench), so Ctrl-C stops after the
 * current iteration and every finished row is written and closed properly. Under mpirun (an
 * MPI build, bench/mpi_pool.h) MPI is initialised first and finalised last; mpirun forwards
 * Ctrl-C to every rank as SIGTERM. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "app/cli.h"
#include "bench/mpi_pool.h"

static volatile sig_atomic_t interrupted = 0;
_Static_assert(sizeof(sig_atomic_t) == sizeof(int), "sig_atomic_t is read as int");

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

int main(int argc, char **argv)
{
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
