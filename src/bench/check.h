/* Regression check (`ncpbench check BASELINE`): reruns the baseline's quick scenes and compares,
 * per scene x solver, the median final natural map (natural_map_rel_acary), the median al_residual,
 * the median iterations and the number of converged problems against stored bands. */
#ifndef NCP_CHECK_H
#define NCP_CHECK_H

#include <stdint.h>

#include "scene/scene.h"
#include "solve/catalog.h"
#include "util/ncp_error.h"

typedef struct ncp_check_opts {
    const char *baseline;   /* JSON file */
    const char *out_dir;    /* where the reruns write their outputs */
    int update;             /* rewrite the baseline from this run instead of comparing */
    int jobs;
    const volatile int *interrupt;
    /* The solvers checked on every scene (a --solvers list, set words allowed); NULL: each
     * scene's baseline entries and every plugin solver of the catalog. */
    const char *solvers_csv;
    /* --param for the reruns, compared with the baseline's bands all the same (a degraded
     * solver fails); not with update (a baseline records the solvers' defaults). */
    const ncp_solver_params_entry *params;
    int nparams;
    int max_iter;           /* > 0: the reruns' budget instead of the baseline's budget.max_iter */
    const ncp_solver_catalog *catalog; /* the registry and the loaded plugins; NULL: registry */
    int isolate;            /* NCP_ISOLATE_* (bench.h) */
    const char *junit;      /* non-NULL: the verdicts as JUnit XML, written atomically */
    int strict;             /* JUnit: a pair the run and the baseline do not share fails */
} ncp_check_opts;

typedef struct ncp_check_result {
    int regressions;        /* quantities outside their bands */
    int unbaselined;        /* scene x solver pairs run without a baseline entry (added by update) */
    int unavailable;        /* baseline entries whose solver is not in the catalog (not run) */
    int not_selected;       /* baseline entries left out by solvers_csv */
    int checked;            /* scene x solver pairs compared */
} ncp_check_result;

/* Reruns and compares (or, with update, rewrites the baseline), prints a table of verdicts and
 * a summary that lists every regression (scene, solver, quantity, band, value) and every
 * mismatch between the run's solvers and the baseline's entries. Returns NCP_OK and fills *res;
 * NCP_ERR_INPUT for an unreadable baseline, an unknown solver or parameter. */
int ncp_check_run(const ncp_check_opts *o, ncp_check_result *res, ncp_error *err);

#endif
