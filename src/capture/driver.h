/* The driver of a simulation: a registered solver run under the harness (the benchmark's
 * stopping rule and budgets) as the contact solve of every step (sim/step.h). */
#ifndef NCP_DRIVER_H
#define NCP_DRIVER_H

#include "scene/scene.h"
#include "sim/step.h"
#include "solve/solver.h"

typedef struct ncp_driver {
    const ncp_solver_desc *solver;
    const ncp_params *params;      /* may be NULL */
    ncp_budget budget;
    const volatile int *interrupt; /* may be NULL */
} ncp_driver;

/* The scene's driver: `name` (NULL = the scene's benchmark.driver) with the scene's parameters
 * for it and its driver budget. An unknown name is an input error. */
int ncp_driver_for_scene(const ncp_scene *s, const char *name, const volatile int *interrupt,
                         ncp_driver *d, ncp_error *err);

/* Step options whose contact solve is d (d must outlive the steps). */
void ncp_driver_step_opts(const ncp_driver *d, int warm_start, ncp_step_opts *o);

#endif
