/* What a measurement ran on (summary.json "machine", the Lee et al. 2025 claims' header, the
 * studies' stamp): the CPU model, the cores online and the load averages, from /proc (Linux);
 * and what was measured: the commit the binary was built from. */
#ifndef NCP_MACHINE_H
#define NCP_MACHINE_H

#include <stddef.h>

/* The first "model name" of /proc/cpuinfo into out; "unknown CPU" when there is none. */
void ncp_cpu_model(char *out, size_t cap);
/* Processors online (sysconf); 0 if unknown. */
int ncp_cpu_cores(void);
/* The 1-, 5- and 15-minute load averages from /proc/loadavg; 0 if unreadable. */
int ncp_load_average(double out[3]);
/* The source tree's `git describe --always --dirty=+dirty` when this binary was built (a
 * hash, "+dirty" when tracked files were modified), "unknown (...)" for a build outside a git
 * checkout (a source tarball): scripts/build_commit.sh. */
const char *ncp_build_commit(void);

#endif
