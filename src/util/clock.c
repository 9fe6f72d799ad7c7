#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "util/clock.h"

static double read_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

double ncp_now_ms(void) { return read_ms(CLOCK_MONOTONIC); }

double ncp_thread_cpu_ms(void) { return read_ms(CLOCK_THREAD_CPUTIME_ID); }

double ncp_process_cpu_ms(long pid)
{
    clockid_t id = CLOCK_PROCESS_CPUTIME_ID;
    struct timespec ts;
    if ((pid && clock_getcpuclockid((pid_t)pid, &id)) || clock_gettime(id, &ts)) return NAN;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

const char *ncp_clock_name(int kind)
{
    switch (kind) {
    case NCP_CLOCK_CPU: return "cpu";
    case NCP_CLOCK_WALL: return "wall";
    default: return NULL;
    }
}

int ncp_clock_parse(const char *s)
{
    for (int k = NCP_CLOCK_CPU; s && k <= NCP_CLOCK_WALL; k++)
        if (!strcmp(s, ncp_clock_name(k))) return k;
    return -1;
}

ncp_instant ncp_clock_now(const ncp_clock *c)
{
    ncp_instant r;
    r.wall = ncp_now_ms();
    r.t = c->kind == NCP_CLOCK_WALL ? r.wall : ncp_thread_cpu_ms();
    return r;
}

void ncp_clock_start(ncp_clock *c, int kind)
{
    memset(c, 0, sizeof *c);
    c->kind = kind == NCP_CLOCK_WALL ? NCP_CLOCK_WALL : NCP_CLOCK_CPU;
    c->cost_ms = c->cost_wall_ms = INFINITY;
    for (int i = 0; i < NCP_CLOCK_CALIBRATE; i++) { /* a reading's cost (clock.h) */
        ncp_instant a = ncp_clock_now(c), b = ncp_clock_now(c);
        c->cost_ms = fmin(c->cost_ms, fmax(0.0, b.t - a.t));
        c->cost_wall_ms = fmin(c->cost_wall_ms, fmax(0.0, b.wall - a.wall));
    }
    c->at = ncp_clock_now(c);
    c->running = 1;
}

/* The clock's own share of the interval from at to now, less a reading's cost (none of the
 * thread's, once external). */
static double span(const ncp_clock *c, ncp_instant now)
{
    return c->external ? 0.0 : fmax(0.0, now.t - c->at.t - c->cost_ms);
}

static double span_wall(const ncp_clock *c, ncp_instant now)
{
    return fmax(0.0, now.wall - c->at.wall - c->cost_wall_ms);
}

void ncp_clock_pause_at(ncp_clock *c, ncp_instant now)
{
    if (!c->running) return;
    c->acc_ms += span(c, now);
    c->acc_wall_ms += span_wall(c, now);
    c->running = 0;
}

void ncp_clock_resume_at(ncp_clock *c, ncp_instant now)
{
    if (c->running) return;
    c->at = now;
    c->running = 1;
}

void ncp_clock_pause(ncp_clock *c) { ncp_clock_pause_at(c, ncp_clock_now(c)); }

void ncp_clock_resume(ncp_clock *c) { ncp_clock_resume_at(c, ncp_clock_now(c)); }

void ncp_clock_add_cpu(ncp_clock *c, double ms)
{
    if (c->kind == NCP_CLOCK_CPU && ms > 0.0) c->acc_ms += ms;
}

double ncp_clock_ms(const ncp_clock *c)
{
    if (!c->running) return c->acc_ms;
    return c->acc_ms + span(c, ncp_clock_now(c));
}

int ncp_clock_external(ncp_clock *c)
{
    if (c->kind != NCP_CLOCK_CPU) return 0;
    if (!c->external && c->running) { /* what the thread did up to here stays counted */
        ncp_instant now = ncp_clock_now(c);
        c->acc_ms += span(c, now);
        c->acc_wall_ms += span_wall(c, now);
        c->at = now;
    }
    c->external = 1;
    return 1;
}

double ncp_clock_wall_ms(const ncp_clock *c)
{
    if (!c->running) return c->acc_wall_ms;
    ncp_instant now = {.t = 0.0, .wall = ncp_now_ms()};
    return c->acc_wall_ms + span_wall(c, now);
}
