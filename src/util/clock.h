/* Clocks for solver timing (docs/design.md §5.3, "Timing"): a solver's time is the CPU time of
 * the thread that runs it by default (CLOCK_THREAD_CPUTIME_ID), so that the load of the machine
 * does not decide which solve times out; the wall clock (CLOCK_MONOTONIC) is read beside it and
 * can be chosen instead (--clock wall). A clock pauses and resumes (the harness pauses it while
 * it grades an iterate).
 *
 * A reading has a cost of its own that lands in the intervals it bounds: the CPU-time clocks are
 * not served by the vDSO, so each reading is a system call (0.24 us of the thread's CPU time on
 * the development machine, against 0.02 us for CLOCK_MONOTONIC), and an interval between two
 * readings holds one reading's worth of it (the end of the first call after its sample, the start
 * of the second before its sample). The harness reads the clock twice per iterate, so a solver of
 * 2 us per iteration would be charged 12 % more than its work. ncp_clock_start measures that cost
 * (the least difference over NCP_CLOCK_CALIBRATE back-to-back readings, on each clock) and every
 * interval is charged its span less that cost, at least 0: what a solver is charged is its own
 * work to within the readings' jitter. */
#ifndef NCP_CLOCK_H
#define NCP_CLOCK_H

double ncp_now_ms(void);        /* CLOCK_MONOTONIC in milliseconds: progress, ETAs, profiles */
double ncp_thread_cpu_ms(void); /* CPU time of the calling thread in milliseconds */
/* CPU time of process pid (every thread of it) in ms, 0: this process; NaN when it cannot be
 * read (gone). A solver that runs in a child process charges this (ncp_run_add_cpu_ms). */
double ncp_process_cpu_ms(long pid);

typedef enum ncp_clock_kind {
    NCP_CLOCK_CPU = 0, /* the solving thread's CPU time (+ what ncp_clock_add_cpu charges) */
    NCP_CLOCK_WALL = 1 /* elapsed real time */
} ncp_clock_kind;

/* "cpu" / "wall"; NULL for anything else. */
const char *ncp_clock_name(int kind);
/* The kind named s ("cpu", "wall"); -1 when s names none. */
int ncp_clock_parse(const char *s);

/* One reading: t on the clock's kind, wall on the wall clock (the same value for a wall clock). */
typedef struct ncp_instant {
    double t, wall;
} ncp_instant;

/* Back-to-back reading pairs whose least difference is a reading's cost (ncp_clock_start). */
#define NCP_CLOCK_CALIBRATE 16

typedef struct ncp_clock {
    int kind;           /* ncp_clock_kind */
    double cost_ms;     /* one reading's cost on the clock's kind, taken off every interval */
    double cost_wall_ms; /* ... on the wall clock */
    double acc_ms;      /* accumulated on the clock's kind */
    double acc_wall_ms; /* accumulated on the wall clock over the same intervals */
    ncp_instant at;     /* the reading at the last start or resume */
    int running;
    int external;       /* ncp_clock_external: the thread's CPU time no longer counts */
} ncp_clock;

void ncp_clock_start(ncp_clock *c, int kind); /* reset, measure a reading's cost, and run */
ncp_instant ncp_clock_now(const ncp_clock *c);
/* Pause / resume at a reading taken with ncp_clock_now (one reading can end one interval and
 * start the next); ncp_clock_pause / _resume read the clock themselves. */
void ncp_clock_pause_at(ncp_clock *c, ncp_instant now);
void ncp_clock_resume_at(ncp_clock *c, ncp_instant now);
void ncp_clock_pause(ncp_clock *c);
void ncp_clock_resume(ncp_clock *c);
/* CPU time spent for this clock's work outside the calling thread (a solver's worker threads,
 * a peer's process): counted by a CPU clock, ignored by a wall clock (the wall clock already
 * runs while they work). */
void ncp_clock_add_cpu(ncp_clock *c, double ms);
/* From now on the calling thread's CPU time is not this clock's work (a peer's parent that only
 * forks and waits: its work runs in the child, timed there and charged with ncp_clock_add_cpu).
 * A CPU clock stops counting the thread (what it counted so far stays); a wall clock is
 * unchanged. Readings (ncp_clock_now) stay the thread's, so an interval measured between two
 * of them (the harness's monitor time) is still right. Returns 1 for a CPU clock, 0 for wall. */
int ncp_clock_external(ncp_clock *c);
double ncp_clock_ms(const ncp_clock *c);      /* on the clock's kind */
double ncp_clock_wall_ms(const ncp_clock *c); /* on the wall clock */

#endif
