/* The driver of a simulation: a registered solver run under the harness (the benchmark's
 * stopping rule and budgets) as the contact solve of every step (sim/step.h). */
#ifndef NCP_DRIVER_H
#define NCP_DRIVER_H

#include "scene/scene.h"
#include "sim/step.h"
#include "solve/solver.h"

/* What the last contact solve of the driver measured (bench/task.h records it per step). */
typedef struct ncp_driver_stats {
    double solve_ms;     /* solver clock: setup + iterations (the budget's clock) */
    int iterations;
    int status;          /* ncp_status */
    double stop_value;   /* the harness's stopping metric of the returned lambda */
    double al_residual;  /* metrics/ al_residual of the returned lambda */
    double active;       /* metrics/ active_contacts of the returned lambda (load-bearing contacts) */
} ncp_driver_stats;

typedef struct ncp_driver {
    const ncp_solver_desc *solver;
    const ncp_params *params;      /* may be NULL */
    /* The harness stops at budget.time_ms (solver clock, setup included; <= 0: none) and the
     * step goes on with the current lambda (status TIMEOUT or MAX_ITER): a real-time budget
     * (Lee et al. 2025 §VII). */
    ncp_budget budget;
    const volatile int *interrupt; /* may be NULL */
} ncp_driver;

/* The scene's driver: `name` (NULL = the scene's benchmark.driver) with the scene's parameters
 * for it and its driver budget. An unknown name is an input error. */
int ncp_driver_for_scene(const ncp_scene *s, const char *name, const volatile int *interrupt,
                         ncp_driver *d, ncp_error *err);

/* Sets the per-step time budget (ms, solver clock, setup included; > 0), e.g. from
 * --step-budget-ms; <= 0 keeps the scene's. */
void ncp_driver_set_step_budget(ncp_driver *d, double ms);

/* Step options whose contact solve is d (d must outlive the steps). */
void ncp_driver_step_opts(const ncp_driver *d, int warm_start, ncp_step_opts *o);

/* A driver whose every solve also records its measurements in `last`. */
typedef struct ncp_driver_probe {
    const ncp_driver *driver;
    ncp_driver_stats last;
} ncp_driver_probe;

/* ncp_driver_step_opts with probe->driver, filling probe->last after every solve (the probe
 * must outlive the steps). */
void ncp_driver_step_opts_probe(ncp_driver_probe *probe, int warm_start, ncp_step_opts *o);

#endif
