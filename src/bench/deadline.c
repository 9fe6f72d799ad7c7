/* The watchdog's rule for one solve (deadline.h). */
#include "bench/deadline.h"

#include <math.h>

void ncp_deadline_start(ncp_deadline *d, double limit_ms, double wall, double cpu)
{
    d->limit_ms = limit_ms;
    d->wall0 = d->mark_wall = wall;
    d->cpu0 = d->mark_cpu = cpu;
}

int ncp_deadline_passed(ncp_deadline *d, double wall, double cpu)
{
    const double ran = wall - d->wall0;
    if (!isfinite(cpu) || !isfinite(d->cpu0)) return ran > d->limit_ms ? NCP_DEADLINE_WALL : 0;
    if (cpu - d->mark_cpu >= NCP_DEADLINE_STEP_MS) {
        d->mark_cpu = cpu;
        d->mark_wall = wall;
    }
    if (cpu - d->cpu0 > d->limit_ms) return NCP_DEADLINE_CPU;
    if (ran > d->limit_ms && wall - d->mark_wall > NCP_DEADLINE_IDLE_MS) return NCP_DEADLINE_IDLE;
    if (ran > NCP_DEADLINE_WALL_FACTOR * d->limit_ms) return NCP_DEADLINE_WALL;
    return NCP_DEADLINE_NOT;
}

const char *ncp_deadline_reason(int why)
{
    switch (why) {
    case NCP_DEADLINE_CPU: return "CPU time";
    case NCP_DEADLINE_IDLE: return "no CPU progress";
    case NCP_DEADLINE_WALL: return "wall time";
    default: return "";
    }
}
