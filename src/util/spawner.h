/* The spawner: a small process forked at the very start of a command, before any problem is
 * read and before any thread runs, that forks the children of the run (a peer's solve,
 * solvers/siconos.c and engine_peers.c; an isolated solve, bench.c; the read of a problem file
 * in a child that guards against libhdf5's crashes, util/isolate.h ncp_isolated_run_data) on
 * request. A fork
 * write-protects every page of the forking process (copy-on-write): when the measuring process
 * forked its children itself, the in-process solver that ran next paid one page fault per page
 * it wrote on its CPU clock (pgs's setup 0.010 -> 0.063 ms on box-on-plane problems with one
 * peer in the run; results/REPORT.md "Performance profiles"), and each child paid for copying
 * the pages it wrote. A child of the spawner shares no page with the measuring process: what it
 * needs comes through a memory-backed file (memfd) that the caller fills, and it runs in its own
 * fresh memory.
 *
 * Protocol: the caller sends the spawner one datagram per child (a sequenced-packet socket:
 * several threads may ask at once) carrying the job's function and argument (both valid in the
 * spawner: code, or data made before it started, the same executable image without exec) and
 * three descriptors: the child's channel to the caller (its descriptor 3), the data file (its
 * descriptor 4) and a control socket. For each request the spawner forks a minder, which forks
 * the child, sends its pid on the control socket, waits for it and sends its wait status; the
 * spawner ignores SIGCHLD, so its minders leave no zombie, and a minder reaps its child. Every
 * link of the chain dies with the one above it (PR_SET_PDEATHSIG): the measuring process's
 * main thread, the spawner, the minder, the child. The spawner and the minders ignore SIGINT
 * and SIGTERM (the measuring process handles Ctrl-C and ends its children itself).
 *
 * The spawner's one socket is process-wide state like the fork guard of util/isolate.h (a
 * process has one address space to keep small): written once by ncp_spawner_start before any
 * thread, read by every solve. Without a spawner (not started: the unit tests, the commands
 * that start none; or inside a child) ncp_spawn forks the child from the caller as before. */
#ifndef NCP_SPAWNER_H
#define NCP_SPAWNER_H

#include "util/ncp_error.h"

/* A child's job: io_fd (3) is its channel to the caller, data_fd (4) the data file (read from
 * its start), interrupt a flag set by SIGINT/SIGTERM (unless they are ignored). Must end with
 * _exit. */
typedef void (*ncp_spawn_fn)(void *arg, int io_fd, int data_fd, const volatile int *interrupt);

/* Starts the process's spawner (once; before threads and before the problems are read).
 * NCP_ERR_INTERNAL naming the failing call when it cannot. */
int ncp_spawner_start(ncp_error *err);
/* Ends the spawner (end of file on its socket) and reaps it. */
void ncp_spawner_stop(void);
/* The spawner's pid, -1 when there is none in this process. */
int ncp_spawner_pid(void);

/* A child made by ncp_spawn. */
typedef struct ncp_spawned {
    int pid;  /* the child (not this process's child when made by the spawner) */
    int ctl;  /* the minder's control socket; -1: the child is this process's own */
} ncp_spawned;

/* A memory-backed file for a child's data (memfd), or -1 with the reason in err. */
int ncp_spawn_data_file(const char *what, ncp_error *err);

/* Starts fn(arg, 3, 4, ...) in a child with io_fd as its descriptor 3 and data_fd (may be -1)
 * as its descriptor 4, every other descriptor above 2 closed, SIGINT and SIGTERM ignored with
 * ignore_interrupt (else they set the flag passed to fn). The caller keeps (and closes) its own
 * io_fd and data_fd. NCP_OK, or NCP_ERR_INTERNAL naming what failed: no child could be made,
 * or the spawner is gone (the message says how it ended). */
int ncp_spawn(ncp_spawn_fn fn, void *arg, int io_fd, int data_fd, int ignore_interrupt,
              ncp_spawned *sp, ncp_error *err);
/* Reaps the child, SIGKILLed first with kill_first (unless it has already ended), retrying on
 * EINTR; *wst (may be NULL) gets its wait status (as waitpid's; a child whose minder vanished
 * reads as killed by SIGKILL). Closes sp->ctl. */
void ncp_spawn_reap(ncp_spawned *sp, int kill_first, int *wst);

#endif
