/* The ADMM core shared by `subadmm` (Lee et al. 2025 §VI, Alg. 2) and its Table III ablations
 * `admm-nosub` and `admm-nobody`, private to those files (solvers/subadmm.h is the family's
 * public side, with the table of splittings). The three differ only in the splitting their
 * ncp_subadmm_config names; the z / lambda updates (eqs. 35-39), the residuals (eq. 42), the
 * penalty rule (eq. 43), its initial value (§VI-D) and the reporting are the same code.
 * Dependencies go one way: each solver file uses this core; the core knows the solvers only
 * through the configuration it is handed.
 *
 * See solvers/subadmm.c for the algorithm and every choice the paper leaves open.
 */
#ifndef NCP_SUBADMM_CORE_H
#define NCP_SUBADMM_CORE_H

#include "solve/solver.h"
#include "solvers/subadmm.h"

/* The parameter values of one run (defaults documented in solvers/subadmm.c). */
typedef struct ncp_subadmm_settings {
    double beta0;       /* > 0, or 0 = geometric mean of the bodies' pseudo-densities (§VI-D) */
    int adaptive;       /* 1: eq. 43 after every iteration (with refactorisation); 0: fixed */
    double gamma;       /* eq. 43 threshold, > 1 */
    double beta_range;  /* beta stays in [beta0 / beta_range, beta0 beta_range], >= 1 */
    double theta_th;    /* Alg. 2 line 13: own stop when theta_p + theta_d < theta_th; 0 = off */
    double theta_mass;  /* eq. 43 compares theta_mass theta_p with theta_d; 0 = the problem's
                           body mass scale (scale-free), 1 = the paper's literal rule */
    int nosub_factor;   /* admm-nosub: 0 = sparse unless dense is cheaper, 1 = dense, 2 = sparse */
    int threads;        /* OpenMP threads over subsystems and constraints; 0 = OpenMP default */
} ncp_subadmm_settings;

/* The parameter table of all three members: the same names and defaults, so that Table III
 * compares splittings only. */
extern const ncp_param_doc ncp_subadmm_params[];

/* A member's solve function (solver.h): its parameters from in->params (validated against
 * cfg->desc's table, errors naming the solver and the parameter), then the iteration of Alg. 2
 * with cfg's splitting under the harness's budget. */
int ncp_subadmm_solve(const ncp_subadmm_config *cfg, const ncp_solve_in *in, ncp_solve_out *out,
                      ncp_run *run, ncp_error *err);

#endif
