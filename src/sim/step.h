/* One time step of the world: collision -> constraint rows -> assembly -> the caller's hook
 * (capture) -> the caller's contact solve -> integration. The simulator links no solver: the
 * solve is a callback (capture/driver.h supplies one that runs a registered solver under the
 * harness). Warm start: the previous step's impulses, kept in the world by row identity. */
#ifndef NCP_STEP_H
#define NCP_STEP_H

#include "core/problem.h"
#include "sim/world.h"

/* What the contact solve of a step returns. lambda (m) and v (nv) are allocated by the step;
 * the solve fills them: v is the velocity that moves the positions, A^{-1}(b + J^T lambda).
 * For a problem without a dense A (has_sparse_primal: the block route of dynamics.h) the solve
 * fills lambda only and the step computes v from it with the subsystem blocks. */
typedef struct ncp_step_solve_out {
    double *lambda;
    double *v;
    int iterations;
    int status;          /* the solver's status code, passed on in ncp_step_info */
    char status_name[16];/* its name, for the error message of a failed step */
    double residual;     /* the solve's final stopping metric */
    int failed;          /* no usable answer: the step fails with an error */
    int interrupted;     /* cut short by an interrupt: the state is left unchanged */
} ncp_step_solve_out;

/* The contact solve: lambda0 is the warm start (m entries) or NULL; with a warm start, p->guess_v
 * (the velocity at the start of the step, problem.h) is its velocity part. Returns non-zero
 * (err set) on an error of its own; a solver that merely fails sets out->failed. */
typedef int (*ncp_step_solve_fn)(void *ctx, const ncp_problem *p, const double *lambda0,
                                 ncp_step_solve_out *out, ncp_error *err);

typedef struct ncp_step_opts {
    const char *driver;            /* name of the solver, recorded as the problem's driver */
    ncp_step_solve_fn solve;
    void *solve_ctx;
    int warm_start;                /* 1: start from the previous step's matched impulses and
                                      the current velocity */
} ncp_step_opts;

/* Called with the assembled problem of a step that has constraint rows, before it is solved;
 * p->guess_v and p->guess_lambda hold the state the step starts from (step.c). Return non-zero
 * (err set) to abort the step. */
typedef int (*ncp_step_hook)(void *ctx, ncp_problem *p, ncp_error *err);

/* Per-step report, for tests and progress. */
typedef struct ncp_step_info {
    int ncontacts;
    int nrows;         /* constraint rows of the step (contacts, joints, limits, springs) */
    int iterations;    /* of the solve (0 if no rows) */
    int status;        /* the solve's status code, or -1 if no rows */
    double residual;   /* the solve's final stopping metric, 0 if none */
    int interrupted;   /* the step was cut short by an interrupt; the state is unchanged */
} ncp_step_info;

/* One time step. Steps without constraint rows integrate the unconstrained motion and call
 * neither the hook nor the solve. */
int ncp_world_step(ncp_world *w, const ncp_step_opts *o, ncp_step_hook hook, void *ctx,
                   ncp_step_info *info, ncp_error *err);

#endif
