/* Tasks under real-time budgets (Lee et al. 2025 §VII): each solver drives its own simulation
 * of a scene with a "task" section (scene.h ncp_task_cfg) from the initial state, warm-started
 * like every trajectory (the previous step's matched impulses and the current velocity,
 * capture/driver.h), under a per-step solver-time budget: the harness stops the solver at the
 * budget and the step goes on with the current impulses. The task succeeds when the
 * simulation completes and every criterion holds on its trajectory.
 *
 * `ncpbench task` (src/app/cli.c) runs it for several solvers and writes OUT/steps.csv,
 * OUT/task.json, OUT/task.md and the figures (ncp_task_write). The per-step budget is the
 * solving thread's CPU time (util/clock.h): the trajectory depends on the machine's speed, and
 * on its load only through the caches; the load average is recorded. */
#ifndef NCP_TASK_H
#define NCP_TASK_H

#include <stdio.h>

#include "core/problem.h"
#include "scene/scene.h"
#include "sim/world.h"

typedef struct ncp_task_opts {
    double step_budget_ms;  /* > 0 overrides task.step_budget_ms */
    int steps;              /* > 0: simulate this many steps (at most the scene's) */
    int quick;              /* simulate benchmark.quick_steps steps (CI; verdicts then judge a
                               truncated run) */
    const volatile int *interrupt; /* may be NULL */
    int verbose;            /* ncp_task_run_many prints each finished solver's line */
    /* Non-NULL: the driver's budget (tol, max_iter, time_ms) instead of the task's, e.g. fixed
     * iteration counts (Lee et al. 2025 Fig. 11); then a scene without a task section is
     * simulated too (no criteria: success = the simulation completed). step_budget_ms > 0
     * still overrides its time. */
    const ncp_budget *budget;
    /* Solver parameters on top of the scene's benchmark.params for the driving solver (the
     * task command's --param, a study's sim parameters); may be NULL. */
    const ncp_solver_params_entry *params;
    int nparams;
    /* Per-step observation (the study's simulations, figures/study.h): nobs values per step,
     * named obs_names[0..nobs-1] (the extra columns of steps.csv), NaN unless filled. At the
     * start of step k of n planned (the state its t, kinetic and potential describe)
     * obs_state(obs_ctx, k, n, w, row); after its contact solve obs_solved(obs_ctx, k, n, p,
     * lambda, v, row) with the
     * driver's answer (v NULL when the problem has no dense A: the step computes it). Either
     * may be NULL; a non-zero return (err set) stops the run with that error. */
    int nobs;
    const char *const *obs_names;
    int (*obs_state)(void *ctx, int step, int nsteps, const ncp_world *w, double *row, ncp_error *err);
    int (*obs_solved)(void *ctx, int step, int nsteps, const ncp_problem *p,
                      const double *lambda, const double *v, double *row, ncp_error *err);
    void *obs_ctx;
} ncp_task_opts;

void ncp_task_opts_default(ncp_task_opts *o);

/* One simulated step. solve_ms, iterations, status, stop_value and al_residual describe the
 * step's contact solve (0, 0, -1, NaN, NaN when the step had no constraint rows). */
typedef struct ncp_task_step {
    double t;             /* time at the start of the step, s */
    int contacts, rows;
    double solve_ms;      /* solver clock: setup + iterations (what the budget bounds) */
    double wall_ms;       /* the whole step: collision, assembly, solve with monitoring,
                             integration */
    int iterations;
    int status;           /* ncp_status, -1 without a solve */
    double stop_value;    /* the harness's stopping metric of the returned impulses */
    double al_residual;   /* metrics/ al_residual of the returned impulses */
    double penetration;   /* max(0, -gap) over the step's contacts at its start, m */
    double active;        /* metrics/ active_contacts of the returned impulses: contacts carrying
                             load (lambda_n > 1e-3 of the largest); NaN without a solve */
    double kinetic, potential; /* at the step's start (sim/dynamics.h ncp_world_energy), J */
} ncp_task_step;

/* One criterion's verdict. value is what was measured (m, rad, m/s, or the fraction in the
 * region), against [lo, hi] (-inf / +inf when a side is unbounded). */
typedef struct ncp_task_check {
    double value, lo, hi;
    int pass;
} ncp_task_check;

typedef struct ncp_task_result {
    char solver[32];
    double budget_ms;          /* the per-step budget used */
    double tol;
    int max_iter;
    int steps_planned;
    int nsteps;                /* simulated */
    ncp_task_step *steps;      /* nsteps (owned) */
    int completed;             /* every planned step simulated */
    int interrupted;           /* stopped by the interrupt flag */
    int failed;                /* the simulation failed (the driver solver gave no usable answer) */
    char failure[1100];        /* then: the step and why (ncp_error.msg) */
    int ncriteria;
    ncp_task_check *checks;    /* ncriteria (owned), on the state reached */
    int success;               /* completed && every check passes */
    double max_penetration;    /* over every step's start and the final state, m */
    double final_penetration;  /* of the final state, m */
    int nsolves;               /* steps with a contact solve */
    double solve_p50, solve_p90, solve_p99, solve_max; /* solve_ms over those steps */
    double active_p50, active_max; /* active_contacts over those steps (NaN without a solve) */
    int over_budget;           /* solves whose solve_ms exceeded the budget */
    int timeouts;              /* solves stopped by the budget (status timeout) */
    double wall_s;             /* whole simulation */
    int nobs;                  /* ncp_task_opts.nobs: obs holds nsteps x nobs values (owned) */
    const char *const *obs_names;
    double *obs;
} ncp_task_result;

void ncp_task_result_free(ncp_task_result *r);

/* Frame origin of body b in the world (the position the criteria use; w->pos is the COM). */
void ncp_task_body_origin(const ncp_world *w, int b, double out[3]);

/* Evaluates the criteria of t on the final state w: origin0 (3 x nbodies) holds the bodies'
 * frame origins at the start, max_penetration the deepest penetration seen over the run.
 * checks has t->ncriteria entries. Returns 1 if all pass. */
int ncp_task_evaluate(const ncp_task_cfg *t, const double *origin0, const ncp_world *w,
                      double max_penetration, ncp_task_check *checks);

/* Simulates scene s (which must have a task section unless o->budget is given) with `solver` as the driver and fills r
 * (free it with ncp_task_result_free, also after an error). A driver failure is a result
 * (r->failed), not an error; an interrupt returns NCP_OK with r->interrupted set. Errors:
 * no task section or an unknown solver (NCP_ERR_INPUT), out of memory. */
int ncp_task_run(const ncp_scene *s, const char *solver, const ncp_task_opts *o,
                 ncp_task_result *r, ncp_error *err);

/* ncp_task_run for solvers[0..n-1] into r[0..n-1] (each freed by the caller), on `jobs`
 * threads (timings, and with them the budgeted trajectories, are only comparable with 1).
 * Returns the first error; the other runs still finish. */
int ncp_task_run_many(const ncp_scene *s, const char *const *solvers, int n,
                      const ncp_task_opts *o, int jobs, ncp_task_result *r, ncp_error *err);

/* One line: solver, verdict, steps, solve-time p50 and max, steps over budget, penetration,
 * wall time. */
void ncp_task_print(FILE *f, const ncp_task_result *r);

/* Keeps the finished results (completed or failed, not interrupted) at the front of r, in
 * order, and frees the others; returns how many were kept. An interrupt keeps the solvers
 * that finished, like `ncpbench run`. */
int ncp_task_keep_finished(ncp_task_result *r, int n);

/* Writes dir/steps.csv, dir/task.json, dir/task.md and (figures != 0, gnuplot on PATH) the
 * figures dir/task_timeseries.{png,svg} and dir/task_solve_hist.{png,svg} for the results
 * r[0..n-1] of scene s. load: the 1-, 5-, 15-minute load averages at the start (NULL: not
 * known). Returns NCP_OK or an error; a missing gnuplot is noted in task.md, not an error. */
int ncp_task_write(const char *dir, const ncp_scene *s, const ncp_task_result *r, int n,
                   const double load[3], int figures, ncp_error *err);

#endif
