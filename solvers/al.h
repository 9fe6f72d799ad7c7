/* The augmented-Lagrangian solvers of Lee et al. 2025 (T-RO, arXiv 2502.16898): `canal` (Alg. 1)
 * and the Table II ablations `al-trdogleg` and `al-dampedsn`. PUBLIC to figures and tests: the
 * family's configurations and a run with an inner-loop observer. The machinery behind it
 * (solvers/al_common.h) is private to the family's files.
 *
 * Through the harness (solve/harness.h) a solver reports one iteration per AL (outer) loop, the
 * iteration the paper's figures count. Table II also needs what happens INSIDE each loop: how many
 * inner steps (Newton steps for canal, trust-region trials for al-trdogleg, damped Newton steps
 * for al-dampedsn) and how often an inner solve ended without reaching its tolerance. Under the
 * harness each solve writes them into its row's note (ncp_run_note: "inner steps K over L AL
 * loops, F failed (per loop: k1 k2 ...)", the first 10 loops; solvers/al_common.c), which the
 * Lee et al. 2025 study reads (src/figures/lee2025/). ncp_al_solve_observed runs one member of
 * the family without the harness for a fixed number of AL loops (Lee et al. 2025 §VII-D1: "10 AL
 * loops for each case"), hands every inner step to an optional observer and fills an
 * ncp_al_stats. The caller computes the reported residual from the returned lambda with
 * metrics/, as for every other solver: the solver never grades itself.
 *
 * The ablations (strict operator of eqs. 16-17, no cascade) are sensitive to rounding, by their
 * algorithm, not by a defect (measured on the bolt-nut main job: results/REPORT.md "The AL
 * ablations on round-off-level perturbations"): their r(v) of eq. 19 is only piecewise smooth and
 * not a gradient, so 1/2 ||r||^2 has non-zero local minima on the kinks (a contact's x_n = 0 or
 * |x_t| = mu x_n), where an inner solve gets stuck ("cannot effectively reduce the merit
 * function", §VII-D1). Which kink an iterate meets, and whether a later AL loop escapes it,
 * changes with a 1e-15 relative perturbation of J, b, e; runs whose inner solves all succeed do
 * not move. The failure rate is stable, the failing cases are not.
 *
 * Usage (Table II on one problem):
 *     ncp_al_stats st;
 *     rc = ncp_al_solve_observed(&ncp_al_config_canal, prob, params, NULL, NULL, 10, NULL, NULL,
 *                                lambda, v, &st, &err);
 *     ... st.inner_iterations, st.inner_failures > 0, ncp_metrics_eval(ws, lambda, ...) ...
 */
#ifndef NCP_SOLVERS_AL_H
#define NCP_SOLVERS_AL_H

#include "solve/solver.h"

/* One inner step, handed to the observer (tests use it to check that h decreases, figures count
 * Newton steps per loop). The pointers are valid only during the call. For canal, h is Lee et al.
 * 2025 eq. 22 with the per-type potentials documented in solvers/canal.c, defined by (p, beta,
 * lam_prev, eshift):
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

/* What one run did (zeroed at the start of a run). */
typedef struct ncp_al_stats {
    int al_iterations;     /* AL loops done */
    int inner_iterations;  /* inner steps over all loops (Table II "Inner iter.") */
    int inner_failures;    /* loops whose inner solve ended without meeting inner_tol
                              (Table II "Failure": cap reached, no descent, singular system) */
    int factorizations;    /* Cholesky (canal) or LU (ablations) factorisations */
    int sparse_newton;     /* 1: they went through the fixed-pattern sparse Cholesky (canal's
                              newton_factor, al_common.c); 0: dense per connected component */
    int ls_evals;          /* evaluations of r or phi' inside line searches */
    int inner_max_per_loop;/* the largest inner count of one loop */
    double beta;           /* penalty at the end (eq. 27) */
    int status;            /* ncp_status: MAX_ITER after the requested loops, STALLED when the
                              solver's own test stopped it earlier, FAILED on NaN/factorisation */
} ncp_al_stats;

typedef struct ncp_al_ws ncp_al_ws;             /* one run's workspace (al_common.h) */
typedef struct ncp_al_settings ncp_al_settings; /* parameter values (al_common.h) */

/* What makes a member of the family: the three share the AL loop of Alg. 1 (solvers/al_common.c)
 * and differ in the surrogate of one loop and in its inner solver. Each solver file defines one
 * configuration and its descriptor; the descriptor's solve runs the shared loop with it. Callers
 * outside the family only pass a configuration's address; the function pointers are the family's
 * business. */
typedef struct ncp_al_config {
    const ncp_solver_desc *desc; /* the registered solver: its name in messages, its parameters */
    int cascade; /* 1: eq. 21 (proximal operator, e~ from the previous z: canal); 0: eq. 19 (strict
                    operator, true e: the ablations) */
    /* Reads the inner solver's own parameters from desc's table into s (the common ones are read
       before, by the loop); may be NULL. */
    int (*read_params)(const ncp_solver_desc *desc, const ncp_params *ps, ncp_al_settings *s,
                       ncp_error *err);
    /* The inner solver of one AL loop (contract: ncp_al_inner_fn in al_common.h). */
    int (*inner)(ncp_al_ws *w, int *ok, ncp_error *err);
} ncp_al_config;

extern const ncp_al_config ncp_al_config_canal;    /* solvers/canal.c: Newton + exact search */
extern const ncp_al_config ncp_al_config_trdogleg; /* solvers/al_trdogleg.c: trust-region dogleg */
extern const ncp_al_config ncp_al_config_dampedsn; /* solvers/al_dampedsn.c: damped SN */

/* Runs the solver of cfg on the primal data of p for al_loops AL loops (fewer if its own theta_al
 * / stall test stops it) from the warm start (lambda0, v0; either may be NULL), with parameters
 * ps (NULL = defaults), without the harness (no tolerance, no time budget). Every inner step is
 * handed to on_step(ctx, step) when on_step is not NULL. Writes the last iterate into lambda (m)
 * and v (nv) and the counts into *stats (may be NULL). al_loops < 1 or a problem without primal
 * data is NCP_ERR_INPUT; a numerical failure is reported in stats->status (FAILED), not as an
 * error code. The iterates are those of the same solver under the harness. */
int ncp_al_solve_observed(const ncp_al_config *cfg, const ncp_problem *p, const ncp_params *ps,
                          const double *lambda0, const double *v0, int al_loops,
                          ncp_al_step_fn on_step, void *ctx, double *lambda, double *v,
                          ncp_al_stats *stats, ncp_error *err);

#endif
