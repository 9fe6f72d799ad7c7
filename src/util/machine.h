/* What a measurement ran on (summary.json "machine", the Lee et al. 2025 claims' header): the
 * CPU model, the cores online and the load averages, from /proc (Linux). */
#ifndef NCP_MACHINE_H
#define NCP_MACHINE_H

#include <stddef.h>

/* The first "model name" of /proc/cpuinfo into out; "unknown CPU" when there is none. */
void ncp_cpu_model(char *out, size_t cap);
/* Processors online (sysconf); 0 if unknown. */
int ncp_cpu_cores(void);
/* The 1-, 5- and 15-minute load averages from /proc/loadavg; 0 if unreadable. */
int ncp_load_average(double out[3]);

#endif
