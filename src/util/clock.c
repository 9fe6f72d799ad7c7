#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "util/clock.h"

double ncp_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void ncp_clock_start(ncp_clock *c)
{
    c->accumulated_ms = 0.0;
    c->started_at = ncp_now_ms();
}

void ncp_clock_pause(ncp_clock *c)
{
    if (c->started_at >= 0.0) {
        c->accumulated_ms += ncp_now_ms() - c->started_at;
        c->started_at = -1.0;
    }
}

void ncp_clock_resume(ncp_clock *c)
{
    if (c->started_at < 0.0) c->started_at = ncp_now_ms();
}

double ncp_clock_ms(const ncp_clock *c)
{
    double t = c->accumulated_ms;
    if (c->started_at >= 0.0) t += ncp_now_ms() - c->started_at;
    return t;
}
