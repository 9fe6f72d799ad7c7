/* Command-line interface of ncpbench. Exit codes: 0 success, 1 `check` found regressions,
 * 2 bad input or usage, 3 I/O or internal failure, 130 interrupted (partial results kept). */
#ifndef NCP_CLI_H
#define NCP_CLI_H

/* interrupt: flag set by the signal handler installed in main() (may be NULL). */
int ncp_cli_main(int argc, char **argv, const volatile int *interrupt);

#endif
