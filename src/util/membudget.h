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

/* After an allocation failed while building `what` (e.g. "scene x.json: building its model"):
 * under an address-space limit (--max-memory's cap, ncp_mem_cap_process) the failure is the
 * budget's, NCP_ERR_INPUT (exit 2): "WHAT needs more than the memory budget of B allows
 * (DETAIL; raise it with --max-memory, e.g. --max-memory 80%)"; a limit below the budget is
 * the user's own (ulimit -v) and is named instead. Without a limit the machine itself is out of
 * memory: NCP_ERR_NOMEM "out of memory: WHAT (DETAIL)". Overwrites err; returns its code. */
int ncp_mem_refuse(double budget, const char *what, const char *detail, ncp_error *err);

/* The address-space limit in force (RLIMIT_AS, soft) in bytes; 0 when there is none. */
double ncp_mem_address_limit(void);

/* Sanitizer builds cannot limit their address space: their shadow memory reserves terabytes of
 * it (util/isolate.c, ncp_mem_cap_process). */
#if defined(__SANITIZE_ADDRESS__)
#define NCP_MEM_NO_ADDRESS_LIMIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NCP_MEM_NO_ADDRESS_LIMIT 1
#endif
#endif

/* The process's size in bytes (address space, /proc/self/statm); 0 when unknown. */
double ncp_mem_process_size(void);

/* Lowers the address-space limit (RLIMIT_AS, soft and hard, never raised) to `limit` bytes;
 * children inherit it. Returns 1 when set, 0 when not (sanitizer builds, an unknown size). */
int ncp_mem_limit_address_space(double limit);

/* --max-memory as a cap that holds (docs/design.md §5.7.1): the process may grow by `budget`
 * bytes (<= 0: the default budget) beyond its size now (code and libraries mapped at start),
 * and so may every child it forks or runs (gnuplot, isolated solves): an allocation beyond it
 * fails, and its error (exit 3 naming what was being built) ends the run instead of the
 * kernel's OOM killer. Not in sanitizer builds. */
void ncp_mem_cap_process(double budget);

/* "1.5 GiB", "312 MiB", "12 KiB", "800 B" into buf (size >= 32). */
const char *ncp_mem_format(double bytes, char *buf, size_t size);

#endif
