/* Monotonic wall clock with pause/resume, for solver timing. */
#ifndef NCP_CLOCK_H
#define NCP_CLOCK_H

double ncp_now_ms(void); /* CLOCK_MONOTONIC in milliseconds */

typedef struct ncp_clock {
    double accumulated_ms;
    double started_at;  /* < 0 when paused */
} ncp_clock;

void ncp_clock_start(ncp_clock *c);  /* reset and run */
void ncp_clock_pause(ncp_clock *c);
void ncp_clock_resume(ncp_clock *c);
double ncp_clock_ms(const ncp_clock *c);

#endif
