/* ncpbench entry point: installs the SIGINT/SIGTERM handler and runs the CLI. The interrupt
 * flag is the one piece of process-global mutable state: a signal handler can reach nothing
 * else. Every loop that runs long polls it (capture, harness, bench), so Ctrl-C stops after the
 * current iteration and every finished row is written and closed properly. */
#include <signal.h>
#include <string.h>

#include "app/cli.h"

static volatile sig_atomic_t interrupted = 0;
_Static_assert(sizeof(sig_atomic_t) == sizeof(int), "sig_atomic_t is read as int");

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return ncp_cli_main(argc, argv, (const volatile int *)&interrupted);
}
