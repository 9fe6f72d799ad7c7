/* Regression check (`ncpbench check BASELINE`): reruns the baseline's quick scenes and compares,
 * per scene x solver, the median final natural map (natural_map_rel_acary), the median al_residual,
 * the median iterations and the number of converged problems against stored bands. */
#ifndef NCP_CHECK_H
#define NCP_CHECK_H

#include <stdint.h>

#include "util/ncp_error.h"

typedef struct ncp_check_opts {
    const char *baseline;   /* JSON file */
    const char *out_dir;    /* where the reruns write their outputs */
    int update;             /* rewrite the baseline from this run instead of comparing */
    int jobs;
    const volatile int *interrupt;
} ncp_check_opts;

/* Returns NCP_OK and sets *regressions (0 = pass); errors for unreadable baselines. */
int ncp_check_run(const ncp_check_opts *o, int *regressions, ncp_error *err);

#endif
