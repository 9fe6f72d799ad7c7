/* Public statistics hook of the augmented-Lagrangian solvers of seed 000: `canal` (Alg. 1) and
 * the Table II ablations `al-trdogleg` and `al-dampedsn` (solvers/al_common.c runs all three).
 *
 * The harness (src/harness.h) sees one iteration per AL (outer) loop, the iteration the paper's
 * figures count. Table II also needs what happens INSIDE each loop: how many inner steps
 * (Newton steps for canal, trust-region trials for al-trdogleg, damped Newton steps for
 * al-dampedsn) and how often an inner solve ended without reaching its tolerance. solver.h's
 * interface has no room for that, so ncp_al_run() runs one of the three solvers directly, without
 * the harness, for a fixed number of AL loops (seed 000 §VII-D1: "10 AL loops for each case"),
 * and fills an ncp_al_stats. The caller computes the reported residual from the returned lambda
 * with metrics/ (as for every other solver): the solver never grades itself.
 *
 * Usage (Table II on one problem):
 *     ncp_al_stats st = {0};
 *     rc = ncp_al_run(ncp_solver_find("canal"), prob, params, NULL, NULL, 10, lambda, v, &st,
 *                     &err);
 *     ... st.inner_iterations, st.inner_failures > 0, ncp_metrics_eval(ws, lambda, ...) ...
 */
#ifndef NCP_CANAL_H
#define NCP_CANAL_H

#include "solve/solver.h"

/* One inner step, handed to the optional observer (tests use it to check that h decreases). The
 * pointers are valid only during the call. For canal, h is seed 000 eq. 22 with the per-type
 * potentials documented in solvers/canal.c, defined by (p, beta, lam_prev, eshift):
 *   x_i(v) = lam_prev_i - beta (J_i v + eshift_i),  h(v) = 1/2 v^T A v - b^T v + sum_i psi_i(x_i).
 * (lam_prev = lambda^l = -u^l, the AL multiplier; eshift = e~^l, eq. 21.) */
typedef struct ncp_al_step {
    const ncp_problem *p;
    int al_iter;            /* 1-based AL loop */
    int inner_iter;         /* 1-based step within the loop */
    double beta;
    const double *lam_prev; /* m */
    const double *eshift;   /* m: e~ (canal) or e (ablations) */
    const double *v_before; /* nv */
    const double *v_after;  /* nv (= v_before when the step was rejected) */
    double alpha;           /* step length taken (0 if rejected) */
    double r_before;        /* ||r(v_before)||_2 (eq. 19 / 21) */
} ncp_al_step;

typedef void (*ncp_al_step_fn)(void *ctx, const ncp_al_step *s);

typedef struct ncp_al_stats {
    /* filled by the solver (zeroed at the start of a run) */
    int al_iterations;     /* AL loops done */
    int inner_iterations;  /* inner steps over all loops (Table II "Inner iter.") */
    int inner_failures;    /* loops whose inner solve ended without meeting inner_tol
                              (Table II "Failure": cap reached, no descent, singular system) */
    int factorizations;    /* Cholesky (canal) or LU (ablations) factorisations */
    int ls_evals;          /* evaluations of r or phi' inside line searches */
    int inner_max_per_loop;/* the largest inner count of one loop */
    double beta;           /* penalty at the end (eq. 27) */
    int status;            /* ncp_status: MAX_ITER after the requested loops, STALLED when the
                              solver's own test stopped it earlier, FAILED on NaN/factorisation */
    /* set by the caller, optional */
    ncp_al_step_fn on_step;
    void *ctx;
} ncp_al_stats;

/* Runs `s` (canal, al-trdogleg or al-dampedsn; anything else is NCP_ERR_INPUT) on the primal data
 * of p for al_iterations AL loops (fewer if its own theta_al / stall test stops it) from the
 * warm start (lambda0, v0; either may be NULL), with parameters ps (NULL = defaults). Writes the
 * last iterate into lambda (m) and v (nv) and the counts into *stats (on_step/ctx are kept).
 * Numerical failure is reported in stats->status (FAILED), not as an error code. */
int ncp_al_run(const ncp_solver_desc *s, const ncp_problem *p, const ncp_params *ps,
               const double *lambda0, const double *v0, int al_iterations, double *lambda,
               double *v, ncp_al_stats *stats, ncp_error *err);

#endif
