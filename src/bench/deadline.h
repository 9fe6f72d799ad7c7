/* The watchdog's rule for one solve (docs/design.md §5.7.1). A solve is past its hard deadline
 * D when its CPU time (the solving thread's, or the isolated child's process) exceeds D — a deaf
 * solver that spins —, or when it has run D of wall time and made no CPU progress for
 * NCP_DEADLINE_IDLE_MS — a solver blocked on a lock or in sleep —, or after
 * NCP_DEADLINE_WALL_FACTOR x D of wall time whatever it does. A busy machine slows a solve's
 * wall time, not its CPU time: a solver that heeds the budget is never abandoned because
 * other processes share its cores (on a wall-only rule, pgs under a 2 s CPU budget was
 * abandoned at 25 s of wall on a 2-core machine at load 13). */
#ifndef NCP_DEADLINE_H
#define NCP_DEADLINE_H

#define NCP_DEADLINE_IDLE_MS 1000.0   /* no CPU progress this long (wall) past D: blocked */
#define NCP_DEADLINE_STEP_MS 1.0      /* CPU that counts as progress (a sleep(1) loop: ~10 us/s) */
#define NCP_DEADLINE_WALL_FACTOR 10.0 /* the wall-time backstop, x D */

typedef struct ncp_deadline {
    double limit_ms;            /* D */
    double wall0, cpu0;         /* the readings at the start (ms) */
    double mark_cpu, mark_wall; /* the last CPU advance of NCP_DEADLINE_STEP_MS, and when */
} ncp_deadline;

/* What ended a solve (ncp_deadline_passed). */
enum { NCP_DEADLINE_NOT = 0, NCP_DEADLINE_CPU = 1, NCP_DEADLINE_IDLE = 2, NCP_DEADLINE_WALL = 3 };

/* Starts the watch at wall / cpu readings (ms; cpu NaN: unreadable, then wall time only). */
void ncp_deadline_start(ncp_deadline *d, double limit_ms, double wall, double cpu);
/* Whether the solve is past its deadline at these readings, and why (NCP_DEADLINE_*); a NaN
 * cpu falls back to the wall deadline D. Call it repeatedly (it tracks progress). */
int ncp_deadline_passed(ncp_deadline *d, double wall, double cpu);
/* "CPU time", "no CPU progress", "wall time" for a NCP_DEADLINE_* reason ("" for NOT). */
const char *ncp_deadline_reason(int why);

#endif
