/* The memory budget (issue "nothing lost, no crash on any input"): sizes that an input file or a
 * scene declares are checked against it before anything is allocated from them, so that a small
 * file cannot make ncpbench ask for gigabytes. The budget is a number of bytes carried in the
 * options of whoever allocates (no global state); --max-memory sets it, the default is a
 * fraction of the physical memory. */
#ifndef NCP_MEMBUDGET_H
#define NCP_MEMBUDGET_H

#include "util/ncp_error.h"

/* Physical memory in bytes (sysconf); 0 when unknown. */
double ncp_mem_physical(void);

/* Default budget: half the physical memory (16 GiB when unknown). */
#define NCP_MEM_DEFAULT_FRACTION 0.5
double ncp_mem_default_budget(void);

/* The budget to use: `bytes` when > 0, else the default. */
double ncp_mem_budget_or_default(double bytes);

/* Parses a --max-memory value: a number of bytes with an optional suffix K, M, G, T (powers of
 * 1024; "KiB", "MB" ... accepted), or a percentage of the physical memory ("40%"). NCP_ERR_INPUT
 * naming `what` (e.g. "--max-memory") for anything else, or a value below 1 MiB. */
int ncp_mem_parse(const char *text, const char *what, double *bytes, ncp_error *err);

/* NCP_OK when `request` bytes fit in `budget` (<= 0: the default budget); else NCP_ERR_INPUT
 * with "WHAT needs N (human-readable), above the memory budget of B (--max-memory)". */
int ncp_mem_check(double budget, double request, const char *what, ncp_error *err);

/* "1.5 GiB", "312 MiB", "12 KiB", "800 B" into buf (size >= 32). */
const char *ncp_mem_format(double bytes, char *buf, size_t size);

#endif
